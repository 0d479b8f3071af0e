"""A verdict's outcome in words. (The Doeblin claims whose page and gallery used to disagree,
issue 28 item 1, are tested in ``test_doeblin_claims.py``.)"""

from __future__ import annotations

import dataclasses

import pytest

from dynamics.claims import Verdict


def test_a_verdict_says_its_outcome():
    def verdict(agrees):
        return Verdict(claim="c", statement="s", agrees=agrees, measured="m", why="w")

    assert verdict(True).outcome == "reproduced"
    assert verdict(False).outcome == "differs: w"
    assert verdict(None).outcome == "not decided: w"
    with pytest.raises(dataclasses.FrozenInstanceError):
        verdict(True).agrees = False
