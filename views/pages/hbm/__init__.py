"""Bias and variance of hierarchical models: higher-order Boltzmann machines against RBMs
(Luo & Sugiyama; the subset-poset log-linear model, eqs 4-8, Figs 3-9).

Live: a random P* over the 2^n states, its projection P*_B onto the HBM of a chosen order, and
one fit to a dataset of N samples; theta and eta on the poset. A run sweeps models, sample sizes
and datasets (``dynamics.hbm.sweep``) and draws total error, bias and variance against N and
against the number of parameters. A second run puts the paper's own inference (Gibbs-sampled
gradients, log Z by AIS, eq 8) beside the exact one (``dynamics.hbm.inference_study``).
"""

from __future__ import annotations

from dataclasses import dataclass

import holoviews as hv
import numpy as np
import param

from dynamics import hbm
from dynamics.papers import LUO
from views.framework.cache import results_cache
from views.framework import DASHED, MPL_DASHED, Explorer, Plot, axis, style
from views.framework.text import prose
from views.pages.hbm.common import FIT_COLOR, PROJ_COLOR, PSTAR_COLOR
from views.pages.hbm.runs import InferenceRun, SweepRun

#: Knobs of the live panels (all of them; the runs use some of them too).
LIVE = ("n", "seed", "order", "sample", "mode")


@dataclass(frozen=True)
class LivePage:
    p_star: np.ndarray
    projection: np.ndarray
    counts: np.ndarray
    fitted: np.ndarray


@results_cache
def run_live(n: int, seed: int, order: int, sample: int, mode: str) -> LivePage:
    p_star = hbm.random_distribution(n, seed=seed)
    projection = hbm.project(p_star, order)
    counts = np.random.default_rng([seed, sample]).multinomial(sample, p_star).astype(float)
    fitted = hbm.fit_hbm(counts, order, mode=mode,
                         start=projection if mode == "converged" else None)
    return LivePage(p_star, projection, counts, fitted)


class HBMExplorer(Explorer):
    """Higher-order Boltzmann machines and RBMs: the bias-variance trade-off, exactly."""

    slug = "hbm"
    title = "Bias and variance: HBM against RBM"
    summary = ("Learning a distribution over n bits with more interactions or more hidden "
               "units: exact bias and variance of the KL error against N and model size.")
    paper = LUO
    figures = ("Figs 3-9 and eq 8's inference; eqs 4-8, the bias-variance decomposition of the "
               "KL error")

    n = param.Integer(8, bounds=(4, 12), label="Variables n",
                      doc="Binary variables; the states are the 2^n subsets (bitmasks).")
    seed = param.Integer(0, bounds=(0, 99_999), label="Seed",
                         doc="Seed of P* (U[0, 1] per state, normalised) and the datasets.")
    order = param.Integer(2, bounds=(1, 12), label="HBM order k (shown)",
                          doc="Interactions of up to k variables: theta on 1 <= |x| <= k.")
    sample = param.Integer(500, bounds=(10, 50_000), step=10, label="Sample size N (shown)",
                           doc="Samples of the dataset fitted in the live panels.")
    mode = param.Selector(default="converged", objects=["converged", "gradient"],
                          label="Fit",
                          doc="'converged': maximum likelihood with 0.5 pseudo-counts per "
                              "state; 'gradient': the paper's 10^4 steps of 0.1 from theta = 0.")

    fields = ("seed",)
    widgets = {name: {"throttled": True} for name in ("n", "order", "sample")}
    # what the generic tests and benches need of this page (see ``Explorer``)
    example_change = {"seed": 2}
    bench_move = ("sample", [510, 520, 530, 540, 550, 560, 570, 580])
    runs = (SweepRun, InferenceRun)

    text = prose(__file__, "page.md")

    # --- live --------------------------------------------------------------------------------
    def knob_bounds(self) -> dict:
        return {"order": (1, int(self.n), f"n = {int(self.n)}")}

    def _compute(self) -> LivePage:
        return run_live(int(self.n), int(self.seed), int(self.order), int(self.sample),
                        str(self.mode))

    def states_plot(self):
        page = self.result()
        order = np.argsort(page.p_star)[::-1]
        rank = np.arange(order.size, dtype=float)
        dims = [axis("rank", "state, by decreasing P*(x)"), axis("prob", "probability")]
        lines = [
            style(hv.Curve((rank, page.fitted[order]), *dims, label=f"fit to N = {self.sample:,}"),
                  color=FIT_COLOR, alpha=0.7, bokeh=dict(line_width=1), mpl=dict(linewidth=0.8)),
            style(hv.Curve((rank, page.projection[order]), *dims,
                           label=f"P*(B), order {self.order}"),
                  color=PROJ_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)),
            style(hv.Curve((rank, page.p_star[order]), *dims, label="P*"), color=PSTAR_COLOR,
                  bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)),
        ]
        return style(hv.Overlay(lines), framewise=True)

    def theta_plot(self):
        """theta of the fit on every set: the Hasse diagram for n <= 5, else theta against |x|
        with the order's edge. Both are segments under points coloured by theta, with the same
        columns (x, y, theta), so that moving n across 5 updates the live panel in place."""
        page = self.result()
        n = int(self.n)
        theta = hbm.theta_of(page.fitted)
        size = hbm.popcount(n).astype(float)
        shown = theta.copy()
        shown[0] = np.nan  # theta(bottom) = -log Z is not a parameter
        lim = float(np.nanmax(np.abs(shown))) or 1.0
        if n <= 5:
            # The Hasse diagram: sets by size (y) and by index within their level (x).
            level_pos = np.zeros(1 << n)
            for k in range(n + 1):
                members = np.flatnonzero(size == k)
                level_pos[members] = np.linspace(-1, 1, len(members)) if len(members) > 1 else 0
            dims = [axis("x", "sets of the same size"), axis("y", "size of the set |x|")]
            edges = [(level_pos[x], size[x], level_pos[x | (1 << i)], size[x | (1 << i)])
                     for x in range(1 << n) for i in range(n) if not x >> i & 1]
            xs, ys, node, line = level_pos[1:], size[1:], 14, "black"
        else:
            dims = [axis("x", "size of the set |x|"), axis("y", "θ(x)")]
            jitter = np.random.default_rng(0).uniform(-0.3, 0.3, size.size)
            edge = int(self.order) + 0.5  # the order's edge: theta is zero beyond it
            edges = [(edge, -lim, edge, lim)]
            xs, ys, node, line = size[1:] + jitter[1:], theta[1:], 5, "black"
        seg = style(hv.Segments(edges, kdims=dims + ["x1", "y1"]),
                    color="#bbbbbb" if n <= 5 else PROJ_COLOR,
                    bokeh=dict(line_width=1), mpl=dict(linewidth=0.6))
        nodes = hv.Points((xs, ys, shown[1:]), kdims=dims, vdims=[axis("theta", "θ(x)")])
        nodes = style(nodes, color="theta", cmap="RdBu_r", clim=(-lim, lim), colorbar=True,
                      bokeh=dict(size=node, line_color=line, tools=["hover"]),
                      mpl=dict(s=5 * node, edgecolors=line))
        return style(seg * nodes, framewise=True, show_legend=False, padding=0.1)

    def eta_plot(self):
        page = self.result()
        size = hbm.popcount(int(self.n)).astype(float)
        dims = [axis("eta_star", "η of P*"), axis("eta_fit", "η of the fit")]
        eta_star = hbm.eta_of(page.p_star)[1:]
        pts = hv.Points((eta_star, hbm.eta_of(page.fitted)[1:], size[1:]), kdims=dims,
                        vdims=[axis("size", "|x|")])
        pts = style(pts, color="size", cmap="viridis", colorbar=True, logx=True, logy=True,
                    bokeh=dict(size=4), mpl=dict(s=6))
        lo = float(eta_star.min())
        diag = style(hv.Curve(([lo, 1.0], [lo, 1.0]), *dims), color="gray", bokeh=DASHED,
                     mpl=MPL_DASHED)
        return style(pts * diag, framewise=True, show_legend=False)

    def status(self) -> str:
        page = self.result()
        n, k = int(self.n), int(self.order)
        bias = hbm.kl(page.p_star, page.projection)
        var = hbm.kl(page.projection, page.fitted)
        total = hbm.kl(page.p_star, page.fitted)
        return (f"Order {k} of n = {n}: **{hbm.n_parameters(n, k):,} parameters** of "
                f"{2**n - 1:,}. This dataset: $\\mathrm{{KL}}(P^*, \\hat P)$ = **{total:.4f}** = "
                f"bias $\\mathrm{{KL}}(P^*, P^*_B)$ **{bias:.4f}** + "
                f"$\\mathrm{{KL}}(P^*_B, \\hat P)$ **{var:.4f}** (residual "
                f"{total - bias - var:.1e}). $\\mathrm{{KL}}(P^*, \\text{{uniform}})$ = "
                f"{hbm.kl(page.p_star, np.full(page.p_star.size, 1 / page.p_star.size)):.4f}.")

    # --- panels, layout and time axis (the methods above) ------------------------------------
    plots = (
        Plot(states_plot, title="P*, P*(B) and a fit, by state",
             depends=LIVE),
        Plot(theta_plot, title="θ on the poset (eq 4)", depends=LIVE),
        Plot(eta_plot, title="η of the fit and of P* (eq 5)", depends=LIVE),
    )
