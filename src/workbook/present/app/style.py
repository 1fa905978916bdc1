"""The app page's stylesheet and its one-line introduction."""

CSS = """
<style>
.wb-headline {font-size: 1.35em; font-weight: 600; line-height: 1.35; margin: 4px 0 8px 0;}
.wb-infeasible {color: #a4161a;}
.wb-error {color: #a4161a; font-size: 0.85em; min-height: 0;}
.wb-busy {color: #555; font-style: italic;}
.wb-stale {opacity: 0.45; transition: opacity 0.1s;}
#wb-preview {display: none !important;}
.wb-small {font-size: 0.85em; color: #444;}
.wb-table table {border-collapse: collapse; font-size: 0.85em;}
.wb-table td, .wb-table th {border-bottom: 1px solid #ddd; padding: 2px 6px; text-align: left;
  vertical-align: top;}
.wb-table td.num {white-space: nowrap;}
</style>
"""
INTRO = (
    "<div class='wb-small'>Every number is sourced (data/*.csv, data/README.md); "
    "the app runs offline. Change any input: the recommendation and charts follow.</div>"
)
