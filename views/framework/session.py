"""A served session, as a page sees it: ``SessionWatch`` says whether anybody is still there to
see the page (a closed tab's pending moves are dropped, its jobs cancelled)."""

from __future__ import annotations

import weakref

import panel as pn

from views.framework.served import server_session

__all__ = ["SessionWatch"]


class SessionWatch:
    """Whether the server session a page was built in is still there to see it.

    Built while the session's document is being built (``pn.state.curdoc``). A session is
    gone once Bokeh destroyed it, or once the client that showed it or was seen connected
    disconnected (a browser's tab closed or reloaded, a Python ``bokeh.client`` session
    closed, which never says it has shown the page: Bokeh destroys such a session only after
    ``--unused-session-lifetime``, and until then its pending knob moves would still be
    computed, one after another, on the server's event loop). Outside a served session
    (scripts, tests, the warm-up's throwaway document) a page is always alive."""

    def __init__(self):
        from bokeh.server.contexts import BokehSessionContext

        doc = pn.state.curdoc
        context = getattr(doc, "session_context", None) if doc is not None else None
        self._doc = weakref.ref(doc) if isinstance(context, BokehSessionContext) else None
        self._shown = False
        self._connected = False  # a client was seen connected (a knob move, a running job)
        self._on_destroyed: list = []
        if self._doc is not None:
            pn.state.onload(self._mark_shown)
            doc.on_session_destroyed(self._destroyed)

    def _mark_shown(self) -> None:
        self._shown = True

    def _destroyed(self, session_context) -> None:
        callbacks, self._on_destroyed = self._on_destroyed, []
        for ref in callbacks:
            callback = ref()
            if callback is not None:
                callback()

    def on_gone(self, method) -> None:
        """Call the bound ``method()`` when Bokeh destroys the session (nothing outside a
        server). Held weakly: the watch keeps nothing of the page alive."""
        if self._doc is not None:
            self._on_destroyed.append(weakref.WeakMethod(method))

    def alive(self) -> bool:
        if self._doc is None:
            return True
        doc = self._doc()
        context = getattr(doc, "session_context", None) if doc is not None else None
        if context is None or context.destroyed:
            return False
        session = server_session(context)  # None while the session is being built
        if session is None or session.connection_count > 0:
            self._connected = self._connected or session is not None
            return True
        return not (self._shown or self._connected)
