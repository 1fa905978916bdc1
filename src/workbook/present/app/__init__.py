"""The Voila app: its inputs (:mod:`.form`), the page (:mod:`.page`) and the offline server
(:mod:`.serve`). ``notebooks/app.ipynb`` calls :func:`workbook.present.app.page.open_app`."""
