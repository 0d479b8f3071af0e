"""A class on one server (issue 48 item 4), judged with Python clients (50 browsers on the same
two cores measure the browsers): each client pulls a session's document over the websocket as
a browser's page does, then says the page is shown (Bokeh's ``DocumentReady``, which a browser
sends once it has drawn the document: the page's deferred plots are drawn then,
``Page.draw_deferred``), so that the server builds the whole page. The server's CPU is read
from outside (psutil, its processes together), from the first request until it is idle again.

- ``test_session_cpu_against_the_floor``: ``SESSIONS`` sessions (the pages of
  ``views.EXPLORERS`` in turn), ``CLIENTS`` at a time, on
  ``panel serve app`` and on ``floor_app.py`` (five Bokeh plots, nothing computed, no
  template), one after the other in the same run: server CPU a session, target at most
  ``CPU_RATIO`` times the floor's.
- ``test_a_class_at_once``: ``CLASS`` sessions over all pages at once (``CLASS`` clients),
  ``LDX_SERVE_ARGS`` passed to ``panel serve`` (default ``--num-procs 2``): seconds from the
  first request to the last document received and to the last page built (the server idle),
  target ``CLASS_S``.

Run: ``pytest -m bench tests/bench/test_bench_sessions.py -s``.
"""

from __future__ import annotations

import concurrent.futures
import os
import shlex
import time

import pytest

from tests.bench.test_bench_server import _cpu_seconds, _serve, _stop, _wait_idle
from views import EXPLORERS

pytestmark = [pytest.mark.bench]

SESSIONS = 30
CLIENTS = 5
CPU_RATIO = 2.0
CLASS = 50
CLASS_S = 20.0


def _session(url: str, page: str | None = None) -> float:
    """Open one session of ``url`` (``page``: the app's page) as a browser's page does: pull its
    document over the websocket and say it is shown (``DocumentReady``, as a Bokeh event in a
    document patch), wait for the server's answer, close. Seconds until the document came.

    The reply is not made into a Python document: Bokeh's client would build every model of
    the page again in this process (about what the server spent building them), and 50 of
    them in one client process on the server's own two cores measured the client."""
    from bokeh.client.session import ClientSession
    from bokeh.client.util import websocket_url_for_server_url
    from bokeh.document import Document
    from bokeh.document.events import MessageSentEvent
    from bokeh.events import DocumentReady

    start = time.monotonic()
    session = ClientSession(websocket_url=websocket_url_for_server_url(url),
                            arguments={} if page is None else {"page": page})
    session.connect()
    session.check_connection_errors()
    connection = session._connection  # Bokeh's client keeps its protocol's messages private
    try:
        reply = connection._send_message_wait_for_reply(
            connection._protocol.create("PULL-DOC-REQ"))
        assert reply is not None and reply.header["msgtype"] == "PULL-DOC-REPLY", reply
        pulled = time.monotonic() - start
        shown = connection._protocol.create(
            "PATCH-DOC", [MessageSentEvent(Document(), "bokeh_event", DocumentReady())])
        answer = connection._send_message_wait_for_reply(shown)
        assert answer is not None and answer.header["msgtype"] == "OK", answer
    finally:
        session.close()
    return pulled


def _sessions(urls: list[tuple], clients: int, pid: int) -> tuple[float, float, float, float]:
    """Open ``urls`` (each ``(url, page)``) with ``clients`` clients at a time; (server CPU seconds until idle again,
    wall seconds to the last document, wall seconds until the server is idle, median seconds
    a document took)."""
    cpu, start = _cpu_seconds(pid), time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(clients) as pool:
        futures = [pool.submit(_session, *url) for url in urls]
        took = sorted(f.result() for f in futures)
    pulled = time.monotonic() - start
    _wait_idle(pid)
    idle = time.monotonic() - start - 1.0  # _wait_idle's quiet second
    return _cpu_seconds(pid) - cpu, pulled, idle, took[len(took) // 2]


def _load() -> str:
    return "load %.1f %.1f %.1f" % os.getloadavg()


def _pages(url: str, n: int) -> list[tuple]:
    slugs = list(EXPLORERS)
    return [(url, slugs[i % len(slugs)]) for i in range(n)]


def test_session_cpu_against_the_floor():
    floor, floor_url, _ = _serve({"LDX_FLOOR_PANELS": "5"}, [], app="tests/bench/floor_app.py")
    try:
        _session(floor_url)
        _wait_idle(floor.pid)
        f_cpu, f_pulled, f_idle, f_median = _sessions([(floor_url, None)] * SESSIONS, CLIENTS,
                                                      floor.pid)
    finally:
        _stop(floor)
    app, url, _ = _serve({}, [])
    try:
        a_cpu, a_pulled, a_idle, a_median = _sessions(_pages(url, SESSIONS), CLIENTS, app.pid)
    finally:
        _stop(app)
    per_floor, per_app = f_cpu / SESSIONS, a_cpu / SESSIONS
    print(f"\n{SESSIONS} sessions, {CLIENTS} clients at a time ({_load()}):\n"
          f"  floor: {per_floor:.3f} s of server CPU a session, last document after "
          f"{f_pulled:.1f} s, idle after {f_idle:.1f} s, median document {f_median:.2f} s\n"
          f"  app (every page in turn): {per_app:.3f} s a session ({per_app / per_floor:.2f}x "
          f"the floor), last document after {a_pulled:.1f} s, idle after {a_idle:.1f} s, "
          f"median document {a_median:.2f} s")
    assert per_app <= CPU_RATIO * per_floor


def test_a_class_at_once():
    extra = shlex.split(os.environ.get("LDX_SERVE_ARGS", "--num-procs 2"))
    app, url, _ = _serve({}, extra)
    try:
        cpu, pulled, idle, median = _sessions(_pages(url, CLASS), CLASS, app.pid)
    finally:
        _stop(app)
    print(f"\n{CLASS} sessions at once over all pages, panel serve app {' '.join(extra)} "
          f"({_load()}): last document after {pulled:.1f} s (median {median:.1f} s), every "
          f"page built (the server idle) after {idle:.1f} s, {cpu:.1f} s of server CPU "
          f"({cpu / CLASS:.2f} s a session)")
    assert pulled <= CLASS_S
