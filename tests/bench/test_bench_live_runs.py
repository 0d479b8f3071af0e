"""The page stays live during a run (issue 25 item 3): a slider move timed in Chromium with no
run going and while a page's long run computes (in the served app: in a worker process,
``views.framework.worker``), on the herding page's box-dimension run, the Bayes learning curves, SBEED on
Pendulum and the PCT training.

The time of a move is from the key press to the last change of the page's first plot (its
first Bokeh canvas, fingerprinted every animation frame), once it has not changed for
``QUIET_MS`` (a move that has not changed it by then counts as not redrawn); the run's own panels, which redraw as partial results come, are not watched. The
slider moved is the first one in the sidebar whose move redraws that plot. Target: during the
run within 1.5 s of the time with no run.

Run: ``pytest -m bench tests/bench/test_bench_live_runs.py -s``.
"""

from __future__ import annotations

import statistics

import pytest

from tests.app._burst import PRINT
from tests.app.conftest import browser, server  # noqa: F401
from views import EXPLORERS

pytestmark = [pytest.mark.bench, pytest.mark.browser]

MOVES = 4
QUIET_MS = 3000
SLACK = 1.5  # seconds a move may take longer during a run
#: page -> (link settings that make the run last, the run): one long run of each kind
RUNS = {
    "herding": ("box.steps=2000000", "box"),
    "bayes": ("", "curve"),
    "sbeed": ("", "pendulum"),
    "pct": ("", "boundaries"),
}


def _button(slug: str, run: str) -> str:
    """The label of the button that starts ``run`` on ``slug``'s page (its ``Run`` declares it)."""
    return next(r.button for r in EXPLORERS[slug].runs if r.key == run)


WATCH_FIRST = """() => {
    const first = () => {
        let found = null;
        const walk = root => root.querySelectorAll('*').forEach(el => {
            if (!found && el.tagName === 'CANVAS') found = el;
            if (!found && el.shadowRoot) walk(el.shadowRoot);
        });
        walk(document);
        return found;
    };
""" + PRINT + """    window.__ldx = {last: 0, print: null, keydown: 0};
    document.addEventListener('keydown', () => { window.__ldx.keydown = performance.now(); },
                              true);
    const tick = () => {
        const s = window.__ldx, c = first();
        if (c) { const p = print(c); if (p !== s.print) { s.print = p; s.last = performance.now(); } }
        requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
}"""

QUIET = """quiet => new Promise(resolve => {
    const started = performance.now();
    const check = () => {
        const s = window.__ldx;
        if (performance.now() - Math.max(s.last, s.keydown) > quiet) {
            resolve(s.last > s.keydown ? s.last - s.keydown : -1);
        } else if (performance.now() - started > 60000) { resolve(-2); }
        else { setTimeout(check, 50); }
    };
    check();
})"""


def _move(page, handle, direction: str) -> float:
    """Seconds from a key press on ``handle`` to the first plot's last change (-1: it did not
    change)."""
    handle.focus()
    page.evaluate("() => { window.__ldx.keydown = 0; window.__ldx.last = 0; }")
    page.keyboard.press(direction)
    return page.evaluate(QUIET, QUIET_MS) / 1000


def _times(page, handle, moves: int = MOVES) -> list[float]:
    out = []
    for i in range(moves):
        out.append(_move(page, handle, "ArrowRight" if i % 2 == 0 else "ArrowLeft"))
    return out


@pytest.mark.parametrize("slug", list(RUNS))
def test_a_slider_move_during_a_run(server, browser, slug):  # noqa: F811
    query, run = RUNS[slug]
    button = _button(slug, run)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    try:
        page.goto(f"{server}?page={slug}&{query}", wait_until="domcontentloaded",
                  timeout=120_000)
        run_button = page.get_by_role("button", name=button)
        run_button.wait_for(state="attached", timeout=120_000)
        page.wait_for_timeout(3000)
        page.evaluate(WATCH_FIRST)
        handles = page.locator(".noUi-handle")
        handle = None
        for i in range(min(4, handles.count())):
            if _move(page, handles.nth(i), "ArrowRight") > 0:
                handle = handles.nth(i)
                _move(page, handle, "ArrowLeft")
                break
        assert handle is not None, "no slider of the sidebar redraws the first plot"
        before = _times(page, handle)
        run_button.scroll_into_view_if_needed()
        run_button.click()
        page.get_by_text("%:").first.wait_for(state="attached", timeout=120_000)
        during = _times(page, handle)
        still = page.get_by_text("%:").count() > 0
        for cancel in page.get_by_role("button", name="Cancel").all():
            if cancel.is_enabled():
                cancel.click()
    finally:
        page.close()
    redrawn = [t for t in during if t > 0]
    assert min(before) > 0, "a move with no run did not redraw the plot"
    # a move the plot had not started to show after QUIET_MS is not timed (counted here)
    assert len(redrawn) >= MOVES - 1, f"{MOVES - len(redrawn)} moves during the run not drawn"
    b, d = statistics.median(before), statistics.median(redrawn)
    print(f"\n{slug:13s} move with no run: median {b:.2f} s {before}; during the run: median "
          f"{d:.2f} s {during}{'' if still else ' (the run ended while moving)'}")
    assert d <= b + SLACK, f"{slug}: {d:.2f} s during the run against {b:.2f} s without"
