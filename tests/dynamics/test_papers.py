"""The source papers' records (``dynamics.papers``): one per paper, each citation written from its
fields, bad fields refused by name."""

from __future__ import annotations

import dataclasses
import re

import pytest

from dynamics import papers
from dynamics.papers import CHEN_WELLING, DAI, LUO, OPPER, PAPERS, STEINHARDT, Paper


def test_one_record_per_paper_with_distinct_keys_titles_and_seeds():
    assert PAPERS == (CHEN_WELLING, STEINHARDT, OPPER, LUO, DAI)
    for field in ("key", "title", "seed"):
        values = [getattr(p, field) for p in PAPERS]
        assert len(set(values)) == len(values), field
    # the seeds' file names: three digits, an underscore, 16 hex digits
    assert all(re.fullmatch(r"\d{3}_[0-9a-f]{16}\.txt", p.seed) for p in PAPERS)
    assert sorted(p.seed[:3] for p in PAPERS) == ["000", "001", "002", "003", "004"]


def test_citations_are_written_from_the_fields():
    assert OPPER.short == "Opper"
    assert CHEN_WELLING.short == "Chen & Welling"
    assert LUO.surnames == ("Luo", "Sugiyama")
    three = dataclasses.replace(LUO, authors=("A B", "C D", "E F"))
    assert three.short == "B et al."
    assert three.reference.startswith("A B, C D and E F, *")
    assert OPPER.citation == "Opper, A Bayesian Approach to Online Learning (1998)"
    assert CHEN_WELLING.reference.startswith(
        "Yutian Chen and Max Welling, *Herding as a Learning System with Edge-of-Chaos Dynamics*, ")
    assert DAI.reference.endswith(", 2018") and DAI.reference.startswith("Bo Dai, *")


def test_the_reference_escapes_markdown_in_its_fields():
    odd = dataclasses.replace(OPPER, title="A *starred* [link](x) <b>", authors=("Ann_Lee",))
    assert odd.reference.startswith(r"Ann\_Lee, *A \*starred\* \[link\](x) \<b\>*")


def test_records_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        OPPER.year = 1999


@pytest.mark.parametrize("field, value, error", [
    ("key", "not a name", ValueError), ("key", 3, ValueError),
    ("authors", (), TypeError), ("authors", "Manfred Opper", TypeError),
    ("authors", ("Manfred Opper", ""), TypeError), ("authors", ["Manfred Opper"], TypeError),
    ("title", "", TypeError), ("title", None, TypeError), ("venue", 5, TypeError),
    ("seed", " ", TypeError), ("year", "1998", TypeError), ("year", True, TypeError),
    ("year", 1998.0, TypeError),
])
def test_bad_fields_are_refused_by_name(field, value, error):
    fields = dataclasses.asdict(OPPER) | {field: value}
    with pytest.raises(error, match=field):
        Paper(**fields)


def test_the_module_exports_its_records():
    assert set(papers.__all__) == {"Paper", "PAPERS", "CHEN_WELLING", "STEINHARDT", "OPPER",
                                   "LUO", "DAI"}
