"""The page is a view over a model (issue 46 item 3): the model side of the framework and every
page's model import no Panel, and a model computes and exports its figure without any module of
the page side; the ``Page`` is built from a model and drives it only through the model's public
knobs and its two hooks (``alive``, ``failure_of``).

Each import check runs in a fresh interpreter: in this one, other tests imported Panel long ago.
"""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from views import EXPLORERS
from views.framework import Model

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: The framework's modules of the served page: built on Panel, imported by ``Page`` only.
PAGE_SIDE = ("views.framework.page", "views.framework.job_section", "views.framework.player",
             "views.framework.downloads", "views.framework.field", "views.framework.panes",
             "views.framework.session", "views.framework.page_workarounds")


def _run(code: str) -> dict:
    """What ``code`` prints as JSON on its last line, run in a fresh interpreter from the
    checkout's root (so that it imports this checkout's ``views``)."""
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_importing_the_models_imports_no_panel():
    found = _run(
        "import json, sys\n"
        "import views, views.framework, views.framework.model\n"
        "import views.framework.jobs, views.framework.timeline, views.framework.animation\n"
        "import views.framework.knobs, views.framework.sections, views.framework.remote\n"
        f"page_side = {list(PAGE_SIDE)!r}\n"
        "print(json.dumps({'panel': 'panel' in sys.modules,\n"
        "                  'page_side': [m for m in page_side if m in sys.modules],\n"
        "                  'pages': len(views.EXPLORERS)}))\n")
    assert found == {"panel": False, "page_side": [], "pages": len(EXPLORERS)}


def test_a_model_exports_its_figure_without_the_page_side(tmp_path):
    """A model computes, moves a knob and writes its PNG with no module of the page side
    imported. (HoloViews' plotting package imports Panel itself, ``holoviews/plotting/plot.py``:
    a figure's drawing does, whatever the model.)"""
    path = tmp_path / "torus.png"
    found = _run(
        "import json, sys\n"
        "from views.pages.torus import TorusExplorer\n"
        "model = TorusExplorer()\n"
        "model.seed = model.seed + 1\n"
        "drawn = model.drawn\n"
        f"model.export({str(path)!r})\n"
        f"page_side = {list(PAGE_SIDE)!r}\n"
        "print(json.dumps({'page_side': [m for m in page_side if m in sys.modules],\n"
        "                  'error': model.error, 'drawn': drawn}))\n")
    # no page: nothing was drawn live (``drawn`` counts a page's draws)
    assert found == {"page_side": [], "error": "", "drawn": 0}
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_page_links_to_its_model_by_its_hooks():
    """A model alone: every move is alive and no failure is known. A ``Page`` sets the hooks
    and gives the model's jobs its session; its draws count in ``model.drawn``."""
    from views.framework.page import Page

    model = EXPLORERS["doeblin"]()
    assert isinstance(model, Model) and model.alive() and model.failure_of(()) is None
    assert all(job.session is None for job in model.jobs.values())
    page = Page(model)
    assert model.alive == page.session.alive and model.alive()
    assert all(job.session is page.session for job in model.jobs.values())
    drawn = model.drawn
    model.log_delta = model.log_delta + 0.2  # outside a server: drawn at once
    assert model.drawn == drawn + 1


def test_a_models_box_group_is_named_without_panel():
    """A model names a box group as ``{"type": "checkboxes"}`` (no Panel class in the model);
    ``Page.control`` draws it as Panel's ``CheckBoxGroup``, and refuses a name it does not
    know."""
    import panel as pn

    from views.framework.page import Page, widget_spec

    for slug in ("herding", "hbm", "pmd", "sbeed"):
        model = EXPLORERS[slug]()
        # the page's knobs, and its runs' settings (run=None: the page's)
        owners = [(None, model)] + [(job.run, job.run) for job in model.jobs.values()]
        boxes = [(run, name) for run, owner in owners for name, spec in owner.widgets.items()
                 if isinstance(spec, dict) and spec.get("type") == "checkboxes"]
        assert boxes, slug
        for run, name in boxes:
            control = Page(model).control(name, run=run)
            assert control.select(pn.widgets.CheckBoxGroup), (slug, name)
    with pytest.raises(ValueError, match="^widgets: type must be one of checkboxes"):
        widget_spec({"type": "radio"})
