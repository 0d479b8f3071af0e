"""The bias-variance decomposition of Luo & Sugiyama (L183-190, Figs 3-9) for the HBM of each
order and the RBM of each size, and its sweep over sample sizes N.

**The decomposition**: E KL(P*, P_hat) = KL(P*, P*_B) [bias] + E KL(P*_B, P_hat) [variance]
over datasets of size N drawn from P*. For the HBM it holds exactly for every dataset and every
P_hat in S(B) (Pythagoras in the dually flat manifold: P*_B is the m-projection of P*, its eta
equal P*'s on B); for the RBM, P*_B is itself a fit and the residual is reported. Part of
``dynamics.hbm``; the models and their fits are in ``dynamics.hbm.model`` and ``dynamics.hbm.rbm``.
"""

from __future__ import annotations

import numbers
import time
from dataclasses import dataclass

import numpy as np

from ..checks import (as_generator, check_array, check_choice, check_count, check_executor,
                      check_instance, check_progress, report)
from ..sweep import sweep as _sweep
from .model import fit_hbm, kl, n_parameters, project
from .rbm import (MAX_DATA, MAX_HIDDEN, RBM, _check_p, _n_of, fit_rbm_cd, fit_rbm_exact,
                  rbm_parameters)

__all__ = ["BiasVariance", "Model", "bias_variance", "Sweep", "sweep"]


@dataclass(frozen=True)
class BiasVariance:
    """E KL(P*, P_hat) over the datasets (``total``) = KL(P*, P*_B) (``bias``) + E KL(P*_B,
    P_hat) (``variance``) + ``residual`` (0 for the HBM up to rounding)."""

    bias: float
    variance: float
    total: float
    residual: float
    totals: np.ndarray
    variances: np.ndarray


@dataclass(frozen=True)
class Model:
    """A model of the sweep: ``kind`` "hbm" (``size`` = order) or "rbm" (``size`` = hidden
    units), and how it is fitted."""

    kind: str
    size: int
    mode: str = "converged"

    @property
    def label(self) -> str:
        return (f"HBM order {self.size}" if self.kind == "hbm"
                else f"RBM {self.size} hidden")

    def parameters(self, n: int) -> int:
        return n_parameters(n, self.size) if self.kind == "hbm" else rbm_parameters(n, self.size)


def _check_model(model, n: int, name: str = "model") -> Model:
    check_instance(name, model, Model)
    hbm_ok = model.kind == "hbm" and model.mode in ("converged", "gradient", "gibbs")
    rbm_ok = model.kind == "rbm" and isinstance(model.mode, str)  # "converged", else CD-1
    high = n if model.kind == "hbm" else MAX_HIDDEN
    if not (hbm_ok or rbm_ok) or not isinstance(model.size, numbers.Integral) \
            or not int(model.kind == "hbm") <= model.size <= high:
        raise ValueError(f"{name} must be an HBM of order 1..{n} ('converged', 'gradient' or "
                         f"'gibbs') or an RBM of 0..{MAX_HIDDEN} hidden units, got {model}")
    return model


def _fit(model: Model, counts, seed, reference) -> np.ndarray:
    """P_hat for one dataset. Converged fits start from the reference P*_B (the HBM's optimum
    is unique, so only the time changes; the RBM's fit stays in the reference's basin, so that
    its variance is measured around P*_B, as the decomposition needs)."""
    if model.kind == "hbm":
        return fit_hbm(counts, model.size, mode=model.mode,
                       start=reference.p if model.mode == "converged" else None)
    if model.mode == "converged":
        n = _n_of(len(counts))
        smoothed = (counts + 0.5) / (counts.sum() + 0.5 * (1 << n))
        return fit_rbm_exact(smoothed, model.size, start=reference.rbm).p
    return fit_rbm_cd(counts, model.size, seed=seed).p


@dataclass(frozen=True)
class _Reference:
    p: np.ndarray
    rbm: RBM | None = None


def _reference(model: Model, p_star, seed) -> _Reference:
    """P*_B: the model closest to P* (exact projection for the HBM, a fit for the RBM)."""
    if model.kind == "hbm":
        return _Reference(project(p_star, model.size))
    rbm = fit_rbm_exact(p_star, model.size, starts=3, seed=seed)
    return _Reference(rbm.p, rbm)


def _task(p_star, reference: _Reference, model: Model, N: int, index: int, seed: int):
    """One (model, N, dataset): KL(P*, P_hat) and KL(P*_B, P_hat). Pure: the seed is derived
    from (seed, N, dataset) only, so a result does not depend on where it ran."""
    rng = np.random.default_rng([seed, N, index])
    counts = rng.multinomial(N, p_star).astype(float)
    fitted = _fit(model, counts, rng, reference)
    return kl(p_star, fitted), kl(reference.p, fitted)


def bias_variance(p_star, order, N: int, datasets: int, *, seed=None, mode: str = "converged",
                  model: Model | None = None, executor=None) -> BiasVariance:
    """The decomposition for the HBM of order ``order`` (or any ``model``) over ``datasets``
    datasets of size N drawn from ``p_star``; ``executor`` (see ``dynamics.sweep.sweep``)
    runs the datasets in parallel."""
    p_star, n = _check_p(p_star, "p_star")
    N = check_count("N", N, low=1, high=MAX_DATA)
    datasets = check_count("datasets", datasets, low=1, high=100_000)
    executor = check_executor(executor)
    mode = check_choice("mode", mode, ("converged", "gradient", "gibbs"))
    if order is not None or model is None:  # unused with a model, but never unchecked
        order = check_count("order", order, low=1, high=n)
    if model is None:
        model = Model("hbm", order, mode)
    _check_model(model, n)
    base = int(as_generator(seed).integers(0, 2**31 - 1))
    reference = _reference(model, p_star, base)
    tasks = [dict(p_star=p_star, reference=reference, model=model, N=N, index=i, seed=base)
             for i in range(datasets)]
    results = _sweep(_task, tasks, executor=executor)
    totals = np.array([r[0] for r in results])
    variances = np.array([r[1] for r in results])
    bias = kl(p_star, reference.p)
    total = float(totals.mean())
    variance = float(variances.mean())
    return BiasVariance(bias=bias, variance=variance, total=total,
                        residual=total - bias - variance, totals=totals, variances=variances)


@dataclass(frozen=True)
class Sweep:
    """Bias, variance and total error per (model, N): arrays (models, Ns); ``variances``
    (models, Ns, datasets): each dataset's KL(P*_B, P_hat), the spread behind the mean (the
    datasets at one N are the same for every model; None where not kept)."""

    models: tuple
    Ns: np.ndarray
    bias: np.ndarray
    variance: np.ndarray
    total: np.ndarray
    residual: np.ndarray
    n: int
    datasets: int
    done: int
    variances: np.ndarray | None = None


def sweep(p_star, models, Ns, datasets: int, *, seed=None, executor=None,
          progress=None) -> Sweep:
    """``bias_variance`` over every (model, N): the sweep of Figs 5-9. One task per (model,
    N, dataset), seeds derived from (seed, N, dataset); ``dynamics.sweep.sweep`` runs them on
    ``executor`` (None: in this process); ``progress(fraction, message, partial=Sweep)`` after
    each (model, N), every model at the first N, then at the next; from the second N on, the
    fraction weighs each model by the time its fits took at the first."""
    p_star, n = _check_p(p_star, "p_star")
    models = check_instance("models", models, (tuple, list))
    models = tuple(_check_model(m, n, "models") for m in models)
    Ns = check_array("Ns", Ns, ndim=1, dtype=np.int64)
    if len(models) == 0 or Ns.size == 0 or np.any(Ns < 1) or np.any(Ns > MAX_DATA):
        raise ValueError(f"models must not be empty and Ns must be sample sizes in [1, {MAX_DATA}]")
    datasets = check_count("datasets", datasets, low=1, high=100_000)
    executor = check_executor(executor)
    progress = check_progress(progress)
    base = int(as_generator(seed).integers(0, 2**31 - 1))
    shape = (len(models), Ns.size)
    out = {k: np.full(shape, np.nan) for k in ("bias", "variance", "total", "residual")}
    each = np.full(shape + (datasets,), np.nan)
    # The reference fits first (reported by none: a time left extrapolated from the fraction
    # starts after them). Then every model at one N, then the next N: a model's fits cost about
    # the same at every N while models differ by 1000x (an RBM against a first-order HBM), so
    # the progress fraction weighs each model by the time its fits took at the first N. The
    # results do not depend on the order (each task's seed is (seed, N, dataset)).
    references = [_reference(model, p_star, base) for model in models]
    for a, reference in enumerate(references):
        out["bias"][a, :] = kl(p_star, reference.p)
    seconds = np.zeros(len(models))  # each model's fits at the first N
    done = 0
    for b, N in enumerate(Ns):
        for a, model in enumerate(models):
            started = time.perf_counter()
            tasks = [dict(p_star=p_star, reference=references[a], model=model, N=int(N),
                          index=i, seed=base) for i in range(datasets)]
            results = _sweep(_task, tasks, executor=executor)
            total = float(np.mean([r[0] for r in results]))
            variance = float(np.mean([r[1] for r in results]))
            each[a, b] = [r[1] for r in results]
            out["variance"][a, b] = variance
            out["total"][a, b] = total
            out["residual"][a, b] = total - out["bias"][a, b] - variance
            done += 1
            if b == 0:
                seconds[a] = time.perf_counter() - started
                within = (a + 1) / len(models)
            else:
                within = seconds[:a + 1].sum() / seconds.sum() if seconds.sum() > 0 else \
                    (a + 1) / len(models)
            partial = Sweep(models, Ns, *(out[k].copy() for k in ("bias", "variance", "total",
                                                                  "residual")),
                            n=n, datasets=datasets, done=done, variances=each.copy())
            report(progress, min((b + within) / Ns.size, 1.0), f"N = {N:,}, {model.label}",
                   partial=partial)
    return Sweep(models, Ns, out["bias"], out["variance"], out["total"], out["residual"],
                 n=n, datasets=datasets, done=done, variances=each)
