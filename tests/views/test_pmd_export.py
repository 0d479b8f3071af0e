"""PMD's PNG export (issue 49 item 5): the density panel keeps the page's square shape at every
mixing weight. At p = 0.95 the grid's window is 1.6 wide by 12 high, and matplotlib's equal
aspect drew it as a strip with overprinted tick labels beside a thin colour bar, and the
particles' colour bar was 41 px high beside its 288-px panel."""

from __future__ import annotations

import pytest

from views import EXPLORERS
from views.framework.figure import fit_colorbars
from views.framework.legends import place_legends
from views.framework.workarounds import forget_colorbars, render_matplotlib

KDE_TITLE = "Weighted KDE of the particles (end)"


def _drawn(explorer):
    """The export's figure of ``explorer`` (as ``export_figures`` draws it), laid out."""
    fig = render_matplotlib(explorer.figure())
    fit_colorbars(fig)
    place_legends(fig)
    fig.draw_without_rendering()
    return fig


@pytest.mark.parametrize("p", [0.5, 0.95])
def test_the_exported_density_panel_is_square_with_its_ticks_apart(p):
    import matplotlib.pyplot as plt

    explorer = EXPLORERS["pmd"](preset="custom", p=p, n_data=200, particles=300)
    fig = _drawn(explorer)
    try:
        kde = next(ax for ax in fig.axes if ax.get_title() == KDE_TITLE)
        box = kde.get_window_extent()
        assert 0.8 <= box.height / box.width <= 1.25, (
            f"p = {p}: the density panel is {box.width:.0f} x {box.height:.0f} px")
        others = [ax for ax in fig.axes if ax.get_title() and ax is not kde]
        assert box.height >= 0.8 * max(ax.get_window_extent().height for ax in others)
        bar = next(ax for ax in fig.axes if ax.get_ylabel().startswith("density"))
        assert bar.get_window_extent().height >= 0.9 * box.height  # the colour bar beside it
        cloud = next(ax for ax in fig.axes if ax.get_title().startswith("Particles"))
        weights = next(ax for ax in fig.axes if ax.get_ylabel() == "weight × m")
        assert (weights.get_window_extent().height
                >= 0.9 * cloud.get_window_extent().height), (
            f"p = {p}: the particles' colour bar is {weights.get_window_extent().height:.0f} px "
            f"high beside a {cloud.get_window_extent().height:.0f}-px panel")
        labels = [t.get_window_extent() for t in kde.get_xticklabels()
                  if t.get_text() and t.get_visible()]
        assert len(labels) >= 3
        for left, right in zip(labels, labels[1:]):
            assert left.x1 < right.x0, f"p = {p}: the density panel's tick labels overlap"
    finally:
        plt.close(fig)
        forget_colorbars(fig)
