"""Herding explorer: cones, the fractal attractor, the Tipi function, O(1/T) moment matching,
negative autocorrelation and the growth of the number of words M(T).

Reproduces Figs 1.2, 1.4, 1.10 and 1.11 of Chen & Welling, *Herding as a Learning System with
Edge-of-Chaos Dynamics*, for a random model of D states with K Gaussian features; a run sets
its Tables 1.1-1.2 (herding on data, Sec 1.4.1) beside ours on binary data sets built from data
scikit-learn ships.
"""

from __future__ import annotations

from dataclasses import dataclass

import holoviews as hv
import numpy as np
import param

from dynamics import herding
from dynamics.papers import CHEN_WELLING
from views.framework.cache import results_cache
from views.framework import (DASHED, DOTTED, MPL_DASHED, MPL_DOTTED, Explorer, Plot, RasterImage,
                            exporting, log_spaced, parse_vector, style)
from views.framework.text import prose, verdict_markdown
from views.framework.timeline import Frames, Mark, Timeline
from views.pages.herding.common import HERDING_COLOR, IID_COLOR, STURMIAN_COLOR
from views.pages.herding.runs import BoxRun
from views.pages.herding.tables import TablesRun

#: Resolution (cells per side) of the live page's cone raster and of the Tipi image.
GRID = 150
#: Burn-in steps dropped before drawing the attractor cloud (the transient from w0).
BURN_IN = 100
#: Number of first steps drawn as a path (the transient from w0 onto the attractor).
TRANSIENT = 40
#: One colour per state (Category10, then Category20's light tones): cones, arrows and circles.
STATE_COLORS = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                "#7f7f7f", "#bcbd22", "#17becf", "#aec7e8", "#ffbb78", "#98df8a", "#ff9896",
                "#c5b0d5", "#c49c94"]
WEIGHT_DIMS = [hv.Dimension("w1", label="w₁"), hv.Dimension("w2", label="w₂")]
SUPERSCRIPTS = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
#: Frames of the timeline's trail behind the current weight w_t.
TRAIL = 8
#: Most frames of a run sent to the browser (every k-th step beyond).
TIME_FRAMES = 5_000
T_COLOR = "#111111"
#: The step of a weight: the dimension along which the weight-space panels build up.
STEP = hv.Dimension("t", label="step t")


def _weight_marks(plot) -> tuple:
    """The timeline's marks in weight space on panel ``plot``: the trail of the last steps,
    the weight vector from the origin and the current weight w_t."""
    return (
        Mark(plot, "trail", x="w1", y="w2", dims=WEIGHT_DIMS, length=TRAIL,
             options=dict(color=T_COLOR, alpha=0.6, bokeh=dict(line_width=1.5),
                          mpl=dict(linewidth=1))),
        Mark(plot, "ray", x="w1", y="w2", dims=WEIGHT_DIMS,
             options=dict(color=T_COLOR, bokeh=dict(line_width=2.5), mpl=dict(linewidth=1.8))),
        Mark(plot, "point", x="w1", y="w2", dims=WEIGHT_DIMS,
             options=dict(bokeh=dict(size=13, color="white", line_color=T_COLOR, line_width=3),
                          mpl=dict(s=80, color="white", edgecolors=T_COLOR, linewidth=2))),
    )


@dataclass(frozen=True)
class HerdingRun:
    """Everything the page draws for one parameter set."""

    model: herding.RandomModel
    run: herding.HerdingResult
    error: herding.MomentError
    autocorrelation: np.ndarray
    iid_autocorrelation: np.ndarray
    words: np.ndarray
    extent: tuple[float, float, float, float]
    labels: np.ndarray
    tipi: np.ndarray


@results_cache
def run_herding(n_states: int, n_features: int, seed: int, steps: int, w0: tuple[float, ...],
                eta: float, max_lag: int, max_word: int) -> HerdingRun:
    """Run herding on a random model and everything derived from it (cached per argument set)."""
    model = herding.random_model(n_states, n_features, seed=seed)
    run = herding.herd(model.features, model.moments, steps, w0=np.asarray(w0), eta=eta)
    error = herding.moment_error(model.features, run.states, model.moments,
                                 probabilities=model.probabilities, seed=seed)
    rng = np.random.default_rng(seed)
    iid_states = rng.choice(n_states, size=steps, p=model.probabilities)
    # Square window around the origin (the cones' apex) holding the attractor, the transient
    # path from w0 and the features.
    half = 1.15 * max(float(np.abs(run.weights[:, :2]).max()),
                      float(np.abs(model.features[:, :2]).max()))
    extent = (-half, -half, half, half)
    axis = np.linspace(-half, half, GRID)
    w1, w2 = np.meshgrid(axis, axis[::-1])
    grid = np.zeros((GRID * GRID, n_features))
    grid[:, 0], grid[:, 1] = w1.ravel(), w2.ravel()
    labels = herding.cone_labels(model.features, grid).reshape(GRID, GRID)
    tipi = herding.tipi(model.features, model.moments, grid).reshape(GRID, GRID)
    return HerdingRun(
        model=model, run=run, error=error,
        autocorrelation=herding.autocorrelation(run.states, max_lag),
        iid_autocorrelation=herding.autocorrelation(iid_states, max_lag),
        words=herding.word_counts(run.states, max_word),
        extent=extent, labels=labels, tipi=tipi,
    )


class HerdingExplorer(Explorer):
    """Herding on a random model with D states and K features (eqs 1.7-1.8)."""

    slug = "herding"
    title = "Herding"
    summary = "A deterministic map that samples: cones, a fractal attractor and O(1/T) moments."
    paper = CHEN_WELLING
    figures = ("Figs 1.2, 1.4, 1.10, 1.11, Sec 1.4.1 and Tables 1.1-1.2; eqs 1.7-1.8, 1.10, "
               "1.13, 1.36-1.40")

    n_states = param.Integer(6, bounds=(2, 16), label="States D",
                             doc="Number of discrete states x; each has a feature vector phi(x).")
    n_features = param.Integer(2, bounds=(2, 6), label="Features K",
                               doc="Dimension K of the features and of the weights w.")
    seed = param.Integer(1, bounds=(0, 99_999), label="Model seed",
                         doc="Seed of the random features phi(x) ~ N(0, 1) and target distribution.")
    steps = param.Integer(20_000, bounds=(100, 1_000_000), step=100, label="Steps T",
                          doc="Number of herding steps.")
    w0 = param.String("0", label="Initial weights w0",
                      doc="One number (used for every coordinate) or K comma-separated numbers.")
    eta = param.Number(1.0, bounds=(0.05, 5.0), step=0.05, label="Learning rate eta",
                       doc="Step size; herding is invariant to it up to the scale of w (Sec 1.2.3).")
    max_lag = param.Integer(30, bounds=(1, 200), label="Autocorrelation lags",
                            doc="Largest lag t of R(t), eq 1.13.")
    max_word = param.Integer(24, bounds=(2, 60), label="Longest word length",
                             doc="Largest word length T for the complexity M(T), eq 1.36.")

    fields = ("seed", "w0")
    widgets = {
        "steps": {"throttled": True},
        "eta": {"throttled": True},
        "max_lag": {"throttled": True},
        "max_word": {"throttled": True},
    }

    # what the generic tests and benches need of this page (see ``Explorer``)
    example_change = {"seed": 7}
    bench_move = ("seed", list(range(101, 117)))
    invalidating = (("n_features", 3), ("w0", "1, 2, 3"), ("n_features", 2))
    quick = dict(steps=2000)

    runs = (BoxRun, TablesRun)

    text = prose(__file__, "page.md")

    # --- knobs -------------------------------------------------------------------------------
    def validate(self, name: str, value) -> None:
        if name == "w0":
            parse_vector("Initial weights w0", value, self.n_features)

    def _constrain(self) -> list[str]:
        """w0 follows K: typed with the old K's count of numbers, it is cut or padded with
        zeros (one number stays one number, used for every coordinate)."""
        notes = super()._constrain()
        parts = [p for p in str(self.w0).replace(";", ",").replace(" ", ",").split(",") if p]
        K = self.n_features
        if len(parts) > 1 and len(parts) != K:
            new = ", ".join((parts + ["0"] * K)[:K])
            self._put("w0", new)
            notes.append(f"Initial weights w0 set to {new}: K = {K} needs 1 or {K} numbers, "
                         f"it had {len(parts)}.")
        return notes

    # --- computation -------------------------------------------------------------------------
    def _compute(self) -> HerdingRun:
        w0 = parse_vector("w0", self.w0, self.n_features)
        return run_herding(self.n_states, self.n_features, self.seed, self.steps, w0,
                           float(self.eta), self.max_lag, self.max_word)

    # --- plots -------------------------------------------------------------------------------
    def cones_plot(self):
        res = self.result()
        D = self.n_states
        states = dict(cmap=STATE_COLORS[:D], clim=(-0.5, D - 0.5))
        if exporting():
            labels = style(self._cones(res), color="state", alpha=0.3, padding=0, **states,
                           bokeh=dict(line_alpha=0, tools=["hover"]), mpl=dict(linewidth=0))
        else:
            # one byte per pixel over the websocket (D is far below 256)
            labels = RasterImage(res.labels.astype(np.uint8), bounds=res.extent, kdims=WEIGHT_DIMS,
                                 vdims=[hv.Dimension("state", label="cone of state")])
            labels = style(labels, alpha=0.3, colorbar=False, **states,
                           bokeh=dict(tools=["hover"]))

        # Translation vectors rho(x) = phi_bar - phi(x) from the origin, one per state (Fig 1.10),
        # scaled to the window; the circles mark the features phi(x) themselves (Fig 1.11).
        rho = res.model.moments[:2] - res.model.features[:, :2]
        scale = 0.4 * res.extent[2] / max(float(np.abs(rho).max()), 1e-12)
        arrows = hv.Segments((np.zeros(D), np.zeros(D), scale * rho[:, 0], scale * rho[:, 1],
                              np.arange(D)), kdims=["w1", "w2", "x1", "y1"], vdims=["state"])
        arrows = style(arrows, color="state", **states, bokeh=dict(line_width=3),
                       mpl=dict(linewidth=2.5))
        phi = res.model.features[:, :2]
        feats = hv.Points((phi[:, 0], phi[:, 1], np.arange(D)), kdims=WEIGHT_DIMS, vdims=["state"])
        feats = style(feats, bokeh=dict(color="state", **states, size=11, line_color="black",
                                        fill_alpha=0.0, line_width=2),
                      mpl=dict(color="none", edgecolors="black", s=90, linewidth=1.5))
        # The transient: the first steps from a non-zero w0 onto the attractor. Always a layer
        # (empty from w0 = 0): the timeline's marks come after the panel's layers, and a live
        # plot keeps its layers' places, so a layer that comes and goes would swap them.
        start = (res.run.weights[:TRANSIENT + 1, :2] if np.any(res.run.weights[0] != 0)
                 else np.zeros((0, 2)))
        path = style(hv.Path([start], kdims=WEIGHT_DIMS), color="#444444", alpha=0.7,
                     bokeh=dict(line_width=1), mpl=dict(linewidth=0.8))
        return labels * arrows * feats * path

    @staticmethod
    def _cones(res: HerdingRun) -> hv.Polygons:
        """The cones as exact wedges clipped to the window (`herding.cone_sectors`): vector
        shapes for exported figures. The live page draws the 150 x 150 raster of
        `herding.cone_labels` instead, which redraws about 10 ms faster."""
        sec = herding.cone_sectors(res.model.features)  # only exports need it: not per move
        arcs = list(zip(sec.states, sec.start, sec.stop))
        if len(arcs) > 1 and arcs[0][0] == arcs[-1][0]:
            # One cone split at angle 0: one wedge, so no seam shows between its halves.
            arcs = [(arcs[0][0], arcs[-1][1], arcs[0][2] + 2 * np.pi)] + arcs[1:-1]
        wedges = [{"w1": xy[:, 0], "w2": xy[:, 1], "state": int(state)}
                  for state, a, b in arcs for xy in [_wedge(res.extent[2], a, b)]]
        return hv.Polygons(wedges, kdims=WEIGHT_DIMS,
                           vdims=[hv.Dimension("state", label="cone of state")])

    def attractor_cloud(self):
        res = self.result()
        first = min(BURN_IN, self.steps // 2)
        w = res.run.weights[first:, :2]
        # each weight with its step: the timeline builds the attractor up to t
        steps = np.arange(first, first + len(w), dtype=float)
        return style(hv.Points((w[:, 0], w[:, 1], steps), kdims=WEIGHT_DIMS, vdims=[STEP]),
                     color="black", bokeh=dict(size=1.5), mpl=dict(s=0.3))

    def tipi_plot(self):
        res = self.result()
        # float32: half the bytes of float64 on every move, far finer than 256 colours
        image = RasterImage(res.tipi.astype(np.float32), bounds=res.extent, kdims=WEIGHT_DIMS,
                            vdims=[hv.Dimension("l0", label="ℓ₀(w)")])
        return style(image, cmap="viridis", colorbar=True, bokeh=dict(tools=["hover"]))

    def moment_plot(self):
        err = self.result().error
        keep = log_spaced(len(err.t), 600)
        t = err.t[keep].astype(float)
        dims = [hv.Dimension("T", label="number of samples T"),
                hv.Dimension("error", label="‖mean φ(s) − φ̄‖₂")]
        mid = len(keep) // 2
        herd_curve = hv.Curve((t, err.herding[keep]), *dims,
                              label="herding")
        iid_curve = hv.Curve((t, err.iid[keep]), *dims, label="i.i.d.")
        # Guides through the middle of each curve (straight lines on log-log axes: two points).
        ends = t[[0, -1]]
        g1 = hv.Curve((ends, err.herding[keep][mid] * t[mid] / ends), *dims, label="∝ 1/T")
        g2 = hv.Curve((ends, err.iid[keep][mid] * np.sqrt(t[mid] / ends)), *dims, label="∝ 1/√T")
        overlay = (style(herd_curve, color=HERDING_COLOR) * style(iid_curve, color=IID_COLOR)
                   * style(g1, color="gray", bokeh=DASHED, mpl=MPL_DASHED)
                   * style(g2, color="gray", bokeh=DOTTED, mpl=MPL_DOTTED))
        return style(overlay, logx=True, logy=True)

    def autocorrelation_plot(self):
        res = self.result()
        dims = [hv.Dimension("lag", label="lag t"), hv.Dimension("R", label="R(t)")]
        lags = np.arange(len(res.autocorrelation))
        herd_curve = style(hv.Curve((lags, res.autocorrelation), *dims, label="herding"),
                           color=HERDING_COLOR)
        iid_curve = style(hv.Curve((lags, res.iid_autocorrelation), *dims, label="i.i.d."),
                          color=IID_COLOR)
        return style(iid_curve * herd_curve)

    def words_plot(self):
        res = self.result()
        T = np.arange(1, len(res.words) + 1, dtype=float)
        dims = [hv.Dimension("T", label="word length T"),
                hv.Dimension("M", label="distinct words M(T)")]
        K = self.n_features
        words = style(hv.Curve((T, res.words), *dims, label="herding"), color=HERDING_COLOR)
        # Guide T^K through the last point (eq 1.37), and the Sturmian minimum T + 1.
        guide = hv.Curve((T, res.words[-1] * (T / T[-1]) ** K), *dims,
                         label=f"∝ T{str(K).translate(SUPERSCRIPTS)}")
        sturm = hv.Curve((T, T + 1), *dims, label="T + 1 (Sturmian)")
        overlay = (words * style(guide, color="gray", bokeh=DASHED, mpl=MPL_DASHED)
                   * style(sturm, color=STURMIAN_COLOR))
        return style(overlay, logx=True, logy=True)

    def weight_frames(self) -> Frames:
        """The timeline: w_t (its first two coordinates) for t = 0..T; T1 = max(t, 1) places
        the moment error's line on its log axis."""
        w = self.result().run.weights
        t = np.arange(len(w))
        return Frames(t, {"w1": w[:, 0], "w2": w[:, 1], "T1": np.maximum(t, 1)})

    def status(self) -> str:
        """The perceptron-cycling check of eq 1.40 over the run, and the two measured rates."""
        res = self.result()
        run, err = res.run, res.error
        verdict = ("held at every one of" if run.cycling_holds else "**failed** in")
        return (f"**Perceptron cycling (eq 1.40):** $w_{{t-1}}^\\top(\\bar\\phi - \\phi(s_t)) "
                f"= \\ell_0(w_{{t-1}}) \\le 0$ {verdict} the {len(run.cycling):,} steps "
                f"(largest value {run.cycling_max:.3g}), so $\\|w_t\\|$ stays bounded "
                f"(largest {run.weight_radius:.3g}). **Fitted rates:** herding "
                f"$T^{{{err.herding_slope:.2f}}}$, i.i.d. $T^{{{err.iid_slope:.2f}}}$. "
                + verdict_markdown(herding.moment_rates_claim(err, res.autocorrelation,
                                                              res.iid_autocorrelation)))

    # --- panels, layout and time axis (the methods above) ------------------------------------
    plots = (
        Plot(cones_plot, cloud=attractor_cloud, title="Cones and the attractor (Figs 1.10-1.11)",
             ignores=("max_lag", "max_word")),
        Plot(tipi_plot, cloud=attractor_cloud, title="Tipi function ℓ₀(w) (eq 1.10, Fig 1.2)",
             ignores=("max_lag", "max_word")),
        Plot(moment_plot, title="Moment error (Prop 1.2)",
             ignores=("max_lag", "max_word")),
        Plot(autocorrelation_plot, title="Autocorrelation R(t) (eq 1.13, Fig 1.4)",
             ignores=("max_word",)),
        Plot(words_plot, title="Distinct words M(T) (eqs 1.36-1.37)",
             ignores=("max_lag",)),
    )
    timeline = Timeline(
        weight_frames, unit="step", max_frames=TIME_FRAMES,
        caption=prose(__file__, "timeline.md"),
        marks=(*_weight_marks(cones_plot), *_weight_marks(tipi_plot),
               Mark(moment_plot, "vline", x="T1",
                    options=dict(color=T_COLOR, bokeh=dict(line_width=1.5),
                                 mpl=dict(linewidth=1))),
               # the attractor holds the steps up to t, the moment error ends at t
               Mark(cones_plot, "grow", x="t", dims=("t",)),
               Mark(tipi_plot, "grow", x="t", dims=("t",)),
               Mark(moment_plot, "grow", x="T1", dims=("T",), keep=("∝ 1/T", "∝ 1/√T"))))


def _wedge(half: float, start: float, stop: float) -> np.ndarray:
    """Vertices of the sector of angles [start, stop] from the origin, cut by the square
    [-half, half]^2: the origin, where the two rays leave the square, and the square's corners
    in between (so the polygon is exactly the wedge inside the window)."""
    corners = np.pi / 4 + np.pi / 2 * np.arange(-4, 9)
    angles = np.concatenate([[start], corners[(corners > start) & (corners < stop)], [stop]])
    radius = half / np.maximum(np.abs(np.cos(angles)), np.abs(np.sin(angles)))
    ring = np.column_stack([radius * np.cos(angles), radius * np.sin(angles)])
    return np.vstack([[0.0, 0.0], ring])
