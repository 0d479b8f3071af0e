"""Sweeps: a pure function mapped over a parameter grid, on any ``concurrent.futures``-style
executor (a ``ProcessPoolExecutor``, a ``dask.distributed.Client`` local or remote, or none: in
this process). No GUI imports.

This is the one way the engines and the paper gallery run many tasks: the HBM bias-variance
sweep, the SBEED ablation, the PMD repeats, the Doeblin studies and the gallery's entries all go
through ``sweep``, so any of them runs on any executor the same way.

Results are identical, bit for bit, whichever way the tasks ran: each task's seed is derived
from the sweep's seed and the task's own parameters (``task_seed``), never from the worker or
the order in which tasks finish, and the results come back in the grid's order.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import time
from typing import Any, Callable, Iterable, Mapping

import numpy as np

from .checks import check_array, check_executor, check_flag, check_progress, describe, report

__all__ = ["grid", "task_seed", "sweep"]


def grid(**axes: Iterable) -> list[dict]:
    """The Cartesian product of the axes, as a list of parameter dicts (last axis fastest):
    ``grid(eta=[0.1, 1], k=[1, 10])`` -> 4 dicts."""
    names = list(axes)
    for name, v in axes.items():
        if isinstance(v, (str, bytes)) or not isinstance(v, Iterable):
            raise TypeError(f"axis {name!r} of the grid must be a list of values, "
                            f"got {describe(v)}")
    values = [list(v) for v in axes.values()]
    for name, vals in zip(names, values):
        if not vals:
            raise ValueError(f"axis {name!r} of the grid is empty")
    return [dict(zip(names, combo)) for combo in itertools.product(*values)]


def _canonical(params: Mapping) -> str:
    def plain(v):
        if isinstance(v, np.generic):
            return v.item()
        if isinstance(v, (list, tuple)):
            return [plain(x) for x in v]
        return v
    return json.dumps({k: plain(v) for k, v in sorted(params.items())}, sort_keys=True,
                      default=repr)


def task_seed(seed: int, params: Mapping) -> int:
    """A task's seed: a hash of the sweep's seed and the task's parameters (the same task gets
    the same seed in every sweep that contains it, on any worker)."""
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be an integer >= 0, got {describe(seed)}")
    if not isinstance(params, Mapping):
        raise TypeError(f"params must be a mapping of parameter names to values, "
                        f"got {describe(params)}")
    digest = hashlib.sha256(f"{int(seed)}|{_canonical(params)}".encode()).digest()
    return int.from_bytes(digest[:8], "little") % (2**63)


def _call(fn: Callable, params: dict, seed: int | None):
    return fn(**params) if seed is None else fn(**params, seed=seed)


def _completed(futures: list):
    """The futures as they finish: dask's ``as_completed`` for dask futures, the standard
    library's for ``concurrent.futures`` ones, else polling ``done()``."""
    if not futures:
        return iter(())
    module = type(futures[0]).__module__
    if module.startswith("distributed"):
        from distributed import as_completed
        return as_completed(futures)
    if module.startswith("concurrent.futures"):
        from concurrent.futures import as_completed
        return as_completed(futures)

    def poll():
        pending = list(futures)
        while pending:
            done = [f for f in pending if f.done()]
            for f in done:
                pending.remove(f)
                yield f
            if pending and not done:
                time.sleep(0.02)
    return poll()


def _label(params: Mapping) -> str:
    """The task's scalar parameters, for progress messages (arrays and models left out)."""
    return ", ".join(f"{k} {v:g}" if isinstance(v, float) else f"{k} {v}"
                     for k, v in params.items()
                     if isinstance(v, (bool, int, float, str, np.integer, np.floating)))


def sweep(fn: Callable[..., Any], tasks: Iterable[Mapping], *, seed: int | None = None,
          executor=None, progress=None, done: Callable[[int, Any], Any] | None = None,
          weights=None, task_progress: bool = False) -> list:
    """``[fn(**params) for params in tasks]``, each task on ``executor`` (anything with
    ``submit(fn, *args)`` returning futures with ``result()``: a ``concurrent.futures``
    executor or a ``dask.distributed.Client``), or in this process when it is None.

    With ``seed`` each call also gets ``seed=task_seed(seed, params)``. ``fn`` must be pure
    (its result a function of its arguments) and picklable for process and Dask executors.
    ``progress(fraction, message)`` is called as tasks finish, each task counting for its share
    of ``weights`` (one number >= 0 per task, say its expected cost; default equal). With
    ``task_progress`` and no executor, each call also gets ``progress=``, a callable(fraction,
    message) that reports within the task's share, so that a long task reports, and a caller's
    cancel (``Cancelled`` raised from ``progress``) stops it, as it goes; tasks on an executor
    get none. ``done(index, result)`` is called in this process with each task's result as soon
    as it is there (to keep it: a sweep stopped later has not lost it); what it returns, when
    not None, goes to ``progress`` as the report's ``partial`` (the result so far). A task's
    exception is raised here (the other tasks are cancelled)."""
    if not callable(fn):
        raise TypeError(f"fn must be callable, got {describe(fn)}")
    if isinstance(tasks, (str, bytes, Mapping)) or not isinstance(tasks, Iterable):
        raise TypeError(f"tasks must be an iterable of parameter mappings, got {describe(tasks)}")
    tasks = list(tasks)
    bad = [t for t in tasks if not isinstance(t, Mapping)]
    if bad:
        raise TypeError(f"tasks must hold parameter mappings (dicts), got {describe(bad[0])}")
    tasks = [dict(t) for t in tasks]
    progress = check_progress(progress)
    if done is not None and not callable(done):
        raise TypeError(f"done must be a callable(index, result) or None, got {describe(done)}")
    executor = check_executor(executor)
    task_progress = check_flag("task_progress", task_progress)
    if weights is None:
        weights = np.ones(len(tasks))
    else:
        weights = check_array("weights", weights, shape=(len(tasks),), max_abs=1e100)
        if np.any(weights < 0) or (len(tasks) and weights.sum() <= 0):
            raise ValueError(f"weights must be one number >= 0 per task, not all 0, "
                             f"got {describe(weights)}")
    share = weights / weights.sum() if len(tasks) else weights
    before = np.concatenate([[0.0], np.cumsum(share)])
    before[-1] = 1.0  # exactly, whatever the rounding of the sum
    seeds = [None if seed is None else task_seed(seed, t) for t in tasks]

    def finished(i: int, n: int, result) -> None:
        """Task ``i`` is the ``n``-th to finish (in this process: the first ``n`` tasks)."""
        partial = done(i, result) if done is not None else None
        fraction = before[n] if executor is None or n == len(tasks) else share[order[:n]].sum()
        report(progress, min(float(fraction), 1.0), f"task {n} of {len(tasks)}", partial=partial)

    if executor is None:
        order = list(range(len(tasks)))
        results = []
        for i, (params, s) in enumerate(zip(tasks, seeds)):
            if task_progress and progress is not None:
                def inner(fraction, message, *, i=i, label=_label(params), **_):
                    report(progress, float(before[i] + share[i] * min(max(fraction, 0.0), 1.0)),
                           f"task {i + 1} of {len(tasks)} ({label}): {message}")
                params = dict(params, progress=inner)
            results.append(_call(fn, params, s))
            finished(i, i + 1, results[-1])
        return results
    futures = [executor.submit(_call, fn, params, s) for params, s in zip(tasks, seeds)]
    try:
        index: dict = {}  # equal tasks may share one dask future: one index per occurrence
        for i, future in enumerate(futures):
            index.setdefault(future, []).append(i)
        order = []
        for n, future in enumerate(_completed(futures), start=1):
            result = future.result()  # a failed task raises here, at once
            order.append(index[future].pop(0))
            finished(order[-1], n, result)
        return [future.result() for future in futures]
    except BaseException:
        for future in futures:
            future.cancel()
        raise
