"""A move writes columns, not plots: the direct data path of a live page.

HoloViews redraws a live panel by ``update_frame``: it looks up every option of every layer,
re-applies every plot, axis and glyph property, recomputes hover tools and runs the hooks,
and then writes the data. A knob move that changes the data and nothing else pays all of it
(a herding move: about two thirds of the server's time of a draw, the rest building the
elements). Here, once a panel is drawn, a move whose new frame has the structure of the one
drawn (``structure``: the same layers, kinds, dimensions and options, and rasters of the
same shape) is written straight into the Bokeh models HoloViews made: each layer's columns,
as HoloViews' own ``get_data`` and style transforms compute them, assigned whole to its
source (``.data``; a layer whose columns did not change is not sent, a layer that only grew
is streamed, one with few rows changed is patched), its colour mapper's bounds and the
panel's ranges as HoloViews computes them. Anything else (a layer added or removed, an option,
a label or a legend changed, a raster's shape changed) is drawn by HoloViews as before, and
the reason is counted (``Columns.fallbacks``).

What is written equals what HoloViews' own update would write: the generic live == fresh
tests compare the models a page holds after moves with a fresh page's. The HoloViews plot's
record of its current frame is updated too, so a later update through HoloViews (a zoom, a
fallback) starts from the frame shown.
"""

from __future__ import annotations

from collections import Counter

import holoviews as hv
import numpy as np
from holoviews.core import util

__all__ = ["Columns", "structure", "WRITTEN_OPTIONS"]

#: Plot options a move may change without a redraw: the panel's ranges (``xlim``, ``ylim``),
#: a colour mapper's bounds (``clim``), the axes' ticks (``xticks``, ``yticks``) and the
#: legend's texts (``legend_labels``).
WRITTEN_OPTIONS = frozenset({"xlim", "ylim", "clim", "xticks", "yticks", "legend_labels"})

#: A changed layer is patched, not sent whole, when at most this share of its rows changed.
PATCH_SHARE = 0.25


def _layers(element) -> list:
    """The (key, layer) pairs of an overlay, or [(None, element)]."""
    if isinstance(element, hv.Overlay):
        return list(element.data.items())
    return [(None, element)]


def _options(element, group: str) -> tuple:
    kwargs = hv.Store.lookup_options("bokeh", element, group).kwargs
    return tuple(sorted((k, repr(v)) for k, v in kwargs.items() if k not in WRITTEN_OPTIONS))


def _dimensions(element) -> tuple:
    return tuple((d.name, repr(d.value_format)) for d in element.dimensions())


def _texts(element) -> tuple:
    """What a move may rename without a redraw: the dimensions' labels (axis labels, colour
    bar titles, hover tooltips), the legend's texts and the axes' ticks."""
    labels = tuple(tuple(d.pprint_label for d in layer.dimensions())
                   for _, layer in _layers(element))
    options = [hv.Store.lookup_options("bokeh", element, "plot").kwargs] + (
        [hv.Store.lookup_options("bokeh", layer, "plot").kwargs for _, layer in _layers(element)]
        if isinstance(element, hv.Overlay) else [])
    ticks = tuple(repr((o.get("xticks"), o.get("yticks"))) for o in options)
    return labels, repr(options[0].get("legend_labels")), ticks


def structure(element) -> tuple:
    """What HoloViews drew a frame's panel from, apart from its data and ranges: the layers,
    in order, with their kinds, names, dimensions (their names: labels are written, see
    ``_texts``), plot, style and normalisation options. Two frames of the same structure draw into the same Bokeh models.

    A raster's shape is data: Bokeh's Image glyph reads each image's shape from its array,
    and HoloViews' own update writes a raster of a new shape the same way (a herding move
    rasterizes its clouds over the new result's share of the window: a new shape at every
    seed)."""
    out = [(type(element).__name__, _options(element, "plot"))] if isinstance(
        element, hv.Overlay) else []
    for key, layer in _layers(element):
        out.append((key, type(layer).__name__, layer.group, layer.label, _dimensions(layer),
                    _options(layer, "plot"), _options(layer, "style"),
                    _options(layer, "norm")))
    return tuple(out)


#: What each part of a layer's ``structure`` is, for the reason a frame is not written.
_PARTS = ("layer key", "kind", "group", "label", "dimensions", "plot options",
          "style options", "normalisation")


def _difference(drawn: tuple, new: tuple) -> str:
    """Why two structures differ, in words (a fallback's reason)."""
    if len(drawn) != len(new):
        return "layers added or removed"
    for a, b in zip(drawn, new):
        if a == b:
            continue
        if len(a) == 2:  # the overlay's own options
            keys = sorted({k for k, _ in set(a[1]) ^ set(b[1])})
            return f"overlay plot options changed: {', '.join(keys)}"
        for part, x, y in zip(_PARTS, a, b):
            if x != y:
                if part in ("plot options", "style options", "normalisation"):
                    keys = sorted({k for k, _ in set(x) ^ set(y)})
                    return f"{part} changed: {', '.join(keys)}"
                return f"{part} changed"
    return "structure changed"


def _same(a, b) -> bool:
    """Two columns hold the same values (lists of arrays compared item by item)."""
    if isinstance(a, (list, tuple)) or isinstance(b, (list, tuple)):
        return (isinstance(a, (list, tuple, np.ndarray)) and
                isinstance(b, (list, tuple, np.ndarray)) and len(a) == len(b) and
                all(_same(x, y) for x, y in zip(a, b)))
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype.kind != b.dtype.kind:
        return False
    if a.dtype.kind == "O":
        try:
            return all(_same(x, y) for x, y in zip(a.ravel(), b.ravel()))
        except TypeError:
            return False
    return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))


def _send(source, data: dict) -> str:
    """Write a layer's columns into its source, sending the least: nothing when no column
    changed, the new rows when every column only grew (``stream``), the changed rows when few
    changed (``patch``), else the columns whole (always, for a source the browser's timeline
    reads). Returns which."""
    old = source.data
    # a named source is read by the browser's timeline (its marks and build-up), which
    # follows whole assignments of its data only
    incremental = not getattr(source, "name", None)
    if set(old) == set(data):
        if all(_same(old[k], data[k]) for k in data):
            return "same"
        lengths = {len(v) for v in data.values()}
        olds = {len(v) for v in old.values()}
        flat = all(isinstance(v, np.ndarray) and v.ndim == 1 and v.dtype.kind in "fiub"
                   for v in (*data.values(), *old.values()))
        if incremental and flat and len(lengths) == 1 and len(olds) == 1:
            n, m = lengths.pop(), olds.pop()
            if n > m > 0 and all(_same(np.asarray(data[k])[:m], old[k]) for k in data):
                source.stream({k: np.asarray(v)[m:] for k, v in data.items()})
                return "stream"
            if n == m > 0:
                changed = np.zeros(n, dtype=bool)
                for k in data:
                    a, b = np.asarray(data[k]), np.asarray(old[k])
                    if a.dtype.kind != b.dtype.kind:
                        changed[:] = True
                        break
                    changed |= ~((a == b) | (a.dtype.kind in "fc" and
                                             np.isnan(a) & np.isnan(b)))
                rows = np.flatnonzero(changed)
                if 0 < len(rows) <= PATCH_SHARE * n:
                    source.patch({k: [(int(i), np.asarray(data[k])[i].item()) for i in rows]
                                  for k in data})
                    return "patch"
    source.data = dict(data)
    return "whole"


def _kind(transform) -> str | None:
    return None if transform is None or not hasattr(transform, "palette") else \
        type(transform).__name__


def _mapped_like_drawn(plot, mapping: dict, style: dict) -> str | None:
    """None when every glyph property that a frame's ``mapping`` and ``style`` (after
    HoloViews' transforms) set is drawn as the glyph draws it now: from the same column
    through a colour mapper of the same kind, or as one value where it is one value; else
    why not. HoloViews maps a dimension to a column only while it takes several values (a
    colour column of one value becomes that colour), and sets the glyph's properties only in
    its full update."""
    glyph = plot.handles.get("glyph")
    if glyph is None:
        return None
    names = glyph.properties()
    settings = []
    for name, value in (*style.items(), *mapping.items()):
        if name in names:
            settings.append((name, value))
        elif name in ("color", "alpha"):  # HoloViews sets it as the line's and the fill's
            settings.extend((f"{part}_{name}", value) for part in ("line", "fill")
                            if f"{part}_{name}" in names and f"{part}_{name}" not in style)
    for name, value in settings:
        drawn = getattr(glyph, name, None)
        field = getattr(drawn, "field", None) if type(drawn).__name__ == "Field" else None
        if isinstance(value, dict) and isinstance(value.get("field"), str):
            if field != value["field"] or _kind(getattr(drawn, "transform", None)) != _kind(
                    value.get("transform")):
                return "a style mapped differently"
        elif isinstance(value, str) and name in mapping and mapping[name] is value:
            if field is not None and field != value:
                return "a style mapped differently"
        elif field is not None:
            return "a style mapped differently"
    return None


def _legend_map(element) -> dict:
    """Each layer's legend text by its label (the page's ``legend_labels``, else the label)."""
    names = hv.Store.lookup_options("bokeh", element, "plot").kwargs.get("legend_labels") or {}
    return {layer.label: names.get(layer.label, layer.label) for _, layer in _layers(element)
            if layer.label}


def _legend_items(plot, drawn, element):
    """The legend items of ``plot`` with their new texts ([(item, text)]), or None when the
    legend cannot be renamed in place (its entries would merge or split)."""
    legends = getattr(plot.state, "legend", [])
    if not legends:
        return []
    old, new = _legend_map(drawn), _legend_map(element)
    if set(old) != set(new) or len(set(old.values())) != len(old) or \
            len(set(new.values())) != len(new):
        return None
    text = {v: new[k] for k, v in old.items()}
    out = []
    for legend in legends:
        for item in legend.items:
            label = getattr(item.label, "value", item.label)
            if label not in text:
                return None
            out.append((item, text[label]))
    return out


def _write_texts(plot, element, drawn) -> None:
    """The texts of a frame whose labels changed: axis labels and ticks (HoloViews' own
    update of the axes),
    each layer's colour bar title and hover tooltips, and the legend's entries."""
    from bokeh.core.property.vectorization import value

    from views.framework.workarounds import COLORBAR_TITLE

    plot._update_labels(plot.current_key, plot.handles["plot"], element)
    subplots = plot.subplots if isinstance(element, hv.Overlay) else {None: plot}
    for k, layer in _layers(element):
        sub = subplots[k]
        if "hover" in sub.handles:
            sub._update_hover(layer)
        if any(key.endswith("colorbar") for key in sub.handles):
            COLORBAR_TITLE(sub, layer)
    for item, text in _legend_items(plot, drawn, element) or []:
        if getattr(item.label, "value", item.label) != text:
            item.label = value(text)


def _glyph_values(plot, mapping: dict) -> None:
    """The glyph properties HoloViews maps to values rather than columns (an annotation's
    location): set where they changed."""
    glyph = plot.handles.get("glyph")
    if glyph is None:
        return
    for name, value in mapping.items():
        if isinstance(value, (str, dict)) or name not in glyph.properties():
            continue
        if getattr(glyph, name) != value:
            setattr(glyph, name, value)


class Columns:
    """The direct path of one live page: ``check(plot, element)`` says whether a new frame of a
    panel has the structure ``plot`` (the HoloViews plot that drew the panel) drew, and if not
    why (counted in ``fallbacks``, reason -> panels); ``write(plot, element)`` then draws it
    into the plot's Bokeh models. ``writes`` counts the panels written,
    ``sent`` the layers by how they were sent (whole, stream, patch, same)."""

    def __init__(self):
        self.fallbacks: Counter = Counter()
        self.writes = 0
        self.sent: Counter = Counter()
        #: The structure each HoloViews plot last drew, by the plot's id.
        self._drawn: dict = {}

    def _drawn_structure(self, plot):
        """The structure of the frame ``plot`` shows (memoized by frame)."""
        memo = self._drawn.get(id(plot))
        frame = plot.current_frame
        if memo is not None and memo[0] is frame:
            return memo[1]
        drawn = None if frame is None else structure(frame)
        self._drawn[id(plot)] = (frame, drawn)
        return drawn

    def draw(self, plot, element) -> str | None:
        """Write ``element`` (a panel's new frame) into ``plot``; None when written, else why
        not, counted in ``fallbacks`` (nothing written: the caller draws it through
        HoloViews)."""
        reason, new = self._reason(plot, element)
        if reason is None:
            drawn = plot.current_frame
            renamed = _texts(drawn) != _texts(element)
            if renamed and _legend_items(plot, drawn, element) is None:
                reason = "the legend's entries changed"
        if reason is None:
            layers = self._prepare(plot, element)
            reason = next((r for r in (_mapped_like_drawn(sub, mapping, style)
                                       for sub, _, _, _, mapping, style in layers)
                           if r is not None), None)
            if reason is None:
                self._commit(plot, element, layers, drawn if renamed else None)
                self.writes += 1
                self._drawn[id(plot)] = (element, new)
        if reason is not None:
            self.fallbacks[reason] += 1
        return reason

    def _reason(self, plot, element) -> tuple:
        """Why ``element`` cannot be written into ``plot`` (None: it can), and its structure
        (None when not computed)."""
        if plot is None:
            return "not drawn yet", None
        if isinstance(plot, hv.plotting.bokeh.element.OverlayPlot):
            if not isinstance(element, hv.Overlay):
                return "an overlay became one layer", None
            if list(plot.subplots) != list(element.data):
                return "layers added or removed", None
        elif not isinstance(plot, hv.plotting.bokeh.element.ElementPlot) or isinstance(
                element, hv.Overlay):
            return "not one element or overlay", None
        if getattr(plot, "batched", False) or any(
                getattr(sp, "batched", False) for sp in (plot.subplots or {}).values()):
            return "batched layers", None
        drawn = self._drawn_structure(plot)
        if drawn is None:
            return "not drawn yet", None
        new = structure(element)
        return (None if new == drawn else _difference(drawn, new)), new

    def _prepare(self, plot, element) -> list:
        """What HoloViews' ``update_frame`` of an overlay or element computes for a frame of
        the same structure: the ranges, then each layer's columns and style (its colour
        mappers' bounds set on the way); nothing is sent yet."""
        key = plot.current_key
        subplots = plot.subplots if isinstance(element, hv.Overlay) else {None: plot}
        # the frame shown from here on (HoloViews' ranges and extents read it); a fallback's
        # update replaces it again
        plot.prev_frame, plot.current_frame = plot.current_frame, element
        ranges = plot.compute_ranges(element, key, None)
        options = dict(plot.lookup_options(element, "plot").options)
        if isinstance(element, hv.Overlay):  # the layers' limits frame the overlay too
            inherited = plot._traverse_options(element, "plot", plot._propagate_options,
                                               defaults=False)
            options.update({k: v[0] for k, v in inherited.items() if k not in options})
        plot._apply_plot_opts(options)
        if not isinstance(element, hv.Overlay):
            ranges = util.match_spec(element, ranges)
        plot.current_ranges = ranges
        out = []
        for k, layer in _layers(element):
            sub = subplots[k]
            if sub is not plot:
                sub.prev_frame, sub.current_frame = sub.current_frame, layer
                # a layer's own limits (``xlim``, ``ylim``) frame the panel
                sub._apply_plot_opts(sub.lookup_options(layer, "plot").options)
            layer_ranges = util.match_spec(layer, ranges)
            style = sub.style[sub.cyclic_index]
            data, mapping, style = sub.get_data(layer, layer_ranges, style)
            style = sub._apply_transforms(layer, data, layer_ranges, style)
            data = sub._postprocess_data(data)  # as HoloViews sends it (strings decoded...)
            out.append((sub, layer, layer_ranges, data, mapping, style))
        return out

    def _commit(self, plot, element, layers, renamed) -> None:
        """Send what ``_prepare`` computed: the panel's ranges, each layer's columns and the
        glyph values, and the texts when they changed (``renamed``: the frame drawn before,
        else None)."""
        plot._update_ranges(element, plot.current_ranges)
        if renamed is not None:
            _write_texts(plot, element, renamed)
        for sub, layer, layer_ranges, data, mapping, _ in layers:
            if sub is not plot:
                sub.ranges.update(plot.current_ranges)
            sub.current_ranges = layer_ranges
            source = sub.handles.get("source")
            if source is not None and data:
                self.sent[_send(source, data)] += 1
            _glyph_values(sub, mapping)
            # the page's hooks, as HoloViews runs them after each update (a layer that builds
            # up in time adds its first-visit column to its source: ``timeline._GrowHook``)
            sub._execute_hooks(layer)
        if isinstance(element, hv.Overlay):
            plot._execute_hooks(element)
