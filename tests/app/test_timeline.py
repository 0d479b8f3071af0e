"""The timeline in Chromium: scrubbing redraws the plots in the browser, with no websocket
message from the client but the throttled time for the URL; what is drawn at t is the engine's
state at t; play runs to the end and stops (loop off), or wraps around (loop on); the handle and
the picture agree (herding scrubbed, with a knob move; the neuron played; the other pages in
``test_timeline_pages.py``). Waits are on events in the page, not fixed sleeps."""

from __future__ import annotations

import json

import numpy as np
import pytest

from dynamics import herding, neuron
from views.framework.player import SYNC_MS

from ._burst import CANVASES, PRINT
from .test_browser import _wait_for_frames_drawn

pytestmark = pytest.mark.browser

LOAD_TIMEOUT = 60_000

#: The timeline's Bokeh models in the page: the player, the hidden widget through which the
#: time reaches the server, and the address (Location) models.
MODELS = """() => {
    const doc = Bokeh.documents[0];
    let player = null;
    const locations = [];
    for (const m of doc._all_models.values()) {
        if (m.type === 'panel.models.widgets.Player') player = m;
        if (m.type && m.type.endsWith('Location')) locations.push(m.id);
    }
    const cb = player.js_property_callbacks['change:value'][0];
    const args = cb.args instanceof Map ? cb.args : new Map(Object.entries(cb.args));
    window.__ldxPlayer = player;
    return {sync: args.get('sync').id, locations: locations, end: player.end};
}"""

#: Fingerprints of every canvas (see ``_burst``), in page order.
PRINTS = "() => {" + CANVASES + PRINT + " return canvases().map(print); }"

#: Whether at least ``count`` canvases differ from the fingerprints ``before``.
CHANGED = ("([before, count]) => {" + CANVASES + PRINT
           + " return canvases().map(print).filter((x, i) => x !== before[i]).length >= count; }")

#: The data of the marks whose Bokeh name ends with ``suffix``.
MARK = """suffix => {
    for (const m of Bokeh.documents[0]._all_models.values()) {
        if (m.name && m.name.startsWith('ldx-time') && m.name.endsWith(suffix)) {
            const out = {};
            for (const [k, v] of Object.entries(m.data)) out[k] = Array.from(v);
            return out;
        }
    }
    return null;
}"""


def _open(page, url):
    sent = []

    def on_socket(ws):
        ws.on("framesent", lambda payload: sent.append(payload))

    page.on("websocket", on_socket)
    page.goto(url, wait_until="domcontentloaded", timeout=LOAD_TIMEOUT)
    page.wait_for_function(
        "() => window.Bokeh && Bokeh.documents.length && [...Bokeh.documents[0]._all_models"
        ".values()].some(m => m.name && m.name.startsWith('ldx-time'))", timeout=LOAD_TIMEOUT)
    page.wait_for_load_state("networkidle", timeout=LOAD_TIMEOUT)
    _wait_for_frames_drawn(page)
    return sent, page.evaluate(MODELS)


def _client_events(sent) -> list[dict]:
    """The document events in the client's websocket messages (Bokeh sends a header, metadata,
    content and buffers as separate frames; the content holds the events)."""
    events = []
    for payload in sent:
        if not isinstance(payload, str):
            continue
        try:
            content = json.loads(payload)
        except ValueError:
            continue
        if isinstance(content, dict):
            events.extend(content.get("events", []))
    return events


def _only_the_time_was_sent(page, sent, models, t, t0) -> None:
    """The server heard the time only through the throttled widget (at most one message per
    ``SYNC_MS`` since ``t0``, in the page's clock), and wrote the address with ``t``."""
    page.wait_for_function("t => window.location.search.includes('t=' + t)", arg=t)
    elapsed = page.evaluate("performance.now()") - t0
    events = _client_events(sent)
    times = [e for e in events if e.get("model", {}).get("id") == models["sync"]]
    others = [e for e in events if e not in times
              and not (e.get("model", {}).get("id") in models["locations"]
                       and e.get("attr") in ("href", "search", "hash"))]
    assert others == []
    assert all(e["attr"] == "value" for e in times)
    assert 1 <= len(times) <= 2 + elapsed / SYNC_MS


def _scrub(page, values, *, pause_ms=40):
    slider = page.locator(".ldx-timeline-player input[type=range]")
    for v in values:  # a drag: input events as the handle moves, then change on release
        slider.evaluate("(el, v) => { el.value = String(v); "
                        "el.dispatchEvent(new Event('input')); }", v)
        page.wait_for_timeout(pause_ms)
    slider.evaluate("el => el.dispatchEvent(new Event('change'))")


def _scrubbed(page, sent, values) -> tuple[int, float]:
    """Scrub through ``values`` and wait until the player is at the last and at least three
    canvases changed; the count of websocket messages and the page's clock before."""
    before = page.evaluate(PRINTS)
    start = len(sent)
    t0 = page.evaluate("performance.now()")
    _scrub(page, values)
    page.wait_for_function("v => window.ldxTimeline && window.ldxTimeline.value === v",
                           arg=values[-1])
    page.wait_for_function(CHANGED, arg=[before, 3])
    return start, t0


def test_scrubbing_redraws_in_the_browser_and_sends_only_the_throttled_time(server, page):
    steps = 2000
    sent, models = _open(page, f"{server}?page=herding&steps={steps}")
    assert models["end"] == steps
    values = list(range(100, 1100, 100))
    # the picture follows the handle: the weight-space canvases and the moment error change
    start, t0 = _scrubbed(page, sent, values)
    # and draws the engine's state at t
    model = herding.random_model(6, 2, seed=1)
    w = herding.herd(model.features, model.moments, steps, w0=np.zeros(2), eta=1.0).weights
    t = values[-1]
    point = page.evaluate(MARK, "-cones_plot-2")
    assert (point["w1"][0], point["w2"][0]) == (w[t, 0], w[t, 1])
    trail = page.evaluate(MARK, "-tipi_plot-0")
    assert trail["w1"] == list(w[t - 8:t + 1, 0]) and trail["w2"] == list(w[t - 8:t + 1, 1])
    handle = page.locator(".ldx-timeline-player input[type=range]").evaluate("el => el.value")
    assert int(handle) == t
    _only_the_time_was_sent(page, sent[start:], models, t, t0)
    # a knob move sends the new run's frames once: the marks show its state at the same t
    box = page.locator("input[type=text]").first  # the model seed
    box.fill("7")
    box.press("Enter")
    model = herding.random_model(6, 2, seed=7)
    w = herding.herd(model.features, model.moments, steps, w0=np.zeros(2), eta=1.0).weights
    at = MARK.replace("suffix =>", "([suffix, x]) =>").replace(
        "return out;", "return out.w1[0] === x;").replace("return null;", "return false;")
    for mark in ("-cones_plot-2", "-tipi_plot-2"):  # the panels may arrive one by one
        page.wait_for_function(at, arg=[mark, w[t, 0]])
    assert page.evaluate(MARK, "-tipi_plot-2") == {"w1": [w[t, 0]], "w2": [w[t, 1]]}
    assert page.evaluate(MARK, "-cones_plot-0")["w1"] == list(w[t - 8:t + 1, 0])
    page.wait_for_function("() => window.location.search.includes('seed=7')")
    assert f"t={t}" in page.url
    assert page.errors == []


def test_play_reaches_the_end_and_stops_or_loops(server, page):
    _, models = _open(page, f"{server}?page=neuron&stripes=40")
    end = models["end"]
    assert end == 40
    # the step size: a step forward moves that many frames
    page.locator(".ldx-timeline-step select").select_option("10")
    page.wait_for_function("() => __ldxPlayer.step === 10")
    # every button says what it does (Panel draws icons alone: a double arrow is "first")
    first = page.locator(".ldx-timeline-player button.first[title='First frame']")
    first.wait_for()
    titles = page.locator(".ldx-timeline-player button").evaluate_all(
        "bs => bs.map(b => b.getAttribute('aria-label'))")
    assert titles == ["Slower", "First frame", "Step back", "Play backwards", "Pause (space)",
                      "Play (space)", "Step forward", "Last frame", "Faster"], titles
    first.click()
    page.locator(".ldx-timeline-player button.next").click()
    page.wait_for_function("() => window.ldxTimeline && window.ldxTimeline.value === 10")
    page.locator(".ldx-timeline-step select").select_option("1")
    page.wait_for_function("() => __ldxPlayer.step === 1")
    page.locator(".ldx-timeline-player button.first").click()
    page.wait_for_function("() => window.ldxTimeline && window.ldxTimeline.value === 0")
    # at 30 frames a second: the default pace plays any run in about 15 s
    page.evaluate("() => { __ldxPlayer.interval = 33; }")
    start_prints = page.evaluate(PRINTS)
    page.locator(".ldx-timeline-player button.play").click()
    page.wait_for_function("() => __ldxPlayer.direction === 1")
    page.wait_for_function("end => __ldxPlayer.value === end && __ldxPlayer.direction === 0",
                           arg=end, timeout=20_000)
    page.wait_for_timeout(300)  # stopped: it stays at the end
    state = page.evaluate("() => [__ldxPlayer.value, __ldxPlayer.direction, "
                          "window.ldxTimeline.value]")
    assert state == [end, 0, end]
    assert page.evaluate(PRINTS) != start_prints
    # the handle and the picture agree: the ringed weight is w_t at the handle's t
    run = neuron.herd_neuron(neuron.GOLDEN_MEAN, 2000, w0=2 * neuron.GOLDEN_MEAN - 1)
    point = page.evaluate(MARK, "-weights_plot-1")
    handle = int(page.locator(".ldx-timeline-player input[type=range]").evaluate("e => e.value"))
    assert handle == end and point["t"] == [end] and point["w"] == [run.weights[end]]
    # play at the end starts again from 0; with loop on it wraps around instead of stopping
    page.locator(".ldx-timeline-player input.loop").check()
    page.locator(".ldx-timeline-player button.play").click()
    page.wait_for_function("() => __ldxPlayer.direction === 1 && __ldxPlayer.value > 5")
    page.wait_for_function("end => __ldxPlayer.value > end - 5", arg=end, timeout=20_000)
    page.wait_for_function("() => __ldxPlayer.value < 5 && __ldxPlayer.direction === 1",
                           timeout=20_000)
    page.locator(".ldx-timeline-player button.pause").click()
    page.wait_for_function("() => __ldxPlayer.direction === 0")
    # the keyboard: the arrows step (by the step size), space plays and pauses; not while a
    # control has the key
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    # the pause lands anywhere in 0..4 after the wrap: two steps back stop at the start
    at = max(0, page.evaluate("() => __ldxPlayer.value") - 2)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("at => window.ldxTimeline.value === at", arg=at)
    page.keyboard.press("ArrowRight")
    page.wait_for_function("at => window.ldxTimeline.value === at + 1", arg=at)
    page.keyboard.press(" ")
    page.wait_for_function("() => __ldxPlayer.direction === 1")
    page.keyboard.press(" ")
    page.wait_for_function("() => __ldxPlayer.direction === 0")
    assert page.errors == []

