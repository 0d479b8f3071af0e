"""Lessons in a real browser (issue 49 item 3): ``?lesson=<name>&step=<k>`` opens the step's
page at its state with its caption beside the plots; Page Down and the Next button go to the
next step, the step in the address; a bad step says which and why and the rest opens."""

from __future__ import annotations

import re
import urllib.parse

import pytest

from views import EXPLORERS
from views.framework.page_workarounds import FIND_JS
from views.framework.present import Presentation
from views.lesson import VIEW_KEYS, read, step_args

from .conftest import SCREENSHOTS
from .test_browser import LOAD_TIMEOUT, REDRAW_TIMEOUT, _wait_for_frames_drawn

pytestmark = pytest.mark.browser

SHIPPED = ("herding-edge-of-chaos", "period-doubling", "mixing-by-restarts")

#: True once the address the page writes holds the lesson's step and the page's state.
_STEP_WRITTEN = """k => {
    const q = new URLSearchParams(window.location.search);
    return q.get('step') === String(k) && q.has('page') && [...q.keys()].length > 4;
}"""


def _address(page) -> dict:
    return {k: v[-1] for k, v in
            urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query).items()}


def _expected(step) -> dict:
    """What the address holds for each key the step's link sets: the knobs' canonical text."""
    args = step_args(step)
    slug = args["page"][-1]
    cls = EXPLORERS[slug]
    settings = {k: v for k, v in args.items() if k not in VIEW_KEYS and k != "t"}
    explorer, messages, _ = cls.unchecked_query(settings)
    assert messages == []
    presentation, _ = Presentation.from_query(cls, args)
    return {"page": slug, **{k: explorer.knob_text(k) for k in settings},
            **presentation.query()}


@pytest.mark.parametrize("name", SHIPPED)
def test_a_shipped_lesson_opens_step_by_step(server, page, name):
    lesson = read(name)
    page.set_viewport_size({"width": 1440, "height": 900})
    page.goto(f"{server}?lesson={name}&step=1", wait_until="domcontentloaded",
              timeout=LOAD_TIMEOUT)
    for k, step in enumerate(lesson.steps, start=1):
        page.wait_for_function(_STEP_WRITTEN, arg=k, timeout=LOAD_TIMEOUT)
        _wait_for_frames_drawn(page)
        address = _address(page)
        assert address["lesson"] == name
        for key, value in _expected(step).items():
            assert address.get(key) == value, (k, key, address.get(key), value)
        # the caption beside the plots, under the step's heading (its words before any math)
        words = step.heading.split("$")[0].strip()
        page.locator(".ldx-lesson-caption h4").get_by_text(words).wait_for(
            timeout=REDRAW_TIMEOUT)
        assert page.get_by_text(f"step {k} of {len(lesson.steps)}").count() == 1
        if k == 1:
            page.screenshot(path=str(SCREENSHOTS / f"lesson-{name}-1.png"))
        if k < len(lesson.steps):
            # the key a presenter's remote sends; the page (not a control) has the focus
            page.locator("body").click(position={"x": 5, "y": 300})
            page.keyboard.press("PageDown")
            page.wait_for_function(_STEP_WRITTEN, arg=k + 1, timeout=LOAD_TIMEOUT)
    assert page.locator("a.ldx-lesson-next").count() == 0  # the last step has no next
    page.locator("a.ldx-lesson-previous").click()
    page.wait_for_function(_STEP_WRITTEN, arg=len(lesson.steps) - 1, timeout=LOAD_TIMEOUT)
    assert page.errors == []


def test_a_bad_step_says_which_and_why_and_the_lesson_goes_on(server, page):
    # a step number out of range: the lesson opens at step 1 and says so
    page.goto(f"{server}?lesson=period-doubling&step=99", wait_until="domcontentloaded",
              timeout=LOAD_TIMEOUT)
    page.wait_for_function(_STEP_WRITTEN, arg=1, timeout=LOAD_TIMEOUT)
    page.get_by_text("step must be a whole number from 1 to 7").wait_for(timeout=REDRAW_TIMEOUT)
    # a value out of range in the address: the page says it was not used, the caption shows
    page.goto(f"{server}?lesson=period-doubling&step=2&at_log_t=99",
              wait_until="domcontentloaded", timeout=LOAD_TIMEOUT)
    page.wait_for_function(_STEP_WRITTEN, arg=2, timeout=LOAD_TIMEOUT)
    assert "at_log_t=99" not in page.url
    page.get_by_text("The first doubling").first.wait_for(timeout=REDRAW_TIMEOUT)
    # an unknown lesson: the home page, saying so, with the lessons listed
    page.goto(f"{server}?lesson=nope", wait_until="domcontentloaded", timeout=LOAD_TIMEOUT)
    page.get_by_text("There is no lesson 'nope'").wait_for(timeout=REDRAW_TIMEOUT)
    page.get_by_text("Herding at the edge of chaos").first.wait_for(timeout=REDRAW_TIMEOUT)
    assert page.errors == []


#: True once the view of the class given is shown and its top lies on the screen.
_IN_SIGHT = """css => {""" + FIND_JS + """
    const view = find(document, '.' + css);
    if (!view) return false;
    const box = view.getBoundingClientRect();
    return box.height > 0 && box.top >= 0 && box.top < window.innerHeight;
}"""


def test_add_this_view_as_a_step_writes_the_state(server, page):
    answers = _Answers(page)  # the server's messages, which the test may hold back
    page.set_viewport_size({"width": 1024, "height": 768})
    page.goto(f"{server}?page=neuron", wait_until="domcontentloaded", timeout=LOAD_TIMEOUT)
    _wait_for_frames_drawn(page)
    # scrolled down to the plots, the view opens in sight (it sits at the top of the page)
    page.mouse.move(1015, 600)  # the page's margin: over a plot the wheel zooms it
    page.mouse.wheel(0, 3000)
    page.wait_for_function("() => document.querySelector('#main').scrollTop > 500",
                           timeout=REDRAW_TIMEOUT)  # the template's main area scrolls
    page.get_by_role("button", name="Step", exact=True).click()
    page.wait_for_function(_IN_SIGHT, arg="ldx-step-view", timeout=REDRAW_TIMEOUT)
    text = page.locator(".ldx-step-view pre").inner_text(timeout=REDRAW_TIMEOUT)
    assert text.startswith("## ") and "[open](?page=neuron&" in text
    # a busy server: its answer to Code (show the view) reaches the browser 6 s late, longer
    # than the browser once waited for the view before it gave the scroll up
    answers.hold()
    page.get_by_role("button", name="Code").click()
    page.wait_for_timeout(6000)  # the server's stall, not a wait for the page
    assert not page.evaluate(_IN_SIGHT, "ldx-code-view")
    answers.release()
    page.wait_for_function(_IN_SIGHT, arg="ldx-code-view", timeout=REDRAW_TIMEOUT)
    assert page.errors == []


class _Answers:
    """The server's websocket messages to ``page`` (routed from before it opens), passed on
    at once, or from ``hold`` on kept back until ``release`` sends them in order."""

    def __init__(self, page):
        self.held: list = []
        self.holding = False
        self.socket = None
        page.route_web_socket(re.compile(r"/ws(\?|$)"), self._route)

    def _route(self, socket) -> None:
        upstream = socket.connect_to_server()
        self.socket = socket
        upstream.on_message(self._answer)
        socket.on_message(upstream.send)

    def _answer(self, message) -> None:
        if self.holding:
            self.held.append(message)
        else:
            self.socket.send(message)

    def hold(self) -> None:
        self.holding = True

    def release(self) -> None:
        self.holding = False
        for message in self.held:
            self.socket.send(message)
        self.held.clear()
