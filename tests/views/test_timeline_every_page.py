"""The URL's time ``t=`` on every registered page with a timeline, derived from ``EXPLORERS``
(``test_timeline.py`` checks chosen pages against times known from their engines). A file of
its own: each page loads its engine and computes at its small sizes."""

from __future__ import annotations

import pytest

from views import EXPLORERS

from ._url_fuzz import size_knobs


@pytest.mark.parametrize("slug", [slug for slug, cls in EXPLORERS.items()
                                  if cls.timeline is not None])
def test_time_in_the_url_round_trips_on_every_page_with_a_timeline(slug):
    """Every registered page's ``t=`` reopens at the time written, and a time outside the
    frames (one before the first, one after the last) or no whole number is refused in words;
    at the page's small sizes (``size_knobs``)."""
    cls = EXPLORERS[slug]
    query = {k: [v] for k, v in size_knobs(cls).items()}
    t = cls.from_query(query)[0].frames().t
    first, last, middle = int(t[0]), int(t[-1]), int(t[len(t) // 2])
    e, messages = cls.from_query({**query, "t": [str(middle)]})
    assert messages == [] and e.t == middle and e.query()["t"] == str(middle)
    again, messages = cls.from_query({k: [v] for k, v in e.query().items()})
    assert messages == [] and again.t == middle
    for bad in (str(first - 1), str(last + 1), "2.5"):
        e, messages = cls.from_query({**query, "t": [bad]})
        assert e.t is None and len(messages) == 1, (bad, messages)
        assert messages[0].startswith(f"Time t must be a whole number from {first:,} to "
                                      f"{last:,}"), messages[0]
