"""Fig 1.14's classifiers (dynamics.rbm.herding_classify) against independent computations:
energies by enumerating the hidden states, scikit-learn's BernoulliRBM (free energy and hidden
means under the -1/+1 <-> 0/1 map), the CD-k gradient by a per-case loop, herding's weights by
hidden_herding's Numba kernel, 1-NN by scikit-learn."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from dynamics.rbm import herding_classify as hc
from dynamics.rbm import hidden_herding as hh


def _model(n=5, m=3, seed=0):
    rng = np.random.default_rng(seed)
    X = np.where(rng.random((7, n)) < 0.5, -1.0, 1.0)
    return X, rng.normal(size=(n, m)), rng.normal(size=n), rng.normal(size=m)


def test_energies_by_enumerating_hidden_states():
    X, W, b, c = _model()
    states = np.array(list(itertools.product([-1.0, 1.0], repeat=W.shape[1])))
    scores = np.array([[x @ W @ z + b @ x + c @ z for z in states] for x in X])
    assert np.allclose(hc.rbm_energies(X, W, b, c, kind="max"), -scores.max(axis=1))
    free = -np.log(np.exp(scores).sum(axis=1))
    assert np.allclose(hc.rbm_energies(X, W, b, c, kind="free"), free)


def test_free_energy_and_hidden_means_match_bernoulli_rbm():
    """The -1/+1 RBM is BernoulliRBM's 0/1 RBM with W01 = 4W, visible biases 2b - 2 W 1 and
    hidden biases 2c - 2 W^T 1: free energies differ by a constant, hidden means coincide."""
    from sklearn.neural_network import BernoulliRBM

    X, W, b, c = _model()
    rbm = BernoulliRBM(n_components=W.shape[1])
    rbm.components_ = (4 * W).T
    rbm.intercept_visible_ = 2 * b - 2 * W.sum(axis=1)
    rbm.intercept_hidden_ = 2 * c - 2 * W.sum(axis=0)
    U = (X + 1) / 2
    diff = hc.rbm_energies(X, W, b, c, kind="free") - rbm._free_energy(U)
    assert np.ptp(diff) < 1e-9
    # P(z_k = +1 | x) = sigmoid(2 (c + W^T x)), what _cd_gradient uses (as tanh = 2 p - 1)
    assert np.allclose(hc._sigmoid(2 * (X @ W + c)), rbm._mean_hiddens(U))


def test_cd_gradient_against_a_loop():
    X, W, b, c = _model(n=4, m=3, seed=2)
    k = 2
    got = hc._cd_gradient(X, W, b, c, k, np.random.default_rng(5))
    rng = np.random.default_rng(5)
    draws = []
    for _ in range(k):  # the same random numbers, in the order the vectorised code draws them
        draws.append((rng.random((len(X), 3)), rng.random((len(X), 4))))
    sig = lambda a: 1 / (1 + np.exp(-a))  # noqa: E731
    dW, db, dc = np.zeros_like(W), np.zeros_like(b), np.zeros_like(c)
    for i, x in enumerate(X):
        h0 = np.array([np.tanh(c[j] + sum(W[a, j] * x[a] for a in range(4))) for j in range(3)])
        xk = x
        for rz, rx in draws:
            z = np.array([1.0 if rz[i, j] < sig(2 * (c[j] + W[:, j] @ xk)) else -1.0
                          for j in range(3)])
            xk = np.array([1.0 if rx[i, a] < sig(2 * (b[a] + W[a] @ z)) else -1.0
                           for a in range(4)])
        hk = np.tanh(c + xk @ W)
        dW += np.outer(x, h0) - np.outer(xk, hk)
        db += x - xk
        dc += h0 - hk
    for g, want in zip(got, (dW, db, dc)):
        assert np.allclose(g, want / len(X))


@pytest.mark.parametrize("search", ["local", "safe"])
def test_herding_weights_match_hidden_herding(search):
    """W after the run = W0 + tau (data pairs - sample pairs) of hidden_herding's kernel with
    the same seed and the hidden biases fixed (its loops against our matrix products)."""
    X, _ = hh.binary_digits(30, digit=3, seed=0)
    steps, m = 25, 6
    run = hh.herd_hidden(X, m, steps, search=search, update_hidden_bias=False, seed=4)
    got = hc.herd_class_energies(X, X[:3], m, steps=steps, search=search, seed=4)
    rng = np.random.default_rng(4)
    W0 = 0.1 * rng.standard_normal((64, m))
    assert np.allclose(got.W, W0 + steps * (run.data_pairs - run.sample_pairs), atol=1e-9)


def test_standardised_energies_of_the_training_cases():
    """Evaluated on its own training cases with one collected step, the average standardised
    energy has mean 0 and standard deviation 1 (Sec 1.4.2's Z-scores)."""
    X, _ = hh.binary_digits(40, digit=1, seed=1)
    for r in (hc.herd_class_energies(X, X, 5, steps=6, collect=1, seed=0),
              hc.cd_class_energies(X, X, 5, steps=6, collect=1, seed=0)):
        assert abs(r.energies.mean()) < 1e-9 and abs(r.energies.std() - 1) < 1e-9


def test_pcd_energies_rank_own_class_first():
    """PCD (BernoulliRBM) on one digit: its own test digits get lower standardised free
    energies than other digits on average."""
    s = hc.split_digits(60, 10, seed=0)
    ev = np.vstack([s.test])
    r = hc.pcd_class_energies(s.train[s.train_labels == 0], ev, 10, steps=30, seed=0)
    own = s.test_labels == 0
    assert r.energies[own].mean() < r.energies[~own].mean() - 1


def test_split_and_one_nn():
    from sklearn.neighbors import KNeighborsClassifier

    s = hc.split_digits(20, 10, seed=3)
    assert np.all(np.bincount(s.train_labels) == 20)
    assert np.all(np.bincount(s.validation_labels) == 10)
    assert len(s.test) == 1797 - 300
    knn = KNeighborsClassifier(1, metric="manhattan").fit(s.train, s.train_labels)
    assert np.mean(hc._one_nn(s.train, s.train_labels, s.test) == knn.predict(s.test)) > 0.97


def _result(h, sh, cd, splits=4, noise=0.002):
    rng = np.random.default_rng(0)
    errors = {m: np.array(e) + noise * rng.standard_normal((splits, len(e)))
              for m, e in (("H", h), ("SH", sh), ("CD", cd))}
    return hc.ClassifyResult(methods=("H", "SH", "CD"), hidden={m: (10, 20, 40) for m in errors},
                             errors=errors, splits=splits, steps=10, train=10, validation=5,
                             n_test=400)


def test_claim_rules():
    ok = hc.classification_claim(_result([0.08, 0.07, 0.07], [0.10, 0.09, 0.09],
                                         [0.08, 0.07, 0.07]))
    assert ok.agrees is True and ok.result == "reproduced"
    assert ok.thresholds["FIG114_MARGIN"] is hc.FIG114_MARGIN and "SE" in ok.power
    safe_better = hc.classification_claim(_result([0.10, 0.09, 0.09], [0.08, 0.07, 0.07],
                                                  [0.10, 0.09, 0.09]))
    assert safe_better.agrees is False and "not above" in safe_better.why
    overfit = hc.classification_claim(_result([0.07, 0.08, 0.15], [0.10, 0.10, 0.16],
                                              [0.07, 0.08, 0.15]))
    assert overfit.agrees is False and "exceeds its error with 10" in overfit.why
    unlike_cd = hc.classification_claim(_result([0.08, 0.07, 0.07], [0.10, 0.09, 0.09],
                                                [0.04, 0.03, 0.03]))
    assert unlike_cd.agrees is False and "CD's differ by" in unlike_cd.why
    # "equally well" is an equivalence test: runs as noisy as the margin do not pass, they
    # are not decided (the old rule, within 2 SE, passed more easily the noisier the runs)
    noisy = hc.classification_claim(_result([0.08, 0.07, 0.07], [0.10, 0.09, 0.09],
                                            [0.08, 0.07, 0.07], noise=0.02))
    assert noisy.agrees is None and noisy.outcome.startswith("not decided: ")
    # one split: the binomial standard errors of n_test cases stand in
    one = hc.classification_claim(_result([0.08, 0.07, 0.07], [0.12, 0.11, 0.11],
                                          [0.08, 0.07, 0.07], splits=1, noise=0.0))
    assert one.numbers["SH_minus_H_se"] > 0 and one.agrees is None and "not inside" in one.why


def test_tiny_experiment():
    r = hc.classification_experiment(hidden=(2, 4), splits=2, steps=4, train=20, validation=10,
                                     seed=1)
    assert r.errors["H"].shape == (2, 2) and r.errors["PCD"].shape == (2, 1)
    assert r.hidden["PCD"] == (4,) and r.hidden["MLR"] == ()
    for m in r.methods:
        assert np.all((r.errors[m] >= 0) & (r.errors[m] < 0.6))
    assert hc.classification_claim(r).agrees in (True, False)
