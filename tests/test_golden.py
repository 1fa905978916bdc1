"""The same results after any change not meant to move them (first written for the re-layout).

``tests/golden/*.json`` was written by ``tests/golden_capture.py`` before the first file moved
(commit 7b7dbf7): every preset's recommendation (pick, reasons, runners-up, rejections, break-even,
frontier, tornado, Monte Carlo, a digest of every option's feasibility, cost and time, the article
comparison and the trust paragraph) and the validator's figures and printed text. It held through
the whole re-layout; since then it was rewritten only by changes meant to move a result (the
near-tie rule, the impossible headline, the price caveat: each named in the CHANGELOG with what
moved). Floats compare to a relative 1e-9 (a moved line may sum in another order); text compares
exactly.
"""

from __future__ import annotations

import json
import math

import pytest
from golden_capture import RECOMMENDATIONS, VALIDATE, capture_recommendations, capture_validate


def _same(got, want, where: str = "") -> None:
    if isinstance(want, dict):
        assert isinstance(got, dict) and sorted(got) == sorted(want), f"{where}: keys differ"
        for k in want:
            _same(got[k], want[k], f"{where}.{k}")
    elif isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), f"{where}: length differs"
        for i, (g, w) in enumerate(zip(got, want)):
            _same(g, w, f"{where}[{i}]")
    elif isinstance(want, float) and not isinstance(want, bool):
        assert isinstance(got, (int, float)) and math.isclose(
            got, want, rel_tol=1e-9, abs_tol=1e-12
        ), f"{where}: {got!r} != {want!r}"
    else:
        assert got == want, f"{where}: {got!r} != {want!r}"


@pytest.fixture(scope="module")
def recommendations():
    return json.loads(json.dumps(capture_recommendations()))


def test_every_preset_recommends_what_it_did_before_the_move(recommendations):
    want = json.loads(RECOMMENDATIONS.read_text(encoding="utf-8"))
    assert sorted(recommendations) == sorted(want)
    for name in want:
        _same(recommendations[name], want[name], name)


def test_the_validator_prints_what_it_did_before_the_move():
    got = json.loads(json.dumps(capture_validate()))
    want = json.loads(VALIDATE.read_text(encoding="utf-8"))
    assert got["text"] == want["text"]
    _same(got["figures"], want["figures"], "figures")
