"""The last move wins (``views.framework.live``): a burst of knob values fed to a page while it computes
costs at most two computations, the one under way and the last, and the page then draws exactly
what a fresh page of the final knobs draws. The server's event loop is played by this test: the
callbacks the page posts to it are run here, in order."""

from __future__ import annotations

import threading
import time

from views import EXPLORERS
from views.framework.live import LatestWins
from views.framework.page import Page

from ._pages import differences, render

TIMEOUT = 60


class Loop:
    """The event loop, played by the test: ``post`` queues, ``run_until`` runs what was posted
    (a delayed callback once its time has come)."""

    def __init__(self):
        self.posted: list = []
        self.lock = threading.Lock()

    def post(self, callback, delay: float = 0.0):
        with self.lock:
            self.posted.append((time.monotonic() + delay, callback))

    def run_until(self, done) -> None:
        deadline = time.monotonic() + TIMEOUT
        while not done():
            now = time.monotonic()
            with self.lock:
                ready = [c for t, c in self.posted if t <= now]
                self.posted = [(t, c) for t, c in self.posted if t > now]
            for callback in ready:
                callback()
            assert time.monotonic() < deadline, "the computations never ended"
            time.sleep(0.001)


def test_values_that_arrive_while_computing_are_never_computed_or_drawn():
    loop, gate = Loop(), threading.Event()
    state = {"wanted": 0}
    computed, drawn = [], []

    def warm():
        computed.append(state["wanted"])
        gate.wait(TIMEOUT)

    latest = LatestWins(warm, lambda: drawn.append(state["wanted"]), loop.post)
    for value in range(1, 31):  # 30 moves, all while the first computation runs
        state["wanted"] = value
        latest.request(value)
        time.sleep(0.001)
    gate.set()
    loop.run_until(lambda: not latest.busy and drawn)
    assert computed == [1, 30]
    assert drawn == [30]
    assert (latest.computations, latest.draws) == (2, 1)


def test_a_single_move_is_computed_and_drawn_at_once():
    loop = Loop()
    drawn = []
    latest = LatestWins(lambda: None, lambda: drawn.append(1), loop.post)
    latest.request("a")
    loop.run_until(lambda: not latest.busy and drawn)
    latest.painted()  # the browser painted it
    started = time.monotonic()
    latest.request("b")
    loop.run_until(lambda: not latest.busy and len(drawn) == 2)
    assert (latest.computations, latest.draws) == (2, 2)
    assert time.monotonic() - started < LatestWins.PAINT_TIMEOUT / 2


def test_the_next_draw_waits_for_the_browser_to_paint_the_last_one():
    loop = Loop()
    drawn = []
    latest = LatestWins(lambda: None, lambda: drawn.append(latest._wanted), loop.post)
    latest.request("a")
    loop.run_until(lambda: drawn == ["a"])
    for key in "bcde":  # computed while the browser still paints "a"
        latest.request(key)
        loop.run_until(lambda: not latest.busy)
    assert drawn == ["a"]
    latest.painted()
    loop.run_until(lambda: len(drawn) == 2)
    assert drawn == ["a", "e"]  # only the newest, once the browser was free


def test_a_browser_that_never_acknowledges_is_drawn_for_after_the_timeout():
    loop = Loop()
    drawn = []
    latest = LatestWins(lambda: None, lambda: drawn.append(latest._wanted), loop.post)
    latest.PAINT_TIMEOUT = 0.2
    latest.request("a")
    loop.run_until(lambda: drawn == ["a"])
    latest.request("b")
    loop.run_until(lambda: len(drawn) == 2)
    assert drawn == ["a", "b"]


def test_a_failed_computation_is_remembered_for_its_state_only():
    loop = Loop()
    failure = ValueError("steps must be at most 10")

    def warm():
        raise failure

    latest = LatestWins(warm, lambda: None, loop.post)
    latest.request(("x", 1))
    loop.run_until(lambda: not latest.busy and latest.draws)
    assert latest.failure(("x", 1)) is failure
    assert latest.failure(("x", 2)) is None


def test_a_burst_on_a_page_computes_the_first_and_last_values_and_draws_the_last():
    cls = EXPLORERS["herding"]
    live = cls(steps=2_000, **{"box.steps": 10_000})
    page = Page(live)
    models = render(page)
    loop, gate = Loop(), threading.Event()
    computed = []
    compute = live._compute

    def slow_compute():
        computed.append(live.steps)
        gate.wait(TIMEOUT)
        return compute()

    # the page as a served session builds it, with this test as its event loop
    page._live = LatestWins(slow_compute, page._draw, loop.post)
    live.failure_of = page._live.failure
    values = [2_000 + 100 * i for i in range(1, 31)]
    for value in values:
        live.steps = value
    gate.set()
    loop.run_until(lambda: not page._live.busy and page._live.draws)
    assert computed == [values[0], values[-1]]
    assert page._live.draws == 1
    assert live.error == ""
    fresh, messages = cls.from_query({k: [v] for k, v in live.query().items()})
    assert messages == []
    found = differences(models, render(fresh))
    assert found == [], "\n".join(found[:20])


def test_a_failing_move_on_a_page_is_computed_once_and_shown_as_an_alert():
    cls = EXPLORERS["herding"]
    live = cls(steps=2_000, **{"box.steps": 10_000})
    page = Page(live)
    render(page)
    good = live.result()
    loop = Loop()
    calls = []
    compute = live._compute

    def refusing():  # an engine that refuses one value, as engines do, in words
        calls.append(live.steps)
        if live.steps == 2_100:
            raise ValueError("steps: 2100 is refused here")
        return compute()

    live._compute = refusing
    page._live = LatestWins(refusing, page._draw, loop.post)
    live.failure_of = page._live.failure
    live.steps = 2_100
    loop.run_until(lambda: not page._live.busy and page._live.draws)
    # computed once, off the loop; the draw of every panel reused the failure
    assert calls == [2_100]
    assert live.error == "steps: 2100 is refused here"
    assert live._last_good is good  # the plots keep the last good result
