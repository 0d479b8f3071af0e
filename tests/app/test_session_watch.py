"""A page's session watch (views.framework.session.SessionWatch, used by Page): once the browser that
showed a served page disconnected, or Bokeh destroyed its session, knob moves still pending are
dropped (nothing is recomputed) and its jobs are cancelled."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time
import types
import weakref

import pytest
from bokeh.document import Document
from bokeh.server.contexts import BokehSessionContext
from bokeh.server.session import ServerSession
from panel.io.state import set_curdoc

from tests.views.conftest import worker_processes  # noqa: F401 - a fixture used below
from views.pages.doeblin import DoeblinExplorer
from views.framework import worker as _worker
from views.framework.page import Page
from views.pages.herding import HerdingExplorer


def _served(cls, page: bool = False, **knobs):
    """An explorer (with ``knobs``) and its ``Page``, built as the server builds a page: in a
    document with a Bokeh session (``page``: with its page served in that document, as
    ``app/main.py`` serves it)."""
    doc = Document()
    context = BokehSessionContext("test-session", None, doc)
    context._request = types.SimpleNamespace(arguments={}, cookies={}, headers={})
    doc._session_context = weakref.ref(context)
    with set_curdoc(doc):
        explorer = cls(**knobs)
        shown = Page(explorer)
        if page:
            shown.panel().server_doc(doc)
    session = ServerSession("test-session", doc)
    context._set_session(session)
    return explorer, shown, doc, context, session


def test_moves_of_a_disconnected_page_are_not_computed():
    explorer, page, doc, context, session = _served(HerdingExplorer)
    seen = []
    explorer.param.watch(lambda ev: seen.append(ev.new), "steps")
    explorer.steps = 30_000  # a page being built (no browser yet): computed as ever
    assert seen == [30_000] and page.session.alive()
    connection = object()
    session.subscribe(connection)
    page.session._mark_shown()  # the browser showed it
    explorer.steps = 40_000
    assert seen == [30_000, 40_000]
    session.unsubscribe(connection)  # the tab closed
    assert not page.session.alive()
    explorer.steps = 50_000  # a move that was still pending
    assert seen == [30_000, 40_000]  # no watcher ran: nothing redrawn or recomputed
    assert explorer.steps == 50_000


def test_destroying_the_session_cancels_its_jobs():
    explorer, page, doc, context, session = _served(DoeblinExplorer)
    job = explorer.jobs["word"]
    job._cancel = threading.Event()  # a run under way
    assert page.session.alive()
    for callback in list(doc.session_destroyed_callbacks):
        callback(context)  # what Bokeh calls when it destroys the session
    assert job._cancel.is_set()
    session.destroy()
    assert not page.session.alive()


def test_a_closed_python_clients_pending_moves_are_not_computed():
    """A Python ``bokeh.client`` session never says it has shown the page (no
    ``document_ready``): once it was seen connected (a move of its own) and has disconnected,
    its session is gone all the same, and a move still pending is not computed."""
    explorer, page, doc, context, session = _served(HerdingExplorer)
    seen = []
    explorer.param.watch(lambda ev: seen.append(ev.new), "steps")
    connection = object()
    session.subscribe(connection)
    explorer.steps = 30_000  # the client's move, while connected
    assert seen == [30_000] and page.session.alive()
    session.unsubscribe(connection)  # the client closed
    assert not page.session.alive()
    explorer.steps = 40_000
    assert seen == [30_000]


def test_a_gone_sessions_pending_state_is_neither_computed_nor_drawn():
    """``LatestWins`` with ``alive``: the state wanted while a computation ran is not computed
    once the session is gone, and a computed state waiting to be drawn is not drawn."""
    from views.framework.live import LatestWins

    alive, computed, drawn, posted = [True], [], [], []
    live = LatestWins(lambda: computed.append(1), lambda: drawn.append(1),
                      lambda callback, delay=0.0: posted.append(callback),
                      lambda: alive[0])
    live.request(1)
    live.request(2)  # wanted while the first computes
    deadline = time.monotonic() + 10
    while not posted and time.monotonic() < deadline:
        time.sleep(0.01)
    alive[0] = False  # the tab closed
    posted.pop()()  # the first computation ends, on the event loop
    assert computed == [1] and drawn == [] and not live.busy
    alive[0] = True
    live.request(3)  # a page still open: computed and drawn as ever
    while not posted and time.monotonic() < deadline:
        time.sleep(0.01)
    posted.pop()()
    assert computed == [1, 1] and drawn == [1]


def test_a_destroyed_sessions_page_plots_are_cleaned_up():
    """When Bokeh destroys a served page's session, Panel cleans its HoloViews plots up
    (``Plot.cleanup``): no knob stream of the explorer reaches a plot any more, so nothing of
    the page can be refreshed or scheduled afterwards."""
    from holoviews.plotting.plot import Plot

    explorer, page, doc, context, session = _served(HerdingExplorer, page=True)

    def plots():
        return [s for stream in page._knob_streams for s in stream.subscribers
                if isinstance(getattr(s, "__self__", None), Plot)]

    assert len(plots()) >= 3
    for callback in list(doc.session_destroyed_callbacks):
        callback(context)
    assert plots() == []


def _run_then(close, opened=None) -> tuple[float, object]:
    """A long run (minutes if let run) of a served page (``opened(page, session)`` first,
    if given), computing in a worker process; once it computes, ``close(doc, context,
    session)``, which returns when the session ended (``time.monotonic()``). Returns the
    seconds from then to the worker process's end, and the job."""
    explorer, page, doc, context, session = _served(
        DoeblinExplorer, **{"word.transitions": 40, "word.epochs": 40, "word.seeds": 4})
    if opened is not None:
        opened(page, session)
    job = explorer.jobs["word"]

    async def run():
        task = asyncio.ensure_future(job.start())
        deadline = time.monotonic() + 60
        children: list = []
        while not (children and job.fraction > 0.0):
            assert time.monotonic() < deadline, "the run did not start computing"
            await asyncio.sleep(0.02)
            children = [c for c in list(_worker._LIVE) if c.is_alive()]
        closed = close(doc, context, session)
        while children[0].is_alive() and time.monotonic() < closed + 10:
            await asyncio.sleep(0.01)
        ended = time.monotonic() - closed
        await task
        return ended

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, run()).result(), job


@pytest.mark.usefixtures("worker_processes")
def test_a_run_of_a_destroyed_session_is_killed_within_a_second():
    """Bokeh destroys a session (a client that never said it showed the page, once
    ``--unused-session-lifetime`` passed): its running job is cancelled and the worker process
    computing it killed within a second of the session's destruction. As Bokeh does it: the
    document destroyed first (``ServerSession.destroy``, whose ``gc.collect`` holds the
    interpreter for a while in a big process), then the session's destroyed callbacks."""
    def destroy(doc, context, session):
        callbacks = list(doc.session_destroyed_callbacks)
        session.destroy()
        destroyed = time.monotonic()
        for callback in callbacks:
            callback(context)
        return destroyed

    seconds, job = _run_then(destroy)
    assert seconds < 1.0, f"the worker computed {seconds:.2f} s after the session's end"
    assert not job.running and "Cancelled" in job.message


@pytest.mark.usefixtures("worker_processes")
def test_a_run_whose_tab_closed_is_killed_within_a_second():
    """The browser that showed the page disconnected (its tab closed): the running job is
    cancelled and its worker process killed within a second, long before Bokeh destroys the
    session."""
    connection = object()

    def shown(page, session):
        session.subscribe(connection)
        page.session._mark_shown()

    def close_tab(doc, context, session):
        session.unsubscribe(connection)
        return time.monotonic()

    seconds, job = _run_then(close_tab, opened=shown)
    assert seconds < 1.0, f"the worker computed {seconds:.2f} s after the tab closed"
    assert not job.running and "Cancelled" in job.message
