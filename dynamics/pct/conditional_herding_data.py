"""Conditional herding, the voted perceptron and the discriminative RBM on real data (Chen &
Welling Sec 1.3.4 and 1.4.3, eqs 1.58-1.62, 1.65-1.66 and 1.69, Fig 1.16, Table 1.3; Gelfand et
al. 2010; Larochelle & Bengio 2008).

Three learners of p(y | x) with K classes, y one-of-K, compared in Table 1.3:

- **dRBM** (``drbm_fit``): the CRF of eq 1.65 with the parameterisation of eq 1.69,
  w . phi(x, y, z) = x^T W z + y^T B z + theta^T z + alpha^T y, binary hidden units z in
  {0, 1}^M as Larochelle & Bengio's discriminative RBM. Summing the hidden units out is exact:
  p(y = k | x) is proportional to exp(alpha_k + sum_m softplus(theta_m + B_km + (x^T W)_m))
  (``drbm_log_proba``); training maximises the conditional log-likelihood of eq 1.66 with an L2
  penalty on W and B by a quasi-Newton gradient method (scipy's L-BFGS; the paper ran conjugate
  gradients), optionally keeping the iterate with the lowest validation error (the paper's early
  stopping).
- **Conditional herding** (``conditional_herding_joint``): eqs 1.58-1.62 with the same eq 1.69
  and hidden units z in {-1, +1}^M (as ``dynamics.pct.conditional_herding``), the paper's *joint
  procedure* for K > 2: the argmax of eq 1.59 runs over the K one-of-K label states, and given
  the label the hidden units decouple, so every argmax is exact. Inputs are extended by the
  normalizing feature sqrt(R_max^2 - ||x||^2) and a constant (theta is W's last row). Each
  parameter block's initial scale and step are divided by its number of entries (Sec 1.4.3:
  sigma_W = sigma / (dim(x) dim(z)), the steps likewise). Minibatches go in a fixed order, and
  herding stops once a whole epoch is classified without error (footnote 13). Ties go to the
  lowest class index and z = +1 on a zero field; the voted perceptron's first step (w = 0) ties
  every class and takes class 0; later scores hold the irrational normalizing feature, so exact
  ties have probability zero.
- **Voted perceptron**: the same with no hidden units, phi = x (x) y (the multi-class perceptron
  with votes, eqs 1.56-1.57 and 1.61-1.62).

Data (``load_dataset``): data shipped with scikit-learn, no download: the 8 x 8 digits
(1,797 images, 10 classes, pixels scaled to [0, 1] by / 16, not binarised) and the Wisconsin
breast cancer set (569 cases, 30 real features, 2 classes, standardised by the training
split's mean and standard deviation); a stratified split. The paper's sets (MNIST, USPS, UCI
Pendigits, 20 Newsgroups) are larger and are not shipped.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ..checks import (MAX_ABS, as_generator, check_array, check_budget, check_choice,
                      check_count, check_in_range, check_positive, check_progress, report)
from ._real_data import DATASETS, Dataset, load_dataset
from ..claims import (Z, Threshold, Verdict, decide, equivalence, mcnemar,
                      paired_error_difference, stated)

__all__ = [
    "DATASETS", "PAPER_TABLE", "Dataset", "DRBM", "ClassVotes", "TableResult", "load_dataset",
    "drbm_log_proba", "drbm_objective", "drbm_fit", "conditional_herding_joint", "table_experiment",
    "table_claim", "TABLE13_PAR_MARGIN",
]


#: Table 1.3 of the paper, joint procedure: test error in % (USPS: mean of 10-fold CV).
#: Columns: VP, dRBM with 50, 100, 500 hidden units, CH with 50, 100, 500 (None: not run).
PAPER_TABLE = {
    "MNIST": (8.84, (3.88, 2.93, 1.98), (2.89, 2.09, 2.09)),
    "USPS": (4.86, (3.13, 2.84, 4.06), (3.36, 3.07, 2.81)),
    "UCI Pendigits": (6.78, (3.80, 3.23, 8.89), (3.14, 2.57, 2.86)),
    "20 Newsgroups": (24.89, (None, 30.57, 30.07), (None, 25.76, 24.93)),
}
#: The hidden-unit counts of the paper's joint procedure.
PAPER_HIDDEN = (50, 100, 500)


# --- data: ``Dataset`` and ``load_dataset`` (in ``._real_data``) ---------------------------


def _check_labels(name, labels, n, n_classes=None):
    labels = check_array(name, labels, shape=(n,), dtype=np.int64)
    if labels.size and labels.min() < 0:
        raise ValueError(f"{name} must hold class numbers 0, 1, ..., got {labels.min()}")
    K = int(labels.max()) + 1 if n_classes is None else n_classes
    if K < 2:
        raise ValueError(f"{name} must hold at least two classes, got {K}")
    if labels.max() >= K:
        raise ValueError(f"{name} must hold classes below n_classes = {K}, got {labels.max()}")
    return labels, K


def _check_inputs(X, X_test=None, *, test=True):
    X = check_array("X", X, ndim=2, max_abs=MAX_ABS)
    if X.shape[0] < 2 or X.shape[1] < 1:
        raise ValueError(f"X must have at least 2 rows and 1 column, got shape {X.shape}")
    if not test:
        return X
    if X_test is None:
        raise ValueError("X_test must be a 2-d array of inputs, got None")
    Xt = check_array("X_test", X_test, ndim=2, max_abs=MAX_ABS)
    if Xt.shape[1] != X.shape[1]:
        raise ValueError(f"X_test must have {X.shape[1]} columns, got {Xt.shape[1]}")
    return X, Xt


# --- the discriminative RBM ----------------------------------------------------------------


@dataclass(frozen=True)
class DRBM:
    """A trained discriminative RBM (eq 1.69, z in {0, 1}^M): W (d, M), B (K, M), theta (M,),
    alpha (K,); the objective's trace over the iterations (``losses``) and, with validation
    data, the validation error of every iterate (``val_errors``) and the one kept (``best``)."""

    W: np.ndarray
    B: np.ndarray
    theta: np.ndarray
    alpha: np.ndarray
    losses: np.ndarray
    val_errors: np.ndarray
    best: int

    def log_proba(self, X) -> np.ndarray:
        return drbm_log_proba(X, self.W, self.B, self.theta, self.alpha)

    def predict(self, X) -> np.ndarray:
        return np.argmax(self.log_proba(X), axis=1)


def _softplus(o):
    return np.logaddexp(0.0, o)


def _sigmoid(o):
    return 0.5 * (1.0 + np.tanh(0.5 * o))


def _check_params(X, W, B, theta, alpha):
    X = check_array("X", X, ndim=2, max_abs=MAX_ABS)
    W = check_array("W", W, shape=(X.shape[1], None), max_abs=MAX_ABS)
    M = W.shape[1]
    B = check_array("B", B, shape=(None, M), max_abs=MAX_ABS)
    if B.shape[0] < 2:
        raise ValueError(f"B must have a row per class (at least 2), got shape {B.shape}")
    theta = check_array("theta", theta, shape=(M,), max_abs=MAX_ABS)
    alpha = check_array("alpha", alpha, shape=(B.shape[0],), max_abs=MAX_ABS)
    return X, W, B, theta, alpha


def _scores(X, W, B, theta, alpha):
    """F[i, k] = alpha_k + sum_m softplus(o[i, k, m]), o = (x_i^T W)_m + theta_m + B_km: the
    log of sum_z exp(w . phi(x_i, k, z)) (the free energy's negative), and o."""
    o = (X @ W + theta)[:, None, :] + B[None, :, :]
    return alpha + _softplus(o).sum(axis=2), o


def _log_softmax(F):
    return F - np.logaddexp.reduce(F, axis=1, keepdims=True)


def drbm_log_proba(X, W, B, theta, alpha) -> np.ndarray:
    """log p(y = k | x_i) of the discriminative RBM (eqs 1.65 and 1.69 with z in {0, 1}^M), the
    hidden units summed out exactly: F_k(x) = alpha_k + sum_m log(1 + exp(theta_m + B_km +
    (x^T W)_m)), log p(k | x) = F_k - log sum_j exp F_j. Returns (N, K)."""
    X, W, B, theta, alpha = _check_params(X, W, B, theta, alpha)
    return _log_softmax(_scores(X, W, B, theta, alpha)[0])


def _objective(X, labels, W, B, theta, alpha, l2):
    N = X.shape[0]
    F, o = _scores(X, W, B, theta, alpha)
    logp = _log_softmax(F)
    loss = -float(logp[np.arange(N), labels].mean()) + 0.5 * l2 * (np.sum(W * W)
                                                                    + np.sum(B * B))
    r = -np.exp(logp)
    r[np.arange(N), labels] += 1.0          # one-hot minus p(k | x_i)
    s = _sigmoid(o)                          # E[z_m | x_i, k]
    rs = r[:, :, None] * s                   # (N, K, M)
    g_theta = rs.sum(axis=1)                 # (N, M)
    grads = (-(X.T @ g_theta) / N + l2 * W, -rs.mean(axis=0) + l2 * B,
             -g_theta.mean(axis=0), -r.mean(axis=0))
    return loss, grads


def drbm_objective(X, labels, W, B, theta, alpha, *, l2: float = 0.0):
    """The dRBM's training objective, the negative conditional log-likelihood of eq 1.66 (mean
    over cases) plus (l2 / 2)(||W||^2 + ||B||^2), and its gradient (dW, dB, dtheta, dalpha):
    with r_ik = [y_i = k] - p(k | x_i) and s_ikm = sigmoid(o_ikm) = E[z_m | x_i, k],
    dW = -X^T (sum_k r s) / N + l2 W, dB = -mean_i r s + l2 B, dtheta = -mean_i sum_k r s,
    dalpha = -mean_i r."""
    X, W, B, theta, alpha = _check_params(X, W, B, theta, alpha)
    labels, _ = _check_labels("labels", labels, X.shape[0], B.shape[0])
    l2 = check_in_range("l2", l2, 0.0, 1e6)
    return _objective(X, labels, W, B, theta, alpha, l2)


def drbm_fit(X, labels, *, hidden: int = 20, n_classes: int | None = None, l2: float = 1e-4,
             max_iter: int = 300, init: float = 0.01, X_val=None, labels_val=None, seed=None,
             progress=None) -> DRBM:
    """Train a discriminative RBM (Larochelle & Bengio 2008; eq 1.69, z in {0, 1}^M) by
    minimising ``drbm_objective`` with L-BFGS (scipy) for at most ``max_iter`` iterations,
    from weights N(0, init^2) (the paper: variance 1e-4, init 0.01) and zero biases. With
    validation data (``X_val``, ``labels_val``) the iterate of lowest validation error is kept
    (early stopping, the first such iterate on ties); otherwise the last."""
    from scipy.optimize import minimize

    X = _check_inputs(X, test=False)
    labels, K = _check_labels("labels", labels, X.shape[0], None if n_classes is None else
                              check_count("n_classes", n_classes, low=2, high=10_000))
    M = check_count("hidden", hidden, high=100_000)
    l2 = check_in_range("l2", l2, 0.0, 1e6)
    max_iter = check_count("max_iter", max_iter, high=1_000_000)
    init = check_in_range("init", init, 0.0, 1e6)
    progress = check_progress(progress)
    if (X_val is None) != (labels_val is None):
        raise ValueError("X_val and labels_val must be given together")
    if X_val is not None:
        _, X_val = _check_inputs(X, X_val)
        labels_val, _ = _check_labels("labels_val", labels_val, X_val.shape[0], K)
    d = X.shape[1]
    check_budget("max_iter, hidden", max_iter * X.shape[0] * M * (d + K), 1e13, "operations")
    rng = as_generator(seed)
    sizes = (d * M, K * M, M, K)
    cuts = np.cumsum(sizes)[:-1]

    def unpack(v):
        W, B, theta, alpha = np.split(v, cuts)
        return W.reshape(d, M), B.reshape(K, M), theta, alpha

    last = {}

    def f(v):
        loss, grads = _objective(X, labels, *unpack(v), l2)
        last["v"], last["loss"] = v.copy(), loss
        return loss, np.concatenate([g.ravel() for g in grads])

    def val_error(v):
        return float(np.mean(np.argmax(_scores(X_val, *unpack(v))[0], axis=1) != labels_val))

    v0 = np.concatenate([init * rng.standard_normal(d * M), init * rng.standard_normal(K * M),
                         np.zeros(M), np.zeros(K)])
    losses = [_objective(X, labels, *unpack(v0), l2)[0]]
    errors = [val_error(v0)] if X_val is not None else []
    keep = dict(v=v0.copy(), at=0)

    def callback(v):
        losses.append(last["loss"] if np.array_equal(last.get("v"), v)
                      else _objective(X, labels, *unpack(v), l2)[0])
        if X_val is not None:
            errors.append(val_error(v))
            if errors[-1] < errors[keep["at"]]:
                keep.update(v=v.copy(), at=len(errors) - 1)
        report(progress, min((len(losses) - 1) / max_iter, 1.0),
               f"iteration {len(losses) - 1:,}")

    report(progress, 0.0, "iteration 0")
    res = minimize(f, v0, jac=True, method="L-BFGS-B", callback=callback,
                   options=dict(maxiter=max_iter, gtol=1e-8, ftol=1e-12))
    if X_val is None:
        keep.update(v=res.x, at=len(losses) - 1)
    report(progress, 1.0, f"{len(losses) - 1:,} iterations")
    W, B, theta, alpha = unpack(keep["v"])
    return DRBM(W=W, B=B, theta=theta, alpha=alpha, losses=np.array(losses),
                val_errors=np.array(errors), best=keep["at"])


# --- conditional herding and the voted perceptron, K classes -------------------------------


@dataclass(frozen=True)
class ClassVotes:
    """Votes of every counted step's weights (eq 1.62): ``votes[i, k]`` the fraction of steps
    that chose class k for test input i (the estimate of p(k | x_i)); ``steps`` the updates
    made, ``counted`` the steps that voted, ``converged`` whether herding stopped because a
    whole epoch was classified without error."""

    votes: np.ndarray
    steps: int
    counted: int
    converged: bool

    @property
    def predict(self) -> np.ndarray:
        return np.argmax(self.votes, axis=1)


def _extend(X, r_max):
    phi0 = np.sqrt(np.maximum(r_max**2 - np.sum(X * X, axis=1), 0.0))
    return np.c_[X, phi0, np.ones(len(X))]


def _best_class(a, B, alpha):
    """Eq 1.59 for one-of-K labels and z in {-1, +1}^M: the score of class k is alpha_k +
    sum_m |a_m + B_km| (z_m = sign(a_m + B_km)); returns the argmax class of every row of the
    pre-activations a (N, M), first on ties."""
    best = np.full(len(a), -np.inf)
    cls = np.zeros(len(a), dtype=np.int64)
    for k in range(B.shape[0]):
        score = alpha[k] + np.abs(a + B[k]).sum(axis=1)
        better = score > best
        cls[better], best[better] = k, score[better]
    return cls


def conditional_herding_joint(X, labels, X_test, *, hidden: int = 100,
                              n_classes: int | None = None, epochs: int = 100,
                              batch_size: int = 100, burn_in: int = 0, init: float = 3.0,
                              seed=None, progress=None) -> ClassVotes:
    """Conditional herding with K classes (eqs 1.58-1.62, eq 1.69, the paper's joint procedure;
    ``hidden = 0`` is the voted perceptron). Per minibatch (fixed order, footnote 13):
    z'_i = sign(x_i^T W + B_{y_i}) (eq 1.58), y*_i = argmax_k alpha_k + sum_m |x_i^T W + B_k|_m
    and z*_i = sign(x_i^T W + B_{y*_i}) (eq 1.59), then every block moves by its step times the
    batch mean of phi(x, y, z') - phi(x, y*, z*) (eq 1.60); after ``burn_in`` updates every
    step's weights vote on the test inputs (eqs 1.61-1.62). Block steps 1 / (entries of the
    block) and initial weights ``init`` x N(0, 1) / (entries) (Sec 1.4.3); without hidden units
    the weights start at zero with step 1. Herding stops when a whole epoch is classified
    without error. ``progress(fraction, message)`` hears every 1 % of the epochs."""
    X, Xt = _check_inputs(X, X_test)
    labels, K = _check_labels("labels", labels, X.shape[0], None if n_classes is None else
                              check_count("n_classes", n_classes, low=2, high=10_000))
    M = check_count("hidden", hidden, low=0, high=100_000)
    epochs = check_count("epochs", epochs, high=10_000_000)
    D = X.shape[0]
    b = check_count("batch_size", batch_size, low=1, high=D)
    burn_in = check_count("burn_in", burn_in, low=0)
    init = check_in_range("init", init, 0.0, 1e6)
    progress = check_progress(progress)
    d = X.shape[1] + 2
    check_budget("epochs, hidden", epochs * (D + len(Xt) * -(-D // b)) * d * max(M, K), 1e13,
                 "operations")
    rng = as_generator(seed)
    r_max = float(np.sqrt(np.max(np.sum(X * X, axis=1))))
    Xe, Xte = _extend(X, r_max), _extend(Xt, r_max)
    onehot = np.eye(K)
    if M == 0:
        w = np.zeros((d, K))
    else:
        sW, sB, sa = 1.0 / (d * M), 1.0 / (K * M), 1.0 / K
        W = init * sW * rng.standard_normal((d, M))
        B = init * sB * rng.standard_normal((K, M))
        alpha = init * sa * rng.standard_normal(K)
    order = rng.permutation(D)
    batches = [order[s:s + b] for s in range(0, D, b)]
    votes = np.zeros((len(Xt), K))
    step = counted = clean = 0
    converged = False
    every = max(1, epochs // 100)

    def vote():
        scores = Xte @ w if M == 0 else None
        cls = np.argmax(scores, axis=1) if M == 0 else _best_class(Xte @ W, B, alpha)
        votes[np.arange(len(Xt)), cls] += 1.0

    for epoch in range(epochs):
        if epoch % every == 0:
            report(progress, epoch / epochs, f"epoch {epoch:,} of {epochs:,}")
        for idx in batches:
            xb, yb = Xe[idx], labels[idx]
            if M == 0:
                ystar = np.argmax(xb @ w, axis=1)
                w = w + xb.T @ (onehot[yb] - onehot[ystar]) / len(idx)
            else:
                a = xb @ W
                zprime = np.where(a + B[yb] >= 0, 1.0, -1.0)
                ystar = _best_class(a, B, alpha)
                zstar = np.where(a + B[ystar] >= 0, 1.0, -1.0)
                W = W + sW * (xb.T @ (zprime - zstar)) / len(idx)
                B = B + sB * (onehot[yb].T @ zprime - onehot[ystar].T @ zstar) / len(idx)
                alpha = alpha + sa * (onehot[yb] - onehot[ystar]).mean(axis=0)
            step += 1
            clean = clean + 1 if np.array_equal(ystar, yb) else 0
            if clean >= len(batches):
                converged = True
                break
            if step > burn_in:
                vote()
                counted += 1
        if converged:
            break
    if counted == 0:  # converged (or all burn-in): the last weights decide
        vote()
        counted = 1
    report(progress, 1.0, f"{step:,} updates" + (", converged" if converged else ""))
    return ClassVotes(votes=votes / counted, steps=step, counted=counted, converged=converged)


# --- Table 1.3 -----------------------------------------------------------------------------


@dataclass(frozen=True)
class TableResult:
    """Test errors (fractions) of the voted perceptron, and of the dRBM and conditional herding
    for each hidden-unit count, on one data set; the settings and the seconds each took. Per
    test case, whether each learner got it wrong (``vp_wrong`` (n_test,), ``drbm_wrong`` and
    ``ch_wrong`` (counts, n_test): for paired comparisons), and the validation errors per
    hidden-unit count (``drbm_validation``, ``ch_validation``: for choosing the count)."""

    dataset: str
    about: str
    hidden: tuple
    vp_error: float
    drbm_error: np.ndarray
    ch_error: np.ndarray
    n_train: int
    n_test: int
    epochs: int
    drbm_iter: int
    inits: np.ndarray
    seconds: dict
    vp_wrong: np.ndarray = None  # type: ignore[assignment]
    drbm_wrong: np.ndarray = None  # type: ignore[assignment]
    ch_wrong: np.ndarray = None  # type: ignore[assignment]
    drbm_validation: np.ndarray = None  # type: ignore[assignment]
    ch_validation: np.ndarray = None  # type: ignore[assignment]


def table_experiment(name: str = "digits", *, hidden=(10, 50, 100), epochs: int = 100,
                     burn_in: int = 100, drbm_iter: int = 300, l2: float = 1e-4,
                     inits=(1.0, 3.0, 10.0), batch_size: int = 100, validation: float = 0.2,
                     seed=0, progress=None) -> TableResult:
    """Table 1.3 (joint procedure) on a data set scikit-learn ships (``load_dataset``): the
    voted perceptron, dRBMs (``drbm_fit``, early stopping on ``validation`` of the training
    split held out, then the kept iterate) and conditional herding (``conditional_herding_joint``
    with ``burn_in`` updates before voting) with each count of ``hidden`` units; test error on
    the test split. Herding and the perceptron train on the whole training split; herding's
    initial scale (``init`` of ``conditional_herding_joint``, the paper's sigma / eta) is the
    one of ``inits`` with the lowest validation error, trained without the validation cases
    (the paper chose it by cross-validation); that error (run even for one init) is the
    count's validation error, and the dRBM's is its kept iterate's on the same cases."""
    name = check_choice("name", name, DATASETS)
    hidden = check_array("hidden", hidden, ndim=1, dtype=np.int64)
    hidden = tuple(check_count("hidden", int(h), high=10_000) for h in hidden)
    if not 1 <= len(hidden) <= 10:
        raise ValueError(f"hidden must hold 1 to 10 counts, got {len(hidden)}")
    epochs = check_count("epochs", epochs, high=100_000)
    drbm_iter = check_count("drbm_iter", drbm_iter, high=100_000)
    validation = check_in_range("validation", validation, 0.05, 0.5)
    inits = check_array("inits", inits, ndim=1)
    inits = tuple(check_in_range("inits", float(v), 0.0, 1e6, low_open=True) for v in inits)
    if not 1 <= len(inits) <= 10:
        raise ValueError(f"inits must hold 1 to 10 scales, got {len(inits)}")
    progress = check_progress(progress)
    data = load_dataset(name, seed=seed)
    rng = as_generator(seed)
    X, y, Xt, yt, K = data.X, data.labels, data.X_test, data.labels_test, data.n_classes
    held = np.zeros(len(y), dtype=bool)
    held[rng.permutation(len(y))[:int(round(validation * len(y)))]] = True
    tries = len(inits)
    costs = np.array([1.0] + [2.0 * h for h in hidden] + [(1.0 + tries) * h for h in hidden])
    edges = np.r_[0.0, np.cumsum(costs)] / costs.sum()

    def part(k, what):
        if progress is None:
            return None
        return lambda f, m: report(progress, edges[k] + f * (edges[k + 1] - edges[k]),
                                   f"{what}: {m}")

    seconds = {}
    t0 = time.process_time()
    vp = conditional_herding_joint(X, y, Xt, hidden=0, n_classes=K, epochs=epochs,
                                   batch_size=batch_size, seed=seed, progress=part(0, "VP"))
    seconds["VP"] = time.process_time() - t0
    drbm_error, ch_error, chosen, drbm_wrong, ch_wrong = [], [], [], [], []
    drbm_val, ch_val = [], []
    for j, h in enumerate(hidden):
        t0 = time.process_time()
        model = drbm_fit(X[~held], y[~held], hidden=h, n_classes=K, l2=l2, max_iter=drbm_iter,
                         X_val=X[held], labels_val=y[held], seed=seed,
                         progress=part(1 + j, f"dRBM {h}"))
        drbm_wrong.append(model.predict(Xt) != yt)
        drbm_error.append(float(np.mean(drbm_wrong[-1])))
        drbm_val.append(float(np.mean(model.predict(X[held]) != y[held])))
        seconds[f"dRBM {h}"] = time.process_time() - t0
    for j, h in enumerate(hidden):
        t0 = time.process_time()
        step = part(1 + len(hidden) + j, f"CH {h}")
        errors = []
        for n, init in enumerate(inits):
            sub = None if step is None else (lambda f, m, n=n: step((n + f) / (tries + 1), m))
            trial = conditional_herding_joint(X[~held], y[~held], X[held], hidden=h,
                                              n_classes=K, epochs=epochs, burn_in=burn_in,
                                              batch_size=batch_size, init=init, seed=seed,
                                              progress=sub)
            errors.append(np.mean(trial.predict != y[held]))
        init = inits[int(np.argmin(errors))]  # ties: the first
        chosen.append(init)
        ch_val.append(float(min(errors)))
        sub = None if step is None else (lambda f, m: step((tries + f) / (tries + 1), m))
        votes = conditional_herding_joint(X, y, Xt, hidden=h, n_classes=K, epochs=epochs,
                                          batch_size=batch_size, burn_in=burn_in, init=init,
                                          seed=seed, progress=sub)
        ch_wrong.append(votes.predict != yt)
        ch_error.append(float(np.mean(ch_wrong[-1])))
        seconds[f"CH {h}"] = time.process_time() - t0
    report(progress, 1.0, "done")
    return TableResult(dataset=name, about=data.about, hidden=hidden,
                       vp_error=float(np.mean(vp.predict != yt)),
                       drbm_error=np.array(drbm_error), ch_error=np.array(ch_error),
                       n_train=len(y), n_test=len(yt), epochs=epochs, drbm_iter=drbm_iter,
                       inits=np.array(chosen), seconds=seconds, vp_wrong=vp.predict != yt,
                       drbm_wrong=np.array(drbm_wrong), ch_wrong=np.array(ch_wrong),
                       drbm_validation=np.array(drbm_val), ch_validation=np.array(ch_val))


_TABLE13 = "dynamics.pct.conditional_herding_data.table_claim"
_TABLE13_STATEMENT = ("Hidden units improve the voted perceptron's test error significantly, and "
                      "conditional herding performs on par with discriminative RBMs.")
#: "On par", as a difference in test error (the paper's CH and dRBM differ by up to 0.66 points).
TABLE13_PAR_MARGIN = Threshold(
    0.01, name="TABLE13_PAR_MARGIN", claim=_TABLE13, statement=_TABLE13_STATEMENT,
    rule="CH - dRBM test error (paired, counts chosen on validation) inside ±margin by Z SE",
    why="one point of error: above the paper's largest CH-dRBM gap it calls on par (0.66), "
        "below its VP-CH improvements (2 to 6 points)")


@stated
def table_claim(result: TableResult) -> Verdict:
    """Chen & Welling, Sec 1.4.3 and Table 1.3: "the addition of hidden units to the voted
    perceptron leads to significant improvements in terms of generalization error" and
    "conditional herding performs on par with discriminative RBMs".

    The hidden-unit counts are chosen on the validation cases (``ch_validation``,
    ``drbm_validation``; ties to the smaller count), never on the test set. Rule, on the test
    cases, paired: (1) McNemar's test of CH against the voted perceptron: CH fewer errors by
    ``Z`` (the statistic's SE is 1) reproduces, more by as many differs; (2) CH's error minus
    the dRBM's inside ±``TABLE13_PAR_MARGIN`` with its ``Z`` SE interval (paired SE from the
    discordant cases; equivalence). Both hold: reproduced; either fails: differs; otherwise
    not decided. A result without per-case predictions (an older record) is not decided."""
    if not isinstance(result, TableResult):
        raise TypeError(f"result must be a TableResult, got {type(result).__name__}")
    pct = lambda e: f"{100 * e:.2f} %"  # noqa: E731
    cells = ", ".join(f"M = {h}: dRBM {pct(e)}, CH {pct(c)}"
                      for h, e, c in zip(result.hidden, result.drbm_error, result.ch_error))
    measured = (f"{result.dataset}: voted perceptron {pct(result.vp_error)}; {cells} "
                f"({result.n_test} test cases)")
    stated = dict(effect="CH against VP (McNemar) and CH - dRBM test error, paired on the test "
                         "cases, counts chosen on validation",
                  rule=f"McNemar z > {Z}; |CH - dRBM| < {pct(TABLE13_PAR_MARGIN)} by {Z} SE",
                  thresholds={"Z": Z, "TABLE13_PAR_MARGIN": TABLE13_PAR_MARGIN})
    if result.ch_wrong is None or result.ch_validation is None:
        return Verdict("Chen & Welling, Table 1.3", _TABLE13_STATEMENT, None, measured,
                       "the result has no per-case predictions or validation errors to pair "
                       "and choose on", dict(dataset=result.dataset), **stated)
    n = result.n_test
    i_ch, i_drbm = int(np.argmin(result.ch_validation)), int(np.argmin(result.drbm_validation))
    h_ch, h_drbm = result.hidden[i_ch], result.hidden[i_drbm]
    ch, drbm, vp = (float(result.ch_error[i_ch]), float(result.drbm_error[i_drbm]),
                    result.vp_error)
    only_ch, only_vp, z = mcnemar(result.ch_wrong[i_ch], result.vp_wrong)
    par, par_se = paired_error_difference(result.ch_wrong[i_ch], result.drbm_wrong[i_drbm])
    improves = decide(z, 1.0)
    checks = [
        (improves, f"the voted perceptron ({pct(vp)}) beats conditional herding ({pct(ch)}, "
                   f"M = {h_ch}): McNemar z = {z:.2f}",
         f"conditional herding ({pct(ch)}, M = {h_ch}) against the voted perceptron "
         f"({pct(vp)}): McNemar z = {z:.2f} ({only_ch} cases only CH errs on, {only_vp} only "
         f"VP), within {Z}"),
        (equivalence(par, par_se, TABLE13_PAR_MARGIN),
         f"conditional herding ({pct(ch)}, M = {h_ch}) and the dRBM ({pct(drbm)}, M = "
         f"{h_drbm}) differ by {pct(par)} ± {pct(par_se)}, beyond the {pct(TABLE13_PAR_MARGIN)} "
         "margin",
         f"CH - dRBM = {pct(par)} ± {pct(par_se)} is not inside ±{pct(TABLE13_PAR_MARGIN)}"),
    ]
    detect = Z * np.sqrt(max(only_ch + only_vp, 1)) / n
    return Verdict.from_checks(
        "Chen & Welling, Table 1.3", _TABLE13_STATEMENT, checks, measured=measured,
        why=(f"conditional herding ({pct(ch)}, M = {h_ch} chosen on validation) beats the voted "
             f"perceptron ({pct(vp)}; McNemar z = {z:.2f}) and is within "
             f"{pct(TABLE13_PAR_MARGIN)} of the dRBM ({pct(drbm)}, M = {h_drbm})"),
        numbers=dict(dataset=result.dataset, voted_perceptron=vp, ch=ch, ch_hidden=h_ch,
                     drbm=drbm, drbm_hidden=h_drbm, mcnemar_z=z, only_ch=only_ch,
                     only_vp=only_vp, ch_minus_drbm=par, ch_minus_drbm_se=par_se, n_test=n),
        power=(f"VP against CH: about {pct(detect)} of test error ({Z} √(discordant cases) "
               f"of {n}); CH - dRBM: equivalence shown when {Z} SE = {pct(Z * par_se)} is "
               f"under the margin"),
        **stated)


def _warmup() -> None:
    """No Numba kernels here (NumPy and scipy only)."""
