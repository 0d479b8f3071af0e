"""Legends off the data (issue 27): every page draws its legends under its plots (Bokeh's side
panel, never inside the data area; in exports under the axes), and Bokeh's own validation finds
no error in a page's models (E-1021: a slider whose start equals its end).

The rules are checked where the pages are rendered anyway, so that no page is rendered twice:
the live panels at their first render in ``test_live_equals_fresh.py``, the exported figure in
``test_explorers.py``'s PNG export, the run panels in ``test_every_run_in_a_worker.py``. Here:
the widgets of every page (its sidebar and its runs' settings), and the rules themselves."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import panel as pn
import pytest
from bokeh.document import Document

from views import EXPLORERS
from views.framework import style
from views.framework.job_section import JobSection
from views.framework.legends import bokeh_legend, legend_columns, legend_entries, place_legends
from views.framework.page import Page

from ._legends import (assert_models_valid_and_legends_outside, bokeh_legends_inside,
                       matplotlib_legend_problems)


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_a_pages_controls_pass_bokehs_validation(slug):
    """The sidebar and every run's settings as the page builds them (SBEED's k slider in exact
    mode was sent with start == end)."""
    explorer = EXPLORERS[slug]()
    page = Page(explorer)
    parts = [page.controls()] + [JobSection(page, job) for job in explorer.jobs.values()]
    root = pn.Column(*parts).get_root(Document())
    assert_models_valid_and_legends_outside([root])


def test_a_one_value_range_is_drawn_as_a_disabled_slider():
    """SBEED's k has the bounds 1 to 1 with exact gradients: the slider is disabled over one
    step instead (Bokeh refuses start == end), and follows the bounds again when they widen."""
    explorer = EXPLORERS["sbeed"](mode="exact")
    slider = Page(explorer).control("k")
    assert explorer.param.k.bounds == (1, 1)
    assert (slider.start, slider.end, slider.disabled) == (1, 2, True)
    explorer.mode = "sampled"
    assert (slider.start, slider.end, slider.disabled) == (1, 20, False)
    explorer.k = 5
    explorer.mode = "exact"
    assert (slider.start, slider.end, slider.value, slider.disabled) == (1, 2, 1, True)


def test_the_legend_check_sees_a_legend_inside_a_plot():
    """The check the pages' tests use is not vacuous: a plot with HoloViews' default legend
    (inside, top right) is found, and not once the rule has placed it."""
    overlay = hv.Curve([1, 2], label="a") * hv.Curve([2, 1], label="b")
    assert bokeh_legends_inside(hv.render(overlay, backend="bokeh")) != []
    moved = style(overlay, bokeh=bokeh_legend(overlay))
    assert bokeh_legends_inside(hv.render(moved, backend="bokeh")) == []


def test_legend_entries_are_the_labelled_data_layers():
    labelled = hv.Curve([1, 2], label="a") * hv.HLine(1, label="line") * hv.Scatter([1], label="b")
    assert legend_entries(labelled) == ["a", "b"]
    assert legend_entries(hv.Curve([1, 2], label="alone")) == []
    assert legend_entries(style(labelled, show_legend=False)) == []
    assert bokeh_legend(hv.Curve([1, 2]) * hv.Curve([2, 1])) == {}


def test_legend_columns_fill_the_room_and_no_more():
    assert legend_columns([50, 50, 50], 200, gap=8, pad=4) == 3  # 150 + 16 + 8
    assert legend_columns([50, 50, 50], 150, gap=8, pad=4) == 2
    # a column is as wide as its widest entry (entries fill rows: 0 and 2 share a column,
    # so two columns are 100 + 100 wide, not 20 + 100)
    assert legend_columns([20, 100, 100], 150, gap=8, pad=4) == 1
    assert legend_columns([20, 100, 100], 220, gap=8, pad=4) == 2
    assert legend_columns([300], 100, gap=8, pad=4) == 1


def test_an_exported_legend_moves_under_its_axes_and_the_rows_make_room():
    """A legend HoloViews put over the data (top right of a curve that ends there) moves
    under its axes in an export, and the row below moves down to make room."""
    from views.framework.workarounds import render_matplotlib

    x = np.linspace(0, 1, 50)
    busy = (hv.Curve((x, x), label="rising to the top right")
            * hv.Curve((x, 1 - x), label="falling to the bottom right")
            * hv.Curve((x, 0.5 + 0 * x), label="flat"))
    layout = hv.Layout([busy.opts(title="top", legend_position="top_right",
                                  backend="matplotlib"),
                        hv.Curve((x, x ** 2)).opts(title="below", backend="matplotlib")]).cols(1)
    fig = render_matplotlib(layout.opts(fig_inches=(4, 6), vspace=0.3, backend="matplotlib"))
    assert matplotlib_legend_problems(fig) != []
    height = fig.get_size_inches()[1]
    place_legends(fig)
    assert matplotlib_legend_problems(fig) == []
    assert fig.get_size_inches()[1] > height
    legend = fig.axes[0].get_legend()
    assert [t.get_text() for t in legend.texts] == ["rising to the top right",
                                                    "falling to the bottom right", "flat"]
