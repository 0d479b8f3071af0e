"""Server lifecycle hooks of the ``app`` directory application (picked up by ``panel serve app``)."""

import gc
import threading
import time

from tornado.ioloop import IOLoop

import dynamics
import views


def _warm_in_background(loop: IOLoop) -> None:
    """Load (or, the first time after installing, compile) every Numba kernel and datashader's
    kernels. None of this touches HoloViews or Bokeh, so it runs in a thread while the server
    already answers: the home page is served at once, and a page that needs a kernel before it
    is ready waits for it (Numba and Python's imports take locks)."""
    dynamics.warmup(verbose=True)
    start = time.perf_counter()
    views.warmup_rasters()
    print(f"views: datashader ready in {time.perf_counter() - start:.2f} s", flush=True)
    loop.add_callback(_warm_page)


def _warm_page() -> None:
    """Draw the first explorer's page once into a throwaway document, on the server's event loop
    (HoloViews' option store is not safe to use from two threads)."""
    start = time.perf_counter()
    views.warmup()
    print(f"views: first page drawn in {time.perf_counter() - start:.2f} s", flush=True)
    # What is loaded now lives as long as the server: take it out of the garbage collector's
    # generations, so that full collections during a slider move do not rescan it.
    gc.freeze()


def on_server_loaded(server_context):
    """Start warming up once the server is loaded; it listens at once."""
    loop = IOLoop.current()
    threading.Thread(target=_warm_in_background, args=(loop,), name="ldx-warmup",
                     daemon=True).start()
