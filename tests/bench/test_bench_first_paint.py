"""A page that paints at once (issue 48 item 3), in Chromium, beside the floor measured in the same
run: on a warm server (every page opened once before), the time from navigation to the
template's first paint (the browser's ``first-contentful-paint``), to the page's frame (its
settings and a frame with a loading sign in each plot's place: ``Page.defer_plots``) and to its
first and last plot (a drawn Bokeh canvas), each a median of ``VISITS`` visits, and the bytes
its scripts and style sheets took on the wire. The floor is ``floor_app.py``'s five Bokeh plots
with no template and nothing computed, the least a Panel page costs here, served the same way.

Targets (the issue's, as ratios to the floor's time to its first plot): the frame within the
floor's first plot, the first plot within the floor's + ``SLACK_MS``. And a second start (every
kernel in the disk cache) ready, every page's engines loaded, within ``READY_S``.

Run: ``LDX_REQUIRE_BROWSER=1 pytest -m bench tests/bench/test_bench_first_paint.py -s``.
"""

from __future__ import annotations

import os
import pathlib
import re
import statistics
import subprocess
import sys
import tempfile
import time

import pytest

from tests.app.conftest import ROOT, _free_port, browser, panel_serve, server  # noqa: F401
from views import EXPLORERS

pytestmark = [pytest.mark.bench, pytest.mark.browser]

VISITS = 3
SLACK_MS = 700
READY_S = 15.0
FLOOR_APP = pathlib.Path(__file__).with_name("floor_app.py")

#: Installed before the page's own scripts: every animation frame, the first time a slider
#: handle or a plot's frame is in the page, and the times the canvases appear.
TIMES = """
window.__ldxPaint = {frame: null, canvases: []};
(() => {
  const scan = () => {
    let frame = false, canvases = 0;
    const walk = root => root.querySelectorAll('*').forEach(el => {
      if (el.classList && (el.classList.contains('noUi-handle')
                           || el.classList.contains('ldx-skeleton'))) frame = true;
      if (el.classList && el.classList.contains('bk-Canvas')) canvases++;
      if (el.shadowRoot) walk(el.shadowRoot);
    });
    if (document.body) walk(document);
    const s = window.__ldxPaint, now = performance.now();
    if ((frame || canvases) && s.frame === null) s.frame = now;
    while (s.canvases.length < canvases) s.canvases.push(now);
    requestAnimationFrame(scan);
  };
  requestAnimationFrame(scan);
})();
"""
PAINT = """() => { const p = performance.getEntriesByName('first-contentful-paint')[0];
                   return p ? p.startTime : null; }"""


def _visit(browser, url: str, plots: int, wire: list | None = None) -> tuple:  # noqa: F811
    """ms from navigation to the first paint, the frame, the first and the ``plots``-th canvas;
    with ``wire``, the bytes each script and style sheet took on the wire appended to it."""
    page = browser.new_page(viewport={"width": 1440, "height": 900})
    responses = []
    if wire is not None:
        page.on("response", lambda r: responses.append(r)
                if r.request.resource_type in ("script", "stylesheet") else None)
    try:
        page.add_init_script(TIMES)
        page.goto(url, wait_until="commit", timeout=120_000)
        page.wait_for_function("n => window.__ldxPaint && window.__ldxPaint.canvases.length >= n",
                               arg=plots, timeout=120_000)
        times = page.evaluate("() => window.__ldxPaint")
        paint = page.evaluate(PAINT)
        for response in responses:
            wire.append(response.request.sizes()["responseBodySize"])
        return paint, times["frame"], times["canvases"][0], times["canvases"][plots - 1]
    finally:
        page.close()


def _median(rows, i: int) -> float:
    """The median of column ``i`` (NaN where the browser gave no value: a page of canvases
    only may have no contentful paint)."""
    values = [r[i] for r in rows if r[i] is not None]
    return statistics.median(values) if values else float("nan")


def _load() -> str:
    return "load %.1f %.1f %.1f" % os.getloadavg()


@pytest.fixture(scope="module")
def floor(browser):  # noqa: F811
    """The floor's median ms to its first plot, measured once for the module."""
    env = dict(os.environ, LDX_FLOOR_PANELS="5", LDX_FLOOR_MODE="bokeh")
    with tempfile.NamedTemporaryFile("w", suffix=".log") as log:
        proc, url = panel_serve(str(FLOOR_APP), _free_port(), log=log, env=env, timeout=120)
        try:
            _visit(browser, url, 5)
            wire: list = []
            rows = [_visit(browser, url, 5, wire if not i else None) for i in range(VISITS)]
        finally:
            proc.terminate()
            proc.wait(timeout=20)
    first = _median(rows, 2)
    print(f"\nfloor (5 Bokeh plots, no template; {_load()}): first paint "
          f"{_median(rows, 0):.0f} ms, first plot {first:.0f} ms, last {_median(rows, 3):.0f} "
          f"ms; scripts and styles {sum(wire) / 1e6:.2f} MB on the wire")
    return first


@pytest.mark.parametrize("slug", list(EXPLORERS))
def test_first_paint_on_a_warm_server(server, browser, floor, slug):  # noqa: F811
    from tests.app.test_browser import _canvas_count

    plots = _canvas_count(EXPLORERS[slug])
    url = f"{server}?page={slug}"
    _visit(browser, url, plots)  # the server warm for this page
    wire: list = []
    rows = [_visit(browser, url, plots, wire if not i else None) for i in range(VISITS)]
    paint, frame, first, last = (_median(rows, i) for i in range(4))
    print(f"\n{slug:12s} paint {paint:5.0f} ms, frame {frame:5.0f} ms ({frame / floor:.2f}x "
          f"the floor's first plot), first plot {first:5.0f} ms ({first / floor:.2f}x, "
          f"{first - floor:+.0f} ms), all {plots} plots {last:5.0f} ms; "
          f"{sum(wire) / 1e6:.2f} MB on the wire; {_load()}")
    assert frame <= floor and first <= floor + SLACK_MS, (
        f"{slug}: frame {frame:.0f} ms, first plot {first:.0f} ms; the floor's first plot "
        f"{floor:.0f} ms (targets: the frame within it, the first plot within it + {SLACK_MS})")


def test_second_start_ready():
    """A second start (the kernels in the disk cache; ``panel serve app`` once started before,
    here by the ``server`` fixture or an earlier run): seconds from the command to every
    engine loaded (the server's log: ``dynamics.<engine>: ready``) and to its first answer."""
    from dynamics import ENGINES

    port = _free_port()
    start = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "panel", "serve", "app", "--port", str(port), "--address",
         "127.0.0.1", "--allow-websocket-origin", f"127.0.0.1:{port}"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)})
    ready, answering, lines = {}, None, []
    try:
        for line in proc.stdout:  # event-driven: each line as the server writes it
            lines.append(line)
            now = time.monotonic() - start
            if answering is None and "Bokeh app running" in line:
                answering = now
            found = re.match(r"dynamics\.(\w+): ready", line)
            if found:
                ready[found.group(1)] = now
            if set(ENGINES) <= set(ready) or now > 10 * READY_S:
                break
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert set(ENGINES) <= set(ready), "".join(lines[-20:])
    last = max(ready.values())
    print(f"\nsecond start: serving after {answering:.1f} s, every engine loaded after "
          f"{last:.1f} s ({_load()})")
    assert last <= READY_S
