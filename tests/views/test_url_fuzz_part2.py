"""Slice 2 of every page's generated links (see ``test_url_fuzz.py`` and ``_url_fuzz.py``)."""

from __future__ import annotations

import pytest

from views import EXPLORERS

from ._url_fuzz import check_links

PART = 2


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_any_query_opens_the_page_with_a_message_for_what_was_ignored(slug):
    check_links(slug, PART)
