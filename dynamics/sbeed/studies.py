"""The eta panel of Fig 6.1 where the dual is exact: sampled SBEED on a stochastic Garnet
(Dai, Sec 6.7.2 and Prop 55), beside the Pendulum ablation (``pendulum.ablation``).

On a finite MDP the tabular dual rho(s, a) is solved on the replay buffer (Algorithm 5, line 7:
the mean of delta per cell), so with k = 1 it sees all k actions (appendix D.3) and eta = 1
cancels the variance gamma^2 Var_{s'}[V(s')] that eta < 1 leaves in the objective (eq D.1): the
bias of eta < 1 is the exact fixed point's (``tabular.biased_fixed_point``), a sampled run adds
its sampling error. Here the thesis's eta grid (``pendulum.ETA_GRID``) runs over seeds (each
seed its own replay buffer, batches and initial point on one Garnet), with the exact-gradient
run of each eta as the noiseless reference.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..checks import check_array, check_count, check_executor, check_progress
from ..sweep import sweep
from .mdp import garnet
from .pendulum import ETA_GRID
from .tabular import sbeed_tabular

__all__ = ["TABULAR_ETA", "EXACT_ITERATIONS", "TabularEta", "tabular_eta"]

#: The stochastic Garnet and the SBEED settings of the tabular eta panel: a Garnet of 30 states,
#: 4 actions and 5 next states each (seed 0; the size of the page's bias run) at the page's
#: gamma and lam, single-step (k = 1: the tabular dual then sees every action of the segment),
#: a buffer of 20,000 segments (about 170 a cell (s, a): with the page's 5,000 on a 100-state
#: Garnet, 12 a cell, the buffer's own sampling error, about 1 in sup|V - V*|, hid the bias
#: of every eta) and batches of 32.
TABULAR_ETA = dict(n_states=30, n_actions=4, branching=5, mdp_seed=0, gamma=0.9, lam=0.1, k=1,
                   buffer_size=20_000, batch_size=32, step_size=0.2)

#: Iterations of each exact-gradient reference run (converged: eta = 1 ends within 1e-6 of V*).
EXACT_ITERATIONS = 20_000


@dataclass(frozen=True)
class TabularEta:
    """Sampled SBEED on a Garnet for each eta of ``etas``: ``v_error`` (seeds, etas) the mean of
    sup_s |V_t(s) - V*_lam(s)| over the last tenth of each run, ``value_loss`` (seeds, etas)
    the smoothed value of pi*_lam minus that of the learned policy (sum_s d(s) V(s)), ``exact``
    (etas,) sup_s |V - V*_lam| at the end of the exact-gradient run (the dual at its maximiser:
    the bias of eq D.1 alone), ``mdp`` the Garnet's name, and the run's settings."""

    etas: np.ndarray
    v_error: np.ndarray
    value_loss: np.ndarray
    exact: np.ndarray
    mdp: str
    seeds: int
    iterations: int
    seconds: float


def _tabular_run(eta: float, seed: int, iterations: int, mode: str,
                 progress=None) -> tuple[float, float]:
    """One run: (mean sup|V - V*| over the last tenth, value lost by the learned policy)."""
    cfg = TABULAR_ETA
    mdp = garnet(cfg["n_states"], cfg["n_actions"], cfg["branching"], seed=cfg["mdp_seed"])
    run = sbeed_tabular(mdp, gamma=cfg["gamma"], lam=cfg["lam"], eta=eta, iterations=iterations,
                        k=cfg["k"], mode=mode, step_size=cfg["step_size"],
                        batch_size=cfg["batch_size"], buffer_size=cfg["buffer_size"], seed=seed,
                        n_checkpoints=10, progress=progress)
    tail = run.v_error[-max(1, len(run.v_error) // 10):]
    return float(np.mean(tail)), float(run.value_star - run.value[-1])


def tabular_eta(*, etas=ETA_GRID, seeds: int = 5, iterations: int = 20_000, executor=None,
                progress=None) -> TabularEta:
    """Sampled SBEED (Algorithm 5 with the dual solved on the buffer every 5 updates) on
    ``TABULAR_ETA``'s Garnet for each eta of ``etas`` (in [0, 1]) over seeds 0..seeds-1, each
    ``iterations`` updates, and the exact-gradient run of each eta (``EXACT_ITERATIONS``
    updates: eq D.1's fixed point),
    through ``dynamics.sweep`` on ``executor`` (None: in this process)."""
    etas = check_array("etas", etas, ndim=1)
    if etas.size == 0 or etas.size > 20 or np.any(etas < 0) or np.any(etas > 1):
        raise ValueError(f"etas must hold 1 to 20 values in [0, 1], got {etas!r}")
    seeds = check_count("seeds", seeds, low=1, high=100)
    iterations = check_count("iterations", iterations, low=10, high=1_000_000)
    progress = check_progress(progress)
    executor = check_executor(executor)
    start = time.perf_counter()
    tasks = [dict(eta=float(e), seed=s, iterations=iterations, mode="sampled")
             for e in etas for s in range(seeds)]
    tasks += [dict(eta=float(e), seed=0, iterations=EXACT_ITERATIONS, mode="exact")
              for e in etas]
    # an eta > 0 sampled run solves the dual on the buffer: about 10 times an eta = 0 run
    weights = [10.0 if t["eta"] > 0 and t["mode"] == "sampled" else 1.0 for t in tasks]
    out = sweep(_tabular_run, tasks, executor=executor, progress=progress, weights=weights,
                task_progress=True)
    n = len(etas) * seeds
    sampled = np.array(out[:n]).reshape(len(etas), seeds, 2)
    cfg = TABULAR_ETA
    name = f"Garnet({cfg['n_states']}, {cfg['n_actions']}, {cfg['branching']})"
    return TabularEta(etas=etas.copy(), v_error=sampled[:, :, 0].T.copy(),
                      value_loss=sampled[:, :, 1].T.copy(),
                      exact=np.array([o[0] for o in out[n:]]), mdp=name, seeds=seeds,
                      iterations=iterations, seconds=time.perf_counter() - start)
