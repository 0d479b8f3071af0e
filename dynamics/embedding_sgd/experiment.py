"""Fig 5.2 (a)'s experiment: Embedding-SGD runs on fresh data of the task of Sec 5.5, one per
seed, through ``dynamics.sweep``."""

from __future__ import annotations

from dataclasses import dataclass

from .._common import check_count, check_positive, check_progress
from ..sweep import sweep
from .algorithm import EmbeddingRun, embedding_sgd
from .task import noisy_measurement

__all__ = ["SeedRuns", "seed_runs"]


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


def seed_runs(runs: int, data: int, *, seed: int = 0, gamma: float = 10.0,
              bandwidth_f: float = 0.05, bandwidth_u: float = 0.07, dual_y_scale: float = 0.05,
              features: int = 500, progress=None) -> SeedRuns:
    """Fig 5.2 (a)'s experiment: ``runs`` runs of `embedding_sgd` on the task of Sec 5.5, each
    on ``data`` fresh data with its own features (run k: data seed ``seed + 1000 (k + 1)``,
    features one more), ``features`` features for f and for u, through ``dynamics.sweep``."""
    runs = check_count("runs", runs, high=1000)
    data = check_count("data", data, high=100_000_000)
    seed = check_count("seed", seed, low=0, high=2**31 - 1)
    options = dict(gamma=check_positive("gamma", gamma),
                   bandwidth_f=check_positive("bandwidth_f", bandwidth_f),
                   bandwidth_u=check_positive("bandwidth_u", bandwidth_u),
                   dual_y_scale=check_positive("dual_y_scale", dual_y_scale),
                   features_f=check_count("features", features, high=100_000),
                   features_u=features)
    progress = check_progress(progress)
    tasks = [dict(k=k, data=data, seed=seed, options=options) for k in range(runs)]
    return SeedRuns(tuple(sweep(_seed_run, tasks, progress=progress, task_progress=True)), data)
