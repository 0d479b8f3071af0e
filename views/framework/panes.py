"""The live panels of a served page: their size in a row of panels (``live_size``), their pane
(``live_pane``), each frame's style on the page (``page_style``) and what a knob's widget needs
beyond Panel's (``one_value_range``). Used by ``views.framework.page.Page``."""

from __future__ import annotations

import holoviews as hv
import panel as pn
import param

from views.framework.figure import PLOT_HEIGHT, Plot, style
from views.framework.legends import bokeh_legend

__all__ = ["live_size", "live_pane", "page_style", "one_value_range", "PLOT_BASIS",
           "PLOT_MIN_WIDTH", "PLOT_MAX_WIDTH", "PRESENT_SIZE", "PRESENT_FONTSCALE",
           "UNTITLED", "WRAPPING_GROUP", "TOUCH_HANDLES", "TOUCH_SIZE", "TOUCH_PLAYER",
           "TOUCH_BUTTON", "TOOLBAR_HIDDEN", "for_touch"]


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
#: A fingertip's target (px): the least width and height of a button on a touch screen.
TOUCH_SIZE = 40
#: The timeline player's nine buttons on a touch screen, each a fingertip's target (Panel's are
#: 36 x 21 px), in two lines where one is too narrow for them.
TOUCH_PLAYER = f"""@media (pointer: coarse), (max-width: 600px) {{
  :host {{ height: auto !important; flex: 0 0 auto !important; }}
  div:has(> button.play) {{ flex-wrap: wrap !important; row-gap: 4px; }}
  button {{ min-width: {TOUCH_SIZE + 4}px; min-height: {TOUCH_SIZE}px; }}
}}"""
#: A button on a touch screen (Panel's are 31-33 px high).
TOUCH_BUTTON = f"""@media (pointer: coarse), (max-width: 600px) {{
  .bk-btn {{ min-height: {TOUCH_SIZE}px; }}
}}"""
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


def one_value_range(slider, explorer, name: str) -> None:
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
    if getattr(layer, "ldx_placed", None) is not None:
        return layer.relabel(group=place, label=place if labelled else "")
    with param.edit_constant(layer):
        layer.group, layer.label = place, (place if labelled else "")
    layer.ldx_placed = place  # our mark on the element: renamed once
    return layer



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


def for_touch(*widgets):
    """``widgets`` (buttons, toggles, timeline players: a timeline's control holding one) with
    targets a fingertip can take on a touch screen (``TOUCH_PLAYER``, ``TOUCH_BUTTON``); returns
    the first."""
    for widget in widgets:
        players = (widget.select(pn.widgets.Player) if hasattr(widget, "select")
                   else [])
        for target in players or [widget]:
            sheet = TOUCH_PLAYER if isinstance(target, pn.widgets.Player) else TOUCH_BUTTON
            target.stylesheets = [*target.stylesheets, sheet]
    return widgets[0] if widgets else None

