"""The baselines of Fig 3.4 (3) (Table 3.2's Pegasos and SDCA on explicit kernel features)
against scikit-learn's solutions of the same objectives and the exact kernel ridge solution."""

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.svm import LinearSVC

from dynamics import dsg

NU = 0.05


@pytest.fixture(scope="module")
def regression():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(200, 10))
    y = Z @ rng.normal(size=10) + 0.3 * rng.normal(size=200)
    # P(w) = 1/(2n) ||Zw - y||^2 + nu/2 ||w||^2 is Ridge's objective with alpha = n nu
    ridge = Ridge(alpha=len(Z) * NU, fit_intercept=False).fit(Z, y).coef_
    return Z, y, ridge


@pytest.fixture(scope="module")
def classification():
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(200, 10))
    labels = np.sign(Z[:, 0] + 0.5 * rng.normal(size=200))
    # 1/n sum hinge + nu/2 ||w||^2 is LinearSVC's 1/2 ||w||^2 + C sum hinge, C = 1 / (n nu)
    svc = LinearSVC(C=1 / (len(Z) * NU), loss="hinge", fit_intercept=False, dual=True,
                    tol=1e-10, max_iter=200_000).fit(Z, labels)
    return Z, labels, svc.coef_[0]


def test_sdca_squared_loss_reaches_the_ridge_solution(regression):
    Z, y, ridge = regression
    run = dsg.sdca(Z, y, nu=NU, updates=200 * 50, seed=0)
    np.testing.assert_allclose(run.weights, ridge, atol=1e-6)
    assert abs(run.history["gap"][-1]) < 1e-9
    assert np.all(run.history["gap"] > -1e-12)  # weak duality
    # w(alpha) = Z^T alpha / (nu n)
    np.testing.assert_allclose(run.weights, Z.T @ run.alpha / (NU * len(Z)), atol=1e-10)


def test_sdca_hinge_loss_reaches_linear_svc(classification):
    Z, labels, svc = classification
    run = dsg.sdca(Z, labels, loss="hinge", nu=NU, updates=200 * 400, seed=0)
    objective = lambda w: dsg.primal_objective(Z, labels, w, loss="hinge", nu=NU)  # noqa: E731
    assert objective(run.weights) == pytest.approx(objective(svc), rel=1e-4)
    assert run.history["gap"][-1] < 1e-4
    assert np.all(np.abs(run.alpha) <= 1 + 1e-12) and np.all(run.alpha * labels >= -1e-12)


def test_pegasos_approaches_both_optima(regression, classification):
    Z, y, ridge = regression
    run = dsg.pegasos(Z, y, nu=NU, steps=2000, batch_size=16, t0=100, seed=0)
    best = dsg.primal_objective(Z, y, ridge, loss="squared", nu=NU)
    assert dsg.primal_objective(Z, y, run.weights, loss="squared", nu=NU) < best * 1.02
    Z, labels, svc = classification
    run = dsg.pegasos(Z, labels, loss="hinge", nu=NU, steps=2000, batch_size=16, seed=0,
                      Z_test=Z, y_test=labels, checkpoints=5)
    best = dsg.primal_objective(Z, labels, svc, loss="hinge", nu=NU)
    assert dsg.primal_objective(Z, labels, run.weights, loss="hinge", nu=NU) < best * 1.02
    assert np.sqrt(run.weights @ run.weights) <= 1 / np.sqrt(NU) + 1e-9  # Pegasos's ball
    assert run.history["rate"][-1] <= run.history["rate"][0]


def test_pegasos_refuses_a_step_that_diverges(regression):
    Z, y, _ = regression
    with pytest.raises(ValueError, match="theta"):
        dsg.pegasos(Z, y * 1e3, nu=1e-4, steps=200, batch_size=1, theta=1e4, t0=0, seed=0)


def test_feature_maps_estimate_the_kernel():
    X, _ = dsg.synthetic_2d(150, seed=0)
    K = dsg.rbf_kernel(X, X, 1.5)
    exact = dsg.kernel_features(X, kind="exact", bandwidth=1.5, features=1, seed=0)
    Z = exact.transform(X)
    assert exact.features == 150
    np.testing.assert_allclose(Z @ Z.T, K, atol=1e-6)
    Zr = dsg.kernel_features(X, kind="random", bandwidth=1.5, features=4000, seed=0).transform(X)
    assert np.abs(Zr @ Zr.T - K).mean() < 0.02
    Zn = dsg.kernel_features(X, kind="nystrom", bandwidth=1.5, features=60, seed=0).transform(X)
    assert np.abs(Zn @ Zn.T - K).mean() < 0.02


def test_full_kernel_sdca_converges_to_the_kernel_ridge_solution_and_the_claim_ranks():
    X, y = dsg.synthetic_2d(300, seed=1)
    X_test, _ = dsg.synthetic_2d(100, seed=2)
    bw = dsg.median_bandwidth(X, factor=0.1)
    target = dsg.kernel_ridge(X, y, bandwidth=bw, nu=0.01)(X_test)
    out = dsg.compare_baselines(X, y, X_test, target, bandwidth=bw, nu=0.01, points=300 * 60,
                                batch_size=8, features=16, seed=0, checkpoints=5,
                                methods=("k-SDCA", "r-SDCA", "n-Pegasos"))
    assert out["k-SDCA"]["error"][-1] < 1e-8 * np.mean(target**2)
    assert out["r-SDCA"]["error"][-1] > 100 * out["k-SDCA"]["error"][-1]  # 16 features
    assert out["n-Pegasos"]["seen"][-1] == 300 * 60
    dsg_history = {"seen": np.array([8, 300 * 60]), "error": np.array([1.0, 1e-12])}
    verdict = dsg.baselines_claim(out, dsg_history)
    assert verdict.agrees and verdict.numbers["ranking"].startswith("k-SDCA")
    verdict = dsg.baselines_claim(out, {"error": np.array([1.0, 10.0])})
    assert verdict.agrees is False and "r-SDCA" in verdict.why  # 16 features: below 1e-2


def test_digits_pair_and_the_classification_run_against_scikit_learn():
    X, y, X_test, y_test = dsg.digits_pair(8, 6, seed=0)
    assert len(X) + len(X_test) == 355 and X.shape[1] == 64  # 174 eights and 181 sixes
    assert set(np.unique(np.r_[y, y_test])) == {-1.0, 1.0} and X.max() <= 1.0
    bw = dsg.median_bandwidth(X, factor=1.0)
    nu = 1.0 / len(X)
    # the logistic reference is the minimiser of the same risk on the exact kernel: no other
    # weights on those features do better (a Pegasos run on them comes within 1 %)
    Z = dsg.kernel_features(X, kind="exact", bandwidth=bw, features=1, seed=0)
    f_ref = dsg.kernel_classifier_reference(X, y, X, loss="logistic", bandwidth=bw, nu=nu)
    w_ref = np.linalg.lstsq(Z.transform(X), f_ref, rcond=None)[0]
    objective = lambda w: dsg.primal_objective(Z.transform(X), y, w, loss="logistic",  # noqa
                                               nu=nu)
    run = dsg.pegasos(Z.transform(X), y, loss="logistic", nu=nu, steps=3000, batch_size=8,
                      t0=50, seed=0)
    assert objective(w_ref) <= objective(run.weights) < 1.01 * objective(w_ref)
    model = dsg.doubly_sgd(X, y, loss="hinge", bandwidth=bw, nu=nu, steps=64, batch_size=16,
                           block_size=32, seed=0, X_test=X_test, y_test=y_test, checkpoints=5)
    scored = dsg.classification_run(model, X, y, X_test, y_test, loss="hinge", nu=nu)
    expected = [np.mean(np.sign(f) != y_test) for f in model.test_path]
    np.testing.assert_allclose(scored.history["rate"], expected)
    assert scored.reference_rate < 0.05  # eights against sixes are easy for the kernel SVM
    # the per-image results the claim pairs: the last checkpoint's and the reference's
    assert scored.wrong.mean() == pytest.approx(expected[-1])
    assert scored.reference_wrong.mean() == pytest.approx(scored.reference_rate)
    verdict = dsg.classification_claim(scored)
    d, se = verdict.numbers["difference"], verdict.numbers["difference_se"]
    assert d == pytest.approx(expected[-1] - scored.reference_rate)
    assert verdict.agrees == dsg.claims.equivalence(d, se, dsg.DIGITS_TOLERANCE)
    with pytest.raises(ValueError, match="model"):
        dsg.classification_run(object(), X, y, X_test, y_test, nu=nu)


@pytest.mark.parametrize("kind", [0, 1])
def test_sdca_kernel_matches_a_numpy_reference_step_by_step(kind):
    from dynamics.dsg.baselines import _sdca_updates

    rng = np.random.default_rng(kind)
    Z = rng.normal(size=(30, 4))
    y = np.sign(rng.normal(size=30)) if kind else rng.normal(size=30)
    order = rng.integers(0, 30, size=200)
    lam_n = 0.1 * 30
    alpha, w = np.zeros(30), np.zeros(4)
    _sdca_updates(Z, y, alpha, w, order, kind, lam_n, np.einsum("ij,ij->i", Z, Z))
    a_ref, w_ref = np.zeros(30), np.zeros(4)
    for i in order:  # Shalev-Shwartz & Zhang's closed-form steps, written out
        q = Z[i] @ Z[i] / lam_n
        if kind == 0:
            delta = (y[i] - Z[i] @ w_ref - a_ref[i]) / (1 + q)
        else:
            delta = y[i] * np.clip((1 - y[i] * Z[i] @ w_ref) / q + a_ref[i] * y[i], 0, 1) \
                - a_ref[i]
        a_ref[i] += delta
        w_ref += delta * Z[i] / lam_n
    np.testing.assert_allclose(alpha, a_ref, atol=1e-12)
    np.testing.assert_allclose(w, w_ref, atol=1e-12)
