"""Doubly stochastic functional gradients (Dai, chapter 3)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dynamics import dsg


def _task(n=400, seed=0):
    X, y = dsg.synthetic_2d(n, seed=seed)
    return X, y, dsg.median_bandwidth(X)


def test_regenerated_features_equal_the_ones_training_used():
    """Prediction regenerates each block from its seed: f_1 (one step) computed from the
    regenerated block by hand equals the model's own prediction, and the block is the same on
    every call."""
    X, y, bw = _task()
    model = dsg.doubly_sgd(X, y, bandwidth=bw, nu=0.01, steps=1, batch_size=8, block_size=5,
                           theta=1.0, seed=3)
    omega, b = dsg.block_features(3, 1, 5, 2, bw)
    omega2, b2 = dsg.block_features(3, 1, 5, 2, bw)
    np.testing.assert_array_equal(omega, omega2)
    np.testing.assert_array_equal(b, b2)
    coef = model.coefficients(last=True)[0]
    Z = X[:7]
    by_hand = (math.sqrt(2) * np.cos(Z @ omega.T + b)) @ coef
    np.testing.assert_allclose(model.predict(Z, last=True), by_hand, rtol=1e-12, atol=1e-15)


def test_features_approximate_the_kernel():
    """E phi_omega(x) phi_omega(x') = k(x, x'): averaged over 20,000 features."""
    bw = 0.7
    omega, b = dsg.block_features(0, 1, 20_000, 2, bw)
    x, z = np.array([[0.1, -0.2]]), np.array([[0.5, 0.3]])
    approx = (2 * np.cos(x @ omega.T + b) * np.cos(z @ omega.T + b)).mean()
    assert approx == pytest.approx(dsg.rbf_kernel(x, z, bw)[0, 0], abs=0.02)


def test_steps_are_sgd_on_the_random_features_by_hand():
    """With every data point the same (x0, y0), the batch does not matter and two steps can be
    written out: f_1 = (gamma_1 / B) y0 phi_1(x0) . phi_1 (squared loss from f_0 = 0), then
    f_2 = (1 - gamma_2 nu) f_1 - (gamma_2 / B) (f_1(x0) - y0) phi_2(x0) . phi_2: SGD on the
    random-feature model with a new block each step, the old coefficients shrunk."""
    x0, y0, bw, nu, theta, t0 = np.array([[0.3, -1.1]]), 0.7, 0.9, 0.05, 2.0, 1.0
    X, y = np.repeat(x0, 5, axis=0), np.full(5, y0)
    B = 6
    model = dsg.doubly_sgd(X, y, bandwidth=bw, nu=nu, steps=2, batch_size=3, block_size=B,
                           theta=theta, t0=t0, seed=4)
    phi = [math.sqrt(2) * np.cos(x0 @ w.T + b)[0]
           for w, b in (dsg.block_features(4, s, B, 2, bw) for s in (1, 2))]
    g1, g2 = theta / (1 + t0), theta / (2 + t0)
    a1 = g1 / B * y0 * phi[0]
    f1 = a1 @ phi[0]
    a2 = -g2 / B * (f1 - y0) * phi[1]
    coef = model.coefficients(last=True)
    np.testing.assert_allclose(coef[0], (1 - g2 * nu) * a1, rtol=1e-12)
    np.testing.assert_allclose(coef[1], a2, rtol=1e-12)
    # the averaged iterate: (f_1 + f_2) / 2
    avg = model.coefficients()
    np.testing.assert_allclose(avg[0], (a1 + (1 - g2 * nu) * a1) / 2, rtol=1e-12)
    np.testing.assert_allclose(avg[1], a2 / 2, rtol=1e-12)


def test_same_seed_same_model_and_bad_inputs():
    X, y, bw = _task()
    kw = dict(bandwidth=bw, nu=0.01, steps=20, batch_size=4, block_size=4, theta=1.0, seed=5)
    a, b = dsg.doubly_sgd(X, y, **kw), dsg.doubly_sgd(X, y, **kw)
    np.testing.assert_array_equal(a.predict(X[:9]), b.predict(X[:9]))
    np.testing.assert_array_equal(
        dsg.doubly_sgd(X, y, **{**kw, "seed": np.int64(5)}).predict(X[:9]), a.predict(X[:9]))
    c = dsg.doubly_sgd(X, y, **{**kw, "seed": 6})
    assert not np.allclose(a.predict(X[:9]), c.predict(X[:9]))
    for bad in (dict(bandwidth=0.0), dict(bandwidth=-1.0), dict(steps=0),
                dict(theta=200.0, t0=0.0), dict(seed=-1), dict(seed=1.5)):
        with pytest.raises(ValueError):
            dsg.doubly_sgd(X, y, **{**kw, **bad})
    with pytest.raises(ValueError):
        dsg.doubly_sgd(np.zeros((0, 2)), np.zeros(0), **kw)
    with pytest.raises(ValueError):
        dsg.doubly_sgd(X, y[:-1], **kw)
    with pytest.raises(ValueError):
        dsg.doubly_sgd(np.where(np.arange(X.size).reshape(X.shape) == 3, np.nan, X), y, **kw)
    with pytest.raises(ValueError, match="loss"):
        dsg.doubly_sgd(X, y, **{**kw, "loss": "absolute"})
    with pytest.raises(ValueError, match="labels"):
        dsg.doubly_sgd(X, y, **{**kw, "loss": "hinge"})


def test_kernel_ridge_closed_form():
    """beta = (K + n nu I)^-1 y minimises the regularised risk: its gradient in beta,
    K (K beta - y) / n + nu K beta, vanishes; scikit-learn's KernelRidge with alpha = n nu
    gives the same predictions when it is installed."""
    X, y, bw = _task(200)
    f = dsg.kernel_ridge(X, y, bandwidth=bw, nu=0.01)
    K = dsg.rbf_kernel(X, X, bw)
    beta = f.beta
    grad = K @ (K @ beta - y) / len(X) + 0.01 * K @ beta
    assert np.max(np.abs(grad)) < 1e-10
    sklearn = pytest.importorskip("sklearn.kernel_ridge")
    ref = sklearn.KernelRidge(alpha=len(X) * 0.01, kernel="rbf", gamma=1 / (2 * bw**2))
    ref.fit(X, y)
    np.testing.assert_allclose(f(X[:20]), ref.predict(X[:20]), atol=1e-8)


def test_error_falls_like_one_over_t():
    """Fig 3.4 (2), the prototype's setting (NOTES.md): nu = 0.01, gamma_t = 100 / (t + 100)
    (theta nu = 1), batch 16, 16 features a step; the averaged iterate's squared distance to
    the exact kernel ridge solution on a test grid falls with log-log slope near -1 (measured
    -0.98 over steps 100-3000 with 2000 points; here 1000 steps on 800 points)."""
    X, y, bw = _task(800, seed=1)
    target = dsg.kernel_ridge(X, y, bandwidth=bw, nu=0.01)
    g = np.linspace(-5, 5, 15)
    Xt = np.array([(a, b) for a in g for b in g])
    model = dsg.doubly_sgd(X, y, bandwidth=bw, nu=0.01, steps=1000, batch_size=16,
                           block_size=16, theta=100.0, t0=100.0, seed=2, X_test=Xt,
                           y_test=target(Xt))
    h = model.history
    keep = h["step"] >= 100
    slope = dsg.loglog_slope(h["step"][keep], h["error"][keep])
    assert -1.25 < slope < -0.75
    assert h["error"][-1] < 0.1 * h["error"][0]


def test_test_path_is_the_averaged_iterate_at_each_checkpoint():
    """``test_path`` row k is f_bar at the test points after step ``history["step"][k]``:
    the same numbers as regenerating the features from their seeds (``predict(upto=)``), its
    error the history's, its last row ``test_fit`` (the DSG page's timeline draws these)."""
    X, y, bw = _task(200, seed=3)
    Xt = X[:30]
    target = dsg.kernel_ridge(X, y, bandwidth=bw, nu=0.01)(Xt)
    model = dsg.doubly_sgd(X, y, bandwidth=bw, nu=0.01, steps=120, batch_size=4,
                           block_size=8, theta=100.0, t0=100.0, seed=5, X_test=Xt,
                           y_test=target, checkpoints=6)
    steps = model.history["step"]
    assert model.test_path.shape == (len(steps), len(Xt))
    for row, step in zip(model.test_path, steps):
        np.testing.assert_allclose(row, model.predict(Xt, upto=int(step)), rtol=1e-9,
                                   atol=1e-12)
    np.testing.assert_allclose(np.mean((model.test_path - target) ** 2, axis=1),
                               model.history["error"], rtol=1e-12)
    np.testing.assert_array_equal(model.test_path[-1], model.test_fit)
    assert dsg.doubly_sgd(X, y, bandwidth=bw, nu=0.01, steps=10, batch_size=4, block_size=8,
                          theta=100.0, t0=100.0, seed=5).test_path is None


def test_norma_matches_the_same_target_with_growing_memory():
    X, y, bw = _task(300, seed=4)
    target = dsg.kernel_ridge(X, y, bandwidth=bw, nu=0.01)
    Xt = X[:50]
    model = dsg.norma(X, y, bandwidth=bw, nu=0.01, steps=300, batch_size=4, theta=100.0,
                      t0=100.0, seed=0, X_test=Xt, y_test=target(Xt))
    h = model.history
    assert h["error"][-1] < 0.2 * h["error"][0]
    assert np.all(np.diff(h["memory"]) > 0) and model.memory == 300 * 4 * 3


@pytest.mark.parametrize("loss", ["hinge", "logistic"])
def test_classification_losses_learn_a_boundary(loss):
    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(400, 2))
    y = np.where(X[:, 0] ** 2 + X[:, 1] ** 2 < 0.5, 1.0, -1.0)
    model = dsg.doubly_sgd(X, y, loss=loss, bandwidth=0.3, nu=0.001, steps=600, batch_size=16,
                           block_size=16, theta=50.0, t0=50.0, seed=1)
    accuracy = np.mean(np.sign(model.predict(X)) == y)
    assert accuracy > 0.85


# --- Gaussian process regression (Sec 3.3.1 and 3.6.2) -----------------------------------------


def test_gp_closed_form_against_scikit_learn():
    """Eq 3.9 against scikit-learn's GaussianProcessRegressor with the same fixed kernel."""
    gp = pytest.importorskip("sklearn.gaussian_process")
    X, y, bw = _task(200)
    Xt, _ = dsg.synthetic_2d(50, seed=9)
    mean, var = dsg.gp_closed_form(X, y, Xt, noise=0.1, bandwidth=bw)
    ref = gp.GaussianProcessRegressor(gp.kernels.RBF(length_scale=bw), alpha=0.1,
                                      optimizer=None).fit(X, y)
    ref_mean, ref_std = ref.predict(Xt, return_std=True)
    np.testing.assert_allclose(mean, ref_mean, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(var, ref_std**2, rtol=1e-6, atol=1e-10)


def test_gp_iterate_equals_storing_every_block_by_hand():
    """The kept values at the training and test points are the iterate that storing every
    step's coefficients a_t = -gamma_t / (b B) Phi_t^T R_t and regenerating the features gives,
    written out here step by step."""
    X, y, bw = _task(60)
    Xt, _ = dsg.synthetic_2d(7, seed=5)
    m, B, steps, seed, noise, first = 8, 16, 12, 2, 0.1, 4.0
    run = dsg.gp_regression(X, y, Xt, noise=noise, bandwidth=bw, steps=steps, batch_size=m,
                            block_size=B, first_step=first, seed=seed)
    nu = noise / len(X)
    theta = 1 / nu
    t0 = theta / first - 1
    rng = np.random.default_rng([seed, 3])
    blocks, coefs = [], []  # per step: (omega, b) and a_t, shrunk in place each step
    phi = lambda s, Z: math.sqrt(2) * np.cos(Z @ blocks[s][0].T + blocks[s][1])  # noqa: E731

    def f(Z, own=False):  # the iterate: mean at Z, or each variance function at its own point
        out = np.zeros((len(Z), 1 + len(Xt)))
        for s, a in enumerate(coefs):
            out += phi(s, Z) @ a
        return out

    means, owns = [], []
    for t in range(1, steps + 1):
        gamma = theta / (t + t0)
        idx = rng.integers(0, len(X), size=m)
        targets = np.column_stack([y[idx], dsg.rbf_kernel(X[idx], Xt, bw)])
        residual = f(X[idx]) - targets
        coefs = [(1 - gamma * nu) * a for a in coefs]
        blocks.append(dsg.block_features(seed, t, B, 2, bw))
        coefs.append(-gamma / (m * B) * phi(t - 1, X[idx]).T @ residual)
        values = f(Xt)
        means.append(values[:, 0])
        owns.append(np.diag(values[:, 1:]))
    np.testing.assert_allclose(run.mean, np.mean(means, axis=0), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(run.variance, 1 - np.mean(owns, axis=0), rtol=1e-9, atol=1e-12)


def test_gp_mean_and_variance_approach_the_closed_form():
    """Sec 3.6.2 at a quarter of its size: the doubly stochastic mean and variance approach
    eq 3.9's. Measured (seed 0, 192 steps of 32 points, 12 passes): mean squared error of the
    mean 0.051 -> 0.0029, of the variance 0.69 -> 0.023 (prior variance 1, posterior 0.12 on
    average); both fall at every checkpoint."""
    X, y = dsg.synthetic_2d(512, seed=0)
    Xt, _ = dsg.synthetic_2d(128, seed=1)
    bw = dsg.median_bandwidth(X)
    run = dsg.gp_regression(X, y, Xt, noise=0.1, bandwidth=bw, steps=192, batch_size=32,
                            block_size=256, first_step=8.0, seed=0)
    h = run.history
    assert h["mean_error"][-1] < 0.1 * h["mean_error"][0]
    assert h["variance_error"][-1] < 0.05 * h["variance_error"][0]
    assert np.all(np.diff(h["mean_error"]) < 0)
    assert np.mean((run.mean - run.exact_mean) ** 2) == pytest.approx(h["mean_error"][-1])
    assert np.all(np.diff(h["variance_error"]) < 0)
    with pytest.raises(ValueError, match="bandwidth"):
        dsg.gp_regression(X, y, Xt, bandwidth=0.0, steps=2)
    with pytest.raises(ValueError, match="columns"):
        dsg.gp_regression(X, y, Xt[:, :1], bandwidth=bw, steps=2)
    with pytest.raises(ValueError, match="noise"):
        dsg.gp_regression(X, y, Xt, noise=-1, bandwidth=bw, steps=2)


def test_kept_values_give_the_same_iterate_as_regenerating_every_block():
    """``keep_values`` reads f_{t-1} at the minibatch from values kept at the training points
    instead of regenerating every earlier block: the same coefficients and test errors."""
    X, y, bw = _task(120, seed=6)
    Xt = X[:30]
    runs = [dsg.doubly_sgd(X, y, bandwidth=bw, nu=0.01, steps=150, batch_size=4, block_size=8,
                           theta=100.0, t0=100.0, seed=1, X_test=Xt, y_test=y[:30],
                           keep_values=keep) for keep in (False, True)]
    np.testing.assert_allclose(runs[0].stored, runs[1].stored, rtol=1e-9, atol=1e-13)
    np.testing.assert_allclose(runs[0].history["error"], runs[1].history["error"], rtol=1e-9)
    # the error kept step by step is the averaged model's own
    assert np.mean((runs[1].predict(Xt) - y[:30]) ** 2) == pytest.approx(
        runs[1].history["error"][-1], rel=1e-9)


# --- issue 25: the default step scale, divergence, and bad input refused by name ---------------


def test_data_step_scale_is_one_over_the_step_curvature():
    """theta = 1 / lambda_max(Phi Phi^T / (m B)). All points equal: the m x m matrix is
    (|phi|^2 / B) 1 1^T / m, lambda = |phi|^2 / B = mean of 2 cos^2, about 1 (2048 features:
    within 5%). Points much farther apart than the bandwidth: the matrix is about I / m plus the
    features' noise (entries of size 1 / sqrt(B)), so theta lies a little below m."""
    same = np.repeat(np.array([[0.3, -1.0]]), 50, axis=0)
    assert dsg.data_step_scale(same, bandwidth=1.0, batch_size=16,
                               block_size=4096) == pytest.approx(1.0, abs=0.05)
    far = np.random.default_rng(0).uniform(-1000, 1000, size=(20_000, 2))
    theta = dsg.data_step_scale(far, bandwidth=0.01, batch_size=16, block_size=4096)
    assert 0.7 * 16 < theta < 16
    assert dsg.data_step_scale(far, bandwidth=0.01, batch_size=16, block_size=4096,
                               loss="logistic") == pytest.approx(4 * theta)


def test_default_theta_beats_theta_one_on_the_2d_task():
    """Sec 3.6.1's task with a tiny regulariser (nu = 1e-6): the old default theta = 1 takes
    steps 1/t and stalls; theta=None (from the data) reaches a test error against the noiseless
    function well below it, close to the best of a grid of fixed values."""
    X, y = dsg.synthetic_2d(1000, seed=0)
    Xt, _ = dsg.synthetic_2d(300, seed=1)
    yt = dsg.synthetic_truth(Xt)
    kw = dict(bandwidth=dsg.median_bandwidth(X), nu=1e-6, steps=400, batch_size=32,
              block_size=32, seed=0, X_test=Xt, y_test=yt)
    errors = {theta: dsg.doubly_sgd(X, y, theta=theta, **kw).history["error"][-1]
              for theta in (None, 1.0, 3.0, 10.0)}
    assert errors[None] < 0.75 * errors[1.0]
    assert errors[None] < 1.25 * min(errors.values())


def test_a_diverging_run_raises_naming_theta(monkeypatch):
    """theta = 100 with t0 = theta nu (about 0) makes the first steps about 100 while the step
    curvature at a minibatch is about 1/5 at three times the median-rule bandwidth: the iterate
    blows up in its first steps (measured: test MSE 2.0 if let run). It must say so: before the
    run (the first step is more than twice the stable step of data_step_scale), or, when that
    estimate is fooled, during the run (the iterate leaves the targets' range)."""
    X, y = dsg.synthetic_2d(1000, seed=0)
    kw = dict(bandwidth=3 * dsg.median_bandwidth(X), nu=1e-6, steps=300, batch_size=32,
              block_size=32, seed=0)
    with pytest.raises(ValueError, match="would diverge.*theta = 100"):
        dsg.doubly_sgd(X, y, theta=100.0, **kw)
    dsg.doubly_sgd(X, y, theta=None, **kw)  # the data's own theta runs
    dsg.doubly_sgd(X, y, theta=100.0, t0=99.0, **kw)  # and so does theta = 100 from step 1
    monkeypatch.setattr(dsg.algorithm, "data_step_scale", lambda *args, **kwargs: 1e9)
    with pytest.raises(ValueError, match="diverged by step .*theta = 100"):
        dsg.doubly_sgd(X, y, theta=100.0, **kw)
    with pytest.raises(ValueError, match="diverged.*theta"):
        dsg.norma(X, y, bandwidth=kw["bandwidth"], nu=1e-6, steps=60, batch_size=16,
                  theta=100.0, seed=0)


@pytest.mark.parametrize("call, name, kind", [
    (lambda X, y: dsg.block_features("1", 1, 4, 2, 1.0), "seed", ValueError),
    (lambda X, y: dsg.block_features(None, 1, 4, 2, 1.0), "seed", ValueError),
    (lambda X, y: dsg.block_features(1, 1, 4.5, 2, 1.0), "block_size", ValueError),
    (lambda X, y: dsg.block_features(1, 1, 4, 2, float("nan")), "bandwidth", ValueError),
    (lambda X, y: dsg.block_features(1, 1, 10**12, 2, 1.0), "block_size", ValueError),
    (lambda X, y: dsg.median_bandwidth(X, factor=float("nan")), "factor", ValueError),
    (lambda X, y: dsg.median_bandwidth(X[:1]), "X", ValueError),
    (lambda X, y: dsg.median_bandwidth(X + 0j), "X", TypeError),
    (lambda X, y: dsg.synthetic_2d(5, noise=float("nan")), "noise", ValueError),
    (lambda X, y: dsg.synthetic_truth(X.astype(object)), "X", TypeError),
    (lambda X, y: dsg.rbf_kernel(X, X[:, :1], 1.0), "columns", ValueError),
    (lambda X, y: dsg.loglog_slope([1.0, 2.0], [1.0]), "y", ValueError),
    (lambda X, y: dsg.loglog_slope([1.0, 1.0], [1.0, 2.0]), "x", ValueError),
    (lambda X, y: dsg.loglog_slope(3.0, [1.0, 2.0]), "x", ValueError),
    (lambda X, y: dsg.doubly_sgd(X, y, bandwidth=1.0, nu=0.0, steps=5, batch_size=2,
                                 block_size=2, keep_values="yes"), "keep_values", TypeError),
    (lambda X, y: dsg.doubly_sgd(X, y, bandwidth=1.0, nu=0.0, steps=5, batch_size=2,
                                 block_size=2, X_test=X), "y_test", ValueError),
    (lambda X, y: dsg.doubly_sgd(X, y, bandwidth=1.0, nu=0.0, steps=5, batch_size=2,
                                 block_size=2, checkpoints=10**12), "checkpoints", ValueError),
    (lambda X, y: dsg.doubly_sgd(X, y, bandwidth=1.0, nu=0.0, steps=10**6, batch_size=2,
                                 block_size=10**3), "steps \\* block_size", ValueError),
    (lambda X, y: dsg.norma(X, y, bandwidth=1.0, nu=0.0, steps=5, batch_size=2,
                            y_test=y), "X_test", ValueError),
])
def test_bad_input_is_refused_by_name(call, name, kind):
    X, y = dsg.synthetic_2d(20, seed=0)
    with pytest.raises(kind, match=name):
        call(X, y)


def test_extreme_finite_values_are_refused_or_computed_without_overflow():
    """1e308 inside X made |x|^2 + |x'|^2 - 2 x.x' inf - inf = NaN, bandwidth = 1e308 an
    OverflowError in bandwidth**2, and gp_regression's t0 = theta / first_step - 1 cancelled
    to -1 (ZeroDivisionError) for a huge first_step or noise."""
    X, y = dsg.synthetic_2d(10, seed=0)
    far = np.array([[1e99, -1e99], [0.0, 0.0]])
    K = dsg.rbf_kernel(far, far, 1.0)
    np.testing.assert_array_equal(K, np.eye(2))  # exp(-inf) = 0 off the diagonal, no NaN
    with pytest.raises(ValueError, match="A must have entries of magnitude"):
        dsg.rbf_kernel(np.array([[1e308, 0.0]]), X, 1.0)
    with pytest.raises(ValueError, match="bandwidth"):
        dsg.rbf_kernel(X, X, 1e308)
    with pytest.raises(ValueError, match="noise"):
        dsg.synthetic_2d(5, noise=1e308)
    with pytest.raises(ValueError, match="first_step"):
        dsg.gp_regression(X, y, X[:3], bandwidth=1.0, steps=2, first_step=1e308)
    with pytest.raises(ValueError, match="noise"):
        dsg.gp_regression(X, y, X[:3], bandwidth=1.0, steps=2, noise=1e308)


def test_normas_progress_is_the_share_of_its_kernel_evaluations_done():
    """Step t sums over the (t - 1) m points kept, so the work done by step t grows like t^2:
    the fraction reported is (t / steps)^2, ending at 1."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    said = []
    dsg.norma(X, np.sin(X[:, 0]), bandwidth=1.0, nu=0.01, steps=100, batch_size=2,
              progress=lambda f, m: said.append((f, m)))
    assert len(said) == 50 and said[-1] == (1.0, "step 100 of 100")
    assert said[0] == (pytest.approx(0.0004), "step 2 of 100")
    assert said[24][0] == pytest.approx(0.25)  # half the steps: a quarter of the work
    with pytest.raises(ValueError, match="progress"):
        dsg.norma(X, np.sin(X[:, 0]), bandwidth=1.0, nu=0.01, steps=3, batch_size=2,
                  progress="yes")
