"""Knob values as text: what a URL or a typed field may hold, and what the app writes back.

Every explorer's knobs are ``param`` parameters. A value arrives as text from two places, a
shared link (``?page=herding&seed=3``) and a typed field (the seed, the firing rate, w0), and
both go through ``parse``: it never reinterprets text (``1e9`` or ``3.7`` is not a whole
number, ``nan`` is not a number) and its refusals are sentences for the page, naming the knob by
its label and giving the allowed range; they quote what was sent (cut to ``_text.CLIP``
characters), so wherever they are shown they go through ``views.framework.text.plain``. ``text`` is the inverse: the canonical text of a value,
so that a URL written by the app reopens to exactly the same state.

``Field`` is the typed-field widget built on them: a text box that answers a refused value with
an inline message and restores the last good value.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np

import panel as pn
import param

from views.framework.text import plain, quote
from views.framework.workarounds import prompt_widget, steady_text

__all__ = ["parse", "text", "snap", "decimals", "describe", "Field", "parse_vector"]

_INTEGER = re.compile(r"[+-]?\d+")
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def decimals(step) -> int | None:
    """Decimal places of a slider step (0.05 -> 2); None when it has none."""
    if step is None or step <= 0:
        return None
    text = f"{step:.12f}".rstrip("0")
    return len(text.split(".")[1]) if "." in text else 0


def snap(p: param.Parameter, value):
    """A slider's float rounded to the decimals of its step: 1.4500000000000002 -> 1.45, so
    the URL, the page text and the computation all see the value the slider shows."""
    places = decimals(getattr(p, "step", None))
    if places is None or isinstance(p, (param.Integer, param.Boolean)):
        return value
    if isinstance(p, param.Range) and value is not None:
        return tuple(round(float(v), places) for v in value)
    if isinstance(p, param.Number) and isinstance(value, float) and math.isfinite(value):
        return round(value, places)
    return value


def _fmt(value) -> str:
    """A bound or value in words: whole numbers with thousands separators, floats shortest."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return f"{value:g}"


def describe(p: param.Parameter, bounds=None) -> str:
    """What a knob accepts, in words ("a whole number from 0 to 99,999")."""
    lo, hi = bounds if bounds is not None else (getattr(p, "bounds", None) or (None, None))
    if isinstance(p, param.Integer):
        kind = "a whole number"
    elif isinstance(p, param.Range):
        kind = "two numbers, the first below the second,"
    elif isinstance(p, param.Number):
        kind = "a number"
    elif isinstance(p, param.Boolean):
        return "true or false"
    elif isinstance(p, param.ListSelector):
        return "a comma-separated list of " + ", ".join(repr(str(o)) for o in _choices(p))
    elif isinstance(p, param.Selector):
        return "one of " + ", ".join(repr(str(o)) for o in _choices(p))
    else:
        return "text"
    if lo is not None and hi is not None:
        return f"{kind} from {_fmt(lo)} to {_fmt(hi)}"
    return kind


def _choices(p: param.Selector) -> list:
    names = getattr(p, "names", None) or {}
    return list(names.values()) if names else list(p.objects)


def parse(p: param.Parameter, raw, bounds=None):
    """The value of knob ``p`` written as ``raw`` (text), checked against ``bounds`` (default:
    the parameter's). Raises ``ValueError`` with a sentence for the page."""
    label = p.label or p.name
    raw_text = raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)
    s = raw_text.strip()
    if bounds is None:
        bounds = getattr(p, "bounds", None)

    def refuse(reason: str = ""):
        got = f"got {quote(raw_text)}" if s else "got nothing"
        raise ValueError(f"{label} must be {describe(p, bounds)}; {got}{reason}")

    if isinstance(p, param.Boolean):
        if s.lower() in ("true", "1", "yes", "on"):
            return True
        if s.lower() in ("false", "0", "no", "off"):
            return False
        refuse()
    if isinstance(p, param.ListSelector):  # before Selector: a subclass of it
        parts = [x.strip() for x in s.split(",")] if s else []
        choices = {str(o): o for o in p.objects}
        if any(x not in choices for x in parts) or len(set(parts)) != len(parts):
            refuse()
        return [o for o in p.objects if str(o) in parts]  # in the objects' order
    if isinstance(p, param.Selector):
        names = getattr(p, "names", None) or {}
        for name, obj in names.items():
            if s in (name, str(obj)):
                return obj
        for obj in p.objects:
            if s == str(obj):
                return obj
        refuse()
    if isinstance(p, param.Range):
        parts = [x for x in re.split(r"[\s,;\[\]()]+", s) if x]
        if len(parts) != 2 or not all(_NUMBER.fullmatch(x) for x in parts):
            refuse()
        lo, hi = (float(x) for x in parts)
        blo, bhi = bounds or (None, None)
        if (blo is not None and lo < blo) or (bhi is not None and hi > bhi) or lo > hi:
            refuse()
        return (lo, hi)
    if isinstance(p, param.Integer):
        if not _INTEGER.fullmatch(s):
            refuse()
        value = int(s)
    elif isinstance(p, param.Number):
        if not _NUMBER.fullmatch(s) or not math.isfinite(float(s)):
            refuse()
        value = float(s)
    else:
        return raw_text
    lo, hi = bounds or (None, None)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        refuse()
    return value


def text(p: param.Parameter, value) -> str:
    """The canonical text of a knob's value (what the app writes into the URL)."""
    if isinstance(p, param.Boolean):
        return "true" if value else "false"
    if isinstance(p, param.Range):
        return json.dumps([float(v) for v in value])
    if isinstance(p, param.ListSelector):
        return ",".join(str(v) for v in value)
    if isinstance(p, param.Integer):
        return str(int(value))
    if isinstance(p, param.Number):
        return repr(float(value))
    return str(value)


class Field(pn.viewable.Viewer):
    """A typed knob: a text box for ``explorer.<name>``.

    A value is parsed by ``Explorer.parse_knob`` (never reinterpreted: ``1e9`` is refused in a
    whole-number field, not read as 19). A refused value leaves the knob as it was, puts the
    last good value back in the box and shows why under it, with the allowed range."""

    def __init__(self, explorer, name: str, **params):
        super().__init__()
        self.explorer, self.knob = explorer, name
        p = explorer.param[name]
        self.input = prompt_widget(pn.widgets.TextInput(
            label=p.label, value=explorer.knob_text(name), description=p.doc,
            sizing_mode="stretch_width", **params))
        self.message = steady_text(pn.pane.Markdown(
            "", visible=False, sizing_mode="stretch_width", margin=(0, 10),
            css_classes=["ldx-field-message"], styles={"color": "#b00020", "font-size": "13px"}))
        self.input.param.watch(self._typed, "value")
        explorer.param.watch(self._changed, name)

    def _typed(self, event) -> None:
        current = self.explorer.knob_text(self.knob)
        if event.new == current:
            return
        try:
            value = self.explorer.parse_knob(self.knob, event.new)
        except ValueError as exc:
            # the box first, then the message: the browser gets them in this order, so a
            # message on screen always sits under the restored value
            self.input.value = current
            self.message.object = plain(f"{exc}. Kept {current}.")
            self.message.visible = True
            return
        self.message.visible = False
        setattr(self.explorer, self.knob, value)
        # the explorer may have normalised the value: show what it holds
        self.input.value = self.explorer.knob_text(self.knob)

    def _changed(self, event) -> None:
        self.input.value = self.explorer.knob_text(self.knob)

    def __panel__(self):
        return pn.Column(self.input, self.message, sizing_mode="stretch_width", margin=0)


def parse_vector(name: str, text: str, size: int) -> tuple[float, ...]:
    """Parse a typed vector: one number (repeated ``size`` times) or ``size`` comma-separated numbers.

    Raises ``ValueError`` with a message meant for the page, never a traceback.
    """
    parts = [p for p in str(text).replace(";", ",").replace(" ", ",").split(",") if p]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise ValueError(f"{name} must be numbers separated by commas, "
                         f"got {quote(text)}") from None
    if len(values) == 1:
        values = values * size
    if len(values) != size:
        raise ValueError(f"{name} needs 1 or {size} numbers, got {len(values)} in "
                         f"{quote(text)}")
    if not all(np.isfinite(values)):
        raise ValueError(f"{name} must be finite numbers, got {quote(text)}")
    return tuple(values)
