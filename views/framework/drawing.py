"""A model's drawing (``Drawing``, the model's ``drawing``): each panel's element as its plot
method draws it, over the window the page shows, styled, laid out as one figure and exported
(``figure()``, ``export(path)``, ``export_bytes``). The means it draws with (styling, dense
clouds, ``Plot``, ``export_figure``) are in ``views.framework.figure``.
"""

from __future__ import annotations

import io
import os
import pathlib
import tempfile

import holoviews as hv

from views.framework import stamp
from views.framework.figure import (DENSE_POINTS, FIG_INCHES, PLOT_HEIGHT, PLOT_WIDTH,
                                    Plot, data_extent, dense, export_figure, export_styles,
                                    exporting, style)
from views.framework.legends import bokeh_legend
from views.framework.workarounds import dictionary_columns, matplotlib_backend

__all__ = ["Drawing"]


class Drawing:
    """The model's drawing (``model.drawing``): each panel's element as its plot method draws
    it (``panel_element``), over a visible window (``windowed``), styled as the page shows it
    (``element``), the whole figure as one HoloViews Layout (``figure``) and its export
    (``export``, ``export_bytes``), with each panel beside its pinned copy when a state is
    pinned (``views.framework.pin``). Rasterized clouds are kept per result and window. Uses
    only the model's public names (``plots``, ``panels()``, ``jobs``, ``windows``,
    ``result()``, ``redraw_knobs``, ``clock``, ``columns``, ``title``, ``slug``, ``pinned``,
    ``pinning``)."""

    def __init__(self, model):
        self.model = model
        #: Rasterized clouds of the current result, by cloud and window (see ``raster``).
        self._rasters: dict = {}
        #: The run whose result each run panel draws, by the panel's key.
        self._run_of = {p.method: job.run.key for job in model.jobs.values()
                        for p in job.run.plots}

    def panel_element(self, plot: Plot, *, cloud: bool = False, x_range=None,
                      pinned: bool = True):
        """The element of panel ``plot`` as its method draws it (``cloud``: its cloud's),
        before the page's styling: a run's panel from the result the run shows, with its
        timeline's marks; a zoomable panel for ``x_range`` (None: the whole range); with a
        state pinned, its curves faded under the live ones where the panel allows
        (``pinning.overlay``; ``pinned=False``: the live state's alone)."""
        model = self.model
        run = self._run_of.get(plot.method)
        with dictionary_columns():
            if run is None:
                owner, args, kwargs = model, (), (dict(x_range=x_range) if plot.zoom else {})
            else:  # a run's panel draws the result the run shows
                job = model.jobs[run]
                owner, args, kwargs = job.run, (job.shown,), {}
            if cloud:
                part = plot.cloud
                return (part(owner, *args, **kwargs) if callable(part)
                        else getattr(owner, part)(*args, **kwargs))
            element = plot.call(owner, *args, **kwargs)
            if run is not None and job.run.timeline is not None:
                element = model.clock.with_marks(plot, element, run=run)
            if run is None and pinned and model.pinned is not None:
                element = model.pinning.overlay(plot, element)
            return element

    def element(self, plot: Plot):
        """The static element of one panel, as the page shows it: clouds rasterized over the
        visible window (only when dense), zoomable plots computed for their window."""
        view = self.model.windows.get(plot.method)
        if view is not None:
            element = self.windowed(plot, view.x_range, view.y_range, threshold=DENSE_POINTS)
        else:
            element = self.panel_element(plot)
        # a time chosen on the timeline is drawn; at the default (the end of the run) the
        # figure is the paper's, with only the marks that are the picture itself
        element = self.model.clock.with_marks(plot, element)
        return style(element, title=plot.title,
                     bokeh=dict(width=PLOT_WIDTH, height=PLOT_HEIGHT, **bokeh_legend(element)))

    def windowed(self, plot: Plot, x_range=None, y_range=None, *, threshold: int = 0):
        """A panel for the visible window: a zoomable plot is recomputed for x_range at full
        resolution; its cloud is rasterized over x_range x y_range (its extent when None),
        when it has more than ``threshold`` points (the live page's: every cloud)."""
        element = self.panel_element(plot, x_range=x_range)
        if plot.cloud is not None:
            # The whole result on the page: the cloud's raster keeps to its share of the window
            # that the element spans (exports keep the full resolution, for print).
            frame = (data_extent(element) if x_range is None and y_range is None
                     and not exporting() else None)
            cloud = self.raster(plot, x_range, y_range, threshold, frame)
            element = cloud * element if plot.cloud_under else element * cloud
        return element

    def raster(self, plot: Plot, x_range, y_range, threshold: int, frame=None):
        """The cloud of ``plot`` as ``dense`` draws it, computed once per result and window:
        panels sharing a cloud (the herding page's cones and Tipi) rasterize it once per move."""
        model = self.model
        both = x_range is not None and y_range is not None
        window = (x_range, y_range) if both else (None, None)
        # A zoomable plot's cloud is recomputed for its x window, so the window is in the key.
        # The knobs are in the key too: a cloud may show a knob that the result does not
        # depend on (the bifurcation diagram's plotted weight).
        knobs = tuple(getattr(model, k) for k in model.redraw_knobs(plot))
        key = (plot.cloud, x_range if plot.zoom else None, window, threshold, exporting(),
               knobs, frame)
        result = model.result()
        memo = self._rasters.get(key)
        if memo is not None and memo[0] is result:
            return memo[1]
        cloud = self.panel_element(plot, cloud=True, x_range=x_range)
        # a cloud that builds up in time keeps, in each pixel, the step it was first visited
        first = model.clock.grow_dimension(plot.method)
        raster = dense(cloud, threshold=threshold, x_range=window[0], y_range=window[1],
                       frame=frame,
                       first=first if first and cloud.get_dimension(first) is not None else None)
        self._rasters = {k: v for k, v in self._rasters.items() if v[0] is result}
        self._rasters[key] = (result, raster)
        return raster

    def figure(self, only: tuple[str, ...] | None = None,
               columns: int | None = None) -> hv.Layout:
        """The whole current figure as one static HoloViews Layout (for export and headless use);
        ``only``: just these panels (plot method names, in this order), e.g. one paper figure;
        ``columns``: panels a row (default: the model's ``columns``)."""
        model = self.model
        matplotlib_backend()
        panels = model.panels()
        if only is not None:
            by_method = {p.method: p for p in panels}
            missing = [m for m in only if m not in by_method]
            if missing:
                raise ValueError(f"{type(model).__name__} has no panels {missing} now "
                                 f"(a run's panels exist once it has a result)")
            panels = tuple(by_method[m] for m in only)
        twin = model.pinning.twin()
        with export_styles():
            if twin is None:
                columns = min(model.columns if columns is None else columns, len(panels))
                elements = [self.element(p) for p in panels]
            else:  # each panel beside its pinned copy (a run's panel: an empty place)
                columns, pinned = 2, {p.method for p in twin.plots}
                elements = [e for p in panels for e in (self.element(p), style(
                    twin.drawing.element(p), title=model.pinning.title(p))
                    if p.method in pinned else hv.Empty())]
            layout = hv.Layout(elements).cols(columns)
        rows = -(-len(elements) // columns)
        return layout.opts(sublabel_format="", fig_inches=(FIG_INCHES * columns, 3.6 * rows),
                           hspace=0.35, vspace=0.45, backend="matplotlib")

    def export(self, path) -> pathlib.Path:
        """Write the current figure; the format follows the suffix (.png .svg .pdf .html). Its
        title names the settings that are not the defaults, and the file carries the page's
        state (``views.framework.stamp``: ``ldx-export --from`` rebuilds the figure)."""
        model = self.model
        title = f"{model.title}: {stamp.settings_words(model)}"
        if model.pinned is not None:  # beside the pinned state: the knobs that differ
            title += f"; pinned: {model.pinning.words()}"
        return export_figure(self.figure(), path, title=title, state=stamp.state_text(model))

    def export_bytes(self, suffix: str) -> io.BytesIO:
        """The exported figure as bytes (for the page's download buttons)."""
        with tempfile.TemporaryDirectory() as tmp:
            out = self.export(os.path.join(tmp, f"{self.model.slug}{suffix}"))
            return io.BytesIO(out.read_bytes())
