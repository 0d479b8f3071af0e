"""What the particle mirror descent page and its runs share: the model's knobs, the axes of
theta, the methods' colours and the log axis's ticks."""

from __future__ import annotations

import holoviews as hv

MODEL_KNOBS = ("sigma1", "sigma2", "sigma_x", "p", "theta1", "theta2", "n_data")
THETA_DIMS = [hv.Dimension("t1", label="θ₁"), hv.Dimension("t2", label="θ₂")]
METHOD_COLORS = {"PMD": "#d62728", "one-pass SMC": "#ff7f0e", "SGLD": "#1f77b4",
                 "Gibbs": "#2ca02c", "SVI": "#9467bd", "SGD NPV": "#8c564b"}
EXACT_COLOR = "#222222"


def log_ticks(lo: float, hi: float) -> list[float]:
    """1, 3, 10, 30, ... between lo and hi: a log axis Bokeh would otherwise label at every
    integer multiple of a power of ten near its end."""
    ticks = [m * 10.0**e for e in range(0, 8) for m in (1, 3)]
    return [t for t in ticks if lo <= t <= hi]
