"""Two settings side by side (``Pinning``, the model's ``pinning``): **Pin** keeps the knobs of
the state drawn (``Model.pin()``, held in ``Model.pinned`` as a dict of knob values), and the
figure then holds the pinned state's panels beside the live ones, drawn through a second model
of the same class at the pinned knobs (``twin``; its results come from the results cache when
they were computed before), with the knobs that differ named by their labels (``line``:
"Pinned: Model seed = 1 (now 2)"). ``Model.unpin()`` returns to one figure.

The pinned knobs travel in the page's link as one value, ``pin=``, holding them in the very
encoding the link uses for knobs (a URL query of the knobs' canonical text, ``text``): a link
written by the app reopens both states exactly. What a link's ``pin=`` holds is read as a link
is (``views.framework.link`` reads it through ``split``, then builds the pinned state as it
builds the page's, so a refused value earns the same sentence, prefixed ``PREFIX``): capped in
length (``pin_chars``), never evaluated, quoted as plain text; a knob it does not name keeps
its default, as in a link.

No Panel here: the page's Pin button, line and pinned panes are
``views.framework.pin_view.PinView``, which draws each pinned copy beside its live panel.
``overlay`` draws a panel of curves and points with the pinned state's faded under the live
one (``Drawing.panel_element`` applies it, so the live page, its exports and animations overlay
alike); a panel with a cloud, an image or a table keeps only its pinned copy beside it.
"""

from __future__ import annotations

import copy
import re
import textwrap
import urllib.parse

import holoviews as hv

from views.framework import knobs as _knobs
from views.framework.figure import style
from views.framework.text import clip, quote

__all__ = ["Pinning", "PIN_KEY", "PREFIX", "pin_chars", "split", "VALUE_CHARS", "LINE_CHARS",
           "OVERLAID", "FADED", "PINNED_GROUP"]

#: The link's key of the pinned knobs.
PIN_KEY = "pin"
#: What a sentence about the link's ``pin=`` starts with.
PREFIX = "In the pinned settings (pin): "
#: A value in the line naming the knobs that differ holds at most this many characters, and
#: the line at most ``LINE_CHARS`` (an ellipsis beyond).
VALUE_CHARS = 40
LINE_CHARS = 300
#: The layers of a panel whose pinned copy can be drawn under the live one (``overlay``):
#: curves and points (annotations, such as a line marking t, are not drawn twice).
OVERLAID = (hv.Curve, hv.Scatter, hv.Points)
#: The opacity of the pinned layers drawn under the live ones.
FADED = 0.3
#: The group of the pinned layers drawn under the live ones: the pinned state's whole run,
#: which a timeline's build-up leaves whole (``marks.grows``).
PINNED_GROUP = "Pinned"
#: A panel title's closing brackets ("Moment error (Prop 1.2)").
_CITED = re.compile(r"\s*\([^()]*\)\s*$")


def pin_chars(cls) -> int:
    """The most characters a link's ``pin=`` may hold for a page of class ``cls``: every knob
    named once with its longest text (``knobs.limits``), percent-encoded (three characters a
    character at most), with its separators."""
    return sum(len(name) + 2 + 3 * _knobs.limits(cls.param[name])[0]
               for name in cls.knob_names())


def split(cls, raw) -> tuple[dict | None, list[str]]:
    """The knobs a link's ``pin=`` value ``raw`` (text, already decoded once from the page's
    link) names, as ``{name: [raw values]}`` (what ``Model.from_query`` reads), and a sentence
    for each part of it not used. None (nothing pinned) for a value over ``pin_chars``; a name
    that is not a knob of the page is left out and quoted."""
    raw = raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)
    cap = pin_chars(cls)
    if len(raw) > cap:
        return None, [f"{PREFIX}the value holds {len(raw):,} characters, more than the "
                      f"{cap:,} it may: nothing is pinned."]
    args = urllib.parse.parse_qs(raw, keep_blank_values=True)
    knobs = set(cls.knob_names())
    unknown = [k for k in args if k not in knobs]
    messages = []
    if unknown:
        named = ", ".join(quote(k) for k in unknown[:5])
        more = f" (and {len(unknown) - 5:,} more)" if len(unknown) > 5 else ""
        messages.append(f"{PREFIX}there is no knob {named}{more} on this page." if
                        len(unknown) == 1 else
                        f"{PREFIX}there are no knobs {named}{more} on this page.")
    return {k: v for k, v in args.items() if k in knobs}, messages


class Pinning:
    """A model's pinned state (``model.pinning``): the pinned knobs' link text (``text``), the
    model drawn at them (``twin``), the knobs that differ from the live ones (``differences``,
    ``line``, ``words``) and each pinned panel (``element``). Uses only the model's public
    names (``pinned``, ``knob_names``, ``knob_param``, ``knob_text``, ``drawing``)."""

    def __init__(self, model):
        self.model = model
        #: The model at the pinned knobs, with the pinned knobs' text it was built for.
        self._twin: tuple[str, object] | None = None
        #: The pinned knobs' text whose state a served page is still computing off the event
        #: loop (``pin_view.PinView``): not overlaid until it is drawn, so that a move meanwhile
        #: does not compute it on the event loop.
        self.pending: str | None = None

    def knobs_now(self, **changes) -> dict:
        """The live model's knobs (``changes``: with these knobs set otherwise), made
        consistent as the model makes a move (a model built at them): what ``Model.pin``
        keeps. ``ValueError`` names a knob that is not one or a value it refuses."""
        model = self.model
        names = list(model.knob_names())
        unknown = [k for k in changes if k not in names]
        if unknown:
            raise ValueError(f"pin: {', '.join(map(repr, unknown))} is not a knob of "
                             f"{type(model).__name__} (its knobs: {', '.join(names)})")
        values = {name: copy.deepcopy(getattr(model, name)) for name in names}
        if not changes:
            return values
        twin = type(model)(**values)
        for name, value in changes.items():
            twin.validate(name, value)
            setattr(twin, name, value)
        return {name: copy.deepcopy(getattr(twin, name)) for name in names}

    def text(self) -> str | None:
        """The pinned knobs as the link's ``pin=`` holds them (None: nothing pinned): a URL
        query of each knob's canonical text, in the page's order."""
        pinned = self.model.pinned
        if pinned is None:
            return None
        model = self.model
        return urllib.parse.urlencode(
            {name: _knobs.text(model.knob_param(name), pinned[name])
             for name in model.knob_names() if name in pinned})

    def twin(self):
        """The model of the page's class at the pinned knobs (None: nothing pinned), built once
        per pinned state; its results come from the results cache when computed before."""
        key = self.text()
        if key is None:
            self._twin = None
            return None
        if self._twin is None or self._twin[0] != key:
            self._twin = (key, type(self.model)(**self.model.pinned))
        return self._twin[1]

    def differences(self) -> list[tuple[str, str, str]]:
        """``(label, pinned text, live text)`` of each knob whose pinned value differs from the
        live one, in the page's order (none when nothing is pinned)."""
        model, pinned = self.model, self.model.pinned
        if pinned is None:
            return []
        out = []
        for name in model.knob_names():
            p = model.knob_param(name)
            then = _knobs.text(p, pinned.get(name, p.default))
            now = model.knob_text(name)
            if then != now:
                out.append((p.label, then, now))
        return out

    def words(self) -> str:
        """The knobs that differ in words, "Model seed = 1 (now 2), ..." (each value cut to
        ``VALUE_CHARS``, the whole to ``LINE_CHARS``); "the same settings as now" if none.
        Plain text: the page shows it through ``plain``."""
        diff = self.differences()
        if not diff:
            return "the same settings as now"
        text = ", ".join(f"{label} = {clip(then, VALUE_CHARS)} (now {clip(now, VALUE_CHARS)})"
                         for label, then, now in diff)
        return textwrap.shorten(text, LINE_CHARS, placeholder=" …")

    def line(self) -> str:
        """The line above the plots: "Pinned: " and ``words``; empty when nothing is pinned."""
        return "" if self.model.pinned is None else f"Pinned: {self.words()}"

    def title(self, plot) -> str:
        """The title of the pinned copy of panel ``plot``: its title without the figures it
        cites in brackets at the end (the live panel beside it names them), so that it keeps
        to one line as the live one does."""
        return f"Pinned: {_CITED.sub('', plot.title)}"

    def overlay(self, plot, element):
        """``element``, the live panel ``plot``, with the pinned state's curves and points
        drawn faded (``FADED``, group ``PINNED_GROUP``) under it, where the panel allows: the
        live and the pinned panel hold only curves and points (``OVERLAID``) and annotations,
        over the same axes, and the panel has no cloud. Otherwise, with nothing pinned, or
        while a served page computes the pinned state (``pending``), ``element`` itself (the
        pinned copy beside it shows the pinned state)."""
        twin = self.twin()
        if twin is None or plot.cloud is not None or self.pending == self.text():
            return element
        ours = _layers(element)
        if any(layer.group == PINNED_GROUP for layer in ours):
            return element  # overlaid already
        theirs = _layers(twin.drawing.panel_element(plot))
        data = [layer for layer in ours + theirs if not isinstance(layer, hv.element.Annotation)]
        if not data or not all(isinstance(layer, OVERLAID) for layer in data) or len(
                {tuple(d.name for d in layer.kdims) for layer in data}) != 1:
            return element
        faded = [style(layer.relabel(label="", group=PINNED_GROUP), alpha=FADED,
                       show_legend=False)
                 for layer in theirs if isinstance(layer, OVERLAID)]
        if isinstance(element, hv.Overlay):
            return element.clone(faded + list(element))
        return hv.Overlay(faded + [element])


def _layers(element) -> list:
    return list(element) if isinstance(element, hv.Overlay) else [element]
