"""A teacher's link in a real browser (issue 27 item 2): ``present=1`` shows no sidebar and the
plots large, ``show=`` keeps only the named controls, the address keeps both, "Copy link"
puts the address (the state drawn) on the clipboard, "Code" shows the state's script and
"Reset" reopens the defaults in the same view."""

from __future__ import annotations

import urllib.parse

import pytest

from views import EXPLORERS

from .conftest import SCREENSHOTS
from .test_browser import (REDRAW_TIMEOUT, WIDE_SCREEN, _assert_a_plot_on_the_first_screen,
                           _canvas_count, _open, _wait_for_plots)

pytestmark = pytest.mark.browser

#: Every knob widget's label on the page (slider titles, input labels), through shadow roots.
_LABELS = """() => {
    const found = [];
    const walk = root => root.querySelectorAll('*').forEach(el => {
        if (el.classList && (el.classList.contains('bk-slider-title')
                             || (el.tagName === 'LABEL' && el.closest('.bk-input-group'))))
            found.push(el.textContent.trim());
        if (el.shadowRoot) walk(el.shadowRoot);
    });
    walk(document);
    return found;
}"""


def test_a_teachers_link_shows_the_plots_and_only_the_named_controls(server, page):
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.set_viewport_size(WIDE_SCREEN)
    cls = EXPLORERS["herding"]
    _open(page, f"{server}?page=herding&present=1&show=n_states,seed&eta=0.5")
    _wait_for_plots(page, _canvas_count(cls))
    page.screenshot(path=str(SCREENSHOTS / "herding-present-1440.png"))
    assert page.locator("#sidebar").count() == 0  # Bootstrap's sidebar: not on the page
    labels = page.evaluate(_LABELS)
    knob_labels = {cls.param[n].label for n in cls.knob_names()}
    shown = {label.split(":")[0].strip() for label in labels} & knob_labels
    assert shown == {"States D", "Model seed"}, labels
    _assert_a_plot_on_the_first_screen(page, "herding present", WIDE_SCREEN)
    query = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)
    assert query["present"] == ["1"] and query["show"] == ["n_states,seed"]
    assert query["eta"] == ["0.5"]  # a knob not shown keeps the link's value
    page.get_by_role("button", name="Copy link").click()
    page.get_by_role("button", name="Link copied").wait_for(timeout=REDRAW_TIMEOUT)
    assert page.evaluate("navigator.clipboard.readText()") == page.url
    # Code: the script of this state, as text
    page.get_by_role("button", name="Code").click()
    page.get_by_text("explorer, notes = EXPLORERS['herding'].from_query({").wait_for(
        timeout=REDRAW_TIMEOUT)
    assert page.get_by_text("'eta': '0.5',").count() == 1
    page.screenshot(path=str(SCREENSHOTS / "herding-present-code.png"))
    assert page.errors == []
    # Reset: the same teacher's view at the page's defaults
    page.get_by_role("link", name="Reset").click()
    page.wait_for_function("() => new URLSearchParams(location.search).get('eta') === '1.0'",
                           timeout=REDRAW_TIMEOUT)
    query = urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query)
    assert query["present"] == ["1"] and query["show"] == ["n_states,seed"]


def test_present_makes_the_present_link_from_the_state_and_the_picked_controls(server, page):
    """**Present** (issue 49 item 1): the teacher picks controls by their labels; the link it
    makes opens this state in present mode with only those controls."""
    cls = EXPLORERS["herding"]
    _open(page, f"{server}?page=herding&eta=0.5")
    page.get_by_role("button", name="Present", exact=True).click()
    link = page.locator(".ldx-present-open")
    link.wait_for(timeout=REDRAW_TIMEOUT)
    page.locator(".ldx-present-view input").first.click()  # the menu of the controls' labels
    page.locator(".choices__item--choice", has_text="Model seed").first.click()
    page.keyboard.press("Escape")
    page.wait_for_function("""() => { const f = (r) => { const a = r.querySelector(
        'a.ldx-present-open'); if (a) return a; for (const e of r.querySelectorAll('*'))
        { const i = e.shadowRoot && f(e.shadowRoot); if (i) return i; } return null; };
        const a = f(document); return a && a.href.includes('show=seed'); }""",
                           timeout=REDRAW_TIMEOUT)
    href = link.get_attribute("href")
    query = urllib.parse.parse_qs(href[1:])
    assert query["present"] == ["1"] and query["show"] == ["seed"] and query["eta"] == ["0.5"]
    _open(page, f"{server}{href}")
    _wait_for_plots(page, _canvas_count(cls))
    assert page.locator("#sidebar").count() == 0
    labels = {label.split(":")[0].strip() for label in page.evaluate(_LABELS)}
    assert labels & {cls.param[n].label for n in cls.knob_names()} == {"Model seed"}
    assert page.errors == []
