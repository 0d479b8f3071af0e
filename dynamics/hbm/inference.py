"""The paper's own inference for the HBM, against exact enumeration (Luo & Sugiyama, Sec
"Inferencing Algorithm": the gradient eta_hat - eta_B with eta_B from Gibbs sampling, and log Z by
annealed importance sampling, eq 8).

The bias-variance study of ``dynamics.hbm.model`` computes eta_B and log Z exactly (2^n states).
The paper replaces both by samplers. ``inference_study`` runs the two pipelines side by side on
the same datasets and measures what the samplers change:

- **exact**: ``iterations`` steps of lr (eta_hat - eta_B) from theta = 0, eta_B by enumeration
  (``fit_hbm(mode="gradient")``), log Z exact.
- **paper**: the same steps with eta_B from ``chains`` persistent single-site Gibbs chains
  (``fit_hbm(mode="gibbs")``, the paper's "Gibbs sampling for eta_B"), and log Z of every fit by
  AIS from the uniform distribution through f_0^(1-beta_k) f^beta_k (eq 8, ``ais_log_z``).

The bias and variance follow the paper's recipe ("the true variance of the model by replacing
P_hat with P* in eq 7"): each pipeline's P*_B is its own fit to P* itself (the eta_hat of P*),
bias = KL(P*, P*_B), variance = E KL(P*_B, P_hat) over the datasets, total = E KL(P*, P_hat).
With finite gradient steps these do not add up exactly (the residual is reported). The KLs are
computed twice for the paper's pipeline: with the exact normaliser of each fitted theta, and with
its AIS estimate (what the paper could compute at large n): log p(x) = sum_{0<s<=x} theta(s) -
log Z, so an error d in log Z of Q shifts KL(P, Q) by +d, and one in P's by -d.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from ..checks import (as_generator, check_budget, check_count, check_in_range, check_instance,
                       check_positive, check_progress, kl_divergence, report)
from ..claims import Verdict
from .model import _n_of, _normalised, ais_log_z, eta_of, fit_hbm, kl, order_mask, project, \
    theta_of
from .rbm import MAX_DATA, _check_p

__all__ = ["InferenceStudy", "inference_study", "inference_claim", "AIS_TOLERANCE",
           "GIBBS_TOLERANCE"]

#: How far (nats, beyond three standard errors of the mean over the repeats) the mean AIS
#: estimate of log Z may lie from the exact value.
AIS_TOLERANCE = 0.01
#: How far (relative, beyond three paired standard errors) the Gibbs-trained fits' mean total
#: error may lie from the exact-gradient fits'.
GIBBS_TOLERANCE = 0.10


@dataclass(frozen=True)
class InferenceStudy:
    """Exact inference against the paper's (Gibbs eta_B, AIS log Z) on the same datasets.

    Per pipeline ("exact", "gibbs"): ``bias_*`` = KL(P*, P*_B) with P*_B the pipeline's fit to P*,
    ``variances_*`` (datasets,) = KL(P*_B, P_hat), ``totals_*`` (datasets,) = KL(P*, P_hat);
    ``*_ais``: the Gibbs pipeline's KLs with every log Z from AIS. ``projection_bias`` is
    KL(P*, P*_B) of the exact m-projection (the converged fit's bias, a floor for both).
    ``log_z`` / ``log_z_ais`` / ``log_z_stderr`` (datasets,): each Gibbs fit's exact log Z, its AIS
    estimate and AIS's stated standard error; ``repeat_*``: ``repeats`` independent AIS runs on
    the Gibbs P*_B (the spread over runs against the stated error). ``seconds_*``: mean seconds
    per fit (exact-gradient fit, Gibbs fit), per AIS estimate, and per exact log Z."""

    n: int
    order: int
    N: int
    datasets: int
    iterations: int
    chains: int
    ais_steps: int
    ais_runs: int
    projection_bias: float
    bias_exact: float
    bias_gibbs: float
    bias_gibbs_ais: float
    variances_exact: np.ndarray
    variances_gibbs: np.ndarray
    variances_gibbs_ais: np.ndarray
    totals_exact: np.ndarray
    totals_gibbs: np.ndarray
    totals_gibbs_ais: np.ndarray
    log_z: np.ndarray
    log_z_ais: np.ndarray
    log_z_stderr: np.ndarray
    repeat_log_z: float
    repeat_ais: np.ndarray
    repeat_stderr: np.ndarray
    seconds_exact: float
    seconds_gibbs: float
    seconds_ais: float
    seconds_log_z: float

    @property
    def variance_exact(self) -> float:
        return float(self.variances_exact.mean())

    @property
    def variance_gibbs(self) -> float:
        return float(self.variances_gibbs.mean())

    @property
    def total_exact(self) -> float:
        return float(self.totals_exact.mean())

    @property
    def total_gibbs(self) -> float:
        return float(self.totals_gibbs.mean())


def _theta(p, mask):
    """theta of a fitted distribution, zero off B (the model's own coordinates)."""
    theta = theta_of(p)
    theta[1:][~mask[1:]] = 0.0
    return theta


def inference_study(p_star, order: int, N: int, datasets: int, *, iterations: int = 2000,
                    lr: float = 0.1, chains: int = 100, ais_steps: int = 300,
                    ais_runs: int = 100, repeats: int = 8, seed=None,
                    progress=None) -> InferenceStudy:
    """Fit the HBM of order ``order`` to ``datasets`` datasets of N samples from ``p_star`` by
    the exact gradient and by the paper's Gibbs-sampled gradient (``iterations`` steps of ``lr``,
    ``chains`` persistent chains), estimate each Gibbs fit's log Z by AIS (eq 8, ``ais_steps``
    intermediate distributions, ``ais_runs`` runs) and the Gibbs P*_B's ``repeats`` times; time
    each part. Dataset i is drawn with the seed (seed, N, i), as in ``dynamics.hbm.sweep``.
    ``progress(fraction, message)`` after each dataset."""
    p_star, n = _check_p(p_star, "p_star")
    order = check_count("order", order, low=1, high=n)
    N = check_count("N", N, low=1, high=MAX_DATA)
    datasets = check_count("datasets", datasets, low=2, high=10_000)
    iterations = check_count("iterations", iterations, low=1, high=1_000_000)
    lr = check_in_range("lr", check_positive("lr", lr), 0.0, 10.0, low_open=True)
    chains = check_count("chains", chains, low=1, high=100_000)
    ais_steps = check_count("ais_steps", ais_steps, low=1, high=1_000_000)
    ais_runs = check_count("ais_runs", ais_runs, low=2, high=100_000)
    repeats = check_count("repeats", repeats, low=2, high=1000)
    progress = check_progress(progress)
    sweep_cost = n << (n - 1)  # one Gibbs sweep: n conditionals, each a sum over <= 2^(n-1) sets
    check_budget("datasets, iterations, chains, ais_steps, ais_runs and repeats",
                 (datasets + 1) * (iterations * chains + ais_steps * ais_runs) * sweep_cost
                 + repeats * ais_steps * ais_runs * sweep_cost
                 + (datasets + 1) * iterations * (1 << n) * n, 2e11, "operations")
    base = int(as_generator(seed).integers(0, 2**31 - 1))
    mask = order_mask(n, order)
    gen = np.random.default_rng([base, 0])

    def gibbs_fit(counts):
        return fit_hbm(counts, order, mode="gibbs", iterations=iterations, lr=lr, chains=chains,
                       seed=gen)

    def exact_fit(counts):
        return fit_hbm(counts, order, mode="gradient", iterations=iterations, lr=lr)

    # the paper's P*_B: each pipeline's fit to P* itself (counts proportional to P*)
    ref_exact = exact_fit(p_star)
    ref_gibbs = gibbs_fit(p_star)
    theta_ref = _theta(ref_gibbs, mask)
    ref_log_z = float(_normalised(theta_ref, n)[1])
    repeat = [ais_log_z(theta_ref, steps=ais_steps, runs=ais_runs, seed=gen)
              for _ in range(repeats)]
    repeat_ais = np.array([r.log_z for r in repeat])
    repeat_stderr = np.array([r.stderr for r in repeat])
    d_ref = repeat_ais[0] - ref_log_z  # the paper's single AIS estimate of P*_B's log Z
    report(progress, 0.0, "P*_B and its AIS repeats")

    out = {k: np.empty(datasets) for k in ("ve", "vg", "vga", "te", "tg", "tga", "lz", "lza",
                                            "lzs")}
    seconds = np.zeros(4)
    for i in range(datasets):
        rng = np.random.default_rng([base, N, i])
        counts = rng.multinomial(N, p_star).astype(float)
        t0 = time.perf_counter()
        fit_e = exact_fit(counts)
        t1 = time.perf_counter()
        fit_g = gibbs_fit(counts)
        t2 = time.perf_counter()
        theta = _theta(fit_g, mask)
        est = ais_log_z(theta, steps=ais_steps, runs=ais_runs, seed=gen)
        t3 = time.perf_counter()
        log_z = float(_normalised(theta, n)[1])
        t4 = time.perf_counter()
        seconds += (t1 - t0, t2 - t1, t3 - t2, t4 - t3)
        d = est.log_z - log_z
        out["ve"][i], out["te"][i] = kl(ref_exact, fit_e), kl(p_star, fit_e)
        out["vg"][i], out["tg"][i] = kl(ref_gibbs, fit_g), kl(p_star, fit_g)
        out["vga"][i], out["tga"][i] = out["vg"][i] + d - d_ref, out["tg"][i] + d
        out["lz"][i], out["lza"][i], out["lzs"][i] = log_z, est.log_z, est.stderr
        report(progress, (i + 1) / datasets, f"dataset {i + 1} of {datasets}")
    seconds /= datasets
    bias_gibbs = kl(p_star, ref_gibbs)
    return InferenceStudy(
        n=n, order=order, N=N, datasets=datasets, iterations=iterations, chains=chains,
        ais_steps=ais_steps, ais_runs=ais_runs,
        projection_bias=kl_divergence(p_star, project(p_star, order)),
        bias_exact=kl(p_star, ref_exact), bias_gibbs=bias_gibbs, bias_gibbs_ais=bias_gibbs + d_ref,
        variances_exact=out["ve"], variances_gibbs=out["vg"], variances_gibbs_ais=out["vga"],
        totals_exact=out["te"], totals_gibbs=out["tg"], totals_gibbs_ais=out["tga"],
        log_z=out["lz"], log_z_ais=out["lza"], log_z_stderr=out["lzs"],
        repeat_log_z=ref_log_z, repeat_ais=repeat_ais, repeat_stderr=repeat_stderr,
        seconds_exact=float(seconds[0]), seconds_gibbs=float(seconds[1]),
        seconds_ais=float(seconds[2]), seconds_log_z=float(seconds[3]))


def inference_claim(study: InferenceStudy) -> Verdict:
    """Luo & Sugiyama, "Inferencing Algorithm" and eq 8: Gibbs sampling for eta_B and AIS for
    log Z stand in for the exact computation, on which the bias-variance study rests.

    Rule, on an `inference_study`: (1) the mean of the repeated AIS estimates of log Z lies
    within three standard errors of that mean plus ``AIS_TOLERANCE`` of the exact log Z; (2)
    AIS's stated standard error is within a factor 3 of the spread of its estimates over the
    repeats; (3) the Gibbs-trained fits' mean total error E KL(P*, P_hat) lies within
    ``GIBBS_TOLERANCE`` (relative) plus three paired standard errors of the exact-gradient
    fits'."""
    check_instance("study", study, InferenceStudy)
    errors = study.repeat_ais - study.repeat_log_z
    spread = float(errors.std(ddof=1))
    se_mean = spread / math.sqrt(errors.size)
    mean_err = float(errors.mean())
    stated = float(np.median(study.repeat_stderr))
    ratio = stated / spread if spread > 0 else math.inf
    diff = study.totals_gibbs - study.totals_exact
    paired_se = float(diff.std(ddof=1) / math.sqrt(diff.size))
    gap = float(diff.mean())
    allowed = GIBBS_TOLERANCE * study.total_exact + 3 * paired_se
    z = np.abs(study.log_z_ais - study.log_z) / np.maximum(study.log_z_stderr, 1e-300)
    return Verdict.from_checks(
        "Luo & Sugiyama, eq 8 and Gibbs sampling for η_B",
        "Gibbs sampling for η_B and annealed importance sampling for log Z (eq 8) approximate "
        "the exact inference the bias-variance study needs.",
        ((abs(mean_err) <= 3 * se_mean + AIS_TOLERANCE,
          f"the AIS estimates of log Z are off by {mean_err:+.4f} on average"),
         (1 / 3 <= ratio <= 3, f"AIS's stated error {stated:.2g} is not within a factor 3 of "
                               f"its spread over runs {spread:.2g}"),
         (abs(gap) <= allowed, f"the Gibbs fits' total error differs from the exact gradient's "
                               f"by {gap:+.3g} (allowed {allowed:.3g})")),
        measured=(f"n = {study.n}, order {study.order}, N = {study.N:,}, {study.datasets} "
                  f"datasets: AIS log Z − exact {mean_err:+.4f} ± {se_mean:.4f} over "
                  f"{errors.size} repeats (spread {spread:.3g}, stated {stated:.3g}; "
                  f"{float(np.mean(z <= 2)):.0%} of the fits' estimates within 2 stated errors); "
                  f"total error {study.total_gibbs:.4g} (Gibbs, {study.chains} chains) against "
                  f"{study.total_exact:.4g} (exact gradient); variance {study.variance_gibbs:.3g} "
                  f"against {study.variance_exact:.3g}; bias {study.bias_gibbs:.3g} against "
                  f"{study.bias_exact:.3g}; {study.seconds_gibbs + study.seconds_ais:.2g} s per "
                  f"fit with Gibbs and AIS, {study.seconds_exact + study.seconds_log_z:.2g} s "
                  f"exact"),
        why=(f"AIS's log Z is within its error of the exact value and the Gibbs-trained fits' "
             f"total error is within {allowed:.3g} of the exact gradient's"),
        numbers=dict(ais_mean_error=mean_err, ais_se_mean=se_mean, ais_spread=spread,
                     ais_stated=stated, total_gibbs=study.total_gibbs,
                     total_exact=study.total_exact, gap=gap, allowed=allowed))
