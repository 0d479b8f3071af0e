"""Sweeps on Dask (issue 17): the speed-up of the same sweep on a local cluster of 1 and of 2
worker processes, against the serial run, timed in the same run. The tasks are doubly stochastic
gradient runs (Numba, pure: each draws its data and features from its task seed), about half a
second each."""

from __future__ import annotations

import time

import numpy as np
import pytest

from dynamics import dsg
from dynamics.sweep import grid, sweep

pytestmark = pytest.mark.bench


def dsg_task(points: int, rep: int, seed: int) -> float:
    X, y = dsg.synthetic_2d(points, seed=seed % 2**31)
    model = dsg.doubly_sgd(X, y, bandwidth=0.5, nu=0.01, steps=600, batch_size=16,
                           block_size=16, theta=100.0, t0=100.0, seed=seed % 2**31,
                           keep_values=False)
    return float(np.abs(model.stored).sum())


def test_sweep_speed_up_on_one_and_two_workers():
    distributed = pytest.importorskip("distributed")
    tasks = grid(points=[300, 400], rep=[0, 1, 2, 3])
    sweep(dsg_task, tasks[:1], seed=0)  # compile in this process
    start = time.perf_counter()
    serial = sweep(dsg_task, tasks, seed=0)
    serial_s = time.perf_counter() - start
    times = {}
    for workers in (1, 2):
        with distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                      dashboard_address=None) as cluster, \
                distributed.Client(cluster) as client:
            client.run(lambda: sweep(dsg_task, tasks[:1], seed=0))  # compile on every worker
            start = time.perf_counter()
            result = sweep(dsg_task, tasks, seed=0, executor=client)
            times[workers] = time.perf_counter() - start
        assert result == serial
    print(f"\nsweep of {len(tasks)} DSG runs: serial {serial_s:.2f} s, Dask 1 worker "
          f"{times[1]:.2f} s, 2 workers {times[2]:.2f} s (speed-up {times[1] / times[2]:.2f}x "
          f"from 1 to 2 workers)")
