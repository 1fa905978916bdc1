"""The tables behind the guided analyst notebooks, one module per notebook.

``memory_fit`` (01 model sizing and memory), ``speed`` (02 speed and efficiency), ``rent_vs_buy``
(03), ``power`` (04 power and cooling), ``team`` (05 team and software risk), ``claims`` (06 the
article's claims checked, with the engine's figures from ``recomputed_claims``); notebook 07
(estimate accuracy) reads its tables from :mod:`workbook.calibrate`. ``inputs`` holds the argument
checks they share. Their charts are in :mod:`workbook.present.guide_charts`. Import the modules by
path (``from workbook.guides.speed import speed_table``).
"""
