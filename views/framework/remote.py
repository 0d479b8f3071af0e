"""A page's exports and animations computed in a worker process, so that drawing a figure never
holds the server's event loop (a PNG export of a page held it for seconds, and every other
session's slider waited).

The session sends what its figure is drawn from (``page_state``: the page's class and knobs,
the time its timeline shows, the zoom windows, the results of its runs and the times of their
timelines), and a worker process (``views.framework.worker.call``) rebuilds the page from them and draws the
file there (``export_task``, ``views.framework.animation``'s ``animation_task``), returning
its bytes: the same bytes ``explorer.export`` writes in the session's process. The job waits
its turn in the fair queue (``views.framework.queue``) as a job of the page's session; a
newer request of the same button supersedes the older.
"""

from __future__ import annotations

import asyncio
import functools
import threading

from views.framework import worker as _worker
from views.framework.jobs import in_daemon_thread

__all__ = ["page_state", "restore", "export_task", "in_worker", "show_progress", "REFRESH",
           "WIDTH", "QUEUED_WIDTH"]

#: How often a waiting download's progress (its place in the queue, its frames) is shown (s).
REFRESH = 0.25
#: Width of a download button (px), and while it says its place in the queue.
WIDTH, QUEUED_WIDTH = 70, 190


def page_state(explorer) -> tuple[type, dict, dict]:
    """What the page's figure is drawn from, to rebuild it in a worker process: its class, its
    knobs (``Explorer(**knobs)``) and the rest (``restore``'s ``state``): the time its timeline
    shows, the visible windows of its zoomable panels, each run's result, settings and
    timeline time, and the pinned knobs."""
    knobs = {name: explorer.setting(name) for name in explorer.setting_names()}
    windows = {m: (v.x_range, v.y_range) for m, v in explorer.windows.items()
               if v.x_range is not None or v.y_range is not None}
    runs = {name: (job.result, job.settings, job.shown, explorer.time_of(name))
            for name, job in explorer.jobs.items()
            if job.result is not None or job.shown is not None}
    # the time shown (not a knob: it moves with the timeline's play, in the browser)
    time = explorer.t if "t" in explorer.param else None
    return type(explorer), knobs, {"windows": windows, "runs": runs, "time": time,
                                   "pinned": explorer.pinned}


def restore(explorer, state: dict) -> None:
    """Give a page rebuilt from its knobs the rest of what ``page_state`` read (in the worker)."""
    if state["time"] is not None:
        explorer.t = state["time"]
    explorer.pinned = state.get("pinned")  # the figure holds the pinned state beside it
    for method, (x_range, y_range) in state["windows"].items():
        explorer.windows[method].update(x_range=x_range, y_range=y_range)
    for name, (result, settings, shown, t) in state["runs"].items():
        explorer.jobs[name].param.update(result=result, settings=settings, shown=shown)
        if t is not None:
            explorer.set_time(name, t)


def export_task(explorer, args, progress):
    """In a worker process: the page's figure as ``suffix`` (``Model.export_bytes``)."""
    suffix, state = args
    restore(explorer, state)
    return explorer.export_bytes(suffix).getvalue()


async def in_worker(explorer, task, args, *, key, session=None, on_progress=None):
    """``task(page, args, progress)`` in a worker process (``views.framework.worker.call``),
    ``page`` the model rebuilt there from its class and knobs, as a job of ``session`` (the
    page's ``SessionWatch``; None: a session of its own) keyed ``key`` in the fair queue;
    ``on_progress(latest)`` every ``REFRESH``
    seconds meanwhile (``latest``: ``fraction`` and ``message``, the place in the queue while
    it waits). The job is cancelled when the session is gone or this coroutine is."""
    cls, knobs, _ = page_state(explorer)
    cancel, latest = threading.Event(), {}
    future = in_daemon_thread(
        asyncio.get_running_loop(),
        functools.partial(_worker.call, session=session, key=key, name=f"ldx-{key[0]}"),
        cls, knobs, task, args, cancel, latest)
    try:
        while not future.done():
            await asyncio.wait({future}, timeout=REFRESH)
            if session is not None and not session.alive():
                cancel.set()
            if latest and on_progress is not None:
                on_progress(dict(latest))
    finally:
        cancel.set()  # the worker ends with the task, or now
    return future.result()


def show_progress(button, label: str, latest: dict) -> None:
    """A download button's words while its file is made in a worker: its place in the queue
    ("PNG queued: 2nd of 3", the button widened to hold it), then how far it is ("GIF 40%"),
    or "…" while nothing says (an export reports no fraction)."""
    if latest.get("queued"):
        button.param.update(label=f"{label} {latest['message']}", width=QUEUED_WIDTH)
    elif latest.get("fraction", 0.0) > 0:
        button.param.update(label=f"{label} {100 * latest['fraction']:.0f}%", width=WIDTH)
    else:
        button.param.update(label=f"{label} …", width=WIDTH)
