"""Generalized herding and the perceptron cycling theorem (Chen & Welling Sec 1.3.2, L462):
minibatches without replacement match the full moments at O(1/tau), with replacement only at
O(1/sqrt tau); an approximate argmax keeps O(1/tau) while the PCT holds."""

from __future__ import annotations

import numpy as np
import pytest

from dynamics import generalized_herding as gh

T = 6000


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    return np.where(rng.random((200, 6)) < 0.3 + 0.4 * rng.random(6), 1, -1)


def test_features_and_states():
    x = np.array([[1, -1, 1]])
    np.testing.assert_array_equal(gh.features(x), [[1, -1, 1, -1, 1, -1]])
    states = gh.all_states(3)
    assert states.shape == (8, 3) and len({tuple(s) for s in states}) == 8


def test_exact_herding_matches_the_moments_at_one_over_tau(data):
    run = gh.pct_herding(data, T, seed=1)
    assert run.pct_held.all()  # the exact argmax always satisfies the PCT condition
    assert gh.rate(run.error_full) == pytest.approx(-1.0, abs=0.1)
    scaled = np.arange(1, T + 1) * run.error_full
    assert scaled[T // 2:].max() <= 1.2 * scaled[: T // 2].max()  # tau x error stays bounded
    assert run.weight_norm.max() < 50


def test_minibatches_without_replacement_keep_one_over_tau_with_replacement_do_not(data):
    without = gh.pct_herding(data, T, batch_size=10, seed=2)
    with_ = gh.pct_herding(data, T, batch_size=10, replacement=True, seed=2)
    assert gh.rate(without.error_full) == pytest.approx(-1.0, abs=0.1)
    assert gh.rate(with_.error_full) == pytest.approx(-0.5, abs=0.15)
    # against the minibatch targets both match at O(1/tau): the PCT still applies
    for run in (without, with_):
        assert gh.rate(run.error_batch) == pytest.approx(-1.0, abs=0.1)


def test_a_local_argmax_keeps_the_rate_while_the_pct_holds(data):
    run = gh.pct_herding(data, T, search_sweeps=1, seed=3)
    assert run.pct_held.mean() > 0.95
    assert gh.rate(run.error_full) == pytest.approx(-1.0, abs=0.1)


@pytest.mark.parametrize("kwargs, match", [
    (dict(data=np.zeros((5, 3))), "data"),
    (dict(data=np.ones((5, 1))), "columns"),
    (dict(data=np.ones((5, 3)), batch_size=6), "batch_size"),
    (dict(data=np.ones((5, 3)), search_sweeps=0), "search_sweeps"),
])
def test_bad_inputs_raise_value_error(kwargs, match):
    kwargs = dict(kwargs)
    with pytest.raises(ValueError, match=match):
        gh.pct_herding(kwargs.pop("data"), 10, **kwargs)
