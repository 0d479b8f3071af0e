"""The Bayes page's runs (Opper): Fig 1's 1-D toy against the Cramer-Rao bound, with the
misspecified (logistic-teacher) case against the sandwich A^-1 B A^-1 of eq 8.10; and Fig 2's
learning curve of the perceptron, full and spherical updates against batch Bayes (the exact
posterior at the same finite N, sampled, and the N -> infinity replica curve), with the entropic
error against N / (2 t)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import holoviews as hv
import numpy as np
import param

from dynamics import bayes as ob
from views.framework import DASHED, DOTTED, MPL_DASHED, MPL_DOTTED, Plot, axis, prose, style
from views.framework.jobs import progress_part
from views.framework.runs import Run
from views.framework.text import verdict_markdown
from views.pages.bayes.common import FULL_COLOR, SPHERICAL_COLOR

__all__ = ["ToyEfficiencyRun", "CurveRun", "ToyResult", "CurveResult"]

THEORY_COLOR = "#222222"
BATCH_COLOR = "#2ca02c"
MIS_COLOR = "#9467bd"


@dataclass(frozen=True)
class ToyResult:
    right: ob.ToyRun
    wrong: ob.ToyRun
    fisher_at_pseudo: float
    tau: float


@dataclass(frozen=True)
class CurveResult:
    full: ob.LearningCurve
    spherical: ob.LearningCurve | None
    replica: np.ndarray | None
    sigma: float
    flip: float
    batch: ob.BatchCurve | None = None


class ToyEfficiencyRun(Run):
    """Fig 1: ADF on the 1-D toy against the Cramer-Rao bound, and with a logistic teacher
    against the sandwich (eq 8.10)."""

    key = "toy"
    title = "Fig 1: efficiency of the 1-D toy, and a misspecified model (eq 8.10)"
    button = "Run the toy"
    text = prose(__file__, "toy.md")
    aliases = {"toy_runs": "runs", "toy_t": "t", "tau": "tau", "toy_seed": "seed"}
    quick = {"runs": 10, "t": 100}
    fields = ("seed",)
    widgets = {name: {"throttled": True} for name in ("runs", "t", "tau")}

    runs = param.Integer(1000, bounds=(10, 20_000), step=10, label="Runs (toy)",
                         doc="Independent runs of the 1-D toy averaged.")
    t = param.Integer(10_000, bounds=(100, 200_000), step=100, label="Examples t (toy)",
                      doc="Examples per run of the 1-D toy.")
    tau = param.Number(0.2, bounds=(0.02, 2.0), step=0.01, label="Logistic teacher scale τ",
                       doc="The misspecified case: labels from 1/(1 + exp(−S(x − θ*)/τ)), "
                           "model still probit with σ₀ = 0.5.")
    seed = param.Integer(0, bounds=(0, 99_999), label="Seed (toy)",
                         doc="Seed of the toy's inputs and labels.")

    def compute(self, settings: dict, progress=None) -> ToyResult:
        runs, t, seed, tau = (int(settings["runs"]), int(settings["t"]),
                              int(settings["seed"]), float(settings["tau"]))
        if progress is not None:
            progress(0.0, "well-specified toy")
        right = ob.toy_runs(t, runs, seed=seed)
        if progress is not None:
            progress(0.5, "logistic teacher")
        wrong = ob.toy_runs(t, runs, logistic_tau=tau, seed=seed + 1)
        theta_p, _, inv_fisher = ob.toy_sandwich(tau=tau)
        return ToyResult(right, wrong, 1.0 / inv_fisher, tau)

    def estimate(self, settings: dict) -> float:
        # measured: 0.9 s for 1,000 runs of 10,000 examples, twice
        return 1.8 * settings["runs"] * settings["t"] / 1e7

    def summary(self, settings: dict, result: ToyResult) -> str:
        r, w = result.right, result.wrong
        return (f"**Efficiency:** t J E(θ_t − θ*)² at t = {int(r.t[-1]):,} is "
                f"**{r.t[-1] * r.mse[-1] / r.limit:.3f}** ± {r.t[-1] * r.stderr[-1] / r.limit:.3f}"
                f" (J = {1 / r.limit:.4f}; the bound is 1). **Misspecified** (τ = "
                f"{result.tau:g}): ADF converges to the pseudo-true θ_p = {w.target:.4f} (θ* = "
                f"0.1), and t E(θ_t − θ_p)² = **{w.t[-1] * w.mse[-1]:.4f}** ± "
                f"{w.t[-1] * w.stderr[-1]:.4f} against the sandwich A⁻¹BA⁻¹ = **{w.limit:.4f}**;"
                f" the model's own J(θ_p)⁻¹ = {1 / result.fisher_at_pseudo:.4f} would be wrong. "
                + verdict_markdown(ob.efficiency_claim(r, w)))

    def toy_plot(self, result: ToyResult):
        r = result.right
        dims = [axis("t", "examples t"), axis("mse", "E(θ_t − θ*)²")]
        curve = style(hv.Curve((r.t, r.mse), *dims, label=f"ADF, {r.runs:,} runs"),
                      color=FULL_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))
        band = style(hv.Spread((r.t, r.mse, 2 * r.stderr), kdims=[dims[0]], vdims=[dims[1], "err"]),
                     alpha=0.2, bokeh=dict(color=FULL_COLOR),
                     mpl=dict(facecolor=FULL_COLOR, edgecolor="none"))
        bound = style(hv.Curve((r.t, r.limit / r.t), *dims, label="Cramér-Rao 1/(tJ)"),
                      color=THEORY_COLOR, bokeh=DASHED, mpl=MPL_DASHED)
        return style(band * curve * bound, logx=True, logy=True, framewise=True)

    def sandwich_plot(self, result: ToyResult):
        r, w = result.right, result.wrong
        dims = [axis("t", "examples t"), axis("scaled", "t × mean squared error")]
        lines = [
            style(hv.Curve((r.t, r.t * r.mse), *dims, label="probit teacher (well specified)"),
                  color=FULL_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)),
            style(hv.Curve((r.t[[0, -1]], [r.limit] * 2), *dims, label="J⁻¹"),
                  color=FULL_COLOR, bokeh=DASHED, mpl=MPL_DASHED),
            style(hv.Curve((w.t, w.t * w.mse), *dims, label="logistic teacher, around θ_p"),
                  color=MIS_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)),
            style(hv.Curve((w.t[[0, -1]], [w.limit] * 2), *dims, label="sandwich A⁻¹BA⁻¹"),
                  color=MIS_COLOR, bokeh=DASHED, mpl=MPL_DASHED),
            style(hv.Curve((w.t[[0, -1]], [1 / result.fisher_at_pseudo] * 2), *dims,
                           label="J(θ_p)⁻¹ (not the limit)"),
                  color=MIS_COLOR, bokeh=DOTTED, mpl=MPL_DOTTED),
        ]
        return style(hv.Overlay(lines), logx=True,
                     ylim=(0, 2.2 * max(r.limit, w.limit)), framewise=True)

    plots = (Plot(toy_plot, title="Fig 1: error and the bound"),
             Plot(sandwich_plot, title="t × error: J⁻¹ or the sandwich"))


class CurveRun(Run):
    """Fig 2: the perceptron's generalization error against alpha = t / N, ADF (full and
    spherical) against batch Bayes."""

    key = "curve"
    title = "Fig 2: the perceptron's learning curve against batch Bayes"
    button = "Run the learning curves"
    text = prose(__file__, "curve.md")
    aliases = {"N": "N", "alpha_max": "alpha_max", "n_runs": "runs", "sigma0": "sigma0",
               "flip": "flip", "curve_seed": "seed"}
    quick = {"N": 2, "runs": 2, "alpha_max": 1.0}
    fields = ("seed",)
    widgets = {name: {"throttled": True} for name in ("N", "alpha_max", "runs", "sigma0",
                                                      "flip")}

    N = param.Integer(50, bounds=(2, 400), label="Inputs N",
                      doc="Dimension of the perceptron (the paper: 50).")
    alpha_max = param.Number(20.0, bounds=(1.0, 100.0), step=1.0, label="α = t/N up to",
                             doc="Examples per input dimension at the end of the runs.")
    runs = param.Integer(50, bounds=(2, 1000), label="Runs",
                         doc="Teacher-student runs averaged (the paper: 50).")
    sigma0 = param.Number(6.24, bounds=(0.0, 30.0), step=0.01, label="Label noise σ₀",
                          doc="sigma0 on the field θ*·x (the paper: 6.24, noise to signal "
                              "6.24/√50 = 0.88 at N = 50).")
    flip = param.Number(0.0, bounds=(0.0, 0.4), step=0.01, label="Output flips κ",
                        doc="Probability that a label is flipped; the model knows it "
                            "(P = κ + (1 − 2κ) Φ).")
    seed = param.Integer(0, bounds=(0, 99_999), label="Seed (Fig 2)",
                         doc="Seed of the runs' teachers, inputs and noise.")

    def compute(self, settings: dict, progress=None) -> CurveResult:
        N, alpha_max = int(settings["N"]), float(settings["alpha_max"])
        runs = int(settings["runs"])
        sigma0, flip, seed = float(settings["sigma0"]), float(settings["flip"]), int(
            settings["seed"])

        full = ob.learning_curve(N, alpha_max, runs, sigma0=sigma0, flip=flip,
                                 entropic_tests=200, seed=seed,
                                 progress=progress_part(progress, 0.0, 0.2, "full"))
        sph = ob.learning_curve(N, alpha_max, runs, sigma0=sigma0, flip=flip, spherical=True,
                                seed=seed,
                                progress=progress_part(progress, 0.2, 0.25, "spherical"))
        sigma = sigma0 / math.sqrt(N)
        replica = ob.replica_bayes_curve(full.alpha, sigma=sigma) if flip == 0 else None
        # the finite-N posterior's sampler draws latent fields of noise sigma0: it mixes well
        # enough only from a noise to signal sigma0 / sqrt(N) of BATCH_MIN_NOISE_RATIO
        batch = (ob.batch_bayes_finite(N, alpha_max, runs, sigma0=sigma0, flip=flip,
                                       seed=seed + 1,
                                       progress=progress_part(progress, 0.25, 1.0, "batch"))
                 if sigma >= ob.BATCH_MIN_NOISE_RATIO else None)
        return CurveResult(full, sph, replica, sigma, flip, batch)

    def estimate(self, settings: dict) -> float:
        # measured: 0.9 s for N = 50, alpha 20, 50 runs with the entropic error, and 6.5 s for
        # the batch posterior's sampler (100 sweeps of t N + N^2 per checkpoint)
        scale = (settings["N"] / 50) ** 2 * settings["alpha_max"] / 20 * settings["runs"] / 50
        sampled = settings["sigma0"] / math.sqrt(settings["N"]) >= ob.BATCH_MIN_NOISE_RATIO
        return (1.2 + (6.5 if sampled else 0.0)) * scale

    def summary(self, settings: dict, result: CurveResult) -> str:
        f, s, b = result.full, result.spherical, result.batch
        rows = []
        for a in ob.QUOTED_ALPHA:
            i = np.flatnonzero(np.isclose(f.alpha, a))
            if i.size:
                k = i[0]
                rep = "" if result.replica is None else f"{result.replica[k]:.3f}"
                j = np.flatnonzero(np.isclose(b.alpha, a)) if b is not None else []
                fin = f"{b.eps[j[0]]:.3f} ± {b.stderr[j[0]]:.3f}" if len(j) else ""
                rows.append(f"| {a:g} | {f.eps[k]:.3f} ± {f.stderr[k]:.3f} | "
                            f"{s.eps[k]:.3f} ± {s.stderr[k]:.3f} | {fin} | {rep} |")
        table = (f"| α | ε full | ε spherical | batch Bayes, N = {f.N} | batch Bayes, N → ∞ "
                 "(replica) |\n| --- | --- | --- | --- | --- |\n" + "\n".join(rows)) if rows else ""
        note = ("" if result.replica is not None else
                " The replica curve assumes the paper's noise model (no flips): not drawn.")
        if b is None:
            note += (" The finite-N posterior is not drawn below a noise to signal σ₀/√N of "
                     f"{ob.BATCH_MIN_NOISE_RATIO:g}: there its sampler's means are too noisy.")
        return (f"**{f.runs} runs, N = {f.N}, σ₀/√N = {result.sigma:.3f}.**{note} "
                f"{verdict_markdown(ob.batch_bayes_claim(f, result.replica, b))}\n\n{table}")

    def curve_plot(self, result: CurveResult):
        f, s = result.full, result.spherical
        dims = [axis("alpha", "α = t / N"), axis("eps", "generalization error ε")]
        parts = [
            style(hv.Spread((f.alpha, f.eps, 2 * f.stderr), kdims=[dims[0]],
                            vdims=[dims[1], "err"]),
                  alpha=0.2, bokeh=dict(color=FULL_COLOR),
                  mpl=dict(facecolor=FULL_COLOR, edgecolor="none")),
            style(hv.Curve((f.alpha, f.eps), *dims, label="ADF, full covariance"),
                  color=FULL_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)),
            style(hv.Curve((s.alpha, s.eps), *dims, label="ADF, spherical (eq 9.4)"),
                  color=SPHERICAL_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)),
        ]
        if result.replica is not None:
            parts.append(style(hv.Curve((f.alpha, result.replica), *dims,
                                        label="batch Bayes, N → ∞ (replica)"),
                               color=THEORY_COLOR, bokeh=DASHED, mpl=MPL_DASHED))
        b = result.batch
        if b is not None:
            parts += [
                style(hv.Spread((b.alpha, b.eps, 2 * b.stderr), kdims=[dims[0]],
                                vdims=[dims[1], "err"]),
                      alpha=0.2, bokeh=dict(color=BATCH_COLOR),
                      mpl=dict(facecolor=BATCH_COLOR, edgecolor="none")),
                style(hv.Curve((b.alpha, b.eps), *dims, label=f"batch Bayes, N = {b.N} (sampled)"),
                      color=BATCH_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)),
                style(hv.Scatter((b.alpha, b.eps), *dims), color=BATCH_COLOR,
                      bokeh=dict(size=5), mpl=dict(s=12))]
        return style(hv.Overlay(parts), logx=True, ylim=(0, 0.55), framewise=True)

    def entropic_plot(self, result: CurveResult):
        f = result.full
        dims = [axis("alpha", "α = t / N"), axis("ratio", "entropic error × 2t / N")]
        t = f.alpha * f.N
        ratio = f.entropic * 2 * t / f.N
        curve = style(hv.Curve((f.alpha, ratio), *dims, label="ADF, full (eq 8.11)"),
                      color=FULL_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))
        one = style(hv.Curve((f.alpha[[0, -1]], [1.0, 1.0]), *dims,
                             label="N / (2t), eq 8.12"),
                    color=THEORY_COLOR, bokeh=DASHED, mpl=MPL_DASHED)
        return style(curve * one, logx=True, ylim=(0, 1.45), framewise=True)

    plots = (Plot(curve_plot, title="Fig 2: ε against α"),
             Plot(entropic_plot, title="Entropic error (eq 8.12)"))
