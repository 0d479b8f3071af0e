"""The herded single neuron: Sturmian sequences from a one-line learning rule.

Chen & Welling, *Herding as a Learning System with Edge-of-Chaos Dynamics*, section 1.2.6,
"Example: Herding a Single Neuron". Herding (eqs 1.7-1.8) with the one-dimensional feature
phi(x) = x on the states x in {0, 1} and the moment phi_bar = pi (the firing rate) becomes

    s_t = I(w_{t-1} > 0)                     (eq 1.25)
    w_t = w_{t-1} + pi - s_t                 (eq 1.26)

an interval translation map. Its properties, all computed or checked here:

- (pi - 1, pi] is invariant (eq 1.28, Prop 1.5), and the discrepancy
  D_T = sum_{t<=T} s_t - T pi = w_0 - w_T (eq 1.29) obeys |D_T| <= 1 once w is inside it,
  |D_T| <= 1/2 for w_0 = pi - 1/2 (Cor 1.6, eq 1.30).
- For irrational pi the states form a Sturmian sequence: M(T) = T + 1 distinct words of length T
  (section "Weak Chaos", below eq 1.37); for pi = p/q they are periodic with period q.
- pi = golden mean, w_0 = 2 pi - 1 gives the rabbit (Fibonacci) sequence (Fig. 1.9).

Names: the paper's pi is ``rate`` here (``pi`` is the circle constant in code).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from numba import njit

from dynamics.checks import (MAX_STEPS, check_array, check_count, check_flag, check_in_range,
                              check_instance, check_positive, check_real, describe)
from dynamics.claims import Threshold, Verdict, stated
from dynamics.herding import word_counts

__all__ = [
    "GOLDEN_MEAN",
    "RATE_PRESETS",
    "NeuronResult",
    "herd_neuron",
    "rabbit_sequence",
    "invariant_interval",
    "discrepancy_bound",
    "bound_statement",
    "special_starts",
    "rational_period",
    "complexity",
    "sturmian_claim",
    "FLOAT_ROUNDING",
]

#: The golden mean phi = (sqrt(5) - 1) / 2 = 0.618..., the firing rate of the "Fibonacci neuron".
GOLDEN_MEAN = (math.sqrt(5.0) - 1.0) / 2.0

#: Firing rates worth looking at, by readable label: three irrational rates (Sturmian sequences,
#: M(T) = T + 1) and one rational rate for contrast (periodic with period 5).
RATE_PRESETS: dict[str, float] = {
    "golden mean (sqrt5 - 1)/2": GOLDEN_MEAN,
    "1/sqrt2": 1.0 / math.sqrt(2.0),
    "pi - 3": math.pi - 3.0,
    "2/5 (rational)": 2.0 / 5.0,
}

# Fixed-point grid of the kernel: weights are integers in units of 2**-61. |w| <= 2 keeps every
# intermediate value below 2**63 (|w| <= 2 -> |w + rate - s| <= 3 < 4 = 2**63 / 2**61).
_GRID_BITS = 61
_ONE = 1 << _GRID_BITS
_FIXED_RANGE = 2


@dataclass(frozen=True)
class NeuronResult:
    """A run of the herded neuron (eqs 1.25-1.26).

    Attributes
    ----------
    states : ndarray of int64, shape (steps,)
        s_1, ..., s_T in {0, 1}; ``states[t - 1]`` is s_t.
    weights : ndarray of float64, shape (steps + 1,)
        w_0, w_1, ..., w_T; row 0 is the initial weight.
    discrepancy : ndarray of float64, shape (steps,)
        D_T = sum_{t<=T} s_t - T * rate for T = 1, ..., steps (eq 1.27; equals w_0 - w_T, eq 1.29).
        Computed from ``states`` on first access and cached: it is derived data, and leaving it
        out of the run saves a third of the run's memory traffic (the kernel is memory-bound).
    rate : float
        The firing rate pi (the moment phi_bar).
    w0 : float
        The initial weight.
    firing_rate : float
        The empirical firing rate (1/T) sum_t s_t at T = steps.
    max_abs_discrepancy : float
        max_T |D_T| (computed on first access, like ``discrepancy``).
    """

    states: np.ndarray
    weights: np.ndarray
    rate: float
    w0: float
    firing_rate: float

    @functools.cached_property
    def discrepancy(self) -> np.ndarray:
        out = np.empty(self.states.size, dtype=np.float64)
        _discrepancy_kernel(self.states, self.rate, out)
        return out

    @functools.cached_property
    def max_abs_discrepancy(self) -> float:
        return float(np.abs(self.discrepancy).max())


@njit(cache=True, nogil=True)
def _neuron_kernel(rate, w0, r_fixed, w_fixed, t_start, states, weights):
    """Eqs 1.25-1.26; returns the number of firings.

    Steps t < t_start: the monotone transient from |w0| > 2 (s constant, weights in closed form).
    From t_start on the weight is an exact integer in units of 2**-61 (1 << 61 units = 1.0).
    The loop is bound by memory writes (16 bytes per step), not by the arithmetic.
    """
    n = states.size
    weights[0] = w0
    fire0 = 1 if w0 > 0.0 else 0
    count = 0
    for t in range(t_start):
        states[t] = fire0
        count += fire0
        if fire0:
            weights[t + 1] = w0 - (t + 1) * (1.0 - rate)
        else:
            weights[t + 1] = w0 + (t + 1) * rate
    one = np.int64(1) << 61
    scale = 1.0 / one
    w = w_fixed
    for t in range(t_start, n):
        fire = 1 if w > 0 else 0
        w += r_fixed - fire * one
        states[t] = fire
        count += fire
        weights[t + 1] = w * scale
    return count


@njit(cache=True, nogil=True)
def _discrepancy_kernel(states, rate, out):
    """D_T = sum_{t<=T} s_t - T rate for T = 1..n (eq 1.27), same arithmetic as _neuron_kernel."""
    count = 0
    for t in range(states.size):
        count += states[t]
        out[t] = count - (t + 1) * rate


def _check_finite(name: str, value) -> float:
    try:
        x = check_real(name, value, finite=False)
    except ValueError as exc:
        raise ValueError(f"{name} must be a finite real number, got {describe(value)}") from exc
    if not math.isfinite(x):
        raise ValueError(f"{name} must be a finite real number, got {x!r}")
    return x


def _fixed_point_start(rate: float, w0: float, steps: int) -> tuple[int, int, int]:
    """Exact setup of the fixed-point kernel: (rate in grid units, w at t_start in grid units,
    t_start = length of the monotone transient from |w0| > 2, at most ``steps``)."""
    r = Fraction(rate)
    w = Fraction(w0)
    t_start = 0
    if w > _FIXED_RANGE:  # s = 1 while w > 0: w_t = w0 - t (1 - rate) until w_t <= 2
        t_start = steps if r == 1 else min(steps, math.ceil((w - _FIXED_RANGE) / (1 - r)))
        w = w - t_start * (1 - r)
    elif w < -_FIXED_RANGE:  # s = 0 while w <= 0: w_t = w0 + t rate until w_t >= -2
        t_start = steps if r == 0 else min(steps, math.ceil((-_FIXED_RANGE - w) / r))
        w = w + t_start * r
    r_fixed = round(r * _ONE)
    # Rounding w UP to the grid keeps every later decision I(w > 0) exact: with increments on the
    # grid, w + m g > 0  <=>  m > -w/g  <=>  m + ceil(w/g) > 0 for every integer m.
    w_fixed = math.ceil(w * _ONE) if t_start < steps else 0
    return r_fixed, w_fixed, t_start


def herd_neuron(rate: float, steps: int, *, w0: float = 0.0) -> NeuronResult:
    """Herd a single binary neuron with firing rate ``rate`` (Chen & Welling, eqs 1.25-1.26).

    s_t = I(w_{t-1} > 0),  w_t = w_{t-1} + rate - s_t,  t = 1, ..., steps.

    Parameters
    ----------
    rate : float
        The target firing rate pi in [0, 1] (the moment phi_bar of the feature phi(x) = x).
    steps : int
        Number of steps T, in [1, MAX_STEPS].
    w0 : float, keyword-only
        Initial weight (any finite value). Inside the invariant interval (rate - 1, rate]
        (Prop 1.5) the weights stay there; outside they move monotonically into it.

    Returns
    -------
    NeuronResult
        ``states`` (steps,), ``weights`` (steps + 1,) with ``weights[0] == w0``, the discrepancy
        D_T = sum_{t<=T} s_t - T rate (steps,), and scalar summaries.

    Notes
    -----
    Precision. The kernel does not accumulate ``w += rate - s`` in floating point: it runs the
    same recursion in exact integer arithmetic on a grid of 2**-61 (w0 rounded up to the grid,
    which leaves every comparison w > 0 unchanged). Hence the states are *exactly* those of
    eqs 1.25-1.26 in real arithmetic for the given float64 values of ``rate`` and ``w0``, for any
    number of steps, whenever rate >= 2**-9 or rate is a multiple of 2**-61; a smaller rate is
    rounded to the nearest multiple of 2**-61 (change <= 2**-62 ~ 2.2e-19). An initial weight
    |w0| > 2 is first moved into [-2, 2] by its exact monotone transient. Weights are the exact
    values rounded to float64 (transient weights: closed form w0 - t (1 - rate) or w0 + t rate in
    float64). ``discrepancy`` is count - T * rate in float64, absolute error below 2.3e-16 T.

    A float64 rate is a dyadic rational close to the intended (often irrational) rate, off by some
    delta (<= 2**-54 ~ 5.6e-17 for the nearest float; math.pi - 3 is 1.1e-16 below pi - 3). A
    state can differ from the intended rate's only where the intended orbit passes within
    T * delta of w = 0. Measured against 100-digit integer references: golden mean with
    w0 = 2 rate - 1 reproduces the rabbit sequence for all 10**8 steps (MAX_STEPS); 1/sqrt2 with
    w0 = 0 agrees for all 10**8 steps; pi - 3 with w0 = 0 agrees for the first 78,256,779 steps,
    then one adjacent pair 10 / 01 swaps (T * delta = 8.7e-9 there). Naive float accumulation of w += rate - s
    does worse: against the exact dynamics of its own float64 rate it flipped states after
    2.8e7 steps for 2 of 19 rates tried (10**8 steps each), and from step 11 for rate = 0.1, w0 = 0,
    whose exact orbit returns to w = 0.

    For a rational rate p/q whose orbit passes exactly through w = 0 (e.g. w0 = 0), the sign of
    the float64 representation error of the rate decides s at those visits; w0 = rate - 1/2
    avoids them for odd q.
    """
    rate = check_in_range("rate", rate, 0.0, 1.0)
    steps = check_count("steps", steps, low=1, high=MAX_STEPS)
    w0 = _check_finite("w0", w0)
    r_fixed, w_fixed, t_start = _fixed_point_start(rate, w0, steps)
    states = np.empty(steps, dtype=np.int64)
    weights = np.empty(steps + 1, dtype=np.float64)
    count = _neuron_kernel(rate, w0, np.int64(r_fixed), np.int64(w_fixed), t_start, states, weights)
    return NeuronResult(states=states, weights=weights, rate=rate, w0=w0,
                        firing_rate=int(count) / steps)


def rabbit_sequence(n: int) -> np.ndarray:
    """The first ``n`` symbols of the rabbit sequence (paper footnote 3, Fig. 1.9).

    The fixed point of the substitution 0 -> 1, 1 -> 10 started from 0:
    0 -> 1 -> 10 -> 101 -> 10110 -> 10110101 -> ... -> 1011010110110...
    The k-th word has F_{k+1} symbols (1, 1, 2, 3, 5, 8, ...), of which F_k are 1s.

    With rate = GOLDEN_MEAN and w0 = 2 rate - 1, ``herd_neuron(...).states`` equals this sequence
    symbol for symbol from s_1 on (no offset): checked for n = 10**8.

    Parameters
    ----------
    n : int
        Number of symbols, in [1, MAX_STEPS].

    Returns
    -------
    ndarray of int64, shape (n,)
    """
    n = check_count("n", n, low=1, high=MAX_STEPS)
    word = np.zeros(1, dtype=np.int8)
    while word.size < n:
        lengths = 1 + word  # 0 -> "1" (one symbol), 1 -> "10" (two symbols)
        starts = np.cumsum(lengths) - lengths
        grown = np.ones(int(lengths.sum()), dtype=np.int8)
        grown[starts[word == 1] + 1] = 0
        word = grown
    return word[:n].astype(np.int64)


def invariant_interval(rate: float) -> tuple[float, float]:
    """The invariant interval (rate - 1, rate] of eqs 1.25-1.26 (eq 1.28, Prop 1.5).

    Returns the end points ``(rate - 1, rate)``; the interval is open on the left and closed on
    the right. For irrational rates it is the whole attractor; for rational p/q the orbit visits
    q points of it.
    """
    rate = check_in_range("rate", rate, 0.0, 1.0)
    return rate - 1.0, rate


def discrepancy_bound(rate: float, w0: float, *, sharp: bool = False) -> float:
    """A bound B with |D_T| = |sum_{t<=T} s_t - T rate| <= B for every T >= 1 (eqs 1.27-1.30).

    By eq 1.29, D_T = w_0 - w_T, so the bound is the largest distance from w_0 to any later weight.

    - ``sharp=False`` (the paper's statements): 1/2 if w0 = rate - 1/2 (Cor 1.6; within 1e-12,
      where the sharp value below, 1/2 + |w0 - (rate - 1/2)|, is returned); 1 if w0 lies in
      (rate - 1, rate] (Prop 1.5); otherwise the bound derived below.
    - ``sharp=True``: max(rate - w0, w0 - (rate - 1)) for every w0.

    Derivation of the sharp bound. If w0 is in (rate - 1, rate], all w_T are too (eq 1.28), so
    |w_T - w0| <= max(rate - w0, w0 - (rate - 1)), which is < 1 (Prop 1.5) and equals 1/2 at
    w0 = rate - 1/2 (Cor 1.6). If w0 > rate (>= 0), the neuron fires and w falls by 1 - rate per
    step while w > 0, and a step from w > 0 lands above rate - 1; so w enters the interval without
    undershooting it and all w_T lie in (rate - 1, w0]: |D_T| < w0 - (rate - 1). If w0 <= rate - 1
    (<= 0), w rises by rate per step until it exceeds rate - 1, landing at most at 2 rate - 1 <=
    rate; all w_T lie in [w0, rate]: |D_T| <= rate - w0. Both cases are the same formula.

    Parameters
    ----------
    rate : float
        Firing rate in [0, 1].
    w0 : float
        Initial weight (finite).
    sharp : bool, keyword-only
        Return the sharp bound instead of the paper's.
    """
    rate = check_in_range("rate", rate, 0.0, 1.0)
    w0 = _check_finite("w0", w0)
    tight = max(rate - w0, w0 - (rate - 1.0))
    if check_flag("sharp", sharp) or abs(w0 - (rate - 0.5)) <= 1e-12:
        return tight
    if rate - 1.0 < w0 <= rate:
        return 1.0
    return tight


def bound_statement(rate: float, w0: float) -> str:
    """Which statement of the paper gives ``discrepancy_bound(rate, w0)`` (for labels).

    Returns ``"Cor 1.6"`` when w0 = rate - 1/2 (within 1e-12; bound 1/2, eq 1.30), ``"Prop 1.5"``
    when w0 lies in the invariant interval (rate - 1, rate] (bound 1, eq 1.27), and
    ``"transient"`` otherwise (w0 outside the interval: the bound max(rate - w0, w0 - rate + 1)
    derived in ``discrepancy_bound``). The same tests, in the same order, as ``discrepancy_bound``.
    """
    rate = check_in_range("rate", rate, 0.0, 1.0)
    w0 = _check_finite("w0", w0)
    if abs(w0 - (rate - 0.5)) <= 1e-12:
        return "Cor 1.6"
    if rate - 1.0 < w0 <= rate:
        return "Prop 1.5"
    return "transient"


def special_starts(rate: float) -> dict[str, float]:
    """The paper's special initial weights w0 for a firing rate (section 1.2.6).

    - ``"rabbit"``: w0 = 2 rate - 1; with rate = GOLDEN_MEAN the states are the rabbit sequence
      (Fig. 1.9). It is the image of w = rate under eq 1.26 with s = 1 (the left end of
      T(0, rate] = (rate - 1, 2 rate - 1] of eq 1.28, closed at 2 rate - 1).
    - ``"half"``: w0 = rate - 1/2, the middle of the invariant interval: |D_T| <= 1/2 (Cor 1.6,
      eq 1.30), the greedy choice of eq 1.32.
    - ``"zero"``: w0 = 0, where w_t = -D_t is the accumulated error (eq 1.29).

    Returns a dict name -> w0, in that order.
    """
    rate = check_in_range("rate", rate, 0.0, 1.0)
    return {"rabbit": 2.0 * rate - 1.0, "half": rate - 0.5, "zero": 0.0}


def rational_period(rate: float, *, max_period: int = 1000, tol: float = 1e-12) -> int | None:
    """The period q of the states when ``rate`` is a fraction p/q, or None (irrational-looking).

    For rate = p/q in lowest terms the herded neuron's states are periodic with period q and the
    number of distinct words saturates: M(T) = min(T + 1, q) (eq 1.36). A float64 rate is always
    a dyadic fraction, so "rational" means: within ``tol`` of p/q with q <= ``max_period``
    (the best approximation by ``fractions.Fraction.limit_denominator``). Rates 0 and 1 give q = 1.

    Parameters
    ----------
    rate : float
        Firing rate in [0, 1].
    max_period : int, keyword-only
        Largest denominator considered, in [1, MAX_STEPS].
    tol : float, keyword-only
        Largest accepted |rate - p/q|, >= 0.
    """
    rate = check_in_range("rate", rate, 0.0, 1.0)
    max_period = check_count("max_period", max_period, low=1, high=MAX_STEPS)
    tol = check_in_range("tol", tol, 0.0, 1.0)
    frac = Fraction(rate).limit_denominator(max_period)
    return frac.denominator if abs(float(frac) - rate) <= tol else None


def complexity(states, max_len: int) -> np.ndarray:
    """Word counts M(T), T = 1, ..., max_len: distinct length-T words in ``states`` (eq 1.36).

    A documented alias of ``dynamics.herding.word_counts``. For the neuron with irrational rate,
    M(T) = T + 1 (Sturmian, the minimum for a sequence that is not eventually periodic); for
    rate = p/q it is at most q. The count sees only the words present in the finite run, so it
    reaches T + 1 only once the run is long enough to contain every word of length T.
    """
    return word_counts(states, max_len)


_STURMIAN = "dynamics.neuron.sturmian_claim"
_STURMIAN_STATEMENT = ("With an irrational rate the herded neuron's states form a Sturmian "
                       "sequence (the rabbit sequence for the golden rate): M(T) = T + 1 distinct "
                       "words of length T and a discrepancy bounded by 1 (Prop 1.5, Cor 1.6).")
#: Rounding allowed in the claim's float comparisons: D_T against the bound, and the gaps of the
#: orbit against the arcs of the word partition.
FLOAT_ROUNDING = Threshold(
    1e-9, name="FLOAT_ROUNDING", claim=_STURMIAN, statement=_STURMIAN_STATEMENT,
    rule="max |D_T| above the bound by more than this differs; a run holds every word of "
         "length T when its orbit's largest gap is below the word partition's smallest arc "
         "by more than this (exact otherwise)",
    why="D_T = sum s_t - T rate and the orbit k rate mod 1 are sums of up to T floats of size "
        "at most 1: their rounding is below T 2^-53, about 1e-10 at the page's largest runs "
        "(10^6 steps); a real breach of Prop 1.5's bound is of the order of the rate, and the "
        "arcs of words up to length 100 are at least about 1e-3, both far above it")


def _transient(run: NeuronResult) -> int:
    """The steps before the weight enters the invariant interval (rate - 1, rate]: the states
    from there on are the rotation's coding (eq 1.28)."""
    inside = (run.weights > run.rate - 1.0) & (run.weights <= run.rate)
    return int(np.argmax(inside)) if inside.any() else run.weights.size


def _holds_every_word(rate: float, positions: int, T: int) -> bool:
    """Whether ``positions`` consecutive starts of a rotation by ``rate`` must show all T + 1
    words of length T: the T + 1 words are the arcs cut by the points -j rate mod 1, j = 0..T
    (the smallest of length min ||j rate||, three-gap theorem), and every arc holds a start
    once the starts' largest gap on the circle is smaller (up to ``FLOAT_ROUNDING``)."""
    if positions < T + 1:
        return False
    j = np.arange(1, T + 1)
    frac = np.mod(j * rate, 1.0)
    smallest_arc = float(np.minimum(frac, 1.0 - frac).min())
    starts = np.sort(np.mod(np.arange(positions) * rate, 1.0))
    largest_gap = float(max(np.diff(starts).max(initial=0.0), 1.0 - starts[-1] + starts[0]))
    return largest_gap < smallest_arc - FLOAT_ROUNDING


@stated
def sturmian_claim(run: NeuronResult, words, *, bound: float) -> Verdict:
    """Chen & Welling, Sec 1.2.6 and "Weak Chaos": for irrational pi the neuron's states form a
    Sturmian sequence, "M(T) = T + 1" (Figs 1.8-1.9), and the discrepancy |D_T| stays below the
    bound of Prop 1.5 and Cor 1.6.

    Exact mathematics on a deterministic run, so no noise enters. ``words`` are M(T) for T =
    1, 2, ..., of ``run.states`` (`complexity`) and ``bound`` is `discrepancy_bound` of the
    run's start. Reproduced: M(T) = T + 1 at every T counted and max |D_T| <= ``bound`` (up
    to ``FLOAT_ROUNDING``). Differs: |D_T| above the bound; M(T) > T + 1 at some T (no
    Sturmian sequence has more words) in a run that starts inside the invariant interval; or
    M(T) < T + 1 at a T the run is long enough to show every word of (`_holds_every_word`:
    its orbit's largest gap below the smallest arc of the words, exact by the three-gap
    theorem). Not decided: M(T) < T + 1 in a run too short to hold every word; extra words
    in a run whose start lies outside (pi - 1, pi] (its transient adds words the claim is not
    about); a rational rate (`rational_period`: periodic states, outside the claim); no
    counts."""
    check_instance("run", run, NeuronResult)
    words = check_array("words", words, ndim=1, dtype=np.int64)
    bound = check_positive("bound", bound)
    stated_ = dict(
        effect="M(T) − (T + 1) at every T counted, and max |D_T| against the bound",
        rule="M(T) = T + 1 at every T and max |D_T| <= bound: reproduced; |D_T| > bound, or a "
             "word count off T + 1 in a run that must show every word: differs; a run too "
             "short (or with a transient) to tell: not decided; exact",
        thresholds={"FLOAT_ROUNDING": FLOAT_ROUNDING},
        power=(f"no noise: a deterministic run; one word off at any T <= {words.size} the run "
               f"is long enough for, or a breach of the bound by more than "
               f"{FLOAT_ROUNDING:g}, decides"))
    period = rational_period(run.rate)
    if period is not None:
        return Verdict(claim="Chen & Welling, Figs 1.8-1.9", statement=_STURMIAN_STATEMENT,
                       agrees=None, measured=f"rate {run.rate:.6f}: periodic with period {period}",
                       why=f"the rate is rational (period {period}); the claim is about "
                           "irrational rates", **stated_)
    T = np.arange(1, words.size + 1)
    off = np.flatnonzero(words != T + 1)
    sturmian = bool(words.size) and not off.size
    largest = float(np.abs(run.discrepancy).max())
    skip = _transient(run)
    n = run.states.size
    if not words.size:
        count = (None, "", "no word counts")
    elif not off.size:
        count = (True, "")
    else:
        t, m = int(T[off[0]]), int(words[off[0]])
        where = f"M({t}) = {m}, not {t + 1}"
        if m > t + 1 and skip:
            count = (None, "", f"{where}: the first {skip} states are the transient from w0 "
                               "outside (π − 1, π], whose words are counted too")
        elif m > t + 1:
            count = (False, f"{where}: more words than a Sturmian sequence has")
        elif _holds_every_word(run.rate, n - skip - t + 1, t):
            count = (False, f"{where}: {n:,} states must show every word of length {t}")
        else:
            count = (None, "", f"{where}: {n:,} states are too few to show every word of "
                               f"length {t}")
    return Verdict.from_checks(
        "Chen & Welling, Figs 1.8-1.9", _STURMIAN_STATEMENT,
        (count,
         (largest <= bound + FLOAT_ROUNDING,
          f"the discrepancy {largest:.3f} exceeds the bound {bound:g}")),
        measured=(f"rate {run.rate:.6f}: M(T) = T + 1 for T = 1..{words.size}: {sturmian}; "
                  f"largest discrepancy {largest:.3f} (bound {bound:g})"),
        why=f"M(T) = T + 1 for T = 1..{words.size} and |D_T| ≤ {largest:.3f} ≤ {bound:g}",
        numbers=dict(rate=float(run.rate), word_lengths=int(words.size), sturmian=sturmian,
                     largest_discrepancy=largest, bound=bound, transient=skip), **stated_)


def _warmup() -> None:
    """Compile (or load from cache) the kernel on tiny inputs with the production dtypes."""
    herd_neuron(GOLDEN_MEAN, 4, w0=0.0).discrepancy
    herd_neuron(0.5, 4, w0=3.5)  # also the transient branch
