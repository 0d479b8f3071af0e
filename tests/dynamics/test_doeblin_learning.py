"""Learning strong Doeblin chains (Steinhardt & Liang, Sec 4, Algorithm 1) and the word task."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dynamics.doeblin import learning as lk
from dynamics.doeblin import word_task as wk
from dynamics import doeblin as db

V, L = 3, 3
DICTIONARY = np.array([[0, 1, 2], [2, 1, 0], [1, 1, 1], [0, 0, 2]])
MODEL = db.sequence_model(V, L, DICTIONARY)
PW = V ** np.arange(L - 1, -1, -1)


def random_theta(seed, scale=0.8):
    rng = np.random.default_rng(seed)
    theta = rng.normal(scale=scale, size=MODEL.n_params)
    theta[MODEL.slices["dictionary"]] = rng.uniform(0.5, 2.5)
    return theta


def states():
    return np.stack(np.unravel_index(np.arange(V**L), (V,) * L), axis=1)


def energy(theta, x, y, model=MODEL):
    """The Gibbs energy E(y) of A_theta, written out from the module docstring."""
    s = model.slices
    Vm, Lm = model.n_letters, model.length
    Ae = theta[s["a_emit"]].reshape(Vm, Vm)
    Ap = theta[s["a_pos"]].reshape(Lm, Vm)
    B = theta[s["bigram"]].reshape(Vm, Vm)
    code = int(np.dot(y, Vm ** np.arange(Lm - 1, -1, -1)))
    e = sum(Ae[x[i], y[i]] + Ap[i, y[i]] for i in range(Lm))
    e += sum(B[y[i - 1], y[i]] for i in range(1, Lm))
    return e + theta[s["dictionary"]][0] * model.in_dictionary[code]


def u_conditionals(theta, x, model=MODEL):
    s = model.slices
    Vm, Lm = model.n_letters, model.length
    logits = theta[s["u_emit"]].reshape(Vm, Vm)[x] + theta[s["u_pos"]].reshape(Lm, Vm)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    return p / p.sum(axis=1, keepdims=True)


def fd_jacobians(theta, x, h=1e-6):
    """d log u[y] / d theta (N, d) and d log A[y', y] / d theta (N, N, d) by central differences
    of the enumerated chains (entries with A = 0 are left at 0)."""
    N, d = V**L, MODEL.n_params
    Ju = np.zeros((N, d))
    JA = np.zeros((N, N, d))
    _, A0 = db.model_chains(theta, x, MODEL)
    pos = A0 > 0
    for j in range(d):
        tp, tm = theta.copy(), theta.copy()
        tp[j] += h
        tm[j] -= h
        up, Ap = db.model_chains(tp, x, MODEL)
        um, Am = db.model_chains(tm, x, MODEL)
        Ju[:, j] = (np.log(up) - np.log(um)) / (2 * h)
        JA[pos, j] = (np.log(Ap[pos]) - np.log(Am[pos])) / (2 * h)
    return Ju, JA


def naive_path_gradient(u, A, Ju, JA, eps, path_codes, T, y):
    """Algorithm 1's inner sums without the O(T) grouping: for each t, the full score of the path
    y_0..y_{t-1}, y_t = y, weighted by w_t (O(T^2))."""
    g = eps * u[y] * Ju[y]
    Z = eps * u[y]
    for t in range(1, T + 1):
        w = eps * A[path_codes[t - 1], y]
        if w == 0:
            continue
        score = Ju[path_codes[0]].copy()
        for s in range(1, t):
            score += JA[path_codes[s - 1], path_codes[s]]
        score += JA[path_codes[t - 1], y]
        g = g + w * score
        Z += w
    return g, Z


def numpy_gibbs_path(theta, x, steps, seed, model=MODEL):
    """Reference for gibbs_path: y_0 ~ u, then random-scan Gibbs from the global energy, with the
    same uniforms (numba's stream is numpy's legacy MT19937)."""
    rng = np.random.default_rng(seed)
    rs = np.random.RandomState(int(rng.integers(0, 2**32)))
    Lm, Vm = model.length, model.n_letters
    pu = u_conditionals(theta, x, model)

    def pick(p, r):
        acc = 0.0
        for c in range(Vm):
            acc += p[c]
            if r < acc:
                return c
        return Vm - 1

    y = np.array([pick(pu[i], rs.random_sample()) for i in range(Lm)])
    path = [y.copy()]
    for _ in range(steps):
        i = min(int(rs.random_sample() * Lm), Lm - 1)
        e = np.empty(Vm)
        for c in range(Vm):
            z = y.copy()
            z[i] = c
            e[c] = energy(theta, x, z, model)
        p = np.exp(e - e.max())
        y[i] = pick(p / p.sum(), rs.random_sample())
        path.append(y.copy())
    return np.array(path)


# ---------------------------------------------------------------- the enumerated chains


def test_model_chains_are_eq5_exponential_families():
    theta = random_theta(0)
    x = np.array([2, 0, 1])
    u, A = db.model_chains(theta, x, MODEL)
    np.testing.assert_allclose(A.sum(axis=1), 1.0, atol=1e-13)
    Y = states()
    pu = u_conditionals(theta, x)
    np.testing.assert_allclose(u, np.prod(pu[np.arange(L), Y], axis=1), rtol=1e-12)
    # Gibbs detailed balance: A is reversible w.r.t. exp(E) / Z
    E = np.array([energy(theta, x, y) for y in Y])
    p = np.exp(E - E.max())
    p /= p.sum()
    flow = p[:, None] * A
    np.testing.assert_allclose(flow, flow.T, atol=1e-15)
    # A moves at most one letter
    hamming = (Y[:, None, :] != Y[None, :, :]).sum(axis=2)
    assert np.all(A[hamming >= 2] == 0) and np.all(A[hamming <= 1] > 0)


def test_assumption_4_3_initialisation_leaves_u_invariant():
    theta = random_theta(1)
    s = MODEL.slices
    theta[s["a_emit"]] = theta[s["u_emit"]]
    theta[s["a_pos"]] = theta[s["u_pos"]]
    theta[s["bigram"]] = 0.0
    theta[s["dictionary"]] = 0.0
    x = np.array([0, 2, 2])
    u, A = db.model_chains(theta, x, MODEL)
    np.testing.assert_allclose(u @ A, u, atol=1e-15)
    for y in ([0, 1, 2], [2, 2, 2]):
        code = int(np.dot(y, PW))
        assert db.exact_log_likelihood(theta, x, y, MODEL, eps=0.1) == pytest.approx(
            math.log(u[code]), abs=1e-12)


# ---------------------------------------------------------------- kernels vs references


def test_kernel_probabilities_match_the_enumerated_chains():
    theta = random_theta(2)
    x = np.array([1, 1, 0])
    u, A = db.model_chains(theta, x, MODEL)
    buf = np.empty(V)
    pw = PW.astype(np.int64)
    Y = states().astype(np.int64)
    for a in range(V**L):
        assert lk._u_prob(theta, V, L, x, Y[a], buf) == pytest.approx(u[a], rel=1e-12)
    for a in np.random.default_rng(0).choice(V**L, 9, replace=False):
        for b in range(V**L):
            got = lk._a_prob(theta, V, L, x, Y[a], a, Y[b], MODEL.in_dictionary, pw, buf)
            assert got == pytest.approx(A[a, b], rel=1e-12, abs=1e-300)


def test_kernel_score_functions_match_finite_differences():
    theta = random_theta(3)
    x = np.array([0, 1, 2])
    Ju, JA = fd_jacobians(theta, x)
    buf = np.empty(V)
    pw = PW.astype(np.int64)
    Y = states().astype(np.int64)
    rng = np.random.default_rng(0)
    for a in rng.choice(V**L, 8, replace=False):
        g = np.zeros(MODEL.n_params)
        lk._add_grad_log_u(theta, V, L, x, Y[a], 1.0, g, buf)
        np.testing.assert_allclose(g, Ju[a], atol=1e-7)
        neighbours = [b for b in range(V**L) if (Y[a] != Y[b]).sum() <= 1]
        for b in neighbours:  # includes b = a, the mixture over positions
            g = np.zeros(MODEL.n_params)
            lk._add_grad_log_a(theta, V, L, x, Y[a], a, Y[b], 1.0, g, MODEL.in_dictionary, pw,
                               buf)
            np.testing.assert_allclose(g, JA[a, b], atol=1e-7)


def test_features_of_the_gibbs_energy():
    theta = random_theta(4)
    x = np.array([2, 1, 0])
    n_u = MODEL.u_params
    for y in states().astype(np.int64):
        g = np.zeros(MODEL.n_params)
        wk._add_features_a(V, L, x, y, int(np.dot(y, PW)), MODEL.in_dictionary, 1.0, g)
        assert np.all(g[:n_u] == 0)
        assert theta[n_u:] @ g[n_u:] == pytest.approx(energy(theta, x, y), rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_path_gradient_matches_the_naive_quadratic_sum(seed):
    theta = random_theta(10 + seed)
    x = np.array([seed % 3, 1, 2])
    u, A = db.model_chains(theta, x, MODEL)
    Ju, JA = fd_jacobians(theta, x)
    T = 12
    path = db.gibbs_path(theta, x, MODEL, steps=T - 1, seed=seed)
    codes = path @ PW
    buf = np.empty(V)
    for y in (path[-1], path[T // 2], np.array([2, 2, 0])):
        g = np.zeros(MODEL.n_params)
        Z = lk._path_gradient(theta, V, L, x, y.astype(np.int64), MODEL.in_dictionary,
                              PW.astype(np.int64), 0.2, path, T, g, buf)
        g_ref, Z_ref = naive_path_gradient(u, A, Ju, JA, 0.2, codes, T, int(y @ PW))
        assert Z == pytest.approx(Z_ref, rel=1e-12)
        np.testing.assert_allclose(g, g_ref, atol=1e-7 * max(1.0, np.abs(g_ref).max()))


def test_gibbs_path_matches_numpy_reference():
    theta = random_theta(5)
    x = np.array([1, 0, 2])
    path = db.gibbs_path(theta, x, MODEL, steps=300, seed=42)
    np.testing.assert_array_equal(path, numpy_gibbs_path(theta, x, 300, 42))
    start = np.array([2, 2, 2])
    fixed = db.gibbs_path(theta, x, MODEL, steps=5, start=start, seed=1)
    np.testing.assert_array_equal(fixed[0], start)
    assert np.all((fixed[1:] != fixed[:-1]).sum(axis=1) <= 1)


# ---------------------------------------------------------------- Algorithm 1 vs exact gradient


def test_algorithm1_converges_to_the_exact_gradient():
    theta = random_theta(6)
    x = np.array([0, 2, 1])
    y = np.array([0, 1, 2])
    res = db.gradient_convergence(theta, x, y, MODEL, eps=0.3, sample_sizes=(20, 20_000),
                                  repeats=3, seed=7)
    small, large = res.errors.mean(axis=1)
    assert large < 0.06
    assert large < small / 5  # error falls roughly as 1 / sqrt(k)
    assert res.likelihood_errors[-1].mean() < 0.03
    # the estimate is of the gradient of log p, p from Prop 3.2's closed form
    assert res.likelihood == pytest.approx(
        math.exp(db.exact_log_likelihood(theta, x, y, MODEL, eps=0.3)))


def test_algorithm1_is_not_the_gradient_of_u_alone():
    # with eps < 1 the A-block of the gradient is non-zero and matched by the estimate
    theta = random_theta(8)
    x = np.array([1, 2, 0])
    y = np.array([1, 1, 1])  # a dictionary word
    exact = db.exact_gradient(theta, x, y, MODEL, eps=0.4)
    a_block = slice(MODEL.u_params, MODEL.n_params)
    assert np.abs(exact[a_block]).max() > 0.05
    est = db.sample_gradient(theta, x, y, MODEL, eps=0.4, samples=20_000, seed=3).gradient
    assert np.linalg.norm(est - exact) < 0.06 * np.linalg.norm(exact)


def test_edit_weighted_variant_estimates_its_smoothed_objective():
    theta = random_theta(9)
    x = np.array([2, 0, 0])
    y = np.array([0, 0, 2])
    eps = 0.3
    Y = states()
    sim = np.exp(-((Y != y).sum(axis=1) + 1.0))

    def objective(t):
        u, A = db.model_chains(t, x, MODEL)
        return math.log(db.restart_stationary(A, u, eps) @ sim)

    h = 1e-6
    exact = np.array([(objective(theta + h * e) - objective(theta - h * e)) / (2 * h)
                      for e in np.eye(MODEL.n_params)])
    # this estimator has more variance than Algorithm 1's (relative error ~0.05 at k = 2e4,
    # ~0.02 at k = 2e5, ~0.008 at k = 1e6)
    est = db.sample_gradient(theta, x, y, MODEL, eps=eps, samples=200_000, weights="edit",
                             seed=4)
    assert np.linalg.norm(est.gradient - exact) < 0.05 * np.linalg.norm(exact)
    assert est.likelihood == pytest.approx(math.exp(objective(theta)), rel=0.02)


# ---------------------------------------------------------------- validation


def test_bad_inputs_raise():
    theta = np.zeros(MODEL.n_params)
    x = np.array([0, 1, 2])
    with pytest.raises(ValueError, match="theta"):
        db.sample_gradient(np.zeros(3), x, x, MODEL, eps=0.5)
    with pytest.raises(ValueError, match="theta"):
        db.sample_gradient(np.full(MODEL.n_params, np.nan), x, x, MODEL, eps=0.5)
    with pytest.raises(ValueError, match="x"):
        db.sample_gradient(theta, [0, 1, 3], x, MODEL, eps=0.5)
    with pytest.raises(ValueError, match="y"):
        db.sample_gradient(theta, x, [0, 1], MODEL, eps=0.5)
    for eps in (0.0, 1.5, np.nan, 1e-6):
        with pytest.raises(ValueError, match="eps"):
            db.sample_gradient(theta, x, x, MODEL, eps=eps)
    with pytest.raises(ValueError, match="weights"):
        db.sample_gradient(theta, x, x, MODEL, eps=0.5, weights="edit distance")
    with pytest.raises(ValueError, match="samples"):
        db.sample_gradient(theta, x, x, MODEL, eps=0.5, samples=0)
    with pytest.raises(ValueError, match="sequences"):
        db.model_chains(np.zeros(db.sequence_model(8, 4).n_params), np.zeros(4, dtype=int),
                        db.sequence_model(8, 4))
    with pytest.raises(ValueError, match="dictionary"):
        db.sequence_model(3, 2, [[0, 3]])
    with pytest.raises(ValueError, match="noise"):
        db.make_word_task(noise=1.5)
    with pytest.raises(ValueError, match="letters"):
        db.make_word_task(words=("rate", "zulu"))
    with pytest.raises(ValueError, match="methods"):
        db.train_word_task(methods=("doeblin", "perceptron"))
    with pytest.raises(ValueError, match="progress"):
        db.train_word_task(progress="yes")


# ---------------------------------------------------------------- the word task


def test_make_word_task():
    task = db.make_word_task(n_train=50, n_test=20, noise=0.0, seed=1)
    np.testing.assert_array_equal(task.x_train, task.y_train)
    m = task.model
    assert m.n_letters == len(db.WORD_LETTERS) and m.length == 4
    codes = task.y_train @ (m.n_letters ** np.arange(3, -1, -1))
    assert np.all(m.in_dictionary[codes] == 1)
    assert m.in_dictionary.sum() == len(set(db.WORD_LIST))
    assert wk._oracle_accuracy(task) == (1.0, 1.0)
    noisy = db.make_word_task(n_train=4000, n_test=1, noise=0.5, seed=2)
    kept = np.mean(noisy.x_train == noisy.y_train)
    assert abs(kept - (0.5 + 0.5 / 8)) < 0.02


def test_neighbour_channel_and_six_letter_words():
    """The 'key beside' channel: a noisy letter is the next one of the alphabet (cyclically), with
    probability noise; the Bayes decoder uses that channel (a brute-force check over the
    dictionary); 6-letter words build a 6-position model."""
    task = db.make_word_task(n_train=4000, n_test=30, noise=0.7, channel="neighbour",
                             words=db.WORD_LIST_6, seed=5)
    V = len(db.WORD_LETTERS)
    assert task.model.length == 6 and task.model.in_dictionary.sum() == len(db.WORD_LIST_6)
    shifted = task.x_train == (task.y_train + 1) % V
    assert np.all(shifted | (task.x_train == task.y_train))
    assert abs(shifted.mean() - 0.7) < 0.01
    C = task.channel_matrix()
    np.testing.assert_allclose(C.sum(axis=1), 1.0)
    words = task.words
    hits = chars = 0
    for x, y in zip(task.x_test, task.y_test):
        lik = [np.prod([C[w[i], x[i]] for i in range(6)]) for w in words]
        best = words[int(np.argmax(lik))]
        hits += np.array_equal(best, y)
        chars += np.mean(best == y)
    assert wk._oracle_accuracy(task) == pytest.approx((hits / 30, chars / 30))
    uniform = db.make_word_task(n_train=10, n_test=5, noise=0.4, seed=1)
    np.testing.assert_allclose(uniform.channel_matrix(), 0.6 * np.eye(V) + 0.4 / V)
    with pytest.raises(ValueError, match="channel"):
        db.make_word_task(channel="qwerty")


def test_evaluate_matches_the_exact_accuracy_of_u():
    # mode 3 scores draws from u: expected word accuracy u(y | x), char accuracy mean_i u_i(y_i)
    task = db.make_word_task(n_train=10, n_test=15, noise=0.4, seed=3)
    m = task.model
    rng = np.random.default_rng(0)
    theta = rng.normal(size=m.n_params)
    word = char = 0.0
    for x, y in zip(task.x_test, task.y_test):
        pu = u_conditionals(theta, x, m)[np.arange(4), y]
        word += pu.prod() / 15
        char += pu.mean() / 15
    got = wk._evaluate(theta, task.x_test, task.y_test, m.n_letters, m.length, m.in_dictionary,
                       3, 10, 0.1, 4000, 5)
    assert got[0] == pytest.approx(word, abs=0.01)
    assert got[1] == pytest.approx(char, abs=0.01)


def test_train_word_task_tiny_run_reports_progress():
    calls = []
    res = db.train_word_task(transitions=4, epochs=2, seeds=2, chains=2, n_train=12, n_test=6,
                             u_epochs=1, seed=0, progress=lambda f, msg: calls.append((f, msg)))
    n_m = len(db.WORD_METHODS)
    assert res.word_accuracy.shape == (3, n_m, 2) == res.char_accuracy.shape
    assert res.word_mean.shape == (3, n_m) and res.long_word_accuracy.shape == (n_m, 2)
    assert np.all((res.word_accuracy >= 0) & (res.word_accuracy <= res.char_accuracy + 1e-12))
    assert np.all(res.char_accuracy <= 1)
    fractions = [f for f, _ in calls]
    assert fractions == sorted(fractions) and fractions[-1] == pytest.approx(1.0)
    assert all(isinstance(msg, str) and msg for _, msg in calls)
    assert np.all(res.train_objective[:, :2] < 0)  # log of a probability estimate
    np.testing.assert_array_equal(res.epochs, [0, 1, 2])


def test_the_progress_fraction_weighs_each_pass_by_its_cost_and_leaves_the_results(monkeypatch):
    """The fraction is the share of the measured cost done (a training epoch and an evaluation
    per method, from ``_unit_costs``), not an equal share per pass: the Doeblin methods' epochs
    take several times the Gibbs ones' (6x at the page's defaults here), and equal shares made
    a time left read off the fraction up to 3x too high. Measuring the costs draws nothing from
    the run's generator, so the results are those of a run without progress."""
    kwargs = dict(transitions=4, epochs=2, seeds=2, chains=2, n_train=12, n_test=6, u_epochs=1,
                  seed=3, methods=("doeblin", "u-gibbs"))
    costs = {"doeblin": (6.0, 1.0), "u-gibbs": (1.0, 1.0)}
    monkeypatch.setattr(wk, "_unit_costs", lambda task, methods, *args: dict(costs))
    calls = []
    res = db.train_word_task(**kwargs, progress=lambda f, m: calls.append(f))
    # per seed: doeblin epoch 0's evaluation (1), epochs 1 and 2 each reported after training
    # (6) and after evaluation (1), its long evaluation (10), then u-gibbs (1; 1, 1; 1, 1; 10);
    # the total is two seeds of 25 + 15
    steps = [1, 6, 1, 6, 1, 10, 1, 1, 1, 1, 1, 10] * 2
    expected = np.cumsum(steps) / 80.0
    np.testing.assert_allclose(calls, expected)
    plain = db.train_word_task(**kwargs)
    np.testing.assert_array_equal(res.word_accuracy, plain.word_accuracy)
    np.testing.assert_array_equal(res.long_char_accuracy, plain.long_char_accuracy)


def test_the_measured_costs_are_positive_for_every_method():
    task = db.make_word_task(n_train=20, n_test=10, seed=1)
    theta0, G0 = np.zeros(task.model.n_params), np.zeros(task.model.n_params)
    costs = wk._unit_costs(task, db.WORD_METHODS, theta0, G0, 0.1, 10, 4, 0.3)
    assert set(costs) == set(db.WORD_METHODS)
    assert all(np.isfinite(c) and c > 0 for pair in costs.values() for c in pair)
    assert np.all(theta0 == 0) and np.all(G0 == 0)  # measured on copies


def test_u_pretraining_increases_the_likelihood():
    task = db.make_word_task(n_train=200, n_test=1, noise=0.3, seed=4)
    m = task.model
    theta = np.zeros(m.n_params)
    G = np.zeros(m.n_params)

    def mean_loglik(t):
        return np.mean([np.log(u_conditionals(t, x, m)[np.arange(4), y]).sum()
                        for x, y in zip(task.x_train, task.y_train)])

    before = mean_loglik(theta)  # = 4 log(1/8)
    assert before == pytest.approx(4 * math.log(1 / 8))
    for _ in range(3):
        wk._train_u_epoch(theta, G, task.x_train, task.y_train, np.arange(200), m.n_letters,
                          m.length, 0.3)
    assert np.all(theta[m.u_params:] == 0)  # only the u block moves
    assert mean_loglik(theta) > before + 1.0


@pytest.mark.parametrize("seed, eps", [(11, 0.05), (2678, 0.75), (404, 0.3), (97, 1.0),
                                       (5150, 0.12), (31337, 0.5)])
def test_likelihood_estimate_is_unbiased(seed, eps):
    # E[Z / k] = p(y | x) exactly (Sec 4.1). Independent runs give independent estimates, so
    # their mean must lie within a few standard errors (estimated from the runs) of the closed
    # form; a biased estimator (e.g. a wrong importance weight) fails this by many errors.
    theta = random_theta(seed % 1000)
    x = np.array([seed % 3, (seed // 3) % 3, 1])
    y = np.array([1, 1, 1])
    p = math.exp(db.exact_log_likelihood(theta, x, y, MODEL, eps=eps))
    rng = np.random.default_rng(seed)
    runs = np.array([db.sample_gradient(theta, x, y, MODEL, eps=eps, samples=1000,
                                        seed=rng).likelihood for _ in range(40)])
    standard_error = runs.std(ddof=1) / np.sqrt(len(runs))
    assert abs(runs.mean() - p) < 5 * standard_error + 1e-12 * p


# ---------------------------------------------------------------- training epochs vs references


def phi_a(x, y, model=MODEL):
    """Sufficient statistics of the Gibbs energy (A block of theta), by counting."""
    s = model.slices
    Vm, Lm = model.n_letters, model.length
    g = np.zeros(model.n_params)
    for i in range(Lm):
        g[s["a_emit"].start + x[i] * Vm + y[i]] += 1
        g[s["a_pos"].start + i * Vm + y[i]] += 1
        if i > 0:
            g[s["bigram"].start + y[i - 1] * Vm + y[i]] += 1
    g[s["dictionary"].start] += model.in_dictionary[int(np.dot(y, Vm ** np.arange(Lm - 1, -1, -1)))]
    return g


class ReplayRandom:
    """The kernels' random stream (numba's generator is numpy's legacy MT19937), with the same
    draws for u samples, Gibbs steps and geometric lengths."""

    def __init__(self, seed):
        self.rs = np.random.RandomState(seed)

    def r(self):
        return self.rs.random_sample()

    def pick(self, p):
        r, acc = self.r(), 0.0
        for c in range(len(p)):
            acc += p[c]
            if r < acc:
                return c
        return len(p) - 1

    def sample_u(self, theta, x):
        return np.array([self.pick(p) for p in u_conditionals(theta, x)])

    def gibbs_step(self, theta, x, y):
        i = min(int(self.r() * L), L - 1)
        e = np.empty(V)
        for c in range(V):
            z = y.copy()
            z[i] = c
            e[c] = energy(theta, x, z)
        p = np.exp(e - e.max())
        y = y.copy()
        y[i] = self.pick(p / p.sum())
        return y

    def geometric(self, eps):
        r = self.r()
        return 0 if eps >= 1 else int(math.floor(math.log1p(-r) / math.log1p(-eps)))


def adagrad(theta, G, g, eta, block):
    G[block] += g[block] ** 2
    nz = G[block] > 0
    theta[block][nz] += eta * g[block][nz] / np.sqrt(G[block][nz])


def test_gibbs_training_epoch_matches_numpy_reference():
    X = np.array([[0, 1, 2], [2, 2, 1]], dtype=np.int64)
    Y = np.array([[0, 1, 1], [2, 1, 0]], dtype=np.int64)
    order = np.array([1, 0], dtype=np.int64)
    T, chains, eta = 6, 3, 0.2
    for init_u in (True, False):
        theta, G = random_theta(20), np.full(MODEL.n_params, 0.5)
        ref_theta, ref_G = theta.copy(), G.copy()
        wk._train_gibbs_epoch(theta, G, X, Y, order, V, L, MODEL.in_dictionary, init_u, T,
                              chains, eta, 99)
        rnd = ReplayRandom(99)
        a_block = slice(MODEL.u_params, MODEL.n_params)
        for n in order:
            g = phi_a(X[n], Y[n])
            for _ in range(chains):
                y = rnd.sample_u(ref_theta, X[n]) if init_u else X[n].copy()
                for t in range(1, T + 1):
                    y = rnd.gibbs_step(ref_theta, X[n], y)
                    if t > T // 2:
                        g -= phi_a(X[n], y) / (chains * (T - T // 2))
            adagrad(ref_theta, ref_G, g, eta, a_block)
        np.testing.assert_allclose(theta, ref_theta, atol=1e-12)
        np.testing.assert_allclose(G, ref_G, atol=1e-12)


def test_doeblin_training_epoch_matches_numpy_reference():
    # Algorithm 1 replayed: same T, same paths; gradient by the naive O(T^2) sum of finite-
    # difference scores of the enumerated chains; AdaGrad on all of theta
    X = np.array([[1, 0, 2], [0, 0, 1]], dtype=np.int64)
    Y = np.array([[1, 0, 2], [1, 1, 1]], dtype=np.int64)
    order = np.array([0, 1], dtype=np.int64)
    eps, k, eta = 0.25, 3, 0.1
    theta, G = random_theta(21), np.zeros(MODEL.n_params)
    ref_theta, ref_G = theta.copy(), G.copy()
    mean_log_z = wk._train_doeblin_epoch(theta, G, X, Y, order, V, L, MODEL.in_dictionary, eps,
                                         k, eta, False, 5)
    rnd = ReplayRandom(5)
    logs = []
    for n in order:
        x, y = X[n], Y[n]
        u, A = db.model_chains(ref_theta, x, MODEL)
        Ju, JA = fd_jacobians(ref_theta, x)
        g_sum, Z = np.zeros(MODEL.n_params), 0.0
        for _ in range(k):
            T = rnd.geometric(eps)
            path = []
            if T >= 1:
                path.append(rnd.sample_u(ref_theta, x))
                for _ in range(1, T):
                    path.append(rnd.gibbs_step(ref_theta, x, path[-1]))
            codes = [int(p @ PW) for p in path]
            g, z = naive_path_gradient(u, A, Ju, JA, eps, codes, T, int(y @ PW))
            g_sum += g
            Z += z
        logs.append(math.log(Z / k))
        adagrad(ref_theta, ref_G, g_sum / Z, eta, slice(0, MODEL.n_params))
    np.testing.assert_allclose(theta, ref_theta, atol=1e-6)
    assert mean_log_z == pytest.approx(np.mean(logs), rel=1e-9)
