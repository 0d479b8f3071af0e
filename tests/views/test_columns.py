"""The direct data path (``views.framework.columns``): a knob move writes the new frame's
columns into the Bokeh models drawn, and falls back to HoloViews, counted, only when the
frame's structure changed.

Every page, from its default settings (the size knobs small, as the live == fresh walks take
them), moves each knob one step: the move must be written without a fallback, except the
moves listed in ``STRUCTURAL`` whose figure changes its structure, and those must fall back
for exactly the reason listed. What is written equals what a fresh page draws (the
comparison of ``test_live_equals_fresh``, here after each move).
"""

from __future__ import annotations

import numpy as np
import param
import pytest
from bokeh.document import Document
from bokeh.models import ColumnDataSource

from views import EXPLORERS
from views.framework import columns
from views.framework.page import Page

from ._pages import differences, render
from ._url_fuzz import size_knobs

#: The one-step moves from the defaults whose figure changes its structure, and the reason
#: each is drawn by HoloViews.
STRUCTURAL = {
    # another feature adds a curve per weight, and the colours of the orbit's segments
    ("bifurcation", "n_features"): {"layers added or removed", "a style mapped differently"},
    # one colour per state: the palette of the states' colour map grows
    ("herding", "n_states"): {"style options changed: cmap"},
    # FrozenLake's policy panel is a heat map where the risky chain's is an overlay: the
    # panel is drawn anew (HoloViews' own update refused the new kind)
    ("sbeed", "mdp_name"): {"the panel's kind changed"},
}


def _step(model, name):
    """The value one step from the knob's current one (None: no single step, e.g. a range)."""
    p = model.knob_param(name)
    value = getattr(model, name)
    if isinstance(p, param.Boolean):
        return not value
    if isinstance(p, (param.ListSelector, param.Range)):
        return None
    if isinstance(p, param.Selector):
        objects = list(p.objects.values()) if isinstance(p.objects, dict) else list(p.objects)
        return objects[(objects.index(value) + 1) % len(objects)] if len(objects) > 1 else None
    if isinstance(p, param.Number):
        lo, hi = model.knob_bounds().get(name, p.bounds)[:2]
        step = p.step or (1 if isinstance(p, param.Integer) else (hi - lo) / 50)
        if value + step <= hi:
            new = value + step
        elif value - step >= lo:
            new = value - step
        else:
            return None
        return int(new) if isinstance(p, param.Integer) else round(float(new), 10)
    return None


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_a_one_step_move_from_the_defaults_writes_columns(slug):
    cls = EXPLORERS[slug]
    model = cls(**{k: int(v) for k, v in size_knobs(cls).items()})
    page = Page(model)
    models = render(page)
    written = 0
    for name in model.knob_names():
        new = _step(model, name)
        if new is None:
            continue
        old = getattr(model, name)
        before, writes = dict(page.columns.fallbacks), page.columns.writes
        setattr(model, name, new)
        assert model.error == "", f"{slug}: {name}={new!r} failed: {model.error}"
        reasons = {k for k, v in page.columns.fallbacks.items() if v > before.get(k, 0)}
        expected = STRUCTURAL.get((slug, name), set())
        assert reasons <= expected, (f"{slug}: moving {name} {old!r} -> {new!r} fell back to "
                                     f"HoloViews: {sorted(reasons - expected)}")
        if expected:
            assert reasons, f"{slug}: {name} was expected to change the figure's structure"
        written += page.columns.writes - writes
        found = differences(models, render(cls(**{k: getattr(model, k)
                                                   for k in model.knob_names()})))
        assert found == [], (f"{slug}: after {name} {old!r} -> {new!r} the live page differs "
                             "from a fresh one:\n" + "\n".join(found[:10]))
        setattr(model, name, old)
    assert written > 0, f"{slug}: no move was written through the direct path"


def test_a_structural_move_falls_back_and_is_counted():
    model = EXPLORERS["bifurcation"](**{k: int(v) for k, v in
                                        size_knobs(EXPLORERS["bifurcation"]).items()})
    page = Page(model)
    models = render(page)
    model.n_features += 1
    assert page.columns.fallbacks["layers added or removed"] >= 1
    found = differences(models, render(EXPLORERS["bifurcation"](
        **{k: getattr(model, k) for k in model.knob_names()})))
    assert found == []


def _source(data):
    source = ColumnDataSource(data=data)
    Document().add_root(source)
    return source


def test_unchanged_columns_are_not_sent():
    source = _source({"x": np.arange(5.0), "y": np.ones(5)})
    assert columns._send(source, {"x": np.arange(5.0), "y": np.ones(5)}) == "same"


def test_grown_columns_are_streamed_and_few_changed_rows_patched():
    source = _source({"x": np.arange(5.0), "y": np.ones(5)})
    grown = {"x": np.arange(8.0), "y": np.ones(8)}
    assert columns._send(source, grown) == "stream"
    assert np.array_equal(source.data["x"], grown["x"])
    assert np.array_equal(source.data["y"], grown["y"])
    patched = {"x": np.arange(8.0), "y": np.ones(8)}
    patched["y"][3] = 7.0
    assert columns._send(source, patched) == "patch"
    assert np.array_equal(np.asarray(source.data["y"]), patched["y"])
    whole = {"x": np.arange(8.0) * 2, "y": np.zeros(8)}
    assert columns._send(source, whole) == "whole"
    assert np.array_equal(source.data["x"], whole["x"])


def test_new_column_sets_and_ragged_columns_are_sent_whole():
    source = _source({"xs": [np.arange(3.0), np.arange(2.0)]})
    new = {"xs": [np.arange(3.0), np.arange(4.0)]}
    assert columns._send(source, new) == "whole"
    assert columns._send(source, {"xs": [np.arange(3.0), np.arange(4.0)]}) == "same"
    assert columns._send(source, {"a": np.arange(2)}) == "whole"


def test_an_export_after_written_moves_equals_a_fresh_pages(tmp_path):
    import matplotlib.image as mpimg

    cls = EXPLORERS["torus"]
    model = cls()
    page = Page(model)
    render(page)
    model.seed = model.seed + 1
    model.seed = model.seed + 1
    assert page.columns.writes > 0 and not page.columns.fallbacks
    live = mpimg.imread(model.export(tmp_path / "live.png"))
    fresh = mpimg.imread(cls(seed=model.seed).export(tmp_path / "fresh.png"))
    assert live.shape == fresh.shape and np.array_equal(live, fresh)


def test_panels_sharing_a_cloud_keep_their_own_layers_over_many_moves():
    """Herding's cones and Tipi panels share one raster of the cloud: each keeps the hook
    naming its own source (the browser's build-up finds each panel's layer by it), so moves
    back and forth never fall back (a shared raster once carried the other panel's hook)."""
    model = EXPLORERS["herding"](steps=2_000)
    page = Page(model)
    render(page)
    for seed in (2, 3, 2, 3, 1, 2):
        model.seed = seed
    assert not page.columns.fallbacks, dict(page.columns.fallbacks)
