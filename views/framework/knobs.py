"""Knob values as text: what a URL or a typed field may hold, and what the app writes back.

Every explorer's knobs are ``param`` parameters. A value arrives as text from two places, a
shared link (``?page=herding&seed=3``) and a typed field (the seed, the firing rate, w0), and
both go through ``parse``: it never reinterprets text (``1e9`` or ``3.7`` is not a whole
number, ``nan`` is not a number) and its refusals are sentences for the page, naming the knob by
its label and giving the allowed range; they quote what was sent (cut to ``_text.CLIP``
characters), so wherever they are shown they go through ``views.framework.text.plain``.
``text`` is the inverse: the canonical text of a value, so that a URL written by the app
reopens to exactly the same state.

Every value is bounded before it is read (``limits``, by the kind of knob; ``check_query`` for
a link as a whole, ``REPEATS`` for one key given many times): what a page spends on a value,
in parsing it, in a figure's title or in a file, must not grow with what a client sends.

The page's typed-field widget built on them (a text box that answers a refused value with an
inline message and restores the last good value) is ``views.framework.field.Field``.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np

import param

from views.framework.text import quote

__all__ = ["parse", "text", "snap", "decimals", "describe", "parse_vector", "limits",
           "check_length", "check_query", "NUMBER_CHARS", "RANGE_CHARS", "CHOICE_CHARS",
           "TEXT_CHARS", "QUERY_CHARS", "REPEATS"]

#: The most characters a knob's value may have as text, from a link or a typed field, by kind
#: of knob; a longer value is refused by name before it is read (``limits``, ``parse``).
#: A whole number or a decimal (sign, digits, point, exponent: a float's ``repr`` is at most 24).
NUMBER_CHARS = 40
#: Two numbers and what separates them.
RANGE_CHARS = 100
#: One choice's name (a menu, a flag, one item of a list of choices).
CHOICE_CHARS = 100
#: Free text (herding's w0: K numbers).
TEXT_CHARS = 200
#: A link's query as a whole: its keys and values, one separator each (``check_query``). Far
#: above the longest link a page writes, with every knob at its longest text.
QUERY_CHARS = 20_000
#: Values a link may give one key: a key given more often is not used at all (up to this many,
#: the last one is).
REPEATS = 10

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


def limits(p: param.Parameter) -> tuple[int, int | None]:
    """``(characters, items)``: the most characters a value of knob ``p`` may have as text,
    and for a list of choices the most items (its number of choices; None for other knobs)."""
    if isinstance(p, param.ListSelector):
        items = len(_choices(p))
        return items * (CHOICE_CHARS + 1), items
    if isinstance(p, (param.Boolean, param.Selector)):
        return CHOICE_CHARS, None
    if isinstance(p, param.Range):
        return RANGE_CHARS, None
    if isinstance(p, param.Number):  # param.Integer too
        return NUMBER_CHARS, None
    return TEXT_CHARS, None


def check_length(label: str, text, chars: int) -> None:
    """Refuse ``text`` (``ValueError`` naming ``label``, with the cap, quoting the text's
    start: ``quote``) when it is longer than ``chars`` characters."""
    if len(text) > chars:
        raise ValueError(f"{label} must be at most {chars:,} characters, got {len(text):,}: "
                         f"{quote(text)}")


def _values(raws) -> list:
    return list(raws) if isinstance(raws, (list, tuple)) else [raws]


def _chars(value) -> int:
    return len(value) if isinstance(value, (str, bytes)) else len(repr(value))


def check_query(args: dict) -> None:
    """Refuse a link's query (``ValueError``, with the cap) whose keys and values (name ->
    list of values, as ``pn.state.session_args`` gives it) hold more than ``QUERY_CHARS``
    characters in all, counting one separator a key and a value."""
    total = 0
    for key, raws in args.items():
        total += _chars(key) + sum(_chars(v) + 2 for v in _values(raws))
    if total > QUERY_CHARS:
        raise ValueError(f"the link's settings must be at most {QUERY_CHARS:,} characters, "
                         f"got {total:,}")


def parse(p: param.Parameter, raw, bounds=None):
    """The value of knob ``p`` written as ``raw`` (text), checked against ``bounds`` (default:
    the parameter's). Raises ``ValueError`` with a sentence for the page; a value longer than
    ``limits`` allows is refused before it is read."""
    label = p.label or p.name
    chars, items = limits(p)
    raw_text = raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)
    check_length(label, raw_text, chars)
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
        if len(parts) > items:
            raise ValueError(f"{label} must list at most {items} choices, got {len(parts):,}")
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


def parse_vector(name: str, text: str, size: int) -> tuple[float, ...]:
    """Parse a typed vector: one number (repeated ``size`` times) or ``size`` comma-separated numbers.

    Raises ``ValueError`` with a message meant for the page, never a traceback; text longer
    than ``TEXT_CHARS`` is refused before it is read.
    """
    check_length(name, str(text), TEXT_CHARS)
    parts = [p for p in str(text).replace(";", ",").replace(" ", ",").split(",") if p]
    if len(parts) > max(size, 1):
        raise ValueError(f"{name} needs 1 or {size} numbers, got {len(parts):,} in "
                         f"{quote(text)}")
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
