"""Every run of every page computes in a worker process, as in the served app: at its ``quick``
settings each run's settings and knobs go to the child, its progress and partial results come
back through the pipe (so they pickle), and its final result arrives and is drawn by the page's
run panels. A new page's runs are covered once it is registered in ``views.EXPLORERS``."""

from __future__ import annotations

import asyncio
import concurrent.futures
import time

import pytest
from bokeh.document import Document

from views import EXPLORERS
from views.framework import worker as _worker
from views.framework.job_section import JobSection
from views.framework.page import Page

from ._legends import assert_models_valid_and_legends_outside

RUNS = [(slug, run.key) for slug, cls in EXPLORERS.items() for run in cls.runs]


pytestmark = pytest.mark.usefixtures("worker_processes")


def test_every_run_declares_quick_settings():
    missing = [f"{slug}.{name}" for slug, name in RUNS
               if not next(r for r in EXPLORERS[slug].runs if r.key == name).quick]
    assert missing == []


@pytest.mark.parametrize("slug, name", RUNS)
def test_a_run_computes_in_a_worker_process_and_its_panels_draw(slug, name):
    cls = EXPLORERS[slug]
    run = next(r for r in cls.runs if r.key == name)
    explorer = cls(**run.quick_knobs())
    job = explorer.jobs[name]
    fractions, messages = [], []
    job.param.watch(lambda event: fractions.append(event.new), "fraction")
    job.param.watch(lambda event: messages.append(event.new), "message")
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, job.start()).result()
    seconds = time.monotonic() - started
    assert job.error == "", job.error
    assert job.result is not None and job.shown is job.result
    assert job.fraction == 1.0 and "Done" in job.message
    assert all(0.0 <= f <= 1.0 for f in fractions)
    # every partial result the engine streamed pickled and came back
    assert not [m for m in messages if _worker.UNSENT in m]
    # the run's panels draw the result that came back (and its summary and extra text)
    section = JobSection(Page(explorer), job)
    # and their legends sit under the plots, the models valid (issue 27)
    assert_models_valid_and_legends_outside([section.__panel__().get_root(Document())])
    figure = explorer.figure(only=tuple(p.method for p in run.plots))
    assert len(figure) == len(run.plots)
    print(f"{slug}.{name}: {seconds:.1f} s in a worker")
