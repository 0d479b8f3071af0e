"""The times a run announces, against the times it really takes, for every run of every page at
its default settings, computed as the page computes it (a job) with its messages recorded as
they are shown.

Two estimates (issue 25, item 3: both within 2x of the truth):

- **before the run**: the seconds the run's placeholder announces (``measured_estimate``; on a
  fresh server, the page's own estimate scaled by this machine's measured speed);
- **while it runs**: the "about N s left" of the progress line, from 10 % of the run's time on.

Run: ``pytest -m bench tests/bench/test_bench_estimates.py -s`` (about 10 minutes here);
``LDX_ESTIMATE_RUNS=sbeed/ksweep,pmd/fig41`` measures some runs only.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import re
import time

import pytest

import views
from views.framework import jobs as _jobs

pytestmark = pytest.mark.bench

#: Seconds of slack: the estimate is shown in whole seconds and smoothed.
SLACK = 2.0
#: From which share of the run's time the time left is judged.
FROM = 0.1

RUNS = [(slug, run.name) for slug, cls in views.EXPLORERS.items()
        for run in getattr(cls, "runs", ())]
_only = os.environ.get("LDX_ESTIMATE_RUNS")
if _only:
    RUNS = [r for r in RUNS if "/".join(r) in _only.split(",")]


def _measure(slug: str, name: str):
    explorer = views.EXPLORERS[slug]()
    job = explorer.jobs[name]
    before, _ = _jobs.measured_estimate(explorer, job.run, job.current_settings())
    said = []
    job.param.watch(lambda event: said.append((time.monotonic(), event.new)), "message")
    started = time.monotonic()

    async def run():
        await job.start()
        return time.monotonic()

    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        end = pool.submit(asyncio.run, run()).result()
    assert job.result is not None, job.error
    total = end - started
    rows = []
    for when, text in said:
        m = re.search(r"about (\d+) (s|min) left", text)
        if m and (when - started) >= FROM * total:
            left = float(m.group(1)) * (60 if m.group(2) == "min" else 1)
            rows.append(((when - started) / total, left, end - when))
    return before, total, rows


@pytest.mark.parametrize("slug,name", RUNS, ids=["/".join(r) for r in RUNS])
def test_the_announced_times_are_within_2x_of_the_real_ones(slug, name, monkeypatch):
    monkeypatch.setattr(_jobs, "_CACHE", {})
    monkeypatch.setattr(_jobs, "_RATIOS", {})
    before, total, rows = _measure(slug, name)
    ahead = (before + SLACK) / (total + SLACK)
    ratios = [(left + SLACK) / (true + SLACK) for _, left, true in rows]
    print(f"\n{slug}/{name}: announced {before:.1f} s, took {total:.1f} s (ratio {ahead:.2f}); "
          + (f"{len(rows)} times left from {100 * FROM:.0f} % on, shown / true "
             f"{min(ratios):.2f} to {max(ratios):.2f}" if rows else "no time left shown"))
    for share, left, true in rows[:: max(1, len(rows) // 8)]:
        print(f"  at {100 * share:3.0f} % of the run: shown {left:5.0f} s, truly left {true:5.1f} s")
    assert 0.5 <= ahead <= 2.0, f"announced {before:.1f} s, took {total:.1f} s"
    assert all(0.5 <= r <= 2.0 for r in ratios)
