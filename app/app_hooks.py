"""Server lifecycle hooks of the ``app`` directory application (picked up by ``panel serve app``)."""

import ctypes
import gc
import os
import pathlib
import subprocess
import sys
import threading
import time

from tornado.ioloop import IOLoop

import dynamics
import views
import views.framework.worker
from views.framework import readiness
from views.framework.served import compress_responses, page_resources

# Bokeh runs this module while it reads the app's directory, before it builds its server: the
# server compresses its responses, and each page's HTML lists only the bundles it uses, its
# scripts deferred (``views.framework.served``).
compress_responses()
page_resources()


def _warm_in_background(loop: IOLoop, pages: list[str]) -> None:
    """Load (or, the first time after installing, compile) every Numba kernel and datashader's
    kernels. None of this touches HoloViews or Bokeh (datashader itself is imported before,
    see ``on_server_loaded``), so it runs in a thread while the server already answers: the
    home page is served at once, and a page that needs a kernel before it is ready waits for it
    (Numba and Python's imports take locks).

    The first page's kernels come first: those of the engines its code imports
    (``engine_groups``). When they had to be compiled (the very first start
    after installing, or after their source changed), the others are compiled by a separate
    Python process, which fills Numba's on-disk cache on the other core, each loaded here from
    that cache as soon as the child has compiled it (in the menu's order: the second page's
    engines are ready before the last page's are compiled): compiling the bifurcation and
    Doeblin kernels takes about 40 s, which in this process would hold the interpreter lock
    against every page served meanwhile.

    Then ``pages`` are drawn once each on the event loop (``_warm_page``, ``_warm_pages``)."""
    first, rest = engine_groups()
    # in the order they are readied, so the log's and the waiting page's counts run 1, 2, ...
    compiling = [name for name in first + rest if readiness.needs_compiling(name)]
    readiness.begin(compiling)  # pages whose engines compile wait (app/main.py)
    if compiling:
        print(f"dynamics: {len(compiling)} engines to compile: {', '.join(compiling)}",
              flush=True)
    readiness.doing(", ".join(readiness.step(name) for name in first))
    dynamics.warmup(verbose=True, engines=first)
    readiness.ready(first)
    start = time.perf_counter()
    views.warmup_rasters()
    print(f"views: datashader ready in {time.perf_counter() - start:.2f} s", flush=True)
    loop.add_callback(_warm_page)
    loaded: list[str] = []

    def load(name: str) -> None:
        readiness.doing(f"loading {name}")  # from the disk cache, which the child filled
        dynamics.warmup(verbose=True, engines=[name])
        readiness.ready([name])
        loaded.append(name)

    if _compiled(first) or compiling:
        _compile_elsewhere(rest, then=load)
    for name in rest:
        if name not in loaded:  # all of them when nothing was compiled, or the child failed
            load(name)
    if pages[1:]:  # the other pages, once their engines are loaded
        loop.add_callback(_warm_pages, pages[1:], time.perf_counter())


def engine_groups() -> tuple[list[str], list[str]]:
    """The engines a start loads first (the first page's: what its code imports, read by
    ``readiness.engines_of``) and the others, in the menu's order of the pages that use them
    (``readiness.start_order``)."""
    pages = list(views.EXPLORERS.values())
    first = readiness.engines_of(pages[0])
    return first, [name for name in readiness.start_order(pages) if name not in first]


#: ``LDX_WARM_PAGES``: which pages the server draws once at start, ``all`` (the default) or
#: ``first`` (the test suite's many short-lived servers, which would spend about 30 s of CPU
#: each drawing pages they never open).
WARM_CHOICES = ("all", "first")


def pages_to_warm() -> list[str]:
    """The pages drawn at start, in order (the first explorer's always)."""
    choice = os.environ.get("LDX_WARM_PAGES", "all") or "all"
    if choice not in WARM_CHOICES:
        raise ValueError(f"LDX_WARM_PAGES must be one of {', '.join(WARM_CHOICES)}, "
                         f"got {choice!r}")
    slugs = list(views.EXPLORERS)
    return slugs if choice == "all" else slugs[:1]


#: Seconds after a session was created, or its page was shown in the browser, during which no
#: page is drawn for the warm-up (a page's draw holds the loop 1-2.5 s).
QUIET_AFTER_SESSION = 5.0
_LAST_SESSION = {"at": float("-inf")}
#: Seconds a session's page may take to show before the warm-up stops waiting for it (a tab
#: closed while loading never says it has shown).
LOAD_LIMIT = 60.0
#: Sessions created and not yet shown in their browser: id -> when created (monotonic).
_LOADING: dict[str, float] = {}
#: ``pn.state.cache`` key of the ids of sessions whose page the browser has shown (app/main.py
#: adds them; this module is loaded by Bokeh under another name than the app's modules).
SHOWN = "ldx-sessions-shown"


def on_session_created(session_context):
    """A session was created: the warm-up steps aside until its page is shown in the browser
    (its template, scripts, stylesheets and websocket come one request at a time, and each
    waited behind a page's warm-up draw: a page opened as the server started was drawn after
    all the warm-up pages; docs/speed.md has the times)."""
    _LAST_SESSION["at"] = time.monotonic()
    _LOADING[session_context.id] = time.monotonic()


def _loading() -> list[str]:
    """The sessions whose page is still on its way to the browser."""
    import panel as pn

    shown = pn.state.cache.get(SHOWN, set())
    now = time.monotonic()
    for sid in [sid for sid in _LOADING if sid in shown or now - _LOADING[sid] > LOAD_LIMIT]:
        _LOADING.pop(sid)
        shown.discard(sid)
        _LAST_SESSION["at"] = max(_LAST_SESSION["at"], now)  # shown: its first moves come now
    return list(_LOADING)


def _warm_pages(slugs: list[str], started: float) -> None:
    """Draw the first of ``slugs`` once on the event loop, then hand the loop back and come
    back for the next; while a session's page is on its way to the browser (``_loading``), or
    a session was created or shown in the last ``QUIET_AFTER_SESSION`` seconds, wait instead
    (a visitor in the server's first half-minute loads their page as fast as without the
    warm-up).

    Every page's first draw costs more than the later ones: the plotting classes it uses, its
    engine's arrays and its default result (cached) are made once, about 114 MiB over the 13
    pages here. Made at start, they are part of the server's size before the first class
    arrives (not a growth that stays after the class has gone), and no student's first page
    pays for them."""
    loop = IOLoop.current()
    if _loading():
        loop.call_later(0.25, _warm_pages, slugs, started)
        return
    quiet = _LAST_SESSION["at"] + QUIET_AFTER_SESSION - time.monotonic()
    if quiet > 0:
        loop.call_later(quiet, _warm_pages, slugs, started)
        return
    slug, rest = slugs[0], slugs[1:]
    start = time.perf_counter()
    views.warmup(slug)
    print(f"views: page {slug} drawn in {time.perf_counter() - start:.2f} s", flush=True)
    if rest:
        loop.add_callback(_warm_pages, rest, started)
    else:
        print(f"views: every page drawn, {time.perf_counter() - started:.1f} s after the "
              f"first", flush=True)
        gc.freeze()


def _compiled(engines) -> bool:
    """Whether any Numba kernel of these engine modules was compiled in this process rather
    than loaded from the on-disk cache."""
    from numba.core.dispatcher import Dispatcher

    def modules(name):
        # an engine is a module, or a package of modules (dynamics.doeblin)
        prefix = f"dynamics.{name}"
        return [m for key, m in list(sys.modules.items())
                if key == prefix or key.startswith(prefix + ".")]

    return any(isinstance(kernel, Dispatcher) and kernel.stats.cache_misses
               for name in engines for module in modules(name)
               for kernel in vars(module).values())


def _compile_elsewhere(engines: list[str], then=None) -> None:
    """Run ``dynamics.warmup(engines=...)`` in a child Python process (same interpreter, same
    ``dynamics`` package), which writes Numba's on-disk cache; a failure there only means this
    process compiles the kernels itself afterwards. ``then(name)`` is called here with each
    engine the child has readied, while it goes on with the next."""
    root = pathlib.Path(dynamics.__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(root)] + [p for p in [os.environ.get("PYTHONPATH")] if p])}
    start = time.perf_counter()
    readiness.doing(f"{readiness.step(engines[0])} in a child process")
    try:
        with subprocess.Popen(
                [sys.executable, "-c", f"import dynamics; dynamics.warmup(verbose=True, "
                                       f"engines={engines!r})"],
                env=env, stdout=subprocess.PIPE, text=True) as child:
            # the child prints "dynamics.<name>: ready in ... s" after each engine
            for done, line in enumerate(child.stdout, start=1):
                name = line.partition(":")[0].removeprefix("dynamics.")
                if name in engines:  # counted as the waiting page counts it
                    print(f"dynamics: {readiness.step(name)} done by the child process",
                          flush=True)
                if then is not None and name in engines:
                    then(name)
                if done < len(engines):
                    readiness.doing(f"{readiness.step(engines[done])} in a child process")
            if child.wait(timeout=600):
                raise subprocess.CalledProcessError(child.returncode, "dynamics.warmup")
    except (OSError, subprocess.SubprocessError) as exc:
        print(f"dynamics: the child process could not compile the kernels ({exc}); "
              "compiling them here", flush=True)
        return
    print(f"dynamics: {', '.join(engines)} compiled or loaded by a child process in "
          f"{time.perf_counter() - start:.2f} s", flush=True)


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
    """Start warming up once the server is loaded; it listens at once. Pages' runs compute in
    worker processes (``views.framework.worker``), whose fork server starts now."""
    views.framework.worker.enable()
    # datashader here, before any session is built, not in the warm-up thread (about 0.8 s):
    # its import tries dask.dataframe, which without pyarrow fails after sitting half-imported
    # in sys.modules; HoloViews' element constructors take dask.dataframe's presence there as
    # "loaded" and import it themselves, so a session built meanwhile failed with "No module
    # named 'pyarrow'" (a page opened in the server's first seconds, under load).
    import datashader  # noqa: F401
    loop = IOLoop.current()
    pages = pages_to_warm()  # a wrong LDX_WARM_PAGES stops the server here, not in the thread
    threading.Thread(target=_warm_in_background, args=(loop, pages), name="ldx-warmup",
                     daemon=True).start()


def on_server_unloaded(server_context):
    """The server is stopping (SIGTERM, Ctrl-C): cancel every session's running job, so that
    no computation outlives it (their threads are daemons, and stop at the engine's next
    progress report; those in worker processes are killed at once)."""
    from views.framework.jobs import cancel_all
    from views.framework.worker import kill_all

    running = cancel_all()
    killed = kill_all()  # at once: the threads that would kill them die with the server
    print(f"app: server stopping, {running} running job(s) cancelled, {killed} worker "
          f"process(es) killed", flush=True)


#: Seconds after the last destroyed session at which freed memory is handed back (one
#: collection and trim for a whole class leaving at once, not one per session).
TRIM_AFTER = 2.0
_TRIM = {"handle": None}


def _trim() -> None:
    """Collect garbage and hand the freed heap back to the system (glibc's ``malloc_trim``):
    without it, the memory of closed sessions stays in the process's free lists, and the
    server's size measured from outside stays at its peak."""
    _TRIM["handle"] = None
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: nothing to trim
        pass


def on_session_destroyed(session_context):
    """A session was destroyed (its tab closed, then ``--unused-session-lifetime`` passed):
    trim the heap once the sessions closing together are all gone."""
    import panel as pn

    _LOADING.pop(session_context.id, None)
    pn.state.cache.get(SHOWN, set()).discard(session_context.id)
    loop = IOLoop.current()
    if _TRIM["handle"] is not None:
        loop.remove_timeout(_TRIM["handle"])
    _TRIM["handle"] = loop.call_later(TRIM_AFTER, _trim)
