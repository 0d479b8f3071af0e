"""Paper claims, judged once: what a claim function returns.

A paper claim that the project judges ("the 2-stage search is fastest", "herding matches the
moments at rate 1/T") is one function beside the engine whose runs it reads
(``dynamics.doeblin.staged_restarts_claim``, ``dynamics.torus.uniform_filling_claim``, ...; the
names end in ``_claim``). It takes the run's results and returns a ``Verdict``: the paper's
statement, the numbers compared, whether they agree with it and why. The explorer pages and the
paper gallery (``python -m views.figures``) call the same function on the same results, so a
run gets one verdict wherever it is read. Each function's docstring says which statement of the
paper it judges and by what rule.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Verdict"]


@dataclass(frozen=True)
class Verdict:
    """The outcome of one paper claim on one run.

    ``claim`` names the claim (paper and figure or proposition), ``statement`` is the paper's
    statement, ``numbers`` the numbers the rule compared (name -> number or text), ``agrees``
    True or False (None: this run cannot judge it, for example a sweep not finished),
    ``measured`` our numbers in a sentence and ``why`` the rule's outcome in a sentence (how
    the run agrees or how it differs)."""

    claim: str
    statement: str
    agrees: bool | None
    measured: str
    why: str
    numbers: dict = field(default_factory=dict)

    @property
    def outcome(self) -> str:
        """``"reproduced"``, ``"differs: <why>"`` or ``"not judged: <why>"``."""
        if self.agrees is None:
            return f"not judged: {self.why}"
        return "reproduced" if self.agrees else f"differs: {self.why}"

    @classmethod
    def from_checks(cls, claim: str, statement: str, checks, *, measured: str, why: str,
                    numbers: dict | None = None) -> Verdict:
        """The verdict of a rule made of checks, ``(held, how it fails)`` pairs: it agrees when
        every check held, and ``why`` says how; otherwise the failed checks say how it
        differs."""
        failed = [how for held, how in checks if not held]
        return cls(claim=claim, statement=statement, agrees=not failed, measured=measured,
                   why="; ".join(failed) if failed else why, numbers=numbers or {})
