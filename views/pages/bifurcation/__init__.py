"""Temperature bifurcation explorer: the period-doubling route from maximum likelihood to herding.

Reproduces Fig 1.1 of Chen & Welling, *Herding as a Learning System with Edge-of-Chaos
Dynamics* (Sec 1.2.2, eq 1.9): the orbit diagram of the tempered gradient map against the
temperature, the period against T with the doubling temperatures and the accumulation point,
the attractor sets in weight space coloured by temperature over the T = 0 herding cloud, and
the largest Lyapunov exponent across the cascade; a timeline plays the map's iterates at one
chosen temperature.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import holoviews as hv
import numpy as np
import param

from dynamics import bifurcation as bf
from dynamics import herding
from dynamics.papers import CHEN_WELLING
from views.framework.cache import results_cache
from views.framework import DASHED, MPL_DASHED, Explorer, Plot, dense, exporting, style
from views.framework.text import prose, verdict_markdown
from views.framework.timeline import Frames, Mark, Timeline

#: Temperatures of the Lyapunov sweep and of the attractor-set panel (subsampled from the grid).
LYAPUNOV_POINTS = 240
ATTRACTOR_TEMPERATURES = 32
#: Steps of the T = 0 herding cloud drawn behind the attractor sets.
HERDING_STEPS = 20_000
#: The plot's stand-in for "aperiodic" on the period axis is twice the largest period detected.
MAX_PERIOD = 64
LOG_T = hv.Dimension("logT", label="log₁₀ temperature T")
DOUBLING_COLOR, THRESH_COLOR = "#d62728", "#2ca02c"
SUBSCRIPTS = str.maketrans("0123456789", "₀₁₂₃₄₅₆₇₈₉")
T_COLOR = "#111111"
#: Frames of the timeline's trail behind the current iterate w_t on the attractor sets.
TRAIL = 8
#: The ringed dot at the current time, on the page and in exports.
RING = dict(bokeh=dict(size=13, color="white", fill_alpha=0.6, line_color=T_COLOR,
                       line_width=3),
            mpl=dict(s=80, color="white", edgecolors=T_COLOR, linewidth=2))
#: A veil over the iterations after t (what has not happened yet).
VEIL = dict(alpha=0.75, bokeh=dict(color="#f2f2f2", line_alpha=0),
            mpl=dict(facecolor="#f2f2f2", color=None, linewidth=0))
W_DIM = hv.Dimension("w", label="weight")


@dataclass(frozen=True)
class Diagram:
    """One orbit diagram: the attractor samples on a log-spaced temperature grid."""

    temperatures: np.ndarray
    samples: np.ndarray
    periods: np.ndarray


@dataclass(frozen=True)
class Analysis:
    """The cascade analysis over the knobs' T range (not the zoom window)."""

    model: herding.RandomModel
    diagram: Diagram
    cascade: bf.PeriodDoublings
    first_doubling: float
    lyapunov: bf.LyapunovSweep
    herding_cloud: np.ndarray
    #: The iterates w_0 .. w_{burn_in + keep - 1} of the map at ``temperature`` (the chosen
    #: one, for the timeline; None in the analysis alone) and the plotted coordinate (0-based).
    iterates: np.ndarray | None = None
    temperature: float | None = None
    coordinate: int = 0


def _model(n_states: int, n_features: int, seed: int) -> herding.RandomModel:
    return herding.random_model(n_states, n_features, seed=seed)


@results_cache
def orbit_diagram(n_states: int, n_features: int, seed: int, log_t: tuple[float, float],
                  resolution: int, burn_in: int, keep: int, eta: float) -> Diagram:
    """The diagram on ``resolution`` log-spaced temperatures in 10**log_t (cached)."""
    model = _model(n_states, n_features, seed)
    temperatures = np.logspace(log_t[0], log_t[1], resolution)
    res = bf.bifurcation(model.features, model.moments, temperatures, burn_in=burn_in,
                         keep=keep, eta=eta)
    return Diagram(temperatures, res.samples,
                   bf.periods(res.samples, max_period=min(MAX_PERIOD, keep // 2)))


@results_cache
def analyse(n_states: int, n_features: int, seed: int, log_t: tuple[float, float],
            resolution: int, burn_in: int, keep: int, eta: float) -> Analysis:
    """Diagram, refined doubling cascade, Lyapunov sweep and herding cloud (cached)."""
    model = _model(n_states, n_features, seed)
    diagram = orbit_diagram(n_states, n_features, seed, log_t, resolution, burn_in, keep, eta)
    cascade = bf.period_doublings(diagram.temperatures, diagram.periods)
    if cascade.periods.size:
        cascade = bf.refine_doublings(model.features, model.moments, cascade, eta=eta)
        cascade = bf.extend_doublings(model.features, model.moments, cascade, count=4, eta=eta)
    lyap = bf.lyapunov_sweep(model.features, model.moments,
                             np.logspace(log_t[0], log_t[1], LYAPUNOV_POINTS), 2000,
                             burn_in=burn_in, eta=eta)
    cloud = herding.herd(model.features, model.moments, HERDING_STEPS, eta=eta).weights[100:]
    return Analysis(model, diagram, cascade,
                    bf.first_doubling_temperature(model.features, model.moments, eta=eta),
                    lyap, cloud)


@results_cache
def iterated(n_states: int, n_features: int, seed: int, log_t: tuple[float, float],
             resolution: int, burn_in: int, keep: int, eta: float, at_log_t: float,
             coordinate: int) -> Analysis:
    """The analysis with the map's iterates at the temperature 10**at_log_t, from w0 = 0 as
    the diagram's, over its burn-in and kept steps (cached)."""
    analysis = analyse(n_states, n_features, seed, log_t, resolution, burn_in, keep, eta)
    model = analysis.model
    temperature = 10.0 ** at_log_t
    run = bf.tempered_trajectory(model.features, model.moments, temperature,
                                 burn_in + keep - 1, eta=eta)
    return replace(analysis, iterates=run.weights, temperature=temperature,
                   coordinate=coordinate)


class BifurcationExplorer(Explorer):
    """The tempered map w <- w + eta (phi_bar - E_{p_T(w)}[phi]) across temperatures (eq 1.9)."""

    slug = "bifurcation"
    title = "Temperature bifurcation"
    summary = "Lower the temperature: a fixed point splits 2, 4, 8 ... ways, then herding's chaos."
    paper = CHEN_WELLING
    figures = "Fig 1.1; eqs 1.6-1.9"

    n_states = param.Integer(4, bounds=(2, 8), label="States D",
                             doc="Number of discrete states; the paper's example has 4.")
    n_features = param.Integer(2, bounds=(1, 4), label="Features K",
                               doc="Dimension of the features and weights; the paper's example has 2.")
    seed = param.Integer(bf.DEFAULT_SEED, bounds=(0, 99_999), label="Model seed",
                         doc="Seed of the random features phi(x) ~ N(0, 1) and data distribution. "
                             "The default shows a clean cascade near the paper's T_thresh.")
    log_t = param.Range((-1.5, 0.0), bounds=(-4.0, 1.5), step=0.05,
                        label="Temperature range log₁₀ T",
                        doc="The temperature window, as powers of ten.")
    at_log_t = param.Number(-0.8, bounds=(-4.0, 1.5), step=0.01,
                            label="Iterates at log₁₀ T",
                            doc="The temperature whose iterates w₀, w₁, ... the timeline plays "
                                "(within the temperature range).")
    resolution = param.Integer(600, bounds=(50, 4000), step=50, label="Temperatures",
                               doc="Number of log-spaced temperatures in the window.")
    burn_in = param.Integer(2000, bounds=(100, 20_000), step=100, label="Burn-in steps",
                            doc="Steps dropped before the attractor is sampled.")
    keep = param.Integer(128, bounds=(16, 512), step=16, label="Kept steps",
                         doc="Attractor samples per temperature (periods up to keep/2 detected).")
    eta = param.Number(1.0, bounds=(0.1, 5.0), step=0.05, label="Step size eta",
                       doc="Constant step of the gradient ascent; only eta / T matters.")
    coordinate = param.Integer(1, bounds=(1, 4), label="Plotted weight wₖ",
                               doc="Which weight coordinate the orbit diagram shows (k <= K).")

    fields = ("seed",)
    widgets = {
        "log_t": {"throttled": True},
        "resolution": {"throttled": True},
        "burn_in": {"throttled": True},
        "keep": {"throttled": True},
        "eta": {"throttled": True},
        "at_log_t": {"throttled": True},
    }

    # what the generic tests and benches need of this page (see ``Explorer``)
    example_change = {"eta": 0.8}
    bench_move = ("eta", [0.91, 0.92, 0.93, 0.94, 0.95, 0.96, 0.97, 0.98])
    invalidating = (("n_features", 4), ("coordinate", 4), ("n_features", 2),
                    ("at_log_t", -0.95), ("log_t", (-1.5, -1.0)))
    quick = dict(resolution=100, burn_in=500, keep=32)

    text = prose(__file__, "page.md")

    # --- knobs -------------------------------------------------------------------------------
    def knob_bounds(self) -> dict[str, tuple]:
        lo, hi = self.log_t
        return {"coordinate": (1, self.n_features, f"K = {self.n_features}"),
                "at_log_t": (lo, hi, f"the temperature range {lo:g} to {hi:g}")}

    # --- computation -------------------------------------------------------------------------
    def _args(self) -> tuple:
        if self.coordinate > self.n_features:
            raise ValueError(f"Plotted weight w_k must have k <= K = {self.n_features}, "
                             f"got k = {self.coordinate}")
        lo, hi = self.log_t
        if not hi > lo:
            raise ValueError(f"temperature range must be wider than zero, got 10^{lo}..10^{hi}")
        return (self.n_states, self.n_features, self.seed, (float(lo), float(hi)),
                self.resolution, self.burn_in, self.keep, float(self.eta))

    def _compute(self) -> Analysis:
        args = self._args()
        res = iterated(*args, float(self.at_log_t), self.coordinate - 1)
        self._good = (args, self.coordinate - 1)
        return res

    def status(self) -> str:
        return verdict_markdown(bf.feigenbaum_claim(self.result().cascade))

    def iterate_frames(self) -> Frames:
        """The timeline: the iterate w_t at the chosen temperature for t = 0 .. burn-in + kept
        steps - 1: its plotted coordinate (wk, at log T on the orbit diagram) and (w1, w2)."""
        res = self.result()
        w = res.iterates
        w2 = w[:, 1] if w.shape[1] > 1 else np.zeros(len(w))
        return Frames(np.arange(len(w)), {"wk": w[:, res.coordinate], "w1": w[:, 0], "w2": w2,
                                          "logT": np.full(len(w), np.log10(res.temperature))})

    def _valid(self) -> tuple[tuple, int]:
        """The last valid knob tuple and 0-based coordinate (the current ones when valid)."""
        self.result()  # validates, and sets the page's alert on failure
        return self._good

    def _window(self, x_range) -> Diagram:
        """The diagram of the zoom window (full resolution), or of the knobs' range."""
        args, _ = self._valid()
        if x_range is not None:
            lo, hi = (float(np.clip(x, -6.0, 3.0)) for x in x_range)
            if hi - lo > 1e-9:
                args = args[:3] + ((lo, hi),) + args[4:]
        return orbit_diagram(*args)

    # --- plots -------------------------------------------------------------------------------
    def orbit_cloud(self, x_range=None):
        diagram = self._window(x_range)
        k = self._valid()[1]
        keep = diagram.samples.shape[1]
        x = np.repeat(np.log10(diagram.temperatures), keep)
        y = diagram.samples[:, :, k].ravel()
        return hv.Points((x, y), kdims=[LOG_T, self._wdim()])

    def _wdim(self) -> hv.Dimension:
        return hv.Dimension("w", label=f"weight w{str(self._valid()[1] + 1).translate(SUBSCRIPTS)} on the attractor")

    def _doubling_marks(self, res: Analysis, y0: float, y1: float, x0: float, x1: float,
                        ydim: hv.Dimension):
        """Vertical segments at the doubling temperatures (red) and at T_infinity (green),
        those inside [x0, x1] (log10 T)."""
        xs = list(np.log10(res.cascade.temperatures))
        colors = [DOUBLING_COLOR] * len(xs)
        t_inf = res.cascade.t_thresh_extrapolated
        if t_inf is not None:
            xs.append(np.log10(t_inf))
            colors.append(THRESH_COLOR)
        xs = np.asarray(xs, dtype=float)
        inside = (xs >= x0) & (xs <= x1)
        xs, colors = xs[inside], [c for c, i in zip(colors, inside) if i]
        marks = hv.Segments((xs, np.full(xs.size, y0), xs, np.full(xs.size, y1), colors),
                            kdims=[LOG_T, ydim, "x1", "y1"], vdims=["color"])
        return style(marks, color="color", alpha=0.5, bokeh=dict(line_width=1),
                     mpl=dict(linewidth=0.8))

    def orbit_annotations(self, x_range=None):
        res = self.result()
        diagram = self._window(x_range)
        k = self._valid()[1]
        lo, hi = float(diagram.samples[:, :, k].min()), float(diagram.samples[:, :, k].max())
        pad = 0.05 * max(hi - lo, 1e-12)
        x = np.log10(diagram.temperatures)
        # the temperature whose iterates the timeline plays
        chosen = style(hv.VLine(np.log10(res.temperature)), color=T_COLOR, alpha=0.6,
                       bokeh=dict(line_width=1, **DASHED), mpl=dict(linewidth=0.8, **MPL_DASHED))
        return self._doubling_marks(res, lo - pad, hi + pad, x[0], x[-1], self._wdim()) * chosen

    def period_plot(self):
        res = self.result()
        d = res.diagram
        shown = np.where(d.periods > 0, d.periods, 2 * MAX_PERIOD).astype(float)
        dims = [LOG_T, hv.Dimension("period", label="period (top row: aperiodic)")]
        curve = style(hv.Curve((np.log10(d.temperatures), shown), *dims), color="black",
                      interpolation="steps-mid", bokeh=dict(line_width=1.5), mpl=dict(linewidth=1.2))
        c = res.cascade
        dots = hv.Scatter((np.log10(c.temperatures), c.periods.astype(float)), *dims,
                          label="doublings Tₙ")
        dots = style(dots, color=DOUBLING_COLOR, bokeh=dict(size=7), mpl=dict(s=25))
        overlay = curve * dots
        if c.t_thresh_extrapolated is not None:
            overlay = overlay * style(hv.VLine(np.log10(c.t_thresh_extrapolated)),
                                      color=THRESH_COLOR, bokeh=DASHED, mpl=MPL_DASHED)
        return style(overlay, logy=True,
                     ylim=(0.7, 3 * MAX_PERIOD))

    def _attractor_dims(self) -> list[hv.Dimension]:
        return [hv.Dimension("w1", label="w₁"),
                hv.Dimension("w2", label="w₂" if self.n_features > 1 else "(K = 1)")]

    def attractor_plot(self):
        res = self.result()
        d = res.diagram
        wdims = self._attractor_dims()
        idx = np.unique(np.linspace(0, len(d.temperatures) - 1, ATTRACTOR_TEMPERATURES).astype(int))
        samples = d.samples[idx]
        n, keep, K = samples.shape
        w2 = samples[:, :, 1].ravel() if K > 1 else np.zeros(n * keep)
        logt = np.repeat(np.log10(d.temperatures[idx]), keep)
        # High T dark, low T light, as in the paper. float32: half the bytes of each move, far
        # below a screen pixel.
        sets = hv.Points((samples[:, :, 0].ravel().astype(np.float32), w2.astype(np.float32),
                          logt.astype(np.float32)), kdims=wdims, vdims=[LOG_T],
                         label="attractor at T")
        sets = style(sets, color=LOG_T.name, cmap="viridis_r", colorbar=True,
                     bokeh=dict(size=4), mpl=dict(s=4))
        cloud = res.herding_cloud
        cloud2 = cloud[:, :2] if cloud.shape[1] > 1 else np.column_stack([cloud[:, 0], 0 * cloud[:, 0]])
        herd_pts = style(hv.Points(cloud2, kdims=wdims, label="T = 0 (herding)"), color="black",
                         bokeh=dict(size=1, alpha=0.25), mpl=dict(s=0.2))
        # The herding (T = 0) attractor, some 20,000 weights, goes as a raster at its share of
        # the window (a faint background under the sets): on the page at half the screen's
        # resolution (16 bytes a point were half of a move's bytes), in an export at the
        # figure's (as every cloud over DENSE_POINTS: 20,000 vector markers took 4 s of a
        # 5-s PDF export).
        x, y = samples[:, :, 0].ravel(), w2
        window = ((float(x.min()), float(x.max())), (float(y.min()), float(y.max())))
        size = (400, 340) if exporting() else (200, 170)
        herd_pts = style(dense(herd_pts, threshold=0, frame=window, width=size[0],
                               height=size[1]), alpha=0.35)
        return style(herd_pts * sets, show_legend=False)

    def lyapunov_plot(self):
        res = self.result()
        lyap = res.lyapunov
        lam = hv.Dimension("lambda", label="largest Lyapunov exponent λ₁")
        dims = [LOG_T, lam]
        curve = style(hv.Curve((np.log10(lyap.temperatures), lyap.largest), *dims),
                      color="#1f77b4", bokeh=dict(line_width=1.5), mpl=dict(linewidth=1.2))
        lo, hi = float(np.min(lyap.largest)), float(np.max(lyap.largest))
        x = np.log10(lyap.temperatures)
        marks = self._doubling_marks(res, lo, max(hi, 0.0), x[0], x[-1], lam)
        return curve * marks * style(hv.HLine(0.0), color="gray")

    def iterates_plot(self):
        res = self.result()
        k = res.coordinate
        w = res.iterates[:, k].astype(np.float32)  # half the bytes, far below a pixel
        dims = [hv.Dimension("t", label=f"iteration t at T = {res.temperature:.4g}"),
                hv.Dimension("w", label=f"weight w{str(k + 1).translate(SUBSCRIPTS)}")]
        # dots, not a line: a 2ⁿ-cycle shows as 2ⁿ rows, as in the orbit diagram's column
        dots = style(hv.Scatter((np.arange(len(w)), w), *dims), color="#1f77b4",
                     bokeh=dict(size=2.5), mpl=dict(s=1.5))
        return style(dots, xlim=(-0.5, len(w) - 0.5), framewise=True)

    def cascade_table(self):
        res = self.result()
        c = res.cascade
        n = len(c.periods)
        ratios = np.full(n, np.nan)
        ratios[2:] = c.ratios
        rows = [(str(i + 1), str(int(c.periods[i])), f"{c.temperatures[i]:.7f}",
                 "" if np.isnan(ratios[i]) else f"{ratios[i]:.3f}",
                 "multiplier −1" if c.refined[i] else "grid")
                for i in range(n)]
        if c.t_thresh_extrapolated is not None:
            rows.append(("∞", "aperiodic", f"{c.t_thresh_extrapolated:.7f}", "→ 4.669",
                         "extrapolated"))
        if not rows:
            rows = [("-", "-", "no cascade in this range", "", "")]
        table = hv.Table(rows, kdims=["n", "period"],
                         vdims=["Tₙ", "δₙ", "found by"])
        return style(table, bokeh=dict(width=460, height=400),
                     mpl=dict(max_font_size=9, max_value_len=24))

    # --- panels, layout and time axis (the methods above) ------------------------------------
    plots = (
        Plot(orbit_annotations, cloud=orbit_cloud, zoom=True,
             title="Orbit diagram of wₖ against T (Fig 1.1)"),
        Plot(period_plot, title="Period of the attractor (Fig 1.1 left)",
             ignores=("coordinate", "at_log_t")),
        Plot(attractor_plot, title="Attractor sets (Fig 1.1 right)",
             ignores=("coordinate",)),
        Plot(lyapunov_plot, title="Largest Lyapunov exponent",
             ignores=("coordinate", "at_log_t")),
        Plot(cascade_table, title="Doubling temperatures, Feigenbaum ratios",
             ignores=("coordinate", "at_log_t")),
        Plot(iterates_plot, title="Iterates wₖ at the chosen T against t",
             depends=("n_states", "n_features", "seed", "burn_in", "keep", "eta",
                      "coordinate", "at_log_t")),
    )
    timeline = Timeline(
        iterate_frames, unit="iteration",
        caption=prose(__file__, "timeline.md"),
        marks=(Mark(orbit_annotations, "point", x="logT", y="wk", dims=(LOG_T, W_DIM),
                    options=RING),
               Mark(attractor_plot, "trail", x="w1", y="w2", dims=("w1", "w2"), length=TRAIL,
                    options=dict(color=T_COLOR, alpha=0.7, bokeh=dict(line_width=2),
                                 mpl=dict(linewidth=1.2))),
               Mark(attractor_plot, "point", x="w1", y="w2", dims=("w1", "w2"), options=RING),
               Mark(iterates_plot, "future", x="t", offset=0.5, options=VEIL),
               Mark(iterates_plot, "point", x="t", y="wk", dims=("t", W_DIM), options=RING),
               # the iterates up to t
               Mark(iterates_plot, "grow", x="t", dims=("t",))))
