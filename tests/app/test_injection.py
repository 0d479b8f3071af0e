"""No link runs script or adds markup to a page (issue 25 item 1), in a real browser.

Every page (each explorer, the home page and an unknown page) is opened with markup and script of
ten kinds in the link's keys, in its values (numbers, whole numbers, selectors, lists, ranges,
flags, typed fields) and in ``page=``. Each payload would, if it were rendered as HTML, Markdown
or LaTeX, open a dialog, set ``window.ldxInjected``, or add an element marked ``ldx-injected-<n>``,
a ``javascript:`` link, an event-handler attribute, an ``<img>``, ``<iframe>`` or ``<details>``.
The test fails on any of them, anywhere in the page (shadow roots included), once the page has
shown its notice and rewritten its address; it also checks that the notice shows the refused
text literally, wholly on the first screen (the one place that says it: the app shows no toast
over the plots), and that the address holds the state drawn (here: the defaults, since every
value is refused).
"""

from __future__ import annotations

import urllib.parse

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from tests.views._url_fuzz import _args, queries
from views import EXPLORERS

from .conftest import SCREENSHOTS
from .test_browser import COUNT_CANVASES, LOAD_TIMEOUT, REDRAW_TIMEOUT, _open

pytestmark = pytest.mark.browser

#: Markup and script, each under 80 characters (the length a notice quotes in full) and each
#: marked with its number ``{n}``, so that a failure says which payload in which slot fired.
PAYLOADS = (
    "<script>alert({n})</script>",
    '<img src=x onerror="window.ldxInjected={n};alert({n})">',
    '<svg class="ldx-injected-{n}" onload="alert({n})"></svg>',
    '<iframe class="ldx-injected-{n}" srcdoc="<script>parent.alert({n})</script>">',
    "[x{n}](javascript:alert({n}))",
    "![x{n}](x onerror=alert({n}))",
    "&lt;b class=ldx-injected-{n}&gt;x&#60;i&#62;",
    "$$\\href{{javascript:alert({n})}}{{x}}$$ \\(y_{n}\\)",
    '<details open ontoggle="alert({n})" class="ldx-injected-{n}">',
    '<a id="ldx-injected-{n}" href="javascript:alert({n})">a</a>',
)
#: Unknown keys per link (the notice quotes the first five by name).
UNKNOWN_KEYS = 5

#: Everything that would betray an injection, searched through every shadow root.
_INJECTED = """() => {
    const found = [];
    const walk = root => root.querySelectorAll('*').forEach(el => {
        const marks = (el.getAttribute('class') || '') + ' ' + (el.id || '');
        if (/ldx-injected/.test(marks)) found.push('marked ' + el.tagName + ': ' + marks);
        for (const a of el.attributes) {
            if (/^on/i.test(a.name)) found.push(el.tagName + ' ' + a.name + '=' + a.value);
            if (/^\\s*javascript:/i.test(a.value))
                found.push(el.tagName + ' ' + a.name + '=' + a.value);
        }
        // the app's own <details>: the page menu (app/main.py, navigation) and a verdict's
        // rule and power (views.framework.text.verdict_markdown)
        if (['IFRAME', 'OBJECT', 'EMBED', 'DETAILS'].includes(el.tagName)
            && !(el.tagName === 'DETAILS' && (el.classList.contains('ldx-menu')
                                              || el.classList.contains('ldx-rule'))))
            found.push(el.tagName);
        if (el.tagName === 'IMG' && !/^(data:|https?:)/.test(el.getAttribute('src') || ''))
            found.push('IMG src=' + el.getAttribute('src'));
        if (el.shadowRoot) walk(el.shadowRoot);
    });
    walk(document);
    if (window.ldxInjected !== undefined) found.push('window.ldxInjected=' + window.ldxInjected);
    return found;
}"""

#: Typeset math inside the notices (a payload's LaTeX would be).
_NOTICE_MATH = """() => {
    const found = [];
    const walk = root => root.querySelectorAll('*').forEach(el => {
        if (el.classList && el.classList.contains('ldx-notice')) {
            const inner = el.shadowRoot || el;
            found.push(...[...inner.querySelectorAll('svg, mjx-container, .katex, math')]
                       .map(m => m.tagName));
        }
        if (el.shadowRoot) walk(el.shadowRoot);
    });
    walk(document);
    return found;
}"""

#: Where the page's notice is not wholly on the first screen at load, its box (the one place
#: that says what the link did not use).
_NOTICE_OUT_OF_SIGHT = """() => {
    const boxes = [];
    const walk = root => root.querySelectorAll('*').forEach(el => {
        if (el.classList && el.classList.contains('ldx-notice')) {
            const r = el.getBoundingClientRect();
            if (r.height > 0) boxes.push([r.top, r.bottom]);
        }
        if (el.shadowRoot) walk(el.shadowRoot);
    });
    walk(document);
    if (boxes.length === 0) return ['no notice shown'];
    return boxes.filter(([top, bottom]) => top < 0 || bottom > window.innerHeight)
                .map(([top, bottom]) => `the notice lies at y ${top}-${bottom}, off the screen`);
}"""

#: The address's query equals ``expected`` (name -> value, order aside).
_ADDRESS_IS = """expected => {
    const got = {};
    for (const [k, v] of new URLSearchParams(window.location.search)) {
        if (k in got) return false;
        got[k] = v;
    }
    const keys = Object.keys(expected);
    return keys.length === Object.keys(got).length && keys.every(k => got[k] === expected[k]);
}"""


def _slots(slug: str) -> tuple[list[tuple[str, str]], list[tuple[str | None, int, str]]]:
    """One of the page's odd links (the URL fuzz's ``queries``: valid, malformed, out-of-range
    and repeated values, unknown keys, a time), without ``page``; and the payload slots: five
    unknown keys, then every knob that odd link leaves unset, each as (knob or None for a key,
    the payload's kind, the payload), the kinds rotated by the page's position."""
    cls = EXPLORERS[slug]
    odd = [(k, v) for k, v in urllib.parse.parse_qsl(
        queries(cls, 1, seed=100 + len(slug))[0], keep_blank_values=True) if k != "page"]
    knobs = [None] * UNKNOWN_KEYS + [k for k in cls.knob_names() if k not in dict(odd)]
    offset = list(EXPLORERS).index(slug)
    return odd, [(knob, (i + offset) % len(PAYLOADS),
                  PAYLOADS[(i + offset) % len(PAYLOADS)].format(n=100 * (offset + 1) + i))
                 for i, knob in enumerate(knobs)]


def crafted_query(slug: str) -> tuple[list[tuple[str, str]], list[str]]:
    """The link's query for one explorer, and the payloads used: five unknown keys holding a
    payload each, then one of the page's odd links (``_slots``), then a payload in every knob
    that odd link leaves unset. One load a page serves both checks: no payload runs or adds
    markup, and an odd link opens a drawn page with no console error (``test_odd_links.py``
    opens more with ``LDX_BROWSER_LINKS``)."""
    odd, slots = _slots(slug)
    unknown = [(payload, "1") for knob, _, payload in slots if knob is None]
    knobs = [(knob, payload) for knob, _, payload in slots if knob is not None]
    return [("page", slug), *unknown, *odd, *knobs], [payload for _, _, payload in slots]


def test_every_payload_kind_meets_knobs_and_keys_over_the_pages():
    """The rotation puts every payload kind in a knob's value and in a key, over the pages (an
    odd link takes up to four knobs of a page)."""
    in_knobs = {kind for slug in EXPLORERS for knob, kind, _ in _slots(slug)[1] if knob}
    in_keys = {kind for slug in EXPLORERS for knob, kind, _ in _slots(slug)[1] if not knob}
    assert in_knobs == in_keys == set(range(len(PAYLOADS)))


def _watch_dialogs(page) -> list[str]:
    dialogs: list[str] = []

    def dismiss(dialog):
        dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", dismiss)
    return dialogs


def _check(page, dialogs: list, expected_query: dict, literal: str, drawn: bool) -> list[str]:
    """Wait until the page (opened by the caller) shows ``literal`` in its notice and its
    address is ``expected_query`` (and, if ``drawn``, a plot), and return what went wrong:
    dialogs, injected nodes, typeset math in a notice, a notice without the literal text, an
    address not rewritten, no plot (or a notice not wholly on the first screen), console
    errors and failed requests."""
    problems = []
    try:
        page.get_by_text(literal, exact=False).first.wait_for(timeout=LOAD_TIMEOUT)
    except PlaywrightTimeout:
        problems.append(f"no notice shows {literal!r} literally")
    try:
        page.wait_for_function(_ADDRESS_IS, arg=expected_query, timeout=REDRAW_TIMEOUT)
    except PlaywrightTimeout:
        problems.append(f"the address is {page.evaluate('location.search')!r}, "
                        f"not the state drawn {expected_query}")
    if drawn:
        try:
            page.wait_for_function(f"() => ({COUNT_CANVASES})() >= 1", timeout=LOAD_TIMEOUT)
        except PlaywrightTimeout:
            problems.append("no plot drawn")
        problems += page.evaluate(_NOTICE_OUT_OF_SIGHT)
    # an injected <img> fails to load, then runs its onerror: let the network settle
    page.wait_for_load_state("networkidle", timeout=LOAD_TIMEOUT)
    return (problems + dialogs + page.evaluate(_INJECTED) + page.evaluate(_NOTICE_MATH)
            + getattr(page, "errors", []))


#: Links opened at once, each in its own tab: the server builds one session while Chromium
#: draws the others on the other core.
AT_ONCE = 3


def _open_links(browser, server: str, links: list) -> dict:
    """Open each ``(name, query, expected address, literal)`` of ``links``, ``AT_ONCE`` tabs at
    a time, and return what went wrong on each (``_check``), by name."""
    context = browser.new_context(viewport={"width": 1024, "height": 768})
    problems = {}
    try:
        for start in range(0, len(links), AT_ONCE):
            opened = []
            for name, query, expected, literal in links[start:start + AT_ONCE]:
                tab = context.new_page()
                tab.errors = []
                tab.on("console", lambda m, tab=tab: tab.errors.append(f"console: {m.text}")
                       if m.type == "error" else None)
                tab.on("pageerror", lambda exc, tab=tab: tab.errors.append(f"pageerror: {exc}"))
                # a request that fails for another reason than the tab closing
                tab.on("requestfailed", lambda r, tab=tab: None
                       if "ERR_ABORTED" in (r.failure or "")
                       else tab.errors.append(f"request failed: {r.url} ({r.failure})"))
                dialogs = _watch_dialogs(tab)
                tab.goto(f"{server}?{query}", wait_until="commit", timeout=LOAD_TIMEOUT)
                opened.append((name, tab, dialogs, expected, literal))
            for name, tab, dialogs, expected, literal in opened:
                found = _check(tab, dialogs, expected, literal[0], drawn=name in EXPLORERS)
                found += [f"no notice shows {p!r} literally" for p in literal[1:]
                          if tab.get_by_text(p, exact=False).count() == 0]
                if found:
                    problems[name] = found
                if name in ("herding", "pmd"):
                    SCREENSHOTS.mkdir(exist_ok=True)
                    tab.screenshot(path=str(SCREENSHOTS / f"injection-{name}.png"))
                tab.close()
    finally:
        context.close()
    return problems


def test_no_link_runs_script_or_adds_markup_on_any_page(server, browser):
    links = []
    for slug in EXPLORERS:
        query, used = crafted_query(slug)
        text = urllib.parse.urlencode(query)
        # the state drawn: every payload refused, the odd link's valid part applied
        opened, _ = EXPLORERS[slug].from_query(_args(text))
        # the notice quotes each of the five unknown keys literally
        links.append((slug, text, {"page": slug, **opened.query()}, used[:UNKNOWN_KEYS]))
    assert _open_links(browser, server, links) == {}


def _default_address(query: str) -> dict:
    """The address a link whose every value is refused gets: the page's defaults, or the home
    page's for an unknown page."""
    slug = urllib.parse.parse_qs(query)["page"][0]
    return {"page": slug, **EXPLORERS[slug]().query()} if slug in EXPLORERS else {"page": "home"}


def _unknown_page(name: str) -> str:
    return urllib.parse.urlencode([("page", name), (PAYLOADS[2].format(n=5), "1")])


#: Links of one payload each: the issue's, a selector given twice, unknown pages, the home page.
SINGLE = [
    ("page=herding&steps=%3Cscript%3Ealert(1)%3C%2Fscript%3E", "<script>alert(1)</script>"),
    ("page=neuron&%3Cimg%20src%3Dx%20onerror%3D%22alert(3)%22%3E=1",
     '<img src=x onerror="alert(3)">'),
    ("page=neuron&preset=%3Cb%20class%3Dldx-injected-1%3E&preset="
     "%3Csvg%20onload%3Dalert(2)%3E", "<svg onload=alert(2)>"),
    *[(_unknown_page(name), f"There is no page '{name[:20]}") for name in (
        PAYLOADS[1].format(n=1), PAYLOADS[7].format(n=2) + PAYLOADS[4].format(n=3),
        PAYLOADS[0].format(n=4))],
    # the home page takes no settings: it shows none of them, and its address drops them
    (urllib.parse.urlencode([("page", "home"),
                             (PAYLOADS[1].format(n=6), PAYLOADS[3].format(n=7))]),
     "Open the explorer"),
]


def test_the_issues_links_and_unknown_pages_run_nothing(server, browser):
    links = [(query, query, _default_address(query), [literal]) for query, literal in SINGLE]
    assert _open_links(browser, server, links) == {}


def test_a_typed_field_shows_markup_as_text(server, page):
    dialogs = _watch_dialogs(page)
    _open(page, f"{server}?page=herding")
    canonical = {"page": "herding", **EXPLORERS["herding"]().query()}
    page.wait_for_function(_ADDRESS_IS, arg=canonical, timeout=REDRAW_TIMEOUT)
    url = page.url
    # each payload within its field's cap (``knobs.limits``: the seed's box takes 40 characters)
    for label, payload in (("Model seed", PAYLOADS[0].format(n=1)),
                           ("Initial weights w0", PAYLOADS[0].format(n=2)),
                           ("Initial weights w0", PAYLOADS[7].format(n=3))):
        field = page.get_by_label(label)
        field.fill(payload)
        field.press("Enter")
        page.get_by_text(payload, exact=False).first.wait_for(timeout=REDRAW_TIMEOUT)
    page.wait_for_load_state("networkidle", timeout=LOAD_TIMEOUT)
    assert dialogs + page.evaluate(_INJECTED) == []
    assert page.url == url  # nothing refused reached the address
    assert page.errors == []
