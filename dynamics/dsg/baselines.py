"""The other algorithms of Table 3.2 (Dai's thesis, chapter 3), for Fig 3.4 (3): linear
learners on explicit kernel features (random Fourier features: "r-", Nystrom features: "n-",
the exact kernel on the training set through Nystrom with every point a landmark: "k-"),
trained by Pegasos (Shalev-Shwartz et al. 2007/2011) or by stochastic dual coordinate ascent
(SDCA, Shalev-Shwartz & Zhang 2013), on the same regularised risk as ``doubly_sgd``:

    P(w) = (1/n) sum_i l(w . z(x_i), y_i) + nu/2 ||w||^2,   z(x) . z(x') ~ k(x, x').

The features come from scikit-learn (``RBFSampler``: sqrt(2/r) cos(omega . x + b), omega ~
N(0, sigma^-2 I); ``Nystroem``: K_{x, L} K_{L, L}^{-1/2} on r landmarks L). Public names are
re-exported by ``dynamics.dsg``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ..checks import (MAX_ABS, as_generator, check_array, check_choice, check_count,
                      check_in_range, check_instance, check_positive, check_progress, report)
from .reference import (MAX_POINTS, MAX_SCALE, _check_data, _check_points, _check_scale,
                             _check_test_pair)

__all__: list[str] = []  # private module: ``dynamics.dsg`` lists and exports these names

#: Feature maps of ``kernel_features``.
FEATURE_KINDS = ("random", "nystrom", "exact")
#: Largest number of features (a dense n x r matrix is built).
MAX_FEATURES = 20_000
#: The methods of ``compare_baselines``: (feature map, solver).
BASELINES = {"r-Pegasos": ("random", "pegasos"), "n-Pegasos": ("nystrom", "pegasos"),
             "r-SDCA": ("random", "sdca"), "n-SDCA": ("nystrom", "sdca"),
             "k-SDCA": ("exact", "sdca")}
#: The paper's ranking in Fig 3.4 (3) (Sec 3.6.1: doubly SGD comparable with NORMA, "the pegasos
#: and SDCA using 2^8 random or Nystrom features perform worse"; k-SDCA, a full-kernel method,
#: is not ranked in the text).
PAPER_RANKING = "doubly SGD ≈ NORMA < r-/n-Pegasos, r-/n-SDCA (2⁸ features)"
_LOSS_KINDS = {"squared": 0, "hinge": 1, "logistic": 2}


@dataclass(frozen=True)
class FeatureMap:
    """An explicit feature map z(x) with z(x) . z(x') ~ k(x, x') (``transform``)."""

    kind: str
    features: int
    bandwidth: float
    sampler: object

    def transform(self, X) -> np.ndarray:
        X = _check_points("X", X)
        return np.asarray(self.sampler.transform(X), dtype=float)


def kernel_features(X, *, kind: str, bandwidth: float, features: int, seed=None) -> FeatureMap:
    """Explicit features for the RBF kernel exp(-||x - x'||^2 / (2 bandwidth^2)) fitted on X:
    ``kind="random"`` r random Fourier features (Rahimi & Recht; scikit-learn's ``RBFSampler``),
    ``"nystrom"`` Nystrom features on r landmarks drawn from X (``Nystroem``), ``"exact"``
    Nystrom features with every point of X a landmark (``features`` is ignored: r = n), for which
    z(x_i) . z(x_j) = k(x_i, x_j) on X, so a linear learner on them is the full-kernel method
    (the "k-" rows of Table 3.2)."""
    from sklearn.kernel_approximation import Nystroem, RBFSampler

    X = _check_points("X", X)
    if X.shape[0] == 0:
        raise ValueError("X must hold at least one point")
    if X.shape[0] > MAX_POINTS:
        raise ValueError(f"X may hold at most {MAX_POINTS:,} points, got {X.shape[0]:,}")
    kind = check_choice("kind", kind, FEATURE_KINDS)
    bandwidth = _check_scale("bandwidth", bandwidth, low=1e-6)
    features = check_count("features", features, low=1, high=MAX_FEATURES)
    state = int(as_generator(seed).integers(0, 2**31 - 1))
    gamma = 1.0 / (2.0 * bandwidth**2)
    if kind == "random":
        sampler = RBFSampler(gamma=gamma, n_components=features, random_state=state)
    else:
        r = X.shape[0] if kind == "exact" else min(features, X.shape[0])
        sampler = Nystroem(kernel="rbf", gamma=gamma, n_components=r, random_state=state)
        features = r
    sampler.fit(X)
    return FeatureMap(kind, features, bandwidth, sampler)


@dataclass(frozen=True)
class LinearRun:
    """A linear learner's run on features: ``weights`` (the output: Pegasos's averaged iterate,
    SDCA's primal w(alpha)), ``history`` (steps or coordinate updates ``step``, data points
    visited ``seen``, with test data the mean squared error ``error`` of the output against the
    test targets and, for the hinge and logistic losses, the test error rate ``rate``) and,
    for SDCA, the dual variables ``alpha`` and the duality gap at each checkpoint."""

    weights: np.ndarray
    history: dict
    alpha: np.ndarray | None = None


def _check_linear(Z, y, loss, nu):
    Z = _check_points("Z", Z)
    if Z.shape[0] == 0 or Z.shape[1] == 0:
        raise ValueError(f"Z must hold at least one point of one feature, got shape {Z.shape}")
    y = check_array("y", y, shape=(Z.shape[0],), max_abs=MAX_ABS)
    loss = check_choice("loss", loss, tuple(_LOSS_KINDS))
    if loss != "squared" and not np.all(np.abs(y) == 1):
        raise ValueError(f"y must hold labels -1 and +1 for the {loss} loss")
    nu = check_in_range("nu", nu, 1e-12, MAX_SCALE, low_open=False)
    return Z, y, loss, nu


def primal_objective(Z, y, w, *, loss: str, nu: float) -> float:
    """P(w) = (1/n) sum_i l(w . z_i, y_i) + nu/2 ||w||^2, l squared 1/2 (f - y)^2, hinge
    max(0, 1 - y f) or logistic log(1 + exp(-y f))."""
    Z, y, loss, nu = _check_linear(Z, y, loss, nu)
    w = check_array("w", w, shape=(Z.shape[1],), max_abs=MAX_ABS)
    f = Z @ w
    if loss == "squared":
        risk = 0.5 * np.mean((f - y) ** 2)
    elif loss == "hinge":
        risk = np.mean(np.maximum(0.0, 1.0 - y * f))
    else:
        risk = np.mean(np.logaddexp(0.0, -y * f))
    return float(risk + 0.5 * nu * w @ w)


def _check_feature_test(Z_test, y_test, features: int):
    """(Z_test, y_test) both given (checked: ``features`` columns) or both None."""
    if Z_test is None and y_test is None:
        return None
    if Z_test is None or y_test is None:
        raise ValueError("Z_test and y_test go together: "
                         f"{'Z_test' if Z_test is None else 'y_test'} is None")
    Z_test = _check_points("Z_test", Z_test)
    if Z_test.shape[1] != features:
        raise ValueError(f"Z_test must have {features} columns (as Z), got {Z_test.shape[1]}")
    return Z_test, check_array("y_test", y_test, shape=(len(Z_test),), max_abs=MAX_ABS)


def _marks(total: int, checkpoints: int) -> np.ndarray:
    return np.unique(np.r_[np.geomspace(1, total, max(2, checkpoints)).astype(np.int64), total])


def _score(history, step, seen, w, test, loss):
    history["step"].append(int(step))
    history["seen"].append(int(seen))
    if test is not None:
        f = test[0] @ w
        history["error"].append(float(np.mean((f - test[1]) ** 2)))
        if loss != "squared":
            history["rate"].append(float(np.mean(np.where(f > 0, 1.0, -1.0) != test[1])))


def _loss_grads(kind: int, f, y):
    if kind == 0:
        return f - y
    if kind == 1:
        return np.where(y * f < 1.0, -y, 0.0)
    return -y / (1.0 + np.exp(np.clip(y * f, -700, 700)))


def pegasos(Z, y, *, loss: str = "squared", nu: float, steps: int, batch_size: int = 1,
            theta: float | None = None, t0: float = 0.0, project: bool | None = None,
            seed=None, Z_test=None, y_test=None, checkpoints: int = 30,
            progress=None) -> LinearRun:
    """Pegasos (Shalev-Shwartz, Singer, Srebro & Cotter, "Primal estimated sub-gradient solver
    for SVM", Algorithm "mini-batch Pegasos") on explicit features: at step t a minibatch A_t
    of m points drawn uniformly with replacement and

        w_t = (1 - gamma_t nu) w_{t-1} - (gamma_t / m) sum_{i in A_t} l'(w_{t-1} . z_i, y_i) z_i,

    then, with ``project`` (default: for the hinge loss, as Pegasos does), w_t projected onto
    the ball of radius 1 / sqrt(nu), which holds the optimum. Pegasos's step is
    gamma_t = 1 / (nu t): ``theta`` = 1 / nu (default), ``t0`` = 0; with the squared loss that
    first step (1 / nu) is unstable for a small nu, and ``t0`` > 0 gives gamma_t = theta /
    (t + t0), the schedule of ``doubly_sgd``. The output is the averaged iterate
    w_bar_t = (1/t) sum_{s<=t} w_s (as ``doubly_sgd``'s f_bar_t; the averaged variant of Pegasos
    has the same O(1 / (nu t)) guarantee up to a log). With random Fourier features and the
    squared loss this is random-feature SGD, the "r-Pegasos" row of Table 3.2."""
    Z, y, loss, nu = _check_linear(Z, y, loss, nu)
    steps = check_count("steps", steps, low=1, high=10_000_000)
    m = check_count("batch_size", batch_size, low=1, high=1_000_000)
    theta = 1.0 / nu if theta is None else check_positive("theta", theta)
    t0 = check_in_range("t0", t0, 0.0, 1e12)
    if theta * nu > 1.0 + t0:
        raise ValueError(f"theta * nu = {theta * nu:g} must stay at most 1 + t0 = {1 + t0:g}: "
                         "otherwise the first factor 1 - gamma_1 nu is negative")
    if project is None:
        project = loss == "hinge"
    check_instance("project", project, bool)
    checkpoints = check_count("checkpoints", checkpoints, low=1, high=10_000)
    test = _check_feature_test(Z_test, y_test, Z.shape[1])
    progress = check_progress(progress)
    rng = as_generator(seed)
    kind = _LOSS_KINDS[loss]
    radius = 1.0 / np.sqrt(nu)
    w = np.zeros(Z.shape[1])
    w_bar = np.zeros(Z.shape[1])
    marks = set(_marks(steps, checkpoints).tolist())
    history = {"step": [], "seen": [], "error": [], "rate": []}
    limit = 1e6 * (1.0 + float(np.max(np.abs(y))))
    every = max(1, steps // 50)
    for t in range(1, steps + 1):
        gamma = theta / (t + t0)
        idx = rng.integers(0, len(Z), size=m)
        zb = Z[idx]
        g = _loss_grads(kind, zb @ w, y[idx])
        w = (1.0 - gamma * nu) * w - (gamma / m) * (g @ zb)
        if project:
            norm = float(np.sqrt(w @ w))
            if norm > radius:
                w *= radius / norm
        w_bar += (w - w_bar) / t
        if not np.max(np.abs(zb @ w)) <= limit:
            raise ValueError(f"pegasos diverged by step {t:,}: the step scale theta = {theta:g} "
                             f"with t0 = {t0:g} (first step {theta / (1 + t0):.3g}) is too "
                             "large for these features: use a smaller theta or a larger t0")
        if t in marks:
            _score(history, t, t * m, w_bar, test, loss)
        if t % every == 0 or t == steps:
            report(progress, t / steps, f"Pegasos step {t:,} of {steps:,}")
    return LinearRun(w_bar, {k: np.asarray(v) for k, v in history.items() if v or k != "rate"})


@njit(cache=True, nogil=True)
def _sdca_updates(Z, y, alpha, w, order, kind, lam_n, sq_norms):
    """SDCA's closed-form coordinate steps (Shalev-Shwartz & Zhang 2013, Sec 6.2) at the points
    ``order``, keeping w = Z^T alpha / (lam n)."""
    d = Z.shape[1]
    for i in order:
        f = 0.0
        for c in range(d):
            f += Z[i, c] * w[c]
        q = sq_norms[i] / lam_n
        if kind == 0:  # squared: maximise over the dual of 1/2 (f - y)^2
            delta = (y[i] - f - alpha[i]) / (1.0 + q)
        else:  # hinge: alpha_i y_i in [0, 1]
            a = alpha[i] * y[i]
            if q > 0:
                step = (1.0 - y[i] * f) / q + a
            else:
                step = 1.0
            step = min(1.0, max(0.0, step))
            delta = y[i] * step - alpha[i]
        alpha[i] += delta
        s = delta / lam_n
        for c in range(d):
            w[c] += s * Z[i, c]


def sdca(Z, y, *, loss: str = "squared", nu: float, updates: int, seed=None, Z_test=None,
         y_test=None, checkpoints: int = 30, progress=None) -> LinearRun:
    """Stochastic dual coordinate ascent (Shalev-Shwartz & Zhang, "Stochastic dual coordinate
    ascent methods for regularized loss minimization", JMLR 2013, Procedure SDCA with the
    closed-form steps of their Sec 6.2) for P(w) above, squared or hinge loss: the dual
    D(alpha) = (1/n) sum_i -l*_i(-alpha_i) - nu/2 ||w(alpha)||^2, w(alpha) = Z^T alpha / (nu n);
    each update draws a point i uniformly and maximises D over alpha_i:

        squared: delta = (y_i - w . z_i - alpha_i) / (1 + ||z_i||^2 / (nu n))
        hinge:   delta = y_i clip((1 - y_i w . z_i) / (||z_i||^2 / (nu n)) + alpha_i y_i, 0, 1)
                         - alpha_i.

    ``updates`` coordinate steps (one data point visited each). The output is w(alpha); the
    duality gap P(w) - D(alpha) >= 0 bounds its suboptimality (``history["gap"]``)."""
    Z, y, loss, nu = _check_linear(Z, y, loss, nu)
    if loss == "logistic":
        raise ValueError("loss must be 'squared' or 'hinge' for sdca (closed-form steps)")
    updates = check_count("updates", updates, low=1, high=100_000_000)
    checkpoints = check_count("checkpoints", checkpoints, low=1, high=10_000)
    test = _check_feature_test(Z_test, y_test, Z.shape[1])
    progress = check_progress(progress)
    rng = as_generator(seed)
    n = len(Z)
    lam_n = nu * n
    sq = np.einsum("ij,ij->i", Z, Z)
    alpha = np.zeros(n)
    w = np.zeros(Z.shape[1])
    history = {"step": [], "seen": [], "error": [], "rate": [], "gap": []}
    done = 0
    marks = _marks(updates, checkpoints)
    for mark in marks:
        order = rng.integers(0, n, size=int(mark) - done)
        _sdca_updates(Z, y, alpha, w, order, _LOSS_KINDS[loss], lam_n, sq)
        done = int(mark)
        if not np.all(np.isfinite(w)):
            raise ValueError("sdca diverged: the weights are not finite (features too large)")
        _score(history, done, done, w, test, loss)
        history["gap"].append(_gap(Z, y, w, alpha, loss, nu))
        report(progress, done / updates, f"SDCA update {done:,} of {updates:,}")
    return LinearRun(w.copy(), {k: np.asarray(v) for k, v in history.items()
                                if v or k != "rate"}, alpha)


def _gap(Z, y, w, alpha, loss, nu) -> float:
    """P(w) - D(alpha): the dual of the squared loss is alpha y - alpha^2 / 2, of the hinge
    alpha y (alpha y in [0, 1])."""
    f = Z @ w
    if loss == "squared":
        primal = 0.5 * np.mean((f - y) ** 2)
        dual = np.mean(alpha * y - 0.5 * alpha**2)
    else:
        primal = np.mean(np.maximum(0.0, 1.0 - y * f))
        dual = np.mean(alpha * y)
    return float(primal + nu * (w @ w) - dual)


def compare_baselines(X, y, X_test, y_test, *, bandwidth: float, nu: float, points: int,
                      batch_size: int, features: int = 256, methods=tuple(BASELINES),
                      theta: float | None = None, t0: float | None = None, seed=None,
                      checkpoints: int = 20, progress=None) -> dict:
    """Fig 3.4 (3) at this machine's scale: the linear learners of Table 3.2 on ``features``
    explicit features (the paper: 2^8), each visiting ``points`` training points (the doubly
    SGD run's steps x batch), measured by the mean squared error of their output against
    ``y_test`` (for kernel ridge: f* on a test grid) as the points are visited. Pegasos
    takes minibatches of ``batch_size`` with gamma_t = theta / (t + t0) (defaults 1 / nu and
    theta nu, ``doubly_sgd``'s schedule with Thm 11's theta nu = 1); SDCA one point per update.
    Returns {method: its history (``seen``, ``error``, ...)} for ``methods`` from
    ``BASELINES``; "k-SDCA" costs an n x n feature matrix (the exact kernel)."""
    X, y = _check_data(X, y, max_points=MAX_POINTS)
    test = _check_test_pair(X_test, y_test, X.shape[1])
    if test is None:
        raise ValueError("X_test and y_test must be given")
    bandwidth = _check_scale("bandwidth", bandwidth, low=1e-6)
    nu = check_in_range("nu", nu, 1e-12, MAX_SCALE)
    points = check_count("points", points, low=1, high=100_000_000)
    m = check_count("batch_size", batch_size, low=1, high=1_000_000)
    features = check_count("features", features, low=1, high=MAX_FEATURES)
    if isinstance(methods, str) or not isinstance(methods, (tuple, list)) or not all(isinstance(k, str) and k in BASELINES
                                           for k in methods) or not len(methods):
        raise ValueError(f"methods must be names from {tuple(BASELINES)}, got {methods!r}")
    theta = 1.0 / nu if theta is None else check_positive("theta", theta)
    t0 = theta * nu if t0 is None else check_in_range("t0", t0, 0.0, 1e12)
    checkpoints = check_count("checkpoints", checkpoints, low=1, high=10_000)
    progress = check_progress(progress)
    rng = as_generator(seed)
    maps = {}
    out = {}
    for k, name in enumerate(methods):
        kind, solver = BASELINES[name]
        if kind not in maps:
            maps[kind] = kernel_features(X, kind=kind, bandwidth=bandwidth, features=features,
                                         seed=rng)
        fmap = maps[kind]
        Z, Zt = fmap.transform(X), fmap.transform(test[0])
        if solver == "pegasos":
            run = pegasos(Z, y, loss="squared", nu=nu, steps=max(1, points // m), batch_size=m,
                          theta=theta, t0=t0, seed=rng, Z_test=Zt, y_test=test[1],
                          checkpoints=checkpoints)
        else:
            run = sdca(Z, y, loss="squared", nu=nu, updates=points, seed=rng, Z_test=Zt,
                       y_test=test[1], checkpoints=checkpoints)
        out[name] = dict(run.history, features=fmap.features)
        report(progress, (k + 1) / len(methods), f"{name} done")
    return out


def _warmup() -> None:
    Z = np.zeros((2, 2))
    y = np.ones(2)
    for kind in (0, 1):
        _sdca_updates(Z, y, np.zeros(2), np.zeros(2), np.array([0, 1], dtype=np.int64), kind,
                      1.0, np.zeros(2))


# --- a classification run (Sec 3.6.3, Fig 3.6 (2): MNIST 8 against 6 by kernel SVM) ---------

#: Sec 3.6.3's reported test error of doubly SGD on MNIST 8M 8 against 6 (hinge loss).
PAPER_DIGITS_ERROR = 0.0026


def digits_pair(first: int = 8, second: int = 6, *, test_fraction: float = 0.5, seed=0):
    """Two digits of scikit-learn's 8 x 8 handwritten digits (``load_digits``, shipped with the
    package: 1,797 images, about 180 of each digit; the thesis used MNIST 8M, 784 pixels, 1.6M
    images, reduced to 50 dimensions by PCA): pixels scaled to [0, 1], labels +1 for ``first``
    and -1 for ``second``, split at random. Returns (X, y, X_test, y_test)."""
    from sklearn.datasets import load_digits

    first = check_count("first", first, low=0, high=9)
    second = check_count("second", second, low=0, high=9)
    if first == second:
        raise ValueError(f"first and second must be two different digits, got {first} twice")
    test_fraction = check_in_range("test_fraction", test_fraction, 0.05, 0.95)
    data = load_digits()
    keep = np.isin(data.target, (first, second))
    X = data.data[keep] / 16.0
    y = np.where(data.target[keep] == first, 1.0, -1.0)
    order = as_generator(seed).permutation(len(X))
    cut = int(round(len(X) * (1 - test_fraction)))
    train, test = order[:cut], order[cut:]
    return X[train], y[train], X[test], y[test]


@dataclass(frozen=True)
class ClassificationRun:
    """A doubly SGD classification run beside its full-kernel reference: ``history`` (``step``,
    ``seen``, the test error rate ``rate`` of the averaged iterate), the reference's test error
    rate ``reference_rate`` (``reference``: what computed it), the loss, the sizes, and per
    test image whether doubly SGD's last iterate (``wrong``) and the reference
    (``reference_wrong``) got it wrong (None in a run recorded without them)."""

    loss: str
    history: dict
    reference_rate: float
    reference: str
    n_train: int
    n_test: int
    steps: int
    batch: int
    block: int
    wrong: np.ndarray | None = None
    reference_wrong: np.ndarray | None = None


def kernel_classifier_reference(X, y, X_test, *, loss: str, bandwidth: float,
                                nu: float) -> np.ndarray:
    """The full-kernel solution of the same regularised risk, by scikit-learn (independent of
    this module's solvers): the decision values at ``X_test``. Hinge: ``SVC`` with the RBF
    kernel and C = 1 / (n nu) (its objective 1/2 ||f||^2 + C sum hinge is the risk times
    1 / (n nu); SVC adds an unregularised offset b, which doubly SGD has not). Logistic:
    ``LogisticRegression`` with C = 1 / (n nu), no offset, on exact kernel features (Nystrom
    with every training point a landmark), which is kernel logistic regression."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import SVC

    X, y = _check_data(X, y, max_points=MAX_POINTS)
    if not np.all(np.abs(y) == 1):
        raise ValueError("y must hold labels -1 and +1")
    X_test = _check_points("X_test", X_test)
    if X_test.shape[1] != X.shape[1]:
        raise ValueError(f"X_test must have {X.shape[1]} columns, got {X_test.shape[1]}")
    loss = check_choice("loss", loss, ("hinge", "logistic"))
    bandwidth = _check_scale("bandwidth", bandwidth, low=1e-6)
    nu = check_in_range("nu", nu, 1e-12, 1e6)
    if len(np.unique(y)) < 2:
        raise ValueError("y must hold both labels")
    C = 1.0 / (len(X) * nu)
    if loss == "hinge":
        svc = SVC(kernel="rbf", gamma=1.0 / (2 * bandwidth**2), C=C, tol=1e-6)
        return svc.fit(X, y).decision_function(X_test)
    fmap = kernel_features(X, kind="exact", bandwidth=bandwidth, features=1, seed=0)
    model = LogisticRegression(C=C, fit_intercept=False, tol=1e-8, max_iter=10_000)
    return model.fit(fmap.transform(X), y).decision_function(fmap.transform(X_test))


def classification_run(model, X, y, X_test, y_test, *, loss: str = "hinge",
                       nu: float) -> ClassificationRun:
    """A doubly SGD classification run (``model``: what ``doubly_sgd`` returned, Algorithm 1
    with the hinge or logistic loss ``loss`` and regulariser ``nu``, trained on X, y with
    ``X_test``, ``y_test`` as its test data) scored: its test error rate at each checkpoint
    (the sign of the averaged iterate), beside ``kernel_classifier_reference``'s on the same
    data."""
    X, y = _check_data(X, y, max_points=MAX_POINTS)
    test = _check_test_pair(X_test, y_test, X.shape[1])
    if test is None:
        raise ValueError("X_test and y_test must be given")
    if not np.all(np.abs(test[1]) == 1):
        raise ValueError("y_test must hold labels -1 and +1")
    loss = check_choice("loss", loss, ("hinge", "logistic"))
    path = getattr(model, "test_path", None)
    if not isinstance(path, np.ndarray) or path.ndim != 2 or path.shape[1] != len(test[0]) \
            or not isinstance(getattr(model, "history", None), dict) \
            or getattr(model, "dim", None) != X.shape[1]:
        raise ValueError("model must be a doubly_sgd run on X with X_test as its test data, "
                         f"got {type(model).__name__}")
    rates = np.mean(np.where(path > 0, 1.0, -1.0) != test[1][None, :], axis=1)
    reference = kernel_classifier_reference(X, y, test[0], loss=loss,
                                            bandwidth=model.bandwidth, nu=nu)
    ref_rate = float(np.mean(np.where(reference > 0, 1.0, -1.0) != test[1]))
    name = ("scikit-learn SVC (RBF kernel, C = 1/(nν))" if loss == "hinge" else
            "scikit-learn LogisticRegression on the exact kernel (C = 1/(nν))")
    history = dict(step=np.asarray(model.history["step"]),
                   seen=np.asarray(model.history["seen"]), rate=rates)
    return ClassificationRun(loss, history, ref_rate, name, len(X), len(test[0]),
                             int(model.steps), int(model.batch_size), int(model.block_size),
                             wrong=np.where(path[-1] > 0, 1.0, -1.0) != test[1],
                             reference_wrong=np.where(reference > 0, 1.0, -1.0) != test[1])
