"""Runs in worker processes (views/framework/worker.py, what the served app uses): the same result as in
the server's own process, partial results streamed back, Cancel kills the child at once, a
failure comes back as the page's alert, and the server's interpreter stays free meanwhile."""

from __future__ import annotations

import asyncio
import concurrent.futures
import threading
import time

import numpy as np
import pytest

from views.framework import worker as _worker
from views.pages.doeblin import DoeblinExplorer


pytestmark = pytest.mark.usefixtures("worker_processes")


def _in_loop(coroutine_function):
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine_function()).result()


def test_a_run_in_a_worker_process_streams_partials_and_equals_the_in_process_result():
    e = DoeblinExplorer(**{"word.transitions": 6, "word.epochs": 3, "word.seeds": 2})
    job = e.jobs["word"]
    shown = []
    job.param.watch(lambda ev: shown.append(ev.new), "shown")

    async def run():
        ticks = 0
        task = asyncio.ensure_future(job.start())
        while not task.done():  # this loop (and interpreter) stays free meanwhile
            ticks += 1
            await asyncio.sleep(0.01)
        await task
        return ticks

    assert _in_loop(run) > 20
    assert job.error == "" and job.fraction == 1.0
    final = job.result
    here = job.run.compute(job.current_settings(), None)  # computed in this process
    assert np.array_equal(final.word_accuracy, here.word_accuracy, equal_nan=True)
    partials = [s for s in shown if s is not final and s is not None]
    assert partials, "no partial result came back from the worker"
    for partial in partials:
        done = np.isfinite(partial.word_accuracy)
        assert np.array_equal(partial.word_accuracy[done], final.word_accuracy[done])


def test_cancel_kills_the_worker_within_a_second():
    e = DoeblinExplorer(**{"word.transitions": 40, "word.epochs": 40,
                           "word.seeds": 4})  # minutes if let run
    job = e.jobs["word"]

    async def run():
        task = asyncio.ensure_future(job.start())
        while job.fraction == 0.0:
            await asyncio.sleep(0.02)
        cancelled = time.monotonic()
        job.cancel()
        await task
        return time.monotonic() - cancelled

    assert _in_loop(run) < 1.0
    assert not job.running and job.result is None and "Cancelled" in job.message


def test_a_failure_in_the_worker_comes_back_as_its_exception():
    """The engine's refusal, raised in the child, is raised here with its words (the job
    shows it as the page's alert)."""
    e = DoeblinExplorer(**{"word.transitions": 6, "word.epochs": 3, "word.seeds": 2})
    settings = dict(e.jobs["word"].current_settings(), seeds=0)  # no seeds: refused
    with pytest.raises(ValueError) as here:
        e.jobs["word"].run.compute(dict(settings), None)
    with pytest.raises(ValueError) as there:
        _worker.run(DoeblinExplorer, {"word.transitions": 6, "word.epochs": 3, "word.seeds": 2},
                    "word", settings, threading.Event(), {})
    assert str(there.value) == str(here.value)


def test_a_partial_result_that_does_not_pickle_is_said_not_dropped_silently():
    import multiprocessing

    reader, writer = multiprocessing.Pipe(duplex=False)
    _worker._send(writer, ("progress", (0.5, "half way", lambda: None)))
    kind, (fraction, message, partial) = reader.recv()
    assert (kind, fraction, partial) == ("progress", 0.5, None)
    assert message.startswith("half way") and _worker.UNSENT in message


def _computing_child(outcome: dict):
    """A long word-task run computing in a worker process (started in a thread of this one);
    returns the thread and, once computing, the child process."""
    latest: dict = {}

    def go():
        try:
            knobs = {"word.transitions": 40, "word.epochs": 40, "word.seeds": 4}
            _worker.run(DoeblinExplorer, knobs, "word",
                        DoeblinExplorer(**knobs).jobs["word"].current_settings(),
                        threading.Event(), latest)
        except BaseException as exc:  # noqa: BLE001 - what the thread ended with
            outcome["error"] = exc

    thread = threading.Thread(target=go, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    children: list = []
    while not (children and "fraction" in latest) and time.monotonic() < deadline:
        time.sleep(0.02)
        children = [c for c in list(_worker._LIVE) if c.is_alive()]
    assert len(children) == 1, "the run did not start its worker process"
    return thread, children[0]


def test_kill_all_stops_a_computing_worker_at_once():
    """What the server does when it stops (app_hooks.on_server_unloaded): the threads that would
    kill the workers are daemons that die with it, so the workers are killed directly."""
    outcome: dict = {}
    thread, child = _computing_child(outcome)
    killed = time.monotonic()
    assert _worker.kill_all() == 1
    assert not child.is_alive() and time.monotonic() - killed < 2.0
    thread.join(10)
    assert not thread.is_alive() and "error" in outcome  # the run ended without a result


def test_a_worker_dies_with_its_fork_server():
    """A server killed before it could kill its workers leaves no computation behind: the fork
    server ends with the server, and Linux then kills its children (PR_SET_PDEATHSIG)."""
    import os
    import signal

    import psutil
    from multiprocessing import forkserver

    outcome: dict = {}
    thread, child = _computing_child(outcome)
    pid = child.pid
    server_pid = forkserver._forkserver._forkserver_pid
    assert psutil.Process(pid).ppid() == server_pid
    os.kill(server_pid, signal.SIGKILL)
    try:
        gone, alive = psutil.wait_procs([psutil.Process(pid)], timeout=2.0)

        def running(p):  # a zombie has died: only its reaping is left to its new parent
            try:
                return p.status() != psutil.STATUS_ZOMBIE
            except psutil.NoSuchProcess:
                return False

        alive = [p for p in alive if running(p)]
        assert not alive, "the worker outlived its fork server"
        thread.join(10)
        assert not thread.is_alive()
    finally:
        forkserver._forkserver._stop()  # reaped and forgotten: the next run starts a new one
