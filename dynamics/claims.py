"""Paper claims, judged once: what a claim function returns, and its shared vocabulary.

A paper claim that the project judges ("the 2-stage search is fastest", "herding matches the
moments at rate 1/T") is one function beside the engine whose runs it reads
(``dynamics.doeblin.staged_restarts_claim``, ``dynamics.torus.uniform_filling_claim``, ...; the
names end in ``_claim``). It takes the run's results and returns a ``Verdict``: the paper's
statement, the numbers compared, the effect tested, the rule, its thresholds, its power and one
of three outcomes:

- **reproduced**: the rule's test came out the paper's way, beyond the measurement's noise;
- **differs**: it came out the other way, beyond that noise;
- **not decided**: the difference is inside the measurement's own noise (seeds, tie-breaks,
  Gibbs noise), or the run cannot judge the claim (too few seeds, a method not run).

A rule's thresholds are fixed before any result: each is a ``Threshold``, a number made once at
import as a module-level constant of the claim's module with the claim it serves, the rule and
why that value (``THRESHOLDS`` lists them all; ``docs/claims.md`` is their table, written by
``python -m views.claims_table``). A threshold computed from a run is a plain float, not one of
these, which is what ``tests/views/test_thresholds.py`` checks of every verdict.

A rule's *power* is the smallest difference it would detect at this size (for a z-test at
``Z``, ``Z`` standard errors of the effect): it is written beside the verdict, so that a
"reproduced" that no result could have failed reads as such.

The explorer pages and the paper gallery (``python -m views.figures``) call the same function
on the same results, so a run gets one verdict wherever it is read.
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field

import numpy as np

from dynamics.checks import MAX_ABS, check_array, check_positive, check_real

# ``stated``, the claim modules' decorator, is imported by name and left out of ``__all__``: it
# is not an engine function to call on data
__all__ = ["Verdict", "Threshold", "THRESHOLDS", "STATED", "REPRODUCED", "DIFFERS", "NOT_DECIDED",
           "OUTCOMES", "Z", "decide", "paired_difference", "mcnemar", "paired_error_difference",
           "equivalence"]

REPRODUCED, DIFFERS, NOT_DECIDED = "reproduced", "differs", "not decided"
OUTCOMES = (REPRODUCED, DIFFERS, NOT_DECIDED)

#: Every threshold made, in the order the claim modules define them.
THRESHOLDS: list = []
#: The claim functions (module.name) whose verdicts state their effect, rule, thresholds and
#: power (``stated``): the others are listed in ``docs/claims.md`` as still to do.
STATED: set = set()


def stated(fn):
    """Mark a claim function as one whose verdict states its effect, rule, ``Threshold``
    constants and power (the function itself is returned unchanged)."""
    STATED.add(f"{fn.__module__}.{fn.__qualname__}")
    return fn


class Threshold(float):
    """A claim's threshold: a float, fixed at import as a module-level constant named ``name``
    of the claim's module, with the claim it serves (``claim``, the function's name), the
    paper's statement it helps judge, the rule it enters and why that value. Arithmetic on it
    gives plain floats, so a value derived from a run can never pass for one of these."""

    def __new__(cls, value: float, *, name: str, claim: str, statement: str, rule: str,
                why: str):
        self = super().__new__(cls, value)
        self.name, self.claim, self.statement, self.rule, self.why = (name, claim, statement,
                                                                      rule, why)
        # the module whose constant it is: checked to hold it under ``name``
        self.module = sys._getframe(1).f_globals.get("__name__", "")
        THRESHOLDS.append(self)
        return self

    def __reduce__(self):  # a copy or a pickle is the number, not a second registered threshold
        return float, (float(self),)


#: Standard errors beyond which a difference is decided: two-sided 5 % for a normal statistic
#: (1.96), the convention of the papers' "significant".
Z = Threshold(1.96, name="Z", claim="dynamics.claims (every z rule)",
              statement="a difference the paper calls significant",
              rule="|effect| / SE >= Z decides; inside it: not decided",
              why="the two-sided 5 % level of a normal statistic")


@dataclass(frozen=True)
class Verdict:
    """The outcome of one paper claim on one run.

    ``claim`` names the claim (paper and figure or proposition), ``statement`` is the paper's
    statement, ``numbers`` the numbers the rule compared (name -> number or text), ``agrees``
    True (reproduced), False (differs) or None (not decided), ``measured`` our numbers in a
    sentence and ``why`` the rule's outcome in a sentence. ``effect`` names the quantity the
    rule tests, ``rule`` states the test, ``thresholds`` maps the names of its ``Threshold``
    constants to them and ``power`` says the smallest difference the rule detects at this size
    (empty where a claim does not state them yet)."""

    claim: str
    statement: str
    agrees: bool | None
    measured: str
    why: str
    numbers: dict = field(default_factory=dict)
    effect: str = ""
    rule: str = ""
    thresholds: dict = field(default_factory=dict)
    power: str = ""

    @property
    def result(self) -> str:
        """One of ``OUTCOMES``: ``"reproduced"``, ``"differs"`` or ``"not decided"``."""
        return {True: REPRODUCED, False: DIFFERS, None: NOT_DECIDED}[self.agrees]

    @property
    def outcome(self) -> str:
        """``"reproduced"``, ``"differs: <why>"`` or ``"not decided: <why>"``."""
        return REPRODUCED if self.agrees else f"{self.result}: {self.why}"

    @property
    def power_line(self) -> str:
        """The rule and its power in one phrase, for the line beside the verdict ("" if the
        claim does not state them)."""
        parts = ([f"rule: {self.rule}"] if self.rule else []) + (
            [f"power: {self.power}"] if self.power else [])
        return "; ".join(parts)

    @classmethod
    def from_checks(cls, claim: str, statement: str, checks, *, measured: str, why: str,
                    numbers: dict | None = None, **stated) -> Verdict:
        """The verdict of a rule made of checks, ``(held, how it fails)`` pairs, or triples
        ``(outcome, how it fails, how it is not decided)`` with ``outcome`` True, False or None:
        it differs when a check failed (the failed checks say how), is not decided when none
        failed but some were undecided (they say how), and agrees when every check held.
        ``stated``: ``effect``, ``rule``, ``thresholds``, ``power``."""
        failed, open_ = [], []
        for check in checks:
            held, how = check[0], check[1]
            if held is None:
                open_.append(check[2] if len(check) > 2 else how)
            elif not held:
                failed.append(how)
        agrees = False if failed else (None if open_ else True)
        return cls(claim=claim, statement=statement, agrees=agrees, measured=measured,
                   why="; ".join(failed or open_) or why, numbers=numbers or {}, **stated)


def decide(effect: float, se: float, *, margin: float = 0.0, z: float = Z) -> bool | None:
    """A difference's outcome: True when ``effect`` exceeds ``margin`` by ``z`` standard errors
    ``se``, False when it is below ``margin`` by as many, None (not decided) in between. Exact
    at the boundary: a difference of exactly ``z`` SE decides; a difference of 0 never does."""
    effect, margin = check_real("effect", effect), check_real("margin", margin)
    se, z = check_positive("se", se, allow_zero=True), check_positive("z", z)
    gap = effect - margin
    if gap == 0 or abs(gap) < z * se:
        return None
    return bool(gap > 0)


def paired_difference(a, b) -> tuple[float, float]:
    """The mean of ``a - b`` over paired measurements (seeds, teachers, splits) and its
    standard error (sample standard deviation over sqrt(n); 0 for one pair)."""
    a = check_array("a", a, ndim=1, max_abs=MAX_ABS)
    b = check_array("b", b, shape=a.shape, max_abs=MAX_ABS)
    if a.size == 0:
        raise ValueError("a and b must hold at least one pair, got none")
    d = a - b
    se = float(d.std(ddof=1) / math.sqrt(d.size)) if d.size > 1 else 0.0
    return float(d.mean()), se


def _wrong(name: str, value) -> np.ndarray:
    x = check_array(name, value, ndim=1)
    if not np.all((x == 0) | (x == 1)):
        raise ValueError(f"{name} must hold 0/1 (or False/True) per test case")
    return x.astype(bool)


def mcnemar(wrong_a, wrong_b) -> tuple[int, int, float]:
    """McNemar's paired comparison of two classifiers on the same test cases (``wrong_a``,
    ``wrong_b``: per case, whether each got it wrong): the cases only A gets wrong, those only
    B gets wrong, and the statistic (only B - only A) / sqrt(only A + only B) (positive: A
    makes fewer errors; 0 when they never disagree). Its standard error is 1, so
    ``decide(statistic, 1)`` is the two-sided 5 % test, and Z sqrt(only A + only B) cases the
    smallest difference in errors it detects."""
    a = _wrong("wrong_a", wrong_a)
    b = _wrong("wrong_b", wrong_b)
    if a.shape != b.shape:
        raise ValueError(f"wrong_b must have wrong_a's length {a.size}, got {b.size}")
    only_a, only_b = int((a & ~b).sum()), int((~a & b).sum())
    n = only_a + only_b
    return only_a, only_b, (only_b - only_a) / math.sqrt(n) if n else 0.0


def paired_error_difference(wrong_a, wrong_b) -> tuple[float, float]:
    """The difference of two classifiers' error rates on the same test cases (A's minus B's)
    and its standard error from the discordant cases (the paired variance
    (b + c - (b - c)^2 / n) / n^2, b and c the cases only A, only B gets wrong)."""
    only_a, only_b, _ = mcnemar(wrong_a, wrong_b)
    n = np.size(wrong_a)
    if n == 0:
        raise ValueError("wrong_a must hold at least one test case")
    d = (only_a - only_b) / n
    return d, float(math.sqrt(max(only_a + only_b - (only_a - only_b) ** 2 / n, 0.0)) / n)


def equivalence(effect: float, se: float, margin: float, *, z: float = Z) -> bool | None:
    """An "as good as" claim as an equivalence test with a stated ``margin`` (two one-sided
    tests): True when the interval ``effect`` +- ``z`` ``se`` lies inside (-margin, margin),
    False when it lies wholly outside (a difference larger than the margin), None otherwise:
    a noisier measurement is not decided, it does not pass more easily."""
    effect = check_real("effect", effect)
    se, z = check_positive("se", se, allow_zero=True), check_positive("z", z)
    margin = check_positive("margin", margin)
    low, high = effect - z * se, effect + z * se
    if -margin < low and high < margin:
        return True
    if low >= margin or high <= -margin:
        return False
    return None
