"""The particle mirror descent page: what its live panels draw (issue 27 item 1c)."""

from __future__ import annotations

import holoviews as hv
import numpy as np

from views import EXPLORERS
from views.pages.pmd import PARTICLE_CMAP


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


def test_both_readings_of_sigma_x_are_presets_and_old_links_still_open():
    """Issue 28 item 3: the thesis's "sigma_x = 2.5" as a variance (the default preset,
    sigma_x = sqrt 2.5) and as a standard deviation (a second preset). A link written before
    the second preset existed held the first preset's name with sigma_x = 2.5: it opens without
    a complaint, on the same model, now named by the standard-deviation preset."""
    cls = EXPLORERS["pmd"]
    fresh = cls()
    assert fresh.preset == "Dai, Sec 4.6.1 (Fig 4.1)" and fresh.sigma_x == 1.581
    sd = "Dai, Sec 4.6.1, σₓ = 2.5 as a standard deviation"
    fresh.preset = sd
    assert fresh.sigma_x == 2.5 and fresh.preset == sd
    fresh.preset = "Dai, Sec 4.6.1 (Fig 4.1)"
    assert fresh.sigma_x == 1.581
    old = dict(preset="Dai, Sec 4.6.1 (Fig 4.1)", sigma1="1.0", sigma2="1.0", sigma_x="2.5",
               p="0.5", theta1="1.0", theta2="-2.0", n_data="1000", seed="1",
               particles="300", batch_size="10", strategy="particles", step_rule="1/t",
               bandwidth_rule="prior", repeats="3", shown="PMD,SGLD")
    opened, messages = cls.from_query({k: [v.encode()] for k, v in old.items()})
    assert messages == []
    assert opened.sigma_x == 2.5 and opened.preset == sd and opened.n_data == 1000
    again, more = cls.from_query({k: [v] for k, v in opened.query().items()})
    assert more == [] and again.query() == opened.query()
    assert "variance" in cls.text and "standard deviation" in cls.text
