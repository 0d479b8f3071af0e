"""What the Embedding-SGD page and its runs share: the methods' colours, the paper's reported
result (Sec 5.5) and the test-error panel that draws it."""

from __future__ import annotations

import holoviews as hv
import numpy as np

from dynamics import esgd as es
from views.framework import axis, style

__all__ = ["ESGD_COLOR", "BASE_COLOR", "TRUTH_COLOR", "SMOOTH_COLOR", "METHOD_COLORS",
           "PAPER_DATA", "PAPER_MSE", "mse_overlay"]

ESGD_COLOR, BASE_COLOR, TRUTH_COLOR, SMOOTH_COLOR = "#d62728", "#1f77b4", "#222222", "#7f7f7f"
#: Fig 5.2 (a)'s methods, their colours.
METHOD_COLORS = {"embedding": ESGD_COLOR, "virtual": "#2ca02c", "saa": "#9467bd",
                 "plain": BASE_COLOR}
#: The paper's result (Sec 5.5): average MSE after 0.1M data over 10 runs.
PAPER_DATA, PAPER_MSE = es.PAPER_DATA, es.PAPER_MSE


def mse_overlay(seen: np.ndarray, curves: dict, suffix: str = "", band=None):
    """Test MSE against data visited: one curve per method (``curves``: label -> (colour,
    values)), Embedding-SGD's band, and the paper's reported point."""
    dims = [axis("seen", "data visited"), axis("mse", "test MSE (noiseless inputs)")]
    layers = []
    if band is not None:
        layers.append(style(hv.Area((seen, band[0], band[1]), kdims=[dims[0]],
                                    vdims=[dims[1], "hi"]),
                            alpha=0.2, bokeh=dict(color=ESGD_COLOR, line_alpha=0),
                            mpl=dict(facecolor=ESGD_COLOR, edgecolor="none")))
    layers += [style(hv.Curve((seen, values), *dims, label=f"{label}{suffix}"),
                     color=color, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))
               for label, (color, values) in curves.items()]
    layers.append(style(hv.Scatter(([float(PAPER_DATA)], [PAPER_MSE]), *dims,
                                   label="paper: 0.0029 at 0.1M"),
                        color="black", bokeh=dict(size=14, marker="x", line_width=2),
                        mpl=dict(s=60, marker="X")))
    # the paper's mark inside the frame
    return style(hv.Overlay(layers), logx=True, logy=True,
                 framewise=True, xlim=(float(seen[0]), 2.0 * max(PAPER_DATA, seen[-1])))
