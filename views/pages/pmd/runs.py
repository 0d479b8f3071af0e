"""The particle mirror descent page's runs (Dai, ch 4): every method against the exact posterior
over repeats (Fig 4.1, with its average solution), PMD's error against the particle count
(Theorems 18-19), and Bayesian logistic regression on the digits 8 against 6 (Sec 4.6.2)."""

from __future__ import annotations

import math

import holoviews as hv
import numpy as np
import param

from dynamics import pmd
from views.framework import DASHED, DOTTED, MPL_DASHED, MPL_DOTTED, Plot, prose, style
from views.framework.runs import Run
from views.framework.text import verdict_markdown
from views.pages.pmd.common import EXACT_COLOR, METHOD_COLORS, MODEL_KNOBS, THETA_DIMS, log_ticks

__all__ = ["Fig41Run", "RateRun", "LogisticRun", "SECONDS_PER_REPEAT", "RATE_LARGEST",
           "RATE_SECONDS", "LOGISTIC_SECONDS"]

SHARE_DIMS = (hv.Dimension("smaller", label="weight in the smaller mode"),
              hv.Dimension("method", label="repeats keeping both modes"))
#: Short names for the mode panel's ticks (six of them side by side).
SHORT = {"one-pass SMC": "SMC"}
#: Seconds per repeat of the Fig 4.1 run at the default sizes on the development machine (2
#: shared cores), for the estimate shown before a run: the default 3 repeats took 23.1 s (16.2 s
#: of CPU).
SECONDS_PER_REPEAT = 7.0
#: The rate run's largest particle counts (counts 250 x 4^k up to it).
RATE_LARGEST = (4000, 16000, 64000)
#: Seconds of the rate run per repeat and 1000 particles at 100 data, and of the logistic run
#: per repeat and 1000 particles at 5 passes (measured on the development machine).
RATE_SECONDS = 0.006
LOGISTIC_SECONDS = 1.6
LR_COLORS = {"PMD": "#d62728", "SGLD": "#1f77b4"}


def density_image(grid, dens, label="posterior density"):
    image = hv.Image((grid.x, grid.y, dens.astype(np.float32)), kdims=THETA_DIMS,
                     vdims=[hv.Dimension("q", label=label)])
    return style(image, cmap="viridis", colorbar=True, framewise=True)


class Fig41Run(Run):
    """PMD, one-pass SMC, SGLD, Gibbs and SVI on the page's model over repeats (Fig 4.1): their
    distance to the exact posterior as the data are visited, the weight each keeps in the
    smaller mode, their final densities and their average over the repeats. The page's knob
    ``shown`` picks the methods the curves draw."""

    key = "fig41"
    title = "Every method against the exact posterior (Fig 4.1)"
    button = "Run Fig 4.1"
    text = prose(__file__, "fig41.md")
    uses = (*MODEL_KNOBS, "seed", "particles", "batch_size", "strategy", "step_rule",
            "bandwidth_rule")
    display = ("shown",)
    aliases = {"repeats": "repeats"}
    quick = {"repeats": 1, "n_data": 20, "particles": 100}

    repeats = param.Integer(3, bounds=(1, 10), label="Repeats",
                            doc="Data sets (and runs of every method) of the Fig 4.1 run; "
                                "the paper uses 10.")

    def compute(self, settings: dict, progress=None) -> pmd.RepeatSummary:
        model = pmd.MixtureModel(settings["sigma1"], settings["sigma2"], settings["sigma_x"],
                                 settings["p"])
        options = dict(strategy=settings["strategy"], step_size_rule=settings["step_rule"],
                       bandwidth_rule=settings["bandwidth_rule"])
        return pmd.compare_repeats(model, (settings["theta1"], settings["theta2"]),
                                   int(settings["n_data"]), repeats=int(settings["repeats"]),
                                   seed=int(settings["seed"]),
                                   particles=int(settings["particles"]),
                                   batch_size=int(settings["batch_size"]), pmd_options=options,
                                   progress=progress)

    def estimate(self, settings: dict) -> float:
        scale = settings["n_data"] / 1000 * settings["particles"] / 1500
        return SECONDS_PER_REPEAT * settings["repeats"] * max(scale, 0.2)

    def summary(self, settings: dict, result: pmd.RepeatSummary) -> str:
        finals = ", ".join(
            f"{name} {result.tv[name][:, -1].mean():.2f}" for name in result.tv)
        best = min(result.tv, key=lambda name: result.tv[name][:, -1].mean())
        runs = len(result.comparisons)
        lines = []
        for name in ("PMD", "one-pass SMC"):
            done = [c.results[name] for c in result.comparisons if name in c.results]
            if not done:
                continue
            ess = np.mean([r.ess for r in done])
            line = f"{name} ended with an effective sample size of {ess:.0f} (mean)"
            if name == "one-pass SMC":
                events = np.mean([r.history["resamplings"][-1] for r in done])
                line += f" after {events:.1f} resampling events"
            lines.append(line)
        particles = ("; ".join(lines) + ". ") if lines else ""
        h = result.bandwidth[np.isfinite(result.bandwidth)]
        span = f"{h.min():.3f}" if h.size and h.min() == h.max() else \
            f"{h.min():.3f}-{h.max():.3f}" if h.size else ""
        kernel = f"one bandwidth per data set, {span}" if h.size else "the median trick"
        return (f"**This run** ({runs} repeat{'s' if runs > 1 else ''}): lowest final total "
                f"variation **{best}**; means: {finals}; the floor (exact posterior draws of "
                f"the same size through the same KDE, {kernel}) "
                f"{result.floor_tv.mean():.2f}. PMD ended below both SGLD and Gibbs in "
                f"{result.pmd_beats_local.sum()} of {runs}. {particles}The paper "
                f"reports PMD lowest, with Gibbs and SGLD stuck in one mode. "
                + verdict_markdown(pmd.best_method_claim(result)) + " "
                + verdict_markdown(pmd.both_modes_claim(result)))

    def methods_shown(self) -> list[str]:
        """The methods the curves draw: the page's ``shown`` (every method without a page)."""
        return list(pmd.METHODS) if self.model is None else list(self.model.shown)

    def _curves_plot(self, result, metric: str, label: str):
        layers = []
        top = max(float(np.max(result.seen[name])) for name in result.seen)
        dims = [hv.Dimension("seen", label="data visited"), hv.Dimension(metric, label=label)]
        # the floor first, under the curves: its range over draws and repeats, and its mean
        spread = getattr(result, f"floor_{metric}_range")
        floor = float(np.mean(getattr(result, f"floor_{metric}")))
        layers.append(style(hv.Area(([1.0, top], [spread[:, 0].min()] * 2,
                                     [spread[:, 1].max()] * 2), dims[0],
                                    [dims[1], f"{metric}_floor_hi"]),
                            color=EXACT_COLOR, alpha=0.2, bokeh=dict(line_alpha=0),
                            mpl=dict(facecolor=EXACT_COLOR, linewidth=0)))
        layers.append(style(hv.Curve(([1.0, top], [floor, floor]), *dims,
                                     label="exact draws (floor)"),
                            color=EXACT_COLOR, bokeh=DASHED, mpl=MPL_DASHED))
        for name in self.methods_shown():
            if name not in getattr(result, metric):
                continue
            values = getattr(result, metric)[name]
            seen = np.asarray(result.seen[name], dtype=float)
            color = METHOD_COLORS[name]
            if values.shape[0] > 1:
                layers.append(style(hv.Area((seen, values.min(0), values.max(0)), dims[0],
                                            [dims[1], f"{metric}_hi"]),
                                    color=color, alpha=0.2, bokeh=dict(line_alpha=0),
                                    mpl=dict(facecolor=color, linewidth=0)))
            layers.append(style(hv.Curve((seen, values.mean(0)), *dims, label=name),
                                color=color, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)))
        return style(hv.Overlay(layers), logx=True, framewise=True,
                     xticks=[t for t in log_ticks(1, top) if t == 10 ** round(math.log10(t))])

    def modes_plot(self, result):
        """Each method's weight in the smaller mode (the side of θ₂ = 0 with less), one dot
        per repeat, under the exact posterior's; the dotted line is the share above which a
        method keeps both modes. The method's label counts the repeats that do. Methods run
        down the vertical axis, so that their labels read across."""
        runs = len(result.comparisons)
        names = [name for name in self.methods_shown() if name in result.smaller_share]
        rng = np.random.default_rng(0)  # a fixed jitter, so that the dots of a row part
        layers, ticks = [], [(0.0, "exact")]
        rows = [("exact", result.exact_smaller_share, EXACT_COLOR)]
        rows += [(name, result.smaller_share[name], METHOD_COLORS[name]) for name in names]
        for k, (name, share, color) in enumerate(rows):
            y = -k + 0.2 * (rng.random(share.size) - 0.5) * (share.size > 1)
            layers.append(style(hv.Scatter((share, y), *SHARE_DIMS),
                                color=color, bokeh=dict(size=8), mpl=dict(s=30)))
            if k:
                kept = int(result.both_modes[name].sum())
                ticks.append((float(-k), f"{SHORT.get(name, name)} {kept}/{runs}"))
        layers.append(style(hv.Curve(([pmd.MODE_FLOOR] * 2, [0.5, 0.5 - len(rows)]),
                                     *SHARE_DIMS), color="#555555", bokeh=DOTTED,
                            mpl=MPL_DOTTED))
        return style(hv.Overlay(layers), framewise=True, yticks=ticks,
                     ylim=(0.5 - len(rows), 0.5), xlim=(-0.02, 0.52))

    def tv_plot(self, result):
        return self._curves_plot(result, "tv", "total variation to the posterior")

    def kl_plot(self, result):
        """Cross entropy minus the posterior's entropy: KL(p || q), on a log axis (the cross
        entropy itself is negative for a posterior this narrow)."""
        plot = self._curves_plot(result, "kl", "cross entropy − entropy = KL (nats)")
        return style(plot, logy=True)

    # --- each method's density at the end of the first repeat ------------------------------------
    def exact_final(self, result):
        first = result.comparisons[0]
        return density_image(first.grid, first.exact)

    def _final(self, result, k: int):
        first = result.comparisons[0]
        name = pmd.METHODS[k]
        if name not in first.densities:  # a partial result: this method has not run yet
            return density_image(first.grid, np.zeros(first.grid.shape),
                                 label=f"{name}: not run yet")
        return density_image(first.grid, first.densities[name], label=f"{name} density")

    def final_0(self, result):
        return self._final(result, 0)

    def final_1(self, result):
        return self._final(result, 1)

    def final_2(self, result):
        return self._final(result, 2)

    def final_3(self, result):
        return self._final(result, 3)

    def final_4(self, result):
        return self._final(result, 4)

    # --- Fig 4.1's average solution -------------------------------------------------------------
    def _averages(self, result):
        cached = getattr(self, "_average_cache", None)
        if cached is None or cached[0] is not result:
            cached = (result, pmd.average_densities(result))
            self._average_cache = cached
        return cached[1]

    def average_exact(self, result):
        grid, dens = self._averages(result)
        return density_image(grid, dens["exact"], label="mean exact posterior")

    def _average(self, result, k: int):
        grid, dens = self._averages(result)
        name = pmd.METHODS[k]
        if name not in dens:  # a partial result: this method has not run yet
            return density_image(grid, np.zeros(grid.shape), label=f"{name}: not run yet")
        return density_image(grid, dens[name], label=f"{name}, mean density")

    def average_0(self, result):
        return self._average(result, 0)

    def average_1(self, result):
        return self._average(result, 1)

    def average_2(self, result):
        return self._average(result, 2)

    def average_3(self, result):
        return self._average(result, 3)

    def average_4(self, result):
        return self._average(result, 4)

    plots = (Plot(tv_plot, title="Total variation (Fig 4.1 (1))", depends=("shown",)),
             Plot(kl_plot, title="KL divergence (Fig 4.1 (2))", depends=("shown",)),
             Plot(modes_plot, title="Smaller mode's weight, each repeat", depends=("shown",)),
             Plot(exact_final, title="Exact posterior (Fig 4.1 (3))"),
             *(Plot(method, title=f"{name}, end of the first repeat")
               for method, name in zip((final_0, final_1, final_2, final_3, final_4),
                                       pmd.METHODS)),
             Plot(average_exact, title="Exact posterior, mean of the repeats"),
             *(Plot(method, title=f"{name}, average solution (Fig 4.1)")
               for method, name in zip((average_0, average_1, average_2, average_3, average_4),
                                       pmd.METHODS)))


class RateRun(Run):
    """PMD's error in the posterior mean against the particle count (Theorems 18-19)."""

    key = "rate"
    title = "Error against particle count (Theorems 18-19)"
    button = "Run the rate"
    text = prose(__file__, "rate.md")
    uses = (*MODEL_KNOBS[:-1], "seed", "batch_size")
    aliases = {"rate_data": "data", "rate_largest": "largest", "rate_repeats": "repeats"}
    quick = {"repeats": 3, "largest": 4000, "data": 30}

    data = param.Integer(100, bounds=(10, 1000), step=10, label="Data N (rate)",
                         doc="Data drawn from the page's model for the rate run (fewer "
                             "than Fig 4.1's 1000, so that importance sampling from the "
                             "prior reaches its asymptotic regime within 64000 particles).")
    largest = param.Selector(objects=list(RATE_LARGEST), default=RATE_LARGEST[-1],
                             label="Largest m",
                             doc="Particle counts 250, 1000, ... up to this (×4 each).")
    repeats = param.Integer(20, bounds=(2, 50), label="Repeats (rate)",
                            doc="PMD runs per particle count.")

    def compute(self, settings: dict, progress=None) -> pmd.RateResult:
        model = pmd.MixtureModel(settings["sigma1"], settings["sigma2"], settings["sigma_x"],
                                 settings["p"])
        data = model.sample(int(settings["data"]), (settings["theta1"], settings["theta2"]),
                            seed=int(settings["seed"]))
        counts = [250 * 4 ** k for k in range(8) if 250 * 4 ** k <= settings["largest"]]
        return pmd.particle_rate(model, data, counts=counts, repeats=int(settings["repeats"]),
                                 batch_size=int(settings["batch_size"]),
                                 seed=int(settings["seed"]))

    def estimate(self, settings: dict) -> float:
        total = sum(250 * 4 ** k for k in range(8) if 250 * 4 ** k <= settings["largest"])
        return 1.0 + RATE_SECONDS * settings["repeats"] * total / 1000 * settings["data"] / 100

    def summary(self, settings: dict, result: pmd.RateResult) -> str:
        return (f"**This run**: fitted slope {result.slope:.3f} ± {result.slope_sd:.3f}; "
                "Theorem 18 says −1/2. " + verdict_markdown(pmd.rate_claim(result)))

    def rate_plot(self, result: pmd.RateResult):
        dims = [hv.Dimension("m", label="particles m"),
                hv.Dimension("error", label="error of the posterior mean")]
        m = np.repeat(result.counts, result.errors.shape[1]).astype(float)
        fit = np.exp(result.intercept) * result.counts.astype(float) ** result.slope
        guide = result.rms[0] * (result.counts / result.counts[0]) ** -0.5
        return style(hv.Overlay([
            style(hv.Scatter((m, np.maximum(result.errors.ravel(), 1e-12)), *dims,
                             label="each repeat"), color="#999999", alpha=0.5,
                  bokeh=dict(size=4), mpl=dict(s=8)),
            style(hv.Curve((result.counts, result.rms), *dims, label="RMS"), color="#d62728",
                  bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)),
            style(hv.Curve((result.counts, fit), *dims,
                           label=f"fit, slope {result.slope:.2f}"), color="#d62728",
                  bokeh=DOTTED, mpl=MPL_DOTTED),
            style(hv.Curve((result.counts, guide), *dims, label="slope −1/2"),
                  color=EXACT_COLOR, bokeh=DASHED, mpl=MPL_DASHED)]),
            logx=True, logy=True, framewise=True)

    plots = (Plot(rate_plot, title="Error of the posterior mean against m"),)


class LogisticRun(Run):
    """Bayesian logistic regression on the digits 8 against 6 by PMD and SGLD, beside a long
    MALA reference (Sec 4.6.2)."""

    key = "logistic"
    title = "Bayesian logistic regression, digits 8 against 6 (Sec 4.6.2)"
    button = "Run logistic regression"
    text = prose(__file__, "logistic.md")
    uses = ("seed", "batch_size")
    aliases = {"lr_components": "components", "lr_particles": "particles",
               "lr_passes": "passes", "lr_repeats": "repeats"}
    quick = {"repeats": 1, "passes": 1, "particles": 100}

    components = param.Integer(4, bounds=(1, 20), label="PCA components",
                               doc="Dimensions the 8 x 8 digits are reduced to (the thesis: "
                                   "50 of MNIST's 784); a bias is added.")
    particles = param.Integer(1000, bounds=(50, 3000), step=50, label="Particles (logistic)",
                              doc="PMD's particles and SGLD's kept samples (the thesis: 1000).")
    passes = param.Integer(5, bounds=(1, 20), label="Passes",
                           doc="Passes of PMD over the training data (the thesis: 5).")
    repeats = param.Integer(10, bounds=(1, 20), label="Repeats (logistic)",
                            doc="Seeds of PMD and SGLD (the thesis: 10).")

    def compute(self, settings: dict, progress=None) -> pmd.LogisticComparison:
        data = pmd.digits_pair(components=int(settings["components"]),
                               seed=int(settings["seed"]) % 2**32)
        return pmd.compare_logistic(data, particles=int(settings["particles"]),
                                    batch_size=int(settings["batch_size"]),
                                    passes=int(settings["passes"]),
                                    repeats=int(settings["repeats"]),
                                    seed=int(settings["seed"]), progress=progress)

    def estimate(self, settings: dict) -> float:
        return 1.5 + LOGISTIC_SECONDS * settings["repeats"] * settings["particles"] / 1000 \
            * (settings["passes"] + 1) / 6

    def summary(self, settings: dict, result: pmd.LogisticComparison) -> str:
        ref = result.reference
        return (f"**This run**: MALA reference R̂ at most {ref.rhat.max():.3f}, acceptance "
                f"{ref.acceptance.mean():.2f}; PMD's final effective sample size "
                f"{np.mean([r.ess for r in result.runs['PMD']]):.0f} of "
                f"{result.settings['particles']}. The thesis reports 98.8% test accuracy on "
                "MNIST8M. " + verdict_markdown(pmd.logistic_claim(result)))

    def _lr_plot(self, result: pmd.LogisticComparison, key: str, label: str):
        dims = [hv.Dimension("seen", label="data visited"), hv.Dimension(key, label=label)]
        layers = []
        top = 1.0
        for name, runs in result.runs.items():
            seen = np.asarray(runs[0].history["seen"], dtype=float)
            values = np.array([r.history[key] for r in runs])
            top = max(top, seen.max())
            if values.shape[0] > 1:
                layers.append(style(hv.Area((seen, values.min(0), values.max(0)), dims[0],
                                            [dims[1], f"{key}_hi"]),
                                    color=LR_COLORS[name], alpha=0.2, bokeh=dict(line_alpha=0),
                                    mpl=dict(facecolor=LR_COLORS[name], linewidth=0)))
            layers.append(style(hv.Curve((seen, values.mean(0)), *dims, label=name),
                                color=LR_COLORS[name], bokeh=dict(line_width=2),
                                mpl=dict(linewidth=1.5)))
        ref = result.reference.test_error if key == "error" else result.reference.test_loglik
        layers.insert(0, style(hv.Curve(([1.0, top], [ref, ref]), *dims, label="MALA reference"),
                               color=EXACT_COLOR, bokeh=DASHED, mpl=MPL_DASHED))
        return style(hv.Overlay(layers), logx=True, framewise=True)

    def lr_error_plot(self, result):
        return self._lr_plot(result, "error", "test error")

    def lr_loglik_plot(self, result):
        return self._lr_plot(result, "loglik", "test log likelihood per point (nats)")

    plots = (Plot(lr_error_plot, title="Test error (Fig 4.2 (1))"),
             Plot(lr_loglik_plot, title="Test log likelihood per point"))
