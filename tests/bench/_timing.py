"""Timing helpers for the benchmarks: best-of-n wall-clock seconds of a call."""

from __future__ import annotations

import time


def best_time(fn, *, repeats: int = 5, min_seconds: float = 0.0) -> float:
    """Best wall-clock time in seconds of ``fn()`` over ``repeats`` calls.

    The best (not the mean) is the least disturbed by other processes on a shared machine; both
    sides of every ratio are measured with it in the same run.
    """
    best = float("inf")
    spent = 0.0
    n = 0
    while n < repeats or spent < min_seconds:
        start = time.perf_counter()
        fn()
        elapsed = time.perf_counter() - start
        best = min(best, elapsed)
        spent += elapsed
        n += 1
    return best
