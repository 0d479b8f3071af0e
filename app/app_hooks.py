"""Server lifecycle hooks of the ``app`` directory application (picked up by ``panel serve app``)."""

import gc
import time

from tornado.ioloop import IOLoop

import dynamics
import views


def _warmup() -> None:
    dynamics.warmup(verbose=True)
    start = time.perf_counter()
    views.warmup()
    print(f"views: first page drawn in {time.perf_counter() - start:.2f} s", flush=True)
    # What is loaded now lives as long as the server: take it out of the garbage collector's
    # generations, so that full collections during a slider move do not rescan it.
    gc.freeze()


def on_server_loaded(server_context):
    """Compile (or load from the numba disk cache) every kernel and draw the first page once,
    before the first visitor. Scheduled as the server loop's first task rather than run here, so
    the server starts listening at once; a request that arrives meanwhile is answered right after
    (on the same thread: HoloViews' option store is not safe to use from two threads)."""
    IOLoop.current().add_callback(_warmup)
