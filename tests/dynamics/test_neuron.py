"""The herded neuron (Chen & Welling eqs 1.25-1.32 and the Sturmian complexity M(T) = T + 1)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, example, given
from hypothesis import strategies as st

from dynamics.herding import herd, word_counts
from dynamics.neuron import (
    GOLDEN_MEAN,
    RATE_PRESETS,
    bound_statement,
    complexity,
    discrepancy_bound,
    herd_neuron,
    invariant_interval,
    rabbit_sequence,
    rational_period,
    special_starts,
)

IRRATIONAL = {k: v for k, v in RATE_PRESETS.items() if "rational" not in k}

# Rates on which the kernel is exact for the float64 value (>= 2**-9, see herd_neuron Notes),
# plus 0 and small dyadic rates, which are on the kernel's grid.
rates = st.one_of(
    st.floats(2.0**-9, 1.0),
    st.sampled_from([0.0, 1.0, 0.5, 2.0**-20, 3 * 2.0**-40]),
)


# ---------------------------------------------------------------- references

def exact_neuron(rate: Fraction, w0: Fraction, steps: int):
    """Eqs 1.25-1.26 in exact rational arithmetic."""
    w = w0
    states, weights = [], [w0]
    for _ in range(steps):
        s = 1 if w > 0 else 0
        w = w + rate - s
        states.append(s)
        weights.append(w)
    return np.array(states, dtype=np.int64), weights


def float_neuron(rate: float, w0: float, steps: int):
    """Eqs 1.25-1.26 as a plain float64 loop; discrepancy by NumPy."""
    states = np.empty(steps, dtype=np.int64)
    weights = np.empty(steps + 1)
    weights[0] = w = w0
    for t in range(steps):
        s = 1 if w > 0 else 0
        w = w + rate - s
        states[t] = s
        weights[t + 1] = w
    discrepancy = np.cumsum(states) - np.arange(1, steps + 1) * rate
    return states, weights, discrepancy


def inside(rate: float, w0: float) -> bool:
    """w0 in (rate - 1, rate], decided exactly."""
    return Fraction(rate) - 1 < Fraction(w0) <= Fraction(rate)


def substitution_words(count: int) -> list[str]:
    """0 -> 1, 1 -> 10 applied repeatedly to "0" (footnote 3), as strings."""
    words = ["0"]
    for _ in range(count - 1):
        words.append("".join("1" if c == "0" else "10" for c in words[-1]))
    return words


def fibonacci(count: int) -> list[int]:
    fib = [1, 1]
    while len(fib) < count:
        fib.append(fib[-1] + fib[-2])
    return fib[:count]


# ---------------------------------------------------------------- rabbit sequence (Fig. 1.9)

def test_substitution_words_have_fibonacci_lengths_and_are_prefixes_of_the_rabbit_sequence():
    words = substitution_words(22)
    assert words[:6] == ["0", "1", "10", "101", "10110", "10110101"]  # footnote 3, verbatim
    lengths = [len(w) for w in words]
    assert lengths == fibonacci(22)
    # the number of 1s is the length lagged by one iteration
    assert [w.count("1") for w in words[1:]] == lengths[:-1]
    limit = rabbit_sequence(lengths[-1])
    for w in words[1:]:  # each word (from "1" on) is a prefix of the limit word
        assert "".join(map(str, limit[: len(w)])) == w


def test_fibonacci_neuron_generates_the_rabbit_sequence():
    n = 10**6
    rate = GOLDEN_MEAN
    states = herd_neuron(rate, n, w0=2 * rate - 1).states
    np.testing.assert_array_equal(states, rabbit_sequence(n))
    # ones among the first F_k symbols: F_{k-1}
    fib = fibonacci(30)
    for k in range(2, 30):
        assert states[: fib[k]].sum() == fib[k - 1]


# ---------------------------------------------------------------- kernel vs references

@given(rate=rates, w0=st.floats(-10, 10))
@example(rate=0.1, w0=0.0)  # the exact orbit returns to w = 0 (naive float accumulation fails)
@example(rate=0.5, w0=1e300)  # the transient is far longer than the run
@example(rate=1.0, w0=-1e300)
@example(rate=GOLDEN_MEAN, w0=-2.5)
@example(rate=0.75, w0=5e-324)
def test_kernel_equals_exact_rational_arithmetic(rate, w0):
    steps = 300
    res = herd_neuron(rate, steps, w0=w0)
    states, weights = exact_neuron(Fraction(rate), Fraction(w0), steps)
    np.testing.assert_array_equal(res.states, states)
    exact_w = np.array([float(w) for w in weights])
    np.testing.assert_allclose(res.weights, exact_w, rtol=1e-15, atol=1e-15)
    assert res.weights[0] == w0
    exact_d = np.array([float(np.sum(states[:t]) - t * Fraction(rate)) for t in range(1, steps + 1)])
    np.testing.assert_allclose(res.discrepancy, exact_d, rtol=0, atol=1e-12)


@pytest.mark.parametrize("rate", [*RATE_PRESETS.values(), 0.3141, 0.777, 0.0537])
def test_kernel_matches_float_numpy_reference(rate):
    steps = 100_000
    rng = np.random.default_rng(7)
    for w0 in (rate - 0.5, rate - 1 + rng.uniform(0.01, 0.99), 1.7):
        res = herd_neuron(rate, steps, w0=w0)
        states, weights, disc = float_neuron(rate, w0, steps)
        np.testing.assert_array_equal(res.states, states)
        np.testing.assert_allclose(res.weights, weights, rtol=0, atol=1e-9)
        np.testing.assert_allclose(res.discrepancy, disc, rtol=0, atol=1e-9)


@pytest.mark.parametrize("rate", RATE_PRESETS.values())
def test_neuron_is_herding_with_feature_phi_x_equal_x(rate):
    # eqs 1.25-1.26 are eqs 1.7-1.8 with phi(0) = 0, phi(1) = 1 (ties w = 0 go to state 0)
    steps, w0 = 20_000, rate - 0.5
    general = herd(np.array([[0.0], [1.0]]), np.array([rate]), steps, w0=np.array([w0]))
    neuron = herd_neuron(rate, steps, w0=w0)
    np.testing.assert_array_equal(neuron.states, general.states)
    np.testing.assert_allclose(neuron.weights, general.weights[:, 0], atol=1e-9)


def test_result_fields():
    res = herd_neuron(0.3, 50, w0=0.25)
    assert res.states.shape == (50,) and res.states.dtype == np.int64
    assert res.weights.shape == (51,) and res.weights.dtype == np.float64
    assert res.discrepancy.shape == (50,) and res.discrepancy.dtype == np.float64
    assert set(np.unique(res.states)) <= {0, 1}
    assert res.rate == 0.3 and res.w0 == 0.25 and res.weights[0] == 0.25
    assert res.firing_rate == res.states.mean()
    assert res.max_abs_discrepancy == np.abs(res.discrepancy).max()
    with pytest.raises(AttributeError):
        res.rate = 0.5  # frozen


# ---------------------------------------------------------------- Prop 1.5, Cor 1.6

@given(rate=rates, u=st.floats(0.0, 1.0, exclude_min=True))
def test_invariant_interval(rate, u):
    w0 = rate - 1 + u
    assume(inside(rate, w0))
    steps = 2000
    low, high = invariant_interval(rate)
    assert (low, high) == (rate - 1, rate)
    res = herd_neuron(rate, steps, w0=w0)
    # float weights are the exact ones rounded to nearest, so the closed end stays closed and the
    # open end can only be touched by rounding; checked exactly on a prefix below
    assert np.all(res.weights <= high)
    assert np.all(res.weights >= low)
    _, exact = exact_neuron(Fraction(rate), Fraction(w0), 200)
    assert all(Fraction(rate) - 1 < w <= Fraction(rate) for w in exact)


@given(rate=rates, u=st.floats(0.0, 1.0, exclude_min=True))
def test_discrepancy_bounded_by_one_inside_the_interval(rate, u):
    w0 = rate - 1 + u
    assume(inside(rate, w0))
    res = herd_neuron(rate, 5000, w0=w0)
    assert res.max_abs_discrepancy <= 1.0 + 1e-9  # eq 1.27
    assert res.max_abs_discrepancy <= discrepancy_bound(rate, w0, sharp=True) + 1e-9
    # eq 1.29: D_T = w_0 - w_T
    np.testing.assert_allclose(res.discrepancy, w0 - res.weights[1:], atol=1e-9)
    # eq 1.27 for the zeros as well
    T = np.arange(1, 5001)
    zeros = T - np.cumsum(res.states)
    assert np.abs(zeros - T * (1 - rate)).max() <= 1.0 + 1e-9


@given(rate=rates)
def test_discrepancy_bounded_by_half_from_rate_minus_half(rate):
    res = herd_neuron(rate, 5000, w0=rate - 0.5)
    assert res.max_abs_discrepancy <= 0.5 + 1e-9  # Cor 1.6, eq 1.30
    assert discrepancy_bound(rate, rate - 0.5) == pytest.approx(0.5, abs=1e-12)


@given(rate=rates, w0=st.floats(-6, 6))
def test_discrepancy_bound_outside_the_interval(rate, w0):
    res = herd_neuron(rate, 3000, w0=w0)
    assert res.max_abs_discrepancy <= discrepancy_bound(rate, w0) + 1e-9
    assert res.max_abs_discrepancy <= discrepancy_bound(rate, w0, sharp=True) + 1e-9
    np.testing.assert_allclose(res.discrepancy, w0 - res.weights[1:], atol=1e-9)


@pytest.mark.parametrize("w0", [None, 0.0, 2.0, -3.0])
def test_sharp_bound_is_approached_for_irrational_rates(w0):
    # the orbit is dense in (rate - 1, rate] for irrational rates, so sup |w_T - w_0| is reached
    rate = 1 / math.sqrt(2)
    w0 = rate - 0.5 if w0 is None else w0
    res = herd_neuron(rate, 100_000, w0=w0)
    bound = discrepancy_bound(rate, w0, sharp=True)
    assert bound - 1e-3 < res.max_abs_discrepancy <= bound + 1e-9


def test_discrepancy_bound_values():
    assert discrepancy_bound(0.6, 0.1) == pytest.approx(0.5)  # Cor 1.6
    assert discrepancy_bound(0.6, 0.0) == 1.0  # Prop 1.5
    assert discrepancy_bound(0.6, 0.0, sharp=True) == pytest.approx(0.6)
    assert discrepancy_bound(0.6, 0.6) == 1.0  # right end is inside
    assert discrepancy_bound(0.6, -0.4) == pytest.approx(1.0)  # left end is outside: 0.6 - (-0.4)
    assert discrepancy_bound(0.6, 2.0) == pytest.approx(2.4)
    assert discrepancy_bound(0.6, -3.0) == pytest.approx(3.6)


@given(rate=rates, u=st.floats(0.0, 1.0, exclude_min=True))
def test_firing_rate_converges_as_one_over_t(rate, u):
    w0 = rate - 1 + u
    assume(inside(rate, w0))
    steps = 5000
    res = herd_neuron(rate, steps, w0=w0)
    T = np.arange(1, steps + 1)
    error = np.abs(np.cumsum(res.states) / T - rate)
    assert np.all(T * error <= 1.0 + 1e-9)  # |mean_T - rate| <= 1 / T (eq 1.27 / T)


# ---------------------------------------------------------------- complexity (eq 1.36)

@pytest.mark.parametrize("label", IRRATIONAL)
@pytest.mark.parametrize("w0", [0.0, "mid"])
def test_sturmian_complexity_for_irrational_rates(label, w0):
    rate = RATE_PRESETS[label]
    w0 = rate - 0.5 if w0 == "mid" else w0
    states = herd_neuron(rate, 20_000, w0=w0).states
    M = complexity(states, 50)
    np.testing.assert_array_equal(M, np.arange(1, 51) + 1)  # M(T) = T + 1
    np.testing.assert_array_equal(M, word_counts(states, 50))


@given(q=st.integers(3, 60).filter(lambda q: q % 2 == 1), data=st.data())
@example(q=5, data=None)
def test_rational_rate_is_periodic_with_period_q(q, data):
    p = 2 if data is None else data.draw(st.integers(1, q - 1).filter(lambda p: math.gcd(p, q) == 1))
    rate = p / q
    # w0 = rate - 1/2 keeps the exact orbit (w0 + k/q mod 1, odd numerators over 2q) off w = 0
    res = herd_neuron(rate, 20 * q, w0=rate - 0.5)
    s = res.states
    np.testing.assert_array_equal(s[q:], s[:-q])
    for d in range(1, q):
        assert not np.array_equal(s[d:], s[:-d]), f"smaller period {d}"
    assert s[:q].sum() == p
    exact_states, _ = exact_neuron(Fraction(p, q), Fraction(p, q) - Fraction(1, 2), 20 * q)
    np.testing.assert_array_equal(s, exact_states)
    M = complexity(s, min(3 * q, s.size))
    assert np.all(M <= q)
    # the q points w0 + k/q cut the circle into T + 1 arcs for T < q: M(T) = min(T + 1, q)
    T = np.arange(1, M.size + 1)
    np.testing.assert_array_equal(M, np.minimum(T + 1, q))


def test_preset_labels_and_values():
    assert RATE_PRESETS["golden mean (sqrt5 - 1)/2"] == GOLDEN_MEAN == pytest.approx(0.6180339887498949)
    assert GOLDEN_MEAN**2 + GOLDEN_MEAN == pytest.approx(1.0)
    assert sorted(RATE_PRESETS.values()) == pytest.approx(sorted([GOLDEN_MEAN, 2**-0.5, math.pi - 3, 0.4]))


# ---------------------------------------------------------------- page helpers

def test_special_starts():
    starts = special_starts(GOLDEN_MEAN)
    assert list(starts) == ["rabbit", "half", "zero"]
    assert starts["rabbit"] == 2 * GOLDEN_MEAN - 1 and starts["half"] == GOLDEN_MEAN - 0.5
    assert starts["zero"] == 0.0
    # the rabbit start gives the rabbit sequence (Fig. 1.9), the half start the bound 1/2 (Cor 1.6)
    res = herd_neuron(GOLDEN_MEAN, 1000, w0=starts["rabbit"])
    np.testing.assert_array_equal(res.states, rabbit_sequence(1000))
    assert herd_neuron(0.3, 1000, w0=special_starts(0.3)["half"]).max_abs_discrepancy <= 0.5


@given(rate=rates, w0=st.floats(-5, 5))
def test_bound_statement_names_the_bound(rate, w0):
    bound, statement = discrepancy_bound(rate, w0), bound_statement(rate, w0)
    if statement == "Cor 1.6":
        assert bound == pytest.approx(0.5, abs=1e-11)
    elif statement == "Prop 1.5":
        assert bound == 1.0 and inside(rate, w0)
    else:
        assert statement == "transient" and not inside(rate, w0)
        assert bound == discrepancy_bound(rate, w0, sharp=True)


def test_bound_statement_values():
    assert bound_statement(0.6, 0.1) == "Cor 1.6"
    assert bound_statement(0.6, 0.0) == "Prop 1.5"
    assert bound_statement(0.6, 0.6) == "Prop 1.5"
    assert bound_statement(0.6, -0.4) == "transient"
    assert bound_statement(0.6, 2.0) == "transient"


@given(q=st.integers(1, 200), data=st.data())
def test_rational_period_of_fractions(q, data):
    p = data.draw(st.integers(0, q).filter(lambda p: math.gcd(p, q) == 1))
    assert rational_period(p / q) == q
    if q >= 3:
        M = complexity(herd_neuron(p / q, 40 * q, w0=p / q - 0.5 + 0.25 / q).states, 2 * q)
        assert M.max() == q  # the words saturate at the period


def test_rational_period_of_irrational_rates_and_options():
    for label, rate in RATE_PRESETS.items():
        assert (rational_period(rate) is None) == ("rational" not in label), label
    assert rational_period(0.4) == 5 and rational_period(0.301) == 1000
    assert rational_period(0.3001) is None and rational_period(0.3001, max_period=10_000) == 10_000
    assert rational_period(0.0) == rational_period(1.0) == 1
    assert rational_period(0.5 + 1e-13) == 2 and rational_period(0.5 + 1e-13, tol=0.0) is None
    for bad in (0, 1.5, 10**9):
        with pytest.raises(ValueError, match="max_period"):
            rational_period(0.5, max_period=bad)
    with pytest.raises(ValueError, match="tol"):
        rational_period(0.5, tol=-1.0)


# ---------------------------------------------------------------- validation

@pytest.mark.parametrize("rate", [-0.1, 1.1, float("nan"), float("inf"), "fast", None])
def test_bad_rate(rate):
    with pytest.raises(ValueError, match="rate"):
        herd_neuron(rate, 10)
    with pytest.raises(ValueError, match="rate"):
        discrepancy_bound(rate, 0.0)
    with pytest.raises(ValueError, match="rate"):
        invariant_interval(rate)
    for helper in (special_starts, rational_period, lambda r: bound_statement(r, 0.0)):
        with pytest.raises(ValueError, match="rate"):
            helper(rate)


@pytest.mark.parametrize("steps", [0, -5, 1.5, True, "10", 10**9])
def test_bad_steps(steps):
    with pytest.raises(ValueError, match="steps"):
        herd_neuron(0.5, steps)


@pytest.mark.parametrize("w0", [float("nan"), float("inf"), -float("inf"), "zero", None])
def test_bad_w0(w0):
    with pytest.raises(ValueError, match="w0"):
        herd_neuron(0.5, 10, w0=w0)
    with pytest.raises(ValueError, match="w0"):
        discrepancy_bound(0.5, w0)
    with pytest.raises(ValueError, match="w0"):
        bound_statement(0.5, w0)


@pytest.mark.parametrize("n", [0, -1, 2.5, 10**9])
def test_bad_rabbit_length(n):
    with pytest.raises(ValueError, match="n"):
        rabbit_sequence(n)


def test_sturmian_claim_three_outcomes():
    from dynamics.neuron import (complexity, discrepancy_bound, herd_neuron, special_starts,
                                 sturmian_claim)

    w0 = special_starts(GOLDEN_MEAN)["half"]
    run = herd_neuron(GOLDEN_MEAN, 2000, w0=w0)
    bound = discrepancy_bound(GOLDEN_MEAN, w0)
    verdict = sturmian_claim(run, complexity(run.states, 30), bound=bound)
    assert verdict.result == "reproduced", verdict.why
    assert "no noise" in verdict.power and verdict.rule
    # one word too many at T = 3 cannot be a Sturmian sequence's count
    counts = np.arange(2, 32)
    too_many = counts.copy()
    too_many[2] += 1
    wrong = sturmian_claim(run, too_many, bound=bound)
    assert wrong.result == "differs" and "M(3) = 5" in wrong.why
    # one word missing at T = 5 in 2000 states, which must show all six: differs
    too_few = counts.copy()
    too_few[4] -= 1
    missing = sturmian_claim(run, too_few, bound=bound)
    assert missing.result == "differs" and "must show every word" in missing.why
    # a bound the run breaches by far more than rounding (|D_T| reaches about 1/2 here)
    assert sturmian_claim(run, complexity(run.states, 30), bound=0.25).result == "differs"
    # twelve states cannot hold all 12 words of length 11: too short to judge
    short = herd_neuron(GOLDEN_MEAN, 12, w0=w0)
    undecided = sturmian_claim(short, complexity(short.states, 11), bound=bound)
    assert undecided.result == "not decided" and "too few" in undecided.why
    # a start far outside (π − 1, π]: the transient's run of ones adds words, not decided
    far = herd_neuron(GOLDEN_MEAN, 2000, w0=5.0)
    late = sturmian_claim(far, complexity(far.states, 30),
                          bound=discrepancy_bound(GOLDEN_MEAN, 5.0))
    assert late.result == "not decided" and "transient" in late.why
    # a rational rate is outside the claim
    periodic = herd_neuron(0.4, 200, w0=0.0)
    assert sturmian_claim(periodic, complexity(periodic.states, 5),
                          bound=1.0).result == "not decided"


@given(rate=st.floats(0.05, 0.95), start=st.floats(0.0, 0.999), n=st.integers(20, 400),
       T=st.integers(1, 40))
def test_a_run_long_enough_for_every_word_shows_every_word(rate, start, n, T):
    """The claim's sufficient length (its orbit's largest gap below the smallest word arc)
    against the words counted: whenever it says every word of length T must appear, all T + 1
    do."""
    from dynamics.neuron import _holds_every_word, complexity, herd_neuron, rational_period

    assume(rational_period(rate) is None and T < n)
    run = herd_neuron(rate, n, w0=rate - start)
    if _holds_every_word(rate, n - T + 1, T):
        assert complexity(run.states, T)[-1] == T + 1
