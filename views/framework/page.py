"""The page of an explorer: its live panels (HoloViews ``DynamicMap``s that keep their zoom
across updates), controls, text, status line, alerts, download buttons and layout
(``PageMixin`` of ``Explorer``; ``Section`` declares a group of panels).
"""

from __future__ import annotations

import asyncio
import functools
import html
import io
import weakref
from dataclasses import dataclass

import holoviews as hv
import panel as pn
import param
from bokeh.models import PrintfTickFormatter

from views.framework import knobs as _knobs
from views.framework import stamp
from views.framework import worker as _worker
from views.framework.animation import ANIMATION_FORMATS, animation_buttons
from views.framework.figure import (EXPORT_FORMATS, PLOT_HEIGHT, PLOT_WIDTH, Plot, _extent,
                                    _same_window, style, table_html)
from views.framework.jobs import JobSection
from views.framework.legends import bokeh_legend
from views.framework.present import Presentation
from views.framework.runs import run_key
from views.framework.remote import WIDTH, export_task, in_worker, page_state, show_progress
from views.framework.text import math_markdown, plain
from views.framework.workarounds import (WindowStream, no_pipeline, prompt_widget,
                                         snap_from_browser, steady_text)

__all__ = ["PageMixin", "Section", "NOTICE_LIMIT"]

#: The longest notice or error shown (characters): a long crafted link must not fill the page.
NOTICE_LIMIT = 2_000

#: Seconds between two deferred plots' draws (``draw_deferred``): a turn of the server's event
#: loop, in which a knob moved meanwhile is read.
DEFER_TICK_S = 0.001

#: Seconds an export button waits, its sign shown, before the drawing holds the server's loop
#: (long enough for the label's change to be written to the browser's websocket).
EXPORT_SIGN_S = 0.05


#: A live plot's width before it shares out the row (px): two plots share a row where both fit
#: at least this wide (a 1440-px window), one plot fills the row on a projector's 1024 x 768.
PLOT_BASIS = 420
#: The narrowest a live plot gets (px).
PLOT_MIN_WIDTH = 300
#: The widest a live plot gets (px): a plot alone on its row does not stretch across the page.
PLOT_MAX_WIDTH = 720
#: Widgets that Panel draws without their name: ``control`` puts the knob's label above them.
UNTITLED = (pn.widgets.CheckBoxGroup, pn.widgets.CheckButtonGroup, pn.widgets.RadioBoxGroup,
            pn.widgets.RadioButtonGroup)
#: Their boxes in a row wrap at the widget's width (HBM's 12 orders ran over the next control).
WRAPPING_GROUP = ".bk-input-group.bk-inline { flex-wrap: wrap; row-gap: 2px; }"
#: A slider's handle on a touch screen: 28 px, the size of a fingertip's target (Panel's 14 px
#: handle is hard to catch on a phone).
TOUCH_HANDLES = """@media (pointer: coarse), (max-width: 600px) {
  .noUi-horizontal { height: 10px; margin: 12px 6px; }
  .noUi-horizontal .noUi-handle { width: 28px; height: 28px; right: -14px; top: -10px; }
}"""
#: A plot's tools appear when the pointer is over it: a projected page of 13 panels carried
#: 30-50 icons.
TOOLBAR_HIDDEN = {"plot.toolbar.autohide": True}


#: A live plot in the presentation mode (``present=1``): (basis, max width, height) in px
#: and the scale of its fonts. One plot a row up to a 1440-px screen, two on a wider one.
PRESENT_SIZE, PRESENT_FONTSCALE = (560, 900, 540), 1.5


def live_size(present: bool = False) -> dict:
    """The size of a live panel (plot or table) in its row of panels: as wide as its share of
    the row, from its min to its max width."""
    basis, hi, height = PRESENT_SIZE if present else (PLOT_BASIS, PLOT_MAX_WIDTH, PLOT_HEIGHT)
    return dict(sizing_mode="stretch_width", min_width=PLOT_MIN_WIDTH, max_width=hi,
                height=height, styles={"flex": f"1 1 {basis}px"})


def live_pane(dmap, present: bool = False) -> pn.pane.HoloViews:
    """The pane of one live plot (``live_size``)."""
    return pn.pane.HoloViews(dmap, backend="bokeh", linked_axes=False, **live_size(present))


def _one_value_range(slider, explorer, name: str) -> None:
    """Draw the slider of knob ``name`` disabled over one step while the knob's bounds are a
    single value (``knob_bounds`` of SBEED's k in exact mode: 1 to 1): Bokeh refuses a slider
    whose start equals its end (validation error E-1021 EQUAL_SLIDER_START_END in the
    server's log). The knob keeps its bounds; the slider follows them again when they widen."""
    p = explorer.param[name]
    fixed = []  # whether this function disabled the slider

    def fit(*_):
        lo, hi = p.bounds
        if lo is None or hi is None:
            return
        if hi <= lo:
            fixed[:] = [True]
            slider.param.update(start=lo, end=lo + (slider.step or 1), disabled=True)
        elif fixed:
            fixed.clear()
            slider.param.update(start=lo, end=hi, disabled=False)

    # Panel sets the slider's range from the knob's bounds in a watcher of its own, before or
    # after this one: both events end in the same state
    explorer.param.watch(fit, [name], what="bounds")
    slider.param.watch(fit, ["start", "end"])
    fit()


def _placed(layer, place: str, labelled: bool):
    """``layer`` with group ``place`` and label ``place`` (or none): ``layer.relabel`` without
    its cost. A relabel clones the element, which re-validates its data and rebuilds its
    parameters (1-24 ms a layer, about a fifth of a herding move's server time for its 21
    layers); the layers of a live frame are built anew for each frame (by the explorer's
    panel method and ``_with_marks``) and shown nowhere else, so they are renamed in place. A
    layer seen before (one an explorer kept and returned again) is cloned, as before, so that
    nothing else it is drawn in is renamed twice."""
    if getattr(layer, "_ldx_placed", None) is not None:
        return layer.relabel(group=place, label=place if labelled else "")
    with param.edit_constant(layer):
        layer.group, layer.label = place, (place if labelled else "")
    layer._ldx_placed = place
    return layer


@dataclass(frozen=True)
class Section:
    """A group of panels on the page (``Explorer.sections``): ``plots`` names their methods in
    order, ``header`` an explorer method returning a widget drawn above them (a play control),
    ``aside`` Markdown text drawn beside them."""

    plots: tuple[str, ...]
    header: str | None = None
    aside: str = ""


class PageMixin:
    """The ``Explorer``'s page: ``panel()`` (the body), ``controls()`` (the sidebar) and the
    live panes they are made of. ``presentation`` says how the page is shown (a teacher's link:
    ``views.framework.present``); set it before building the page."""

    presentation: Presentation = Presentation()

    def run_pane(self, plot: Plot, streams) -> pn.viewable.Viewable:
        """A run panel on the page, redrawn whenever the job shows a new (partial) result (the
        first stream), and when a display knob it depends on moves (the others)."""
        streams = list(streams) if isinstance(streams, (list, tuple)) else [streams]
        present = self.presentation.present
        return live_pane(hv.DynamicMap(
            no_pipeline(lambda **_: self.page_style(plot, self._call(plot, plot.method),
                                                    present=present)),
            streams=streams, cache_size=1), present)

    # --- the page ----------------------------------------------------------------------------
    def dynamic(self, plot: Plot) -> hv.DynamicMap:
        """A DynamicMap of one panel, recomputed when a knob it depends on changes
        (``redraw_knobs``); zoom survives updates.

        Panels with a cloud or a zoomable window are one DynamicMap that also follows the
        visible ranges: a zoom re-rasterizes the cloud over the window (and recomputes a
        zoomable plot there), all in one callback, which is much cheaper per update than a
        chain of datashader DynamicMaps.
        """
        knobs = hv.streams.Params(self, self.redraw_knobs(plot), watch=False)
        self._knob_streams.add(knobs)  # triggered by _redraw
        view = self._view.get(plot.method)
        page_style = functools.partial(self.page_style, plot,
                                       present=self.presentation.present)
        # cache_size=1: every frame comes from new knobs or a new window; older ones are never
        # shown again.
        if view is None:
            return hv.DynamicMap(no_pipeline(lambda **_: page_style(
                self._with_marks(plot, self._call(plot, plot.method)))),
                                 streams=[knobs], cache_size=1)
        last, shown = {}, {}

        def redundant(x_range, y_range) -> bool:
            # the window of the whole result now drawn, for the knobs it was drawn at
            return (shown.get("whole", False) and last == knobs.contents
                    and _same_window(shown.get("window"), x_range, y_range))

        view.mute_when(redundant)  # every window stream is a WindowStream (Explorer._view)

        @no_pipeline
        def callback(x_range=None, y_range=None, **values):
            if values != last:
                # New knobs: draw the new result whole, exactly as a fresh load of the page's
                # URL would (a kept zoom window would show a stale range of another result).
                # __setattr__ also reset the window streams, so an export shows the same.
                last.clear()
                last.update(values)
                x_range = y_range = None
            elif x_range is not None and _same_window(shown.get("window"), x_range, y_range):
                # The plot reporting the window it was given: HoloViews asks once a plot is
                # drawn, the browser after an update. Nothing was zoomed: the same frame.
                x_range = y_range = None
            element = self._windowed(plot, x_range, y_range)
            shown["whole"] = x_range is None
            if x_range is None:
                # The whole result, framed exactly (no HoloViews padding): the window that a
                # report of it is recognised by above.
                window = _extent(element)
                shown["window"] = window
                element = style(element, bokeh=dict(xlim=window[0], ylim=window[1]))
            return page_style(self._with_marks(plot, element))

        return hv.DynamicMap(callback, streams=[knobs, view], cache_size=1)

    @staticmethod
    def page_style(plot: Plot, element, *, present: bool = False):
        """A live panel's frame styled for the page: its title and size, and framewise axes
        (they follow the data when knobs change; a range the user zoomed to is kept by
        HoloViews until the plot is reset). Applied to each frame in the DynamicMap callback
        (memoized, see ``style``) rather than by ``dmap.opts``, which wraps the DynamicMap in
        a second one that re-applies the options to every frame.

        ``framewise`` is a normalization option that HoloViews reads from each element: set on an
        Overlay alone it is ignored and the axes stay where the first frame put them.

        A legend goes under the plot (``views.framework.legends``)."""
        legend = bokeh_legend(element, scale=PRESENT_FONTSCALE if present else 1.0)
        if isinstance(element, hv.Overlay):
            # Each layer's group names its place in the overlay: HoloViews matches a new
            # frame's layers to the drawn ones by (type, group, label), and a label that
            # changes with the data ("gap of P: 0.49") could otherwise be matched to another
            # layer's glyph, swapping styles and legend order against a fresh page.
            layers = [style(layer, bokeh=dict(framewise=True)) for layer in element]
            labels = {f"Layer{i}": layer.label for i, layer in enumerate(layers) if layer.label}
            element = element.clone([
                layer if isinstance(layer, hv.element.Annotation) else
                _placed(layer, f"Layer{i}", bool(layer.label))
                for i, layer in enumerate(layers)])
            element = style(element, bokeh=dict(legend_labels=labels))
        size = live_size(present)
        large = dict(fontscale=PRESENT_FONTSCALE) if present else {}
        return style(element, title=plot.title,
                     bokeh=dict(responsive=True, height=size["height"],
                                min_width=size["min_width"], max_width=size["max_width"],
                                framewise=True, backend_opts=TOOLBAR_HIDDEN, **large, **legend))

    def reset_zoom(self) -> None:
        """Back to the full range of every zoomable plot (recomputed at the knobs' range).

        The live page also rebuilds those plots (fresh axes), see ``panel``."""
        for plot in self.plots:
            if plot.zoom:
                self._view[plot.method] = WindowStream(x_range=None, y_range=None)

    def shows(self, name: str) -> bool:
        """Knob ``name`` has a control on the page: a teacher's link (``presentation.show``)
        may keep only some."""
        show = self.presentation.show
        return show is None or name in show

    def control(self, name: str, run=None) -> pn.viewable.Viewable:
        """The widget of one knob, linked both ways: a ``views.framework.knobs.Field`` for a typed knob
        (``fields``), else what ``pn.Param`` builds from the parameter (``widgets`` overrides),
        whose bounds follow ``knob_bounds``. Nothing (an empty spacer) for a knob that a
        teacher's link does not show (``shows``): it stays at the link's value. ``run``: the
        widget of that run's setting ``name`` (``views.framework.runs.Run``)."""
        owner = self if run is None else run
        if not self.shows(name if run is None else run_key(run.key, name)):
            return pn.Spacer(width=0, height=0, margin=0, visible=False)
        if name in owner.fields:
            return _knobs.Field(owner, name)
        spec = owner.widgets.get(name)
        widget = prompt_widget(pn.Param.widget(name, owner, spec if spec is not None else {}))
        p = owner.param[name]
        places = _knobs.decimals(getattr(p, "step", None))
        if (isinstance(widget, (pn.widgets.FloatSlider, pn.widgets.RangeSlider))
                and places is not None and "format" not in (spec or {})):
            # the title shows the step's precision, always the same number of decimals: a
            # 0.001 step showed "0.44" for three key presses, and 10 -> 10.50 -> 16 jumped
            widget.format = PrintfTickFormatter(format=f"%.{places}f")
        if "start" in widget.param and isinstance(getattr(p, "bounds", None), tuple):
            _one_value_range(widget, owner, name)
        if isinstance(widget, pn.widgets.slider._SliderBase):
            widget.stylesheets = [*widget.stylesheets, TOUCH_HANDLES]
        widget = snap_from_browser(widget, lambda value: _knobs.snap(p, value))
        if isinstance(widget, UNTITLED):  # Panel draws no name above these: the knob's label
            title = pn.pane.HTML(f"<div class='ldx-group-title'>{html.escape(p.label)}</div>",
                                 margin=(5, 10, 0, 10), styles={"font-size": "14px"})
            widget.param.update(sizing_mode="stretch_width",
                                stylesheets=[*widget.stylesheets, WRAPPING_GROUP])
            return pn.Column(title, widget, margin=0, sizing_mode="stretch_width")
        return widget

    def controls(self) -> pn.viewable.Viewable:
        """The sidebar: every knob's widget, in declaration order, grouped under the headings
        of ``groups`` (knobs in no group first); only those of ``presentation.show`` when a
        teacher's link names them (a heading with none of them goes too)."""
        grouped = [n for names in self.groups.values() for n in names] + list(self.placed) + [
            n for job in self.jobs.values()
            for n in job.run.display]
        sections = [(None, [n for n in self.knob_names() if n not in grouped]),
                    *self.groups.items()]
        sections = [(heading, [n for n in names if self.shows(n)]) for heading, names in sections]
        sections = [(heading, names) for heading, names in sections if names]
        items = []
        for heading, names in sections:
            if heading is not None:
                items.append(pn.pane.Markdown(f"**{heading}**", margin=(10, 10, 0, 10)))
            items.extend(self.control(n) for n in names)
        return pn.Column(*items, sizing_mode="stretch_width")

    def downloads(self) -> pn.FlexBox:
        """One download button per export format, its file named after the page and the
        settings drawn (``views.framework.stamp.file_stem``); on a page with a timeline, GIF
        and MP4 too, the timeline animated (``views.framework.animation``)."""
        buttons = [
            pn.widgets.FileDownload(
                filename=f"{stamp.file_stem(self)}{s}",
                label=s[1:].upper(), color="light", width=WIDTH, embed=False,
            )
            for s in EXPORT_FORMATS
        ]
        for button, suffix in zip(buttons, EXPORT_FORMATS):
            button.callback = functools.partial(self._export_with_sign, suffix, button)
        animated = animation_buttons(self) if self.timeline is not None else []

        def rename(*_):  # the file is named after the settings drawn
            stem = stamp.file_stem(self)
            for button, suffix in zip(buttons, EXPORT_FORMATS):
                button.filename = f"{stem}{suffix}"
            stem = stamp.file_stem(self, time=False)
            for button, suffix in zip(animated, ANIMATION_FORMATS):
                button.filename = f"{stem}{suffix}"

        self.param.watch(rename, ["drawn", "t"] if "t" in self.param else ["drawn"])
        # wraps on a narrow screen (a fixed row of 630 px made a phone's page that wide)
        return pn.FlexBox(pn.pane.Markdown("**Export the figure**", margin=(8, 5), width=150),
                          *buttons, *animated, flex_wrap="wrap", sizing_mode="stretch_width")

    async def _export_with_sign(self, suffix: str, button) -> bytes:
        """The figure as ``suffix`` for a download button, the button saying "…" (or its place
        in the queue) and disabled while it is drawn (a bifurcation PDF takes some 9 s, and the
        button gave no sign). On a served page it is drawn in a worker process
        (``views.framework.remote``), elsewhere here."""
        label = button.label
        button.param.update(disabled=True, label=f"{label} …")
        try:
            if _worker.enabled():  # the served app: drawn in a worker process, the loop free
                return io.BytesIO(await in_worker(
                    self, export_task, (suffix, page_state(self)[2]), key=("export", suffix),
                    on_progress=lambda latest: show_progress(button, label, latest)))
            # the sign reaches the browser before the drawing holds the loop
            await asyncio.sleep(EXPORT_SIGN_S)
            return self.export_bytes(suffix)
        finally:
            button.param.update(disabled=False, label=label, width=WIDTH)

    def alert(self) -> pn.viewable.Viewable:
        """Visible alerts: one while the last computation failed (the plots keep the last good
        result), one saying what the page changed or ignored in the last settings
        (``notice``); empty otherwise."""

        @param.depends(self.param.error, self.param.notice)
        def _alert(error=None, notice=None):
            alerts = []
            # both hold text from the link or a typed field: shown as plain text, never markup
            if self.notice:
                alerts.append(pn.pane.Alert(
                    f"**Settings adjusted:** {plain(self.notice, limit=NOTICE_LIMIT)}",
                    alert_type="warning", sizing_mode="stretch_width",
                    css_classes=["ldx-notice"]))
            if self.error:
                alerts.append(pn.pane.Alert(
                    "**Could not compute with these settings:** "
                    f"{plain(self.error, limit=NOTICE_LIMIT)}\n\n"
                    "The plots show the last good result.",
                    alert_type="danger", sizing_mode="stretch_width"))
            if not alerts:
                return pn.Spacer(height=0)
            return pn.Column(*alerts, sizing_mode="stretch_width")

        return pn.panel(_alert)

    def panel(self) -> pn.viewable.Viewable:
        """The page body: alert, text, status line, plots and downloads (controls go in the
        sidebar). Explorers that arrange their page differently reuse ``page_parts``."""
        parts = self.page_parts()
        return pn.Column(parts["alert"], parts["about"], parts["status"], parts["grid"],
                         parts["downloads"], *parts["runs"], self.paint_acknowledgement(),
                         sizing_mode="stretch_width")

    def paint_acknowledgement(self) -> pn.viewable.Viewable:
        """Two hidden widgets through which the browser tells a served page that it painted a
        draw: the server sets the first to ``drawn``; two animation frames after the browser
        applied it (the plots changed with it are painted by then), the browser copies it into
        the second, whose change reaches the server (``LatestWins.painted``)."""
        marker = pn.widgets.IntInput(value=self.drawn, visible=False)
        painted = pn.widgets.IntInput(value=self.drawn, visible=False)
        marker.jscallback(value="requestAnimationFrame(() => requestAnimationFrame(() => "
                                "{ painted.value = cb_obj.value; }));", args={"painted": painted})
        self.param.watch(lambda event: setattr(marker, "value", event.new), "drawn")
        # Panel keeps a jscallback in a class-wide registry weakly keyed by its source (marker),
        # its value holding the callback's args (painted): a strong path from painted back to
        # marker, through this explorer, kept every page of every closed session alive (+6
        # explorers a round of 6 sessions). So painted's watcher holds the explorer weakly.
        me = weakref.ref(self)

        def on_painted(_):
            explorer = me()
            if explorer is not None and explorer._live is not None:
                explorer._live.painted()

        painted.param.watch(on_painted, "value")
        return pn.Row(marker, painted, visible=False, height=0, margin=0)

    def page_parts(self) -> dict:
        """The pieces of the page body, by name: alert, about, status, panes (one live pane
        per plot), grid (the panes laid out, with the zoom reset when there is one) and
        downloads."""
        panes = [self._pane(p) for p in self.plots]
        self._boxes = []  # the rows of plots (``_sections``), for ``draw_deferred``
        placed = dict(zip((p.method for p in self.plots), panes))
        if getattr(self, "_defer_plots", False):
            # each plot's place holds its frame until ``draw_deferred`` puts the plot there
            frames = {method: self._plot_frame(plot) for method, plot in
                      ((p.method, p) for p in self.plots)
                      if isinstance(placed[method], pn.pane.HoloViews)}
            self._deferred = [(frames[m], placed[m]) for m in placed if m in frames]
            placed = {m: frames.get(m, pane) for m, pane in placed.items()}
        grid = self._sections(placed)
        if any(p.zoom for p in self.plots):
            def on_reset(_):
                # A fresh plot starts from the full range; a stream reset alone would leave the
                # Bokeh axes where the user zoomed them.
                self.reset_zoom()
                for pane, plot in zip(panes, self.plots):
                    if plot.zoom:
                        pane.object = self.dynamic(plot)

            reset = pn.widgets.Button(label="Reset zoom", color="primary", width=120)
            reset.on_click(on_reset)
            grid = pn.Column(pn.Row(reset, pn.pane.Markdown(
                "Zoom into the first plot (box or wheel zoom) to recompute that window at full "
                "resolution.", margin=(10, 10))), grid)
        # the title stays one line (a long book title wrapped it in two at 1440 px); the whole
        # reference opens with the text
        about = pn.Card(
            pn.pane.Markdown(math_markdown(self.text), sizing_mode="stretch_width", max_width=960),
            pn.pane.Markdown(f"**Source:** {self.paper.reference}.", sizing_mode="stretch_width",
                             max_width=960),
            title=(f"About this page: {self.paper.short} ({self.paper.year}), "
                   f"{self.figures.split(';')[0]}"),
            # closed: the plots come first on the screen (a projector's 1024 x 768 showed
            # none below the open text); one click opens it
            collapsible=True, collapsed=True, sizing_mode="stretch_width", margin=(5, 10),
        )
        status = steady_text(pn.pane.Markdown(
            math_markdown(self.status()), sizing_mode="stretch_width", margin=(0, 10),
            styles={"font-size": "1.3em"} if self.presentation.present else {}))
        # a watcher, not pn.bind: a bound text shows Panel's loading spinner at each redraw,
        # whose class and stylesheets the browser re-applies after the text: Bootstrap's
        # paragraph margin then won over Panel's and the moved page's status line sat 12 px
        # higher than a fresh load's
        self.param.watch(lambda _: setattr(status, "object", math_markdown(self.status())),
                         "drawn")
        if self.timeline is not None:
            grid = pn.Column(self.timeline_control(), grid, sizing_mode="stretch_width")
        runs = [JobSection(self, job) for job in self.jobs.values()]
        return dict(alert=self.alert(), about=about, status=status, panes=panes, grid=grid,
                    downloads=self.downloads(), runs=runs)

    def _sections(self, panes: dict) -> pn.Column:
        """The panels laid out by ``sections`` (default: all in one). Panels wrap: two columns
        on a wide screen, one on a projector's 1024 x 768."""
        sections = self.sections or (Section(tuple(panes)),)
        laid = [n for section in sections for n in section.plots]
        if sorted(laid) != sorted(panes):
            raise ValueError(f"{type(self).__name__}.sections must place every panel once, "
                             f"got {laid} for {list(panes)}")
        blocks = []
        for section in sections:
            if section.header is not None:
                blocks.append(getattr(self, section.header)())
            items = [panes[n] for n in section.plots]
            if section.aside:
                items.append(pn.pane.Markdown(math_markdown(section.aside), width=PLOT_WIDTH))
            box = pn.FlexBox(*items, gap="8px", sizing_mode="stretch_width")
            self.__dict__.setdefault("_boxes", []).append(box)
            blocks.append(box)
        return pn.Column(*blocks, sizing_mode="stretch_width")

    def _pane(self, plot: Plot) -> pn.viewable.Viewable:
        """The live pane of one panel: a HoloViews plot, or, for a table, an HTML table.

        Bokeh's DataTable (what HoloViews draws a Table with) fails to initialise inside a
        wrapping FlexBox ("SlickGrid Cannot find stylesheet"), shows a row-number column and
        cuts long cells; a plain HTML table has none of these problems. Exports keep the
        ``hv.Table``."""
        table = self._call(plot, plot.method)
        if isinstance(table, hv.Table):
            pane = steady_text(pn.pane.HTML(table_html(table, plot.title),
                                            css_classes=["ldx-table"],
                                            **live_size(self.presentation.present)))
            # redrawn by _draw when one of its knobs moved
            self._tables.append((weakref.ref(pane), plot, frozenset(self.redraw_knobs(plot))))
            return pane
        return live_pane(self.dynamic(plot), self.presentation.present)

    def _plot_frame(self, plot: Plot) -> pn.viewable.Viewable:
        """The place of a plot not drawn yet: a frame of the plot's size with its title and a
        loading sign (``defer_plots``)."""
        return pn.pane.HTML(
            f"<div class='ldx-frame-title'>{html.escape(plot.title)}</div>",
            loading=True, css_classes=["ldx-skeleton"], **live_size(self.presentation.present),
            stylesheets=[".ldx-frame-title{font-weight:600;padding:8px 12px;color:#444}"
                         ":host(.ldx-skeleton){outline:1px solid #e3e3e3;border-radius:4px}"])

    def defer_plots(self) -> None:
        """Build the page's live plots as frames with a loading sign, to be drawn by
        ``draw_deferred``: call before building the page. A served page then answers the
        browser's request for the page without drawing a plot (building a page's plots took
        2-3.5 s of a warm server, idle, and 5-14 s beside other work, while the browser showed
        a blank page)."""
        self._defer_plots = True

    def draw_deferred(self, post, done=None) -> None:
        """Put each plot ``defer_plots`` left as a frame in its place, one per turn of the
        server's event loop (``post(callback, delay=...)``, see
        ``views.framework.live.session_post``): the browser shows each plot as it comes, and a
        knob moved meanwhile is answered between two plots. ``done()``, if given, is called
        once every plot is in its place."""
        pending = list(self.__dict__.pop("_deferred", []))

        def next_one():
            # not within ``one_graph_walk``: the Bokeh theme was then missing from the last
            # plot put in (its title drawn in Bokeh's default font, seen in Chromium)
            frame, pane = pending.pop(0)
            for box in self._boxes:
                if any(o is frame for o in box.objects):
                    box.objects = [pane if o is frame else o for o in box.objects]
                    break
            if pending:
                post(next_one, delay=DEFER_TICK_S)
            elif done is not None:
                done()

        if pending:
            next_one()
        elif done is not None:
            done()

    def status(self) -> str:
        """A line of measured facts above the plots (Markdown with LaTeX), updated live;
        empty by default."""
        return ""
