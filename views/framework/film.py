"""The frames of a page's timeline drawn fast (``Film``), for its animations
(``views.framework.animation``).

Frame i is the figure the page exports (``figure()``, drawn with matplotlib as its PNG export
is, at ``ANIMATION_DPI``) at time t_i of its timeline, with the marks of that time (the weight
on the cones, the particles, the bars) and a title that says the time (``frame_title``).

Drawing each frame as an export does takes 1-2 s for the herding page (a new matplotlib figure
from HoloViews, drawn whole). Only the marks change between frames, so ``Film`` draws the
figure once, keeps it as pixels without the marks (matplotlib's blitting), and for each frame
moves the marks' artists to t_i and draws them alone over those pixels. What an axes draws
after a mark (a legend, the axes' frame, a guide line above a moving line) is drawn after it
again where both may paint (``Film._overlaps``), from pixels kept without it. A mark's artist
is moved directly where that is one call (a point, a line, a vertical line or veil); other
marks (histogram bars, particles coloured by their weight, images) are redrawn by HoloViews
from the mark's element.

A layer that builds up in time (``Mark`` ``grow``: a curve over the steps, a cloud) is cut at
each frame's time from the whole layer, as the export at that time cuts it, and drawn as the
marks are: a frame holds only what happened by its time.

Drawn once, so not following the time: the axes (no page's do: a page draws its frame at every
time on the axes of the whole run) and a mark's colour bar (a mark coloured by its data fixes
its ``clim`` and ``cbar_extend``: HoloViews would point the bar's ends from the first frame's
data). ``tests/views/test_animate.py`` compares frames with the PNG export at their time, pixel
for pixel. (Two exports of a page at different times can place one tick label up to two pixels
apart: matplotlib's layout of the label's centred text came out different, its cause not
found. Seen on the Doeblin and Bayes pages; a frame draws such a label as the export at the
first frame's time does.)
"""

from __future__ import annotations

import math

import holoviews as hv
import numpy as np
import param

from views.framework import stamp
from views.framework.figure import (export_styles, fit_colorbars, put_title, set_title,
                                     title_width)
from views.framework.legends import place_legends
from views.framework.marks import grown
from views.framework.workarounds import forget_colorbars, matplotlib_plot, tight_canvas

__all__ = ["Film", "frame_title", "ANIMATION_DPI"]

#: Resolution of an animation's frames (dots per inch of the exported figure).
ANIMATION_DPI = 100
#: Pixels a mark may paint beyond its artist's extent (antialiasing), besides its line width.
REACH = 3


def frame_title(explorer, i: int, settings: str | None = None, run: str | None = None) -> str:
    """The title of frame ``i`` of the page's timeline (``run``: of that run's own timeline):
    the page (and the run), its settings (``settings``, the words of ``stamp.settings_words``
    when given) and the time ("Herding (default settings): Step t = 1,234 of 20,000")."""
    if settings is None:
        settings = stamp.settings_words(explorer, time=False)
    label = explorer.clock.label(i, run)
    what = explorer.title if run is None else f"{explorer.title}, {explorer.jobs[run].run.title}"
    return f"{what} ({settings}): {label}"


class _AtTime:
    """The page at time ``t`` of its timeline (``run``: of that run's) for the block (no
    watcher told: nothing on the page moves)."""

    def __init__(self, explorer, t, run: str | None = None):
        self.explorer, self.t, self.run = explorer, t, run

    def __enter__(self):
        self.old = self.explorer.time_of(self.run)
        with param.parameterized.discard_events(self.explorer):
            self.explorer.set_time(self.run, self.t)

    def __exit__(self, *exc):
        with param.parameterized.discard_events(self.explorer):
            self.explorer.set_time(self.run, self.old)


# --- drawing the frames ----------------------------------------------------------------------


def _offsets(xs, ys):
    """Points as ``scatter`` holds them: rows with a NaN masked (not drawn)."""
    xy = np.column_stack([np.asarray(xs, float), np.asarray(ys, float)])
    bad = ~np.isfinite(xy).all(axis=1)
    return np.ma.array(xy, mask=np.column_stack([bad, bad]))


def _mover(mark, subplot):
    """How to move the artist HoloViews drew ``mark`` with to another frame's data
    (``Mark.data``) in one call, or None: HoloViews redraws it from the mark's element. Only
    marks drawn in one style (no colour or size from the data)."""
    from matplotlib.collections import PathCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Rectangle

    artist = subplot.handles.get("artist")
    notes = subplot.handles.get("annotations") or [None]
    plain = not mark.more and not mark.columns
    if mark.kind in ("point", "history", "prefix") or (mark.kind == "points" and plain):
        if type(artist) is PathCollection:
            return lambda data: artist.set_offsets(_offsets(*data))
    elif mark.kind in ("trail", "ray") or (mark.kind == "curve" and plain):
        if type(artist) is Line2D:
            return lambda data: artist.set_data(*data)
    elif mark.kind == "vline" and len(notes) == 1 and type(notes[0]) is Line2D:
        return lambda x: notes[0].set_xdata([x, x])
    elif mark.kind == "future" and len(notes) == 1 and type(notes[0]) is Rectangle:
        def veil(ends, patch=notes[0]):
            patch.set_x(ends[0])
            patch.set_width(ends[1] - ends[0])
        return veil
    return None


def _artists(subplot) -> list:
    """The matplotlib artists a HoloViews subplot drew its element with (now), in its axes (a
    colour bar's axes beside it is drawn once: marks coloured by their data fix ``clim``)."""
    children = {id(a) for a in subplot.handles["axis"].get_children()}
    found = []
    for name, handle in subplot.handles.items():
        if name in ("fig", "axis", "bbox_extra_artists", "title"):
            continue
        for artist in handle if isinstance(handle, (list, tuple)) else [handle]:
            if id(artist) in children:
                found.append(artist)
    return found


def _draw_order(ax) -> list:
    """The visible artists of axes ``ax`` in the order ``Axes.draw`` draws them (by zorder,
    ties in the order of its children), without its background patch and empty texts (the
    titles left and right of the title, which draw nothing)."""
    from matplotlib.text import Text

    artists = [a for a in ax.get_children() if a is not ax.patch and a.get_visible()
               and not (isinstance(a, Text) and not a.get_text())]
    if not (ax.axison and ax.get_frame_on()):
        artists = [a for a in artists if a not in ax.spines.values()]
    if not ax.axison:
        artists = [a for a in artists if a is not ax.xaxis and a is not ax.yaxis]
    return sorted(artists, key=lambda a: a.get_zorder())


def _box(artist, renderer, pad: float):
    """The display box ``artist`` paints in, padded by ``pad`` pixels; None when unknown."""
    try:
        box = artist.get_tightbbox(renderer)
    except Exception:  # noqa: BLE001 - an artist that cannot say: treated as everywhere
        return None
    if box is None or not np.all(np.isfinite(box.extents)):
        return None
    return box.padded(pad)


def _union(a, b):
    """The box holding boxes ``a`` and ``b`` (either None: the other; both: None)."""
    from matplotlib.transforms import Bbox

    boxes = [box for box in (a, b) if box is not None]
    return Bbox.union(boxes) if boxes else None


def _meet(p, q) -> bool:
    """Whether pixel rectangles ``p`` and ``q`` (x0, x1, y0, y1) share a pixel."""
    return p[0] < q[1] and q[0] < p[1] and p[2] < q[3] and q[2] < p[3]


class _Layer:
    """One timeline mark in the film: the HoloViews subplot that drew it and how it moves."""

    def __init__(self, mark, subplot):
        self.mark, self.subplot = mark, subplot
        self.move = _mover(mark, subplot)

    def show(self, frames, i: int, key) -> None:
        if self.move is not None:
            self.move(self.mark.data(frames, i))
            return
        with export_styles():
            element = self.mark.element(frames, i)
        self.subplot.update_frame(key, element=element)

    def artists(self) -> list:
        return _artists(self.subplot)


class _Grown(_Layer):
    """A layer of a panel that builds up in time (``Mark`` ``grow``), cut at each frame's time
    from the whole layer (``marks.grown``): a curve's line moved directly, others redrawn by
    HoloViews."""

    def __init__(self, layer, mark, subplot):
        from matplotlib.lines import Line2D

        self.layer, self.mark, self.subplot = layer, mark, subplot
        artist = subplot.handles.get("artist")
        self.line = artist if isinstance(layer, hv.Curve) and type(artist) is Line2D else None

    def show(self, frames, i: int, key) -> None:
        with export_styles():
            element = grown(self.layer, self.mark, self.mark.data(frames, i))
        if self.line is not None:
            self.line.set_data(element.dimension_values(0), element.dimension_values(1))
            return
        self.subplot.update_frame(key, element=element)


class Film:
    """The page's export figure drawn once, whose frames (``draw(i)``: the figure at frame
    ``i`` of the timeline, as RGB pixels) move only the marks. ``run``: the figure of that
    run's panels (``figure(only=...)``) over the run's own timeline."""

    def __init__(self, explorer, indices, dpi: int = ANIMATION_DPI, run: str | None = None,
                 panels: tuple[str, ...] | None = None, columns: int | None = None):
        from holoviews.plotting.mpl import OverlayPlot
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.transforms import Bbox
        import matplotlib

        self.explorer, self.run = explorer, run
        self.frames = explorer.frames(run)
        timeline = explorer.clock.timeline_of(run)
        self.settings = stamp.settings_words(explorer, time=False)
        first = int(indices[0])
        every = explorer.panels() if run is None else explorer.jobs[run].run.plots
        if panels is None:
            panels, only = every, (None if run is None else tuple(p.method for p in every))
        else:
            by_name = {p.method: p for p in every}
            panels, only = [by_name[name] for name in panels], tuple(panels)
        with _AtTime(explorer, int(self.frames.t[first]), run):
            layout = explorer.figure(only, columns)
            self.plot = matplotlib_plot(layout)
            # the panels' layers that build up in time, whole (cut again at every frame)
            uncut = {p.method: explorer.clock.uncut(p.method, run) for p in panels}
        self.key = tuple(self.plot.keys[0]) if self.plot.keys else ()
        fig = self.figure = self.plot.state
        FigureCanvasAgg(fig)
        fit_colorbars(fig)  # as export_figure fits and places them
        place_legends(fig)
        fig.set_dpi(dpi)
        # the box of the saved figure (``savefig(bbox_inches="tight")``), wide enough for the
        # title of every frame (its numbers grow wider)
        self.title = put_title(fig, self._title(first))
        self.title_width = title_width(fig)  # every frame's title wraps as the export's
        fig.draw_without_rendering()
        renderer = fig.canvas.get_renderer()
        boxes = [fig.get_tightbbox(renderer)]
        inches = fig.dpi_scale_trans.inverted()
        titles = [self.title.get_window_extent(renderer).transformed(inches)]
        for i in sorted({int(np.max(indices)), int(indices[-1])}):
            set_title(self.title, self._title(i), self.title_width)
            titles.append(self.title.get_window_extent(renderer).transformed(inches))
        pad = matplotlib.rcParams["savefig.pad_inches"]
        box = Bbox.union(boxes + titles).padded(pad)
        tight_canvas(fig, box)
        # where the title paints, on that canvas (pixels, widened for antialiasing)
        title = Bbox.union(titles).translated(-box.x0, -box.y0).transformed(fig.dpi_scale_trans)
        self.title_rect = self._rect(title.padded(2))
        # the marks, the last layers of their panel's overlay (``Clock.with_marks``)
        overlays = {id(p.hmap.last): p for p in self.plot.traverse(lambda p: p, [OverlayPlot])}
        self.layers, self.axes = [], []
        for panel, item in zip(panels, layout):
            marks = [m for m in timeline.marks if m.plot == panel.method and m.kind != "grow"]
            growing = uncut[panel.method]
            if not (marks or growing) or id(item) not in overlays:
                continue
            overlay = overlays[id(item)]
            subplots = list(overlay.subplots.values())
            self.layers.extend(_Grown(layer, mark, subplots[k])
                               for k, (layer, mark) in sorted(growing.items()))
            if marks:
                self.layers.extend(_Layer(m, s) for m, s in zip(marks, subplots[-len(marks):]))
            self.axes.append(overlay.handles["axis"])
        self._backgrounds()

    def _title(self, i: int) -> str:
        return frame_title(self.explorer, i, self.settings, self.run)

    def _marks(self) -> list:
        return [a for layer in self.layers for a in layer.artists()]

    def _backgrounds(self) -> None:
        """Draw the figure without the marks and the title twice: with what is drawn over a
        mark (``back``), and without it (``bare``), whose pixels a frame takes back where a
        mark reaches under it. (``bare`` with those artists drawn over it, instead of a second
        whole drawing, differed from the export over much of the figure: an axes does part
        of its layout, its titles' places among them, as it draws.)"""
        fig = self.figure
        marks = self._marks()
        ids = {id(a) for a in marks}
        self.above = []  # what an axes draws after its first mark, not a mark
        for ax in self.axes:
            order = _draw_order(ax)
            first = min((k for k, a in enumerate(order) if id(a) in ids), default=len(order))
            self.above.extend(a for a in order[first:] if id(a) not in ids)
        for artist in marks + self.above + [self.title]:
            artist.set_visible(False)
        fig.canvas.draw()
        self.bare = fig.canvas.copy_from_bbox(fig.bbox)
        bare = np.asarray(fig.canvas.buffer_rgba()).copy()
        for artist in self.above:
            artist.set_visible(True)
        fig.canvas.draw()
        self.back = fig.canvas.copy_from_bbox(fig.bbox)
        # where each is drawn: the pixels it changes drawn alone (an axis's box leaves out its
        # tick marks) and the box it says (a white box on white changes no pixel; asked once
        # drawn: an axis lays out its ticks in a draw)
        renderer = fig.canvas.get_renderer()
        boxes = [_union(_box(a, renderer, 2), self._painted(a, bare, renderer))
                 for a in self.above]
        everywhere = self._rect(fig.bbox)
        self.above_rects = np.array([everywhere if b is None else self._rect(b) for b in boxes],
                                    dtype=int).reshape(-1, 4)
        fig.canvas.restore_region(self.back)
        for artist in marks + [self.title]:
            artist.set_visible(True)

    def _painted(self, artist, bare: np.ndarray, renderer):
        """The display box of the pixels ``artist`` changes drawn alone on ``bare``, padded
        by 2 pixels; None if it changes none."""
        from matplotlib.transforms import Bbox

        self.figure.canvas.restore_region(self.bare)
        artist.draw(renderer)
        changed = np.any(np.asarray(self.figure.canvas.buffer_rgba()) != bare, axis=2)
        rows, cols = np.nonzero(changed)
        if len(rows) == 0:
            return None
        # row r (from the top) spans display y from height - r - 1 to height - r
        height = renderer.height
        return Bbox([[cols.min() - 2, height - rows.max() - 3],
                     [cols.max() + 3, height - rows.min() + 2]])

    def _rect(self, box) -> tuple[int, int, int, int]:
        """The pixels of display box ``box`` on the canvas: columns x0:x1, rows y0:y1 (from
        the top), outward to whole pixels."""
        width, rows = self.figure.canvas.get_width_height()
        height = self.figure.canvas.get_renderer().height  # display y = height - row
        return (max(0, math.floor(box.x0)), min(width, math.ceil(box.x1)),
                max(0, math.floor(height - box.y1)), min(rows, math.ceil(height - box.y0)))

    def _reach(self, artist, renderer):
        """The pixels a mark may paint now (``_rect``; within its clip box), or None when
        it paints nothing."""
        from matplotlib.collections import PathCollection
        from matplotlib.lines import Line2D
        from matplotlib.transforms import Bbox

        widths = np.atleast_1d(artist.get_linewidth()) if hasattr(artist, "get_linewidth") \
            else np.zeros(1)
        scale = self.figure.dpi / 72
        pad = REACH + (float(np.max(widths)) if widths.size else 0.0) * scale
        clip = artist.get_clip_box() if artist.get_clip_on() else None
        if type(artist) is PathCollection and artist.get_offset_transform() is not None:
            # a scatter's own extent is its axes: its points, as wide as the largest marker
            offsets = np.ma.masked_invalid(np.ma.asarray(artist.get_offsets(), float))
            xy = artist.get_offset_transform().transform(np.ma.compress_rows(offsets))
            sizes = artist.get_sizes()
            pad += (float(np.sqrt(sizes.max())) if len(sizes) else 0.0) * scale
        elif type(artist) is Line2D:  # its points, and its markers
            xy = artist.get_transform().transform(artist.get_xydata())
            xy = xy[np.isfinite(xy).all(axis=1)]
            if artist.get_marker() not in (None, "None", "none", ""):
                pad += artist.get_markersize() * scale
        else:
            box = _box(artist, renderer, pad)
            xy = None
        if xy is not None:
            if len(xy) == 0:
                return None
            box = Bbox([xy.min(axis=0), xy.max(axis=0)]).padded(pad)
        if box is None:
            box = clip.padded(1.5) if clip is not None else self.figure.bbox
        elif clip is not None:
            # Agg clips to the clip box's edges rounded to whole pixels, the last included
            box = Bbox.intersection(box, clip.padded(1.5))
            if box is None:
                return None
        return self._rect(box)

    def _overlaps(self, marks, renderer) -> list[tuple[int, int, int, int]]:
        """Where a mark and something drawn after it (``above``) may both paint: pixel
        rectangles (``_rect``), disjoint."""
        above = self.above_rects
        rects = []
        for mark in marks:
            reach = self._reach(mark, renderer)
            if reach is None or not len(above):
                continue
            x0, x1 = np.maximum(above[:, 0], reach[0]), np.minimum(above[:, 1], reach[1])
            y0, y1 = np.maximum(above[:, 2], reach[2]), np.minimum(above[:, 3], reach[3])
            hit = (x1 > x0) & (y1 > y0)
            rects.extend(zip(x0[hit].tolist(), x1[hit].tolist(), y0[hit].tolist(),
                             y1[hit].tolist()))
        merged = True
        while merged:  # overlapping rectangles into one
            merged = False
            for a in range(len(rects)):
                for b in range(a + 1, len(rects)):
                    p, q = rects[a], rects[b]
                    if _meet(p, q):
                        rects[a] = (min(p[0], q[0]), max(p[1], q[1]), min(p[2], q[2]),
                                    max(p[3], q[3]))
                        del rects[b]
                        merged = True
                        break
                if merged:
                    break
        return rects

    def _draw(self, ids: set, renderer) -> None:
        """The artists ``ids`` of the marks' axes, in the order their axes draw them."""
        for ax in self.axes:
            for artist in _draw_order(ax):
                if id(artist) in ids:
                    artist.draw(renderer)

    def draw(self, i: int) -> np.ndarray:
        """Frame ``i`` of the timeline as RGB pixels (height, width, 3).

        The marks are drawn over ``back``. Where a mark and something drawn after it
        (``above``: a legend, the axes' frame) may both paint (``_overlaps``), the pixels come
        from a second drawing: ``bare`` there, then the marks and what of ``above`` reaches
        there, in the figure's order."""
        for layer in self.layers:
            layer.show(self.frames, i, self.key)
        set_title(self.title, self._title(i), self.title_width)
        canvas = self.figure.canvas
        renderer = canvas.get_renderer()
        marks = self._marks()
        ids = {id(a) for a in marks}
        patches = []
        rects = self._overlaps(marks, renderer)
        if rects:
            canvas.restore_region(self.back)
            for x0, x1, y0, y1 in rects:
                canvas.restore_region(self.bare, bbox=(x0, y0, x1, y1), xy=(0, 0))
            over = {id(a) for a, rect in zip(self.above, self.above_rects)
                    if any(_meet(rect, r) for r in rects)}
            self._draw(ids | over, renderer)
            if any(_meet(self.title_rect, r) for r in rects):
                self.title.draw(renderer)
            pixels = np.asarray(canvas.buffer_rgba())
            patches = [(r, pixels[r[2]:r[3], r[0]:r[1], :3].copy()) for r in rects]
        canvas.restore_region(self.back)
        self._draw(ids, renderer)
        self.title.draw(renderer)
        frame = np.asarray(canvas.buffer_rgba())[..., :3].copy()
        for (x0, x1, y0, y1), patch in patches:
            frame[y0:y1, x0:x1] = patch
        return frame

    def close(self) -> None:
        import matplotlib.pyplot as plt

        plt.close(self.figure)
        forget_colorbars(self.figure)
