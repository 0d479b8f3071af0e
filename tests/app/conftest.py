"""Fixtures for the browser tests: a served app and a headless Chromium driven by Playwright.

Chromium is Debian's (/usr/bin/chromium, or $LDX_CHROMIUM). Without it these tests skip, unless
LDX_REQUIRE_BROWSER=1, which turns the skip into a failure (CI sets it).
"""

from __future__ import annotations

import os
import pathlib
import shutil
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCREENSHOTS = pathlib.Path(__file__).resolve().parent / "screenshots"
#: The served app's log; one per pytest-xdist worker (each worker serves its own app).
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "")
SERVER_LOG = ROOT / "tests" / "app" / (f"server-{_WORKER}.log" if _WORKER else "server.log")
CHROMIUM = os.environ.get("LDX_CHROMIUM", "/usr/bin/chromium")
REQUIRE = os.environ.get("LDX_REQUIRE_BROWSER") == "1"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage",
]


def _unavailable(reason: str):
    if REQUIRE:
        pytest.fail(f"browser tests required (LDX_REQUIRE_BROWSER=1) but {reason}")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def panel_serve(target: str, port: int, *, log, env=None, timeout: float = 180, args=()):
    """``panel serve target`` on a loopback port (with the further command-line ``args``),
    returned once its page answers (or raise RuntimeError with the end of ``log``'s file when it
    exits or does not answer in time). Unless ``env`` says otherwise, the server draws only
    the first page at start (``LDX_WARM_PAGES=first``): these servers live for a test file
    or less, and drawing all 13 pages costs each about 30 s of CPU beside the tests."""
    env = {"LDX_WARM_PAGES": "first", **(os.environ if env is None else env)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "panel", "serve", target, "--port", str(port),
         "--address", "127.0.0.1", "--allow-websocket-origin", f"127.0.0.1:{port}",
         "--num-procs", "1", *args],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env=env,
    )
    url = f"http://127.0.0.1:{port}/{pathlib.Path(target).stem}"
    deadline = time.monotonic() + timeout
    while True:
        try:
            with urllib.request.urlopen(url, timeout=30) as resp:
                if resp.status == 200:
                    return proc, url
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"panel serve {target} did not start:\n"
                               + pathlib.Path(log.name).read_text()[-4000:])
        time.sleep(0.5)


@pytest.fixture(scope="session")
def server():
    """``panel serve app`` on a free loopback port; yields the app's URL."""
    log = open(SERVER_LOG, "w")
    try:
        proc, url = panel_serve("app", _free_port(), log=log)
    except RuntimeError:
        log.close()
        raise
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="session")
def browser():
    """A headless Debian Chromium under Playwright."""
    if not (os.path.exists(CHROMIUM) or shutil.which(CHROMIUM)):
        _unavailable(f"Chromium not found at {CHROMIUM}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("playwright is not installed (pip install -e '.[test]')")
    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture()
def page(browser):
    """A fresh page that records console errors and uncaught exceptions in ``page.errors``."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    pg = context.new_page()
    pg.errors = []
    pg.on("console", lambda msg: pg.errors.append(f"console.{msg.type}: {msg.text}")
          if msg.type == "error" else None)
    pg.on("pageerror", lambda exc: pg.errors.append(f"pageerror: {exc}"))
    SCREENSHOTS.mkdir(exist_ok=True)
    yield pg
    context.close()
