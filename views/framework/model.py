"""The model of every page (``Model``, also named ``Explorer``): knobs (``param`` parameters
with bounds, step, label and doc) kept consistent and written as a URL query, the computation
(``_compute``, one cached call into ``dynamics``) and its result, its runs (one
``views.framework.jobs.Job`` each), the timeline's data, figures, exports and animations. No
Panel in it: notebooks, the gallery, ``ldx-export`` and most tests use the model alone.

A page's model implements ``_compute()`` and a few plot methods that turn the computed result
into HoloViews elements. Three collaborators the model holds do the rest, each through the
model's public names only: ``clock`` (``views.framework.timeline.Clock``: the timelines'
frames, the time shown, the marks at that time), ``drawing``
(``views.framework.drawing.Drawing``: panels, ``figure()``, ``export(path)``) and
``animator`` (``views.framework.animation.Animator``: GIF and MP4); the model's methods of
the same names hand over to them. The served page is ``views.framework.page.Page(model)``,
which draws the panels, builds the controls and computes live moves off the event loop; its
links to the model are two hooks it sets, ``alive`` and ``failure_of``.
"""

from __future__ import annotations

import functools
import logging
from typing import ClassVar

import param

from dynamics.papers import Paper
from views.framework import knobs as _knobs
from views.framework import link as _link
from views.framework.animation import DEFAULT_FPS, Animator
from views.framework.figure import Plot
from views.framework.drawing import Drawing
from views.framework.jobs import Job, Run
from views.framework.runs import run_key
from views.framework.sections import Section
from views.framework.link import UNKNOWN_NAMED
from views.framework.pin import PIN_KEY, Pinning
from views.framework.timeline import Clock, Timeline
from views.framework.workarounds import WindowStream

__all__ = ["Model", "Explorer", "UNKNOWN_NAMED"]



class _class_or_instance:
    """A method bound to the instance when called on one, else to the class."""

    def __init__(self, function):
        self.function = function
        functools.update_wrapper(self, function)

    def __get__(self, instance, owner):
        return functools.partial(self.function, owner if instance is None else instance)


class Model(param.Parameterized):
    """Base class of every page's model. Subclasses set the class attributes and implement
    ``_compute`` and the plot methods named in ``plots``; ``views.framework.page.Page`` shows
    one in the app."""

    #: Short name used in URLs and in ``views.EXPLORERS``.
    slug: ClassVar[str] = ""
    #: Page title.
    title: ClassVar[str] = ""
    #: One line for the home-page card.
    summary: ClassVar[str] = ""
    #: The paper the page comes from (its record in ``dynamics.papers.PAPERS``: every citation
    #: of the page is derived from it), and the sections it reproduces: figures and tables first,
    #: then after a ";" the equations and theorems (the home card shows the part before it).
    paper: ClassVar[Paper | None] = None
    figures: ClassVar[str] = ""
    #: Page text (Markdown with LaTeX): what the plot shows, the equations, what to try; read from
    #: the Markdown file beside the page, ``prose(__file__, "page.md")``.
    text: ClassVar[str] = ""
    #: The panels of the figure, in reading order.
    plots: ClassVar[tuple[Plot, ...]] = ()
    #: Number of columns of the figure layout.
    columns: ClassVar[int] = 2
    #: Widget overrides (parameter name -> dict of ``pn.Param`` widget options, Panel-free:
    #: ``{"type": "checkboxes", "inline": True}`` names a box group, ``{"throttled": True}``
    #: a slow slider), read by ``Page.control``.
    widgets: ClassVar[dict] = {}
    #: Knobs typed as text (``views.framework.field.Field``: refused values are answered inline and
    #: never reinterpreted) rather than set by a slider or a menu.
    fields: ClassVar[tuple[str, ...]] = ()
    #: Sidebar groups, heading -> knob names; knobs in no group come first, without a heading.
    groups: ClassVar[dict[str, tuple[str, ...]]] = {}
    #: Knobs whose widgets the page places itself, next to what they drive (not in the sidebar;
    #: a run's settings are placed with the run).
    placed: ClassVar[tuple[str, ...]] = ()
    #: How the panels are laid out: sections of panels, each with an optional widget above and
    #: text beside (default: one section with every panel).
    sections: ClassVar[tuple["Section", ...]] = ()
    #: Long computations the page offers (learning runs, experiments): ``Run`` subclasses
    #: (``views.framework.runs``), each run by a ``views.framework.jobs.Job``.
    runs: ClassVar[tuple[type[Run], ...]] = ()
    #: The time axis of the result, played in the browser (``views.framework.timeline``).
    timeline: ClassVar[Timeline | None] = None

    # What the generic tests and benches need of a page, declared with it (so that adding a
    # page touches its engine, its view, its tests and one registration, ``views.register``).
    #: Knob values that must change what the page plots (``tests/views/test_explorers.py``).
    example_change: ClassVar[dict] = {}
    #: A knob and fresh values to move it through, for the redraw benchmark
    #: (``tests/bench/test_bench_views.py``; fresh, so that no move is a cache hit).
    bench_move: ClassVar[tuple] = ()
    #: Moves that make another knob invalid (a weight above a lowered K), tried first by the
    #: live == fresh walk (``tests/views/test_live_equals_fresh.py``).
    invalidating: ClassVar[tuple] = ()
    #: Smaller knob values for tests of what is done with a result, not of computing it (the
    #: offline HTML export).
    quick: ClassVar[dict] = {}
    #: Knob values at which the timeline benchmark plays the page, when its defaults make a short
    #: timeline (``tests/bench/test_bench_timeline.py``; default: the defaults).
    bench_timeline: ClassVar[dict] = {}

    error = param.String(default="", precedence=-1, doc="Message of the last failed computation.")
    notice = param.String(default="", precedence=-1,
                          doc="What the page changed or ignored in the last settings, in words "
                              "(a dependent knob clamped, a value in a link refused).")
    t = param.Integer(default=None, allow_None=True, precedence=-1, label="Time t",
                      doc="The time shown by the timeline (the URL's t=); None: the last frame.")
    drawn = param.Integer(default=0, precedence=-1,
                          doc="How many times the live panels were drawn: the status line and "
                              "the tables follow it, so they show what the plots show.")
    pinned = param.Dict(default=None, allow_None=True, precedence=-1,
                        doc="The knobs Pin kept (name -> value), drawn beside the live figure "
                            "(``views.framework.pin``); None: nothing pinned.")

    def __init__(self, **params):
        # a run's settings by their URL names (``<run>.<setting>``, or an older link's name):
        # given to the run once it is built
        own = {k: params.pop(k) for k in list(params) if k in self._run_settings()}
        super().__init__(**params)
        self._last_good = None
        #: The visible window of each panel with a cloud or a zoom, by the panel's key
        #: (``Plot.method``; x_range and y_range None: the full range), shared between the live
        #: page and export. A knob move resets them; the page replaces one to reset its zoom.
        self.windows = {p.method: WindowStream(x_range=None, y_range=None)
                        for p in self.plots if p.zoom or p.cloud is not None}
        #: One job per declared run (``views.framework.runs.Run``).
        self.jobs = {run.key: Job(self, run(self)) for run in self.runs}
        # an older link's names first, so that a setting's own name wins over them; made
        # consistent below, with the knobs
        names = set(self.setting_names())
        for name, value in sorted(own.items(), key=lambda item: item[0] in names):
            for run, setting in self._setting_targets(name):
                self.jobs[run].run.set_unconstrained(setting, value)
        #: The collaborators: the timelines' time, the figures, the animations.
        self.clock, self.drawing, self.animator = Clock(self), Drawing(self), Animator(self)
        self.pinning = Pinning(self)  # the pinned state drawn beside the live one
        self.notice = " ".join(self._constrain())

    # --- the two hooks a page sets ---------------------------------------------------------
    @staticmethod
    def alive() -> bool:
        """Whether anybody is still looking at this model: a ``Page`` in a served session sets
        its session's (a move that arrives once the session is gone is not computed).
        Default: always."""
        return True

    @staticmethod
    def failure_of(values: tuple) -> BaseException | None:
        """The failure that computing the knobs' values ``values`` (``knob_values()``) left,
        when a ``Page`` computed them off the event loop (``result()`` then shows it without
        computing it again); None: none known. Set by the ``Page``."""
        return None

    # --- knobs -------------------------------------------------------------------------------
    @classmethod
    def knob_names(cls) -> list[str]:
        """The user-facing parameters (everything but ``name``, ``error`` and ``notice``)."""
        return [p for p in cls.param if p != "name" and cls.param[p].precedence != -1]

    def __setattr__(self, name, value):
        # Every knob move, from a widget, the URL or a script, ends in a consistent state in
        # one batch of parameter events: the knobs linked to it follow (``follow``), slider
        # floats snap to their step, dependent knobs are clamped to the bounds that the other
        # knobs give them (with a notice saying so), and zoom windows reset (the page then
        # shows exactly what a fresh load of its URL shows). Pages declare links through
        # ``follow``, never by overriding this method.
        private = self.__dict__.get("_param__private")
        if (private is None or not private.initialized or name.startswith("_")
                or name not in type(self)._knob_set()):
            return super().__setattr__(name, value)
        if not self.alive():
            # A move that was pending when the session's tab closed: nobody will see it, so
            # nothing is recomputed (the server's event loop would otherwise compute every
            # closed session's moves, one after another).
            with param.parameterized.discard_events(self):
                return super().__setattr__(name, value)
        with param.parameterized.batch_call_watchers(self):
            super().__setattr__(name, value)
            if not self.__dict__.get("_unlinked"):
                self.follow(name)
            notes = self._constrain()
            if notes or self.notice:
                self.notice = " ".join(notes)
            for view in self.windows.values():
                view.update(x_range=None, y_range=None)

    @classmethod
    @functools.cache
    def _knob_set(cls) -> frozenset:
        return frozenset(cls.knob_names())

    @classmethod
    @functools.cache
    def _run_settings(cls) -> dict[str, tuple[str, str]]:
        """Every name a run's setting has in a URL or a constructor: ``<run>.<setting>``, and
        the names older links gave it (``Run.aliases``) -> (run, setting)."""
        return {name: targets[0] for name, targets in cls._setting_targets_of().items()}

    @classmethod
    @functools.cache
    def _setting_targets_of(cls) -> dict[str, tuple[tuple[str, str], ...]]:
        """As ``_run_settings``, with every (run, setting) an older link's name sets: a name
        that several runs took over (one seed of two runs that now have a seed each) sets them
        all."""
        names: dict[str, list] = {}
        for run in cls.runs:
            for old, setting in run.aliases.items():
                names.setdefault(old, []).append((run.key, setting))
            for setting in run.knob_names():
                names[run_key(run.key, setting)] = [(run.key, setting)]
        return {name: tuple(targets) for name, targets in names.items()}

    @classmethod
    def _setting_targets(cls, name: str) -> tuple[tuple[str, str], ...]:
        return cls._setting_targets_of()[name]

    @classmethod
    def setting_known(cls, name: str) -> bool:
        """Whether a URL or a constructor may name ``name``: a knob, a run's setting (as in
        ``setting_names``) or an older link's name of one."""
        return name in cls._knob_set() or name in cls._run_settings()

    @classmethod
    @functools.cache
    def setting_names(cls) -> tuple[str, ...]:
        """Every setting of the page as its URL names it: the knobs, then each run's own
        settings (``<run>.<setting>``)."""
        return tuple(cls.knob_names()) + tuple(
            run_key(run.key, setting) for run in cls.runs for setting in run.knob_names())

    @_class_or_instance
    def knob_param(owner, name: str) -> param.Parameter:
        """The parameter of a setting named as in ``setting_names`` (or an older link): the
        instance's (its bounds as the other knobs set them) when called on a page, the class's
        on its class."""
        if name in owner._run_settings():
            run, setting = owner._run_settings()[name]
            if isinstance(owner, type):
                return next(r for r in owner.runs if r.key == run).param[setting]
            return owner.jobs[run].run.param[setting]
        return owner.param[name]

    def setting(self, name: str):
        """The value of a setting named as in ``setting_names``."""
        if name in self._run_settings():
            run, setting = self._run_settings()[name]
            return getattr(self.jobs[run].run, setting)
        return getattr(self, name)

    def set_setting(self, name: str, value) -> None:
        """Set a setting named as in ``setting_names`` (a knob or a run's setting)."""
        if name in self._run_settings():
            for run, setting in self._setting_targets(name):
                setattr(self.jobs[run].run, setting, value)
        else:
            setattr(self, name, value)

    def knob_values(self) -> tuple:
        """The knobs' values, in ``knob_names`` order: the state a move asks for (a key of
        ``failure_of``)."""
        return tuple(getattr(self, name) for name in self._knob_order())

    @classmethod
    @functools.cache
    def _knob_order(cls) -> tuple[str, ...]:
        return tuple(cls.knob_names())

    def _put(self, name: str, value) -> None:
        """Set a knob without the normalisation of ``__setattr__`` (used by it)."""
        param.Parameterized.__setattr__(self, name, value)

    def set_unlinked(self, name: str, value) -> None:
        """Move knob ``name`` without moving the knobs linked to it (``follow``): for a
        constructor that reconciles the knobs it was given, where explicit values win."""
        self._unlinked = True
        try:
            setattr(self, name, value)
        finally:
            self._unlinked = False

    def follow(self, name: str) -> None:
        """Set the knobs linked to knob ``name``, which just moved, with ``_put`` (a preset sets
        the model's knobs; a label shows which preset, if any, the values match). Called inside
        the move's batch of parameter events, so the page redraws once per move. Default:
        nothing is linked."""

    def knob_bounds(self) -> dict[str, tuple]:
        """Bounds of the knobs that depend on other knobs: name -> (lo, hi, why), ``why``
        naming what sets them ("K = 2"). The widgets follow them and the value is clamped."""
        return {}

    def validate(self, name: str, value) -> None:
        """Refuse (``ValueError`` with a sentence for the page) a value that the knob's type and
        bounds allow but the other knobs do not (herding's w0 needs 1 or K numbers)."""

    def _constrain(self) -> list[str]:
        """Make the knobs consistent, returning a note for each value changed on the way:
        slider floats snapped to their step, ranges kept wider than one step, dependent knobs
        clamped to ``knob_bounds`` (whose bounds the widgets then show), a list of choices in
        the options' order."""
        notes = []
        for name in self.knob_names():
            p = self.param[name]
            value = getattr(self, name)
            if name not in self.fields:
                snapped = _knobs.snap(p, value)
                if snapped != value:
                    self._put(name, snapped)
                    value = snapped
            if isinstance(p, param.ListSelector) and value is not None:
                # a box group reports its ticked boxes in the order they were ticked: the
                # choices in the options' order, as a link writes and reads them
                ordered = [o for o in p.objects if o in value]
                if ordered != list(value):
                    self._put(name, ordered)
                    value = ordered
            if isinstance(p, param.Range) and value is not None:
                lo, hi = value
                blo, bhi = p.bounds
                step = p.step or (bhi - blo) / 100
                if hi - lo < step * (1 - 1e-9):
                    wide = (lo, lo + step) if lo + step <= bhi else (hi - step, hi)
                    wide = _knobs.snap(p, wide)
                    self._put(name, wide)
                    notes.append(f"{p.label}: the two ends must differ, so {lo:g} to {hi:g} "
                                 f"became {wide[0]:g} to {wide[1]:g}.")
        for job in self.__dict__.get("jobs", {}).values():  # the runs' own rules
            notes += job.run.constrain()
        for name, (lo, hi, why) in self.knob_bounds().items():
            p = self.param[name]
            value = getattr(self, name)
            new = min(max(value, lo), hi)
            if new != value:
                self._put(name, new)
                notes.append(f"{p.label} set to {new}: it was {value}, and {why} allows "
                             f"{lo} to {hi}.")
            if tuple(p.bounds) != (lo, hi):
                p.bounds = (lo, hi)
        return notes

    def parse_knob(self, name: str, raw):
        """The value of knob ``name`` written as text (a URL value, a typed field), checked
        against its current bounds and the other knobs. ``ValueError``: a sentence saying what
        is allowed."""
        p = self.param[name]
        value = _knobs.parse(p, raw)
        self.validate(name, value)
        return value

    def knob_text(self, name: str) -> str:
        """The canonical text of a setting's value (what the URL holds), named as in
        ``setting_names``."""
        return _knobs.text(self.knob_param(name), self.setting(name))

    def query(self) -> dict[str, str]:
        """Every setting as text (the knobs, the runs' settings), and the timeline's time
        unless at the end: the URL query that reopens this exact state."""
        query = {name: self.knob_text(name) for name in self.setting_names()}
        time = self.time_text()
        if time is not None:
            query["t"] = time
        if self.pinned is not None:
            query[PIN_KEY] = self.pinning.text()
        return query

    def pin(self, **changes) -> dict:
        """Keep the knobs drawn now (``changes``: with these knobs set otherwise) as the pinned
        state, drawn beside the live one (``views.framework.pin``); returns ``pinned``."""
        self.pinned = self.pinning.knobs_now(**changes)
        return self.pinned

    def unpin(self) -> None:
        """Back to one figure: nothing pinned."""
        self.pinned = None

    @classmethod
    def from_query(cls, args: dict) -> tuple["Explorer", list[str]]:
        """An explorer built from a URL's query (name -> list of raw values, as
        ``pn.state.session_args`` gives it), and a sentence for each part that was not used or
        was changed. Never raises for what a URL holds: unknown names, malformed, out-of-range
        or repeated values are reported and skipped; if the valid values together cannot be
        computed, the defaults are used and that is reported too. What a link may hold is
        bounded (``views.framework.knobs``): a value longer than its knob's cap, a key given
        more than ``REPEATS`` times and a query longer than ``QUERY_CHARS`` are refused, saying
        the cap (a refused query as a whole opens the defaults).

        The sentences quote what the link holds (cut to ``_text.CLIP`` characters, at most
        ``UNKNOWN_NAMED`` unknown names): they are plain text, which the page shows through
        ``plain``, never as markup."""
        return cls.checked_query(*cls.unchecked_query(args))

    @classmethod
    def unchecked_query(cls, args: dict) -> tuple["Explorer", list[str], object]:
        """``from_query``'s first half: the explorer with the link's valid values applied, not
        computed; the sentences so far; and the link's time (None: none). Computes nothing
        (``views.framework.link.unchecked_query``)."""
        return _link.unchecked_query(cls, args)

    @classmethod
    def checked_query(cls, explorer: "Explorer", messages: list[str], time,
                      failure: BaseException | None = None) -> tuple["Explorer", list[str]]:
        """``from_query``'s second half: compute the settings ``unchecked_query`` applied (or
        raise ``failure``, what computing them in a thread raised), fall back to the defaults
        if they cannot be computed together, apply the link's time
        (``views.framework.link.checked_query``)."""
        return _link.checked_query(cls, explorer, messages, time, failure)

    # --- computation -------------------------------------------------------------------------

    def redraw_knobs(self, plot: Plot) -> list[str]:
        """The knobs whose change redraws ``plot`` on the live page: its ``depends``, or every
        knob but its ``ignores``."""
        if plot.depends is not None:
            return list(plot.depends)
        return [k for k in self.knob_names() if k not in plot.ignores]

    def _compute(self):  # pragma: no cover - abstract
        raise NotImplementedError

    def compute(self):
        """The result for the current knobs, computed (or found in the results cache);
        raises what the engine raises. ``result()`` is what the page shows."""
        return self._compute()

    def prepare(self) -> None:
        """Compute, into the results cache, what the live panels need beyond ``_compute``'s
        result (a sweep a panel draws beside it). A served page calls it with ``_compute`` off
        the event loop after a move (``views.framework.live``), so that the draw finds both cached. It
        runs in a worker thread: it builds no HoloViews, Bokeh or param object and sets no
        parameter. Default: nothing."""

    def warm(self) -> None:
        """Compute, into the results cache, everything a draw of the current knobs needs
        (``_compute`` and ``prepare``): what a served page runs off the event loop."""
        self._compute()
        self.prepare()

    def result(self):
        """The result for the current knobs; on failure, the last good one (and ``error`` is set)."""
        try:
            # a served page's move was computed off the event loop: a failure is not redone
            failure = self.failure_of(self.knob_values())
            if failure is not None:
                raise failure
            res = self._compute()
        except Exception as exc:
            # A ValueError is an engine refusing these settings, in words; anything else is a
            # bug, logged in full, but the page still keeps its last good plot and answers the
            # next move.
            if not isinstance(exc, ValueError):
                logging.getLogger(__name__).exception("computing %s failed", self.slug)
            self.error = str(exc) or type(exc).__name__
            if self._last_good is None:
                raise
            return self._last_good
        self.error = ""
        self._last_good = res
        return res

    def status(self) -> str:
        """A line of measured facts above the plots (Markdown with LaTeX), updated live;
        empty by default."""
        return ""

    def panels(self) -> tuple[Plot, ...]:
        """The panels of the current figure: ``plots``, then those of every run that has a
        finished result."""
        extra = tuple(p for job in self.jobs.values() if job.result is not None
                      for p in job.run.plots)
        return tuple(self.plots) + extra

    # --- the collaborators' methods, on the model ------------------------------------------
    def element(self, plot: Plot):
        """One panel's static element as the page shows it (``Drawing.element``)."""
        return self.drawing.element(plot)

    def figure(self, only: tuple[str, ...] | None = None, columns: int | None = None):
        """The whole figure as one HoloViews Layout; ``only``: these panels, ``columns`` a row
        (``Drawing.figure``)."""
        return self.drawing.figure(only, columns)

    def export(self, path):
        """Write the figure to ``path`` (.png .svg .pdf .html, ``Drawing.export``)."""
        return self.drawing.export(path)

    def export_bytes(self, suffix: str):
        """The exported figure as bytes (``Drawing.export_bytes``)."""
        return self.drawing.export_bytes(suffix)

    def animate(self, path, *, frames=None, fps=DEFAULT_FPS, run=None, panels=None):
        """Write the timeline as a GIF or MP4 (``Animator.animate``: frames, fps, run,
        panels)."""
        return self.animator.animate(path, frames=frames, fps=fps, run=run, panels=panels)

    def animation_bytes(self, suffix: str, progress=None, run=None) -> bytes:
        """The default animation as bytes (``Animator.animation_bytes``)."""
        return self.animator.animation_bytes(suffix, progress=progress, run=run)

    def frames(self, run: str | None = None):
        """The timeline's frames of the current result (``Clock.frames``)."""
        return self.clock.frames(run)

    def frame_index(self, run: str | None = None) -> int:
        """The frame drawn at the time shown (``Clock.frame_index``)."""
        return self.clock.frame_index(run)

    def time_of(self, run: str | None = None) -> int | None:
        """The time a timeline shows: ``t``, or a run's own (``Clock.time_of``)."""
        return self.clock.time_of(run)

    def set_time(self, run: str | None, value: int | None) -> None:
        """Show time ``value`` (None: the end) on a timeline (``Clock.set_time``)."""
        self.clock.set_time(run, value)

    def time_text(self) -> str | None:
        """``t`` as the URL holds it, None at the last frame (``Clock.time_text``)."""
        return self.clock.time_text()

    def parse_time(self, raw) -> int:
        """The time of a URL's ``t`` within the run, or ``ValueError`` (``Clock.parse_time``)."""
        return self.clock.parse_time(raw)


#: The name pages and acceptance checks know the model by (``HerdingExplorer`` is a model).
Explorer = Model
