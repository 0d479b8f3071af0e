"""Thresholds fixed before results (issue 50 item 3): every claim's thresholds are
``dynamics.claims.Threshold`` constants of its module, made at import, listed in one table
(``docs/claims.md``, written by ``python -m views.claims_table``), and no verdict carries a
threshold computed from the results it judges."""

from __future__ import annotations

import sys

import pytest

from dynamics.claims import STATED, THRESHOLDS, OUTCOMES, Threshold
from tests.dynamics import _fuzz
from views import claims_table


def test_the_table_in_the_docs_is_written_from_the_constants():
    assert claims_table.DOC.read_text() == claims_table.markdown(), (
        "docs/claims.md is stale: run python -m views.claims_table")
    text = claims_table.DOC.read_text()
    for t in THRESHOLDS:
        assert f"`{t.name}` = {float(t):g}" in text


def test_every_threshold_is_a_module_constant_of_its_own_name():
    claims_table.markdown()  # imports every engine module
    names = [(t.module, t.name) for t in THRESHOLDS]
    assert len(set(names)) == len(names), "a threshold made twice"
    for t in THRESHOLDS:
        assert getattr(sys.modules[t.module], t.name) is t, (t.module, t.name)
        assert t.why and t.rule and t.statement and t.claim


def _stated_claims():
    claims_table.markdown()
    functions, _, _ = _fuzz.public_callables()
    by_object = {id(fn): name for name, fn in functions.items()}
    found = {}
    for name, fn in functions.items():
        if f"{fn.__module__}.{fn.__qualname__}" in STATED:
            found[f"{fn.__module__}.{fn.__qualname__}"] = (by_object[id(fn)], fn)
    return found


def test_every_stated_claim_is_public_and_listed():
    found = _stated_claims()
    assert set(found) == STATED
    # every claim function of the engines states its rule, thresholds and power (issue 50)
    assert [c for c in claims_table.claim_functions() if c not in STATED] == []
    assert len(STATED) >= 35


@pytest.mark.parametrize("claim", sorted(STATED) or ["none"])
def test_a_verdict_s_thresholds_are_the_module_constants(claim):
    """Each stated claim on its example arguments: a verdict of one of the three outcomes with
    a rule, whose thresholds are the registered constants themselves (a value computed from
    the results would be a plain float), and judging makes no new threshold."""
    qualname, fn = _stated_claims()[claim]
    kwargs = _fuzz.baseline_arguments(qualname, fn)
    made = len(THRESHOLDS)
    verdict = fn(**kwargs)
    assert len(THRESHOLDS) == made
    assert verdict.result in OUTCOMES and verdict.rule and verdict.effect
    for name, value in verdict.thresholds.items():
        assert isinstance(value, Threshold) and value.name == name
        assert any(value is t for t in THRESHOLDS), name


def test_a_value_computed_from_a_threshold_is_not_one():
    t = THRESHOLDS[0]
    for derived in (t * 1.0, t + 0.0, -(-t), abs(t), float(t)):
        assert type(derived) is float and not any(derived is r for r in THRESHOLDS)
