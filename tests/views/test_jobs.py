"""Long runs as jobs (views/framework/jobs.py), on the Doeblin page's word task and DNF search: progress
reaches 100 %, partial curves stream and equal the final curves' prefix, Cancel stops the engine
within a second, a newer request supersedes an older one, a failure shows an alert and keeps the
previous result, and the page's event loop keeps running throughout."""

from __future__ import annotations

import asyncio
import concurrent.futures
import time

import numpy as np
import pytest
from bokeh.document import Document

from views.framework import jobs as _jobs
from views.framework.job_section import JobSection
from views.framework.page import Page
from views.pages.doeblin import DoeblinExplorer
from views.pages.doeblin.experiments import DnfRun


@pytest.fixture(autouse=True)
def _fresh_cache():
    """The results cache is shared across sessions: stand-in results must not leak out."""
    saved = dict(_jobs._CACHE)
    _jobs._CACHE.clear()
    yield
    _jobs._CACHE.clear()
    _jobs._CACHE.update(saved)


def _in_loop(coroutine_function):
    """Run a coroutine in a fresh event loop in a thread of its own (the browser tests'
    Playwright loop may be running in this thread when the whole suite runs together)."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine_function()).result()


def test_a_run_streams_partial_curves_that_are_the_final_curves_prefix(monkeypatch):
    # every partial result the loop sees is drawn (the page draws at most one a second, which
    # on a fast machine leaves this short run one partial: the property is about each of them)
    monkeypatch.setattr(_jobs, "PARTIAL_EVERY", 0.0)
    e = DoeblinExplorer(**{"word.transitions": 6, "word.epochs": 3, "word.seeds": 2})
    job = e.jobs["word"]
    section = JobSection(Page(e), job)
    section.__panel__().get_root(Document())
    shown, fractions = [], []
    job.param.watch(lambda ev: shown.append(ev.new), "shown")
    job.param.watch(lambda ev: fractions.append(ev.new), "fraction")

    async def run():
        ticks = 0
        task = asyncio.ensure_future(section._on_click())
        while not task.done():  # the loop keeps running while the job trains
            ticks += 1
            await asyncio.sleep(0.01)
        await task
        return ticks

    assert _in_loop(run) > 10
    final = job.result
    assert final is not None and job.fraction == 1.0 and fractions[-1] == 1.0
    assert not job.running and job.error == ""
    partials = [s for s in shown if s is not final]
    assert len(partials) >= 2  # the curves grew on the page
    for partial in partials:
        done = np.isfinite(partial.word_accuracy)
        assert done.any()
        assert np.array_equal(partial.word_accuracy[done], final.word_accuracy[done])
    assert len(section.results.objects) >= 2  # panels and the summary line
    # the summary line judges the run through the claim: two seeds are too few for a verdict
    summary = section.results.objects[-1].object
    assert "Not decided" in summary and "at least 3" in summary, summary


def test_cancel_stops_the_engine_at_its_next_report_and_keeps_the_last_result(monkeypatch):
    """A cancel stops the engine at its next progress report (the word task reports about
    every third of a second at these settings on an idle two-core machine: a cancel is felt
    within a second). Counted in reports, not asserted in seconds: on a busy machine the same
    cancel takes longer, which is the machine, not the job."""
    # a couple of minutes if let run
    e = DoeblinExplorer(**{"word.transitions": 40, "word.epochs": 40, "word.seeds": 4})
    job = e.jobs["word"]
    reports = {"after": 0}
    made = job._progress_callable

    def counting(cancel, latest):
        progress = made(cancel, latest)

        def report(fraction, message, partial=None):
            if cancel.is_set():
                reports["after"] += 1
            return progress(fraction, message, partial)
        return report

    monkeypatch.setattr(job, "_progress_callable", counting)

    async def run():
        task = asyncio.ensure_future(job.start())
        while job.fraction == 0.0:
            await asyncio.sleep(0.02)
        cancelled = time.monotonic()
        job.cancel()
        await task
        return time.monotonic() - cancelled

    seconds = _in_loop(run)
    assert reports["after"] == 1, reports  # the next report raised; nothing ran after it
    assert seconds < 10, seconds  # not a hang
    assert not job.running and job.result is None and "Cancelled" in job.message


def test_a_newer_request_supersedes_an_older_one(monkeypatch):
    """The older run cannot be cancelled (this stand-in never reports progress) and finishes
    last: its result must not replace the newer one."""
    def slow_search(self, settings, progress=None):
        time.sleep(1.5 if settings["trials"] == 5 else 0.3)
        return f"result of {settings['trials']} trials"

    monkeypatch.setattr(DnfRun, "compute", slow_search)
    e = DoeblinExplorer(**{"dnf.trials": 5})
    job = e.jobs["dnf"]

    async def run():
        older = asyncio.ensure_future(job.start())
        await asyncio.sleep(0.1)
        job.run.trials = 6
        await job.start()
        assert job.result == "result of 6 trials"
        await older
        await asyncio.sleep(0.05)

    _in_loop(run)
    assert job.result == "result of 6 trials" and job.settings == {"trials": 6}
    assert job.shown == job.result and not job.running


def test_a_failing_run_shows_an_alert_and_keeps_the_previous_result(monkeypatch):
    e = DoeblinExplorer(**{"dnf.trials": 5})
    job = e.jobs["dnf"]
    good = job.compute()

    def broken(self, settings, progress=None):
        raise ValueError("trials must be odd, got 6 (a test failure)")

    monkeypatch.setattr(DnfRun, "compute", broken)
    job.run.trials = 6
    section = JobSection(Page(e), job)
    section.__panel__().get_root(Document())
    _in_loop(job.start)
    assert "a test failure" in job.error and job.result is good and job.shown is good
    assert section.alert.visible and "a test failure" in section.alert.object
    assert not job.running and len(section.results.objects) >= 2  # the last result stays


def test_a_run_timeline_plays_the_shown_result():
    """``Run.timeline`` (the SBEED page's Pendulum episode): its control sits above the run's
    panels once there is a result, its frames are the shown result's (the rollout of seed 0),
    the marks at the run's time are the engine's state then, in the page and in exports; the
    time is not a setting of the run nor a knob of the page."""
    import holoviews as hv

    from views.framework.player import _LocalPlayer
    from views.pages.sbeed import SBEEDExplorer

    e = SBEEDExplorer(**{"pendulum.steps": 2000, "pendulum.seeds": 1, "pendulum.k": 1})
    job = e.jobs["pendulum"]
    section = JobSection(Page(e), job)
    section.__panel__().get_root(Document())
    assert e.frames("pendulum") is None and section._display == []
    _in_loop(job.start)
    section._shown()
    players = [w for c in section._display for w in c.select(_LocalPlayer)]
    rollout = job.shown.runs[0].rollout
    assert len(players) == 1 and players[0].end == len(rollout) - 1
    assert list(e.frames("pendulum").t) == list(range(len(rollout)))
    e.set_time("pendulum", 37)
    plot = next(p for p in job.run.plots if p.method == "pendulum_frame")
    bob = [el for el in e.drawing.panel_element(plot) if isinstance(el, hv.Points)][-1]
    assert (bob.dimension_values(0)[0], bob.dimension_values(1)[0]) == (
        np.sin(rollout[37, 0]), np.cos(rollout[37, 0]))
    lines = e.figure(only=("rollout_plot",)).traverse(lambda x: x, [hv.VLine])
    assert [float(line.data) for line in lines] == [pytest.approx(37 * 0.05)]
    assert "t" not in job.current_settings() and e.t is None and "t" not in e.query()


def test_a_setting_move_updates_the_run_placeholder_in_place():
    """Before a run is run, its place says how to start it and how long it takes; a move of
    one of its settings updates that text in the same pane. A new pane per move made the
    browser lay the whole page out again for every move: a burst of 15 γ presses on the SBEED
    page (whose runs use γ) settled 9-11 s after the last press, 1.3 s with the pane kept."""
    from views.pages.sbeed import SBEEDExplorer

    explorer = SBEEDExplorer()
    job = next(job for job in explorer.jobs.values()
               if "gamma" in job.run.settings())
    section = JobSection(Page(explorer), job)
    section.__panel__().get_root(Document())
    pane = section.results.objects[0]
    before = pane.object
    assert job.run.button in before
    for gamma in (0.85, 0.8, 0.75):
        explorer.gamma = gamma
        assert list(section.results.objects) == [pane]  # the same pane, not a new one
    assert pane.object == section.placeholder_text()
