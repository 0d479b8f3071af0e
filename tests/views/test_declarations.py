"""No behaviour is named by a string (issue 46 item 4): every page's and every run's panels
(``Plot`` and its cloud), layout (``Section``'s plots and header), time axis (``Timeline``'s
frames) and marks (``Mark``'s panel) are the owner's methods themselves, kept under their
names; a name given as text is refused, and a subclass's override of a named method is the one
called."""

from __future__ import annotations

import functools

import holoviews as hv
import numpy as np
import pytest

from views import EXPLORERS
from views.framework import Frames, Mark, Plot, Section, Timeline


def _declared(owner):
    """(what, name kept, function given) for every method ``owner``'s declarations name."""
    for plot in owner.plots:
        yield "Plot", plot.method, plot.function
        if plot.cloud is not None or plot.cloud_function is not None:
            yield "Plot's cloud", plot.cloud, plot.cloud_function
    for section in getattr(owner, "sections", ()):
        assert len(section.plots) == len(section.functions)
        for name, function in zip(section.plots, section.functions):
            yield "Section", name, function
        if section.header is not None or section.header_function is not None:
            yield "Section's header", section.header, section.header_function
    if owner.timeline is not None:
        yield "Timeline", owner.timeline.frames, owner.timeline.frames_function
        for mark in owner.timeline.marks:
            yield "Mark", mark.plot, mark.function


def _defined_by(owner: type, name: str):
    """The class of ``owner``'s MRO whose body defines ``name`` (None: none does)."""
    return next((k for k in owner.__mro__ if name in vars(k)), None)


@pytest.mark.parametrize("slug", list(EXPLORERS))
def test_a_pages_declarations_name_its_own_methods(slug):
    """Each name the framework keys by is the name of the function declared, and calling the
    owner's attribute of that name calls that very function: a method the model (or the run)
    defines, not a module function or a string."""
    cls = EXPLORERS[slug]
    for owner in (cls, *cls.runs):
        found = list(_declared(owner))
        assert found and any(what == "Plot" for what, _, _ in found)
        for what, name, function in found:
            where = f"{owner.__name__}: {what} {name!r}"
            assert callable(function) and not isinstance(function, str), where
            assert function.__name__ == name, where
            home = _defined_by(owner, name)
            assert home is not None and vars(home)[name] is function, where
            assert getattr(owner, name) is function, where
        # the panels a layout or a mark names are the owner's panels
        panels = {p.method for p in owner.plots}
        assert {n for s in getattr(owner, "sections", ()) for n in s.plots} <= panels
        if owner.timeline is not None:
            assert {m.plot for m in owner.timeline.marks} <= panels, owner.__name__
        assert len(panels) == len(owner.plots), owner.__name__  # one panel per method


def _method(self):
    return hv.Curve([])


@pytest.mark.parametrize("declare", [
    lambda: Plot("a_plot", title="t"),
    lambda: Plot(_method, title="t", cloud="a_cloud"),
    lambda: Section(("a_plot", "b_plot")),
    lambda: Section((_method,), header="player"),
    lambda: Timeline("a_frames", caption="c"),
    lambda: Mark("a_plot", "point", x="w1", y="w2"),
], ids=["plot", "cloud", "section", "header", "timeline", "mark"])
def test_a_method_named_by_a_string_is_refused(declare):
    with pytest.raises(TypeError, match="takes the method itself, not its name"):
        declare()


@pytest.mark.parametrize("thing", [lambda self: None, functools.partial(_method), 3, None],
                         ids=["lambda", "partial", "number", "none"])
def test_only_a_named_function_is_a_method(thing):
    with pytest.raises(TypeError, match="takes a method"):
        Plot(thing, title="t")
    with pytest.raises(TypeError, match="takes a method"):
        Mark(thing, "point", x="w1", y="w2")


def test_a_declaration_keeps_the_function_and_keys_by_its_name():
    plot = Plot(_method, title="t", cloud=_method)
    mark = Mark(_method, "point", x="w1", y="w2")
    timeline = Timeline(_method, caption="c", marks=(mark,))
    section = Section((_method,), header=_method)
    assert (plot.method, plot.cloud, mark.plot, timeline.frames) == ("_method",) * 4
    assert (section.plots, section.header) == (("_method",), "_method")
    assert plot.function is plot.cloud_function is mark.function is _method
    assert timeline.frames_function is section.header_function is _method
    assert section.functions == (_method,)
    # the mark is still compared by what it draws (its panel's name), as before
    assert mark == Mark(_method, "point", x="w1", y="w2") and "function" not in repr(mark)
    with pytest.raises(ValueError, match="kind"):  # the kind is a word, not a method
        Mark(_method, "dot", x="w1")


def test_a_subclass_that_overrides_a_named_method_draws_its_own():
    """The framework calls the owner's method of the declared name: a subclass of a page that
    overrides a plot method or the frames method is drawn and played with its own."""
    from views.pages.torus import TorusExplorer

    class Wider(TorusExplorer):
        def discrepancy_plot(self):
            return hv.Curve(([0.0, 1.0], [2.0, 3.0]), "N", "disc")

        def orbit_frames(self):
            frames = super().orbit_frames()
            return Frames(frames.t, {**frames.columns, "N": frames.columns["N"] * 0 + 7})

    assert Wider.plots is TorusExplorer.plots  # the declarations are inherited as they are
    model = Wider(**TorusExplorer.quick)
    plot = next(p for p in model.plots if p.method == "discrepancy_plot")
    element = model.drawing.panel_element(plot)
    assert list(element.dimension_values("disc")) == [2.0, 3.0]
    assert np.all(model.frames().columns["N"] == 7)
    # the base page still draws its own
    base = TorusExplorer(**TorusExplorer.quick)
    assert not np.all(base.frames().columns["N"] == 7)
