"""The last move wins: a served page computes one state of its knobs at a time, off the server's
event loop, and draws only the newest.

Before, a knob move computed and drew on the event loop, in the Panel callback of the move. While
it did, the browser's next moves waited in the websocket, unread, and each was then computed and
drawn in turn: five seconds of a held arrow key replayed stale states for half a minute. Here a
move only records the state wanted (cheap) and, if nothing is computing, starts the computation
in a daemon thread. When the computation ends, the page draws, on the event loop, if the state
it computed is still the one wanted; otherwise it computes the newest state first. Moves that
arrive while a computation runs only replace the wanted state, so a burst of moves costs the
computation under way and the last one, never the values in between, which are neither
computed nor drawn; a single move still starts at once (no debounce delay).

The thread only fills the page's results cache (``views.framework.cache``: every page's ``_compute``
goes through a cached pure function of its knobs); the draw itself is the same code as before
(``Explorer.result()``, now a cache hit), so what the page draws is exactly what a fresh page
of the same knobs draws, even if the knobs moved while the thread read them. A computation that
failed is remembered for its state, so the draw shows the failure without computing it again.

Scripts, tests and exports never come here: outside a served session a move draws at once.
"""

from __future__ import annotations

import functools
import threading
import time
import weakref
from typing import Callable

__all__ = ["LatestWins", "session_post"]

_NOTHING = object()


class LatestWins:
    """One computation at a time, the newest wanted state winning.

    ``warm()`` computes (in a daemon thread) whatever drawing the current state needs;
    ``draw()`` draws it (on the event loop); ``alive()``, if given, says whether anybody is
    left to see it (a closed session's pending state is neither computed nor drawn).
    ``post(callback)`` runs ``callback`` on the event loop (from any thread),
    ``post(callback, delay=s)`` after ``s`` seconds (from the loop). ``request(key)``, called
    on the event loop whenever the wanted state changes, with ``key`` a comparable snapshot of
    that state.

    The browser is paced too: after a draw, the next one waits until the browser says it has
    painted it (``painted()``, from the page's paint acknowledgement, see ``Explorer``), or for
    ``PAINT_TIMEOUT`` seconds. A browser still busy painting one state is not sent the states
    that came after it, only the newest once it is free: on a slow machine a page whose panels
    take long to paint would otherwise queue every intermediate state in the browser.

    ``computations`` counts the computations started, ``draws`` the draws: a test reads both.
    """

    #: Longest wait for the browser's paint acknowledgement (s): a hidden tab paints nothing.
    PAINT_TIMEOUT = 3.0

    def __init__(self, warm: Callable[[], object], draw: Callable[[], None],
                 post: Callable[..., None], alive: Callable[[], bool] | None = None):
        self._warm, self._draw, self._post = warm, draw, post
        self._alive = alive
        self._wanted = _NOTHING
        self._busy = False
        self._failure: tuple | None = None  # (key, exception) of the last failed computation
        self._ready = _NOTHING  # computed, waiting for the browser to paint the last draw
        self._unpainted = 0  # draws not yet acknowledged (0 or 1)
        self._paint_deadline = 0.0
        self._timer = False
        self.computations = 0
        self.draws = 0

    @property
    def busy(self) -> bool:
        """A computation is under way."""
        return self._busy

    def request(self, key) -> None:
        """The wanted state is now ``key``: compute it when the computation under way ends
        (it replaces any state still waiting), or now if none is under way."""
        self._wanted = key
        if not self._busy:
            self._start()

    def failure(self, key) -> BaseException | None:
        """The exception the computation of ``key`` raised, if it was the last one and failed."""
        if self._failure is not None and self._failure[0] == key:
            return self._failure[1]
        return None

    def _gone(self) -> bool:
        """Nobody is left to see the page (``alive()`` says so): what was pending is dropped,
        neither computed nor drawn."""
        if self._alive is None or self._alive():
            return False
        self._wanted = self._ready = _NOTHING
        return True

    def _start(self) -> None:
        if self._gone():
            return
        key = self._wanted
        self._busy = True
        self.computations += 1

        def work():
            failure = None
            try:
                self._warm()
            except Exception as exc:  # noqa: BLE001 - the draw shows it as the page's alert
                failure = exc
            try:
                self._post(functools.partial(self._finished, key, failure))
            except Exception:  # noqa: BLE001 - the session or the server is gone
                self._busy = False

        threading.Thread(target=work, name="ldx-live", daemon=True).start()

    def _finished(self, key, failure) -> None:
        self._busy = False
        self._failure = None if failure is None else (key, failure)
        if self._wanted != key:
            self._start()  # superseded while computing: the newest state, not this one
            return
        self._ready = key
        self._maybe_draw()

    def _timer_ended(self) -> None:
        self._timer = False
        self._maybe_draw()

    def painted(self) -> None:
        """The browser painted the last draw: the next state can be drawn."""
        self._unpainted = 0
        self._maybe_draw()

    def _maybe_draw(self) -> None:
        if self._ready is _NOTHING or self._gone():
            return
        if self._ready != self._wanted:  # superseded while waiting for the browser
            self._ready = _NOTHING
            if not self._busy:
                self._start()
            return
        if self._unpainted and time.monotonic() < self._paint_deadline:
            if not self._timer:  # check again when the wait ends, if no acknowledgement came
                self._timer = True
                self._post(self._timer_ended, delay=self._paint_deadline - time.monotonic())
            return
        self._ready = _NOTHING
        self.draws += 1
        self._unpainted = 1
        self._paint_deadline = time.monotonic() + self.PAINT_TIMEOUT
        self._draw()


def session_post() -> Callable[[Callable[[], None]], None] | None:
    """A function that runs a callback on the event loop of the served session being built
    (``pn.state.curdoc``), holding its document's lock, with that document as Panel's current
    one; None outside a served session (a script, a test, the warm-up)."""
    import panel as pn
    from bokeh.server.contexts import BokehSessionContext
    from panel.io.state import set_curdoc

    doc = pn.state.curdoc
    context = getattr(doc, "session_context", None) if doc is not None else None
    if not isinstance(context, BokehSessionContext):
        return None

    ref = weakref.ref(doc)  # the page must not keep its session's document alive

    def run(callback):
        with set_curdoc(ref()):
            callback()

    def post(callback, delay: float = 0.0):
        document = ref()
        if document is None or document.session_context is None:
            raise RuntimeError("the session is gone")
        if delay > 0:  # called on the event loop only
            document.add_timeout_callback(functools.partial(run, callback), int(delay * 1000))
        else:  # the one Document method that may be called from another thread
            document.add_next_tick_callback(functools.partial(run, callback))

    return post
