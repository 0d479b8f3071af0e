"""A model built from a URL's query (``Model.from_query``, in two halves: ``unchecked_query``
applies the link's values, ``checked_query`` computes them and falls back to the defaults), read
through the model's public names only. What a link may hold is bounded
(``views.framework.knobs``); the sentences a link earns quote it as plain text.
"""

from __future__ import annotations

from views.framework import knobs as _knobs
from views.framework import pin as _pin
from views.framework.text import clip, quote
from views.framework.timeline import alias_time

__all__ = ["unchecked_query", "checked_query", "UNKNOWN_NAMED"]

#: Unknown names a link's notice quotes (the rest are counted): a long crafted link must not
#: fill the page.
UNKNOWN_NAMED = 5


def unchecked_query(cls, args: dict) -> tuple:
    """``Model.from_query``'s first half for model class ``cls``: the explorer with the link's
    valid values applied, not computed; the sentences so far; and the link's time (None: none). Computes nothing,
    so a served page can compute the settings off the event loop (``warm``) before
    ``checked_query``."""
    messages, values, unknown = [], {}, []
    time = pin = None
    try:
        _knobs.check_query(args)
    except ValueError as exc:
        messages.append(f"{exc}: the page shows the default settings.")
        args = {}
    for key, raws in args.items():
        key = key.decode(errors="replace") if isinstance(key, bytes) else str(key)
        if key == "page":
            continue
        raws = list(raws) if isinstance(raws, (list, tuple)) else [raws]
        if key == _pin.PIN_KEY:  # the pinned state's knobs: read once the page's are
            if len(raws) > _knobs.REPEATS:
                messages.append(f"{_pin.PREFIX}pin was given {len(raws):,} times, more than "
                                f"the {_knobs.REPEATS} read: nothing is pinned.")
            elif raws:
                pin = raws[-1]
            continue
        timed = cls.timeline is not None and (key == "t" or key in cls.timeline.aliases)
        known = cls.setting_known(key)
        if len(raws) > _knobs.REPEATS and (timed or known):
            label = cls.knob_param(key).label if known else key
            messages.append(f"{label} was given {len(raws):,} times, more than the "
                            f"{_knobs.REPEATS} read: none was used.")
            continue
        if timed:
            if raws and key != "t":  # an older link's frame knob: its time
                time = alias_time(raws[-1], cls.timeline.aliases[key])
            elif raws:
                time = raws[-1]
            continue
        if not known:
            unknown.append(key)
            continue
        if not raws:
            continue
        if len(raws) > 1:
            messages.append(f"{cls.knob_param(key).label} was given {len(raws)} times: "
                            "the last one was used.")
        try:
            values[key] = _knobs.parse(cls.knob_param(key), raws[-1])
        except ValueError as exc:
            messages.append(f"{exc}.")
    if unknown:
        named = ", ".join(quote(k) for k in unknown[:UNKNOWN_NAMED])
        more = (f" (and {len(unknown) - UNKNOWN_NAMED:,} more)"
                if len(unknown) > UNKNOWN_NAMED else "")
        messages.insert(0, f"there is no setting {named}{more} on this page."
                        if len(unknown) == 1 else
                        f"there are no settings {named}{more} on this page.")
    explorer = cls(**values)
    for key in [k for k in values if k in cls.knob_names()]:
        try:
            explorer.validate(key, getattr(explorer, key))
        except ValueError as exc:
            messages.append(f"{exc}.")
            setattr(explorer, key, cls.param[key].default)
    if explorer.notice:
        messages.append(explorer.notice)
    if pin is not None:
        explorer.pinned = _pinned(cls, pin, messages)
    return explorer, messages, time


def _pinned(cls, raw, messages: list[str]) -> dict | None:
    """The knobs of a link's ``pin=`` value ``raw``, read as a link's knobs are (a refused
    value keeps its default, said in a sentence starting ``pin.PREFIX`` added to
    ``messages``); None when it is refused as a whole, or when no knob value in it could be
    read (a pin of nothing the link chose would show a second copy of the defaults)."""
    args, notes = _pin.split(cls, raw)
    messages += notes
    if args is None:
        return None
    twin, notes, _ = unchecked_query(cls, args)
    messages += [_pin.PREFIX + note for note in notes]
    if not any(raws and _reads(cls, name, raws[-1]) for name, raws in args.items()):
        messages.append(f"{_pin.PREFIX}no knob value in it could be read: nothing is pinned.")
        return None
    return {name: getattr(twin, name) for name in cls.knob_names()}


def _reads(cls, name: str, raw) -> bool:
    """Whether a link's text ``raw`` is a value of knob ``name`` (``knobs.parse`` takes it)."""
    try:
        _knobs.parse(cls.knob_param(name), raw)
    except ValueError:
        return False
    return True


def checked_query(cls, explorer, messages: list[str], time,
                  failure: BaseException | None = None) -> tuple:
    """``Model.from_query``'s second half: compute the settings ``unchecked_query`` applied (a
    served page computed them in a thread first, ``failure`` being what that raised, so
    that here the result is a cache hit or the failure is not computed again), fall back
    to the defaults if they cannot be computed together, and apply the link's time."""
    try:
        if failure is not None:
            raise failure
        explorer.result()
    except Exception as exc:  # noqa: BLE001 - any failure: fall back to the defaults
        messages.append(f"these settings could not be computed together ({clip(exc, 300)});"
                        " the page shows the default settings instead.")
        pinned, explorer = explorer.pinned, cls()
        explorer.pinned = pinned
    if time is not None:
        try:
            explorer.t = explorer.parse_time(time)
        except ValueError as exc:
            messages.append(f"{exc}.")
    explorer.notice = " ".join(messages)
    return explorer, messages
