"""The served page of a model (``Page``, a ``pn.viewable.Viewer`` holding a
``views.framework.model.Model``): its live panels (HoloViews ``DynamicMap``s that keep their
zoom across updates), controls, text, status line, alerts, download buttons and layout, and its
live moves: in a served session a move is computed off the event loop, the last move winning
(``views.framework.live``), and drawn once computed.

The page's collaborators: ``JobSection`` (a run's part, ``views.framework.job_section``), the
timeline's control (``views.framework.player``), the download buttons
(``views.framework.downloads``), the typed fields (``views.framework.field``) and the live
panes (``views.framework.panes``). The page reads its model through public names only: the
knobs, ``model.drawing`` (each panel's element, over its window ``model.windows``) and
``model.clock`` (the timeline's marks); it links to the model by two hooks it sets,
``model.alive`` and ``model.failure_of``, and gives each job its session (``job.session``).
"""

from __future__ import annotations

import html
import functools
import weakref

import holoviews as hv
import panel as pn
import param
from bokeh.models import PrintfTickFormatter

from views.framework import knobs as _knobs
from views.framework.downloads import animation_buttons, downloads
from views.framework.columns import Columns
from views.framework.field import Field
from views.framework.figure import PLOT_WIDTH, Plot, data_extent, same_window, style, table_html
from views.framework.job_section import JobSection
from views.framework.live import LatestWins, session_post
from views.framework.panes import (TOUCH_HANDLES, UNTITLED, WRAPPING_GROUP, for_touch,
                                   live_pane, live_size, one_value_range, page_style)
from views.framework.pin_view import PinView
from views.framework.player import timeline_control
from views.framework.present import Presentation
from views.framework.projector import one_line_status, split_timeline
from views.framework.queue import QUEUE
from views.framework.runs import run_key
from views.framework.sections import Section
from views.framework.session import SessionWatch
from views.framework.text import math_markdown, plain
from views.framework.page_workarounds import (Alert, Text, drawn_plots, is_slider, one_graph_walk,
                                              prompt_widget, snap_from_browser, steady_text)
from views.framework.workarounds import WindowStream, no_pipeline, refresh_when_loaded

__all__ = ["Page", "NOTICE_LIMIT", "WIDGET_TYPES", "widget_spec"]

#: The longest notice or error shown (characters): a long crafted link must not fill the page.
NOTICE_LIMIT = 2_000

#: Seconds between two deferred plots' draws (``draw_deferred``): a turn of the server's event
#: loop, in which a knob moved meanwhile is read.
DEFER_TICK_S = 0.001

#: The widget types a model's ``widgets`` may name without importing Panel
#: (``{"type": "checkboxes", "inline": True}``), by name.
WIDGET_TYPES = {"checkboxes": pn.widgets.CheckBoxGroup}


def widget_spec(spec) -> dict:
    """The ``pn.Param`` options of a model's widget override (``Model.widgets``): a type named
    as in ``WIDGET_TYPES`` becomes that Panel widget (a Panel class is taken as it is)."""
    spec = dict(spec or {})
    kind = spec.get("type")
    if isinstance(kind, str):
        if kind not in WIDGET_TYPES:
            raise ValueError(f"widgets: type must be one of {', '.join(WIDGET_TYPES)} or a "
                             f"Panel widget class, got {kind!r}")
        spec["type"] = WIDGET_TYPES[kind]
    return spec


class Page(pn.viewable.Viewer):
    """The served page of ``model``: ``panel()`` (the body), ``controls()`` (the sidebar) and the
    live panes they are made of. ``presentation`` says how the page is shown (a teacher's link:
    ``views.framework.present``).

    Build it in the session it is shown in (``pn.state.curdoc``): there a knob move is computed
    off the event loop and drawn once computed, the newest move winning; elsewhere (a script, a
    test) a move draws at once."""

    def __init__(self, model, presentation: Presentation | None = None, **params):
        super().__init__(**params)
        self.model = model
        self.presentation = presentation if presentation is not None else Presentation()
        #: The server session the page was built in: a gone session's moves are not computed,
        #: its jobs are cancelled and its work leaves the worker processes' queue.
        self.session = SessionWatch()
        model.alive = self.session.alive
        for job in model.jobs.values():
            job.session = self.session
            self.session.on_gone(job.cancel)
        self.session.on_gone(self._leave_queue)
        #: The knob streams of the live panels (``dynamic``), triggered together by ``_draw``,
        #: and the live tables (``_pane``) with the knobs they follow.
        self._knob_streams: weakref.WeakSet = weakref.WeakSet()
        #: Each live panel's frame function, DynamicMap and pane, by its knob stream: a move
        #: writes the new frame's columns into the drawn models (``views.framework.columns``).
        self._live_panels: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
        #: The direct data path: its writes and, by reason, its fallbacks to HoloViews.
        self.columns = Columns()
        self._tables: list = []
        #: Knobs moved since the live panels were last drawn.
        self._moved: set[str] = set()
        self._defer_plots = False
        self._deferred: list = []
        self._boxes: list = []
        #: In a served session, moves are computed off the event loop, the last one winning
        #: (``views.framework.live``); elsewhere a move draws at once.
        post = session_post()
        self._live = None if post is None else LatestWins(model.warm, self._draw, post,
                                                          self.session.alive)
        if self._live is not None:
            model.failure_of = self._live.failure
        # a plot refreshed before the page loaded waits for the load, not a tick loop
        refresh_when_loaded()
        model.param.watch(self._redraw, list(model.knob_names()))
        #: Pin (``views.framework.pin_view``): its button, which the app places with the
        #: page's other buttons, and the pinned copies beside the live panels.
        self.pin_view = PinView(self)

    def __panel__(self) -> pn.viewable.Viewable:
        """The whole page where it is shown as one object (a notebook's cell): the controls
        beside the body. The app places ``controls()`` and ``panel()`` itself."""
        return pn.Row(pn.Column(self.pin_view.button, self.controls(), width=320),
                      self.panel(), sizing_mode="stretch_width")

    def _leave_queue(self) -> None:
        """The session is gone: its exports, animations and runs leave the queue."""
        QUEUE.drop(self.session)

    # --- live moves ----------------------------------------------------------------------------
    def _redraw(self, *events) -> None:
        """A knob move (one batch of events, whichever way it came: widget, link, script):
        draw it at once, or, on a served page, once its result is computed off the event
        loop, unless newer moves superseded it by then (``views.framework.live``)."""
        self._moved.update(e.name for e in events)
        if self._live is None or not (self._knob_streams or self._tables):
            self._draw()  # a script, a test, or a page not built yet: nothing to wait for
        else:
            self._live.request(self.model.knob_values())

    def _draw(self) -> None:
        """Redraw the live panels and tables that depend on the knobs moved since the last
        draw, all within one walk of the page's model graph (``one_graph_walk``); then the
        status line (``model.drawn``)."""
        model = self.model
        moved, self._moved = self._moved, set()
        streams = [s for s in self._knob_streams
                   if moved.intersection(p.name for p in s.parameters)]
        if streams:
            with pn.io.hold(), one_graph_walk():
                for stream in streams:
                    if not self._write_columns(stream):
                        stream.trigger([stream])
        self._tables = [(ref, plot, knobs) for ref, plot, knobs in self._tables
                        if ref() is not None]
        for ref, plot, knobs in self._tables:
            if moved.intersection(knobs):
                ref().object = table_html(model.drawing.panel_element(plot), plot.title)
        model.drawn += 1

    def redraw_overlaid(self) -> None:
        """The pin changed: redraw the live panels that may overlay the pinned state's curves
        (those without a cloud: ``pin.Pinning.overlay``), in one walk of the model graph. A
        panel whose layers changed (pinned or unpinned) is drawn anew: HoloViews' update would
        keep a removed layer's glyphs and ranges."""
        panels = [(s, p) for s, p in list(self._live_panels.items())  # not a replaced one's
                  if p["plot"].cloud is None and p["pane"] is not None
                  and p["pane"].object is p["dmap"]]
        with pn.io.hold(), one_graph_walk():
            for stream, panel in panels:
                if not self._write_columns(stream):
                    self._knob_streams.discard(stream)
                    self._live_panel(panel["plot"], panel["pane"])

    def _write_columns(self, stream) -> bool:
        """Draw a panel's new frame by writing its columns into the models drawn
        (``views.framework.columns``); False when HoloViews must draw it (the fallback is
        counted in ``columns.fallbacks``)."""
        panel = self._live_panels.get(stream)
        if panel is None:
            return False
        frame, dmap, pane = panel["frame"], panel["dmap"], panel["pane"]
        if pane is None or pane.object is not dmap:
            return False  # the pane was given a new plot (a zoom reset): HoloViews draws it
        plots = drawn_plots(pane)
        if not plots:
            self.columns.fallbacks["not drawn yet"] += 1
            return False
        element = frame(**stream.contents)
        if any(type(plot.current_frame) is not type(element) for plot in plots):
            # A frame of another kind (an overlay where a heat map was): HoloViews' update
            # refuses it (a DynamicMap holds one kind), so the panel is drawn anew.
            self.columns.fallbacks["the panel's kind changed"] += 1
            self._knob_streams.discard(stream)
            self._live_panel(panel["plot"], pane)
            return True
        return all(self.columns.draw(plot, element) is None for plot in plots)

    def run_pane(self, plot: Plot, streams) -> pn.viewable.Viewable:
        """A run panel on the page, redrawn whenever the job shows a new (partial) result (the
        first stream), and when a display knob it depends on moves (the others)."""
        streams = list(streams) if isinstance(streams, (list, tuple)) else [streams]
        present = self.presentation.present
        model = self.model
        return live_pane(hv.DynamicMap(
            no_pipeline(lambda **_: page_style(plot, model.drawing.panel_element(plot),
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
        model = self.model
        knobs = hv.streams.Params(model, model.redraw_knobs(plot), watch=False)
        self._knob_streams.add(knobs)  # triggered by _draw
        view = model.windows.get(plot.method)
        styled = functools.partial(page_style, plot, present=self.presentation.present)
        # cache_size=1: every frame comes from new knobs or a new window; older ones are never
        # shown again.
        if view is None:
            frame = no_pipeline(lambda **_: styled(
                model.clock.with_marks(plot, model.drawing.panel_element(plot))))
            dmap = hv.DynamicMap(frame, streams=[knobs], cache_size=1)
            self._live_panels[knobs] = dict(frame=frame, dmap=dmap, pane=None, plot=plot)
            return dmap
        last, shown = {}, {}

        def redundant(x_range, y_range) -> bool:
            # the window of the whole result now drawn, for the knobs it was drawn at
            return (shown.get("whole", False) and last == knobs.contents
                    and same_window(shown.get("window"), x_range, y_range))

        view.mute_when(redundant)  # every window stream is a WindowStream (Model.windows)

        @no_pipeline
        def callback(x_range=None, y_range=None, **values):
            if values != last:
                # New knobs: draw the new result whole, exactly as a fresh load of the page's
                # URL would (a kept zoom window would show a stale range of another result).
                # __setattr__ also reset the window streams, so an export shows the same.
                last.clear()
                last.update(values)
                x_range = y_range = None
            elif x_range is not None and same_window(shown.get("window"), x_range, y_range):
                # The plot reporting the window it was given: HoloViews asks once a plot is
                # drawn, the browser after an update. Nothing was zoomed: the same frame.
                x_range = y_range = None
            element = model.drawing.windowed(plot, x_range, y_range)
            shown["whole"] = x_range is None
            if x_range is None:
                # The whole result, framed exactly (no HoloViews padding): the window that a
                # report of it is recognised by above.
                window = data_extent(element)
                shown["window"] = window
                element = style(element, bokeh=dict(xlim=window[0], ylim=window[1]))
            return styled(model.clock.with_marks(plot, element))

        dmap = hv.DynamicMap(callback, streams=[knobs, view], cache_size=1)
        self._live_panels[knobs] = dict(frame=callback, dmap=dmap, pane=None, plot=plot)
        return dmap

    def _live_panel(self, plot: Plot, pane=None) -> pn.viewable.Viewable:
        """The live pane of a plot's DynamicMap (``dynamic``), or ``pane`` given the new one,
        known to the direct data path (``_write_columns``)."""
        dmap = self.dynamic(plot)
        if pane is None:
            pane = live_pane(dmap, self.presentation.present)
        else:
            pane.object = dmap
        for panel in self._live_panels.values():
            if panel["dmap"] is dmap:
                panel["pane"] = pane
        return pane

    def reset_zoom(self) -> None:
        """Back to the full range of every zoomable plot (recomputed at the knobs' range).

        The live page also rebuilds those plots (fresh axes), see ``panel``."""
        for plot in self.model.plots:
            if plot.zoom:
                self.model.windows[plot.method] = WindowStream(x_range=None, y_range=None)

    def shows(self, name: str) -> bool:
        """Knob ``name`` has a control on the page: a teacher's link (``presentation.show``)
        may keep only some."""
        show = self.presentation.show
        return show is None or name in show

    def control(self, name: str, run=None) -> pn.viewable.Viewable:
        """The widget of one knob, linked both ways: a ``views.framework.field.Field`` for a typed knob
        (``fields``), else what ``pn.Param`` builds from the parameter (``widgets`` overrides,
        ``widget_spec``),
        whose bounds follow ``knob_bounds``. Nothing (an empty spacer) for a knob that a
        teacher's link does not show (``shows``): it stays at the link's value. ``run``: the
        widget of that run's setting ``name`` (``views.framework.runs.Run``)."""
        owner = self.model if run is None else run
        if not self.shows(name if run is None else run_key(run.key, name)):
            return pn.Spacer(width=0, height=0, margin=0, visible=False)
        if name in owner.fields:
            return Field(owner, name)
        spec = widget_spec(owner.widgets.get(name))
        widget = prompt_widget(pn.Param.widget(name, owner, spec))
        p = owner.param[name]
        places = _knobs.decimals(getattr(p, "step", None))
        if (isinstance(widget, (pn.widgets.FloatSlider, pn.widgets.RangeSlider))
                and places is not None and "format" not in (spec or {})):
            # the title shows the step's precision, always the same number of decimals: a
            # 0.001 step showed "0.44" for three key presses, and 10 -> 10.50 -> 16 jumped
            widget.format = PrintfTickFormatter(format=f"%.{places}f")
        if "start" in widget.param and isinstance(getattr(p, "bounds", None), tuple):
            one_value_range(widget, owner, name)
        if is_slider(widget):
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
        model = self.model
        grouped = [n for names in model.groups.values() for n in names] + list(model.placed) + [
            n for job in model.jobs.values()
            for n in job.run.display]
        sections = [(None, [n for n in model.knob_names() if n not in grouped]),
                    *model.groups.items()]
        sections = [(heading, [n for n in names if self.shows(n)]) for heading, names in sections]
        sections = [(heading, names) for heading, names in sections if names]
        items = []
        for heading, names in sections:
            if heading is not None:
                items.append(Text(f"**{heading}**", margin=(10, 10, 0, 10)))
            items.extend(self.control(n) for n in names)
        return pn.Column(*items, sizing_mode="stretch_width")

    # --- the timeline and the downloads -----------------------------------------------------------
    def timeline_control(self, run: str | None = None) -> pn.viewable.Viewable:
        """The control of the model's timeline (``run``: of that run's), see
        ``views.framework.player``), its buttons a fingertip's targets on a touch screen."""
        return for_touch(timeline_control(self.model, run))

    def animation_buttons(self, run: str | None = None) -> list:
        """The GIF and MP4 download buttons of the page's timeline (``run``: of that run's,
        shown beside the run's own timeline control)."""
        return animation_buttons(self, run)

    def downloads(self) -> pn.FlexBox:
        """One download button per export format, and GIF and MP4 on a page with a timeline
        (``views.framework.downloads``)."""
        return downloads(self)

    def alert(self) -> pn.viewable.Viewable:
        """Visible alerts: one while the last computation failed (the plots keep the last good
        result), one saying what the page changed or ignored in the last settings
        (``notice``); empty otherwise."""

        model = self.model

        @param.depends(model.param.error, model.param.notice)
        def _alert(error=None, notice=None):
            alerts = []
            # both hold text from the link or a typed field: shown as plain text, never markup
            if model.notice:
                alerts.append(Alert(
                    f"**Settings adjusted:** {plain(model.notice, limit=NOTICE_LIMIT)}",
                    alert_type="warning", sizing_mode="stretch_width",
                    css_classes=["ldx-notice"]))
            if model.error:
                alerts.append(Alert(
                    "**Could not compute with these settings:** "
                    f"{plain(model.error, limit=NOTICE_LIMIT)}\n\n"
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
        marker = pn.widgets.IntInput(value=self.model.drawn, visible=False)
        painted = pn.widgets.IntInput(value=self.model.drawn, visible=False)
        marker.jscallback(value="requestAnimationFrame(() => requestAnimationFrame(() => "
                                "{ painted.value = cb_obj.value; }));", args={"painted": painted})
        self.model.param.watch(lambda event: setattr(marker, "value", event.new), "drawn")
        # Panel keeps a jscallback in a class-wide registry weakly keyed by its source (marker),
        # its value holding the callback's args (painted): a strong path from painted back to
        # marker, through this page, kept every page of every closed session alive (+6
        # pages a round of 6 sessions). So painted's watcher holds the page's live moves (which
        # hold the page) weakly.
        live = None if self._live is None else weakref.ref(self._live)

        def on_painted(_):
            latest = None if live is None else live()
            if latest is not None:
                latest.painted()

        painted.param.watch(on_painted, "value")
        return pn.Row(marker, painted, visible=False, height=0, margin=0)

    def page_parts(self) -> dict:
        """The pieces of the page body, by name: alert, about, status, panes (one live pane
        per plot), grid (the panes laid out, with the zoom reset when there is one, and Pin's
        row above them while a state is pinned: ``pin_view``) and downloads."""
        model, present, beside = self.model, self.presentation.present, []
        panes = [self._pane(p) for p in model.plots]
        self._boxes = []  # the rows of plots (``_sections``), for ``draw_deferred``
        placed = dict(zip((p.method for p in model.plots), panes))
        if self._defer_plots:
            # each plot's place holds its frame until ``draw_deferred`` puts the plot there
            frames = {method: self._plot_frame(plot) for method, plot in
                      ((p.method, p) for p in model.plots)
                      if isinstance(placed[method], pn.pane.HoloViews)}
            self._deferred = [(frames[m], placed[m]) for m in placed if m in frames]
            placed = {m: frames.get(m, pane) for m, pane in placed.items()}
        grid = self._sections(placed)
        if any(p.zoom for p in model.plots):
            def on_reset(_):
                # A fresh plot starts from the full range; a stream reset alone would leave the
                # Bokeh axes where the user zoomed them.
                self.reset_zoom()
                for pane, plot in zip(panes, model.plots):
                    if plot.zoom:
                        self._live_panel(plot, pane)

            hint = ("Zoom into the first plot (box or wheel zoom) to recompute that window at "
                    "full resolution.")
            reset = pn.widgets.Button(label="Reset zoom", color="primary", width=120)
            reset.on_click(on_reset)
            if present:  # in the row above the plots, the hint its tooltip (``projector``)
                reset.description, beside = hint, [reset]
            else:
                grid = pn.Column(pn.Row(reset, Text(hint, margin=(10, 10))), grid)
        # the title stays one line (a long book title wrapped it in two at 1440 px); the whole
        # reference opens with the text
        title = (f"About this page: {model.paper.short} ({model.paper.year}), "
                 f"{model.figures.split(';')[0]}")
        texts = [Text(math_markdown(model.text), sizing_mode="stretch_width", max_width=960),
                 Text(f"**Source:** {model.paper.reference}.", sizing_mode="stretch_width",
                      max_width=960)]
        status = steady_text(Text(
            math_markdown(model.status()), sizing_mode="stretch_width", margin=(0, 10),
            styles={"font-size": "1.2em"} if present else {}))
        if present:  # one line: the status, the page text under it (``projector``)
            about = one_line_status(status, Text(f"**{title}**", margin=(0, 10)), *texts)
        else:  # closed: the plots come first on the screen (a projector's 1024 x 768 showed
            # none below the open text); one click opens it
            about = pn.Card(*texts, title=title, collapsible=True, collapsed=True,
                            sizing_mode="stretch_width", margin=(5, 10))
        # a watcher, not pn.bind: a bound text shows Panel's loading spinner at each redraw,
        # whose class and stylesheets the browser re-applies after the text: Bootstrap's
        # paragraph margin then won over Panel's and the moved page's status line sat 12 px
        # higher than a fresh load's
        model.param.watch(lambda _: setattr(status, "object", math_markdown(model.status())),
                          "drawn")
        #: present mode: what goes in the row above the plots and what its "More controls"
        #: shows (``views.framework.projector.control_row``)
        self.present_row, self.present_folded = beside, []
        if model.timeline is not None:
            control = self.timeline_control()
            if present:
                player, control = split_timeline(control)
                self.present_row = [player, *beside] if player is not None else beside
                self.present_folded = [control]
            grid = pn.Column(control, grid, sizing_mode="stretch_width")
        grid = pn.Column(self.pin_view.row, grid, sizing_mode="stretch_width")
        runs = [JobSection(self, job) for job in model.jobs.values()]
        return dict(alert=self.alert(), about=about, panes=panes, grid=grid,
                    # in present mode the status is the head of ``about``
                    status=pn.Spacer(height=0, margin=0) if present else status,
                    downloads=self.downloads(), runs=runs)

    def _sections(self, panes: dict) -> pn.Column:
        """The panels laid out by ``sections`` (default: all in one). Panels wrap: two columns
        on a wide screen, one on a projector's 1024 x 768."""
        sections = self.model.sections or (
            Section(tuple(p.function for p in self.model.plots)),)
        laid = [n for section in sections for n in section.plots]
        if sorted(laid) != sorted(panes):
            raise ValueError(f"{type(self.model).__name__}.sections must place every panel once, "
                             f"got {laid} for {list(panes)}")
        blocks = []
        for section in sections:
            if section.header is not None:
                # a widget of the page's, or of the model's
                owner = self if hasattr(self, section.header) else self.model
                blocks.append(getattr(owner, section.header)())
            # each panel, then the place of its pinned copy (``PinView``, hidden unpinned)
            items = [x for n in section.plots for x in (panes[n], *self.pin_view.beside(n))]
            if section.aside:
                items.append(Text(math_markdown(section.aside), width=PLOT_WIDTH))
            box = pn.FlexBox(*items, gap="8px", sizing_mode="stretch_width")
            self._boxes.append(box)
            blocks.append(box)
        return pn.Column(*blocks, sizing_mode="stretch_width")

    def _pane(self, plot: Plot) -> pn.viewable.Viewable:
        """The live pane of one panel: a HoloViews plot, or, for a table, an HTML table.

        Bokeh's DataTable (what HoloViews draws a Table with) fails to initialise inside a
        wrapping FlexBox ("SlickGrid Cannot find stylesheet"), shows a row-number column and
        cuts long cells; a plain HTML table has none of these problems. Exports keep the
        ``hv.Table``."""
        model = self.model
        table = model.drawing.panel_element(plot)
        if isinstance(table, hv.Table):
            pane = steady_text(pn.pane.HTML(table_html(table, plot.title),
                                            css_classes=["ldx-table"],
                                            **live_size(self.presentation.present)))
            # redrawn by _draw when one of its knobs moved
            self._tables.append((weakref.ref(pane), plot, frozenset(model.redraw_knobs(plot))))
            return pane
        return self._live_panel(plot)

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
        pending, self._deferred = self._deferred, []

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
