"""Herding with hidden units explorer (Chen & Welling Sec 1.3.3, eqs 1.46-1.52, Prop 1.8-1.9;
the experiment of Sec 1.4.2 and the picture of Fig 1.13).

An RBM herded to scikit-learn's 8 x 8 digits, binarised: its pseudo-samples beside the data (a
timeline plays them in the browser), the moments of the visible and hidden units against the
data's, the perceptron cycling condition at every step and the moment errors over the run. A run
classifies the digits with herded hidden units (Fig 1.14: one RBM a class, standardised energies
into a logistic regression) against MLR, 1-NN, CD and PCD.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import holoviews as hv
import numpy as np
import param

from dynamics.rbm import hidden_herding as hh
from dynamics.rbm import visible_herding as vh
from dynamics.claims import Verdict
from dynamics.papers import CHEN_WELLING
from views.framework.cache import results_cache
from views.framework import (DASHED, DOTTED, MPL_DASHED, MPL_DOTTED, Explorer, Frames, Mark,
                             Plot, Section, Timeline, axis, log_spaced, style)
from views.framework.text import prose, verdict_markdown
from views.pages.rbm.runs import ClassifyRun

#: Pseudo-samples (and data cases) shown: ``ROWS`` rows of ``COLUMNS`` digits.
ROWS, COLUMNS = 4, 5
SIDE = hh.DIGIT_SIDE
#: Pixel colours: off (-1), ink (+1).
INK = ["#f7f7f7", "#202020"]
#: The moment groups of the error panel: index into ``HiddenHerding.error`` -> legend, colour.
GROUPS = {0: ("pixels xᵢ", "#1f77b4"), 1: ("hidden units zⱼ", "#2ca02c"),
          2: ("pairs xᵢzⱼ", "#d62728")}
PAIR_COLOR = "#ff7f0e"
FAIL_COLOR = "#d62728"
CURVE_POINTS = 400
DIGITS = ["all"] + [str(d) for d in range(10)]
MAX_CASES = 500
HIDDEN_MAX = 100
#: Most hidden units of the page's exact argmax: it enumerates 2^m hidden states a step (m = 12:
#: 0.1 s for 1,000 steps; the engine takes up to 16, 16 times as long).
EXACT_MAX = 12
TILE_DIMS = (axis("px", "pixel column"), axis("py", "pixel row"), hv.Dimension("ink"))
NOW = dict(color="gray", bokeh=dict(line_width=1.5, **DOTTED), mpl=dict(linewidth=1, **MPL_DOTTED))


@functools.cache
def class_size(digit: str) -> int:
    """Images of ``digit`` in scikit-learn's set (the smallest class has 174)."""
    return int(np.count_nonzero(hh.binary_digits()[1] == int(digit)))


@dataclass(frozen=True)
class HiddenPage:
    data: np.ndarray
    run: hh.HiddenHerding
    verdict: Verdict
    data_pairs: np.ndarray
    sample_pairs: np.ndarray
    #: Fig 1.13's verdict: a fully visible model herding the pixels' means and pairs on the
    #: same data and steps (the RBM's own line above is a study of its hidden units)
    caption_verdict: Verdict = None  # type: ignore[assignment]


@results_cache
def run_page(hidden: int, search: str, sweeps: int, hidden_bias: str, cases: int, digit: str,
             steps: int, seed: int) -> HiddenPage:
    data, _ = hh.binary_digits(cases, digit=None if digit == "all" else int(digit), seed=seed)
    run = hh.herd_hidden(data, hidden, steps, search=search, sweeps=sweeps,
                         update_hidden_bias=hidden_bias == "updated", seed=seed)
    visible = vh.herd_visible(data, steps)
    return HiddenPage(data, run, hh.moment_matching_claim(run, data, seed=seed),
                      hh.pixel_pairs(data), hh.pixel_pairs(run.visible),
                      vh.pair_matching_claim(visible, data, seed=seed))


def _grid(cols: int, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Thin lines between the digits of a mosaic (cols x rows tiles of SIDE pixels), as one
    polyline broken by NaN."""
    xs, ys = [], []
    for x in range(SIDE, cols * SIDE, SIDE):
        xs += [x, x, np.nan]
        ys += [0, rows * SIDE, np.nan]
    for y in range(SIDE, rows * SIDE, SIDE):
        xs += [0, cols * SIDE, np.nan]
        ys += [y, y, np.nan]
    return np.array(xs, float), np.array(ys, float)


GRID_STYLE = dict(color="#9ecae1", bokeh=dict(line_width=1), mpl=dict(linewidth=0.6))


def _tiles(cols: int, rows: int):
    return style(hv.Curve(_grid(cols, rows), *TILE_DIMS[:2]), **GRID_STYLE)


class RBMExplorer(Explorer):
    """Herding an RBM with hidden units to binarised digits."""

    slug = "rbm"
    title = "Herding with hidden units"
    summary = ("Herding an RBM on scikit-learn's 8×8 digits: pseudo-samples beside the data, "
               "moments of visible and hidden units matched, the perceptron cycling condition.")
    paper = CHEN_WELLING
    figures = "Figs 1.13-1.14; Sec 1.3.3, eqs 1.46-1.52, Prop 1.8-1.9, Sec 1.4.2"

    hidden = param.Integer(20, bounds=(1, HIDDEN_MAX), label="Hidden units m",
                           doc="Hidden units z_j of the RBM (features x_i z_j, x_i, z_j).")
    search = param.Selector(default="safe", objects=list(hh.SEARCHES),
                            label="Joint argmax (eq 1.48)",
                            doc="exact: enumerate the 2^m hidden states (m <= 12); safe: Prop 1.9, "
                                "coordinate ascent from the best data case (the PCT holds); "
                                "local: coordinate ascent from the previous pseudo-sample.")
    sweeps = param.Integer(10, bounds=(1, 50), label="Ascent sweeps",
                           doc="Most coordinate-ascent sweeps of the safe and local searches.")
    hidden_bias = param.Selector(default="updated", objects=["updated", "fixed"],
                                 label="Hidden biases c",
                                 doc="updated: every feature is herded; fixed: Sec 1.4.2 leaves "
                                     "out the update of c to keep the hidden units' entropy "
                                     "high.")
    cases = param.Integer(200, bounds=(20, MAX_CASES), step=10, label="Data cases D",
                          doc="Digits drawn (without replacement, by the seed) from "
                              "scikit-learn's 1,797.")
    digit = param.Selector(default="all", objects=DIGITS, label="Digit class",
                           doc="Every class, or the images of one digit.")
    steps = param.Integer(1000, bounds=(100, 4000), step=100, label="Steps τ",
                          doc="Herding steps: one pseudo-sample each.")
    seed = param.Integer(1, bounds=(0, 99_999), label="Seed",
                         doc="Seed of the data drawn, the starting weights and the independent "
                             "draws of the verdict.")

    fields = ("seed",)
    widgets = {name: {"throttled": True} for name in ("hidden", "sweeps", "cases", "steps")}
    example_change = {"seed": 2}
    bench_move = ("seed", list(range(101, 109)))
    # a larger m, then the exact argmax (clamps m); one digit (clamps D = 200 to its images)
    invalidating = (("hidden", 30), ("search", "exact"), ("digit", "5"))
    runs = (ClassifyRun,)

    text = prose(__file__, "page.md")

    # --- computation -------------------------------------------------------------------------
    def _compute(self) -> HiddenPage:
        return run_page(int(self.hidden), str(self.search), int(self.sweeps),
                        str(self.hidden_bias), int(self.cases), str(self.digit),
                        int(self.steps), int(self.seed))

    def knob_bounds(self) -> dict:
        # always both knobs: the bounds a choice narrows come back when it is undone
        if self.digit == "all":
            cases = (20, MAX_CASES, "the data set")
        else:
            size = class_size(self.digit)
            cases = (20, min(MAX_CASES, size // 10 * 10), f"{size} images of digit {self.digit}")
        hidden = ((1, EXACT_MAX, "the exact argmax") if self.search == "exact"
                  else (1, HIDDEN_MAX, "the safe and local searches"))
        return {"cases": cases, "hidden": hidden}

    def sample_frames(self) -> Frames:
        """The timeline: t = 1..τ, the mosaic of the pseudo-samples up to step t."""
        run = self.result().run
        steps, n = run.visible.shape
        count = ROWS * COLUMNS
        padded = np.concatenate([np.zeros((count - 1, n), bool), run.visible > 0])
        windows = np.lib.stride_tricks.sliding_window_view(padded, count, axis=0)
        # (steps, n, count) -> (steps, rows, columns, SIDE, SIDE) -> rows of pixels
        tiles = windows.transpose(0, 2, 1).reshape(steps, ROWS, COLUMNS, SIDE, SIDE)
        frames = tiles.transpose(0, 1, 3, 2, 4).reshape(steps, ROWS * SIDE, COLUMNS * SIDE)
        grid_x, grid_y = _grid(COLUMNS, ROWS)
        return Frames(np.arange(1, steps + 1), {}, arrays={"window": frames},
                      fixed={"mosaic": (0.0, 0.0, float(COLUMNS * SIDE), float(ROWS * SIDE)),
                             "grid_x": grid_x, "grid_y": grid_y})

    # --- plots -------------------------------------------------------------------------------
    def _frame(self):
        # square pixels in exports (the page's panels are close to 5:4 already)
        return style(hv.Curve([], *TILE_DIMS[:2]), xlim=(0, COLUMNS * SIDE),
                     ylim=(0, ROWS * SIDE), framewise=True, xaxis=None, yaxis=None,
                     mpl=dict(aspect=COLUMNS / ROWS))

    def samples_image(self):
        """The frame of the pseudo-samples (the mosaic and its grid are the timeline's marks,
        ``always``)."""
        return self._frame()

    def data_image(self):
        data = self.result().data[: ROWS * COLUMNS]
        image = hv.Image((hh.mosaic(data, columns=COLUMNS) > 0).astype(np.float32),
                         bounds=(0, 0, COLUMNS * SIDE, ROWS * SIDE), kdims=list(TILE_DIMS[:2]),
                         vdims=[TILE_DIMS[2]])
        image = style(image, cmap=INK, clim=(0, 1), bokeh=dict(colorbar=False),
                      mpl=dict(colorbar=False))
        return style(self._frame() * image * _tiles(COLUMNS, ROWS), framewise=True)

    def _against(self, groups, label):
        dims = [axis("data", f"data's {label} moment"), axis("herded", "pseudo-samples' moment")]
        diag = style(hv.Curve(([-1, 1], [-1, 1]), *dims, label="equal"), color="gray",
                     bokeh=DASHED, mpl=MPL_DASHED)
        layers = [diag]
        for (x, y, name, color, size) in groups:
            layers.append(style(hv.Scatter((np.ravel(x), np.ravel(y)), *dims, label=name),
                                color=color, alpha=0.6,
                                bokeh=dict(size=size, line_color=None),
                                mpl=dict(s=size * 2, edgecolors="none")))
        return style(hv.Overlay(layers), xlim=(-1.05, 1.05), ylim=(-1.05, 1.05),
                     framewise=True)

    def visible_plot(self):
        page = self.result()
        run = page.run
        return self._against(
            [(page.data_pairs, page.sample_pairs, "pixel pairs xᵢxⱼ", PAIR_COLOR, 3),
             (run.data_visible, run.sample_visible, "pixel means xᵢ", GROUPS[0][1], 6)],
            "visible")

    def hidden_plot(self):
        run = self.result().run
        return self._against(
            [(run.data_pairs, run.sample_pairs, "pairs xᵢzⱼ", GROUPS[2][1], 3),
             (run.data_hidden, run.sample_hidden, "hidden means zⱼ", GROUPS[1][1], 7)],
            "completed")

    def pct_plot(self):
        run = self.result().run
        dims = [axis("step", "step t"), axis("gap", "w·φ(s*) − meanᵢ w·φ(xᵢ, zᵢ*)")]
        t = np.arange(1, len(run.pct_gap) + 1, dtype=float)
        curve = style(hv.Curve((t, run.pct_gap), *dims, label="PCT gap"), color="#444444",
                      bokeh=dict(line_width=1), mpl=dict(linewidth=0.8))
        zero = style(hv.HLine(0.0), color="gray", bokeh=DASHED, mpl=MPL_DASHED)
        bad = ~run.pct_held
        # a point at NaN keeps the legend's symbol when no step failed
        fails = style(hv.Scatter((np.append(t[bad], np.nan), np.append(run.pct_gap[bad], np.nan)),
                                 *dims, label=f"PCT failed ({int(bad.sum())})"),
                      color=FAIL_COLOR, bokeh=dict(size=6, marker="x"),
                      mpl=dict(s=24, marker="X"))
        return style(curve * zero * fails, framewise=True)

    def error_plot(self):
        run = self.result().run
        steps = len(run.error)
        idx = log_spaced(steps, CURVE_POINTS)
        tau = (idx + 1).astype(float)
        dims = [axis("tau", "step τ"), axis("error", "largest |data − pseudo-sample| moment")]
        layers = []
        for k, (name, color) in GROUPS.items():
            # floored for the log axis (a running mean can hit the data's exactly)
            y = np.maximum(run.error[idx, k], 1e-4)
            layers.append(style(hv.Curve((tau, y), *dims, label=name), color=color,
                                bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)))
        ends = tau[[0, -1]]
        anchor = max(float(run.error[-1].max()), 1e-4) * tau[-1]
        layers.append(style(hv.Curve((ends, anchor / ends), *dims, label="∝ 1/τ"),
                            color="gray", bokeh=DASHED, mpl=MPL_DASHED))
        return style(hv.Overlay(layers), logx=True, logy=True, framewise=True)

    def status(self) -> str:
        page = self.result()
        run = page.run
        v = page.verdict.numbers
        which = "every class" if self.digit == "all" else f"digit {self.digit}"
        return (f"**Data:** {len(page.data):,} of scikit-learn's 8×8 digits ({which}), a pixel "
                f"ink above 20 % of full intensity. "
                f"**{len(run.visible):,} pseudo-samples**, {run.hidden.shape[1]} hidden units, "
                f"{run.search} argmax: the PCT held at **{100 * v['pct_held']:.1f} %** of the "
                f"steps, largest ‖w‖ {run.weight_norm.max():.3g}. Pixel means off by "
                f"{v['herding_means']:.4f} on average ({len(run.visible):,} independent draws "
                f"from the data: {v['iid_means']:.4f}), pixel pairs by {v['herding_pairs']:.4f} "
                f"({v['iid_pairs']:.4f}): a study of the hidden units, not of the caption. "
                f"**Fig 1.13** (a fully visible model herding the means and pairs, "
                f"{len(run.visible):,} steps): "
                + verdict_markdown(page.caption_verdict))

    # --- panels, layout and time axis (the methods above) ------------------------------------
    plots = (
        Plot(samples_image, title="Pseudo-samples s*ₜ (Fig 1.13)"),
        Plot(data_image, title="Data: sklearn 8×8 digits, binarised"),
        Plot(visible_plot, title="Visible moments: samples vs data"),
        Plot(hidden_plot, title="Hidden moments: samples vs data"),
        Plot(pct_plot, title="PCT condition per step (eqs 1.50-1.51)"),
        Plot(error_plot, title="Largest moment error (Prop 1.8: ≤ 2R/τ)"),
    )
    sections = (
        Section((samples_image, data_image)),
        Section((visible_plot, hidden_plot, pct_plot, error_plot)),
    )
    timeline = Timeline(
        sample_frames, unit="step",
        caption=prose(__file__, "timeline.md"),
        marks=(Mark(samples_image, "image", x="window", bounds="mosaic", dims=TILE_DIMS,
                    always=True, options=dict(cmap=INK, clim=(0, 1),
                                              bokeh=dict(colorbar=False),
                                              mpl=dict(colorbar=False))),
               # the lines between the digits, drawn over the mosaic (a fixed polyline)
               Mark(samples_image, "curve", x="grid_x", y="grid_y", dims=TILE_DIMS[:2],
                    always=True, options=GRID_STYLE),
               Mark(pct_plot, "vline", x="t", options=NOW),
               Mark(error_plot, "vline", x="t", options=NOW),
               # the curves end at t
               Mark(pct_plot, "grow", x="t", dims=("step",)),
               Mark(error_plot, "grow", x="t", dims=("tau",), keep=("∝",))))
