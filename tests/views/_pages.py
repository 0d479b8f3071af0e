"""Helpers for the generic page tests: random valid knob moves, and what a live page shows.

``snapshot`` reads what the browser would draw from the Bokeh models of a page's panels (the
models the server keeps in sync with the browser): every renderer's data, axis labels and ranges,
titles, colour bar titles and table columns. Two pages that snapshot alike look alike.
"""

from __future__ import annotations

import math
import re

import numpy as np
import param
from bokeh.document import Document
from bokeh.models import Axis, ColorBar, DataTable, GlyphRenderer, Legend, Plot, Range1d

from views.framework.page import Page


def random_value(explorer, name: str, rng: np.random.Generator):
    """A random valid value of knob ``name`` under the explorer's current bounds.

    Size knobs whose range reaches far beyond their default (steps, resolution, burn-in) are
    drawn up to twice the default, log-uniformly, so that a walk stays quick."""
    p = explorer.knob_param(name)
    if isinstance(p, param.Boolean):
        return bool(rng.integers(2))
    if isinstance(p, param.ListSelector):
        return [o for o in p.objects if rng.random() < 0.6]
    if isinstance(p, param.Selector):
        objects = list(p.objects.values()) if isinstance(p.objects, dict) else list(p.objects)
        return objects[rng.integers(len(objects))]
    if isinstance(p, param.Range):
        lo, hi = p.bounds
        step = p.step or (hi - lo) / 100
        a, b = sorted(rng.uniform(lo, hi, 2))
        if b - a < step:
            a, b = (a, a + step) if a + step <= hi else (b - step, b)
        return (a, b)
    if isinstance(p, param.Integer):
        lo, hi = p.bounds
        default = p.default
        if default and hi > 20 * default and lo > 0:
            hi = max(lo, 2 * default)
            value = int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))
        else:
            value = int(rng.integers(lo, hi + 1))
        step = p.step or 1
        return int(min(hi, max(lo, lo + round((value - lo) / step) * step)))
    if isinstance(p, param.Number):
        lo, hi = p.bounds
        return float(rng.uniform(lo, hi))
    if isinstance(p, param.String):
        candidates = [p.default, "1", "-0.5", "0.3"]
        valid = []
        for c in candidates:
            try:
                explorer.validate(name, c)
                valid.append(c)
            except ValueError:
                pass
        return valid[rng.integers(len(valid))]
    raise AssertionError(f"no random value for knob {name} of type {type(p).__name__}")


def render(page) -> list:
    """The Bokeh model of each live panel of a page (a ``Page``, or a model: its new page),
    kept in sync as knobs move."""
    page = page if isinstance(page, Page) else Page(page)
    panes = page.page_parts()["panes"]
    return [pane.get_root(Document()) for pane in panes]


def _range(r):
    if hasattr(r, "factors"):
        return ("factors", tuple(r.factors))
    return (type(r).__name__ if isinstance(r, Range1d) else "range", r.start, r.end)


def _looks(glyph) -> dict:
    """A glyph's visual properties (colours, dashes, sizes, alphas), as set on it."""
    out = {}
    for name, value in glyph.properties_with_values(include_defaults=False).items():
        # hatch_* is not drawn without a hatch pattern (HoloViews sets it either way)
        if name.startswith("hatch"):
            continue
        if any(word in name for word in ("color", "dash", "width", "alpha", "size", "marker")):
            out[name] = re.sub(r"id='p\d+'", "id", repr(value))  # model ids differ
    return out


def snapshot(model) -> dict:
    """What a panel's Bokeh model draws, as comparable values."""
    if not isinstance(model, Plot) and isinstance(getattr(model, "text", None), str):
        return {"text": model.text}  # an HTML pane (the live page's tables)
    if isinstance(model, DataTable):
        return {"columns": [c.title for c in model.columns],
                "data": {k: list(v) for k, v in model.source.data.items()},
                "index": model.index_position}
    # Bokeh's select() walks a set: read the ordered lists of the figure instead.
    plots = [model] if isinstance(model, Plot) else list(model.select({"type": Plot}))
    out = []
    for fig in plots:
        layouts = [*fig.above, *fig.below, *fig.left, *fig.right, *fig.center]
        renderers = [(type(r.glyph).__name__, dict(r.data_source.data), _looks(r.glyph))
                     for r in fig.renderers if isinstance(r, GlyphRenderer) and r.visible]
        out.append({
            "title": fig.title.text if fig.title is not None else None,
            "axes": [a.axis_label for a in layouts if isinstance(a, Axis)],
            "colorbars": [c.title for c in layouts if isinstance(c, ColorBar)],
            "legend": [[getattr(item.label, "value", item.label) for item in leg.items]
                       for leg in layouts if isinstance(leg, Legend)],
            "x_range": _range(fig.x_range),
            "y_range": _range(fig.y_range),
            "renderers": renderers,
        })
    return {"plots": out}


def _same(a, b, path: str, differences: list) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) ^ set(b) == {"color"} and path.endswith("]"):
            # HoloViews adds a mapped copy of a colour column ("color") to a renderer's data
            # only in some update paths; the glyph's colours are compared in its looks.
            a = {k: v for k, v in a.items() if k != "color"}
            b = {k: v for k, v in b.items() if k != "color"}
        if set(a) != set(b):
            differences.append(f"{path}: keys {sorted(a)} != {sorted(b)}")
            return
        for k in a:
            _same(a[k], b[k], f"{path}.{k}", differences)
        return
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and not (
            _numeric(a) and _numeric(b)):
        if len(a) != len(b):
            differences.append(f"{path}: {len(a)} items != {len(b)}")
            return
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{path}[{i}]", differences)
        return
    if _numeric(a) or _numeric(b):
        x, y = _array(a), _array(b)
        if x is None or y is None or x.shape != y.shape:
            differences.append(f"{path}: shapes {getattr(x, 'shape', a)} != "
                               f"{getattr(y, 'shape', b)}")
            return
        if x.dtype.kind in "fiub" and y.dtype.kind in "fiub":
            if not np.allclose(x.astype(float), y.astype(float), rtol=1e-9, atol=1e-12,
                               equal_nan=True):
                differences.append(f"{path}: values differ (max |diff| "
                                   f"{np.nanmax(np.abs(x.astype(float) - y.astype(float)))})")
        elif not np.array_equal(x, y):
            differences.append(f"{path}: {x[:5]} != {y[:5]}")
        return
    if a != b:
        differences.append(f"{path}: {a!r} != {b!r}")


def _numeric(v) -> bool:
    if isinstance(v, np.ndarray):
        return True
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return True
    if isinstance(v, (list, tuple)) and v and all(
            isinstance(x, (int, float, np.number)) and not isinstance(x, bool) for x in v):
        return True
    return False


def _array(v):
    try:
        arr = np.asarray(v)
    except Exception:  # noqa: BLE001
        return None
    return arr if arr.dtype != object else None


def differences(live: list, fresh: list) -> list[str]:
    """Every difference between two pages' snapshots (empty: they draw the same)."""
    out: list[str] = []
    if len(live) != len(fresh):
        return [f"{len(live)} panels != {len(fresh)}"]
    for i, (a, b) in enumerate(zip(live, fresh)):
        _same(snapshot(a), snapshot(b), f"panel {i}", out)
    return out
