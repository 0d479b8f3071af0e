"""Where legends go: under their plot's x axis, never over its data, on the page and in exports.

A legend inside the axes covers the data whenever they reach its corner, and which corner is
empty changes with the knobs: SBEED's runs levelled off under a legend at one γ and not at
another, the Ising magnetisation filled every corner. So no panel places its legend: every
legend sits below its plot, its entries in rows of as many columns as fit the plot's width.

- On the page and in HTML exports (Bokeh): ``bokeh_legend`` gives the options of a panel: the
  ``LEGEND_BELOW`` hook moves its legend into Bokeh's panel under the axis, outside the data
  area, its columns from an estimate of the labels' widths against the narrowest data area a
  page draws. A panel whose legend must show on a projector's first screen puts it beside the
  data area instead, one entry a line (its own ``LEGEND_BESIDE`` hook: SBEED's runs).
- In PNG, SVG and PDF exports (matplotlib): ``place_legends`` moves each axes' legend under
  its tick labels and axis label once the figure is rendered (its columns from the measured
  widths), then moves the rows of panels apart where a legend reaches the panel below.
"""

from __future__ import annotations

import holoviews as hv
import numpy as np

__all__ = ["legend_entries", "legend_columns", "bokeh_legend", "place_legends",
           "LEGEND_BESIDE"]

#: Bokeh's legend label size (px) and a label character's mean width in em (5.8-6.4 px a
#: character at 13 px, measured in Chromium for the pages' labels; rounded up).
LABEL_PX, CHAR_EM = 13, 0.5
#: An entry's glyph and the gap to its label, the gap between entries and rows, the height of
#: a row and the legend's padding (px: Bokeh's ``glyph_width``, ``label_standoff``,
#: ``spacing``, ``glyph_height`` and ``label_height``, ``padding``).
GLYPH_PX, STANDOFF_PX, SPACING_PX, ROW_HEIGHT_PX, PADDING_PX = 20, 5, 8, 16, 4
#: The width a legend's row may take (px): the data area of the narrowest plot a page draws
#: at 1024 px and wider (two 420-px plots to a row, less the y axis).
ROW_PX = 340


def legend_entries(element) -> list[str]:
    """The labels of the legend HoloViews draws for ``element``, in order: one per distinct
    label of an overlay's data layers (annotations have no entry), none when the element
    hides its legend or is not an overlay."""
    if not isinstance(element, hv.Overlay):
        return []
    if hv.Store.lookup_options("bokeh", element, "plot").kwargs.get("show_legend") is False:
        return []
    labels = [layer.label for layer in element
              if layer.label and not isinstance(layer, hv.element.Annotation)]
    return list(dict.fromkeys(labels))


def legend_columns(widths: list[float], room: float, *, gap: float, pad: float) -> int:
    """The most columns a legend of entries ``widths`` wide (filled row by row) can have and
    stay within ``room``: each column as wide as its widest entry, ``gap`` between columns and
    ``pad`` on both sides (one column when even that is wider)."""
    for ncols in range(len(widths), 1, -1):
        columns = [max(widths[c::ncols]) for c in range(ncols)]
        if sum(columns) + gap * (ncols - 1) + 2 * pad <= room:
            return ncols
    return 1


def bokeh_legend(element, *, scale: float = 1.0) -> dict:
    """Bokeh options that put ``element``'s legend under its x axis, its entries in rows of as
    many columns as fit ``ROW_PX`` (``scale``: the page's font scale, and the plots' width
    with it); {} when it has no legend. The element's own Bokeh hooks are kept."""
    labels = legend_entries(element)
    if not labels:
        return {}
    font = LABEL_PX * scale
    widths = [GLYPH_PX + STANDOFF_PX + CHAR_EM * font * len(label) for label in labels]
    ncols = legend_columns(widths, ROW_PX * scale, gap=SPACING_PX, pad=PADDING_PX)
    hooks = hv.Store.lookup_options("bokeh", element, "plot").kwargs.get("hooks") or []
    # "center": where LEGEND_BELOW finds the legend, and where it stays centred under the axis
    return dict(legend_position="center", hooks=[*hooks, LEGEND_BELOW], legend_opts=dict(
        orientation="horizontal", ncols=ncols, padding=PADDING_PX, spacing=SPACING_PX,
        glyph_height=ROW_HEIGHT_PX, label_height=ROW_HEIGHT_PX, margin=2,
        border_line_alpha=0, background_fill_alpha=0))


class _LegendMover:
    """Bokeh hook that moves a plot's legend out of its data area into one of the panels
    around it (``side``: "below", "right"), one entry a line when ``vertical``. A named
    instance (``name``): its repr is stable, so ``apply_options`` can memoize the options
    that hold it."""

    def __init__(self, side: str, name: str, vertical: bool = False):
        self.side, self.name, self.vertical = side, name, vertical

    def __call__(self, plot, element) -> None:
        from bokeh.models import Legend

        figure = plot.state
        moving = [item for item in figure.center if isinstance(item, Legend) and item.items]
        if self.vertical:
            placed = (i for i in getattr(figure, self.side) if isinstance(i, Legend))
            for legend in [*moving, *placed]:
                legend.update(orientation="vertical", ncols=1)
        if moving:
            figure.center = [item for item in figure.center if item not in moving]
            setattr(figure, self.side, [*getattr(figure, self.side), *moving])

    def __repr__(self) -> str:
        return f"views.framework.legends.{self.name}"


#: Moves a plot's legend from the data area into the panel under its x axis, once:
#: HoloViews' own outside positions (``legend_position="bottom"``) take the legend out of the
#: plot and put it back on every frame, and setting a plot's layout lists makes Bokeh walk the
#: session's whole model graph after each knob move (a herding move: one walk, about 15 % of
#: its server time; ``one_graph_walk``).
LEGEND_BELOW = _LegendMover("below", "LEGEND_BELOW")

#: The legend of a panel whose legend goes beside its data area, at the right, one entry a
#: line (``style(..., bokeh=dict(hooks=[LEGEND_BESIDE]))``), not under its x axis where
#: ``LEGEND_BELOW`` puts every other legend: SBEED's first plot put its three runs' names under
#: the fold of a 1024 x 768 screen. It runs before the page's ``LEGEND_BELOW`` (an element's
#: own hooks come first), which then finds no legend to move.
LEGEND_BESIDE = _LegendMover("right", "LEGEND_BESIDE", vertical=True)


# --- matplotlib ----------------------------------------------------------------------------

#: The gap between a panel's axis label and its legend, and between a panel's lowest artist
#: and the next row's title (points).
GAP_PT = 8


def place_legends(fig) -> None:
    """Move every legend of a rendered matplotlib figure under its axes (below the tick
    labels and the axis label, centred, in as many columns as fit the axes' width), then move
    the rows of axes apart wherever a legend would reach into the row below, and the columns
    apart wherever a panel's labels run into the panel to its right (``_open_columns``)."""
    renderer = _renderer(fig)
    bottoms = {}  # display y of the lowest artist of each axes with a legend: its legend's
    for ax in fig.axes:
        legend = ax.get_legend()
        if legend is None or not legend.get_visible() or not legend.texts:
            continue
        bottoms[ax] = _below(ax, legend, renderer)
    if bottoms:
        _open_rows(fig, renderer, bottoms)
    _open_columns(fig, renderer)


def _renderer(fig):
    """A renderer to measure ``fig``'s artists with: its canvas's, or an Agg canvas's (HoloViews
    draws on a bare ``FigureCanvasBase``; ``savefig`` picks each format's canvas anyway)."""
    if not hasattr(fig.canvas, "get_renderer"):
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(fig)
    return fig.canvas.get_renderer()


def _below(ax, legend, renderer) -> float:
    """Replace ``legend`` by the same entries under ``ax``'s tick labels and axis label; the
    display y of the new legend's bottom."""
    handles = list(legend.legend_handles)
    labels = [text.get_text() for text in legend.texts]
    fontsize = legend.texts[0].get_fontsize()
    title = legend.get_title().get_text()
    legend.remove()
    ax.apply_aspect()
    box = ax.get_window_extent(renderer)
    gap = GAP_PT * ax.figure.dpi / 72
    top = (_lowest(ax, renderer) - gap - box.y0) / box.height  # axes fraction, < 0
    ncols = len(labels)
    while True:
        new = ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, top),
                        ncols=ncols, fontsize=fontsize, title=title or None, frameon=False,
                        borderaxespad=0.0, borderpad=0.2, columnspacing=1.2,
                        handlelength=1.8, handletextpad=0.5)
        extent = new.get_window_extent(renderer)
        if ncols == 1 or extent.width <= box.width:
            return extent.y0
        new.remove()
        ncols -= 1


def _lowest(ax, renderer) -> float:
    """The display y of the bottom of ``ax``'s x axis: tick labels and axis label."""
    ax.apply_aspect()
    axis = ax.xaxis.get_tightbbox(renderer) if ax.xaxis.get_visible() else None
    return min(ax.get_window_extent(renderer).y0, axis.y0 if axis is not None else np.inf)


def _highest(ax, renderer) -> float:
    """The display y of the top of ``ax``'s title (its box's top without one)."""
    ax.apply_aspect()
    top = ax.get_window_extent(renderer).y1
    if ax.get_title():
        top = max(top, ax.title.get_window_extent(renderer).y1)
    return top


def _rows(fig) -> list[list]:
    """The figure's visible axes grouped into rows of panels, top row first (axes whose
    vertical extents overlap share a row: a plot and its colour bar)."""
    rows: list[list] = []
    for ax in sorted(fig.axes, key=lambda a: -a.get_position(original=True).y1):
        if not ax.get_visible():
            continue
        pos = ax.get_position(original=True)
        if rows and pos.y1 > min(a.get_position(original=True).y0 for a in rows[-1]):
            rows[-1].append(ax)
        else:
            rows.append([ax])
    return rows


def _open_rows(fig, renderer, bottoms: dict) -> None:
    """Move rows of axes down (the figure grows) until each row's lowest artist (a legend's
    ``bottoms``, else the x axis) ends above the next row's titles."""
    rows = _rows(fig)
    gap = GAP_PT * fig.dpi / 72
    shifts = [0.0]  # px each row moves down
    for upper, lower in zip(rows, rows[1:]):
        if not any(ax in bottoms for ax in upper):
            shifts.append(shifts[-1])  # the layout's own spacing holds
            continue
        bottom = min(bottoms[ax] if ax in bottoms else _lowest(ax, renderer) for ax in upper)
        top = max(_highest(ax, renderer) for ax in lower)
        shifts.append(shifts[-1] + max(0.0, top + gap - bottom))
    if shifts[-1] <= 0:
        return
    width, height = fig.get_size_inches()
    grown = height + shifts[-1] / fig.dpi
    placed = {}
    for row, shift in zip(rows, shifts):
        for ax in row:
            pos = ax.get_position(original=True)
            # the same distance from the figure's top, plus the row's shift (inches)
            y0 = grown - (height - pos.y0 * height) - shift / fig.dpi
            placed[ax] = (pos.x0, y0 / grown, pos.width, pos.height * height / grown)
    fig.set_size_inches(width, grown)
    for ax, (x0, y0, w, h) in placed.items():
        ax.set_position((x0, y0, w, h), which="both")


def _open_columns(fig, renderer) -> None:
    """Move columns of axes right (the figure grows) where an axes' drawing (a colour bar's
    label, tick labels) runs into the axes to its right in the same row (its y label, its
    tick labels): the DSG page's colour bar label "noiseless function of the data" ran over
    the next panel's "x₂". Axes that only come close (a plot and its colour bar) stay put."""
    axes = [ax for ax in fig.axes if ax.get_visible()]
    if len(axes) < 2:
        return
    pos = {ax: ax.get_position(original=True) for ax in axes}
    # without the titles: a title wider than its axes reaches over the colour bar, not into it
    titles = [t for ax in axes for t in (ax.title, ax._left_title, ax._right_title)
              if t.get_visible()]
    for t in titles:
        t.set_visible(False)
    try:
        tight = {ax: ax.get_tightbbox(renderer) for ax in axes}
    finally:
        for t in titles:
            t.set_visible(True)
    if any(box is None for box in tight.values()):
        return
    gap = GAP_PT * fig.dpi / 72
    lefts = sorted({round(p.x0, 6) for p in pos.values()})
    need = {}  # px the axes from this left edge on move right, beyond the earlier edges' moves
    for left in lefts[1:]:
        right = [b for b in axes if round(pos[b].x0, 6) == left]
        before = [a for a in axes if pos[a].x1 <= left + 1e-9]
        push = 0.0
        for b in right:
            for a in before:
                if min(pos[a].y1, pos[b].y1) <= max(pos[a].y0, pos[b].y0):
                    continue  # not in the same row
                overlap = tight[a].x1 - tight[b].x0
                if overlap > 0:
                    push = max(push, overlap + gap)
        need[left] = push
    if not any(need.values()):
        return
    width, height = fig.get_size_inches()
    shift, total = {}, 0.0
    for left in lefts:
        total += need.get(left, 0.0)
        shift[left] = total
    grown = width + total / fig.dpi
    fig.set_size_inches(grown, height)
    for ax in axes:
        p = pos[ax]
        x0 = (p.x0 * width + shift[round(p.x0, 6)] / fig.dpi) / grown
        ax.set_position((x0, p.y0, p.width * width / grown, p.height), which="both")
