"""The particle mirror descent page: what its live panels draw (issue 27 item 1c)."""

from __future__ import annotations

import holoviews as hv
import numpy as np

from dynamics import pmd
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


def test_the_runs_settings_are_their_own_and_older_links_names_still_open_them():
    """Each run holds its settings under its own names (``rate.repeats``); the page knobs'
    older names (``rate_repeats``, ``lr_passes``, ``repeats``) open them, and the link the page
    writes reopens the same state."""
    cls = EXPLORERS["pmd"]
    old = {"repeats": "2", "rate_data": "30", "rate_largest": "4000", "rate_repeats": "3",
           "lr_components": "5", "lr_particles": "200", "lr_passes": "2", "lr_repeats": "1"}
    opened, messages = cls.from_query({k: [v.encode()] for k, v in old.items()})
    assert messages == []
    fig41, rate, logistic = (opened.jobs[k].run for k in ("fig41", "rate", "logistic"))
    assert fig41.repeats == 2 and (rate.data, rate.largest, rate.repeats) == (30, 4000, 3)
    assert (logistic.components, logistic.particles, logistic.passes, logistic.repeats) == (
        5, 200, 2, 1)
    query = opened.query()
    assert query["rate.repeats"] == "3" and query["logistic.passes"] == "2"
    assert not set(old) & set(query)  # the page writes the new names only
    again, more = cls.from_query({k: [v] for k, v in query.items()})
    assert more == [] and again.query() == query
    # a run's settings: its own, and the page knobs it uses (the rate run: no data size)
    assert set(rate.settings()) == {"data", "largest", "repeats", "sigma1", "sigma2",
                                    "sigma_x", "p", "theta1", "theta2", "seed", "batch_size"}


def test_the_methods_shown_pick_the_fig41_curves_and_redraw_them():
    """``shown`` is the Fig 4.1 run's display knob: its widget sits above the run's panels (not
    in the sidebar), it is not part of the run's settings, and moving it redraws the curves
    with the methods picked (the density panels draw every method whatever it says)."""
    from bokeh.document import Document
    from bokeh.models import Legend

    from views.framework.job_section import JobSection
    from views.framework.page import Page

    explorer = EXPLORERS["pmd"](n_data=20, particles=100)
    job = explorer.jobs["fig41"]
    job.run.repeats = 1
    assert "shown" not in job.run.settings() and job.run.display == ("shown",)
    result = job.compute()
    summary = job.run.summary(job.settings, result)
    assert "This run" in summary and "lowest final total variation" in summary

    def labels(element) -> set[str]:
        return {layer.label for layer in element if layer.label}

    assert set(pmd.METHODS) < labels(job.run.tv_plot(result))
    section = JobSection(Page(explorer), job)
    root = section.__panel__().get_root(Document())
    assert section._display  # the widget drawn above the run's panels

    def legend() -> set[str]:
        items = [item for model in root.select({"type": Legend}) for item in model.items]
        return {item.label.value for item in items}

    assert {"PMD", "SGLD", "Gibbs"} <= legend()
    explorer.shown = ["PMD", "Gibbs"]
    assert labels(job.run.tv_plot(result)) == {"exact draws (floor)", "PMD", "Gibbs"}
    assert "SGLD" not in legend() and {"PMD", "Gibbs"} <= legend()
    assert len(job.run.final_2(result).data) and "SGLD" in job.run.final_2(result).vdims[0].label
