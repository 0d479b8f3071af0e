"""Particle mirror descent explorer: a cloud of weighted particles learning a two-mode posterior.

Dai's thesis (seed 004), chapter 4: Algorithm 3 and the mixture-model experiment of Sec 4.6.1
(Fig 4.1). The live panels follow one PMD run as the data arrive (a timeline over its
log-spaced checkpoints, played in the browser); a run (a job) draws Fig 4.1: total variation and cross entropy of PMD, one-pass SMC,
SGLD, Gibbs and SVI against the data visited, over repeats, their final densities and their
average over the repeats (Fig 4.1's "average solution"). Two more runs: PMD's error against the
particle count (Theorems 18-19) and Bayesian logistic regression on the digits 8 against 6
(Sec 4.6.2) beside a long MALA reference and SGLD.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import holoviews as hv
import numpy as np
import param
from bokeh.palettes import Inferno256

from dynamics import pmd
from dynamics.papers import DAI
from views.framework.cache import results_cache
from views.framework import (DASHED, DOTTED, MPL_DASHED, MPL_DOTTED, Explorer, Frames, Mark,
                             Plot, Section, Timeline, style)
from views.framework.text import prose, verdict_markdown
from views.framework.legacy_runs import Run

#: Model presets: name -> the model knobs' values (standard deviations on the sliders' steps:
#: Welling and Teh's sigma1^2 = 10 and sigma_x^2 = 2 are 3.16^2 and 1.41^2 here). Sec 4.6.1's
#: "sigma_x = 2.5" has two readings (see ``dynamics.pmd.MODEL_PRESETS``): a variance, sigma_x =
#: sqrt(2.5) = 1.581, the default, under which Gibbs stays in one mode as the thesis says; and a
#: standard deviation. The first keeps the preset's old name, so that an older link (which
#: holds the preset's name and sigma_x = 2.5) opens as it did, on the second preset.
PRESETS = {
    "Dai, Sec 4.6.1 (Fig 4.1)": dict(sigma1=1.0, sigma2=1.0, sigma_x=1.581, p=0.5, theta1=1.0,
                                     theta2=-2.0, n_data=1000),
    "Dai, Sec 4.6.1, σₓ = 2.5 as a standard deviation": dict(
        sigma1=1.0, sigma2=1.0, sigma_x=2.5, p=0.5, theta1=1.0, theta2=-2.0, n_data=1000),
    "Welling & Teh 2011, Sec 5.1": dict(sigma1=3.16, sigma2=1.0, sigma_x=1.41, p=0.5,
                                        theta1=0.0, theta2=1.0, n_data=100),
}
CUSTOM = "custom"
MODEL_KNOBS = ("sigma1", "sigma2", "sigma_x", "p", "theta1", "theta2", "n_data")
#: Checkpoints a PMD run records (log-spaced in the data seen).
CHECKPOINTS = 25
#: Grid spacing of the live panels' densities (the run's metrics use 0.02, as the ridges of
#: the Sec 4.6.1 posterior are about 0.07 wide).
PAGE_SPACING = 0.04
THETA_DIMS = [hv.Dimension("t1", label="θ₁"), hv.Dimension("t2", label="θ₂")]
SHARE = hv.Dimension("share", label="weight × m")
SEEN_DIMS = (hv.Dimension("seen", label="data seen"),
             hv.Dimension("ess", label="effective sample size"))
METHOD_COLORS = {"PMD": "#d62728", "one-pass SMC": "#ff7f0e", "SGLD": "#1f77b4",
                 "Gibbs": "#2ca02c", "SVI": "#9467bd", "SGD NPV": "#8c564b"}
SHARE_DIMS = (hv.Dimension("smaller", label="weight in the smaller mode"),
              hv.Dimension("method", label="repeats keeping both modes"))
#: Short names for the mode panel's ticks (six of them side by side).
SHORT = {"one-pass SMC": "SMC"}
EXACT_COLOR = "#222222"
#: Particle colours by weight: light (orange) to dark, inferno without its pale-yellow end,
#: which vanished on the white page (the low-weight particles are most of them).
PARTICLE_CMAP = list(reversed(Inferno256[:185]))
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


@dataclass(frozen=True)
class PMDPage:
    """One PMD run on one data set, with the grid the live panels draw on."""

    model: pmd.MixtureModel
    data: np.ndarray
    run: pmd.Particles
    grid: pmd.Grid
    batch_size: int
    step_rule: str


def log_ticks(lo: float, hi: float) -> list[float]:
    """1, 3, 10, 30, ... between lo and hi: a log axis Bokeh would otherwise label at every
    integer multiple of a power of ten near its end."""
    ticks = [m * 10.0**e for e in range(0, 8) for m in (1, 3)]
    return [t for t in ticks if lo <= t <= hi]


@results_cache
def run_page(sigma1: float, sigma2: float, sigma_x: float, p: float, theta1: float,
             theta2: float, n_data: int, seed: int, particles: int, batch_size: int, strategy: str, step_rule: str,
             bandwidth_rule: str) -> PMDPage:
    """Draw the data and run PMD (cached per argument set)."""
    model = pmd.MixtureModel(sigma1, sigma2, sigma_x, p)
    data = model.sample(n_data, (theta1, theta2), seed=seed)
    run = pmd.particle_mirror_descent(model, data, particles=particles, batch_size=batch_size,
                                      seed=seed, strategy=strategy, step_size_rule=step_rule,
                                      bandwidth_rule=bandwidth_rule, checkpoints=CHECKPOINTS)
    grid = pmd.posterior_grid(model, data, spacing=PAGE_SPACING, max_side=160)
    return PMDPage(model, data, run, grid, batch_size, step_rule)


@results_cache
def exact_iterate(key: tuple, steps: int) -> np.ndarray:
    """The exact mirror-descent iterate after ``steps`` steps on the page's grid."""
    page = run_page(*key)
    return pmd.mirror_descent_iterate(page.model, page.data, page.grid.x, page.grid.y,
                                      steps=steps, batch_size=page.batch_size,
                                      step_size_rule=page.step_rule)


def _particle_options() -> dict:
    """The particles' mark style: colour by share, size by weight. A function: ``hv.dim``
    imports Panel, which the model's class body must not (``Mark.options``)."""
    return dict(color="share", cmap=PARTICLE_CMAP, logz=True, clim=(1e-3, 1e3),
                colorbar=True, bokeh=dict(size=hv.dim("size"), line_alpha=0),
                # both ends of the colour bar pointed at every time (shares beyond its range
                # occur): HoloViews points them from the data drawn first, so an export at t
                # and an animation's frame at t (whose bar is drawn once) would differ
                mpl=dict(s=2 * hv.dim("size"), linewidth=0, cbar_extend="both"))


class PMDExplorer(Explorer):
    """Particle mirror descent on the two-mode mixture posterior of Sec 4.6.1."""

    slug = "pmd"
    title = "Particle mirror descent"
    summary = ("Bayesian inference as mirror descent over densities: weighted particles find "
               "both modes of a posterior where local samplers find one.")
    paper = DAI
    figures = "Ch 4: Algorithm 3, Fig 4.1; eqs 4.3-4.8, Thms 18-19, Secs 4.6.1-4.6.2"

    preset = param.Selector(objects=[*PRESETS, CUSTOM], default=next(iter(PRESETS)),
                            label="Model preset",
                            doc="A model and data set from the papers (choosing one sets the "
                                "model knobs below); 'custom' once a model knob differs.")
    sigma1 = param.Number(1.0, bounds=(0.2, 5.0), step=0.01, label="Prior σ₁",
                          doc="Prior standard deviation of theta1.")
    sigma2 = param.Number(1.0, bounds=(0.2, 5.0), step=0.01, label="Prior σ₂",
                          doc="Prior standard deviation of theta2.")
    sigma_x = param.Number(1.581, bounds=(0.5, 5.0), step=0.001, label="Noise σₓ",
                           doc="Standard deviation of each mixture component. The thesis's "
                               "'σₓ = 2.5' is read as a variance by default (σₓ = 1.581); "
                               "the second Dai preset reads it as a standard deviation.")
    p = param.Number(0.5, bounds=(0.05, 0.95), step=0.05, label="Mixing weight p",
                     doc="Weight of the first component N(theta1, sigma_x^2). At 1/2 the "
                         "posterior has two equal modes.")
    theta1 = param.Number(1.0, bounds=(-3.0, 3.0), step=0.1, label="True θ₁",
                          doc="theta1 of the data: mean of the first component.")
    theta2 = param.Number(-2.0, bounds=(-3.0, 3.0), step=0.1, label="True θ₂",
                          doc="theta2 of the data: the second component's mean is "
                              "theta1 + theta2.")
    n_data = param.Integer(1000, bounds=(20, 2000), step=10, label="Data N",
                           doc="Number of observations, visited once in minibatches.")
    seed = param.Integer(1, bounds=(0, 99_999), label="Seed",
                         doc="Seed of the data and of the particles.")
    particles = param.Integer(1500, bounds=(100, 3000), step=100, label="Particles m",
                              doc="Number of particles (the final m_t of the KDE branch).")
    batch_size = param.Integer(10, bounds=(1, 100), label="Batch size b",
                               doc="Data per step; each step's likelihood is raised to N / b.")
    strategy = param.Selector(objects=list(pmd.STRATEGIES), default="particles",
                              label="Prox-mapping",
                              doc="particles: prior draws reweighted (eq 4.6); kde: resample "
                                  "from the weighted KDE every step (eqs 4.7-4.8); hybrid: "
                                  "the KDE for the first 30 % of the steps, then particles.")
    step_rule = param.Selector(objects=list(pmd.STEP_SIZES), default="1/t",
                               label="Step sizes γₜ",
                               doc="1/t makes the last iterate of one pass the exact "
                                   "posterior; 2/(t + 1) weighs later data more.")
    bandwidth_rule = param.Selector(objects=list(pmd.BANDWIDTH_RULES), default="prior",
                                    label="KDE bandwidth scale",
                                    doc="h_t = s m_t^(-1/4) (Theorem 17), s the prior's scale "
                                        "or the cloud's weighted spread (KDE and hybrid only).")
    repeats = param.Integer(3, bounds=(1, 10), label="Repeats",
                            doc="Data sets (and runs of every method) of the Fig 4.1 run; "
                                "the paper uses 10.")
    rate_data = param.Integer(100, bounds=(10, 1000), step=10, label="Data N (rate)",
                              doc="Data drawn from the page's model for the rate run (fewer "
                                  "than Fig 4.1's 1000, so that importance sampling from the "
                                  "prior reaches its asymptotic regime within 64000 particles).")
    rate_largest = param.Selector(objects=list(RATE_LARGEST), default=RATE_LARGEST[-1],
                                  label="Largest m",
                                  doc="Particle counts 250, 1000, ... up to this (×4 each).")
    rate_repeats = param.Integer(20, bounds=(2, 50), label="Repeats (rate)",
                                 doc="PMD runs per particle count.")
    lr_components = param.Integer(4, bounds=(1, 20), label="PCA components",
                                  doc="Dimensions the 8 x 8 digits are reduced to (the thesis: "
                                      "50 of MNIST's 784); a bias is added.")
    lr_particles = param.Integer(1000, bounds=(50, 3000), step=50, label="Particles (logistic)",
                                 doc="PMD's particles and SGLD's kept samples (the thesis: 1000).")
    lr_passes = param.Integer(5, bounds=(1, 20), label="Passes",
                              doc="Passes of PMD over the training data (the thesis: 5).")
    lr_repeats = param.Integer(10, bounds=(1, 20), label="Repeats (logistic)",
                               doc="Seeds of PMD and SGLD (the thesis: 10).")
    shown = param.ListSelector(default=list(pmd.METHODS), objects=list(pmd.METHODS),
                               label="Methods shown",
                               doc="Methods drawn in the Fig 4.1 curves.")

    fields = ("seed",)
    widgets = {
        "sigma1": {"throttled": True}, "sigma2": {"throttled": True},
        "sigma_x": {"throttled": True}, "p": {"throttled": True},
        "theta1": {"throttled": True}, "theta2": {"throttled": True},
        "n_data": {"throttled": True}, "particles": {"throttled": True},
        "batch_size": {"throttled": True},
        "shown": {"type": "checkboxes", "inline": False},
    }
    groups = {"Data": ("preset", *MODEL_KNOBS, "seed"),
              "Particle mirror descent": ("particles", "batch_size", "strategy", "step_rule",
                                          "bandwidth_rule"),
              "Fig 4.1 curves (the run below)": ("shown",)}

    # what the generic tests and benches need of this page (see ``Explorer``)
    example_change = {"seed": 2}
    bench_move = ("theta1", [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    plots = (
        Plot("cloud_plot", title="Particles at t over the posterior", ignores=("repeats", "shown")),
        Plot("kde_plot", title="Weighted KDE of the particles (end)", ignores=("repeats", "shown")),
        Plot("ess_plot", title="Effective sample size", ignores=("repeats", "shown")),
    )
    sections = (Section(("cloud_plot", "kde_plot", "ess_plot")),)
    timeline = Timeline(
        "particle_frames", unit="datum", max_frames=CHECKPOINTS + 1,
        caption=prose(__file__, "timeline.md"),
        marks=(Mark("cloud_plot", "points", x="px", y="py", more=("share", "size"),
                    dims=(*THETA_DIMS, SHARE, "size"), columns={"color": "share", "size": "size"},
                    always=True,
                    options=_particle_options),
               Mark("ess_plot", "point", x="seen", y="ess", dims=SEEN_DIMS,
                    options=dict(color="black", bokeh=dict(size=9), mpl=dict(s=40)))))
    runs = (
        Run("fig41", quick=(("repeats", 1), ("n_data", 20), ("particles", 100)),
            title="Every method against the exact posterior (Fig 4.1)",
            button="Run Fig 4.1", settings=("repeats",), compute="run_fig41",
            uses=(*MODEL_KNOBS, "seed", "particles", "batch_size", "strategy", "step_rule",
                  "bandwidth_rule"),
            plots=(Plot("tv_plot", title="Total variation (Fig 4.1 (1))"),
                   Plot("kl_plot", title="KL divergence (Fig 4.1 (2))"),
                   Plot("modes_plot", title="Smaller mode's weight, each repeat"),
                   Plot("exact_final", title="Exact posterior (Fig 4.1 (3))"),
                   *(Plot(f"final_{k}", title=f"{name}, end of the first repeat")
                     for k, name in enumerate(pmd.METHODS)),
                   Plot("average_exact", title="Exact posterior, mean of the repeats"),
                   *(Plot(f"average_{k}", title=f"{name}, average solution (Fig 4.1)")
                     for k, name in enumerate(pmd.METHODS))),
            text=prose(__file__, "fig41.md"),
            estimate="fig41_estimate", summary="fig41_summary"),
        Run("rate", quick=(("rate_repeats", 3), ("rate_largest", 4000), ("rate_data", 30)),
            title="Error against particle count (Theorems 18-19)", button="Run the rate",
            settings=("rate_data", "rate_largest", "rate_repeats"), compute="run_rate",
            uses=(*MODEL_KNOBS[:-1], "seed", "batch_size"),
            plots=(Plot("rate_plot", title="Error of the posterior mean against m"),),
            text=prose(__file__, "rate.md"),
            estimate="rate_estimate", summary="rate_summary"),
        Run("logistic", quick=(("lr_repeats", 1), ("lr_passes", 1), ("lr_particles", 100)),
            title="Bayesian logistic regression, digits 8 against 6 (Sec 4.6.2)",
            button="Run logistic regression",
            settings=("lr_components", "lr_particles", "lr_passes", "lr_repeats"),
            compute="run_logistic", uses=("seed", "batch_size"),
            plots=(Plot("lr_error_plot", title="Test error (Fig 4.2 (1))"),
                   Plot("lr_loglik_plot", title="Test log likelihood per point")),
            text=prose(__file__, "logistic.md"),
            estimate="logistic_estimate", summary="logistic_summary"),
    )

    text = prose(__file__, "page.md")

    # --- the preset ---------------------------------------------------------------------------
    # As the neuron page's rate preset: choosing a preset sets the model knobs; the preset shown
    # is the one the model knobs match, else 'custom'. Explicit values win, so a link holds.
    def __init__(self, **params):
        super().__init__(**params)
        put = self.set_unlinked
        if params.get("preset", CUSTOM) != CUSTOM and not set(params) & set(MODEL_KNOBS):
            for name, value in PRESETS[params["preset"]].items():
                put(name, value)
        put("preset", self._preset_of())

    def follow(self, name: str) -> None:
        if name not in ("preset", *MODEL_KNOBS):
            return
        if name == "preset" and self.preset != CUSTOM:
            for knob, preset_value in PRESETS[self.preset].items():
                self._put(knob, preset_value)
        self._put("preset", self._preset_of())

    def _preset_of(self) -> str:
        return next((name for name, values in PRESETS.items()
                     if all(getattr(self, k) == v for k, v in values.items())), CUSTOM)

    # --- computation -------------------------------------------------------------------------
    def _key(self) -> tuple:
        return (float(self.sigma1), float(self.sigma2), float(self.sigma_x), float(self.p), float(self.theta1),
                float(self.theta2), int(self.n_data), int(self.seed), int(self.particles),
                int(self.batch_size), self.strategy, self.step_rule, self.bandwidth_rule)

    def _compute(self) -> PMDPage:
        return run_page(*self._key())

    def _at(self):
        """The run's last checkpoint (the end of the pass): what the panels without marks and
        the status line show."""
        page = self.result()
        k = len(page.run.history["seen"]) - 1
        cloud, weights = page.run.history["clouds"][k]
        return page, k, cloud, weights

    def particle_frames(self) -> Frames:
        """The timeline: the data seen at each checkpoint, the particles then (the heaviest
        last, drawn on top), their share of the weight times m and dot size, and the ESS."""
        history = self.result().run.history
        rows = {name: [] for name in ("px", "py", "share", "size")}
        for cloud, weights in history["clouds"]:
            order = np.argsort(weights, kind="stable")
            share = weights[order] * weights.size
            rows["px"].append(cloud[order, 0])
            rows["py"].append(cloud[order, 1])
            rows["share"].append(share)
            rows["size"].append(2 + 1.5 * np.clip(share, 0, 40) ** 0.5)
        seen = np.asarray(history["seen"])
        return Frames(seen, {"seen": seen.astype(float), "ess": np.asarray(history["ess"], float)},
                      arrays={k: np.stack(v) for k, v in rows.items()})

    def status(self) -> str:
        page, k, cloud, weights = self._at()
        seen = page.run.history["seen"][k]
        below, above = pmd.mode_shares(cloud, weights)
        exact = exact_iterate(self._key(), self._steps(seen))
        exact_below = float(exact[page.grid.y < 0].sum() * page.grid.cell_area)
        return (f"At the end of the pass (**{seen}** data): effective sample size "
                f"**{page.run.history['ess'][k]:.0f}** of {cloud.shape[0]}; weight on θ₂ < 0 "
                f"**{below:.2f}** (exact iterate: {exact_below:.2f}).")

    def prepare(self) -> None:
        # the exact iterate that the status line and the cloud panel draw (the end of the pass)
        history = self._compute().run.history
        exact_iterate(self._key(), self._steps(history["seen"][-1]))

    def _steps(self, seen: int) -> int:
        return -(-seen // self.batch_size)

    # --- live panels -------------------------------------------------------------------------
    def cloud_plot(self):
        """The exact posterior's contours; the particles at t are the timeline's mark."""
        page, k, cloud, weights = self._at()
        seen = page.run.history["seen"][k]
        exact = exact_iterate(self._key(), self._steps(seen))
        image = hv.Image((page.grid.x, page.grid.y, exact), kdims=THETA_DIMS, vdims=["q"])
        levels = list(exact.max() * np.array([0.01, 0.1, 0.3, 0.6, 0.9]))
        contours = style(hv.operation.contours(image, levels=levels, filled=False),
                         color=EXACT_COLOR, framewise=True, bokeh=dict(line_width=1),
                         mpl=dict(linewidth=0.8))
        x0, x1 = page.grid.x[[0, -1]]
        y0, y1 = page.grid.y[[0, -1]]
        return style(hv.Overlay([contours]), xlim=(x0, x1), ylim=(y0, y1), framewise=True)

    def kde_plot(self):
        page, k, cloud, weights = self._at()
        h = pmd.median_bandwidth(cloud)
        dens = pmd.Particles(cloud, weights, h, "PMD").density_on(page.grid)
        image = hv.Image((page.grid.x, page.grid.y, dens.astype(np.float32)), kdims=THETA_DIMS,
                         vdims=[hv.Dimension("q", label=f"density (h = {h:.3f})")])
        return style(image, cmap="viridis", colorbar=True, framewise=True,
                     bokeh=dict(tools=["hover"]))

    def ess_plot(self):
        page, k, _, _ = self._at()
        seen = np.asarray(page.run.history["seen"], dtype=float)
        ess = np.asarray(page.run.history["ess"], dtype=float)
        # the axis fits the curve: a line at m (every weight equal; the status line gives m)
        # took the axis to 10⁴ and flattened an ESS under 30 against its floor
        curve = style(hv.Curve((seen, ess), *SEEN_DIMS), color=METHOD_COLORS["PMD"],
                      bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))
        lo, hi = max(0.5, 0.7 * float(ess.min())), 1.4 * float(ess.max())
        return style(hv.Overlay([curve]), logx=True, logy=True, framewise=True,
                     xticks=log_ticks(seen[0], seen[-1]), ylim=(lo, hi),
                     yticks=log_ticks(lo, hi) if hi > 3 * lo else None)

    # --- the Fig 4.1 run (a job) --------------------------------------------------------------
    def run_fig41(self, settings: dict, progress=None) -> pmd.RepeatSummary:
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

    def fig41_estimate(self, settings: dict) -> float:
        scale = settings["n_data"] / 1000 * settings["particles"] / 1500
        return SECONDS_PER_REPEAT * settings["repeats"] * max(scale, 0.2)

    def fig41_summary(self, settings: dict, result: pmd.RepeatSummary) -> str:
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
        for name in self.shown:
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
        names = [name for name in self.shown if name in result.smaller_share]
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

    def _density_image(self, grid, dens, label="posterior density"):
        image = hv.Image((grid.x, grid.y, dens.astype(np.float32)), kdims=THETA_DIMS,
                         vdims=[hv.Dimension("q", label=label)])
        return style(image, cmap="viridis", colorbar=True, framewise=True)

    def exact_final(self, result):
        first = result.comparisons[0]
        return self._density_image(first.grid, first.exact)

    def _final(self, result, k: int):
        first = result.comparisons[0]
        name = pmd.METHODS[k]
        if name not in first.densities:  # a partial result: this method has not run yet
            return self._density_image(first.grid, np.zeros(first.grid.shape),
                                       label=f"{name}: not run yet")
        return self._density_image(first.grid, first.densities[name], label=f"{name} density")

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


    # --- the rate of Theorems 18-19 (a job) ----------------------------------------------------
    def _model(self, settings: dict) -> pmd.MixtureModel:
        return pmd.MixtureModel(settings["sigma1"], settings["sigma2"], settings["sigma_x"],
                                settings["p"])

    def run_rate(self, settings: dict, progress=None) -> pmd.RateResult:
        model = self._model(settings)
        data = model.sample(int(settings["rate_data"]), (settings["theta1"], settings["theta2"]),
                            seed=int(settings["seed"]))
        counts = [250 * 4 ** k for k in range(8) if 250 * 4 ** k <= settings["rate_largest"]]
        return pmd.particle_rate(model, data, counts=counts,
                                 repeats=int(settings["rate_repeats"]),
                                 batch_size=int(settings["batch_size"]),
                                 seed=int(settings["seed"]))

    def rate_estimate(self, settings: dict) -> float:
        total = sum(250 * 4 ** k for k in range(8) if 250 * 4 ** k <= settings["rate_largest"])
        return 1.0 + RATE_SECONDS * settings["rate_repeats"] * total / 1000 * \
            settings["rate_data"] / 100

    def rate_summary(self, settings: dict, result: pmd.RateResult) -> str:
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

    # --- Bayesian logistic regression (a job) ----------------------------------------------------
    def run_logistic(self, settings: dict, progress=None) -> pmd.LogisticComparison:
        data = pmd.digits_pair(components=int(settings["lr_components"]),
                               seed=int(settings["seed"]) % 2**32)
        return pmd.compare_logistic(data, particles=int(settings["lr_particles"]),
                                    batch_size=int(settings["batch_size"]),
                                    passes=int(settings["lr_passes"]),
                                    repeats=int(settings["lr_repeats"]),
                                    seed=int(settings["seed"]), progress=progress)

    def logistic_estimate(self, settings: dict) -> float:
        return 1.5 + LOGISTIC_SECONDS * settings["lr_repeats"] * settings["lr_particles"] / 1000 \
            * (settings["lr_passes"] + 1) / 6

    def logistic_summary(self, settings: dict, result: pmd.LogisticComparison) -> str:
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


    # --- Fig 4.1's average solution -------------------------------------------------------------
    def _averages(self, result):
        cached = getattr(self, "_average_cache", None)
        if cached is None or cached[0] is not result:
            cached = (result, pmd.average_densities(result))
            self._average_cache = cached
        return cached[1]

    def average_exact(self, result):
        grid, dens = self._averages(result)
        return self._density_image(grid, dens["exact"], label="mean exact posterior")

    def _average(self, result, k: int):
        grid, dens = self._averages(result)
        name = pmd.METHODS[k]
        if name not in dens:  # a partial result: this method has not run yet
            return self._density_image(grid, np.zeros(grid.shape), label=f"{name}: not run yet")
        return self._density_image(grid, dens[name], label=f"{name}, mean density")

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
