"""What a person reads: numbers and tables (:mod:`.format`), charts and their SVG export
(:mod:`.charts`), the decision memo (:mod:`.memo`) and its rendering to HTML / PDF
(:mod:`.render`), and the Voila app (:mod:`.app`). Modules are imported by their path."""
