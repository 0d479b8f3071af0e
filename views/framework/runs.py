"""A page's long computations (learning runs, paper experiments) as objects: ``Run``.

A run is a small ``param.Parameterized`` declared beside its page (``views/pages/<slug>/``) and
named in the page's ``runs``. Its parameters are its own settings, without prefixes (the page's
URL writes them ``<run>.<setting>``, its ``key``); ``uses`` names the page's knobs it also
depends on (a model the live panels share). Its behaviour is its methods: ``compute(settings,
progress)`` (usually one engine experiment), ``estimate(settings)``, ``summary(settings,
result)`` and ``extra(settings, result)``; its panels are ``Plot``s of its own methods, each
taking the result. The cache key, the worker's task and the quick size all come from its
settings (``settings()``, ``quick``). No Panel here: the page draws a run with
``views.framework.job_section.JobSection``, and ``views.framework.jobs.Job`` runs it.
"""

from __future__ import annotations

import functools
from typing import ClassVar

import param

from views.framework import knobs as _knobs

__all__ = ["Run", "SEPARATOR", "run_key"]

#: Between a run's key and its setting's name in a URL (``ablation.steps=200``).
SEPARATOR = "."


def run_key(run: str, name: str) -> str:
    """The URL name of setting ``name`` of run ``run``."""
    return f"{run}{SEPARATOR}{name}"


class Run(param.Parameterized):
    """A long computation a page offers: its settings are its parameters (bounds, step, label,
    doc, as a page's knobs), its behaviour its methods. Subclasses set the class attributes and
    implement ``compute``; they may override ``estimate``, ``summary`` and ``extra``.

    ``model`` is the page model the run belongs to (its ``uses`` are read from it)."""

    #: The run's name on its page: its job, its URL prefix, its cache key's part.
    key: ClassVar[str] = ""
    #: The title of the run's card and the label of its button.
    title: ClassVar[str] = ""
    button: ClassVar[str] = ""
    #: What the run shows, in words (Markdown with LaTeX: ``prose(__file__, "<run>.md")``).
    text: ClassVar[str] = ""
    #: The run's panels (``Plot`` of its methods, each taking the result).
    plots: ClassVar[tuple] = ()
    #: Page knobs the run also depends on: they stay in the sidebar, and are part of the run's
    #: settings (its cache key and ``compute``'s argument).
    uses: ClassVar[tuple[str, ...]] = ()
    #: Page knobs that change only what some of the run's panels draw (a frame of an
    #: animation): their widgets sit above the run's panels; they are in the page's URL but not
    #: in the settings or the cache key, and only panels whose ``Plot.depends`` names them
    #: redraw.
    display: ClassVar[tuple[str, ...]] = ()
    #: Small values (own settings and page knobs, by name) with which the generic tests run it
    #: end to end in seconds, as the served app does.
    quick: ClassVar[dict] = {}
    #: The time axis of the run's result (``views.framework.timeline.Timeline``).
    timeline: ClassVar[object] = None
    #: Settings typed as text (``views.framework.field.Field``) rather than slid.
    fields: ClassVar[tuple[str, ...]] = ()
    #: Widget overrides for ``pn.Param`` (setting name -> dict), as a page's ``widgets``.
    widgets: ClassVar[dict] = {}
    #: Names older links gave the run's settings (old name -> setting): they still open. A name
    #: that several runs list sets each of them (one seed of two runs that now have one each);
    #: a setting's own name (``<run>.<setting>``) wins over an old one given beside it.
    aliases: ClassVar[dict[str, str]] = {}

    def __init__(self, model=None, **params):
        super().__init__(name=self.key, **params)
        self.model = model

    # --- settings ------------------------------------------------------------------------------
    @classmethod
    @functools.cache
    def knob_names(cls) -> tuple[str, ...]:
        """The run's own settings, in declaration order."""
        return tuple(p for p in cls.param if p != "name" and cls.param[p].precedence != -1)

    def __setattr__(self, name, value):
        # as a page's knob: a slider's float snapped to its step (``knobs.snap``), ticked
        # boxes in the options' order (as a link writes them: one cache key), and the settings
        # that depend on this one kept within the bounds it gives them (``knob_bounds``)
        if name.startswith("_") or name not in type(self).knob_names():
            return super().__setattr__(name, value)
        p = self.param[name]
        value = _knobs.snap(p, value)
        if isinstance(p, param.ListSelector) and isinstance(value, (list, tuple)):
            value = [o for o in p.objects if o in value] if set(value) <= set(p.objects) \
                else value  # a value not among the options: refused by param, as it was
        super().__setattr__(name, value)
        if self.__dict__.get("_ldx_constraining"):
            return
        notes = self.constrain()
        if notes and getattr(self, "model", None) is not None:
            self.model.notice = " ".join(notes)

    def set_unconstrained(self, name: str, value) -> None:
        """Set a setting without ``constrain`` (a page built from a link applies every value,
        then makes them consistent once, saying what it changed)."""
        self.__dict__["_ldx_constraining"] = True
        try:
            setattr(self, name, value)
        finally:
            self.__dict__["_ldx_constraining"] = False

    def knob_bounds(self) -> dict[str, tuple]:
        """Bounds of the settings that depend on other settings: name -> (lo, hi, why), as a
        page's ``knob_bounds``: the widgets follow them and the value is clamped."""
        return {}

    def constrain(self) -> list[str]:
        """Make the settings consistent (``knob_bounds``), returning a note for each value
        changed; a run with rules of its own extends it. Called after every move of a
        setting and by the page's ``_constrain``."""
        notes = []
        self.__dict__["_ldx_constraining"] = True
        try:
            for name, (lo, hi, why) in self.knob_bounds().items():
                p = self.param[name]
                value = getattr(self, name)
                new = min(max(value, lo), hi)
                if tuple(p.bounds) != (lo, hi):
                    p.bounds = (min(lo, new), max(hi, new))  # widened first, then narrowed
                if new != value:
                    setattr(self, name, new)
                    notes.append(f"{p.label} set to {new}: it was {value}, and {why} allows "
                                 f"{lo} to {hi}.")
                p.bounds = (lo, hi)
        finally:
            self.__dict__["_ldx_constraining"] = False
        return notes

    def settings(self) -> dict:
        """What the run computes with: its own settings and the page knobs it ``uses``."""
        values = {name: getattr(self, name) for name in self.knob_names()}
        if self.model is not None:
            values.update({name: getattr(self.model, name) for name in self.uses})
        return values

    def knob_text(self, name: str) -> str:
        """The canonical text of a setting's value (what the URL holds)."""
        return _knobs.text(self.param[name], getattr(self, name))

    def parse_knob(self, name: str, raw):
        """The value of setting ``name`` written as text (a URL value, a typed field);
        ``ValueError``: a sentence saying what is allowed."""
        return _knobs.parse(self.param[name], raw)

    @classmethod
    def quick_knobs(cls) -> dict:
        """``quick`` as a page's constructor takes it: own settings by their URL names
        (``<run>.<setting>``), page knobs by theirs."""
        own = cls.knob_names()
        return {(run_key(cls.key, k) if k in own else k): v for k, v in cls.quick.items()}

    # --- behaviour -----------------------------------------------------------------------------
    def compute(self, settings: dict, progress=None):  # pragma: no cover - abstract
        """The result for ``settings`` (``settings()``'s dict), passing ``progress`` (called
        ``progress(fraction, message, partial=None)``) to the engine."""
        raise NotImplementedError

    def estimate(self, settings: dict) -> float | None:
        """The expected seconds on the development machine (None: no estimate)."""
        return None

    def summary(self, settings: dict, result) -> str:
        """A line read off the finished result (Markdown), shown under the panels."""
        return ""

    def extra(self, settings: dict, result) -> str:
        """More Markdown under the panels (a table); empty by default."""
        return ""

    @classmethod
    def has_estimate(cls) -> bool:
        return cls.estimate is not Run.estimate

    def draw(self, plot, result):
        """The element of the run's panel ``plot`` for ``result``."""
        return plot.call(self, result)
