"""Herding on data (Chen & Welling Sec 1.4.1, Tables 1.1-1.2): each piece against an
independent computation (exact enumeration over the 2^n states, finite differences,
scikit-learn's logistic regression)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.optimize import check_grad

from dynamics.pct import generalized_herding as gh
from dynamics.herding import data as hd
from dynamics.checks import kl_divergence


def _random_machine(n, seed, scale=0.6):
    rng = np.random.default_rng(seed)
    W = np.triu(scale * rng.standard_normal((n, n)), 1)
    return scale * rng.standard_normal(n), W + W.T


def test_datasets_are_binary_and_said():
    for name in hd.DATASETS:
        d = hd.binary_dataset(name, bits=6)
        assert d.data.shape[1] == 6 and len(d.labels) == len(d.data) > 300
        assert set(np.unique(d.data)) == {0, 1} and set(np.unique(d.labels)) == {0, 1}
        assert "scikit-learn" in d.description
    with pytest.raises(ValueError, match="name"):
        hd.binary_dataset("mnist")


def test_features_and_counts_against_direct_computation():
    states = hd.all_binary_states(4)
    # order 2 in the +-1 basis is generalized_herding's fully visible Boltzmann machine features
    np.testing.assert_array_equal(hd.monomial_features(states, 2),
                                  gh.features(2 * states.astype(float) - 1))
    assert hd.monomial_features(states, 3).shape == (16, 4 + 6 + 4)
    rng = np.random.default_rng(0)
    x = (rng.random((500, 4)) < [0.2, 0.5, 0.7, 0.4]).astype(np.int8)
    p = hd.empirical_distribution(x)
    np.testing.assert_allclose(hd.count_distribution(p),
                               np.bincount(x.sum(axis=1), minlength=5) / 500)


def test_herding_matches_the_moments_it_is_given():
    rng = np.random.default_rng(1)
    x = (rng.random((300, 3)) < [0.3, 0.6, 0.5]).astype(np.int8)
    x[:, 2] = x[:, 0] ^ x[:, 1] ^ (rng.random(300) < 0.1)  # a triplet interaction
    data = hd.empirical_distribution(x)
    # all monomials of 3 bits determine the distribution: herding reproduces it (O(1/T))
    full = hd.herd_distribution(x, 3, 4000)
    assert 0.5 * np.abs(full - data).sum() < 5e-3
    # pairs: the pair moments match, the distribution need not
    table = hd.monomial_features(hd.all_binary_states(3), 2)
    pairs = hd.herd_distribution(x, 2, 4000)
    np.testing.assert_allclose(pairs @ table, data @ table, atol=5e-3)
    assert 0.5 * np.abs(pairs - data).sum() > 0.05


def test_pseudo_likelihood_against_enumerated_conditionals_and_its_gradient():
    b, W = _random_machine(4, 2)
    rng = np.random.default_rng(3)
    x = (rng.random((50, 4)) < 0.5).astype(np.int8)
    p = hd.boltzmann_distribution(b, W)
    codes = (x.astype(int) << np.arange(4)).sum(axis=1)
    expected = np.mean([sum(np.log(p[c] / (p[c] + p[c ^ (1 << i)])) for i in range(4))
                        for c in codes])
    assert hd.pseudo_likelihood(x, b, W) == pytest.approx(expected, rel=1e-10)
    theta = np.concatenate([b, W[np.triu_indices(4, 1)]])
    s = 2.0 * x - 1.0
    assert check_grad(lambda t: hd._pl_objective(t, s, 0.1)[0],
                      lambda t: hd._pl_objective(t, s, 0.1)[1], theta) < 1e-5


def test_pseudo_likelihood_fit_recovers_a_machine_and_gibbs_samples_it():
    b, W = _random_machine(4, 4)
    p = hd.boltzmann_distribution(b, W)
    rng = np.random.default_rng(5)
    x = hd.all_binary_states(4)[rng.choice(16, size=20_000, p=p)]
    fit = hd.fit_pseudo_likelihood(x, l2=1e-6)
    np.testing.assert_allclose(fit.b, b, atol=0.06)
    np.testing.assert_allclose(fit.W, W, atol=0.06)
    samples = hd.gibbs_samples(b, W, 20_000, burn_in=100, seed=6)
    assert 0.5 * np.abs(hd.empirical_distribution(samples) - p).sum() < 0.03


def test_online_logistic_tends_to_scikit_learns_batch_logistic_regression():
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(7)
    x = (rng.random((200, 3)) < 0.5).astype(np.int8)
    y = (rng.random(200) < 1 / (1 + np.exp(-(x @ [1.5, -1.0, 0.5] - 0.3)))).astype(float)
    stream = np.tile(np.arange(200), 300)
    rng.shuffle(stream)
    w = hd.online_logistic(x[stream], y[stream], eta=1.0)
    batch = LogisticRegression(C=1e8, max_iter=10_000, tol=1e-10).fit(x, y)
    np.testing.assert_allclose(w, np.r_[batch.coef_[0], batch.intercept_], atol=0.05)


def test_tables_and_their_claims_on_a_small_run():
    d = hd.binary_dataset("diabetes", bits=5)
    table = hd.kl_table(d.data, samples=2000, seed=0, name="diabetes")
    assert set(table.kl_count) == set(hd.METHODS)
    for m in hd.METHODS:
        assert table.p_k[m].sum() == pytest.approx(1) and table.tv_joint[m] >= 0
    v = hd.kl_table_claim([table])
    assert v.result in ("reproduced", "differs", "not decided") and "diabetes" in v.measured
    # the rule: a table whose herding is worse than the marginals differs
    worse = hd.KLTable(name="t", n=3, cases=1, samples=1, data_joint=np.ones(8) / 8,
                       data_p_k=np.ones(4) / 4,
                       kl_count={"H.XXX": 0.1, "H.XX": 0.5, "PL": 0.6, "MARG": 0.2})
    assert hd.kl_table_claim(worse).agrees is False
    good = hd.KLTable(name="t", n=3, cases=1, samples=1, data_joint=np.ones(8) / 8,
                      data_p_k=np.ones(4) / 4,
                      kl_count={"H.XXX": 0.01, "H.XX": 0.05, "PL": 0.1, "MARG": 0.4})
    assert hd.kl_table_claim(good).agrees is True
    errors = hd.classification_table(d.data, d.labels, runs=2, steps=500, seed=0)
    assert all(0 <= e.min() and e.max() <= 1 for e in errors.errors.values())
    assert hd.online_classifier_claim(errors).result in ("reproduced", "differs",
                                                         "not decided")


def _errors(h, lr):
    """A Table 1.2 of known per-split errors for H.XXY and LR (the others as LR's)."""
    h, lr = np.array(h, float), np.array(lr, float)
    return hd.ClassificationTable(name="digits", runs=len(h), train=10, test=10, steps=10,
                                  errors={m: (h if m == "H.XXY" else lr)
                                          for m in hd.CLASSIFIERS})


def test_table_1_2_is_a_non_inferiority_test():
    lr = [0.060, 0.055, 0.065, 0.058, 0.062]
    same = hd.online_classifier_claim(_errors([0.061, 0.054, 0.066, 0.057, 0.063], lr))
    assert same.result == "reproduced" and same.thresholds["TABLE12_MARGIN"] is hd.TABLE12_MARGIN
    worse = hd.online_classifier_claim(_errors([0.090, 0.086, 0.094, 0.088, 0.092], lr))
    assert worse.result == "differs" and "above the 0.01 margin" in worse.why
    # as good on average but the splits disagree: the margin is inside the noise
    noisy = hd.online_classifier_claim(_errors([0.03, 0.10, 0.02, 0.11, 0.04], lr))
    assert noisy.result == "not decided"
    assert hd.online_classifier_claim(_errors([0.06], [0.06])).result == "not decided"


def _kl_table(h3, h2, pl, marg):
    """A table of replicates set by hand (the first of each the table's number)."""
    reps = {"H.XXX": h3, "H.XX": h2, "PL": pl, "MARG": marg}
    return hd.KLTable(name="diabetes", n=3, cases=1, samples=1, data_joint=np.ones(8) / 8,
                      data_p_k=np.ones(4) / 4, kl_count={m: r[0] for m, r in reps.items()},
                      kl_replicates={m: np.array(r) for m, r in reps.items()})


def test_table_1_1_is_a_tie_inside_the_methods_own_noise():
    """The audit's diabetes numbers: H.XX 0.0191 against PL 0.0183, with herding's tie-break
    spread 0.0178-0.0191 and PL's Gibbs spread 0.0183-0.0192: the old rule said "differs",
    the ranges overlap, so it is not decided; ranges apart decide either way."""
    marg, h3 = [0.32, 0.33, 0.321], [0.011, 0.0105, 0.0109]
    tie = hd.kl_table_claim(_kl_table(h3, [0.0191, 0.0178, 0.0187], [0.0183, 0.0192, 0.0188],
                                      marg))
    assert tie.result == "not decided" and "H.XX against PL is a tie" in tie.why
    assert tie.thresholds == {"TABLE11_REPLICATES": hd.TABLE11_REPLICATES}
    apart = hd.kl_table_claim(_kl_table(h3, [0.0150, 0.0152, 0.0149], [0.0183, 0.0192, 0.0188],
                                        marg))
    assert apart.result == "reproduced"
    above = hd.kl_table_claim(_kl_table(h3, [0.0250, 0.0252, 0.0249], [0.0183, 0.0192, 0.0188],
                                        marg))
    assert above.result == "differs" and "H.XX is above PL" in above.why
    # a failed check elsewhere outweighs the tie: differs
    both = hd.kl_table_claim(_kl_table([0.02, 0.021, 0.02], [0.0191, 0.0178, 0.0187],
                                       [0.0183, 0.0192, 0.0188], marg))
    assert both.result == "differs" and "H.XXX is above H.XX" in both.why


def test_herding_replicates_differ_only_by_tie_breaks():
    """A relabelling of the bits leaves P(k) of the data and the moments as they are, so
    herding's replicates differ only where its argmax had ties; with shift 0 it is
    ``herd_distribution`` itself, and each replicate's joint is a distribution."""
    d = hd.binary_dataset("diabetes", bits=5)
    assert np.array_equal(hd._relabelled_herding(d.data, 2, 500, 0),
                          hd.herd_distribution(d.data, 2, 500))
    shifted = hd._relabelled_herding(d.data, 2, 500, 2)
    assert shifted.sum() == pytest.approx(1.0) and shifted.shape == (32,)
    # the relabelled run's first pseudo-sample matches the moments to 1/T as the original's
    # does: the marginals of both runs agree to within a few steps' worth
    bits = hd.all_binary_states(5)
    np.testing.assert_allclose(shifted @ bits, hd.herd_distribution(d.data, 2, 500) @ bits,
                               atol=10 / 500)
    table = hd.kl_table(d.data, samples=500, seed=0, replicates=3)
    assert all(len(r) == 3 for r in table.kl_replicates.values())
    assert table.kl_replicates["PL"][0] == table.kl_count["PL"]


def test_both_tables_per_data_set_do_not_depend_on_the_other_sets():
    """``data_tables`` is ``kl_table`` and ``classification_table`` per data set with one seed:
    a set's rows are the same asked alone or after another, and the tables done so far are
    streamed after each set."""
    partials = []
    both = hd.data_tables(["digits", "diabetes"], samples=300, runs=2, seed=3,
                          progress=lambda f, m, partial=None: partials.append(partial))
    alone = hd.data_tables("diabetes", samples=300, runs=2, seed=3)
    assert both.names == ("digits", "diabetes") and alone.names == ("diabetes",)
    assert both.kl[1].kl_count == alone.kl[0].kl_count
    for m in hd.CLASSIFIERS:
        np.testing.assert_array_equal(both.errors[1].errors[m], alone.errors[0].errors[m])
    d = hd.binary_dataset("diabetes")
    assert hd.kl_table(d.data, samples=300, seed=3).kl_count == alone.kl[0].kl_count
    assert [p.names for p in partials if p is not None] == [("digits",), ("digits", "diabetes")]
    for bad in ([], ["diabetes", "diabetes"], ["iris"]):
        with pytest.raises(ValueError, match="names"):
            hd.data_tables(bad, samples=300, runs=2)


def test_pairs_against_pl_is_the_tables_h_xx_and_pl_with_the_exact_machine_beside():
    d = hd.binary_dataset("diabetes", bits=5)
    table = hd.kl_table(d.data, samples=2000, seed=0)
    spread = hd.pairs_against_pl(d.data, samples=2000, seeds=3)
    assert spread.herding == table.kl_count["H.XX"]
    assert spread.pl_sampled[0] == table.kl_count["PL"] and spread.pl_sampled.shape == (3,)
    # herding is deterministic: 2S steps are the first S and S more
    twice = hd.herd_distribution(d.data, 2, 4000)
    assert spread.herding_double == pytest.approx(kl_divergence(
        table.data_p_k, hd.count_distribution(twice)))
    # the exact machine's P(k), by a plain loop over the 32 states
    machine = hd.fit_pseudo_likelihood(d.data)
    weights = np.zeros(6)
    for code in range(32):
        s = 2.0 * ((code >> np.arange(5)) & 1) - 1.0
        weights[int((s > 0).sum())] += np.exp(machine.b @ s + 0.5 * s @ machine.W @ s)
    exact = weights / weights.sum()
    assert spread.pl_exact == pytest.approx(kl_divergence(table.data_p_k, exact), rel=1e-9)


@pytest.mark.parametrize("order", [2, 3])
def test_herding_on_table_1_1_data_breaks_exact_ties_by_the_lowest_state(order):
    # Table 1.1's case at a small size: diabetes, 6 bits, H.XX / H.XXX. The features are +-1
    # monomials and the moments multiples of 1/N, so states tie exactly; the reference keeps
    # u = N w in integers and takes the lowest state code among the maxima.
    x = hd.binary_dataset("diabetes", bits=6).data
    table = hd.monomial_features(hd.all_binary_states(6), order).astype(np.int64)
    counts = np.bincount((x.astype(np.int64) << np.arange(6)).sum(axis=1), minlength=64)
    N, m = len(x), counts @ table
    steps = 3000
    u = np.zeros(table.shape[1], np.int64)
    expected, ties = np.empty(steps, np.int64), 0
    for t in range(steps):
        scores = table @ u
        best = np.flatnonzero(scores == scores.max())
        ties += int(t > 0 and best.size > 1)
        expected[t] = best[0]
        u += m - N * table[best[0]]
    assert ties >= 5                       # ties beyond the first step (w = 0) really occur
    np.testing.assert_array_equal(hd._herd_states(x, order, steps), expected)
    np.testing.assert_array_equal(hd.herd_distribution(x, order, steps),
                                  np.bincount(expected, minlength=64) / steps)
