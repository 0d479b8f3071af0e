"""A URL is never a blank page: any query string opens the page with its valid part applied and
every ignored part named in words (``Explorer.from_query``), for every registered explorer.

The generated links (``_url_fuzz.py``) are split over ``test_url_fuzz.py`` and
``test_url_fuzz_part*.py``, one slice of every page's links per file, so that
``--dist loadfile`` runs the slices on both workers.
"""

from __future__ import annotations

import pytest

from views import EXPLORERS

from ._url_fuzz import _args, check_links, queries  # noqa: F401 - queries: the browser test's

PART = 0


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_any_query_opens_the_page_with_a_message_for_what_was_ignored(slug):
    check_links(slug, PART)


def test_queries_say_what_was_ignored_in_words():
    cls = EXPLORERS["bifurcation"]
    explorer, messages = cls.from_query(_args(
        "page=bifurcation&coordinate=3&log_t=%5B-1.0%2C-1.0%5D&seed=abc&foo=1&eta=1.2&eta=0.7"))
    assert explorer.coordinate == 2 and explorer.log_t == (-1.0, -0.95)
    assert explorer.seed == cls.param["seed"].default and explorer.eta == 0.7
    text = " ".join(messages)
    assert "Model seed must be a whole number from 0 to 99,999; got 'abc'" in text
    assert "no setting 'foo'" in text and "given 2 times" in text
    assert "K = 2" in text and "ends must differ" in text
    herding = EXPLORERS["herding"]
    explorer, messages = herding.from_query(_args("page=herding&w0=2"))
    assert explorer.w0 == "2" and messages == []
    explorer, messages = herding.from_query(_args("page=herding&w0=abc"))
    assert explorer.w0 == herding.param["w0"].default and "w0" in messages[0]


def test_slider_values_are_written_on_their_step():
    explorer = EXPLORERS["herding"]()
    explorer.eta = 1.4500000000000002
    assert explorer.eta == 1.45 and explorer.query()["eta"] == "1.45"


def test_the_files_share_every_link_once():
    """One file per slice: ``PARTS`` files whose slices 0 .. PARTS - 1 cover the links."""
    import pathlib
    import re

    from ._url_fuzz import PARTS

    files = sorted(pathlib.Path(__file__).parent.glob("test_url_fuzz*.py"))
    parts = sorted(int(re.search(r"^PART = (\d+)$", f.read_text(), re.M).group(1)) for f in files)
    assert parts == list(range(PARTS))


@pytest.mark.parametrize("slug, query, t, notice", [
    ("ising", "steps=200&frame=5", 6, None),  # frame k showed sample k + 1
    ("bayes", "examples=100&frame=40", 40, None),
    ("doeblin", "checkpoint=30", None, "no setting 'checkpoint'"),
    ("pmd", "n_data=100&checkpoint=3", None, "no setting 'checkpoint'"),
    ("sbeed", "iterations=500&p_frame=12", None, "no setting 'p_frame'"),
])
def test_links_from_before_the_timeline_open(slug, query, t, notice):
    """The frame knobs that the timeline replaced: Ising's and Bayes' ``frame=`` open the link
    at that time (``Timeline.aliases``); Doeblin's and PMD's checkpoint index and SBEED's
    rollout frame are named as ignored."""
    explorer, messages = EXPLORERS[slug].from_query(_args(query))
    assert explorer.t == t
    if notice is None:
        assert messages == [] and explorer.query()["t"] == str(t)
    else:
        assert len(messages) == 1 and notice in messages[0]
