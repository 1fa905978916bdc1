"""Sizes and colours the recommendation's charts share (:mod:`.charts`, :mod:`.risk_charts`,
:mod:`.guide_charts`)."""

#: Size of one chart's plotting area [px] (four of them stack in the app's right-hand column).
WIDTH, HEIGHT = 520, 260
#: Longest axis label of a bar chart [px] (longer ones end in an ellipsis; the tooltip has it all):
#: the memo's; the app's follows its column (:func:`workbook.present.charts.stacked`).
LABEL_LIMIT = 260
#: The app's chart column [px] below which legends go under the charts, and the narrowest and
#: widest plotting area :func:`workbook.present.charts.stacked` draws [px].
LEGEND_BELOW_PX, MIN_WIDTH, MAX_WIDTH = 900, 180, WIDTH
#: Height of one option's row in the risk charts [px].
RISK_ROW_PX = 34
#: Colours of the pick and of the other options in the risk charts.
PICK_COLOUR, OTHER_COLOUR = "#d62728", "#4c78a8"

#: A dollar axis's tick labels as the sentences write amounts, short: ``$40M``, ``$1.5B``,
#: ``$300K``, ``$20`` (d3's SI ``$,.3s`` writes ``$1.50G`` for a billion and ``$0.00`` at zero;
#: no format at all writes ``40,000,000``). A Vega expression, so the memo's SVGs and the app's
#: live charts draw the same labels.
USD_LABEL_EXPR = (
    "abs(datum.value) >= 1e9 ? '$' + format(datum.value / 1e9, '~r') + 'B'"
    " : abs(datum.value) >= 1e6 ? '$' + format(datum.value / 1e6, '~r') + 'M'"
    " : abs(datum.value) >= 1e3 ? '$' + format(datum.value / 1e3, '~r') + 'K'"
    " : '$' + format(datum.value, '~r')"
)
