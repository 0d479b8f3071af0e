"""A page's session watch (views.framework.jobs.SessionWatch, used by Explorer): once the browser that
showed a served page disconnected, or Bokeh destroyed its session, knob moves still pending are
dropped (nothing is recomputed) and its jobs are cancelled."""

from __future__ import annotations

import threading
import weakref

from bokeh.document import Document
from bokeh.server.contexts import BokehSessionContext
from bokeh.server.session import ServerSession
from panel.io.state import set_curdoc

from views.doeblin import DoeblinExplorer
from views.herding import HerdingExplorer


def _served(cls):
    """An explorer built as the server builds a page: in a document with a Bokeh session."""
    doc = Document()
    context = BokehSessionContext("test-session", None, doc)
    doc._session_context = weakref.ref(context)
    with set_curdoc(doc):
        explorer = cls()
    session = ServerSession("test-session", doc)
    context._set_session(session)
    return explorer, doc, context, session


def test_moves_of_a_disconnected_page_are_not_computed():
    explorer, doc, context, session = _served(HerdingExplorer)
    seen = []
    explorer.param.watch(lambda ev: seen.append(ev.new), "steps")
    explorer.steps = 30_000  # a page being built (no browser yet): computed as ever
    assert seen == [30_000] and explorer._session.alive()
    connection = object()
    session.subscribe(connection)
    explorer._session._mark_shown()  # the browser showed it
    explorer.steps = 40_000
    assert seen == [30_000, 40_000]
    session.unsubscribe(connection)  # the tab closed
    assert not explorer._session.alive()
    explorer.steps = 50_000  # a move that was still pending
    assert seen == [30_000, 40_000]  # no watcher ran: nothing redrawn or recomputed
    assert explorer.steps == 50_000


def test_destroying_the_session_cancels_its_jobs():
    explorer, doc, context, session = _served(DoeblinExplorer)
    job = explorer.jobs["word"]
    job._cancel = threading.Event()  # a run under way
    assert explorer._session.alive()
    for callback in list(doc.session_destroyed_callbacks):
        callback(context)  # what Bokeh calls when it destroys the session
    assert job._cancel.is_set()
    session.destroy()
    assert not explorer._session.alive()
