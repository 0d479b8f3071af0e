"""Table 1 of Steinhardt & Liang (Sec 5): the DNF formula search by 0-, 1- and 2-stage chains
(Sec 3.1, Fig 2(b)) repeated over random problems of each difficulty level, with the steps each
method needs to reach zero errors. Part of ``dynamics.doeblin``; the problems and one search are
in ``dynamics.doeblin.dnf``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from dynamics.checks import as_generator, check_count, check_progress, describe, report
from dynamics.doeblin.dnf import (
    DNF_LEVELS, DNF_LEVEL_COST, DNF_METHODS, _STAGES, _warmup, dnf_search, make_dnf_problem,
)

__all__ = ["DNFTable", "dnf_experiment"]


@dataclass(frozen=True)
class DNFTable:
    """Time to a zero-error formula per difficulty level and method (Table 1).

    Attributes
    ----------
    levels : tuple of str
    methods : tuple of str
    steps : ndarray of int64 (n_levels, n_methods, trials)
        Steps to success (max_steps when not solved).
    seconds : ndarray (n_levels, n_methods, trials)
    solved : ndarray of bool (n_levels, n_methods, trials)
    mean_seconds, se_seconds : ndarray (n_levels, n_methods)
        Mean and standard error over trials (unsolved runs count their full time, so the mean is
        then a lower bound, shown as ">=").
    mean_steps, se_steps : ndarray (n_levels, n_methods)
    solved_fraction : ndarray (n_levels, n_methods)
    max_steps : int
    total_seconds : float
    """

    levels: tuple
    methods: tuple
    steps: np.ndarray
    seconds: np.ndarray
    solved: np.ndarray
    mean_seconds: np.ndarray
    se_seconds: np.ndarray
    mean_steps: np.ndarray
    se_steps: np.ndarray
    solved_fraction: np.ndarray
    max_steps: int
    total_seconds: float

    def table(self) -> str:
        """Table 1 as text: mean +- s.e. seconds per method (rows) and level (columns)."""
        head = "method   " + "".join(f"{lv:>26}" for lv in self.levels)
        rows = [head]
        for k, meth in enumerate(self.methods):
            cells = []
            for a in range(len(self.levels)):
                ge = ">=" if self.solved_fraction[a, k] < 1 else "  "
                cells.append(f"{ge}{self.mean_seconds[a, k] * 1e3:9.2f} +- "
                             f"{self.se_seconds[a, k] * 1e3:7.2f} ms")
            rows.append(f"{meth:<9}" + "".join(f"{c:>26}" for c in cells))
        return "\n".join(rows)


def dnf_experiment(levels=None, *, trials: int = 80, max_steps: int = 1_000_000,
                   methods=DNF_METHODS, beta: float = 3.0, beta_simple: float = 3.0,
                   restart: float = 0.0002, leave: float = 0.04, seed=0,
                   progress=None) -> DNFTable:
    """Table 1 on generated problems: time to a zero-error formula, mean and s.e. over trials.

    Each trial draws a fresh problem per level (`make_dnf_problem` with the level's settings)
    and runs every method on it from its own random start.

    Parameters
    ----------
    levels : sequence of str or dict name -> settings, optional
        Names of `DNF_LEVELS` (default: all of them, easiest first) or custom settings.
    trials : int, keyword-only
        Trials per level, in [1, 100000].
    max_steps : int, keyword-only
        Step cap per run; unsolved runs are counted at the cap (see `DNFTable`).
    methods : sequence of str, keyword-only
    beta, beta_simple, restart, leave : float, keyword-only
        See `dnf_search`.
    seed : int, Generator or None, keyword-only
    progress : callable(fraction: float, message: str) or None, keyword-only
        Called after every trial; the fraction weighs each level's trials by
        ``DNF_LEVEL_COST``.
    """
    if levels is None:
        levels = dict(DNF_LEVELS)
    elif not isinstance(levels, dict):
        if isinstance(levels, str) or not isinstance(levels, (tuple, list)):
            raise TypeError(f"levels must be None, a dict or a tuple or list of names of "
                            f"{tuple(DNF_LEVELS)}, got {type(levels).__name__}")
        names = list(levels)
        unknown = [lv for lv in names if not isinstance(lv, str) or lv not in DNF_LEVELS]
        if unknown or not names:
            raise ValueError(f"levels must be names of {tuple(DNF_LEVELS)}, got {describe(names)}")
        levels = {lv: DNF_LEVELS[lv] for lv in names}
    trials = check_count("trials", trials, high=100_000)
    max_steps = check_count("max_steps", max_steps, high=1_000_000_000)
    if isinstance(methods, str) or not isinstance(methods, (tuple, list)):
        raise TypeError(f"methods must be a tuple or list of names from {DNF_METHODS}, got "
                        f"{type(methods).__name__}")
    methods = tuple(methods)
    if not methods or any(not isinstance(m, str) or m not in _STAGES for m in methods):
        raise ValueError(f"methods must be a non-empty list of names from {DNF_METHODS}, got "
                         f"{describe(methods)}")
    check_progress(progress)
    rng = as_generator(seed)
    _warmup()  # compile before the clock starts
    names = tuple(levels)
    shape = (len(names), len(methods), trials)
    steps = np.empty(shape, dtype=np.int64)
    seconds = np.empty(shape)
    solved = np.empty(shape, dtype=bool)
    start = time.perf_counter()
    weight = [DNF_LEVEL_COST.get(name, 1.0) if name in DNF_LEVELS and levels[name] is
              DNF_LEVELS[name] else 1.0 for name in names]
    before = np.concatenate([[0.0], np.cumsum(weight)])
    for a, name in enumerate(names):
        for t in range(trials):
            problem = make_dnf_problem(**levels[name], seed=rng)
            for k, meth in enumerate(methods):
                res = dnf_search(problem, method=meth, max_steps=max_steps, beta=beta,
                                 beta_simple=beta_simple, restart=restart, leave=leave, seed=rng)
                steps[a, k, t] = res.steps
                seconds[a, k, t] = res.seconds
                solved[a, k, t] = res.solved
            report(progress, (before[a] + weight[a] * (t + 1) / trials) / before[-1],
                   f"{name}: trial {t + 1}/{trials}")
    se = (lambda v: v.std(axis=-1, ddof=1) / math.sqrt(trials)) if trials > 1 else (
        lambda v: np.zeros(v.shape[:-1]))
    return DNFTable(
        levels=names, methods=methods, steps=steps, seconds=seconds, solved=solved,
        mean_seconds=seconds.mean(axis=-1), se_seconds=se(seconds),
        mean_steps=steps.mean(axis=-1), se_steps=se(steps.astype(float)),
        solved_fraction=solved.mean(axis=-1), max_steps=max_steps,
        total_seconds=time.perf_counter() - start,
    )
