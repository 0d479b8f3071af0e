"""Ising herding explorer: herding a lattice at the critical temperature against Swendsen-Wang.

Chen & Welling Sec 1.2.5 (eqs 1.21-1.24, Figs 1.6-1.7): Swendsen-Wang measures the
nearest-neighbour correlation c of the periodic L x L lattice at inverse temperature beta;
herding, given only (mean spin 0, c), produces its own samples with a local argmax. The page
shows both side by side (a timeline played in the browser over the samples), their
cluster-size histograms with fitted power-law slopes, the moments per step, and the perceptron cycling condition.
"""

from __future__ import annotations

from dataclasses import dataclass

import holoviews as hv
import numpy as np
import param

from dynamics import ising
from dynamics.papers import CHEN_WELLING
from views.framework.cache import results_cache
from views.framework.marks import legend_layer
from views.framework import (DASHED, DOTTED, MPL_DASHED, MPL_DOTTED, Explorer, Frames, Mark,
                             Plot, Section, Timeline, axis, style)
from views.framework.text import prose, verdict_markdown

SW_COLOR = "#1f77b4"
HERD_COLOR = "#d62728"
#: Samples (evenly spaced over the run) whose clusters the histograms pool.
CLUSTER_SAMPLES = 40
#: Swendsen-Wang sweeps discarded before the samples (the chain starts from random spins).
BURN_IN = 100
#: The two lattice colours: spin down, spin up.
SPIN_COLORS = ["#f2f2f2", "#222222"]
LATTICE_DIMS = (axis("col", "column"), axis("row", "row"), hv.Dimension("up", label="spin up"))
STEP_DIM = axis("step", "sample (sweep or step)")
#: The timeline's line at sample t on the per-sample panels.
NOW = dict(color="gray", bokeh=dict(line_width=1.5, **DOTTED), mpl=dict(linewidth=1, **MPL_DOTTED))


def _lattice_mark(plot, samples: str) -> Mark:
    """A chain's sample at time t on panel ``plot``: its spins, up or down (a frame's row,
    sent as bits)."""
    return Mark(plot, "image", x=samples, bounds="lattice", dims=LATTICE_DIMS, always=True,
                options=dict(cmap=SPIN_COLORS, clim=(0, 1), bokeh=dict(colorbar=False),
                             mpl=dict(colorbar=False)))


@dataclass(frozen=True)
class IsingPage:
    sw: ising.IsingSamples
    herd: ising.IsingHerding
    c: float
    sw_fit: ising.PowerLaw
    herd_fit: ising.PowerLaw


@results_cache
def run_page(L: int, beta: float, steps: int, seed: int, w0: float) -> IsingPage:
    sw = ising.swendsen_wang(L, beta, steps, burn_in=BURN_IN, seed=seed)
    c = float(sw.correlation.mean())
    herd = ising.herd_ising(L, (0.0, c), steps, w0=w0 if w0 > 0 else None, seed=seed)
    pick = np.unique(np.linspace(steps // 10, steps - 1, CLUSTER_SAMPLES).astype(int))
    return IsingPage(sw, herd, c, ising.cluster_histogram(sw.samples[pick]),
                     ising.cluster_histogram(herd.samples[pick]))


class IsingExplorer(Explorer):
    """Swendsen-Wang and herding on the periodic Ising lattice."""

    slug = "ising"
    title = "Ising herding"
    summary = ("Herding a 2-D Ising lattice at the critical temperature from two numbers, "
               "against Swendsen-Wang: samples, clusters and the perceptron cycling condition.")
    paper = CHEN_WELLING
    figures = "Figs 1.6-1.7; Sec 1.2.5, eqs 1.21-1.24"

    L = param.Integer(64, bounds=(16, 128), step=8, label="Lattice side L",
                      doc="The lattice is L x L with periodic wrap (the paper: 100).")
    beta = param.Number(round(ising.BETA_C, 3), bounds=(0.2, 0.7), step=0.001,
                        label="Inverse temperature β",
                        doc="beta of eq 1.21 for Swendsen-Wang; the default is the critical "
                            "beta_c = ln(1 + sqrt 2) / 2 = 0.441.")
    steps = param.Integer(1000, bounds=(200, 5000), step=100, label="Samples (steps)",
                          doc="Swendsen-Wang sweeps kept (after 100 of burn-in) and herding "
                              "steps.")
    seed = param.Integer(0, bounds=(0, 99_999), label="Seed",
                         doc="Seed of both chains' random starts.")
    w0 = param.Number(0.0, bounds=(0.0, 1.0), step=0.05, label="Herding w₀ noise",
                      doc="Half-width of uniform noise on the initial herding weights (0: zero "
                          "weights; the random start state breaks the symmetry).")

    fields = ("seed",)
    widgets = {name: {"throttled": True} for name in ("L", "beta", "steps", "w0")}
    # what the generic tests and benches need of this page (see ``Explorer``)
    example_change = {"seed": 3}
    bench_move = ("w0", [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4])

    text = prose(__file__, "page.md")

    def _compute(self) -> IsingPage:
        return run_page(int(self.L), float(self.beta), int(self.steps), int(self.seed),
                        float(self.w0))

    def status(self) -> str:
        page = self.result()
        sw, herd = page.sw, page.herd
        return (f"Swendsen-Wang: c = **{page.c:.4f}** (infinite lattice 0.7071 at "
                f"$\\beta_c$), |m| = **{np.abs(sw.magnetisation).mean():.2f}**, cluster slope "
                f"**{page.sw_fit.slope:.2f}**. Herding: c = **{herd.correlation.mean():.4f}**, |m| "
                f"= **{np.abs(herd.magnetisation).mean():.2f}**, slope "
                f"**{page.herd_fit.slope:.2f}**; PCT held in "
                f"**{herd.pct_held.mean():.1%}** of the steps. Slopes fitted over sizes "
                f"{page.sw_fit.fit_min:.0f}-{page.sw_fit.fit_max:.0f}. "
                + verdict_markdown(ising.cluster_exponent_claim(sw, herd, page.sw_fit,
                                                                page.herd_fit)))

    def sample_frames(self) -> Frames:
        """The timeline: t = 1..steps, the samples of both chains (spin up: True)."""
        page = self.result()
        L = page.sw.samples.shape[1]
        t = np.arange(1, len(page.sw.samples) + 1)
        return Frames(t, {}, arrays={"sw": page.sw.samples > 0, "herd": page.herd.samples > 0},
                      fixed={"lattice": (0.0, 0.0, float(L), float(L))})

    def _lattice(self):
        """The frame of a lattice panel: the sample is the timeline's mark (``always``)."""
        L = int(self.result().sw.samples.shape[1])
        return style(hv.Curve([], *LATTICE_DIMS[:2]), xlim=(0, L), ylim=(0, L),
                     framewise=True)

    def sw_image(self):
        return self._lattice()

    def herd_image(self):
        return self._lattice()

    def cluster_plot(self):
        page = self.result()
        dims = [axis("size", "cluster size (sites)"), axis("density", "clusters per sample and unit size")]
        layers = []
        for fit, color, name in ((page.sw_fit, SW_COLOR, "Swendsen-Wang"),
                                 (page.herd_fit, HERD_COLOR, "herding")):
            ok = fit.density > 0
            layers.append(style(hv.Scatter((fit.centers[ok], fit.density[ok]), *dims,
                                           label=f"{name} (slope {fit.slope:.2f})"),
                                color=color, bokeh=dict(size=6), mpl=dict(s=14)))
            used = ok & (fit.centers >= fit.fit_min) & (fit.centers <= fit.fit_max)
            if used.sum() >= 2:
                coef = np.polyfit(np.log(fit.centers[used]), np.log(fit.density[used]), 1)
                xs = fit.centers[used][[0, -1]]
                layers.append(style(hv.Curve((xs, np.exp(np.polyval(coef, np.log(xs)))), *dims),
                                    color=color, bokeh=dict(line_width=1.5), mpl=dict(linewidth=1)))
        return style(hv.Overlay(layers), logx=True, logy=True, framewise=True)

    def _per_step(self, field: str, label: str):
        page = self.result()
        dims = [STEP_DIM, axis(field, label)]
        t = np.arange(1, len(page.sw.samples) + 1, dtype=float)
        layers = [style(hv.Curve((t, getattr(page.sw, field)), *dims, label="Swendsen-Wang"),
                        color=SW_COLOR, bokeh=dict(line_width=1), mpl=dict(linewidth=0.8)),
                  style(hv.Curve((t, getattr(page.herd, field)), *dims, label="herding"),
                        color=HERD_COLOR, bokeh=dict(line_width=1), mpl=dict(linewidth=0.8))]
        return style(hv.Overlay(layers), framewise=True)

    def correlation_plot(self):
        page = self.result()
        plot = self._per_step("correlation", "mean neighbour product")
        t = np.arange(1, len(page.sw.samples) + 1, dtype=float)
        dims = [STEP_DIM, axis("correlation", "mean neighbour product")]
        line = style(hv.Curve((t[[0, -1]], [page.c, page.c]), *dims, label="target c"),
                     color="black", bokeh=DASHED, mpl=MPL_DASHED)
        return style(plot * line, framewise=True)

    def magnetisation_plot(self):
        return self._per_step("magnetisation", "mean spin m")

    def error_plot(self):
        page = self.result()
        dims = [axis("step", "step t"), axis("scaled", "t × |running mean − target|")]
        t = np.arange(1, len(page.sw.samples) + 1, dtype=float)
        solid = dict(bokeh=dict(line_width=1.5), mpl=dict(linewidth=1))
        dotted = dict(bokeh=dict(line_width=1.5, line_dash="dotted"),
                      mpl=dict(linewidth=1, linestyle=":"))
        layers = []
        for run, color in ((page.sw, SW_COLOR), (page.herd, HERD_COLOR)):
            # floored at 1e-3 for the log axis (a running mean can hit the target exactly)
            scaled = np.maximum(np.abs(np.cumsum(run.correlation - page.c)), 1e-3)
            layers.append(style(hv.Curve((t, scaled), *dims), color=color, **solid))
            scaled_m = np.maximum(np.abs(np.cumsum(run.magnetisation)), 1e-3)
            layers.append(style(hv.Curve((t, scaled_m), *dims), color=color, **dotted))
        # the legend names the colours (chains) and the dashes (moments) apart: two short rows
        # instead of four long ones under the plot
        layers += [legend_layer("curve", dims, label, color=color, **dash)
                   for label, color, dash in (("Swendsen-Wang", SW_COLOR, solid),
                                              ("herding", HERD_COLOR, solid),
                                              ("correlation", "black", solid),
                                              ("mean spin", "black", dotted))]
        return style(hv.Overlay(layers), logy=True, framewise=True)

    def sweeps_plot(self):
        page = self.result()
        herd = page.herd
        dims = [axis("step", "herding step"), axis("sweeps", "coordinate-ascent sweeps")]
        t = np.arange(1, len(herd.sweeps) + 1, dtype=float)
        curve = style(hv.Curve((t, herd.sweeps.astype(float)), *dims, label="sweeps a step"),
                      color=HERD_COLOR, bokeh=dict(line_width=1), mpl=dict(linewidth=0.8))
        bad = ~herd.pct_held
        # a point at NaN (not drawn) keeps the legend's symbol when no step failed: an empty
        # layer gets none in Bokeh's legend, which then read "PCT failed (0)" beside nothing
        fails = style(hv.Scatter((np.append(t[bad], np.nan),
                                  np.append(herd.sweeps[bad].astype(float), np.nan)), *dims,
                                 label=f"PCT failed ({bad.sum()})"),
                      color="black", bokeh=dict(size=6, marker="x"), mpl=dict(s=24, marker="X"))
        return style(curve * fails, logy=True, framewise=True)

    # --- panels, layout and time axis (the methods above) ------------------------------------
    plots = (
        Plot(sw_image, title="Swendsen-Wang sample"),
        Plot(herd_image, title="Herding sample"),
        Plot(cluster_plot, title="Cluster sizes (Fig 1.7)"),
        Plot(correlation_plot, title="Neighbour correlation per sample"),
        Plot(magnetisation_plot, title="Magnetisation per sample"),
        Plot(error_plot, title="Moment error × t (bounded: O(1/t))"),
        Plot(sweeps_plot, title="Local search: sweeps, PCT failures"),
    )
    timeline = Timeline(
        sample_frames, unit="sample", aliases={"frame": 1},
        caption=prose(__file__, "timeline.md"),
        marks=(_lattice_mark(sw_image, "sw"), _lattice_mark(herd_image, "herd"),
               *(Mark(p, "vline", x="t", options=NOW) for p in (
                   correlation_plot, magnetisation_plot, error_plot, sweeps_plot)),
               # the curves end at t (the target stays)
               *(Mark(p, "grow", x="t", dims=("step",), keep=("target",)) for p in (
                   correlation_plot, magnetisation_plot, error_plot, sweeps_plot))))
    sections = (
        Section((sw_image, herd_image)),
        Section((cluster_plot, correlation_plot, magnetisation_plot, error_plot,
                 sweeps_plot)),
    )
