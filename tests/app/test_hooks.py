"""The server's start-up hooks (app/app_hooks.py): warming up in the background."""

from __future__ import annotations

import asyncio
import concurrent.futures
import importlib.util
import pathlib
import re
import subprocess
import sys
import time
import types

from .conftest import ROOT, SERVER_LOG

import panel as pn
import pytest

import dynamics
import views


#: The repository's own code, as the server runs it (an editable install imports it from here).
OUR_SOURCES = ("app", "views", "dynamics")
_FRAME = re.compile(r'^\s*File "([^"]+)", line \d+', re.MULTILINE)


def through_our_code(traceback: str, root: pathlib.Path = ROOT) -> bool:
    """True when a frame of ``traceback`` is in the repository's app/, views/ or dynamics/.

    Paths are compared part by part, not as text: a virtual environment whose path starts
    with the repository's (``<clone>/.venv``, or ``<clone>-venv`` beside it) holds Bokeh's and
    Tornado's frames, which are not ours, and neither is anything under site-packages.
    """
    for name in _FRAME.findall(traceback):
        path = pathlib.PurePath(name)
        if {"site-packages", "dist-packages"} & set(path.parts):
            continue
        try:
            inside = path.relative_to(root).parts
        except ValueError:
            continue
        if len(inside) > 1 and inside[0] in OUR_SOURCES:
            return True
    return False


def _hooks():
    spec = importlib.util.spec_from_file_location("ldx_app_hooks", ROOT / "app" / "app_hooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_served_app_warms_every_engine_and_the_first_page(server):
    """The served app loads every engine's kernels and draws the first page, in the background,
    while it already answers (the fixture has had an answer from it)."""
    log = SERVER_LOG
    wanted = [f"dynamics.{name}: ready" for name in dynamics.ENGINES]
    wanted += ["views: datashader ready", "views: first page drawn"]
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        text = log.read_text()
        if all(w in text for w in wanted):
            break
        time.sleep(0.5)
    missing = [w for w in wanted if w not in log.read_text()]
    assert missing == [], f"not in the server log: {missing}"
    # Tornado logs a traceback when a browser closes a page while a message is on its way
    # (WebSocketClosedError): not ours. A traceback through our code is.
    blocks = log.read_text().split("Traceback (most recent call last):")[1:]
    ours = [block for block in blocks if through_our_code(block)]
    assert ours == [], ours[0][-2000:] if ours else ""


def _run(coroutine):
    """``asyncio.run`` in a thread of its own: the session's Playwright (sync API) keeps an
    event loop running in this one."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def test_the_server_draws_every_page_at_start_one_per_turn_of_its_loop(monkeypatch, capsys):
    """By default every explorer's page is drawn once at start (the first by ``_warm_page``,
    the others by ``_warm_pages``), one page per callback, so that a session opened meanwhile
    is built between two of them."""
    hooks = _hooks()
    monkeypatch.delenv("LDX_WARM_PAGES", raising=False)
    pages = hooks.pages_to_warm()
    assert pages == list(views.EXPLORERS)
    drawn = []
    monkeypatch.setattr(hooks.views, "warmup", drawn.append)
    monkeypatch.setattr(hooks.gc, "freeze", lambda: None)

    async def start():
        hooks._warm_pages(pages[1:], time.perf_counter())
        assert drawn == pages[1:2]  # one page, then the loop is the sessions' again
        await asyncio.sleep(0)
        assert drawn == pages[1:3]
        while len(drawn) < len(pages) - 1:
            await asyncio.sleep(0)

    _run(start())
    assert drawn == pages[1:]
    out = capsys.readouterr().out
    assert all(f"views: page {slug} drawn" in out for slug in pages[1:])
    assert "views: every page drawn" in out


def test_the_warm_up_steps_aside_while_a_page_loads(monkeypatch):
    """A session created in the last ``QUIET_AFTER_SESSION`` seconds puts the next page's
    warm-up off until that time has passed: the visitor's page and resources come first."""
    hooks = _hooks()
    drawn = []
    monkeypatch.setattr(hooks.views, "warmup", drawn.append)
    monkeypatch.setattr(hooks.gc, "freeze", lambda: None)
    monkeypatch.setattr(hooks, "QUIET_AFTER_SESSION", 0.3)

    async def start():
        hooks.on_session_created(types.SimpleNamespace(id="ldx-test-quiet"))
        pn.state.cache.setdefault(hooks.SHOWN, set()).add("ldx-test-quiet")  # shown at once
        begun = time.monotonic()
        hooks._warm_pages(["neuron"], time.perf_counter())
        assert drawn == []
        while not drawn:
            await asyncio.sleep(0.01)
        return time.monotonic() - begun

    waited = _run(start())
    assert drawn == ["neuron"]
    assert waited >= 0.25


def test_the_warm_up_waits_until_a_visitors_page_is_shown(monkeypatch):
    """A session's page on its way to the browser (its template, scripts and websocket, one
    request at a time) holds the warm-up however long it takes, up to ``LOAD_LIMIT``; once the
    browser has shown it, the next page is drawn after ``QUIET_AFTER_SESSION``. Before, a
    herding page opened as the server started was shown 34.7-42.1 s later, after all 13
    warm-up pages (each of its requests waited behind a page's draw)."""
    hooks = _hooks()
    drawn = []
    monkeypatch.setattr(hooks.views, "warmup", drawn.append)
    monkeypatch.setattr(hooks.gc, "freeze", lambda: None)
    monkeypatch.setattr(hooks, "QUIET_AFTER_SESSION", 0.2)
    visitor = types.SimpleNamespace(id="ldx-test-visitor")

    async def start():
        hooks.on_session_created(visitor)
        hooks._warm_pages(["neuron"], time.perf_counter())
        await asyncio.sleep(1.0)  # five times the quiet time: the page is still loading
        assert drawn == []
        pn.state.cache.setdefault(hooks.SHOWN, set()).add(visitor.id)  # app/main.py's onload
        shown = time.monotonic()
        while not drawn:
            await asyncio.sleep(0.01)
        return time.monotonic() - shown

    waited = _run(start())
    assert drawn == ["neuron"] and waited >= 0.15
    assert visitor.id not in pn.state.cache[hooks.SHOWN]  # forgotten once seen
    # a page that never shows (its tab closed while loading) holds it LOAD_LIMIT at most
    monkeypatch.setattr(hooks, "LOAD_LIMIT", 0.3)
    hooks.on_session_created(types.SimpleNamespace(id="ldx-test-gone"))
    assert hooks._loading() == ["ldx-test-gone"]
    time.sleep(0.35)
    assert hooks._loading() == []


def test_warm_pages_setting(monkeypatch):
    hooks = _hooks()
    monkeypatch.setenv("LDX_WARM_PAGES", "first")
    assert hooks.pages_to_warm() == list(views.EXPLORERS)[:1]
    monkeypatch.setenv("LDX_WARM_PAGES", "some")
    with pytest.raises(ValueError, match="LDX_WARM_PAGES"):
        hooks.pages_to_warm()


def test_warmup_names_a_page_that_does_not_exist():
    with pytest.raises(ValueError, match="slug"):
        views.warmup("nowhere")


def test_child_process_fills_the_kernel_cache(capsys):
    """And hands each engine on as soon as the child has readied it (the server loads it then,
    while the child compiles the next)."""
    hooks = _hooks()
    handed = []
    hooks._compile_elsewhere(["torus", "neuron"], then=handed.append)
    assert "torus, neuron compiled or loaded by a child process" in capsys.readouterr().out
    assert handed == ["torus", "neuron"]


def test_compiled_tells_a_compile_from_a_cache_load(tmp_path, monkeypatch):
    """True once a kernel of the module was compiled in this process (a cache miss), False
    while none was."""
    import sys

    (tmp_path / "ldx_probe.py").write_text(
        "from numba import njit\n\n@njit(cache=True)\ndef _twice(x):\n    return 2 * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import ldx_probe

    monkeypatch.setitem(sys.modules, "dynamics.ldx_probe", ldx_probe)
    hooks = _hooks()
    assert hooks._compiled(["ldx_probe"]) is False  # nothing compiled yet
    assert ldx_probe._twice(2.0) == 4.0  # fresh directory: compiled, not loaded
    assert hooks._compiled(["ldx_probe"]) is True


def test_a_traceback_is_ours_only_through_our_source_directories():
    """Frames in app/, views/, dynamics/ are ours; a venv inside or beside the clone is not."""
    root = pathlib.PurePosixPath("/home/me/ldx")

    def block(*paths):
        frames = "".join(f'  File "{p}", line 12, in f\n    x()\n' for p in paths)
        return f"Traceback (most recent call last):\n{frames}ValueError: boom\n"

    bokeh = "lib/python3.11/site-packages/bokeh/server/protocol_handler.py"
    tornado = "lib/python3.11/site-packages/tornado/websocket.py"
    theirs = [
        block(f"/home/me/ldx-venv/{bokeh}", f"/home/me/ldx-venv/{tornado}"),   # venv beside
        block(f"/home/me/ldx/.venv/{bokeh}"),                                   # venv inside
        block(f"/home/me/ldx/app/.venv/{tornado}"),                             # even in app/
        block("/home/me/ldxapp/main.py", "/home/me/ldx/appendix.py"),           # no separator
        block("/usr/lib/python3.11/asyncio/events.py", "/home/me/ldx/tests/app/conftest.py"),
        "WebSocketClosedError with no frames at all",
    ]
    ours = [
        block(f"/home/me/ldx-venv/{bokeh}", "/home/me/ldx/app/main.py"),
        block("/home/me/ldx/views/framework/"),
        block(f"/home/me/ldx/.venv/{tornado}", "/home/me/ldx/dynamics/herding.py"),
    ]
    assert [through_our_code(b, root) for b in theirs] == [False] * len(theirs)
    assert [through_our_code(b, root) for b in ours] == [True] * len(ours)


def test_datashader_is_imported_before_the_first_session_can_be_built():
    """``on_server_loaded`` returns (and the server builds sessions) only once datashader is
    imported: imported in the warm-up thread, it left dask.dataframe half-imported in
    sys.modules for a moment, and a session built then failed in HoloViews ("No module named
    'pyarrow'"). In a fresh interpreter, with the warm-up thread and the fork server left out."""
    code = (
        "import sys\n"
        "import app.app_hooks as hooks\n"
        "assert 'datashader' not in sys.modules\n"
        "hooks.views.framework.worker.enable = lambda: None\n"
        "hooks._warm_in_background = lambda loop, pages: None\n"
        "hooks.on_server_loaded(None)\n"
        "assert 'datashader' in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
