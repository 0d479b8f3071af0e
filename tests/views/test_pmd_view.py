"""The particle mirror descent page: what its live panels draw (issue 27 item 1c)."""

from __future__ import annotations

import holoviews as hv
import numpy as np

from views import EXPLORERS
from views.pmd import PARTICLE_CMAP


def _luminance(color: str) -> float:
    """Relative luminance of a "#rrggbb" colour, 0 (black) to 1 (white)."""
    r, g, b = (int(color[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def test_light_particles_stay_visible_on_the_white_page():
    """The colour of the lightest weights (most particles) keeps a contrast with the white
    page: inferno's pale-yellow end (luminance 0.97) vanished; dark stays heavy."""
    lightest, heaviest = PARTICLE_CMAP[0], PARTICLE_CMAP[-1]
    assert _luminance(lightest) < 0.6
    assert _luminance(heaviest) < 0.05


def test_the_effective_sample_size_axis_fits_its_curve():
    """The ESS axis spans the curve (it ran to 20 m = 30,000 for a curve under 30)."""
    explorer = EXPLORERS["pmd"](n_data=200, particles=300)
    plot = explorer.ess_plot()
    ess = np.concatenate([layer.dimension_values("ess") for layer in plot])
    lo, hi = hv.Store.lookup_options("bokeh", plot, "plot").kwargs["ylim"]
    assert lo <= ess.min() and ess.max() <= hi <= 2 * ess.max()
