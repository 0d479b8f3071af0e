"""The herding page's box-dimension run (Fig 1.11): the box-counting and correlation dimensions
of the attractor of the page's model (``dynamics.herding.attractor_dimension``). The Tables
1.1-1.2 run is in ``tables`` beside this file."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import param

from dynamics import herding
from views.framework import (DASHED, MPL_DASHED, Plot, axis, parse_vector, prose, style)
from views.framework.jobs import progress_part
from views.framework.runs import Run
from views.framework.text import verdict_markdown
from views.pages.herding.common import HERDING_COLOR, IID_COLOR

__all__ = ["BoxRun", "BOX_BURN_IN", "CORRELATION_SAMPLE"]

#: Burn-in steps dropped before measuring the attractor's dimension.
BOX_BURN_IN = 10_000
#: Points of the correlation dimension (`herding.correlation_dimension`'s sample).
CORRELATION_SAMPLE = 20_000


class BoxRun(Run):
    """The dimension of the attractor of the page's model, by box counting and by the
    correlation sum, scale by scale."""

    key = "box"
    title = "The dimension of the attractor (Fig 1.11)"
    button = "Measure the dimension"
    text = prose(__file__, "box.md")
    uses = ("n_states", "n_features", "seed", "w0", "eta")
    aliases = {"box_steps": "steps"}
    quick = {"steps": 10_000}
    widgets = {"steps": {"throttled": True}}

    steps = param.Integer(1_000_000, bounds=(10_000, 2_000_000), step=10_000,
                          label="Attractor points",
                          doc="Weights measured for the attractor's dimension, after a "
                              "burn-in of 10,000 steps.")

    def compute(self, settings: dict, progress=None) -> herding.AttractorDimension:
        w0 = parse_vector("w0", settings["w0"], int(settings["n_features"]))
        model = herding.random_model(int(settings["n_states"]), int(settings["n_features"]),
                                     seed=int(settings["seed"]))
        return herding.attractor_dimension(
            model.features, model.moments, steps=int(settings["steps"]),
            burn_in=BOX_BURN_IN, w0=np.asarray(w0), eta=float(settings["eta"]),
            sample=CORRELATION_SAMPLE, seed=0, progress=progress_part(progress, 0.0, 1.0, ""))

    def estimate(self, settings: dict) -> float:
        # measured on the development machine: 1.85 s for 10^6 points
        # (herding 1.01 x 10^6 steps, one sort of the boxes, the correlation sum of 2 x 10^4)
        return 0.5 + 1.5 * settings["steps"] / 1_000_000

    def summary(self, settings: dict, result: herding.AttractorDimension) -> str:
        box, corr = result.box, result.correlation
        (b_lo, b_hi), (c_lo, c_hi) = box.slope_range, corr.slope_range
        sides = box.sizes[box.used]
        return (f"**Box-counting dimension {box.dimension:.3f}, local slopes {b_lo:.2f} to "
                f"{b_hi:.2f}** (box sides {sides.max():.3g} to {sides.min():.3g} of the bounding "
                f"box, {box.used.sum()} scales); **correlation dimension {corr.dimension:.3f}, "
                f"local slopes {c_lo:.2f} to {c_hi:.2f}** ({result.steps:,} weights after "
                f"{result.burn_in:,} steps). "
                + verdict_markdown(herding.attractor_claim(result)))

    def box_plot(self, result: herding.AttractorDimension):
        result = result.box
        dims = [axis("inv", "1 / box side ε (bounding box = 1)"),
                axis("boxes", "boxes N(ε) holding a weight")]
        inv = 1.0 / result.sizes
        counts = result.counts.astype(float)
        every = style(hv.Scatter((inv, counts), *dims, label="all scales"), color="#bbbbbb",
                      bokeh=dict(size=7), mpl=dict(s=20))
        used = style(hv.Scatter((inv[result.used], counts[result.used]), *dims,
                                label="fitted scales"), color=HERDING_COLOR,
                     bokeh=dict(size=7), mpl=dict(s=20))
        # the least-squares line itself: through the mean of the fitted points (in logs)
        x, y = np.log(inv[result.used]), np.log(counts[result.used])
        fit = hv.Curve((np.exp(x), np.exp(y.mean() + result.dimension * (x - x.mean()))), *dims,
                       label=f"slope {result.dimension:.3f}")
        return style(every * used * style(fit, color="black", bokeh=DASHED, mpl=MPL_DASHED),
                     logx=True, logy=True, framewise=True)

    def slopes_plot(self, result: herding.AttractorDimension):
        """The local slopes of box counting (between neighbouring box sizes) and of the
        correlation sum (between neighbouring radii), each drawn at the geometric middle of its
        two scales; filled where both scales are used, hollow elsewhere; the line at 1 marks the
        top of the paper's "between 0 and 1"."""
        dims = [axis("inv", "1 / scale (box side ε or radius r; bounding box = 1)"),
                axis("slope", "local slope (dimension)")]
        layers = []
        for name, scales, slopes, used, color in (
                ("boxes", result.box.sizes, result.box.slopes, result.box.slopes_used,
                 HERDING_COLOR),
                ("correlation", result.correlation.radii, result.correlation.slopes,
                 result.correlation.slopes_used, IID_COLOR)):
            middle = 1.0 / np.sqrt(scales[:-1] * scales[1:])
            keep = np.isfinite(slopes)
            layers.append(style(hv.Scatter((middle[keep & ~used], slopes[keep & ~used]), *dims,
                                           label=f"{name} (unused)"),
                                color="white", bokeh=dict(size=6, line_color=color),
                                mpl=dict(s=16, edgecolors=color)))
            layers.append(style(hv.Curve((middle[used], slopes[used]), *dims, label=name),
                                color=color, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)))
            layers.append(style(hv.Scatter((middle[used], slopes[used]), *dims), color=color,
                                bokeh=dict(size=6), mpl=dict(s=16)))
        every = np.concatenate([1 / result.box.sizes, 1 / result.correlation.radii])
        one = style(hv.Curve(([every.min(), every.max()], [1.0, 1.0]), *dims, label="slope 1"),
                    color="gray", bokeh=DASHED, mpl=MPL_DASHED)
        overlay = one
        for layer in layers:
            overlay = overlay * layer
        return style(overlay, logx=True, framewise=True)

    plots = (Plot(box_plot, title="Boxes holding a weight, by box size"),
             Plot(slopes_plot, title="Local slopes: the dimension by scale"))
