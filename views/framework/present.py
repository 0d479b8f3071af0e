"""A teacher's link: how a page is shown, beside what it shows (its knobs).

Two keys of a page's URL say how it is shown, not what it computes:

- ``present=1``: the presentation mode: no sidebar, the plots large with larger fonts, the
  controls the link keeps (``show``) in a row above them;
- ``show=seed,n_states``: only these controls are on the page; every other knob stays at the
  link's value (no widget moves it).

``Presentation.from_query`` reads both from a query the way ``Explorer.from_query`` reads the
knobs: never raising for what a link holds, and saying in a sentence (plain text, quoting the
link) what it did not use. ``query`` writes them back, so a link the app wrote reopens the same
view.
"""

from __future__ import annotations

from dataclasses import dataclass

from views.framework.knobs import CHOICE_CHARS, check_length
from views.framework.text import quote

__all__ = ["Presentation", "PRESENT_KEYS"]

#: The query keys of the presentation (not knobs: ``Explorer.from_query`` does not see them).
PRESENT_KEYS = ("present", "show")
#: At most this many unknown control names are quoted in a message.
_NAMED = 5


def _last_text(raws) -> str:
    raws = list(raws) if isinstance(raws, (list, tuple)) else [raws]
    raw = raws[-1] if raws else b""
    return raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)


@dataclass(frozen=True)
class Presentation:
    """How a page is shown: ``present`` the presentation mode, ``show`` the names of the
    controls kept on the page (None: all of them)."""

    present: bool = False
    show: tuple[str, ...] | None = None

    @classmethod
    def from_query(cls, explorer_cls, args: dict) -> tuple["Presentation", list[str]]:
        """The presentation a link asks for on the page of ``explorer_cls``, and a sentence
        for each part of it that was not used."""
        messages = []
        present = False
        if "present" in args:
            raw = _last_text(args["present"])
            try:
                check_length("present", raw, CHOICE_CHARS)
            except ValueError as exc:
                messages.append(f"{exc}.")
                raw = "0"
            raw = raw.strip().lower()
            if raw in ("1", "true", "yes", "on"):
                present = True
            elif raw not in ("0", "false", "no", "off"):
                messages.append(f"present must be 1 or 0; got {quote(raw)}.")
        show = None
        knobs = explorer_cls.setting_names()
        if "show" in args:
            text = _last_text(args["show"])
            try:  # at most every control, each named once: a list of choices' caps
                check_length("show", text, len(knobs) * (CHOICE_CHARS + 1))
                names = [n.strip() for n in text.split(",") if n.strip()]
                if len(names) > len(knobs):
                    raise ValueError(f"show must name at most {len(knobs)} controls, got "
                                     f"{len(names):,}")
            except ValueError as exc:
                messages.append(f"{exc}; every control is shown.")
                names = None
        if "show" in args and names is not None:
            unknown = [n for n in names if n not in knobs]
            show = tuple(dict.fromkeys(n for n in names if n in knobs))
            if unknown:
                named = ", ".join(quote(n) for n in unknown[:_NAMED])
                more = f" (and {len(unknown) - _NAMED:,} more)" if len(unknown) > _NAMED else ""
                messages.append(f"show names no control {named}{more} of this page; the "
                                "others named are shown.")
        return cls(present, show), messages

    def query(self) -> dict[str, str]:
        """The keys that reopen this presentation (none for the default one)."""
        out = {}
        if self.present:
            out["present"] = "1"
        if self.show is not None:
            out["show"] = ",".join(self.show)
        return out

    @staticmethod
    def without(args: dict) -> dict:
        """``args`` without the presentation's keys (what ``Explorer.from_query`` reads)."""
        return {k: v for k, v in args.items()
                if (k.decode(errors="replace") if isinstance(k, bytes) else k)
                not in PRESENT_KEYS}
