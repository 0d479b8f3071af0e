"""How a page lays out its panels (``Model.sections``): a declaration the model holds and the
page (``views.framework.page.Page``) reads. No Panel in it."""

from __future__ import annotations

from views.framework.declared import method_name

__all__ = ["Section"]


class Section:
    """A group of panels on the page (``Model.sections``): ``plots`` their methods in order
    (the functions, written bare after their ``def`` in the model's class body), ``header`` a
    model method returning a widget drawn above them (a play control), ``aside`` Markdown text
    drawn beside them. Kept by name, the panels' keys: ``plots`` and ``header`` are the names,
    ``functions`` and ``header_function`` the methods as declared."""

    def __init__(self, plots, header=None, aside: str = ""):
        self.functions = tuple(plots)
        self.plots = tuple(method_name(p, "Section") for p in self.functions)
        self.header_function = header
        self.header = None if header is None else method_name(header, "Section's header")
        self.aside = aside

    def __repr__(self) -> str:
        return f"Section({self.plots!r}, header={self.header!r}, aside={self.aside!r})"

    def __eq__(self, other) -> bool:
        return (isinstance(other, Section) and (self.plots, self.header, self.aside)
                == (other.plots, other.header, other.aside))

    def __hash__(self) -> int:
        return hash((self.plots, self.header, self.aside))
