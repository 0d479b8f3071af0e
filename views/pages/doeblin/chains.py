"""The Doeblin page's live computations, cached per set of knobs: the chain P, its simpler
relative and the restart law u (``build_chain``), the sweep over eps (Props 3.1-3.5), the
eigenvalues at one eps, the sampling race and the staged chain of Fig 2(b)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from dynamics import doeblin as db
from views.framework.cache import results_cache

#: Budgets at which the sampling race records both histograms (the timeline's frames).
N_CHECKPOINTS = 60
#: The "simpler chain" of the three-state and barbell chains: the same chain with the mode
#: escape delta raised to this (it mixes in ~10 steps).
SIMPLE_DELTA = 0.1
#: Grid of restart rates eps_2 of the staged-chain panel (Thm 3.6's cost grows like 1/eps_2^2).
STAGED_EPS2 = tuple(np.geomspace(10**-2.5, 1.0, 18))


class ChainKey(NamedTuple):
    """The knobs that define P, the simpler chain and u, with irrelevant ones normalised away
    (so that moving the seed of a random chain does not recompute the three-state chain)."""

    chain: str
    delta: float
    size: int
    sparsity: float
    reversible: bool
    seed: int
    restart: str
    restart_state: int


@dataclass(frozen=True)
class ChainSetup:
    """The chain P, the simpler chain (restart law "chain", staged chain's middle stage), u."""

    P: np.ndarray
    simple: np.ndarray
    u: np.ndarray
    pi: np.ndarray
    gap: float


@results_cache
def build_chain(key: ChainKey) -> ChainSetup:
    """P, the simpler chain and u for one set of chain knobs (cached)."""
    if key.chain == "three-state":
        P = db.three_state_chain(key.delta)
        simple = db.three_state_chain(max(key.delta, SIMPLE_DELTA))
    elif key.chain == "barbell":
        P = db.barbell_chain(key.size // 2, bridge=key.delta)
        simple = db.barbell_chain(key.size // 2, bridge=max(key.delta, SIMPLE_DELTA))
    else:
        P = db.random_chain(key.size, sparsity=key.sparsity, reversible=key.reversible,
                            seed=key.seed)
        # the same weights without the zeros: a denser, faster-mixing relative of P
        simple = db.random_chain(key.size, sparsity=0.0, reversible=key.reversible,
                                 seed=key.seed)
    n = P.shape[0]
    u = db.restart_law(key.restart, n, state=key.restart_state, chain=simple)
    return ChainSetup(P=P, simple=simple, u=u, pi=db.stationary(P), gap=db.spectral_gap(P))


@results_cache
def eps_sweep(key: ChainKey, log_eps_min: float, points: int) -> db.RestartSweep:
    """Props 3.1-3.5 over a log grid of eps from 10^log_eps_min to 1 (cached)."""
    setup = build_chain(key)
    return db.restart_sweep(setup.P, setup.u, np.geomspace(10.0**log_eps_min, 1.0, points))


@results_cache
def spectrum(key: ChainKey, eps: float) -> db.RestartSpectrum:
    """Eigenvalues of P and P~ at one eps (Prop 3.1, cached)."""
    setup = build_chain(key)
    return db.restart_spectrum(setup.P, setup.u, eps)


@dataclass(frozen=True)
class Race:
    """The sampling race without its trajectories (which can hold millions of states)."""

    checkpoints: np.ndarray
    completed: np.ndarray
    restart_histograms: np.ndarray
    plain_histograms: np.ndarray
    restart_law: np.ndarray
    stationary_law: np.ndarray
    restart_tv: np.ndarray
    restart_tv_pi: np.ndarray
    plain_tv: np.ndarray
    top: float


@results_cache
def sampling_race(key: ChainKey, eps: float, budget: int, start: int, seed: int) -> Race:
    """Exact draws from pi~ against the plain chain, the same number of steps (cached)."""
    setup = build_chain(key)
    draws = max(1, round(budget * eps))
    s = db.sample_restart(setup.P, setup.u, eps, draws, start=start, n_checkpoints=N_CHECKPOINTS,
                          seed=seed)
    top = max(float(s.restart_histograms.max()), float(s.plain_histograms.max()),
              float(s.restart_law.max()), float(s.stationary_law.max()))
    return Race(checkpoints=s.checkpoints, completed=s.completed,
                restart_histograms=s.restart_histograms, plain_histograms=s.plain_histograms,
                restart_law=s.restart_law, stationary_law=s.stationary_law,
                restart_tv=s.restart_tv, restart_tv_pi=s.restart_tv_pi, plain_tv=s.plain_tv,
                top=top)


@results_cache
def staged(key: ChainKey, eps1: float) -> db.StagedSweep:
    """The three-stage chain of Fig 2(b) over the eps_2 grid (cached)."""
    setup = build_chain(key)
    return db.staged_sweep(setup.P, setup.simple, setup.u, eps1, STAGED_EPS2)


@results_cache
def staged_bounds(eps1: float) -> db.StagedBounds:
    """Thm 3.6 and Cor 3.7: they depend on the stage chain only, not on P (cached)."""
    return db.staged_cycle_bounds(eps1, STAGED_EPS2)


@dataclass(frozen=True)
class DoeblinRun:
    """Everything the static panels draw for one parameter set."""

    setup: ChainSetup
    sweep: db.RestartSweep
    spectrum: db.RestartSpectrum
    race: Race
    staged: db.StagedSweep
    bounds: db.StagedBounds
    state: int
    eps: float
