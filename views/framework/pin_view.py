"""The page's side of Pin (``PinView``, built with the ``Page``): the **Pin** button (the app
puts it with the page's other buttons, in the sidebar; pressed again it pins the state drawn
then), the row above the plots while a state is pinned (**Unpin** and the line naming the knobs
that differ, "Pinned: Model seed = 1 (now 2)", plain text) and, beside each live panel, its
pinned copy. Nothing is added above the plots while nothing is pinned (a projector's first
screen keeps its first plot).

The pinned copies are static panes: drawn from the model at the pinned knobs
(``model.pinning.twin()``, ``views.framework.pin``) when the pin changes, never on a knob move.
Once the pinned state is drawn, the live panels that allow it are redrawn with its curves
faded under theirs (``Page.redraw_overlaid``; their move path draws the overlay from then on). A
pinned state the page has not computed (a link's ``pin=``) is computed off the event loop as a
knob move is (``views.framework.live.LatestWins``, the last pin winning). In the row of panels
each copy follows its live panel: side by side where two panels share a row (1440 px), one
under the other on a projector's 1024 px.
"""

from __future__ import annotations

import holoviews as hv
import panel as pn

from views.framework.figure import data_extent, style, table_html
from views.framework.live import LatestWins, session_post
from views.framework.page_workarounds import Text, steady_text
from views.framework.panes import live_size, page_style
from views.framework.text import plain

__all__ = ["PinView", "PIN_LABEL", "UNPIN_LABEL", "LINE_LIMIT"]

#: The button's words, unpinned and pinned.
PIN_LABEL, UNPIN_LABEL = "Pin", "Unpin"
#: The longest line shown (characters; the line is already cut, ``pin.LINE_CHARS``).
LINE_LIMIT = 600


class PinView:
    """Pin on the page of ``page`` (a ``views.framework.page.Page``): ``button`` (Pin, placed
    by whoever lays the page out), ``row`` (Unpin and the line, above the plots, shown while a
    state is pinned) and ``beside(method)``, the place of a panel's pinned copy in the row of
    panels. Reads the page's ``model``, ``presentation`` and ``session`` and the model's
    public names."""

    def __init__(self, page):
        self.model = model = page.model
        self.present = page.presentation.present
        self._redraw_overlaid = page.redraw_overlaid
        self.button = pn.widgets.Button(
            label=PIN_LABEL, color="primary", variant="outline", width=70,
            css_classes=["ldx-pin"],
            description="Keep these settings: the page draws them beside the live ones")
        self.button.on_click(lambda _: model.pin())
        self.unpin = pn.widgets.Button(label=UNPIN_LABEL, color="primary",
                                       variant="outline", width=80, margin=(5, 10))
        self.unpin.on_click(lambda _: model.unpin())
        self.line = steady_text(Text("", sizing_mode="stretch_width", margin=(9, 10, 0, 10),
                                     css_classes=["ldx-pin-line"]))
        self.row = pn.Row(self.unpin, self.line, sizing_mode="stretch_width", visible=False,
                          margin=0)
        #: The place of each panel's pinned copy, by the panel's key (hidden: nothing pinned).
        self._places = {p.method: pn.Column(visible=False, margin=0, css_classes=["ldx-pinned"],
                                            **live_size(self.present))
                        for p in model.plots}
        post = session_post()
        self._twin = None
        self._live = None if post is None else LatestWins(self._warm, self._show, post,
                                                          page.session.alive)
        model.param.watch(self._pinned, "pinned")
        model.param.watch(self._refresh_line, "drawn")
        if model.pinned is not None:
            self._pinned()
        self._refresh_line()

    def beside(self, method: str) -> tuple:
        """The place of panel ``method``'s pinned copy (none for a panel the twin lacks)."""
        place = self._places.get(method)
        return () if place is None else (place,)

    # --- the pin moved --------------------------------------------------------------------
    def _pinned(self, *_events) -> None:
        """The pin changed: its twin built here (on the event loop), computed off it on a
        served page, then drawn (``_show``)."""
        pinning = self.model.pinning
        self._twin = pinning.twin()
        # not overlaid on the live panels until computed and drawn here (``_show``)
        pinning.pending = pinning.text()
        if self._live is None:
            self._show()
        else:
            self._live.request(pinning.text())

    def _warm(self) -> None:
        twin = self._twin
        if twin is not None:
            twin.warm()

    def _show(self) -> None:
        """Draw the pinned copies (or hide them: nothing pinned), the line and the button."""
        model, twin = self.model, self._twin
        pinned = twin is not None
        self.row.visible = pinned
        failure = None
        if pinned:
            try:
                if self._live is not None:
                    failure = self._live.failure(model.pinning.text())
                if failure is not None:
                    raise failure
                twin.result()
                if twin.error:
                    raise ValueError(twin.error)
                for plot in model.plots:
                    self._places[plot.method].objects = [self._pane(twin, plot)]
            except Exception as exc:  # noqa: BLE001 - said on the line; the live page goes on
                failure = exc
        for place in self._places.values():
            place.visible = pinned and failure is None
        # the live panels overlay the pinned curves (a pinned state that failed: none)
        model.pinning.pending = model.pinning.text() if failure is not None else None
        self._redraw_overlaid()
        self._refresh_line(failure=failure)
        if self._live is not None:
            self._live.painted()  # static panes: nothing to pace

    def _refresh_line(self, *_events, failure=None) -> None:
        pinning = self.model.pinning
        if failure is not None:
            text = plain(f"The pinned settings could not be drawn: {failure}", limit=LINE_LIMIT)
        elif self.model.pinned is not None:
            text = f"**Pinned:** {plain(pinning.words(), limit=LINE_LIMIT)}"
        else:
            text = ""
        self.line.object = text

    def _pane(self, twin, plot) -> pn.viewable.Viewable:
        """The pinned copy of ``plot``: drawn as the live panel is at the end of its run (a
        table as the live page's HTML table), titled ``pinning.title``."""
        title = self.model.pinning.title(plot)
        element = twin.drawing.panel_element(plot)
        if isinstance(element, hv.Table):
            return pn.pane.HTML(table_html(element, title), css_classes=["ldx-table"],
                                sizing_mode="stretch_width")
        if plot.method in twin.windows:  # a cloud: rasterized as the live page draws it
            element = twin.drawing.windowed(plot)
            window = data_extent(element)
            element = style(element, bokeh=dict(xlim=window[0], ylim=window[1]))
        element = page_style(plot, twin.clock.with_marks(plot, element), present=self.present)
        height = live_size(self.present)["height"]
        return pn.pane.HoloViews(style(element, title=title), backend="bokeh",
                                 linked_axes=False, sizing_mode="stretch_width", height=height)
