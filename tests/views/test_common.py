"""The shared machinery of views/_common.py: memoized styling, the lazy export backend, warmup."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import pytest

import views
from views._common import _EXPORTING, style


def _options(element, backend="bokeh"):
    return {group: hv.Store.lookup_options(backend, element, group).kwargs
            for group in ("plot", "style")}


@pytest.mark.parametrize("options", [
    dict(color="#d62728", bokeh=dict(line_width=3), mpl=dict(linewidth=2)),
    dict(logx=True, logy=True, title="T"),
    dict(cmap=["#000000", "#ffffff"], clim=(-0.5, 1.5), bokeh=dict(tools=["hover"])),
])
def test_memoized_style_matches_plain_opts(options):
    """A restyled fresh element gets the same options as .opts gives, in both backends."""
    options = dict(options)
    bokeh, mpl = options.pop("bokeh", {}), options.pop("mpl", {})
    token = _EXPORTING.set(True)
    try:
        for _ in range(3):  # first call builds the option tree, later calls reuse it
            data = np.random.default_rng(0).random((5, 2))
            cls = hv.Image if "cmap" in options else hv.Curve
            styled = style(cls(data), bokeh=bokeh, mpl=mpl, **options)
            plain = cls(data).opts(**options, **bokeh).opts(**options, **mpl,
                                                              backend="matplotlib")
            for backend in ("bokeh", "matplotlib"):
                assert _options(styled, backend) == _options(plain, backend)
    finally:
        _EXPORTING.reset(token)


def test_restyling_keeps_earlier_options():
    """Styling twice (element options, then the panel title) keeps both, and a second
    element styled the same way shares the option tree instead of building a new one."""
    a = style(style(hv.Curve([1, 2, 3]), color="red"), title="panel")
    b = style(style(hv.Curve([3, 2, 1]), color="red"), title="panel")
    assert _options(a)["style"]["color"] == "red"
    assert _options(a)["plot"]["title"] == "panel"
    assert a.id == b.id
    c = style(style(hv.Curve([3, 2, 1]), color="blue"), title="panel")
    assert c.id != a.id and _options(c)["style"]["color"] == "blue"


def test_views_warmup_builds_a_page():
    views.warmup()  # must not raise; the server calls it at start


def test_raster_image_is_drawn_like_an_image():
    """RasterImage gets hv.Image's plotting classes and default options in both backends."""
    from views._common import RasterImage, matplotlib_backend

    matplotlib_backend()
    data = np.random.default_rng(1).random((4, 3))
    for backend in ("bokeh", "matplotlib"):
        assert hv.Store.registry[backend][RasterImage] is hv.Store.registry[backend][hv.Image]
        for group in ("plot", "style", "norm"):
            assert (hv.Store.lookup_options(backend, RasterImage(data), group).kwargs
                    == hv.Store.lookup_options(backend, hv.Image(data), group).kwargs)


def test_live_panels_skip_the_image_compositor(monkeypatch):
    """No HoloViews compositor runs on a slider move of the herding page (three images): the
    `nodata` compositor would wrap each image panel's DynamicMap and re-process every frame."""
    from bokeh.document import Document
    from holoviews.core.options import Compositor

    explorer = views.EXPLORERS["herding"]()
    explorer.panel().get_root(Document())
    calls = []
    collapse = Compositor.collapse_element.__func__
    monkeypatch.setattr(Compositor, "collapse_element",
                        classmethod(lambda cls, *a, **k: calls.append(1) or collapse(cls, *a, **k)))
    explorer.seed = 7
    assert explorer.error == ""
    assert calls == []
