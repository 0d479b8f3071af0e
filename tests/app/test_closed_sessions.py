"""No work for a closed session (issue 45 item 2): clients that close in the middle of a knob move
leave the served app idle, and their sessions are destroyed.

Twelve Python clients (``bokeh.client``, as a script or a crawler connects) each open the
herding page, move a slider three times and close while the last move is under way. Before,
the server then ran a core for good (99 % of a core in this test's window): HoloViews'
``Plot.refresh`` of a page whose client never said it loaded the page tried again on every
tick of the event loop, and each try blocked the session's expiry
(``views.framework.workarounds.refresh_when_loaded``). A browser tab closed in the middle of a
burst of key presses leaves it idle too. The server's CPU is read from outside (psutil, its own
process), in a 2-s window 5 s after the last client closed.
"""

from __future__ import annotations

import concurrent.futures
import os
import pathlib
import tempfile
import threading
import time

import psutil
import pytest

from views import EXPLORERS

from .conftest import _free_port, panel_serve

#: The knob the clients move: a slider that sends each value as it moves (not throttled).
KNOB = "n_states"
CLIENTS = 12
#: Seconds after the last client closed at which the server's CPU is read, and for how long.
AFTER, WINDOW = 5.0, 2.0
#: Highest CPU of the server's own process in that window (percent of one core).
IDLE = 5.0
#: Bokeh's unused-session lifetime and check interval for this server (ms): a closed client's
#: session is destroyed 12-13 s after it closed (15-32 s by default), after the CPU window
#: (destroying sessions is work: their memory is collected, 2 s after the last one).
LIFETIME, CHECK = 12000, 1000
#: Seconds within which the server is idle again once Bokeh began destroying the last session.
SETTLED = 15.0


def _cpu(proc: psutil.Process, seconds: float) -> float:
    """The CPU of the server's own process over the next ``seconds``, in percent of one core."""
    def used():
        times = proc.cpu_times()
        return times.user + times.system
    start, t0 = used(), time.monotonic()
    time.sleep(seconds)
    return 100 * (used() - start) / (time.monotonic() - t0)


@pytest.fixture(scope="module")
def served():
    """A server of our own whose unused sessions are destroyed soon (``LIFETIME``), with a
    debug log that says when (``Discarding session``); idle after its start. Its process, URL
    and log text."""
    with tempfile.NamedTemporaryFile("w", suffix=".log") as log:
        # the page's plots built at once (``LDX_DEFER_PLOTS=0``): with the frame first, a
        # client that never says it has shown the page gets no plot, and nothing to refresh
        env = {**os.environ, "LDX_DEFER_PLOTS": "0"}
        proc, url = panel_serve("app", _free_port(), log=log, env=env, args=[
            "--check-unused-sessions", str(CHECK), "--unused-session-lifetime", str(LIFETIME),
            "--log-level", "debug"])
        server = psutil.Process(proc.pid)
        try:
            deadline = time.monotonic() + 240
            while _cpu(server, 1.0) > 15:  # the start's warm-up
                assert time.monotonic() < deadline, "the server never went idle after starting"
            yield server, url, pathlib.Path(log.name).read_text
        finally:
            proc.kill()
            proc.wait(timeout=20)


def _pull(url: str):
    """A Python client's session of the herding page, and the slider of ``KNOB`` in it."""
    import panel.models  # noqa: F401 - the page's Panel models, for the client's document
    from bokeh.client import pull_session
    from bokeh.models import Slider

    session = pull_session(url=url, arguments={"page": "herding"})
    label = EXPLORERS["herding"].param[KNOB].label
    return session, next(m for m in session.document.models
                         if isinstance(m, Slider) and m.title == label)


def _client_closing_mid_move(url: str, number: int, ready: threading.Barrier,
                             one_at_a_time: threading.Lock) -> None:
    """One Python client: open the herding page (one client at a time: a session is built on
    the server's event loop, and twelve requests at once on a loaded server outlast the
    client's 20-s request timeout) and, once every client has (``ready``), move ``KNOB`` three
    times (each move sent and received) and close at once, the last move under way. A client
    that fails breaks the barrier, so that the others do not wait for it."""
    session = None
    try:
        with one_at_a_time:
            session, slider = _pull(url)
        ready.wait(timeout=300)
        lo, hi = int(slider.start), int(slider.end)
        for k in (1, 2, 3):
            slider.value = lo + (int(slider.value) - lo + number + k) % (hi - lo + 1)
            session.force_roundtrip()  # the move has reached the server
    except BaseException:
        ready.abort()
        raise
    finally:
        if session is not None:
            session.close()  # the last move is being computed or drawn now


def test_python_clients_that_close_mid_move_leave_the_server_idle(served):
    server, url, log = served
    discarded = log().count("Discarding session")
    ready = threading.Barrier(CLIENTS)  # all open first: the sessions end together
    one_at_a_time = threading.Lock()
    with concurrent.futures.ThreadPoolExecutor(CLIENTS) as pool:
        list(pool.map(_client_closing_mid_move, [url] * CLIENTS, range(CLIENTS),
                      [ready] * CLIENTS, [one_at_a_time] * CLIENTS))
    closed = time.monotonic()
    time.sleep(max(0.0, closed + AFTER - time.monotonic()))
    cpu = _cpu(server, WINDOW)
    print(f"server CPU {AFTER:.0f}-{AFTER + WINDOW:.0f} s after the clients closed: {cpu:.1f} %")
    assert cpu < IDLE, (f"{AFTER:.0f}-{AFTER + WINDOW:.0f} s after {CLIENTS} clients closed "
                        f"mid-move the server used {cpu:.0f} % of a core")
    # and Bokeh destroys their sessions (a refresh loop blocked that: never, before)
    deadline = closed + 3 * (LIFETIME + CHECK) / 1000 + 30
    while log().count("Discarding session") < discarded + CLIENTS:
        assert time.monotonic() < deadline, (
            f"{log().count('Discarding session') - discarded} of {CLIENTS} closed sessions "
            "were destroyed")
        time.sleep(0.2)
    # destroying a session costs a collection (Bokeh's ``Document.destroy``), and 2 s after
    # the last one the freed heap is collected and trimmed (``app_hooks._trim``, about a
    # second of CPU for 13 sessions here): then nothing more
    destroyed = time.monotonic()
    time.sleep(2.5)
    while (cpu := _cpu(server, 1.0)) >= IDLE:
        assert time.monotonic() < destroyed + SETTLED, (
            f"{SETTLED:.0f} s after their sessions were destroyed the server used {cpu:.0f} %")
    print(f"idle {time.monotonic() - destroyed:.1f} s after the last session's destruction")


@pytest.mark.browser
def test_a_tab_closed_mid_move_leaves_the_server_idle(served, browser):
    """A student holding an arrow key on a slider closes the tab: within 5 s of the close the
    server is idle (the moves still pending are dropped, not computed one after another)."""
    from .test_browser import _canvas_count, _open, _wait_for_plots
    from .test_latest_wins import _handle

    server, url, _ = served
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        _open(page, f"{url}?page=herding")
        _wait_for_plots(page, _canvas_count(EXPLORERS["herding"]))
        _handle(page, EXPLORERS["herding"].param[KNOB].label).focus()
        for key in ["ArrowRight"] * 6 + ["ArrowLeft"] * 6:
            page.keyboard.press(key)
            page.wait_for_timeout(40)
    finally:
        page.close()  # mid-burst: the last presses are on their way or being computed
    closed = time.monotonic()
    time.sleep(AFTER)
    cpu = _cpu(server, WINDOW)
    assert cpu < IDLE, (f"{AFTER:.0f}-{AFTER + WINDOW:.0f} s after the tab closed mid-move the "
                        f"server used {cpu:.0f} % of a core")
    assert time.monotonic() - closed < AFTER + WINDOW + 5
