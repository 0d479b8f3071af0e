"""Plot and knob labels read as mathematics in both backends: subscripts, Greek and relations
are written in Unicode (w₁, ε, ≤), never as raw ``_``, ``^``, ``~`` or ``<=`` (Bokeh and
matplotlib would print those as they are)."""

from __future__ import annotations

import pathlib
import re

import holoviews as hv
import pytest

from views import EXPLORERS
from views.framework.figure import _EXPORTING
from views.framework.page import Page

RAW = re.compile(r"_\w|_{|\^|~|<=|>=|\\[a-z]+")


def _texts(explorer) -> list[str]:
    """Every text a figure draws: titles, axis and colour labels, legends, text marks, table
    headers."""
    token = _EXPORTING.set(True)
    try:
        elements = [explorer.element(p) for p in explorer.panels()]
        titles = [p.title for p in explorer.panels()]
    finally:
        _EXPORTING.reset(token)
    texts = list(titles)
    for element in elements:
        for el in element.traverse(lambda e: e, [hv.Element]):
            texts.append(el.label)
            if isinstance(el, hv.Text):
                texts.append(str(el.text))
            texts.extend(d.pprint_label for d in el.dimensions())
            for backend in ("bokeh", "matplotlib"):
                opts = hv.Store.lookup_options(backend, el, "plot").kwargs
                texts.extend(str(opts[k]) for k in ("title", "xlabel", "ylabel", "clabel")
                             if opts.get(k))
    return [t for t in texts if t]


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_figure_labels_have_no_raw_markup(slug):
    cls = EXPLORERS[slug]
    explorer = cls()
    bad = sorted({t for t in _texts(explorer) if RAW.search(t)})
    bad += [f"{name}: {explorer.param[name].label}" for name in cls.knob_names()
            if RAW.search(explorer.param[name].label or "")]
    bad += [t for t in (cls.title, cls.summary) if RAW.search(t)]
    assert bad == [], bad


def test_a_dependent_label_renders_its_subscript():
    explorer = EXPLORERS["bifurcation"](n_features=3, coordinate=3)
    labels = _texts(explorer)
    assert any("w₃" in t for t in labels), labels


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_a_float_slider_shows_its_steps_precision(slug):
    """A float slider's title shows every value with its step's decimals, always as many (a
    0.001 step showed "0.44" for three key presses; 10 -> 10.50 -> 16 changed format)."""
    import panel as pn

    from views.framework.knobs import decimals

    explorer = EXPLORERS[slug]()
    checked = 0
    for name in explorer.knob_names():
        widget = Page(explorer).control(name)
        if not isinstance(widget, (pn.widgets.FloatSlider, pn.widgets.RangeSlider)):
            continue
        places = decimals(explorer.param[name].step)
        if places is None:
            continue
        assert widget.format.format == f"%.{places}f", (name, widget.format)
        checked += 1
    # every float knob with a step that has no widget of its own is such a slider
    plain = [n for n in explorer.knob_names()
             if type(explorer.param[n]).__name__ in ("Number", "Range")
             and decimals(explorer.param[n].step) is not None
             and n not in explorer.fields and n not in explorer.widgets]
    assert checked >= len(plain)


#: The longest panel title (characters): Bokeh draws a title on one line from the left of the
#: data area and cuts it at the plot's edge; 40 characters of its bold 16 px sans are about
#: 300 px, which fit beside the y axis of the narrowest plot a page draws from 1024 px up (the
#: neuron page's 45-character title was cut to "(Fig 1." in a 400-px plot).
TITLE_CHARACTERS = 40


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_panel_titles_fit_the_narrowest_plot(slug):
    cls = EXPLORERS[slug]
    plots = [*cls.plots, *(p for run in cls.runs for p in run.plots)]
    long = [p.title for p in plots if len(p.title) > TITLE_CHARACTERS]
    assert long == []


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_no_source_line_tags_where_a_reader_sees_them(slug):
    """"L383", "L183-190": line numbers of the papers' extracted text, for developers; the
    page's titles, headings and text do not show them (docstrings may)."""
    cls = EXPLORERS[slug]
    shown = [cls.title, cls.summary, cls.figures, cls.text,
             *(p.title for p in cls.plots),
             *(text for run in cls.runs for text in (run.title, run.text,
                                                     *(p.title for p in run.plots)))]
    assert [t for t in shown if re.search(r"\bL\d{2,}", t)] == []


def test_no_source_line_tags_in_the_docs():
    """The README, CONTRIBUTING.md and docs/ name a paper's sections, equations and theorems,
    not line numbers of its extracted text ("L462" said nothing to a reader)."""
    root = pathlib.Path(__file__).resolve().parents[2]
    found = [f"{path.name}:{n}: {m.group(0)}"
             for path in [root / "README.md", root / "CONTRIBUTING.md",
                          *sorted((root / "docs").glob("*.md"))]
             for n, line in enumerate(path.read_text().splitlines(), 1)
             for m in re.finditer(r"\bL\d{3,}(?:-\d+)?\b", line)]
    assert found == []


def test_no_source_file_holds_control_characters():
    """A page text written with an escape read as a control character (``\\nu`` as a newline
    and "u", ``\\bar`` as a backspace) broke the DSG and Embedding-SGD pages' MathJax in the
    browser (no plot drawn): source files hold no control characters but newlines."""
    import re

    root = pathlib.Path(__file__).resolve().parents[2]
    bad = [str(p.relative_to(root)) for folder in ("app", "views", "dynamics")
           for p in (root / folder).rglob("*.py")
           if re.search(r"[\x00-\x08\x0b-\x1f]", p.read_text(encoding="utf-8"))]
    assert bad == []
