"""Torus explorer: herding with D = K + 1 = 3 states is a constant rotation on a torus.

Reproduces Fig 1.17 and eq 1.72 (appendix, after Prop 1.11) of Chen & Welling, *Herding as a
Learning System with Edge-of-Chaos Dynamics*: the weights in the w-plane with the lattice spanned
by phi(x_1) - phi(x_0) and phi(x_2) - phi(x_0), the same orbit in lattice coordinates on the unit
square with opposite sides glued, and how evenly it fills the torus, against a rational rotation
with period q on the same features.
"""

from __future__ import annotations

from dataclasses import dataclass

import holoviews as hv
import numpy as np
import param
from holoviews import dim

from dynamics import herding, torus
from dynamics.papers import CHEN_WELLING
from views.framework.cache import results_cache
from views.framework import DASHED, MPL_DASHED, Explorer, Plot, style
from views.framework.text import prose, verdict_markdown
from views.framework.timeline import Frames, Mark, Timeline

#: Most weight vectors drawn in the w-plane (the first ones).
WEIGHT_POINTS = 20_000
#: Number of prefix lengths N at which the discrepancy curves are evaluated (log-spaced).
CURVE_POINTS = 80
IRRATIONAL_COLOR, RATIONAL_COLOR = "#222222", "#1f77b4"
ARROW_COLOR, LATTICE_COLOR, GENERATOR_COLOR = "#ff7f0e", "#d62728", "#1f77b4"
TORUS_DIMS = [hv.Dimension("c1", label="lattice coordinate c₁ (mod 1)"),
              hv.Dimension("c2", label="lattice coordinate c₂ (mod 1)")]
WEIGHT_DIMS = [hv.Dimension("w1", label="w₁"), hv.Dimension("w2", label="w₂")]
T_COLOR = "#111111"
#: The step of a point of the orbit: the dimension along which the panels build up.
STEP = hv.Dimension("t", label="step t")
#: The trail's colour: it crosses the black cloud of weights.
TRAIL_COLOR = "#9467bd"
#: Frames of the timeline's trail behind the current weight w_t (in the w-plane, where a step
#: is a segment; on the torus a step leaving one side comes back on the other).
TRAIL = 8
#: The ringed dot at the current time, on the page and in exports.
RING = dict(bokeh=dict(size=14, color="white", fill_alpha=0.6, line_color=T_COLOR,
                       line_width=3),
            mpl=dict(s=90, color="white", edgecolors=T_COLOR, linewidth=2))


def _torus_dims(rho1: str, rho2: str) -> list[hv.Dimension]:
    """Lattice-coordinate axes whose labels also give the rotation vector's entries."""
    return [hv.Dimension("c1", label=f"c₁ (mod 1);  rotation ρ₁ = {rho1}"),
            hv.Dimension("c2", label=f"c₂ (mod 1);  rotation ρ₂ = {rho2}")]


@dataclass(frozen=True)
class TorusRun:
    """Everything the page draws for one parameter set: the irrational model and its rational
    contrast share the features (same seed); only the moments, hence the rotation, differ."""

    features: np.ndarray
    weights: np.ndarray
    coords: np.ndarray
    rotation: np.ndarray
    rational_coords: np.ndarray
    rational_rotation: np.ndarray
    lengths: np.ndarray
    discrepancy: np.ndarray
    rational_discrepancy: np.ndarray
    lattice: np.ndarray
    extent: tuple[float, float, float, float]


#: Few entries: at the largest step count one entry holds about 50 MB.
@results_cache
def run_torus(seed: int, steps: int, q: int, bins: int) -> TorusRun:
    """Herd both models from w0 = 0 and project onto the torus (cached per argument set)."""
    features, moments = torus.irrational_rotation_model(seed=seed)
    _, rational_moments = torus.rational_rotation_model(q, seed=seed)
    weights = herding.herd(features, moments, steps).weights
    rational_weights = herding.herd(features, rational_moments, steps).weights
    coords = torus.lattice_coordinates(features, weights)
    rational_coords = torus.lattice_coordinates(features, rational_weights)
    lengths = np.unique(np.geomspace(1, steps + 1, CURVE_POINTS).astype(np.int64))
    # Square window holding the weights and the features, for the w-plane and its lattice.
    both = np.vstack([weights, features])
    centre = (both.max(axis=0) + both.min(axis=0)) / 2
    half = 0.6 * float((both.max(axis=0) - both.min(axis=0)).max())
    lo, hi = centre - half, centre + half
    return TorusRun(
        features=features, weights=weights, coords=coords,
        rotation=torus.rotation(features, moments),
        rational_coords=rational_coords,
        rational_rotation=torus.rotation(features, rational_moments),
        lengths=lengths,
        discrepancy=torus.torus_discrepancy_curve(coords, lengths, bins=bins),
        rational_discrepancy=torus.torus_discrepancy_curve(rational_coords, lengths, bins=bins),
        lattice=torus.lattice_lines(features, lo, hi),
        extent=(float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])),
    )


class TorusExplorer(Explorer):
    """Herding with D = 3 states and K = 2 features: a rotation on the torus R^2 / L (eq 1.72)."""

    slug = "torus"
    title = "Torus rotation"
    summary = "With D = K + 1 states herding is a constant rotation on a torus: it fills it evenly."
    paper = CHEN_WELLING
    figures = "Fig 1.17; appendix: eq 1.72, Prop 1.11"

    seed = param.Integer(4, bounds=(0, 99_999), label="Model seed",
                         doc="Seed of the three random features phi(x) and of both target "
                             "distributions (irrational and rational p/q).")
    steps = param.Integer(20_000, bounds=(100, 1_000_000), step=100, label="Steps T",
                          doc="Number of herding steps of both models.")
    q = param.Integer(13, bounds=(3, 200), label="Period q of the rational contrast",
                      doc="Denominator q of the rational rotation (a/q, b/q): its orbit visits "
                          "q points of the torus.")
    bins = param.Integer(8, bounds=(2, 64), label="Cells per side (discrepancy)",
                         doc="The torus is cut into bins × bins cells; the discrepancy is the "
                             "largest deviation of a cell's share of points from 1/bins².")
    arrows = param.Integer(4, bounds=(1, 20), label="Steps drawn as arrows",
                           doc="Number of first herding steps drawn as arrows (on the torus) and "
                               "as segments (in the w-plane).")

    fields = ("seed",)
    widgets = {
        "steps": {"throttled": True},
        "q": {"throttled": True},
        "bins": {"throttled": True},
        "arrows": {"throttled": True},
    }

    # what the generic tests and benches need of this page (see ``Explorer``)
    example_change = {"seed": 5}
    bench_move = ("seed", list(range(101, 117)))
    quick = dict(steps=2000)

    text = prose(__file__, "page.md")

    # --- computation -------------------------------------------------------------------------
    def _compute(self) -> TorusRun:
        return run_torus(self.seed, self.steps, self.q, self.bins)

    def status(self) -> str:
        res = self.result()
        return verdict_markdown(torus.uniform_filling_claim(
            res.discrepancy, res.rational_discrepancy, bins=self.bins,
            points=int(res.lengths[-1]), period=self.q))

    def orbit_frames(self) -> Frames:
        """The timeline: for t = 0..T the torus point c_t mod 1, the rational orbit's point at
        t and the weight w_t; N = t + 1 places the discrepancy's line (points so far)."""
        res = self.result()
        t = np.arange(len(res.weights))
        return Frames(t, {"c1": res.coords[:, 0], "c2": res.coords[:, 1],
                          "r1": res.rational_coords[:, 0], "r2": res.rational_coords[:, 1],
                          "w1": res.weights[:, 0], "w2": res.weights[:, 1], "N": t + 1})

    # --- plots -------------------------------------------------------------------------------
    def _arrows(self, points: np.ndarray, steps: np.ndarray, dims, width: float):
        """Arrows from points[i] along steps[i] (a VectorField with tails at the points);
        ``width`` is the exported shaft width in data units."""
        data = (points[:, 0], points[:, 1], np.arctan2(steps[:, 1], steps[:, 0]),
                np.hypot(steps[:, 0], steps[:, 1]))
        field = hv.VectorField(data, kdims=dims, vdims=["angle", "length"])
        return style(field, color=ARROW_COLOR, framewise=True, magnitude="length",
                     rescale_lengths=False, normalize_lengths=False, pivot="tail",
                     bokeh=dict(line_width=2.5, scale=1.0),
                     mpl=dict(scale=1.0, width=width, headwidth=4, headlength=5))

    # The cloud panels carry no legend and only element options: the base class overlays the
    # cloud on the element, and options of the element's own Overlay would not survive that.
    # The rotation is written into the axis labels instead.
    def torus_plot(self):
        res = self.result()
        n = min(self.arrows, self.steps)
        rho = res.rotation
        dims = _torus_dims(f"{rho[0]:.4f}", f"{rho[1]:.4f}")
        arrows = self._arrows(res.coords[:n], np.tile(rho, (n, 1)), dims, 0.008)
        return style(arrows, xlim=(-0.02, 1.02), ylim=(-0.02, 1.02))

    def torus_cloud(self):
        res = self.result()
        steps = np.arange(len(res.coords), dtype=float)  # the timeline builds it up to t
        return style(hv.Points((res.coords[:, 0], res.coords[:, 1], steps), kdims=TORUS_DIMS,
                               vdims=[STEP]),
                     color="black", bokeh=dict(size=1.5), mpl=dict(s=0.3))

    def rational_plot(self):
        res = self.result()
        q = self.q
        points = res.rational_coords[: min(q, self.steps + 1)]
        a, b = np.round(res.rational_rotation * q).astype(int)
        dims = _torus_dims(f"{a}/{q}", f"{b}/{q}")
        order = hv.Dimension("t", label=f"visit order t (q = {q} points)")
        dots = hv.Points((points[:, 0], points[:, 1], np.arange(len(points))), kdims=dims,
                         vdims=[order])
        # the colours fixed to the whole orbit's order: it builds up in time
        return style(dots, color="t", cmap="viridis", colorbar=True, framewise=True,
                     clim=(0, max(len(points) - 1, 1)),
                     xlim=(-0.02, 1.02), ylim=(-0.02, 1.02),
                     bokeh=dict(size=9, line_color="black", tools=["hover"]),
                     mpl=dict(s=40, edgecolors="black", linewidth=0.5))

    def weights_plot(self):
        res = self.result()
        x0, y0, x1, y1 = res.extent
        # One element for the lattice lines (red), the generators b_1, b_2 drawn from phi(x_0) to
        # phi(x_1) and phi(x_2) (blue) and the first herding steps w_0 -> w_1 -> ... (orange):
        # few elements keep a slider move fast.
        phi = res.features
        n = min(self.arrows, self.steps)
        w = res.weights[: n + 1]
        steps = np.stack([w[:-1], w[1:]], axis=1)
        seg = np.concatenate([res.lattice, [[phi[0], phi[1]], [phi[0], phi[2]]], steps])
        kind = np.r_[np.zeros(len(res.lattice)), np.ones(2), np.full(n, 2.0)]
        lines = hv.Segments((seg[:, 0, 0], seg[:, 0, 1], seg[:, 1, 0], seg[:, 1, 1], kind),
                            kdims=[*WEIGHT_DIMS, "x1", "y1"],
                            vdims=[hv.Dimension("kind", label="lattice line / generator / step")])
        lines = style(lines, color="kind", cmap=[LATTICE_COLOR, GENERATOR_COLOR, ARROW_COLOR],
                      clim=(-0.5, 2.5), xlim=(x0, x1), ylim=(y0, y1), framewise=True,
                      bokeh=dict(line_width=(dim("kind") > 0) * 1.3 + 1.2),
                      mpl=dict(linewidth=(dim("kind") > 0) * 1.0 + 0.8))
        return lines

    def weights_cloud(self):
        """The first WEIGHT_POINTS weights (a stride would sample a multiple of the rotation and
        show its stripes), rasterized on the page like the torus cloud: a few bytes per
        screen pixel instead of 16 per point on every move."""
        res = self.result()
        w = res.weights[: WEIGHT_POINTS + 1]
        steps = np.arange(len(w), dtype=float)  # the timeline builds it up to t
        return style(hv.Points((w[:, 0], w[:, 1], steps), kdims=WEIGHT_DIMS, vdims=[STEP]),
                     color="black", alpha=0.5, bokeh=dict(size=1.5), mpl=dict(s=0.3))

    def discrepancy_plot(self):
        res = self.result()
        N = res.lengths.astype(float)
        dims = [hv.Dimension("N", label="number of points N"),
                hv.Dimension("disc", label=f"max cell |share − 1/{self.bins}²|")]
        irr = style(hv.Curve((N, res.discrepancy), *dims, label="irrational rotation"),
                    color=IRRATIONAL_COLOR, framewise=True, bokeh=dict(line_width=2),
                    mpl=dict(linewidth=1.5))
        rat = style(hv.Curve((N, res.rational_discrepancy), *dims,
                             label=f"rational, q = {self.q}"),
                    color=RATIONAL_COLOR, framewise=True, bokeh=dict(line_width=2),
                    mpl=dict(linewidth=1.5))
        guide = hv.Curve((N, res.discrepancy[-1] * N[-1] / N), *dims, label="∝ 1/N")
        guide = style(guide, color="gray", framewise=True, bokeh=DASHED, mpl=MPL_DASHED)
        return style(irr * rat * guide, framewise=True, logx=True, logy=True,
                     ylim=(max(0.3 * float(res.discrepancy[-1]), 1e-7), 1.5))

    # --- panels, layout and time axis (the methods above) ------------------------------------
    plots = (
        Plot(torus_plot, cloud=torus_cloud, title="Torus: irrational rotation (eq 1.72)",
             ignores=("q", "bins")),
        Plot(rational_plot, title="Torus: rational rotation (a/q, b/q)",
             ignores=("bins", "arrows")),
        Plot(weights_plot, cloud=weights_cloud, cloud_under=True,
             title="Weights and the lattice L (Fig 1.17)", ignores=("q", "bins")),
        Plot(discrepancy_plot, title="How evenly the orbit fills the torus",
             ignores=("arrows",)),
    )
    timeline = Timeline(
        orbit_frames, unit="step",
        caption=prose(__file__, "timeline.md"),
        marks=(Mark(torus_plot, "point", x="c1", y="c2", dims=TORUS_DIMS, options=RING),
               Mark(rational_plot, "point", x="r1", y="r2", dims=TORUS_DIMS, options=RING),
               Mark(weights_plot, "trail", x="w1", y="w2", dims=WEIGHT_DIMS, length=TRAIL,
                    options=dict(color=TRAIL_COLOR, alpha=0.9, bokeh=dict(line_width=2.5),
                                 mpl=dict(linewidth=1.5))),
               Mark(weights_plot, "point", x="w1", y="w2", dims=WEIGHT_DIMS, options=RING),
               Mark(discrepancy_plot, "vline", x="N",
                    options=dict(color=T_COLOR, bokeh=dict(line_width=1.5),
                                 mpl=dict(linewidth=1))),
               # the orbits hold their visits up to t, the discrepancy ends at t
               *(Mark(p, "grow", x="t", dims=("t",))
                 for p in (torus_plot, rational_plot, weights_plot)),
               Mark(discrepancy_plot, "grow", x="N", dims=("N",), keep=("∝ 1/N",))))
