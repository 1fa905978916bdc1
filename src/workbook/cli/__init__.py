"""The command line: ``python -m workbook report | validate | bench | app`` (also ``workbook ...``).

- ``report``: decision memos (HTML, optionally PDF) from scenario files or presets (:mod:`.report`);
- ``validate``: the time model against published runs (:mod:`.validate`);
- ``bench``: speed benchmarks (:mod:`.bench`);
- ``app``: serve the Voila app offline on http://127.0.0.1:8866 (``make app``;
  :mod:`workbook.present.app.serve`).

Each command reports bad arguments in one line and an exit code, never a traceback.
"""

from __future__ import annotations

import argparse
import sys

# jsonschema (under altair and nbformat) imports rfc3987_syntax when it is installed, only to check
# the "iri" string format, and that module builds a Lark grammar at import: 1.6-3.9 s of every
# command's start on this machine (python -X importtime). No schema altair or nbformat validates
# uses that format, so the command line goes without it (jsonschema's import is guarded by
# ImportError); the app's kernels and server do the same (workbook.present.app.warm).
from ..present.app.warm import skip_slow_optional_imports  # noqa: I001 (before the rest)

skip_slow_optional_imports()

from ..present.app import serve  # noqa: E402
from . import bench, report, validate  # noqa: E402


class _Parser(argparse.ArgumentParser):
    """argparse, but a bad argument is one line on stderr and exit 2 (no usage block)."""

    def error(self, message):
        print(f"error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


def _parser() -> argparse.ArgumentParser:
    p = _Parser(prog="python -m workbook", description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    report.add_parser(sub)
    validate.add_parser(sub)
    bench.add_parser(sub)
    a = sub.add_parser(
        "app", help="serve the Voila app on http://127.0.0.1:8866 (PORT=8870 for another port)"
    )
    a.set_defaults(run=lambda _args: serve.main())
    return p


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` (default: the command line) and run the command; returns its exit code."""
    args = _parser().parse_args(argv)
    try:
        return args.run(args)
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130
