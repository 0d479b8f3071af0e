"""Run-time estimates measured on this machine (views/framework/jobs.py): the time left from the run's
own progress rate, and the page's estimate corrected by the runs that finished here."""

from __future__ import annotations

import asyncio
import concurrent.futures
import re
import time

import pytest

from views.framework import jobs as _jobs
from views.framework.jobs import Remaining, measured_estimate
from views.pages.doeblin import DoeblinExplorer


def test_remaining_is_exact_at_a_constant_rate_after_a_start_up():
    """A run that spends 5 s setting up, then does its work in 40 s: the start-up is not
    taken for the rate."""
    r = Remaining()
    assert r.update(0.0, 5.0) is None  # the first report: where the rate is measured from
    assert r.update(0.01, 5.4) is None  # too little done to know the rate
    for t in (7.0, 9.0, 15.0, 35.0):
        assert r.update((t - 5.0) / 40.0, t) == pytest.approx(45.0 - t)


def test_remaining_follows_a_run_that_slows_down():
    """Half speed after 10 s of a run that would take 20 s: the estimate moves to the new total
    (30 s) as reports come, and is within 2x of the truth from then on."""
    r = Remaining()
    truth_total = 30.0
    for t in range(0, 30):
        fraction = t / 20.0 if t <= 10 else 0.5 + (t - 10) / 40.0
        left = r.update(fraction, float(t))
        if t >= 14:
            true_left = truth_total - t
            assert true_left / 2 - 0.5 <= left <= 2 * true_left + 0.5, (t, left, true_left)


def test_the_expected_time_leads_early_and_the_runs_own_rate_from_half_of_the_work_on():
    """A sweep whose first part is cheap (10 % of the fraction in 1 s, then the rest at a steady
    rate in 27 s: 28 s in all), its expected time 25 s. The estimate is shown from the first
    report and stays within 2x of the truth throughout, nearer the truth early on than the
    rate alone; from half of the work on it is the rate's alone, so an expected time that was
    far off (a calibration on a busy machine) no longer counts."""
    def fraction_at(t):
        return 0.1 * t if t <= 1 else 0.1 + 0.9 * (t - 1) / 27

    plain, primed, wrong = Remaining(), Remaining(expected=25.0), Remaining(expected=250.0)
    assert primed.update(0.0, 0.0) == pytest.approx(25.0) and plain.update(0.0, 0.0) is None
    wrong.update(0.0, 0.0)
    for step in range(1, 112):
        t = step / 4
        f = fraction_at(t)
        left, truth = primed.update(f, t), 28.0 - t
        assert truth / 2 - 0.5 <= left <= 2 * truth + 0.5, (t, left, truth)
        unprimed, off = plain.update(f, t), wrong.update(f, t)
        if t == 1.5:
            assert abs(left - truth) < abs(unprimed - truth)
        if f >= 0.6:  # the rate's alone, smoothed: within 2x even after a 10x wrong prior
            assert truth / 2 - 0.5 <= off <= 2 * truth + 0.5, (t, off, truth)
    assert Remaining(expected=0.0).update(0.1, 2.0) is None  # no estimate: as before


def test_a_finished_run_corrects_the_pages_estimate(monkeypatch):
    e = DoeblinExplorer(**{"word.transitions": 6, "word.epochs": 3, "word.seeds": 2})
    run = e.jobs["word"].run
    settings = e.jobs["word"].current_settings()
    page = run.estimate(dict(settings))
    monkeypatch.setattr(_jobs, "_RATIOS", {})
    seconds, measured = measured_estimate(e, run, settings)
    assert not measured and seconds == pytest.approx(page * _jobs.machine_speed())
    _jobs._record_ratio(e, run, settings, 3.0 * page)
    seconds, measured = measured_estimate(e, run, settings)
    assert measured and seconds == pytest.approx(3.0 * page)
    _jobs._record_ratio(e, run, settings, 12.0 * page)  # geometric mean of 3 and 12: 6
    assert measured_estimate(e, run, settings)[0] == pytest.approx(6.0 * page)


def test_the_time_left_shown_during_a_real_run_is_within_2x_of_the_truth(monkeypatch):
    saved = dict(_jobs._CACHE)
    _jobs._CACHE.clear()
    e = DoeblinExplorer(**{"word.transitions": 10, "word.epochs": 6, "word.seeds": 2})
    job = e.jobs["word"]
    said = []  # (time, seconds left as shown)
    job.param.watch(lambda ev: said.append((time.monotonic(), ev.new)), "message")

    async def run():
        await job.start()
        return time.monotonic()

    try:
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            end = pool.submit(asyncio.run, run()).result()
    finally:
        _jobs._CACHE.clear()
        _jobs._CACHE.update(saved)
    shown = []
    for when, text in said:
        m = re.search(r"about (\d+) (s|min) left", text)
        if m:
            shown.append((when, float(m.group(1)) * (60 if m.group(2) == "min" else 1)))
    assert job.result is not None
    assert len(shown) >= 3, said[-5:]
    # Over the second half of the run's time the estimates are within 2x of the time that was
    # really left (their median ratio; 2 s of slack, as they are shown in whole seconds and
    # smoothed). A single estimate can be off when other work on the machine changes the run's
    # speed; the whole run, from 10 % on, is checked at the page's default settings by
    # tests/bench/test_bench_estimates.py (a wall-clock check, kept out of the default run).
    start = said[0][0]
    late = [(left, end - when) for when, left in shown if when - start >= 0.5 * (end - start)]
    assert late, shown
    ratios = sorted((left + 2) / (true_left + 2) for left, true_left in late)
    median = ratios[len(ratios) // 2]
    assert 0.5 <= median <= 2.0, late


def test_before_any_run_finished_the_estimate_scales_with_the_machines_measured_speed(monkeypatch):
    """A machine that takes 3x the development machine's time for the calibration work gets 3x
    the page's estimate; a disturbed calibration is bounded."""
    e = DoeblinExplorer(**{"word.transitions": 6, "word.epochs": 3, "word.seeds": 2})
    run, settings = e.jobs["word"].run, e.jobs["word"].current_settings()
    page = run.estimate(dict(settings))
    monkeypatch.setattr(_jobs, "_RATIOS", {})
    try:
        for taken, speed in [(3.0, 3.0), (0.5, 0.5), (100.0, _jobs.SPEED_BOUNDS[1]),
                             (0.01, _jobs.SPEED_BOUNDS[0])]:
            monkeypatch.setattr(_jobs, "_timed", lambda f, t=taken: t * _jobs.CALIBRATION_SECONDS)
            monkeypatch.setattr(_jobs, "_speed", [])
            assert _jobs.machine_speed() == pytest.approx(speed)
            assert measured_estimate(e, run, settings) == (pytest.approx(page * speed), False)
    finally:
        monkeypatch.setattr(_jobs, "_speed", [])


def test_the_calibration_is_timed_again_only_when_it_is_old(monkeypatch):
    calls = []
    monkeypatch.setattr(_jobs, "_calibration_work", lambda: calls.append(1))
    monkeypatch.setattr(_jobs, "_speed", [])
    clock = [1000.0]
    monkeypatch.setattr(_jobs.time, "monotonic", lambda: clock[0])
    _jobs.machine_speed()
    clock[0] += _jobs.CALIBRATION_EVERY - 1
    _jobs.machine_speed()
    assert len(calls) == 3  # best of three, once
    clock[0] += 2
    _jobs.machine_speed()
    assert len(calls) == 6
