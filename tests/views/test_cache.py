"""The pages' one results cache (views/framework/cache.py): bounded by the bytes its results hold."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from views.framework import cache as _cache
from views.framework.cache import BUDGET, STORE, nbytes, results_cache


@dataclass(frozen=True)
class _Result:
    a: np.ndarray
    b: np.ndarray
    label: str


def test_nbytes_counts_the_arrays_of_a_result_once():
    a = np.ones(100_000)  # 800 kB
    r = _Result(a, np.ones((300, 10), dtype=np.float32), "x")
    expected = a.nbytes + 300 * 10 * 4
    assert expected <= nbytes(r) < expected + 4096
    assert nbytes((r, r, [r])) < expected + 4096  # the same result counted once
    assert nbytes({"k": a[:10]}) < 4096  # a view is counted by what it shows


def test_the_store_keeps_at_most_its_budget_and_drops_the_least_recently_used():
    calls = []
    size = BUDGET // 5 + 1  # bytes of one result: five do not fit

    @results_cache
    def make(seed: int) -> np.ndarray:
        calls.append(seed)
        return np.full(size // 8, float(seed))

    saved = dict(STORE)
    STORE.clear()
    try:
        for seed in range(6):
            assert make(seed)[0] == seed
        assert STORE.currsize <= BUDGET
        assert sum(nbytes(v) for v in STORE.values()) <= BUDGET
        assert len(STORE) == 4  # 4 x (BUDGET/5) fits, 5 do not
        make(5)  # the most recent is kept: no new call
        assert calls == list(range(6))
        make(0)  # the oldest went first: computed again
        assert calls[-1] == 0
        huge = results_cache(lambda: np.zeros(BUDGET // 8 + 1024))
        huge()
        assert all(nbytes(v) < BUDGET for v in STORE.values())  # too large to keep
    finally:
        STORE.clear()
        for key, value in saved.items():
            STORE[key] = value


def test_the_budget_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("LDX_CACHE_MB", "12.5")
    assert _cache._budget() == int(12.5 * 2**20)
    for bad in ("0", "-3", "lots", "nan"):
        monkeypatch.setenv("LDX_CACHE_MB", bad)
        try:
            _cache._budget()
        except ValueError as exc:
            assert "LDX_CACHE_MB" in str(exc)
        else:
            raise AssertionError(f"LDX_CACHE_MB={bad} accepted")
