"""Sweeps on any executor (dynamics/sweep.py): the same results, bit for bit, in this process,
in a process pool and on a two-worker dask.distributed LocalCluster."""

from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest

from dynamics import sweep
from dynamics.sweep import grid, task_seed


def noisy_mean(eta: float, k: int, seed: int) -> np.ndarray:
    """A pure task drawing random numbers from its own seed (module level: picklable)."""
    rng = np.random.default_rng(seed)
    return eta * rng.standard_normal(k).cumsum()


def square(x: int) -> int:
    return x * x


def failing(x: int) -> int:
    if x == 2:
        raise RuntimeError("task 2 failed")
    return x


def test_grid_and_task_seeds():
    tasks = grid(eta=[0.1, 1.0], k=[1, 10, 100])
    assert len(tasks) == 6 and tasks[1] == {"eta": 0.1, "k": 10}
    # a task's seed depends on the sweep's seed and the task, not on its place in the grid
    assert task_seed(0, {"eta": 1.0, "k": 10}) == task_seed(0, {"k": 10, "eta": 1.0})
    assert task_seed(0, tasks[0]) != task_seed(1, tasks[0]) != task_seed(0, tasks[1])
    assert task_seed(0, {"k": np.int64(10)}) == task_seed(0, {"k": 10})
    with pytest.raises(ValueError, match="empty"):
        grid(eta=[])
    with pytest.raises(ValueError, match="seed"):
        task_seed(-1, {})


def test_serial_process_pool_and_dask_give_identical_arrays():
    distributed = pytest.importorskip("distributed")
    tasks = grid(eta=[0.5, 2.0], k=[3, 50, 200])
    serial = sweep.sweep(noisy_mean, tasks, seed=7)
    reordered = sweep.sweep(noisy_mean, tasks[::-1], seed=7)[::-1]
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        pooled = sweep.sweep(noisy_mean, tasks, seed=7, executor=pool)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        seen = []
        dasked = sweep.sweep(noisy_mean, tasks, seed=7, executor=client,
                             progress=lambda f, m: seen.append(f))
    for a, b, c, d in zip(serial, reordered, pooled, dasked):
        assert a.tobytes() == b.tobytes() == c.tobytes() == d.tobytes()
    assert seen[-1] == 1.0 and len(seen) == len(tasks)


def test_a_failing_task_raises_here():
    with pytest.raises(RuntimeError, match="task 2"):
        sweep.sweep(failing, grid(x=[1, 2, 3]))
    with pytest.raises(TypeError, match="executor must be None or have a submit method"):
        sweep.sweep(failing, grid(x=[1]), executor=object())


def test_each_result_is_handed_over_as_its_task_finishes():
    """``done(index, result)`` hears every task once, with its own result, before the sweep
    returns; tasks finished before a failing one have been handed over (a caller keeps them)."""
    from concurrent.futures import ThreadPoolExecutor

    tasks = grid(x=[3, 1, 2, 1])              # two equal tasks: each index heard once
    for executor in (None, ThreadPoolExecutor(2)):
        heard = {}
        out = sweep.sweep(square, tasks, executor=executor,
                          done=lambda i, r: heard.setdefault(i, r))
        assert out == [9, 1, 4, 1] and heard == dict(enumerate(out))
    heard = {}
    with pytest.raises(RuntimeError, match="task 2"):
        sweep.sweep(failing, grid(x=[1, 2, 3]), done=lambda i, r: heard.setdefault(i, r))
    assert heard == {0: 1}
    with pytest.raises(TypeError, match="done"):
        sweep.sweep(square, tasks, done="print")


def test_arguments_are_type_checked_by_name():
    with pytest.raises(TypeError, match="fn"):
        sweep.sweep(3, [{}])
    with pytest.raises(TypeError, match="tasks"):
        sweep.sweep(abs, "x")
    with pytest.raises(TypeError, match="params"):
        task_seed(0, None)


def counting(n: int, progress=None) -> int:
    """A task that reports its own progress (n steps)."""
    for k in range(n):
        if progress is not None:
            progress((k + 1) / n, f"step {k + 1}")
    return n


def test_weights_task_progress_and_partial_results():
    """Each task counts for its weight in the fraction; in this process a task that takes
    ``progress`` reports within its share, as it goes; what ``done`` returns is the report's
    ``partial``. On an executor tasks get no progress of their own."""
    from concurrent.futures import ThreadPoolExecutor

    heard = []
    out = sweep.sweep(counting, [{"n": 2}, {"n": 4}], weights=[1, 3], task_progress=True,
                      done=lambda i, r: f"{i} done",
                      progress=lambda f, m, partial=None: heard.append((f, m, partial)))
    assert out == [2, 4]
    assert [f for f, _, _ in heard] == pytest.approx(
        [0.125, 0.25, 0.25, 0.25 + 0.1875, 0.625, 0.8125, 1.0, 1.0])
    assert heard[0][1] == "task 1 of 2 (n 2): step 1" and heard[2] == (0.25, "task 1 of 2",
                                                                        "0 done")
    assert heard[-1][2] == "1 done"
    heard.clear()
    with ThreadPoolExecutor(2) as pool:
        assert sweep.sweep(counting, [{"n": 2}, {"n": 4}], weights=[1, 3], task_progress=True,
                           executor=pool, progress=lambda f, m: heard.append(f)) == [2, 4]
    assert sorted(heard) in ([0.25, 1.0], [0.75, 1.0])  # finished tasks only, by weight
    with pytest.raises(ValueError, match="weights"):
        sweep.sweep(counting, [{"n": 1}], weights=[-1.0])
    with pytest.raises(ValueError, match="weights"):
        sweep.sweep(counting, [{"n": 1}], weights=[1.0, 2.0])
    with pytest.raises(TypeError, match="task_progress"):
        sweep.sweep(counting, [{"n": 1}], task_progress="yes")
