"""Odd links, half 2 of the pages (see ``_odd_links.py``)."""

from __future__ import annotations

import pytest

from ._odd_links import HALF, PAGES, check_odd_links

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("slug", PAGES[HALF:])
def test_odd_links_open_a_drawn_page_with_no_console_error(server, browser, slug):
    check_odd_links(server, browser, slug)
