"""How a page lays out its panels (``Model.sections``): a declaration the model holds and the
page (``views.framework.page.Page``) reads. No Panel in it."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Section"]


@dataclass(frozen=True)
class Section:
    """A group of panels on the page (``Model.sections``): ``plots`` names their methods in
    order, ``header`` a model method returning a widget drawn above them (a play control),
    ``aside`` Markdown text drawn beside them."""

    plots: tuple[str, ...]
    header: str | None = None
    aside: str = ""
