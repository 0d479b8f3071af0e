"""The source papers: one ``Paper`` record each, the single place their authors, titles and
venues are written.

A page declares the record it comes from (``paper = CHEN_WELLING``) beside the sections it
reproduces; the home page's cards, a page's header, the gallery's index and the README's paper
list and explorer table (``python -m views.readme``) all derive their citations from it. The
texts themselves are the project's seeds (``seed``: a file name in the seeds' folder, whose
``INDEX.md`` says what the project takes from each).
"""

from __future__ import annotations

import dataclasses

__all__ = ["Paper", "PAPERS", "CHEN_WELLING", "STEINHARDT", "OPPER", "LUO", "DAI"]


@dataclasses.dataclass(frozen=True)
class Paper:
    """One source paper.

    ``key`` is a Python name (the paper's gallery module, ``views/figures/<key>.py``, has it);
    ``authors`` the full names in the paper's order; ``venue`` where it appeared (a book,
    proceedings or a thesis's university); ``seed`` the file of its extracted text among the
    seeds.
    """

    key: str
    authors: tuple[str, ...]
    title: str
    year: int
    venue: str
    seed: str

    def __post_init__(self):
        if not isinstance(self.key, str) or not self.key.isidentifier():
            raise ValueError(f"key must be a Python name, got {self.key!r}")
        if (not isinstance(self.authors, tuple) or not self.authors
                or not all(isinstance(a, str) and a.strip() for a in self.authors)):
            raise TypeError(f"authors must be a non-empty tuple of names, got {self.authors!r}")
        for name in ("title", "venue", "seed"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise TypeError(f"{name} must be a non-empty string, got {value!r}")
        if isinstance(self.year, bool) or not isinstance(self.year, int):
            raise TypeError(f"year must be an integer, got {self.year!r}")

    @property
    def surnames(self) -> tuple[str, ...]:
        """The authors' family names (the last word of each name)."""
        return tuple(name.split()[-1] for name in self.authors)

    @property
    def short(self) -> str:
        """The authors as a text cites them: "Opper", "Chen & Welling", "Dai et al."."""
        names = self.surnames
        if len(names) > 2:
            return f"{names[0]} et al."
        return " & ".join(names)

    @property
    def citation(self) -> str:
        """One line of plain text: authors, title and year ("Opper, A Bayesian Approach to
        Online Learning (1998)")."""
        return f"{self.short}, {self.title} ({self.year})"

    @property
    def reference(self) -> str:
        """The full reference in Markdown: every author, the title in italics, venue and year.
        Markdown's emphasis characters in the fields are escaped."""
        authors = (self.authors[0] if len(self.authors) == 1 else
                   ", ".join(self.authors[:-1]) + " and " + self.authors[-1])
        return (f"{_escape(authors)}, *{_escape(self.title)}*, {_escape(self.venue)}, "
                f"{self.year}")


def _escape(text: str) -> str:
    """``text`` with the characters Markdown reads as emphasis, code or links escaped."""
    return "".join("\\" + c if c in "\\`*_[]<>" else c for c in text)


CHEN_WELLING = Paper(
    key="chen_welling",
    authors=("Yutian Chen", "Max Welling"),
    title="Herding as a Learning System with Edge-of-Chaos Dynamics",
    year=2016,
    venue="a chapter of Perturbations, Optimization, and Statistics (MIT Press; "
          "arXiv:1602.03014)",
    seed="000_dc374f75973172a1.txt",
)

STEINHARDT = Paper(
    key="steinhardt",
    authors=("Jacob Steinhardt", "Percy Liang"),
    title="Learning Fast-Mixing Models for Structured Prediction",
    year=2015,
    venue="Proceedings of the 32nd International Conference on Machine Learning (ICML)",
    seed="002_cf4a4d0fec6d2f0a.txt",
)

OPPER = Paper(
    key="opper",
    authors=("Manfred Opper",),
    title="A Bayesian Approach to Online Learning",
    year=1998,
    venue="a chapter of On-Line Learning in Neural Networks, ed. David Saad "
          "(Cambridge University Press)",
    seed="001_6b2680910167b42e.txt",
)

LUO = Paper(
    key="luo",
    authors=("Simon Luo", "Mahito Sugiyama"),
    title="Bias-Variance Trade-Off in Hierarchical Probabilistic Models Using Higher-Order "
          "Feature Interactions",
    year=2019,
    venue="Proceedings of the AAAI Conference on Artificial Intelligence",
    seed="003_b36d6cc556811630.txt",
)

DAI = Paper(
    key="dai",
    authors=("Bo Dai",),
    title="Learning over functions, distributions and dynamics via stochastic optimization",
    year=2018,
    venue="PhD thesis, Georgia Institute of Technology",
    seed="004_ffa802d879683cce.txt",
)

#: Every source paper, in the order the gallery's report and the README list them.
PAPERS = (CHEN_WELLING, STEINHARDT, OPPER, LUO, DAI)

