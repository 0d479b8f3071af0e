"""Fig 5.2 (a)'s experiment (Sec 5.6.1): each method's step constants and bandwidths chosen from
the thesis's grids on validation data (``select``), then the methods compared over runs on fresh
data (``compare_methods``), all through ``dynamics.sweep``; and Embedding-SGD alone over seeds
(``seed_runs``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..checks import (as_generator, check_choice, check_count, check_instance, check_positive,
                       check_progress)
from ..sweep import grid, sweep
from .algorithm import METHODS, EmbeddingRun, MethodRun, embedding_sgd, fit_method
from .task import PAPER_DATA, noisy_measurement

__all__ = ["ETAS", "ETA0S", "BANDWIDTHS", "VIRTUAL_SAMPLES", "VALIDATION", "LAM", "COMPARED",
           "SELECTED", "selection_grid", "validation_inputs", "Selection", "select",
           "Comparison", "compare_methods", "SeedRuns", "seed_runs"]

#: Sec 5.6.1's grids: the step's eta and eta0 (gamma_i = eta / (eta0 + sqrt(i))) and the
#: Gaussian kernels' bandwidths (the primal's and, for Embedding-SGD, the dual's on x).
ETAS, ETA0S, BANDWIDTHS = (0.1, 1.0, 10.0), (1.0, 10.0, 100.0), (0.05, 0.1, 0.15, 0.2)
#: Sec 5.6.1: "10 virtual samples are generated for each datum in training phase".
VIRTUAL_SAMPLES = 10
#: Noiseless validation inputs x~ ~ U[-0.5, 0.5] that ``select`` scores a candidate on.
VALIDATION = 1000
#: The l2 weights of both functions (eq C.7), fixed for every method as the thesis fixes them
#: ("for fairness"; it does not give their values). Ours: 1e-4 for f and for u.
LAM = 1e-4
#: The methods of Fig 5.2 (a).
COMPARED = ("embedding", "virtual", "saa")
#: Each method's constants as ``select`` chose them at the paper's size (0.1M data, 500
#: features, 10 virtual samples, ``LAM``, seed 0; validation MSE 0.0043, 0.176 and 0.037; the
#: gallery's study reruns it): the constants ``compare_methods`` uses by
#: default. Every method chose the grid's largest eta and smallest primal bandwidth.
SELECTED = {
    "embedding": dict(eta=10.0, eta0=10.0, bandwidth_f=0.05, bandwidth_u=0.1),
    "virtual": dict(eta=10.0, eta0=1.0, bandwidth_f=0.05),
    "saa": dict(eta=10.0, eta0=1.0, bandwidth_f=0.05),
}


def selection_grid(method: str) -> list[dict]:
    """The candidates ``select`` tries for ``method``: eta x eta0 x the primal's bandwidth (x
    the dual's for Embedding-SGD), Sec 5.6.1's grids."""
    method = check_choice("method", method, METHODS)
    axes = dict(eta=ETAS, eta0=ETA0S, bandwidth_f=BANDWIDTHS)
    if method == "embedding":
        axes["bandwidth_u"] = BANDWIDTHS
    return grid(**axes)


def validation_inputs(n: int = VALIDATION, *, seed=None) -> np.ndarray:
    """``n`` noiseless inputs x~ ~ U[-0.5, 0.5], sorted (the test law of Sec 5.6.1)."""
    n = check_count("n", n, high=100_000)
    return np.sort(as_generator(seed).uniform(-0.5, 0.5, n))


def _options(virtual_samples, lam, features) -> dict:
    lam = check_positive("lam", lam, allow_zero=True)
    features = check_count("features", features, high=100_000)
    return dict(virtual_samples=check_count("virtual_samples", virtual_samples, high=1000),
                lam_f=lam, lam_u=lam, features_f=features, features_u=features)


def _score(method: str, candidate: dict, data: int, data_seed: int, options: dict) -> float:
    """A candidate's validation MSE (inf when the run diverged): trained on ``data`` data of
    seed ``data_seed``, scored on ``validation_inputs`` of seed ``data_seed + 1``."""
    _, x, y = noisy_measurement(data, seed=data_seed)
    try:
        run = fit_method(x, y, method=method, seed=data_seed + 2, checkpoints=1,
                         test_inputs=validation_inputs(seed=data_seed + 1), **candidate,
                         **options)
    except ValueError as exc:
        if "diverged" not in str(exc):
            raise
        return float("inf")
    return run.mse


@dataclass(frozen=True)
class Selection:
    """``select``: every candidate of ``method`` and its validation MSE (inf: diverged)."""

    method: str
    candidates: tuple
    scores: np.ndarray
    data: int
    options: dict

    @property
    def best(self) -> dict:
        """The candidate with the lowest validation MSE."""
        return dict(self.candidates[int(np.argmin(self.scores))])


def select(method: str, *, data: int = PAPER_DATA, seed: int = 0,
           virtual_samples: int = VIRTUAL_SAMPLES, lam: float = LAM, features: int = 500,
           candidates=None, executor=None, progress=None) -> Selection:
    """Sec 5.6.1's selection: every candidate of ``selection_grid(method)`` (or ``candidates``,
    a list of such dicts) trained on the same ``data`` data (data seed ``seed + 500``) and
    scored by its MSE on ``VALIDATION`` noiseless validation inputs (seed ``seed + 501``),
    through ``dynamics.sweep`` (on ``executor`` if given)."""
    method = check_choice("method", method, METHODS)
    data = check_count("data", data, high=10_000_000)
    seed = check_count("seed", seed, low=0, high=2**31 - 1)
    options = _options(virtual_samples, lam, features)
    progress = check_progress(progress)
    if candidates is None:
        candidates = selection_grid(method)
    elif not isinstance(candidates, (list, tuple)) or not candidates or not all(
            isinstance(c, dict) for c in candidates):
        raise TypeError(f"candidates must be a non-empty list of dicts of constants, got "
                        f"{type(candidates).__name__}")
    tasks = [dict(method=method, candidate=dict(c), data=data, data_seed=seed + 500,
                  options=options) for c in candidates]
    scores = sweep(_score, tasks, executor=executor, progress=progress)
    return Selection(method, tuple(dict(c) for c in candidates), np.asarray(scores, float),
                     data, options)


@dataclass(frozen=True)
class Comparison:
    """``compare_methods``: ``runs[method]``, one ``MethodRun`` per run (run k of every method on
    the same data and features), and the constants each method ran with."""

    runs: dict
    data: int
    constants: dict

    def mse(self, method: str, *, interior: bool = False) -> np.ndarray:
        """The runs' final test MSE of ``method`` (on |x~| <= ``INTERIOR`` with ``interior``)."""
        method = check_choice("method", method, tuple(self.runs))
        return np.array([r.mse_interior if interior else r.mse for r in self.runs[method]])


def _method_run(method: str, k: int, data: int, seed: int, constants: dict, options: dict,
                progress=None) -> MethodRun:
    """Run ``k`` of ``method``: data seed ``seed + 1000 (k + 1)``, features one more."""
    _, x, y = noisy_measurement(data, seed=seed + 1000 * (k + 1))
    return fit_method(x, y, method=method, seed=seed + 1000 * (k + 1) + 1, progress=progress,
                      **constants, **options)


def compare_methods(runs: int, data: int = PAPER_DATA, *, methods=COMPARED, seed: int = 0,
                    constants=None, virtual_samples: int = VIRTUAL_SAMPLES, lam: float = LAM,
                    features: int = 500, executor=None, progress=None) -> Comparison:
    """Fig 5.2 (a): ``runs`` runs of each of ``methods`` on the task of Sec 5.5, one pass over
    ``data`` fresh data each, with ``constants[method]`` (default ``SELECTED``), through
    ``dynamics.sweep``."""
    runs = check_count("runs", runs, high=1000)
    data = check_count("data", data, high=10_000_000)
    seed = check_count("seed", seed, low=0, high=2**31 - 1)
    if isinstance(methods, str) or not isinstance(methods, (list, tuple)) or not methods:
        raise TypeError(f"methods must be a non-empty list of names from {METHODS}, got "
                        f"{methods!r}")
    methods = tuple(check_choice("methods", m, METHODS) for m in methods)
    constants = SELECTED if constants is None else check_instance("constants", constants, dict)
    missing = [m for m in methods if not isinstance(constants.get(m), dict)]
    if missing:
        raise ValueError(f"constants must give a dict of constants for each of {missing}")
    options = _options(virtual_samples, lam, features)
    progress = check_progress(progress)
    chosen = {m: dict(constants[m]) for m in methods}
    tasks = [dict(method=m, k=k, data=data, seed=seed, constants=chosen[m], options=options)
             for k in range(runs) for m in methods]
    costs = [options["virtual_samples"] if m != "plain" else 1 for k in range(runs)
             for m in methods]
    results = sweep(_method_run, tasks, progress=progress, task_progress=executor is None,
                    executor=executor, weights=costs)
    return Comparison({m: tuple(results[k * len(methods) + j] for k in range(runs))
                       for j, m in enumerate(methods)}, data, chosen)


@dataclass(frozen=True)
class SeedRuns:
    """``seed_runs``: one `embedding_sgd` run (``EmbeddingRun``) per seed, each on ``data``
    fresh data."""

    runs: tuple
    data: int


def _seed_run(k: int, data: int, seed: int, options: dict, progress=None) -> EmbeddingRun:
    """Run ``k`` of ``seed_runs``: its own data (seed + 1000 (k + 1)) and features (+ 1)."""
    _, x, y = noisy_measurement(data, seed=seed + 1000 * (k + 1))
    return embedding_sgd(x, y, seed=seed + 1000 * (k + 1) + 1, progress=progress, **options)


def seed_runs(runs: int, data: int, *, seed: int = 0, eta: float = 10.0, eta0: float = 10.0,
              bandwidth_f: float = 0.05, bandwidth_u: float = 0.1, dual_y_scale: float = 0.05,
              features: int = 500, progress=None) -> SeedRuns:
    """``runs`` runs of `embedding_sgd` (Embedding-SGD and plain regression) on the task of
    Sec 5.5, each on ``data`` fresh data with its own features (run k: data seed
    ``seed + 1000 (k + 1)``, features one more), through ``dynamics.sweep``."""
    runs = check_count("runs", runs, high=1000)
    data = check_count("data", data, high=100_000_000)
    seed = check_count("seed", seed, low=0, high=2**31 - 1)
    options = dict(eta=check_positive("eta", eta),
                   eta0=check_positive("eta0", eta0, allow_zero=True),
                   bandwidth_f=check_positive("bandwidth_f", bandwidth_f),
                   bandwidth_u=check_positive("bandwidth_u", bandwidth_u),
                   dual_y_scale=check_positive("dual_y_scale", dual_y_scale),
                   features_f=check_count("features", features, high=100_000),
                   features_u=features)
    progress = check_progress(progress)
    tasks = [dict(k=k, data=data, seed=seed, options=options) for k in range(runs)]
    return SeedRuns(tuple(sweep(_seed_run, tasks, progress=progress, task_progress=True)), data)
