"""A burst of slider moves in Chromium, as a student holding an arrow key: how long after the last
key press the page's canvases stop changing, and whether what they then show is the final value.

Inside the page a requestAnimationFrame loop fingerprints every Bokeh canvas each frame (a hash of
a strided sample of its pixels) and records when any canvas last changed; key presses are
recorded with ``performance.now()`` in the page too, so both times are on one clock. Used by the
default-run test (``tests/app/test_latest_wins.py``, herding) and the bench over every page
(``tests/bench/test_bench_burst.py``).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Every canvas of the page, through shadow roots (JavaScript, for the watchers).
CANVASES = """
    const canvases = () => {
        const found = [];
        const walk = root => root.querySelectorAll('*').forEach(el => {
            if (el.tagName === 'CANVAS') found.push(el);
            if (el.shadowRoot) walk(el.shadowRoot);
        });
        walk(document);
        return found;
    };
"""
#: A cheap fingerprint of a canvas's pixels: a hash of a strided sample of them.
PRINT = """
    const print = c => {
        try {
            const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
            let h = c.width * 31 + c.height;
            for (let i = 0; i < d.length; i += 397) h = (h * 33 + d[i]) | 0;
            return h;
        } catch (e) { return 0; }
    };
"""

#: Install the watcher: ``window.__ldxBurst.last`` is the time any canvas last changed,
#: ``keys`` the times of the key presses, ``changes`` how many canvas changes were seen.
WATCH = """() => {
    if (window.__ldxBurst) {  // installed already: start counting afresh
        Object.assign(window.__ldxBurst, {last: 0, keys: [], changes: 0});
        return;
    }
""" + CANVASES + PRINT + """    const state = {last: 0, keys: [], changes: 0, prints: new Map()};
    window.__ldxBurst = state;
    document.addEventListener('keydown', () => { state.keys.push(performance.now()); }, true);
    const tick = () => {
        for (const c of canvases()) {
            const p = print(c);
            if (state.prints.has(c) && state.prints.get(c) !== p) {
                state.last = performance.now(); state.changes += 1;
            }
            state.prints.set(c, p);
        }
        requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
}"""

#: Resolve once no canvas has changed for ``quiet`` ms after the last key press (or after
#: ``limit`` ms): the time from the last key press to the last change (ms), and the count.
SETTLED = """([quiet, limit]) => new Promise(resolve => {
    const s = window.__ldxBurst;
    const lastKey = s.keys[s.keys.length - 1];
    const check = () => {
        const now = performance.now();
        if (now - Math.max(s.last, lastKey) > quiet || now - lastKey > limit) {
            resolve({settle: Math.max(0, s.last - lastKey), changes: s.changes,
                     spread: lastKey - s.keys[0], presses: s.keys.length});
        } else { setTimeout(check, 25); }
    };
    check();
})"""


@dataclass(frozen=True)
class Burst:
    """What a burst of key presses did: ``settle_ms`` from the last press to the last changed
    pixel, ``spread_ms`` from the first press to the last, the canvas changes seen, and the
    slider's value before and after (``aria-valuenow`` of its handle)."""

    settle_ms: float
    spread_ms: float
    presses: int
    changes: int
    start: str
    final: str


def burst(page, handle, *, presses: int = 30, spread_ms: float = 1500, key: str = "ArrowRight",
          quiet_ms: float = 1500, limit_ms: float = 60_000) -> Burst:
    """Press ``key`` ``presses`` times on the slider ``handle`` (a ``.noUi-handle`` locator),
    evenly over ``spread_ms``, and wait until the page's canvases settle."""
    page.evaluate(WATCH)
    page.wait_for_timeout(300)  # a few frames to take every canvas's first fingerprint
    handle.focus()
    start = handle.get_attribute("aria-valuenow")
    gap = spread_ms / max(presses - 1, 1)
    for i in range(presses):
        page.keyboard.press(key)
        if i < presses - 1:
            page.wait_for_timeout(gap)
    result = page.evaluate(SETTLED, [quiet_ms, limit_ms])
    return Burst(settle_ms=result["settle"], spread_ms=result["spread"],
                 presses=result["presses"], changes=result["changes"], start=start,
                 final=handle.get_attribute("aria-valuenow"))
