"""Every explorer builds with defaults, responds to a parameter change, keeps the last good
plot on a bad value, and exports a valid PNG (two pages also SVG, PDF and HTML files)."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import holoviews as hv
import numpy as np
import param
import pytest
from PIL import Image
from pypdf import PdfReader

from dynamics.papers import PAPERS
from views import EXPLORERS
from views.framework import EXPORT_FORMATS, parse_vector
from views.framework.page import Page

from ._legends import matplotlib_legend_problems


def test_every_explorer_has_a_change_to_test():
    assert [slug for slug, cls in EXPLORERS.items() if not cls.example_change] == []


def _data(figure) -> list[np.ndarray]:
    """All numeric arrays plotted in a figure, element by element."""
    arrays = []
    for element in figure.traverse(lambda e: e, [hv.Element]):
        for dim in element.dimensions():
            values = element.dimension_values(dim)
            if values.dtype.kind in "fiu":
                arrays.append(np.asarray(values, dtype=float))
    return arrays


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_explorer_builds_with_defaults(slug):
    cls = EXPLORERS[slug]
    explorer = cls()
    assert cls.slug == slug and cls.title and cls.summary and cls.text
    assert cls.paper in PAPERS and cls.figures  # the record every citation comes from
    figure = explorer.figure()
    assert isinstance(figure, hv.Layout)
    assert len(figure) == len(cls.plots) >= 3
    assert explorer.error == ""
    assert Page(explorer).panel() is not None and Page(explorer).controls() is not None


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_parameter_change_changes_plotted_data(slug):
    explorer = EXPLORERS[slug]()
    before = _data(explorer.figure())
    explorer.param.update(**EXPLORERS[slug].example_change)
    after = _data(explorer.figure())
    changed = len(before) != len(after) or any(
        a.shape != b.shape or not np.allclose(a, b, equal_nan=True) for a, b in zip(before, after)
    )
    assert changed


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_every_knob_has_label_doc_and_bounds(slug):
    explorer = EXPLORERS[slug]()
    for name in explorer.setting_names():  # the knobs and the runs' settings
        p = explorer.knob_param(name)
        assert p.label and p.doc, name
        if hasattr(p, "bounds") and p.bounds is not None:
            assert p.bounds[0] is not None and p.bounds[1] is not None, name


#: The pages exported in every format: the format writers (``export_figure``) are the same for
#: every page, so two pages of different kinds (herding: rasterized clouds under overlays;
#: SBEED: heat maps with cell values written by a hook, several rows of panels) check each
#: format; every page is exported as PNG, whose pixels show that its figure draws. (Every page
#: in every format was 52 exports, some 8 minutes of one test worker on a loaded machine.)
EVERY_FORMAT = ("herding", "sbeed")
EXPORTS = [(slug, ".png") for slug in sorted(EXPLORERS)] + [
    (slug, suffix) for slug in EVERY_FORMAT for suffix in EXPORT_FORMATS if suffix != ".png"]


@pytest.mark.parametrize("slug,suffix", EXPORTS)
def test_export_writes_valid_file(slug, suffix, tmp_path, monkeypatch):
    """Each format's file is valid; in the PNG, no legend lies over the data of its plot or
    of another (issue 27: the figure saved is checked, so no render is added)."""
    from matplotlib.figure import Figure

    saved = []
    savefig = Figure.savefig
    monkeypatch.setattr(Figure, "savefig", lambda fig, *a, **k: saved.append(fig) or savefig(
        fig, *a, **k))
    explorer = EXPLORERS[slug]()
    path = explorer.export(tmp_path / f"figure{suffix}")
    assert path.exists() and path.stat().st_size > 1000
    if suffix == ".png":
        image = np.asarray(Image.open(path).convert("L"), dtype=float)
        assert image.shape[0] > 400 and image.shape[1] > 400
        assert image.std() > 10  # not a blank canvas
        assert len(saved) == 1 and matplotlib_legend_problems(saved[0]) == []
    elif suffix == ".svg":
        root = ET.parse(path).getroot()
        assert root.tag.endswith("svg")
    elif suffix == ".pdf":
        reader = PdfReader(path)
        assert len(reader.pages) == 1
    else:
        text = path.read_text()
        assert "<html" in text.lower() and "Bokeh" in text
        # Standalone: every script and stylesheet inline, so the file works offline.
        assert not re.findall(r"<(?:script|link)[^>]+(?:src|href)=\"https?://", text)


def test_export_refuses_unknown_format(tmp_path):
    explorer = EXPLORERS["herding"]()
    with pytest.raises(ValueError, match="must end in one of"):
        explorer.export(tmp_path / "figure.jpg")


def test_bad_typed_value_shows_message_and_keeps_last_good_plot():
    explorer = EXPLORERS["herding"]()
    good = _data(explorer.figure())
    explorer.w0 = "1, banana"
    kept = _data(explorer.figure())
    assert "w0" in explorer.error and "banana" in explorer.error
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(good, kept))
    explorer.w0 = "0.5, -0.5"
    explorer.figure()
    assert explorer.error == ""


def test_parse_vector():
    assert parse_vector("w0", "1.5", 3) == (1.5, 1.5, 1.5)
    assert parse_vector("w0", "1, -2", 2) == (1.0, -2.0)
    with pytest.raises(ValueError, match="needs 1 or 2 numbers"):
        parse_vector("w0", "1, 2, 3", 2)
    with pytest.raises(ValueError, match="finite"):
        parse_vector("w0", "nan", 2)


def _move_to_other_value(explorer, name):
    """Set knob ``name`` to a valid value well away from its current one (the first candidate
    that the explorer computes without an error)."""
    p = explorer.param[name]
    current = getattr(explorer, name)
    if isinstance(p, param.ListSelector):
        candidates = [list(p.objects)[:1]] if current != list(p.objects)[:1] else [[]]
    elif isinstance(p, param.Selector):
        candidates = [o for o in p.objects if o != current]
    else:
        lo, hi = p.bounds
        fractions = (2 / 3, 1 / 3, 1.0, 0.0) if current <= lo + (hi - lo) / 2 else (1 / 3, 0.0)
        candidates = [lo + f * (hi - lo) for f in fractions] + [current + 1, current - 1]
        if isinstance(p, param.Integer):
            candidates = [int(round(c)) for c in candidates]
        candidates = [c for c in candidates if c != current and lo <= c <= hi]
    for value in candidates:
        explorer.param.update(**{name: value})
        explorer.result()
        if explorer.error == "":
            return
    raise AssertionError(f"no valid other value for {name}")


def _texts(figure) -> list[str]:
    """Every label and text drawn in a figure."""
    return [str(e.text) if isinstance(e, hv.Text) else e.label
            for e in figure.traverse(lambda e: e, [hv.Element])]


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_ignored_knobs_leave_their_panels_unchanged(slug):
    """A panel that declares it ignores a knob is not redrawn when that knob moves: what it
    shows must indeed not depend on it."""
    cls = EXPLORERS[slug]
    for plot in cls.plots:
        for name in sorted(plot.ignores):
            explorer = cls()
            assert name in explorer.knob_names()
            before = explorer.element(plot)
            _move_to_other_value(explorer, name)
            after = explorer.element(plot)
            assert explorer.error == ""
            a, b = _data(before), _data(after)
            assert len(a) == len(b) and all(
                x.shape == y.shape and np.allclose(x, y, equal_nan=True) for x, y in zip(a, b)
            ), f"{plot.method} depends on {name}"
            assert _texts(before) == _texts(after), f"{plot.method} labels depend on {name}"


def test_moving_a_display_knob_redraws_only_its_panel():
    """On the live herding page the autocorrelation lags redraw the autocorrelation panel
    alone; the seed redraws every panel."""
    from bokeh.document import Document

    explorer = EXPLORERS["herding"]()
    calls = []
    for plot in explorer.plots:
        method = getattr(explorer, plot.method)
        setattr(explorer, plot.method,
                lambda method=method, name=plot.method, **kw: calls.append(name) or method(**kw))
    Page(explorer).panel().get_root(Document())
    calls.clear()
    explorer.max_lag = 50
    assert calls == ["autocorrelation_plot"]
    calls.clear()
    explorer.seed = 11
    assert sorted(set(calls)) == sorted(p.method for p in explorer.plots)


def test_every_explorer_has_a_redraw_benchmark_and_the_guide_says_how():
    """Registering an explorer asks for a bench entry too (CONTRIBUTING.md, step 3)."""
    import pathlib

    assert [slug for slug, cls in EXPLORERS.items() if len(cls.bench_move) != 2] == []
    for slug, cls in EXPLORERS.items():  # the timeline bench's knobs open the page cleanly
        if cls.bench_timeline:
            assert cls.timeline is not None, f"{slug}: bench_timeline without a timeline"
            opened, messages = cls.from_query({k: [str(v).encode()]
                                               for k, v in cls.bench_timeline.items()})
            assert messages == [] and opened.error == "", (slug, messages, opened.error)
    guide = (pathlib.Path(__file__).resolve().parents[2] / "CONTRIBUTING.md").read_text()
    for step in ("dynamics.ENGINES", "EXPLORERS", "example_change", "_thumbnails", "bench_move",
                 "Run("):
        assert step in guide, step
