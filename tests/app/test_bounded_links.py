"""A value longer than its cap, in a served page (issue 45 item 3): a link's 1,001-digit w0 is
refused by name in the page's notice, with its cap, and the page opens drawn with w0 at its
default and the link's other values; a link too long as a whole opens the page at its
defaults; a typed field's box takes no more characters than its cap.
The caps themselves, and the in-process links, are tested in
``tests/views/test_bounded_input.py``."""

from __future__ import annotations

import urllib.parse

import pytest

from tests.views._url_fuzz import _args
from views import EXPLORERS
from views.framework import knobs

from .test_browser import _open
from .test_injection import _check, _watch_dialogs

pytestmark = pytest.mark.browser


def test_a_long_value_in_a_link_is_refused_in_the_notice(server, page):
    w0 = "0." + "0" * 998 + "1"
    query = urllib.parse.urlencode({"page": "herding", "steps": "1000", "w0": w0})
    opened, messages = EXPLORERS["herding"].from_query(_args(query))
    assert opened.w0 == EXPLORERS["herding"].param["w0"].default and len(messages) == 1
    dialogs = _watch_dialogs(page)
    page.goto(f"{server}?{query}", wait_until="commit")
    problems = _check(page, dialogs, {"page": "herding", **opened.query()},
                      "Initial weights w0 must be at most 200 characters, got 1,001",
                      drawn=True)
    assert problems == []


def test_a_link_too_long_as_a_whole_opens_the_defaults(server, page):
    """The served app refuses the whole query before reading any of it (``app/main.py``)."""
    query = urllib.parse.urlencode({"page": "herding", "n_states": "5",
                                    "w0": "1" * knobs.QUERY_CHARS})
    dialogs = _watch_dialogs(page)
    page.goto(f"{server}?{query}", wait_until="commit")
    problems = _check(page, dialogs, {"page": "herding", **EXPLORERS["herding"]().query()},
                      f"the link's settings must be at most {knobs.QUERY_CHARS:,} characters",
                      drawn=True)
    assert problems == []


def test_a_typed_field_takes_no_more_than_its_cap(server, page):
    _open(page, f"{server}?page=herding")
    for label, name in (("Initial weights w0", "w0"), ("Model seed", "seed")):
        cap = knobs.limits(EXPLORERS["herding"].param[name])[0]
        field = page.get_by_label(label)
        assert field.evaluate("el => el.maxLength") == cap
        field.fill("1" * (cap + 5))  # the browser keeps the first ``cap``
        assert len(field.input_value()) == cap
