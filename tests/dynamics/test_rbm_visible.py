"""Fig 1.13 judged on a fully visible model herding the pixels' means and pairs
(``dynamics.rbm.visible_herding``): the kernel against a plain NumPy loop, and the claim's
three outcomes on runs whose answer is known."""

from __future__ import annotations

import numpy as np
import pytest

from dynamics.rbm import hidden_herding as hh
from dynamics.rbm import visible_herding as vh


def _reference(data, steps, max_sweeps=100):
    """Herding with features (s_i, s_i s_j), weights from 0, each argmax by coordinate ascent
    from the previous state (the first from the first data case), written plainly in floats
    (the moments are exact in binary for D a power of two)."""
    X = np.asarray(data, float)
    D, n = X.shape
    mean, pairs = X.mean(0), X.T @ X / D
    np.fill_diagonal(pairs, 0.0)
    b, W = np.zeros(n), np.zeros((n, n))
    s = X[0].copy()
    out, held = [], []
    for _ in range(steps):
        for _sweep in range(max_sweeps):
            flipped = False
            for i in range(n):
                f = b[i] + W[i] @ s
                if f * s[i] < 0:
                    s[i] = -s[i]
                    flipped = True
            if not flipped:
                break
        score = b @ s + 0.5 * s @ W @ s
        data_score = b @ mean + 0.5 * np.sum(W * pairs)
        held.append(score >= data_score)
        out.append(s.copy())
        b += mean - s
        outer = np.outer(s, s)
        np.fill_diagonal(outer, 0.0)
        W += pairs - outer
    return np.array(out), np.array(held)


def test_the_kernel_is_the_plain_loop():
    rng = np.random.default_rng(0)
    data = np.where(rng.random((16, 7)) < 0.4, 1, -1).astype(np.int8)   # D = 16: exact
    run = vh.herd_visible(data, 200)
    states, held = _reference(data, 200)
    np.testing.assert_array_equal(run.states, states)
    np.testing.assert_array_equal(run.pct_held, held)
    assert run.sweeps.min() >= 1


def test_fig_1_13_three_outcomes():
    data, _ = hh.binary_digits(200, seed=1)
    # herding the pairs at 4000 steps: both errors below every set of independent draws
    good = vh.pair_matching_claim(vh.herd_visible(data, 4000), data, seed=1)
    assert good.result == "reproduced", good.why
    assert good.thresholds["FIG113_DRAWS"] is vh.FIG113_DRAWS
    # a "run" that repeats one data case: its means are far off
    stuck = vh.VisibleHerding(states=np.repeat(data[:1], 500, axis=0),
                              pct_held=np.zeros(500, bool), sweeps=np.ones(500, int))
    assert vh.pair_matching_claim(stuck, data, seed=1).result == "differs"
    # a "run" that is the claim's own first set of independent draws: inside their range
    draws = data[np.random.default_rng(1).integers(0, len(data), size=500)]
    iid = vh.VisibleHerding(states=draws, pct_held=np.zeros(500, bool), sweeps=np.ones(500, int))
    assert vh.pair_matching_claim(iid, data, seed=1).result == "not decided"


def test_the_rbm_study_is_not_judged_against_the_caption():
    data, _ = hh.binary_digits(60, seed=0)
    run = hh.herd_hidden(data, 4, 100, seed=0)
    v = hh.moment_matching_claim(run, data, seed=0)
    assert v.result == "not decided" and "not judged against Fig 1.13" in v.why
    assert v.numbers["pairs_as_close"] == (v.numbers["herding_pairs"] <= v.numbers["iid_pairs"])


def test_bad_inputs_are_refused_by_name():
    with pytest.raises(ValueError, match="data"):
        vh.herd_visible(np.zeros((3, 4)), 10)
    with pytest.raises(ValueError, match="steps"):
        vh.herd_visible(np.ones((3, 4)), 0)
    with pytest.raises(ValueError, match="data"):
        vh.pair_matching_claim(vh.herd_visible(np.ones((3, 4)), 5), np.ones((3, 5)))
