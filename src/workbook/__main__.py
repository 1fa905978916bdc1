"""``python -m workbook report|validate|bench|app``: see :mod:`workbook.cli`."""

from .cli import main

raise SystemExit(main())
