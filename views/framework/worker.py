"""Long runs in worker processes, so that a run never holds the server's interpreter lock.

A run in a thread of the server shares its interpreter lock: the engines' kernels release it,
but the Python between them (a learning loop's bookkeeping, building partial results) holds it,
and a slider move on any page waits behind it (seconds, on a 2-core machine). Here a run is
computed by a process of its own, forked from a fork server that imported ``views`` once
(``multiprocessing``'s ``forkserver`` context: no thread or event loop of the server is
copied, and a fork is ready in milliseconds). The child rebuilds the page's explorer from its
class and knobs (``Explorer(**knobs)``: both pickle by value and by reference), calls the
run's ``compute`` with its settings (or another task of the page, ``call``: an export or an
animation for its download button), and sends its progress and partial results back through a
pipe (at most every ``SEND_EVERY`` seconds); a thread of the server (``run``) reads them into
the job's ``latest`` dict, which the session's event loop draws. Cancelling kills the child at
once. At most ``MAX_WORKERS`` jobs compute at the same time (``LDX_JOB_WORKERS``, default 1:
the other core stays with the server); the others wait in the fair queue
(``views.framework.queue``: one job per session at a time, the sessions in turn), their place
in it in ``latest["message"]``.

The served app turns this on (``enable``, from ``app/app_hooks.py``); elsewhere (scripts,
tests) runs compute in a thread of the calling process, as before.
"""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import threading
import time

from dynamics.checks import Cancelled
from views.framework.queue import MAX_WORKERS, QUEUE, place_text

__all__ = ["MAX_WORKERS", "SEND_EVERY", "enable", "enabled", "run", "call", "kill_all"]

#: Seconds between the progress messages a child sends (the page refreshes every 0.25 s).
SEND_EVERY = 0.2
#: Said in a progress message whose partial result could not be sent back (it does not pickle).
UNSENT = "partial result not sent"
_STATE = {"context": None}
_LOCK = threading.Lock()
#: The worker processes computing now (``kill_all`` stops them when the server stops).
_LIVE: set = set()


def _context():
    with _LOCK:
        if _STATE["context"] is None:
            context = multiprocessing.get_context("forkserver")
            context.set_forkserver_preload(["views"])
            _STATE["context"] = context
        return _STATE["context"]


def enable() -> None:
    """Compute runs in worker processes from now on, and start the fork server now (it imports
    ``views`` once, a few seconds, rather than on the first run)."""
    from multiprocessing import forkserver

    _context()
    forkserver.ensure_running()


def enabled() -> bool:
    return _STATE["context"] is not None


def _send(conn, message) -> None:
    try:
        conn.send(message)
    except (pickle.PicklingError, TypeError, AttributeError) as exc:
        kind = message[0]
        if kind == "progress":  # a partial result that does not pickle: progress without it,
            # saying so (the page shows the message; a test watches for it)
            fraction, text = message[1][:2]
            conn.send(("progress", (fraction, f"{text} ({UNSENT}: {exc})", None)))
        else:
            conn.send(("error", RuntimeError(f"the run's {kind} could not be sent back: {exc}")))


def _die_with_parent() -> None:
    """Ask Linux to kill this process when its parent (the fork server) ends: the fork server
    ends with the server, so a run never outlives a server that stopped before it could kill
    it (``kill_all``). Elsewhere, nothing."""
    try:
        import ctypes

        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _compute_run(explorer, args, progress):
    """A page's run (``args``: its name and settings), as ``call``'s task."""
    run_name, settings = args
    return explorer.jobs[run_name].run.compute(dict(settings), progress)


def _child(cls, knobs: dict, task, args, conn) -> None:
    """In the worker process: ``task(explorer, args, progress)``, sending progress, partial
    results and the result (or the error) through ``conn``."""
    _die_with_parent()
    last = [0.0]

    def progress(fraction, message, partial=None):
        now = time.monotonic()
        if now - last[0] >= SEND_EVERY or fraction >= 1.0:
            last[0] = now
            _send(conn, ("progress", (float(fraction), str(message), partial)))

    try:
        result = task(cls(**knobs), args, progress)
    except BaseException as exc:  # noqa: BLE001 - handed to the server, which shows it
        try:
            pickle.dumps(exc)
        except Exception:  # noqa: BLE001
            exc = RuntimeError(f"{type(exc).__name__}: {exc}")
        _send(conn, ("error", exc))
    else:
        _send(conn, ("done", result))
    finally:
        conn.close()


def run(cls, knobs: dict, run_name: str, settings: dict, cancel: threading.Event,
        latest: dict, *, session=None):
    """Compute ``run_name`` of explorer class ``cls`` with ``knobs`` and ``settings`` in a
    worker process (blocking: call it from a thread), putting its progress into ``latest``
    (``fraction``, ``message``, ``partial``) as it comes; ``Cancelled`` once ``cancel`` is set
    (the child is killed), and the child's error when it fails. ``session``: whose job it is
    in the fair queue (``call``)."""
    return call(cls, knobs, _compute_run, (run_name, settings), cancel, latest,
                name=f"ldx-run-{run_name}", session=session, key=("run", run_name))


def call(cls, knobs: dict, task, args, cancel: threading.Event, latest: dict, *,
         name: str = "ldx-task", session=None, key=None):
    """``task(explorer, args, progress)`` in a worker process, ``explorer`` the page of class
    ``cls`` with ``knobs`` (``task`` a module-level function, ``args`` picklable), as ``run``
    computes a run (blocking; progress into ``latest``; ``Cancelled`` once ``cancel`` is set):
    a page's export or animation (``views.framework.remote``, ``views.framework.animation``).

    The job first waits its turn in the fair queue (``views.framework.queue.QUEUE``) as a job
    of ``session`` (None: a session of its own), its place in ``latest["message"]``
    ("queued: 2nd of 3"); a job of the same session and ``key`` queued or computing is
    superseded (cancelled)."""
    context = _context()
    ticket = QUEUE.submit(object() if session is None else session, key, cancel)

    def on_place(place):
        latest.update(fraction=0.0, message=place_text(place), queued=True)

    try:
        QUEUE.wait(ticket, on_place)
    except Cancelled:
        QUEUE.release(ticket)
        raise
    if latest.pop("queued", False):
        latest.update(fraction=0.0, message="starting")
    try:
        if cancel.is_set():
            raise Cancelled()
        reader, writer = context.Pipe(duplex=False)
        child = context.Process(target=_child, args=(cls, knobs, task, args, writer),
                                name=name, daemon=True)
        child.start()
        _LIVE.add(child)
        writer.close()
        try:
            while True:
                if cancel.is_set():
                    raise Cancelled()
                if not reader.poll(0.1):
                    continue
                try:
                    kind, payload = reader.recv()
                except EOFError:
                    child.join(5)
                    raise RuntimeError(f"the worker process computing the run ended without "
                                       f"a result (exit code {child.exitcode})") from None
                if kind == "progress":
                    fraction, message, partial = payload
                    latest.update(fraction=fraction, message=message)
                    if partial is not None:
                        latest["partial"] = partial
                elif kind == "done":
                    return payload
                else:
                    raise payload
        finally:
            if child.is_alive():
                child.kill()
            child.join(5)
            _LIVE.discard(child)
            reader.close()
    finally:
        QUEUE.release(ticket)


def kill_all() -> int:
    """Kill every worker process computing now and wait for them, then the fork server (the
    server is stopping: the threads that would kill the workers are daemons and die with it);
    returns how many workers were alive."""
    alive = [child for child in list(_LIVE) if child.is_alive()]
    for child in alive:
        child.kill()
    for child in alive:
        child.join(2)
    if enabled():
        # The fork server too: told of the server's end by its pipe, it would exit by tearing
        # down the ``views`` it imported, over a second; it holds nothing to clean up.
        from multiprocessing import forkserver

        server = forkserver._forkserver
        pid = getattr(server, "_forkserver_pid", None)
        if pid:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            try:  # reap it and forget it, so that a later run starts a new one
                server._stop()
            except (OSError, AttributeError):
                pass
    return len(alive)
