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
/* A cell breaks between words, never inside one ("Sup/port cont/ract" at 400 px): the results'
   "anywhere" would shrink a column to one letter; a table wider than the screen scrolls instead. */
.wb-table td, .wb-table th {overflow-wrap: break-word; word-break: normal;}
.wb-table {max-width: 100%; overflow-x: auto;}
/* Charts scale down with their column instead of being clipped (Vega draws at a fixed size). */
.wb-charts, .wb-results {min-width: 0; max-width: 100%;}
.wb-results .widget-html, .wb-results .widget-html-content {min-width: 0; max-width: 100%;}
.wb-results .widget-html-content {overflow-x: auto; overflow-wrap: anywhere;}
.wb-charts .vega-embed, .wb-charts .chart-wrapper {width: 100% !important; max-width: 100%;}
.wb-charts svg, .wb-charts canvas {max-width: 100% !important; height: auto !important;}
/* Inputs in a "More" section fit its padded box instead of running under its right edge. */
.wb-more .widget-inline-hbox {max-width: 100% !important;}
/* A lost kernel: the stale results greyed and a banner (PageReady's heartbeat). */
.wb-lost .wb-results {opacity: 0.35; pointer-events: none;}
#wb-lost-banner {position: fixed; top: 0; left: 0; right: 0; z-index: 1000; padding: 10px 16px;
  background: #a4161a; color: #fff; font: 600 1em sans-serif; text-align: center;}
#wb-lost-banner button {margin-left: 12px; font: inherit; padding: 2px 10px; cursor: pointer;}
/* Below ~900 px (a phone, a half-screen laptop): the recommendation first, the inputs below it,
   both the full width; labels above their inputs on a phone. */
@media (max-width: 900px) {
  .wb-main {flex-direction: column-reverse !important;}
  .wb-inputs {width: 100% !important; min-width: 0 !important;}
  .wb-results {padding: 0 !important; width: 100% !important;}
  .wb-inputs .widget-inline-hbox, .wb-inputs .widget-text, .wb-inputs .widget-dropdown,
  .wb-inputs .widget-select-multiple {width: 100% !important; max-width: 100% !important;}
}
@media (max-width: 600px) {
  .wb-inputs .widget-inline-hbox {flex-wrap: wrap;}
  .wb-inputs .widget-inline-hbox > .widget-label {width: 100% !important; text-align: left;}
  /* A dropdown's row is one line high: its label wrapped above it overlapped the next input. */
  .wb-inputs .widget-dropdown {height: auto !important;}
  .wb-inputs .widget-dropdown > select {min-height: 28px;}
  .wb-headline {font-size: 1.15em;}
  /* Six columns of whole words fit a phone's width with less padding. */
  .wb-table td, .wb-table th {padding: 2px 3px;}
}
</style>
"""
INTRO = (
    "<div class='wb-small'>Every number is sourced (data/*.csv, data/README.md); "
    "the app runs offline. Change any input: the recommendation and charts follow.</div>"
)
