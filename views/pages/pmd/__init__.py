"""Particle mirror descent explorer: a cloud of weighted particles learning a two-mode posterior.

Dai's thesis (seed 004), chapter 4: Algorithm 3 and the mixture-model experiment of Sec 4.6.1
(Fig 4.1). The live panels follow one PMD run as the data arrive (a timeline over its
log-spaced checkpoints, played in the browser); a run (a job) draws Fig 4.1: total variation and cross entropy of PMD, one-pass SMC,
SGLD, Gibbs and SVI against the data visited, over repeats, their final densities and their
average over the repeats (Fig 4.1's "average solution"). Two more runs: PMD's error against the
particle count (Theorems 18-19) and Bayesian logistic regression on the digits 8 against 6
(Sec 4.6.2) beside a long MALA reference and SGLD. The runs are in ``runs.py`` beside this
file, what they share with the live panels in ``common.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

import holoviews as hv
import numpy as np
import param
from bokeh.palettes import Inferno256

from dynamics import pmd
from dynamics.papers import DAI
from views.framework.cache import results_cache
from views.framework import Explorer, Frames, Mark, Plot, Section, Timeline, style
from views.framework.text import prose
from views.pages.pmd.common import (EXACT_COLOR, METHOD_COLORS, MODEL_KNOBS, THETA_DIMS,
                                    log_ticks)
from views.pages.pmd.runs import Fig41Run, LogisticRun, RateRun

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
#: Checkpoints a PMD run records (log-spaced in the data seen).
CHECKPOINTS = 25
#: Grid spacing of the live panels' densities (the run's metrics use 0.02, as the ridges of
#: the Sec 4.6.1 posterior are about 0.07 wide).
PAGE_SPACING = 0.04
SHARE = hv.Dimension("share", label="weight × m")
SEEN_DIMS = (hv.Dimension("seen", label="data seen"),
             hv.Dimension("ess", label="effective sample size"))
#: Particle colours by weight: light (orange) to dark, inferno without its pale-yellow end,
#: which vanished on the white page (the low-weight particles are most of them).
PARTICLE_CMAP = list(reversed(Inferno256[:185]))


@dataclass(frozen=True)
class PMDPage:
    """One PMD run on one data set, with the grid the live panels draw on."""

    model: pmd.MixtureModel
    data: np.ndarray
    run: pmd.Particles
    grid: pmd.Grid
    batch_size: int
    step_rule: str


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
                                          "bandwidth_rule")}

    # what the generic tests and benches need of this page (see ``Explorer``)
    example_change = {"seed": 2}
    bench_move = ("theta1", [0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    runs = (Fig41Run, RateRun, LogisticRun)

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
        # a square panel in exports, as on the page: matplotlib's default equal aspect drew
        # the grid's 1.6 x 12 window as a strip at p = 0.95, its ticks overprinted
        return style(image, cmap="viridis", colorbar=True, framewise=True,
                     bokeh=dict(tools=["hover"]), mpl=dict(aspect="square"))

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

    # --- panels, layout and time axis (the methods above) ------------------------------------
    plots = (
        Plot(cloud_plot, title="Particles at t over the posterior", ignores=("shown",)),
        Plot(kde_plot, title="Weighted KDE of the particles (end)", ignores=("shown",)),
        Plot(ess_plot, title="Effective sample size", ignores=("shown",)),
    )
    sections = (Section((cloud_plot, kde_plot, ess_plot)),)
    timeline = Timeline(
        particle_frames, unit="datum", max_frames=CHECKPOINTS + 1,
        caption=prose(__file__, "timeline.md"),
        marks=(Mark(cloud_plot, "points", x="px", y="py", more=("share", "size"),
                    dims=(*THETA_DIMS, SHARE, "size"), columns={"color": "share", "size": "size"},
                    always=True,
                    options=_particle_options),
               Mark(ess_plot, "point", x="seen", y="ess", dims=SEEN_DIMS,
                    options=dict(color="black", bokeh=dict(size=9), mpl=dict(s=40))),
               # the effective sample size ends at t
               Mark(ess_plot, "grow", x="seen", dims=SEEN_DIMS[:1])))
