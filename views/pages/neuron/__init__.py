"""Single-neuron explorer: the weight staircase, the rabbit stripes, the discrepancy bounds and the
Sturmian word count M(T) = T + 1.

Reproduces Figs 1.8-1.9 and Prop 1.5 / Cor 1.6 of Chen & Welling, *Herding as a Learning System
with Edge-of-Chaos Dynamics* (section 1.2.6, "Herding a Single Neuron", and eqs 1.36-1.37).
"""

from __future__ import annotations

from dataclasses import dataclass

import holoviews as hv
import numpy as np
import param

from dynamics import neuron
from dynamics.papers import CHEN_WELLING
from views.framework.cache import results_cache
from views.framework import DASHED, MPL_DASHED, Explorer, Plot, style
from views.framework.text import prose, verdict_markdown
from views.framework.timeline import Frames, Mark, Timeline

#: Above this many steps the discrepancy curve is drawn as a min/max envelope of this many blocks.
ENVELOPE = 2_000
HERDING_COLOR, BOUND_COLOR, STURMIAN_COLOR, BAND_COLOR = "#d62728", "#555555", "#2ca02c", "#ff7f0e"
#: Stripe colours as in Fig. 1.9: white for s = 1 (fires), black for s = 0.
STRIPES = ["black", "white"]
CUSTOM = "custom"
#: The w0 selector: label -> key of ``neuron.special_starts``.
STARTS = {
    "2·rate − 1 (rabbit, Fig 1.9)": "rabbit",
    "rate − 1/2 (Cor 1.6)": "half",
    "0 (w = accumulated error)": "zero",
}
T_DIM = hv.Dimension("t", label="step t")
W_DIM = hv.Dimension("w", label="weight wₜ")
T_COLOR = "#1f77b4"
#: A veil over the steps after t (what has not happened yet).
VEIL = dict(alpha=0.75, bokeh=dict(color="#f2f2f2", line_alpha=0),
            mpl=dict(facecolor="#f2f2f2", color=None, linewidth=0))


@dataclass(frozen=True)
class NeuronRun:
    """Everything the page draws for one parameter set."""

    run: neuron.NeuronResult
    rabbit: np.ndarray
    words: np.ndarray
    bound: float
    statement: str
    interval: tuple[float, float]
    period: int | None


#: Few entries: at the largest step count one entry holds about 25 MB.
@results_cache
def run_neuron(rate: float, w0: float, steps: int, stripes: int, max_word: int) -> NeuronRun:
    """Herd the neuron and derive everything the page shows (cached per argument set)."""
    run = neuron.herd_neuron(rate, steps, w0=w0)
    return NeuronRun(
        run=run,
        rabbit=neuron.rabbit_sequence(stripes),
        words=neuron.complexity(run.states, min(max_word, steps)),
        bound=neuron.discrepancy_bound(rate, w0),
        statement=neuron.bound_statement(rate, w0),
        interval=neuron.invariant_interval(rate),
        period=neuron.rational_period(rate),
    )


class NeuronExplorer(Explorer):
    """The herded single neuron (eqs 1.25-1.26): a Sturmian sequence from a one-line rule."""

    slug = "neuron"
    title = "Single neuron"
    summary = "One herded neuron writes the Fibonacci rabbit sequence: Sturmian, |D(T)| ≤ 1."
    paper = CHEN_WELLING
    figures = "Figs 1.8-1.9; eqs 1.25-1.32, Prop 1.5, Cor 1.6, eqs 1.36-1.37"

    preset = param.Selector(
        objects=[*neuron.RATE_PRESETS, CUSTOM], default=next(iter(neuron.RATE_PRESETS)),
        label="Firing rate preset",
        doc="A firing rate from the paper (choosing one sets the rate); 'custom' for a typed rate.")
    rate = param.Number(
        neuron.GOLDEN_MEAN, bounds=(0.0, 1.0), step=0.001, label="Firing rate π",
        doc="The target firing rate π = φ̄ in [0, 1], typed as a decimal (full float "
            "precision).")
    start = param.Selector(
        objects=[*STARTS, CUSTOM], default=next(iter(STARTS)), label="Initial weight preset",
        doc="The paper's special starts (choosing one sets w0, which then follows the rate); "
            "'custom' for a typed w0.")
    w0 = param.Number(
        2 * neuron.GOLDEN_MEAN - 1, bounds=(-10.0, 10.0), step=0.01, label="Initial weight w0",
        doc="The initial weight w0; outside (π − 1, π] the weight first moves into that "
            "interval.")
    stripes = param.Integer(34, bounds=(5, 200), label="Steps shown as stripes",
                            doc="Number of first steps drawn in the weight and stripe panels.")
    steps = param.Integer(2_000, bounds=(10, 1_000_000), step=10, label="Steps T",
                          doc="Number of steps of the discrepancy and word-count panels.")
    max_word = param.Integer(30, bounds=(2, 100), label="Longest word length",
                             doc="Largest word length T for the complexity M(T), eq 1.36.")

    fields = ("rate", "w0")
    widgets = {
        "steps": {"throttled": True},
        "stripes": {"throttled": True},
        "max_word": {"throttled": True},
    }

    # what the generic tests and benches need of this page (see ``Explorer``)
    example_change = {"rate": 0.3}
    bench_move = ("rate", [0.301, 0.302, 0.303, 0.304, 0.305, 0.306, 0.307, 0.308])
    bench_timeline = {"stripes": 200}  # the timeline spans the steps shown as stripes
    quick = dict(steps=200)

    text = prose(__file__, "page.md")

    # --- linked knobs -------------------------------------------------------------------------
    # Choosing a preset sets the rate (or w0); typing a value that matches no preset shows
    # 'custom'; w0 follows the rate while a special start is chosen. The linked values are set
    # in the same batch of parameter events as the knob that moved, so the plots, which watch
    # every knob, redraw once per move, not once per changed parameter.
    def __init__(self, **params):
        super().__init__(**params)
        # Make the given knobs consistent (explicit values win), without the links below.
        put = self.set_unlinked
        if "preset" in params and "rate" not in params and self.preset != CUSTOM:
            put("rate", neuron.RATE_PRESETS[self.preset])
        put("preset", self._preset_of(self.rate))
        if "w0" in params and "start" not in params:
            put("start", self._start_of(self.w0))
        elif "w0" not in params and self.start != CUSTOM:
            put("w0", self._special_start(self.start))

    def follow(self, name: str) -> None:
        if name == "preset" and self.preset != CUSTOM:
            self._put("rate", neuron.RATE_PRESETS[self.preset])
        if name in ("preset", "rate"):
            self._put("preset", self._preset_of(self.rate))
            if self.start != CUSTOM:
                self._put("w0", self._special_start(self.start))
        elif name == "start" and self.start != CUSTOM:
            self._put("w0", self._special_start(self.start))
        elif name == "w0":
            self._put("start", self._start_of(self.w0))

    def _preset_of(self, rate: float) -> str:
        return next((k for k, v in neuron.RATE_PRESETS.items() if v == rate), CUSTOM)

    def _start_of(self, w0: float) -> str:
        if self.start != CUSTOM and w0 == self._special_start(self.start):
            return self.start
        return CUSTOM

    def _special_start(self, label: str) -> float:
        return neuron.special_starts(self.rate)[STARTS[label]]

    # --- computation -------------------------------------------------------------------------
    def _compute(self) -> NeuronRun:
        return run_neuron(float(self.rate), float(self.w0), self.steps, self.stripes, self.max_word)

    def status(self) -> str:
        res = self.result()
        return verdict_markdown(neuron.sturmian_claim(res.run, res.words, bound=res.bound))

    def step_frames(self) -> Frames:
        """The timeline: the weight w_t for t = 0..n, n the steps shown as stripes; T1 =
        max(t, 1) places the discrepancy's line on its log axis."""
        n = min(self.stripes, self.steps)
        t = np.arange(n + 1)
        return Frames(t, {"w": self.result().run.weights[: n + 1], "T1": np.maximum(t, 1)})

    # --- plots -------------------------------------------------------------------------------
    def weights_plot(self):
        res = self.result()
        n = min(self.stripes, self.steps)
        t = np.arange(n + 1)
        w = res.run.weights[: n + 1]
        lo, hi = res.interval
        band = style(hv.HSpan(lo, hi), alpha=0.15, framewise=True,
                     bokeh=dict(color=BAND_COLOR, line_alpha=0),
                     # color=None: HoloViews would add a cycle colour as 'color' beside
                     # facecolor, which matplotlib warns about.
                     mpl=dict(facecolor=BAND_COLOR, color=None, linewidth=0))
        line = style(hv.Curve((t, w), T_DIM, W_DIM), color="#888888", framewise=True,
                     bokeh=dict(line_width=1), mpl=dict(linewidth=0.8))
        # Dot w_{t-1} coloured by the state it triggers, s_t = I(w_{t-1} > 0), as in the stripes.
        fires = (w > 0).astype(int)
        dots = hv.Scatter((t, w, fires), T_DIM, [W_DIM, hv.Dimension("s", label="next state")])
        dots = style(dots, color="s", cmap=STRIPES, clim=(0, 1), framewise=True,
                     bokeh=dict(size=7, line_color="black", tools=["hover"]),
                     mpl=dict(s=22, edgecolors="black", linewidth=0.6))
        threshold = style(hv.HLine(0.0), color="black", framewise=True,
                          bokeh=dict(line_width=1, **DASHED),
                          mpl=dict(linewidth=0.8, **MPL_DASHED))
        ymin, ymax = min(lo, float(w.min())), max(hi, float(w.max()))
        pad = 0.06 * (ymax - ymin)
        return style(band * line * threshold * dots, framewise=True, xlim=(-0.5, n + 0.5),
                     xlabel="step t",
                     ylabel="weight wₜ",
                     ylim=(ymin - pad, ymax + pad), show_legend=False)

    def stripes_plot(self):
        res = self.result()
        n = min(self.stripes, self.steps)
        s = res.run.states[:n]
        t = np.arange(1, n + 1, dtype=float)
        # One rectangle per state: herding on top (y in [1.1, 1.9]), rabbit below ([0.1, 0.9]).
        x0, x1 = np.tile(t - 0.5, 2), np.tile(t + 0.5, 2)
        y0 = np.repeat([1.1, 0.1], n)
        values = np.concatenate([s, res.rabbit[:n]])
        rects = hv.Rectangles((x0, y0, x1, y0 + 0.8, values),
                              kdims=[T_DIM, hv.Dimension("y", label=" "), "x1", "y1"],
                              vdims=[hv.Dimension("s", label="state")])
        rects = style(rects, color="s", cmap=STRIPES, clim=(0, 1), framewise=True,
                      yticks=[(1.5, "herding"), (0.5, "rabbit")], xlim=(0.5, n + 0.5),
                      ylim=(-0.05, 2.5),
                      bokeh=dict(line_color="#999999", tools=["hover"]),
                      mpl=dict(edgecolor="#999999", linewidth=0.4))
        differ = int(np.count_nonzero(s != res.rabbit[:n]))
        if differ == 0:
            note = "identical, as in Fig 1.9"
        else:
            note = (f"differ at {differ} of {n} steps: equal only for the\n"
                    "golden mean with w0 = 2·rate − 1")
        label = style(hv.Text(0.5 + n / 2, 2.2, note, fontsize=9), color="#333333",
                      bokeh=dict(text_font_size="10pt"))
        return style(rects * label, framewise=True)

    def discrepancy_plot(self):
        res = self.result()
        T, D = _envelope(res.run.discrepancy, ENVELOPE)
        dims = [hv.Dimension("T", label="number of steps T"),
                hv.Dimension("D", label="D(T) = Σₜ sₜ − T π")]
        curve = style(hv.Curve((T, D), *dims, label="D(T)"), color=HERDING_COLOR, framewise=True,
                      bokeh=dict(line_width=1), mpl=dict(linewidth=0.7))
        B = res.bound
        source = {"Cor 1.6": "Cor 1.6", "Prop 1.5": "Prop 1.5",
                  "transient": "w0 outside (π−1, π]"}[res.statement]
        # Both bound lines in one element (a NaN breaks the line), so one legend entry.
        bounds = hv.Curve(([1, self.steps, np.nan, 1, self.steps], [B, B, np.nan, -B, -B]),
                          *dims, label=f"±{B:.3g} ({source})")
        bounds = style(bounds, color=BOUND_COLOR, framewise=True,
                       bokeh=dict(line_width=1.5, **DASHED),
                       mpl=dict(linewidth=1.2, **MPL_DASHED))
        return style(curve * bounds, framewise=True, logx=True, ylim=(-1.3 * B, 1.3 * B),
                     mpl=dict(aspect="auto"))

    def words_plot(self):
        res = self.result()
        T = np.arange(1, len(res.words) + 1)
        dims = [hv.Dimension("T", label="word length T"),
                hv.Dimension("M", label="distinct words M(T)")]
        q = res.period
        label = f"herding (period q = {q})" if q is not None else "herding"
        sturm = style(hv.Curve((T, T + 1), *dims, label="T + 1 (Sturmian)"),
                      color=STURMIAN_COLOR, framewise=True, bokeh=dict(line_width=2),
                      mpl=dict(linewidth=1.5))
        words = style(hv.Scatter((T, res.words), *dims, label=label), color=HERDING_COLOR,
                      framewise=True,
                      bokeh=dict(size=6), mpl=dict(s=14))
        return style(sturm * words, framewise=True, ylim=(0, 1.1 * (T[-1] + 1)))

    # --- panels, layout and time axis (the methods above) ------------------------------------
    plots = (
        Plot(weights_plot, title="Weights wₜ (Figs 1.8-1.9a)",
             ignores=("max_word",)),
        Plot(stripes_plot, title="Herding vs rabbit sequence (Fig 1.9b)",
             ignores=("max_word",)),
        Plot(discrepancy_plot, title="Discrepancy D(T) (Prop 1.5, Cor 1.6)",
             # the timeline's line at T = t lies within the steps shown as stripes
             ignores=("max_word",)),
        Plot(words_plot, title="Distinct words M(T) (eq 1.36)", ignores=("stripes",)),
    )
    timeline = Timeline(
        step_frames, unit="step",
        caption=prose(__file__, "timeline.md"),
        marks=(Mark(weights_plot, "future", x="t", offset=0.5, options=VEIL),
               Mark(weights_plot, "point", x="t", y="w", dims=(T_DIM, W_DIM),
                    options=dict(bokeh=dict(size=16, fill_alpha=0, line_color=T_COLOR,
                                            line_width=3),
                                 mpl=dict(s=120, color="none", edgecolors=T_COLOR,
                                          linewidth=2))),
               Mark(stripes_plot, "future", x="t", offset=0.5, options=VEIL),
               Mark(discrepancy_plot, "vline", x="T1",
                    options=dict(color=T_COLOR, bokeh=dict(line_width=1.5),
                                 mpl=dict(linewidth=1))),
               # the weights and the states up to t, the discrepancy ending at t
               Mark(weights_plot, "grow", x="t", dims=("t",)),
               Mark(stripes_plot, "grow", x="t", dims=("t",)),
               Mark(discrepancy_plot, "grow", x="T1", dims=("T",), keep=("±",))))


def _envelope(y: np.ndarray, blocks: int) -> tuple[np.ndarray, np.ndarray]:
    """A long series y_1..y_n as (T, y) to draw: itself when short, else the minimum and maximum
    of each of at most ``blocks`` consecutive blocks, interleaved in time order (so the drawn band
    keeps every extreme), and the last point."""
    n = y.size
    T = np.arange(1, n + 1)
    if n <= 2 * blocks:
        return T, y
    size = -(-n // blocks)
    rows = -(-n // size)
    padded = np.concatenate([y, np.full(rows * size - n, y[-1])]).reshape(rows, size)
    start = np.arange(rows) * size
    lows = np.minimum(start + padded.argmin(axis=1), n - 1)
    highs = np.minimum(start + padded.argmax(axis=1), n - 1)
    idx = np.column_stack([np.minimum(lows, highs), np.maximum(lows, highs)]).ravel()
    idx = np.append(idx, n - 1)
    return T[idx], y[idx]
