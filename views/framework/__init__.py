"""What every explorer page shares, split by subject. The model's side (no Panel in it):

- ``model``: the ``Model`` base class of every page's model, also named ``Explorer`` (knobs,
  URL query, computation, runs, timeline data, figure, export, animation), one
  ``param.Parameterized`` holding its collaborators: ``clock`` (``timeline.Clock``), ``drawing``
  (``drawing.Drawing``) and ``animator`` (``animation.Animator``); ``link``: a model built from
  a URL's query;
- ``figure``: styling, dense clouds, ``Plot`` and the export of a figure; ``drawing``: a
  model's panels, ``figure()`` and ``export``;
- ``legends``: where legends go (under their plot, on the page and in exports);
- ``sections``: how a page lays out its panels (``Section``);
- ``declared``: what ``Plot``, ``Section``, ``Timeline`` and ``Mark`` accept: the methods they
  name, never their names as text;
- ``knobs``: parsing and writing knob values;
- ``text``: plain text from users never rendered as markup, page text (``prose``, read from
  Markdown files beside each page) with LaTeX;
- ``jobs`` and ``worker``: long runs (``Run``) with progress, in a worker process when served;
- ``timeline``: time as an axis (``Timeline``, ``Mark``, ``Frames``, the model's ``Clock``):
  frames sent once per run, played, stepped and scrubbed in the browser; ``animation``: the
  timeline as GIF and MP4 (``Animator``);
- ``cache``: one results cache with a byte budget;
- ``files``: files written whole or not at all;
- ``workarounds``: the HoloViews and Bokeh workarounds, each with its reason (the table of all,
  Panel's too, whose code is in ``page_workarounds`` and ``served``).

The served page's side (Panel; imported on first use of ``Page``, never by importing the
model):

- ``page``: ``Page(model, presentation)``, the page of a model (panels, controls, alerts,
  layout); ``live``: its live moves, the last move winning (computation off the event loop,
  draws paced by the browser); ``session``: whether its session is still there;
- ``job_section``, ``player``, ``downloads``, ``field``, ``panes``: its collaborators (a run's
  part, the timeline's control, the download buttons, typed fields, the live panes) and
  ``page_workarounds`` (Panel's widgets, panes and document).
"""

from __future__ import annotations

from views.framework.model import Explorer, Model
from views.framework.figure import (DASHED, DENSE_POINTS, DOTTED, EXPORT_FORMATS, MPL_DASHED,
                                    MPL_DOTTED, PLOT_HEIGHT, PLOT_WIDTH, Plot, axis,
                                    count_points, dense, export_figure, export_figures, exporting,
                                    integer_ticks, log_spaced, shade_levels, style,
                                    warmup_rasters)
from views.framework.jobs import Run
from views.framework.knobs import parse_vector
from views.framework.sections import Section
from views.framework.text import math_markdown, plain, prose, quote, verdict_markdown
from views.framework.timeline import Frames, Mark, Timeline
from views.framework.workarounds import RasterImage, matplotlib_backend, render_matplotlib

__all__ = [
    "Model", "Explorer", "Page", "Plot", "Section", "Run", "RasterImage", "EXPORT_FORMATS", "DENSE_POINTS",
    "PLOT_WIDTH", "PLOT_HEIGHT", "DASHED", "DOTTED", "MPL_DASHED", "MPL_DOTTED",
    "export_figure", "export_figures", "exporting", "style", "dense", "count_points", "shade_levels",
    "warmup_rasters", "parse_vector", "math_markdown", "plain", "prose", "quote", "verdict_markdown",
    "matplotlib_backend", "prompt_widget", "render_matplotlib", "axis", "log_spaced",
    "integer_ticks", "Timeline", "Mark", "Frames",
]


def __getattr__(name: str):
    # the Panel side, imported on first use: importing the model imports no Panel
    if name == "Page":
        from views.framework.page import Page

        return Page
    if name == "prompt_widget":
        from views.framework.page_workarounds import prompt_widget

        return prompt_widget
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
