"""The floor of the stack: the cheapest page Panel and Bokeh can update, for the browser bench.

A slider and ``LDX_FLOOR_PANELS`` plots, each a 600-point line over a 100 x 100 float32 image
(about what one herding panel sends per move: 40 kB), with no computation behind them. ``LDX_FLOOR_MODE=bokeh``
pushes the new columns straight into the Bokeh data sources (the least any framework on Panel
can do per move); ``holoviews`` draws the same plots as HoloViews DynamicMaps, as the explorers
do. ``tests/bench/test_bench_browser.py`` times a key press on the slider to the last changed
pixel here, beside the explorers: the difference is what a page's own work costs.

``LDX_FLOOR_GLYPHS=G`` (bokeh mode) gives the panels G glyph renderers in all, the extra ones
as short lines shared out over the panels, and ``LDX_FLOOR_RANGES=1`` sets every plot's x and y
ranges on each move: a floor with a page's own number of glyph renderers and range changes, so
that a page's miss says whether it is the framework or the figure.

Serve: ``LDX_FLOOR_PANELS=5 panel serve tests/bench/floor_app.py``.
"""

import os

import holoviews as hv
import numpy as np
import panel as pn
from bokeh.models import ColumnDataSource
from bokeh.plotting import figure

PANELS = int(os.environ.get("LDX_FLOOR_PANELS", "5"))
MODE = os.environ.get("LDX_FLOOR_MODE", "bokeh")
#: Glyph renderers in all (at least two a panel: the image and the line).
GLYPHS = max(2 * PANELS, int(os.environ.get("LDX_FLOOR_GLYPHS", "0")))
RANGES = os.environ.get("LDX_FLOOR_RANGES", "0") == "1"
WIDTH, HEIGHT = 400, 340


def frame(value: int, i: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Panel i's line and image for slider value ``value`` (every move changes both)."""
    x = np.linspace(1.0, 100.0, 600)
    image = np.random.default_rng([value, i]).random((100, 100)).astype(np.float32)
    return x, np.sin(x / value + i) + 0.01 * value * x, image


slider = pn.widgets.IntSlider(label="value", start=2, end=20, value=6)
def extra(value: int, i: int, k: int) -> dict:
    """Extra glyph k of panel i: a 20-point line that moves with the slider."""
    x = np.linspace(1.0, 100.0, 20)
    return dict(x=x, y=np.cos(x / value + i + k) * 0.5)


if MODE == "bokeh":
    sources, extras, figures = [], [], []
    panes = []
    for i in range(PANELS):
        x, y, image = frame(slider.value, i)
        line, raster = ColumnDataSource(dict(x=x, y=y)), ColumnDataSource(dict(image=[image]))
        fig = figure(width=WIDTH, height=HEIGHT, title=f"panel {i}")
        fig.image("image", x=0, y=-2, dw=100, dh=4, source=raster, palette="Viridis256",
                  alpha=0.4)
        fig.line("x", "y", source=line, line_width=2)
        more = []
        for k in range(i, GLYPHS - 2 * PANELS, PANELS):
            source = ColumnDataSource(extra(slider.value, i, k))
            fig.line("x", "y", source=source, line_width=1, color="gray")
            more.append((k, source))
        sources.append((line, raster))
        extras.append(more)
        figures.append(fig)
        panes.append(pn.pane.Bokeh(fig))

    def update(event):
        with pn.io.hold():
            for i, (line, raster) in enumerate(sources):
                x, y, image = frame(event.new, i)
                line.data = dict(x=x, y=y)
                raster.data = dict(image=[image])
                for k, source in extras[i]:
                    source.data = extra(event.new, i, k)
                if RANGES:
                    fig = figures[i]
                    fig.x_range.start, fig.x_range.end = 0.0, 100.0 + 0.01 * event.new
                    fig.y_range.start, fig.y_range.end = float(y.min()), float(y.max())

    slider.param.watch(update, "value")
elif MODE == "holoviews":
    hv.extension("bokeh")

    def dynamic(i: int) -> hv.DynamicMap:
        def draw(value):
            x, y, image = frame(value, i)
            return (hv.Image(image, bounds=(0, -2, 100, 2)).opts(cmap="viridis", alpha=0.4)
                    * hv.Curve((x, y))).opts(width=WIDTH, height=HEIGHT, title=f"panel {i}",
                                             framewise=True)
        return hv.DynamicMap(draw, streams=dict(value=slider.param.value))

    panes = [pn.pane.HoloViews(dynamic(i)) for i in range(PANELS)]
else:
    raise ValueError(f"LDX_FLOOR_MODE must be 'bokeh' or 'holoviews', not {MODE!r}")

pn.Column(slider, pn.FlexBox(*panes)).servable()
