"""The rbm page's run: classifying the digits with herded hidden units (Chen & Welling Sec
1.4.2, Fig 1.14: one RBM a class, standardised energies into a logistic regression) against
MLR, 1-NN, CD and PCD (``dynamics.rbm.herding_classify.classification_experiment``)."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import param

from dynamics.rbm import herding_classify as hc
from views.framework import Plot, axis, prose, style
from views.framework.runs import Run
from views.framework.text import verdict_markdown

__all__ = ["ClassifyRun", "METHOD_STYLE"]

#: The run's methods: legend and colour (Fig 1.14's order, left to right).
METHOD_STYLE = {"MLR": ("MLR (pixels)", "#555555"), "1NN": ("1-NN (pixels)", "#999999"),
                "H": ("H: herding, local", "#d62728"), "SH": ("SH: herding, safe", "#ff9896"),
                "CD": ("CD-1", "#1f77b4"), "PCD": ("PCD (BernoulliRBM)", "#9467bd")}


class ClassifyRun(Run):
    """Fig 1.14: test errors of herding (local and safe), CD, PCD, MLR and 1-NN on
    scikit-learn's digits, over random splits."""

    key = "classify"
    title = "Classification with herded hidden units (Fig 1.14)"
    button = "Classify"
    text = prose(__file__, "classify.md")
    aliases = {"class_hidden": "hidden", "class_steps": "steps", "class_splits": "splits",
               "class_seed": "seed"}
    quick = {"hidden": 4, "steps": 20, "splits": 1}
    fields = ("seed",)
    widgets = {"hidden": {"throttled": True}, "steps": {"throttled": True}}

    hidden = param.Integer(100, bounds=(4, 200), step=4, label="Largest hidden count H",
                           doc="Herding (H, SH) and CD get H/4, H/2 and H hidden units, "
                               "PCD H (the paper: 50-1000 for 256 pixels).")
    steps = param.Integer(1000, bounds=(20, 2000), step=20, label="Iterations a model",
                          doc="Herding or (P)CD iterations of each class's model; energies "
                              "are averaged over the second half (the paper: 2000).")
    splits = param.Integer(4, bounds=(1, 8), label="Splits",
                           doc="Random splits of each class into 100 training, 40 "
                               "validation and the rest test cases (the paper: 4).")
    seed = param.Integer(0, bounds=(0, 99_999), label="Split seed",
                         doc="Seed of the splits and of every model's start.")

    @staticmethod
    def hidden_counts(H: int) -> tuple:
        """The hidden-unit counts of the run: H/4, H/2 and H."""
        return tuple(sorted({max(1, H // 4), max(1, H // 2), H}))

    def compute(self, settings: dict, progress=None) -> hc.ClassifyResult:
        return hc.classification_experiment(
            hidden=self.hidden_counts(int(settings["hidden"])), splits=int(settings["splits"]),
            steps=int(settings["steps"]), seed=int(settings["seed"]), progress=progress)

    def estimate(self, settings: dict) -> float:
        # measured at H = 100, 1,000 iterations: 112 s of CPU a split (447 s for four)
        H, steps = settings["hidden"], settings["steps"]
        return 2.0 + settings["splits"] * (1.1 * H * steps / 1000 + 2.0)

    def summary(self, settings: dict, result: hc.ClassifyResult) -> str:
        parts = []
        for m in result.methods:
            for h, e, se in zip(result.hidden[m] or ("",), result.mean(m), result.stderr(m)):
                parts.append(f"{m}{h} **{100 * e:.1f} %** ± {100 * se:.1f}")
        return (f"**{result.splits} split(s), {result.n_test} test digits, {result.steps} "
                f"iterations a model.** Test error: " + "; ".join(parts) + ". "
                + verdict_markdown(hc.classification_claim(result)))

    def extra(self, settings: dict, result: hc.ClassifyResult) -> str:
        rows = ["| | the paper (USPS, Fig 1.14) | this run (sklearn digits) |",
                "| --- | --- | --- |",
                "| data | 16 × 16 pixels; 700 / 300 / 100 a class | 8 × 8 pixels; "
                f"{result.train} / {result.validation} / 34-43 a class |",
                "| hidden units | H, SH: 50-1000; CD: 50-250; PCD: 500 | H, SH, CD: "
                + ", ".join(map(str, result.hidden.get("H", ()))) + "; PCD: "
                + ", ".join(map(str, result.hidden.get("PCD", ()))) + " |",
                f"| iterations | 2000 (energies over the last 1000) | {result.steps} (the last "
                f"{result.steps // 2}) |",
                f"| splits | 4 | {result.splits} |"]
        seconds = ", ".join(f"{m} {s:.0f} s" for m, s in result.seconds.items())
        return ("Fig 1.14's bars are not in the paper's text; its statements are: local "
                "herding performs as well as CD, safe herding worse, no over-fitting as hidden "
                "units grow, PCD poor (untuned). CPU time of this run: " + seconds
                + ".\n\n" + "\n".join(rows))

    def classify_plot(self, result: hc.ClassifyResult):
        dims = [axis("method", "method (hidden units)"), axis("error", "test error (%)")]
        parts, ticks, x = [], [], 0.0
        for m in result.methods:
            label, color = METHOD_STYLE[m]
            counts = result.hidden[m] or ("",)
            xs = x + np.arange(len(counts), dtype=float)
            ticks += [(float(p), f"{m}{h}") for p, h in zip(xs, counts)]
            means, se = 100 * result.mean(m), 100 * result.stderr(m)
            parts.append(style(hv.ErrorBars((xs, means, se), dims[0], [dims[1], "se"]),
                               color=color, mpl=dict(edgecolor=color)))
            parts.append(style(hv.Scatter((xs, means), *dims, label=label), color=color,
                               bokeh=dict(size=9), mpl=dict(s=35)))
            x = xs[-1] + 1.5
        return style(hv.Overlay(parts), xticks=ticks, xlim=(-0.8, x - 0.7), framewise=True,
                     padding=(0, 0.1), legend_position="top_left", xrotation=45)

    plots = (Plot(classify_plot, title="Test error per method (mean ± 1 s.e.)"),)
