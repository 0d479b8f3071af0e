"""The README's screenshots, taken from the served app: ``python tools/screenshots.py``.

Starts ``panel serve app`` on a free loopback port, opens each page of ``SHOTS`` in a headless
Chromium (Playwright, a test extra: ``pip install -e ".[test]"``; Debian's ``/usr/bin/chromium``
or ``$LDX_CHROMIUM``) in a 1440 x 900 window, waits until the page is drawn (its Bokeh plots
painted, its pictures loaded: events, not a fixed sleep), writes the page down to the bottom of
its first row of plots (or cards: the window is made taller when that row ends below 900 px) as
``assets/screenshot-<name>.png`` and stops the server. PNGs over ``MAX_BYTES`` are reduced to a
256-colour palette.

    python tools/screenshots.py               # every screenshot
    python tools/screenshots.py herding       # one of them
"""

from __future__ import annotations

import argparse
import io
import os
import pathlib
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parents[1]
ASSETS = ROOT / "assets"
CHROMIUM = os.environ.get("LDX_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-dev-shm-usage"]
SCREEN = {"width": 1440, "height": 900}
#: A screenshot larger than this is stored with a 256-colour palette (README weight).
MAX_BYTES = 400_000
#: How long a page may take to draw (ms): the first page after a start waits for its engines.
LOAD_TIMEOUT = 180_000

#: name -> the page's query (``home``: the home page, every explorer's card and menu entry).
#: Each picture ends under the page's first row of plots or cards, so none is cut.
SHOTS = {"home": "", "herding": "page=herding"}
#: Space kept under the first row (px).
MARGIN = 16

#: How many Bokeh canvases in the document, shadow roots included.
_CANVASES = """() => {
    let n = 0;
    const walk = root => root.querySelectorAll('*').forEach(el => {
        if (el.classList && el.classList.contains('bk-Canvas')) n += 1;
        if (el.shadowRoot) walk(el.shadowRoot);
    });
    walk(document);
    return n;
}"""

#: Every picture loaded (shadow roots included), every Bokeh document idle and every plot's
#: render finished (views without a frame, such as a CDSView or a tool, never "finish").
_DRAWN = """() => {
    const images = [];
    const walk = root => root.querySelectorAll('*').forEach(el => {
        if (el.tagName === 'IMG') images.push(el);
        if (el.shadowRoot) walk(el.shadowRoot);
    });
    walk(document);
    if (!images.every(img => img.complete && img.naturalWidth > 0)) return false;
    if (typeof Bokeh === 'undefined' || Bokeh.documents.length === 0) return false;
    if (!Bokeh.documents.every(doc => doc.is_idle)) return false;
    return Array.from(Bokeh.index.all_views()).filter(view => view.frame)
        .every(view => view.has_finished());
}"""


#: The bottom (page px) of the first row of the page's plots (Bokeh canvases), or of its cards
#: (their "Open the explorer" links) on the home page.
_FIRST_ROW_BOTTOM = """plots => {
    const boxes = [];
    const walk = root => root.querySelectorAll('*').forEach(el => {
        const hit = plots ? el.classList && el.classList.contains('bk-Canvas')
                          : el.tagName === 'A' && el.textContent.startsWith('Open the explorer');
        if (hit) {
            const r = el.getBoundingClientRect();
            if (r.width > 0) boxes.push(r);
        }
        if (el.shadowRoot) walk(el.shadowRoot);
    });
    walk(document);
    const top = Math.min(...boxes.map(b => b.top));
    return Math.max(...boxes.filter(b => b.top < top + 50).map(b => b.bottom)) + window.scrollY;
}"""


#: Resolves after two animation frames: what was rendered is painted.
_PAINTED = "() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def serve(port: int, log) -> subprocess.Popen:
    """``panel serve app`` on ``127.0.0.1:port``, drawing only the first page at start
    (``LDX_WARM_PAGES=first``), returned once the app answers."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "panel", "serve", "app", "--port", str(port),
         "--address", "127.0.0.1", "--allow-websocket-origin", f"127.0.0.1:{port}",
         "--num-procs", "1"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        env={**os.environ, "LDX_WARM_PAGES": "first"})
    deadline = time.monotonic() + LOAD_TIMEOUT / 1000
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/app", timeout=30) as resp:
                if resp.status == 200:
                    return proc
        except OSError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            stop(proc)
            raise RuntimeError("panel serve app did not start:\n"
                               + pathlib.Path(log.name).read_text()[-4000:])
        time.sleep(0.5)


def stop(proc: subprocess.Popen) -> None:
    """SIGTERM the server (it stops its job workers), then kill what is left of its group."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


def canvases(slug: str) -> int:
    """How many Bokeh canvases the page of ``slug`` draws (tables are not canvases)."""
    import holoviews as hv

    from views import EXPLORERS

    explorer = EXPLORERS[slug]()
    return sum(not isinstance(explorer.element(p), hv.Table) for p in EXPLORERS[slug].plots)


def shoot(page, url: str, query: str, path: pathlib.Path) -> int:
    """Open ``url?query``, wait until it is drawn, save the screen down to the bottom of its
    first row of plots (or cards) as ``path``; its size in bytes."""
    from PIL import Image

    page.goto(f"{url}?{query}" if query else url, wait_until="domcontentloaded",
              timeout=LOAD_TIMEOUT)
    slug = dict(part.split("=", 1) for part in query.split("&") if part).get("page")
    if slug:
        page.wait_for_function(f"n => ({_CANVASES})() >= n", arg=canvases(slug),
                               timeout=LOAD_TIMEOUT)
    else:
        page.get_by_text("Open the explorer").last.wait_for(timeout=LOAD_TIMEOUT)
    page.wait_for_function(_DRAWN, timeout=LOAD_TIMEOUT)
    page.evaluate(_PAINTED)
    bottom = round(page.evaluate(_FIRST_ROW_BOTTOM, bool(slug)) + MARGIN)
    if bottom > SCREEN["height"]:  # the app scrolls inside its main area: a taller window
        page.set_viewport_size({**SCREEN, "height": bottom})
        page.wait_for_function(_DRAWN, timeout=LOAD_TIMEOUT)
        page.evaluate(_PAINTED)
    png = page.screenshot(clip=dict(x=0, y=0, width=SCREEN["width"], height=bottom))
    page.set_viewport_size(SCREEN)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    out = io.BytesIO()
    image.save(out, "PNG", optimize=True)
    if out.tell() > MAX_BYTES:
        out = io.BytesIO()
        image.quantize(256, dither=Image.Dither.FLOYDSTEINBERG).save(out, "PNG", optimize=True)
    path.write_bytes(out.getvalue())
    return out.tell()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME",
                        help=f"screenshots to take (default: all of {', '.join(SHOTS)})")
    names = parser.parse_args(argv).names or list(SHOTS)
    unknown = [n for n in names if n not in SHOTS]
    if unknown:
        parser.error(f"unknown screenshots {unknown}; known: {', '.join(SHOTS)}")
    from playwright.sync_api import sync_playwright

    with tempfile.NamedTemporaryFile("w", prefix="ldx-screenshots-", suffix=".log",
                                     delete=False) as log:
        port = free_port()
        started = time.perf_counter()
        proc = serve(port, log)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                             args=CHROMIUM_ARGS)
                page = browser.new_page(viewport=SCREEN)
                for name in names:
                    path = ASSETS / f"screenshot-{name}.png"
                    size = shoot(page, f"http://127.0.0.1:{port}/app", SHOTS[name], path)
                    print(f"{path.relative_to(ROOT)}: {size:,} bytes "
                          f"({time.perf_counter() - started:.0f} s after the server's start)")
                browser.close()
        finally:
            stop(proc)
    pathlib.Path(log.name).unlink()
    return 0


if __name__ == "__main__":
    sys.exit(main())
