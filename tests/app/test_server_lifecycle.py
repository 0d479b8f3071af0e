"""A class on one server (issue 25 item 4): a run whose tab is closed stops, the server stops
within 5 s of SIGTERM while a run goes, and a session Bokeh builds again when its browser
connects late draws as the first one would have.

The server's CPU is read from outside (psutil on its pid): a long run keeps it busy (a core when
the machine is idle, less on a loaded machine), a stopped one leaves it idle.
"""

from __future__ import annotations

import pathlib
import signal
import subprocess
import tempfile
import time
import urllib.parse

import psutil
import pytest

from .test_browser import COUNT_CANVASES
from .conftest import _free_port, panel_serve

pytestmark = pytest.mark.browser

#: A run of a couple of minutes when let run: the PCT page's decision boundaries, trained on
#: a bigger set than the default (the run's own settings, in the link).
LONG_RUN = "?page=pct&boundaries.train_cases=2000&boundaries.epochs=200"


def _cpu(proc: psutil.Process, seconds: float) -> float:
    """The CPU of the process and its children (the runs' worker processes, the fork server)
    over the next ``seconds``, in percent of one core."""
    def total():
        used = 0.0
        for p in [proc, *proc.children(recursive=True)]:
            try:
                times = p.cpu_times()
                used += times.user + times.system
            except psutil.NoSuchProcess:  # a worker that ended: its time is gone with it
                pass
        return used
    start, t0 = total(), time.monotonic()
    time.sleep(seconds)
    return 100 * (total() - start) / (time.monotonic() - t0)


def _busy(proc: psutil.Process) -> float:
    """The CPU of a server whose long run is going (percent of one core): the highest of up to
    three 2-s windows, stopping at the first above 20 % (beside the other test worker's browser
    tests a window of the run's start can stay near 10 %)."""
    busy = 0.0
    for _ in range(3):
        busy = max(busy, _cpu(proc, 2.0))
        if busy > 20:
            break
    return busy


def _wait_idle(proc: psutil.Process, timeout: float = 240) -> None:
    """Wait until the server's start-up warming is over (a second under 15 % CPU)."""
    deadline = time.monotonic() + timeout
    while _cpu(proc, 1.0) > 15:
        assert time.monotonic() < deadline, "the server never went idle after starting"


@pytest.fixture(scope="module")
def served():
    """A server of our own, shared by the two tests below in their order: the tab test leaves
    it idle, the SIGTERM test stops it (a server's start and warm-up cost about 15 s here).
    Its Popen and URL."""
    with tempfile.NamedTemporaryFile("w", suffix=".log") as log:
        proc, url = panel_serve("app", _free_port(), log=log)
        try:
            _wait_idle(psutil.Process(proc.pid))
            yield proc, url
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(timeout=20)


def _start_long_run(browser, url: str):
    """A page with the long run going (the server busy computing it)."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(url + LONG_RUN, wait_until="domcontentloaded", timeout=120_000)
    button = page.get_by_role("button", name="Train all three")
    button.wait_for(timeout=120_000)
    page.wait_for_timeout(1500)  # the session is built and connected
    button.click()
    page.get_by_text("%:").first.wait_for(timeout=60_000)  # progress is reported
    return page


def _workers(server: psutil.Process) -> list[psutil.Process]:
    """The server's worker processes computing runs (children of its fork server)."""
    return [p for p in server.children(recursive=True) if p.ppid() != server.pid]


def test_closing_the_tab_of_a_running_job_stops_its_computation(served, browser):
    """The run's worker process is killed within a second of the tab closing, and 5 s after
    the close the server's own process is idle (under 5 % of a core over 2 s)."""
    proc, url = served
    server = psutil.Process(proc.pid)
    page = _start_long_run(browser, url)
    busy = _busy(server)
    assert busy > 20, f"the run does not keep the server busy ({busy:.0f} % CPU)"
    workers = _workers(server)
    assert len(workers) == 1, workers
    page.close()
    closed = time.monotonic()
    gone, _ = psutil.wait_procs(workers, timeout=10)
    stopped = time.monotonic() - closed
    assert gone and stopped < 1.0, f"the run's worker computed {stopped:.1f} s after the tab closed"
    time.sleep(max(0.0, closed + 5.0 - time.monotonic()))
    times = server.cpu_times()
    start, t0 = times.user + times.system, time.monotonic()
    time.sleep(2.0)
    times = server.cpu_times()
    idle = 100 * (times.user + times.system - start) / (time.monotonic() - t0)
    assert idle < 5.0, f"5-7 s after the tab closed the server used {idle:.0f} % of a core"


def test_sigterm_stops_the_server_within_5_s_while_a_run_goes(served, browser):
    proc, url = served
    server = psutil.Process(proc.pid)
    page = _start_long_run(browser, url)
    try:
        assert _cpu(server, 1.0) > 20, "the run does not keep the server busy"
        children = server.children(recursive=True)
        sent = time.monotonic()
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pytest.fail("the server was still running 5 s after SIGTERM")
        assert time.monotonic() - sent < 5
        time.sleep(0.5)
        alive = [c for c in children if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]
        assert alive == [], ("worker processes outlived the server: "
                             f"{[(c.pid, c.ppid(), ' '.join(c.cmdline())[:120]) for c in alive]}")
    finally:
        page.close()


def test_a_session_rebuilt_when_its_browser_connects_late_takes_nothing_from_a_cdn(browser):
    """Bokeh discards a session whose page was sent but whose browser has not connected within
    the unused-session lifetime (15 s by default; a loaded server, a class opening pages at
    once), and builds it again when the websocket arrives. That page's stylesheets must come from
    this server as the first page's do (``workarounds.served_stylesheets``): before, all 13 came
    from cdn.holoviz.org and failed offline. Here the lifetime is 1 s and BokehJS is held back
    until the server's log says the session was discarded."""
    with tempfile.NamedTemporaryFile("w", suffix=".log") as log:
        proc, url = panel_serve("app", _free_port(), log=log, args=[
            "--check-unused-sessions", "250", "--unused-session-lifetime", "1000",
            "--log-level", "debug"])
        origin = "{0.scheme}://{0.netloc}/".format(urllib.parse.urlsplit(url))
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            elsewhere, failed = [], []
            page.on("request", lambda r: None if r.url.startswith((origin, "data:"))
                    else elsewhere.append(r.url))
            page.on("requestfailed", lambda r: failed.append(r.url))

            text = pathlib.Path(log.name).read_text
            deadline = time.monotonic() + 60
            while "Discarding session" not in text():  # the start-up check's session
                assert time.monotonic() < deadline, "the unused session was not discarded"
                time.sleep(0.1)
            before = text().count("Discarding session")

            def after_the_discard(route):  # this page's session is gone when BokehJS arrives
                while text().count("Discarding session") == before:
                    assert time.monotonic() < deadline + 60, "the page's session was kept"
                    time.sleep(0.1)
                route.continue_()

            page.route("**/static/js/bokeh.min.js*", after_the_discard)
            page.goto(url + "?page=neuron", wait_until="load", timeout=120_000)
            page.wait_for_function(f"() => ({COUNT_CANVASES})() >= 1", timeout=120_000)
            assert "Sending pull-doc-reply" in text()  # the browser drew the rebuilt session
            assert elsewhere == [] and failed == [], (elsewhere, failed)
        finally:
            proc.kill()
            proc.wait(timeout=20)
