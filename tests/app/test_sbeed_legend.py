"""SBEED's first plot names its runs on a projector's first screen (issue 49 item 5): its
legend stands beside the data area, inside the 1024 x 768 screen (under the x axis it was at
y = 764, below the fold, and the three curves were unlabelled there)."""

from __future__ import annotations

import pytest

from views import EXPLORERS

from .test_browser import SMALL_SCREEN, _canvas_count, _open, _wait_for_plots

pytestmark = pytest.mark.browser

#: The first plot's title, data area and legends (canvas px, from BokehJS's views) and its
#: canvas's top on the page.
_FIRST_PLOT = """() => {
    const plots = [];
    for (const view of Bokeh.index.all_views()) {
        if (!view.frame || !view.model.renderers || !view.el.isConnected) continue;
        const box = view.el.getBoundingClientRect();
        if (box.width === 0) continue;
        const f = view.frame.bbox, legends = [];
        for (const [model, child] of view.renderer_views)
            if (model.type === "Legend" && model.items.length > 0 && child.bbox)
                legends.push([child.bbox.x0, child.bbox.y0, child.bbox.x1, child.bbox.y1,
                              model.items.length]);
        plots.push({title: view.model.title ? view.model.title.text : "", top: box.top,
                    left: box.left, frame: [f.x0, f.y0, f.x1, f.y1], legends});
    }
    plots.sort((a, b) => a.top - b.top || a.left - b.left);
    return plots[0];
}"""


def test_sbeeds_first_legend_is_beside_its_plot_on_the_first_screen(server, page):
    cls = EXPLORERS["sbeed"]
    page.set_viewport_size(SMALL_SCREEN)
    _open(page, f"{server}?page=sbeed")
    _wait_for_plots(page, _canvas_count(cls))
    plot = page.evaluate(_FIRST_PLOT)
    assert plot["title"] == "Distance to the smoothed optimum"
    assert len(plot["legends"]) == 1, plot
    x0, y0, x1, y1, entries = plot["legends"][0]
    assert entries == 3  # one per run: η = 0, 0.5, 1
    fx0, fy0, fx1, fy1 = plot["frame"]
    assert x0 >= fx1, f"the legend (x = {x0:.0f}..{x1:.0f}) is not beside the data area"
    assert plot["top"] + y1 <= SMALL_SCREEN["height"], (
        f"the legend ends at y = {plot['top'] + y1:.0f} px, below the first screen")
    assert page.errors == []
