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
from scipy.stats import chi2

from ..checks import (as_generator, check_budget, check_count, check_in_range, check_instance,
                       check_positive, check_progress, kl_divergence, report)
from ..claims import Z, Threshold, Verdict, equivalence, stated
from .model import _n_of, _normalised, ais_log_z, eta_of, fit_hbm, kl, order_mask, project, \
    theta_of
from .rbm import MAX_DATA, _check_p

__all__ = ["InferenceStudy", "inference_study", "inference_claim", "AIS_TOLERANCE",
           "AIS_SE_FACTOR", "GIBBS_TOLERANCE"]

_CLAIM = "dynamics.hbm.inference.inference_claim"
_STATEMENT = ("Gibbs sampling for η_B and annealed importance sampling for log Z (eq 8) "
              "approximate the exact inference the bias-variance study needs.")
#: How far (nats) the mean AIS estimate of log Z may lie from the exact value (an equivalence
#: margin).
AIS_TOLERANCE = Threshold(
    0.01, name="AIS_TOLERANCE", claim=_CLAIM, statement=_STATEMENT,
    rule="equivalence: the mean over repeats of AIS log Z − exact log Z, with its Z SE "
         "interval, inside ± the tolerance; wholly outside: differs",
    why="an error d in log Z scales every probability of the fitted model by exp(-d) and "
        "shifts every KL the study reports by d (log p = Σ θ − log Z): 0.01 nats is a 1 % "
        "error in the probabilities, below the resolution of the figures' log-scale KL axes")
#: How far AIS's stated standard error may lie from the spread of its estimates over repeats
#: (a factor either way).
AIS_SE_FACTOR = Threshold(
    3, name="AIS_SE_FACTOR", claim=_CLAIM, statement=_STATEMENT,
    rule="the chi-square 95 % interval of the true spread over repeats, divided by the stated "
         "error, inside (1 / factor, factor); wholly outside: differs",
    why="a stated error within a factor 3 of the true one still places an estimate within "
        "its error bars to within about one decimal digit of log Z; AIS's own error estimate "
        "from its importance weights is known to be off by such factors when the weights are "
        "heavy-tailed (Neal 2001), and more than that makes its error bars meaningless")
#: How far (relative to the exact-gradient fits' total error) the Gibbs-trained fits' mean
#: total error may lie from the exact-gradient fits' (an equivalence margin).
GIBBS_TOLERANCE = Threshold(
    0.10, name="GIBBS_TOLERANCE", claim=_CLAIM, statement=_STATEMENT,
    rule="equivalence: the Gibbs − exact total error, paired over datasets, with its Z SE "
         "interval inside ± tolerance × the exact fits' total error",
    why="a tenth of the total error: the bias-variance figures compare models whose total "
        "errors differ by factors, so a sampler that moves the total by less than a tenth "
        "leaves every comparison of them as the exact gradient draws it")


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


@stated
def inference_claim(study: InferenceStudy) -> Verdict:
    """Luo & Sugiyama, "Inferencing Algorithm" and eq 8: Gibbs sampling for eta_B and AIS for
    log Z stand in for the exact computation, on which the bias-variance study rests.

    Rule, on an `inference_study`, three checks each of three outcomes: (1) equivalence: the
    mean over the repeats of the AIS estimate of log Z minus the exact one, with its ``Z``
    standard-error interval, inside +-``AIS_TOLERANCE``; (2) the chi-square 95 % interval of
    the true spread of the AIS estimates (from their sample spread over the repeats), divided
    by AIS's stated standard error (the median over repeats), inside (1 / ``AIS_SE_FACTOR``,
    ``AIS_SE_FACTOR``); (3) equivalence: the Gibbs-trained fits' total error E KL(P*, P_hat)
    minus the exact-gradient fits', paired over the datasets, with its ``Z`` SE interval inside
    +-``GIBBS_TOLERANCE`` times the exact fits' total error. Every check inside: reproduced;
    one wholly outside: differs; otherwise not decided (too few repeats or datasets)."""
    check_instance("study", study, InferenceStudy)
    errors = study.repeat_ais - study.repeat_log_z
    r = errors.size
    spread = float(errors.std(ddof=1))
    se_mean = spread / math.sqrt(r)
    mean_err = float(errors.mean())
    stated_se = float(np.median(study.repeat_stderr))
    # the true spread's 95 % interval from a sample spread over r repeats (chi-square, r - 1)
    low = spread * math.sqrt((r - 1) / chi2.ppf(0.975, r - 1))
    high = spread * math.sqrt((r - 1) / chi2.ppf(0.025, r - 1))
    if stated_se > 0:
        lo_ratio, hi_ratio = low / stated_se, high / stated_se
        calibrated = (True if 1 / AIS_SE_FACTOR < lo_ratio and hi_ratio < AIS_SE_FACTOR else
                      False if hi_ratio <= 1 / AIS_SE_FACTOR or lo_ratio >= AIS_SE_FACTOR
                      else None)
    else:
        lo_ratio = hi_ratio = math.inf
        calibrated = None
    diff = study.totals_gibbs - study.totals_exact
    paired_se = float(diff.std(ddof=1) / math.sqrt(diff.size))
    gap = float(diff.mean())
    margin = float(GIBBS_TOLERANCE * study.total_exact)
    ais_ok = equivalence(mean_err, se_mean, AIS_TOLERANCE)
    gibbs_ok = equivalence(gap, paired_se, margin) if margin > 0 else None
    z = np.abs(study.log_z_ais - study.log_z) / np.maximum(study.log_z_stderr, 1e-300)
    a_text = f"AIS log Z − exact = {mean_err:+.4f} ± {se_mean:.4f} over {r} repeats"
    c_text = (f"the true spread over repeats is {lo_ratio:.2g}-{hi_ratio:.2g} times AIS's "
              f"stated error {stated_se:.2g}")
    g_text = f"Gibbs − exact total error = {gap:+.3g} ± {paired_se:.2g}"
    return Verdict.from_checks(
        "Luo & Sugiyama, eq 8 and Gibbs sampling for η_B", _STATEMENT,
        ((ais_ok, f"{a_text}: beyond ±{AIS_TOLERANCE:g} nats",
          f"{a_text}: not inside ±{AIS_TOLERANCE:g} nats by {Z} SE"),
         (calibrated, f"{c_text}: not within a factor {AIS_SE_FACTOR:g}",
          f"{c_text}: too few repeats to place it within a factor {AIS_SE_FACTOR:g}"),
         (gibbs_ok, f"{g_text}: beyond ±{margin:.3g} ({GIBBS_TOLERANCE:.0%} of the exact)",
          f"{g_text}: not inside ±{margin:.3g} by {Z} SE")),
        measured=(f"n = {study.n}, order {study.order}, N = {study.N:,}, {study.datasets} "
                  f"datasets: AIS log Z − exact {mean_err:+.4f} ± {se_mean:.4f} over "
                  f"{r} repeats (spread {spread:.3g}, stated {stated_se:.3g}; "
                  f"{float(np.mean(z <= 2)):.0%} of the fits' estimates within 2 stated errors); "
                  f"total error {study.total_gibbs:.4g} (Gibbs, {study.chains} chains) against "
                  f"{study.total_exact:.4g} (exact gradient); variance {study.variance_gibbs:.3g} "
                  f"against {study.variance_exact:.3g}; bias {study.bias_gibbs:.3g} against "
                  f"{study.bias_exact:.3g}; {study.seconds_gibbs + study.seconds_ais:.2g} s per "
                  f"fit with Gibbs and AIS, {study.seconds_exact + study.seconds_log_z:.2g} s "
                  f"exact"),
        why=(f"AIS's log Z is within {AIS_TOLERANCE:g} nats of the exact value, its stated "
             f"error within a factor {AIS_SE_FACTOR:g} of its spread, and the Gibbs-trained "
             f"fits' total error within {GIBBS_TOLERANCE:.0%} of the exact gradient's, each "
             "beyond its noise"),
        numbers=dict(ais_mean_error=mean_err, ais_se_mean=se_mean, ais_spread=spread,
                     ais_stated=stated_se, spread_ratio=(lo_ratio, hi_ratio),
                     total_gibbs=study.total_gibbs, total_exact=study.total_exact, gap=gap,
                     gap_se=paired_se, margin=margin),
        effect="AIS's mean log Z error; its true spread over its stated error; the Gibbs fits' "
               "total error minus the exact fits'",
        rule=(f"equivalence within ±{AIS_TOLERANCE:g} nats and ±{GIBBS_TOLERANCE:g} × the exact "
              f"total error by {Z} SE; the spread's 95 % interval within a factor "
              f"{AIS_SE_FACTOR:g} of the stated error"),
        thresholds={"AIS_TOLERANCE": AIS_TOLERANCE, "AIS_SE_FACTOR": AIS_SE_FACTOR,
                    "GIBBS_TOLERANCE": GIBBS_TOLERANCE, "Z": Z},
        power=(f"{Z} SE = {Z * se_mean:.4f} nats (log Z, {r} repeats; equivalence needs it "
               f"under {AIS_TOLERANCE:g}), {Z * paired_se:.2g} (total error, paired over "
               f"{diff.size} datasets; under {margin:.2g}); the spread known to a factor "
               f"{high / low:.2g} from {r} repeats"))
