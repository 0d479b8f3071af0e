"""The model and its collaborators meet through public names (issue 46 item 3): the model is one
``param.Parameterized`` class, not a stack of mixins; its timeline's time (``clock``), its
drawing (``drawing``) and its animations (``animator``) are objects it holds, built with the
model and using only its public names; and the served page, its collaborators and the app read
no private name of another object. Checked from the source with ``ast``."""

from __future__ import annotations

import ast
import pathlib

import param
import pytest

from views import EXPLORERS
from views.framework import Explorer, Model
from views.framework.animation import Animator
from views.framework.drawing import Drawing
from views.framework.timeline import Clock

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: Modules that reach into a library's private names on purpose, each where that is its job
#: (not scanned): the HoloViews, Bokeh and Panel workarounds, each with its guard test; Numba's
#: cache index (readiness); multiprocessing's forkserver (worker processes); matplotlib's axes
#: titles (legends); HoloViews' own steps of a plot update (columns: the direct data path,
#: guarded by test_columns and the live == fresh walks). And the model itself, whose private
#: names are its own.
LIBRARY_FACING = {"workarounds.py", "page_workarounds.py", "served.py", "readiness.py",
                  "worker.py", "legends.py", "model.py", "columns.py"}


def _scanned() -> list[pathlib.Path]:
    framework = sorted((ROOT / "views" / "framework").glob("*.py"))
    return sorted((ROOT / "app").glob("*.py")) + [
        path for path in framework if path.name not in LIBRARY_FACING]


def _owner_is_own(node: ast.expr) -> bool:
    """``self``, ``cls`` or ``super()``: an object's own names."""
    if isinstance(node, ast.Name):
        return node.id in ("self", "cls")
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "super")


def private_reads(source: str) -> list[str]:
    """Every ``x._name`` in ``source`` whose ``x`` is not the object's own (dunder names
    allowed), and every ``from <project module> import _name``: as "line: expression", in
    the order of the lines."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute):
            name = node.attr
            if (name.startswith("_") and not (name.startswith("__") and name.endswith("__"))
                    and not _owner_is_own(node.value)):
                found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif (isinstance(node, ast.ImportFrom) and node.level == 0
              and (node.module or "").split(".")[0] in ("views", "app", "dynamics")):
            found += [f"{node.lineno}: from {node.module} import {alias.name}"
                      for alias in node.names
                      if alias.name.startswith("_") and not alias.name.startswith("__")]
    return sorted(found, key=lambda line: int(line.split(":")[0]))


def test_the_scan_finds_what_it_looks_for():
    """The scan itself: a page reading its model's private name is found, the model's own and
    dunder names are not."""
    source = ("class A:\n"
              "    def f(self, model):\n"
              "        self._own = model._view\n"
              "        super()._get_model()\n"
              "        return model.__class__, cls_._x\n"
              "from views.framework.jobs import _secret, Job\n")
    assert private_reads(source) == ["3: model._view", "5: cls_._x",
                                     "6: from views.framework.jobs import _secret"]


@pytest.mark.parametrize("path", _scanned(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_private_name_of_another_object_is_read(path):
    """The page side (``Page``, the player, the downloads, the remote exports, the job
    sections, ...), the model's collaborators and the app use only public names of the model,
    of its collaborators and of each other."""
    assert private_reads(path.read_text(encoding="utf-8")) == []


def test_the_scan_covers_the_page_side_and_the_collaborators():
    names = {path.name for path in _scanned()}
    assert {"page.py", "player.py", "remote.py", "job_section.py", "session.py",
            "downloads.py", "field.py", "panes.py", "present.py", "live.py", "film.py",
            "timeline.py", "drawing.py", "animation.py", "link.py", "stamp.py", "jobs.py",
            "main.py", "app_hooks.py"} <= names


def test_the_model_is_one_parameterized_class_not_mixins():
    assert Model.__bases__ == (param.Parameterized,)
    assert Explorer is Model


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_the_collaborators_are_held_by_the_model(slug):
    """Each model holds its own collaborators, built with it (two models share none)."""
    one, other = EXPLORERS[slug](), EXPLORERS[slug]()
    for name, kind in (("clock", Clock), ("drawing", Drawing), ("animator", Animator)):
        mine = getattr(one, name)
        assert isinstance(mine, kind) and mine.model is one, (slug, name)
        assert mine is not getattr(other, name)
    assert set(one.windows) == {p.method for p in one.plots if p.zoom or p.cloud is not None}


def test_the_models_methods_hand_over_to_its_collaborators():
    """The model's public methods give what its collaborators give (the timeline's time moved
    on the model is the clock's; a panel's element is the drawing's)."""
    model = EXPLORERS["herding"]()
    frames = model.frames()
    assert frames is model.clock.frames()
    t = int(frames.t[len(frames) // 2])
    model.set_time(None, t)
    assert model.t == t and model.clock.time_of() == t and model.time_of() == t
    assert model.frame_index() == model.clock.frame_index() == len(frames) // 2
    assert model.time_text() == model.clock.time_text() == str(t)
    assert model.parse_time(str(t)) == t
    run = next(iter(model.jobs))
    model.set_time(run, 5)
    assert model.time_of(run) == 5 and model.t == t  # a run's time is kept apart from t
    plot = model.plots[-1]
    assert type(model.element(plot)) is type(model.drawing.element(plot))
    assert model.compute() is model.result()
