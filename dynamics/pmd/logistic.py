"""Bayesian logistic regression by particle mirror descent (Dai, Sec 4.6.2, Fig 4.2 (1)), against a
long MALA reference posterior and SGLD.

The thesis classifies MNIST 8 against 6 (1.6M training images, PCA to 50 dimensions, a N(0, I)
prior on the weights, minibatches of 100, 5 passes, 1000 particles) and reports PMD's test
accuracy "98.8%", comparable to SVI. We have no download at run time: the same two digits come
from scikit-learn's 8 x 8 digits (``load_digits``: 174 eights and 181 sixes), a different and
much smaller data set; PCA to a few dimensions (fitted on the training split), each component
scaled to unit variance, plus a constant feature (the bias), keeps the prior N(0, I) meaningful.

The likelihood is p(y | x, w) = 1 / (1 + exp(-(2y - 1) w . x)). PMD here is the hybrid that
Algorithm 3's text recommends (L2137), in d dimensions: the weighted-KDE branch (eqs 4.7-4.8,
tempered sub-steps as in ``dynamics.pmd.mirror``) over the first ``kde_passes`` passes, then
``particles`` draws from that KDE reweighted by the particle branch (eq 4.6 with the KDE as base
density) for the remaining passes; gamma_t = 1/t over all passes, so after every whole number of
passes the exact iterate is the posterior. The KDE's kernel is a Gaussian shaped by the
cloud's weighted covariance Sigma, K = N(0, h^2 Sigma), h = ``bandwidth_scale`` m^(-1/(d + 4))
(Theorem 17's h = O(m^(-1/(d + 2 beta))) with beta = 2, the Gaussian kernel's order).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from dynamics.checks import (as_generator, check_array, check_count, check_in_range,
                              check_instance, check_positive, check_progress, report)
from dynamics.pmd.kde import effective_sample_size
from dynamics.pmd.mirror import MIN_ESS, checkpoint_steps, normalise_log

__all__ = ["LogisticData", "digits_pair", "log_posterior", "predictive", "mala", "split_rhat",
           "reference_posterior", "Reference", "LogisticRun", "logistic_pmd", "logistic_sgld",
           "LogisticComparison", "compare_logistic", "LOGISTIC_METHODS"]

#: The methods ``compare_logistic`` runs (the thesis's other Fig 4.2 (1) methods: SVI, SGD NPV
#: and one-pass SMC are built for the mixture model only; Gibbs it calls unaffordable).
LOGISTIC_METHODS = ("PMD", "SGLD")


@dataclass(frozen=True)
class LogisticData:
    """Two digits as a binary problem: ``train_x`` (n, d) features (the last column the
    constant 1), ``train_y`` in {0, 1} (1 for ``positive``), ``test_x``, ``test_y``, and what
    was done (``note``)."""

    train_x: np.ndarray
    train_y: np.ndarray
    test_x: np.ndarray
    test_y: np.ndarray
    positive: int
    negative: int
    components: int
    note: str = ""

    @property
    def dim(self) -> int:
        return self.train_x.shape[1]


def digits_pair(positive: int = 8, negative: int = 6, *, components: int = 4,
                test_fraction: float = 0.3, seed: int = 0) -> LogisticData:
    """scikit-learn's 8 x 8 digits ``positive`` (label 1) against ``negative`` (label 0), a
    stratified train/test split (``test_fraction``, ``seed``), PCA to ``components``
    dimensions fitted on the training images, each component divided by its training standard
    deviation, and a constant feature: the data of Sec 4.6.2 at this machine's scale (the thesis
    uses MNIST8M, PCA to 50)."""
    from sklearn.datasets import load_digits
    from sklearn.decomposition import PCA
    from sklearn.model_selection import train_test_split

    for name, digit in (("positive", positive), ("negative", negative)):
        check_count(name, digit, low=0, high=9)
    if positive == negative:
        raise ValueError(f"positive and negative must differ, got {positive} for both")
    components = check_count("components", components, high=60)
    test_fraction = check_in_range("test_fraction", test_fraction, 0.05, 0.95)
    seed = check_count("seed", seed, low=0, high=2**32 - 1)
    images, labels = load_digits(return_X_y=True)
    keep = (labels == positive) | (labels == negative)
    x, y = images[keep], (labels[keep] == positive).astype(float)
    x_tr, x_te, y_tr, y_te = train_test_split(x, y, test_size=test_fraction, stratify=y,
                                              random_state=seed)
    pca = PCA(components, random_state=seed).fit(x_tr)
    z_tr, z_te = pca.transform(x_tr), pca.transform(x_te)
    scale = z_tr.std(axis=0)
    z_tr, z_te = z_tr / scale, z_te / scale
    ones_tr, ones_te = np.ones((z_tr.shape[0], 1)), np.ones((z_te.shape[0], 1))
    note = (f"scikit-learn's 8 x 8 digits {positive} against {negative}: {y_tr.size} training "
            f"and {y_te.size} test images, PCA to {components} (unit variance) plus a bias; "
            "the thesis uses MNIST8M (1.6M images, PCA to 50)")
    return LogisticData(np.hstack([z_tr, ones_tr]), y_tr, np.hstack([z_te, ones_te]), y_te,
                        int(positive), int(negative), components, note)


def _check_xy(x, y):
    x = check_array("x", x, ndim=2, max_abs=MAX_WEIGHT)
    y = check_array("y", y, shape=(x.shape[0],))
    if x.shape[0] == 0 or np.any((y != 0) & (y != 1)):
        raise ValueError("y must hold labels 0 or 1 for at least one row of x")
    return x, y


#: Largest |weight| the public functions take (w . x and w^2 stay finite).
MAX_WEIGHT = 1e6


def _check_weights(w, d, name="w"):
    return check_array(name, w, ndim=2, shape=(None, d), max_abs=MAX_WEIGHT)


def _log_post(w, x, y, scale):
    """Log prior N(0, I) plus ``scale`` times the log likelihood, and its gradient, per row."""
    s = 2.0 * y - 1.0
    margin = (w @ x.T) * s  # (m, n)
    loglik = -np.logaddexp(0.0, -margin).sum(axis=1)
    sig = 0.5 * (1.0 - np.tanh(0.5 * margin))  # sigmoid(-margin) without overflow
    grad = scale * (sig * s) @ x - w
    logp = -0.5 * (w * w).sum(axis=1) - 0.5 * w.shape[1] * math.log(2 * math.pi)
    return logp + scale * loglik, grad


def log_posterior(w, x, y, *, scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """The unnormalised log posterior of Sec 4.6.2 at each row of ``w`` (m, d): log N(w; 0, I) +
    ``scale`` sum_n log sigma((2 y_n - 1) w . x_n), and its gradient (m, d). ``scale`` = N / b
    gives PMD's and SGLD's minibatch target."""
    x, y = _check_xy(x, y)
    w = _check_weights(w, x.shape[1])
    return _log_post(w, x, y, check_in_range("scale", scale, 0.0, 1e9, low_open=True))


def predictive(particles, weights, x, y) -> tuple[float, float]:
    """The posterior predictive p(y = 1 | x) = sum_i alpha_i sigma(w_i . x) of weighted
    ``particles`` on test data: (test error, mean log likelihood per test point, nats)."""
    x, y = _check_xy(x, y)
    particles = _check_weights(particles, x.shape[1], "particles")
    weights = check_array("weights", weights, shape=(particles.shape[0],))
    if np.any(weights < 0) or not weights.sum() > 0:
        raise ValueError("weights must be non-negative with a positive sum")
    return _predictive(particles, weights / weights.sum(), x, y)


def _predictive(particles, weights, x, y):
    prob = weights @ (0.5 * (1.0 + np.tanh(0.5 * (particles @ x.T))))
    prob = np.clip(prob, 1e-12, 1 - 1e-12)
    error = float(np.mean((prob > 0.5) != (y == 1)))
    loglik = float(np.mean(y * np.log(prob) + (1 - y) * np.log1p(-prob)))
    return error, loglik


# --- the reference: MALA ------------------------------------------------------------------------


def mala(log_density, start, *, steps: int = 1000, burn_in: int = 500, step_size: float = 0.1,
         seed=None) -> tuple[np.ndarray, np.ndarray]:
    """The Metropolis-adjusted Langevin algorithm, one chain per row of ``start`` (chains, d):
    propose w' = w + (s^2 / 2) grad log pi(w) + s N(0, I), accept with the Metropolis-Hastings
    ratio of the two Langevin proposals. ``log_density(w)`` returns (log pi, gradient) for rows
    w. During ``burn_in`` steps the step s (from ``step_size``) adapts towards an acceptance of
    0.57 (Roberts and Rosenthal's optimum); then ``steps`` are kept at a fixed s. Returns the
    samples (steps, chains, d) and each chain's acceptance rate over the kept steps.

    log pi and its gradient must be finite at ``start`` (ValueError otherwise); a proposal where
    either is NaN, or log pi is -inf, is rejected; log pi = +inf is refused (no density)."""
    if not callable(log_density):
        raise TypeError(f"log_density must be callable, got {type(log_density).__name__}")
    w = check_array("start", start, ndim=2).copy()
    steps = check_count("steps", steps, high=10_000_000)
    burn_in = check_count("burn_in", burn_in, low=0, high=10_000_000)
    log_s = math.log(check_positive("step_size", step_size))
    rng = as_generator(seed)
    chains, d = w.shape
    logp, grad = _evaluate(log_density, w)
    bad = ~(np.isfinite(logp) & np.isfinite(grad).all(axis=1))
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(f"log_density must return a finite log pi and gradient at start, got "
                         f"log pi = {float(logp[row])!r} and gradient {grad[row].tolist()!r} at "
                         f"row {row}: a chain cannot start where its density is undefined or 0")
    out = np.empty((steps, chains, d))
    accepted = np.zeros(chains)
    for t in range(burn_in + steps):
        s = math.exp(log_s)
        mean = w + 0.5 * s * s * grad
        prop = mean + s * rng.standard_normal(w.shape)
        logp_new, grad_new = _evaluate(log_density, prop)
        if np.any(logp_new == np.inf):
            raise ValueError("log_density must return log pi < +inf, got +inf at a proposal")
        back = prop + 0.5 * s * s * grad_new
        log_ratio = (logp_new - logp - ((w - back) ** 2).sum(1) / (2 * s * s)
                     + ((prop - mean) ** 2).sum(1) / (2 * s * s))
        # a proposal where log pi or its gradient is NaN (or -inf) has a NaN (or -inf) ratio:
        # rejected, since the comparison is False
        take = np.log(rng.random(chains)) < log_ratio
        w[take], logp[take], grad[take] = prop[take], logp_new[take], grad_new[take]
        if t < burn_in:
            log_s += (np.mean(take) - 0.57) / math.sqrt(t + 1.0)
        else:
            out[t - burn_in] = w
            accepted += take
    return out, accepted / steps


def _evaluate(log_density, w):
    """``log_density(w)``, checked: a pair (log pi (chains,), gradient (chains, d)) of reals."""
    out = log_density(w.copy())
    if not (isinstance(out, tuple) and len(out) == 2):
        raise TypeError(f"log_density must return a pair (log pi, gradient), got "
                        f"{type(out).__name__}")
    logp, grad = (np.asarray(x) for x in out)
    if logp.dtype.kind not in "biuf" or grad.dtype.kind not in "biuf":
        raise TypeError(f"log_density must return real numbers, got dtypes {logp.dtype} and "
                        f"{grad.dtype}")
    if logp.shape != w.shape[:1] or grad.shape != w.shape:
        raise ValueError(f"log_density must return log pi of shape {w.shape[:1]} and a "
                         f"gradient of shape {w.shape}, got {logp.shape} and {grad.shape}")
    return logp.astype(float), grad.astype(float)


def split_rhat(samples) -> np.ndarray:
    """Gelman and Rubin's split R-hat per coordinate of ``samples`` (steps, chains, d): each
    chain cut in halves, between-half against within-half variance. Near 1 (below 1.01) when
    the chains agree."""
    samples = check_array("samples", samples, ndim=3, max_abs=1e150)
    n = samples.shape[0] // 2
    if n < 2:
        raise ValueError(f"samples must hold at least 4 steps, got {samples.shape[0]}")
    halves = np.concatenate([samples[:n], samples[n:2 * n]], axis=1)  # (n, 2 chains, d)
    means = halves.mean(0)
    within = halves.var(0, ddof=1).mean(0)
    between = n * means.var(0, ddof=1)
    if np.any(within <= 0):
        raise ValueError("samples must vary within each chain half (a constant chain has no R-hat)")
    return np.sqrt(((n - 1) / n * within + between / n) / within)


@dataclass(frozen=True)
class Reference:
    """``reference_posterior``: MALA ``samples`` (steps, chains, d), ``acceptance`` per chain,
    ``rhat`` per coordinate, the posterior ``mean`` and ``sd``, and the predictive's
    ``test_error`` and ``test_loglik``."""

    samples: np.ndarray
    acceptance: np.ndarray
    rhat: np.ndarray
    mean: np.ndarray
    sd: np.ndarray
    test_error: float
    test_loglik: float


def reference_posterior(data: LogisticData, *, chains: int = 4, steps: int = 5000,
                        burn_in: int = 1000, seed=None) -> Reference:
    """A long MALA run on the full posterior of Sec 4.6.2 (``chains`` chains started from
    over-dispersed prior draws, N(0, 4 I)): the reference PMD and SGLD are compared with."""
    data = check_instance("data", data, LogisticData)
    chains = check_count("chains", chains, low=2, high=1000)
    rng = as_generator(seed)
    x, y = data.train_x, data.train_y
    start = 2.0 * rng.standard_normal((chains, data.dim))
    samples, acc = mala(lambda w: _log_post(w, x, y, 1.0), start, steps=steps, burn_in=burn_in,
                        step_size=0.1, seed=rng)
    flat = samples.reshape(-1, data.dim)
    error, loglik = _predictive(flat, np.full(flat.shape[0], 1.0 / flat.shape[0]),
                                data.test_x, data.test_y)
    return Reference(samples, acc, split_rhat(samples), flat.mean(0), flat.std(0), error, loglik)


# --- PMD and SGLD -------------------------------------------------------------------------------


@dataclass(frozen=True)
class LogisticRun:
    """A method's posterior as weighted ``particles`` (m, d) and ``weights``; ``history``: per
    checkpoint ``seen`` (data visited), ``error`` and ``loglik`` (the predictive on the test
    set), ``ess``."""

    particles: np.ndarray
    weights: np.ndarray
    method: str
    history: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def ess(self) -> float:
        return effective_sample_size(self.weights)


class _Kernel:
    """The weighted KDE sum_j alpha_j N(w; w_j, h^2 Sigma), Sigma the cloud's weighted
    covariance (a small ridge keeps it positive definite)."""

    def __init__(self, centres, logw, h):
        self.centres, self.logw, self.h = centres, logw, h
        wts = np.exp(logw)
        mean = wts @ centres
        cov = (centres - mean).T @ ((centres - mean) * wts[:, None])
        cov += 1e-9 * np.trace(cov) / cov.shape[0] * np.eye(cov.shape[0]) + 1e-12 * np.eye(
            cov.shape[0])
        self.chol = np.linalg.cholesky(cov) * h
        self.inv = np.linalg.inv(self.chol)
        self.lognorm = (-0.5 * cov.shape[0] * math.log(2 * math.pi)
                        - np.log(np.diag(self.chol)).sum())
        self.white = centres @ self.inv.T

    def draw(self, rng, k):
        ancestors = rng.choice(self.centres.shape[0], size=k, p=np.exp(self.logw))
        return self.centres[ancestors] + rng.standard_normal((k, self.centres.shape[1])) @ \
            self.chol.T

    def logpdf(self, points):
        z = points @ self.inv.T
        sq = ((z * z).sum(1)[:, None] + (self.white * self.white).sum(1)[None, :]
              - 2 * z @ self.white.T)
        a = self.logw[None, :] - 0.5 * np.maximum(sq, 0.0)
        top = a.max(1)
        return top + np.log(np.exp(a - top[:, None]).sum(1)) + self.lognorm


def _log_prior(w):
    return -0.5 * (w * w).sum(1) - 0.5 * w.shape[1] * math.log(2 * math.pi)


def _ess(logw):
    w = np.exp(logw - logw.max())
    return w.sum() ** 2 / (w * w).sum()


def _kde_prox(rng, theta, logq, kernel, log_target, gamma, h):
    """One KDE prox-mapping (eq 4.8) from ``theta`` drawn from q_t (``logq``: log q_t at them;
    ``kernel``: q_t as a KDE, None for q_1 = p), to q_{t+1} = q_t^(1 - gamma) (p L)^gamma.

    Tempered sub-steps through q_t^(1 - l) (p L)^l, l from 0 to gamma, each as large as keeps
    the ESS >= MIN_ESS m. After a partial sub-step the particles are drawn again from the KDE of
    the weighted cloud, and the next weights are exact importance weights against that KDE
    (target over the density actually drawn from): weighting them by (p L / q_t)^delta instead,
    as if they were drawn from q(l), let particles that the jitter put in q_t's light tails take
    all the weight and run away (measured: the cloud's mean left to |w| ~ 500). Returns
    (particles, log weights)."""
    m = theta.shape[0]
    done, logq_t, logprop = 0.0, logq, logq  # the first particles are drawn from q_t itself
    for _ in range(100):
        log_t = log_target(theta)
        inc = log_t - logq_t
        # weights for exponent done + step: target / proposal = offset + step inc
        offset = (1.0 - done) * logq_t + done * log_t - logprop
        if _ess(offset + (gamma - done) * inc) >= MIN_ESS * m:
            step = gamma - done
        else:  # the largest step keeping the ESS, by bisection
            lo, hi = 0.0, gamma - done
            for _ in range(40):
                mid = 0.5 * (lo + hi)
                lo, hi = (mid, hi) if _ess(offset + mid * inc) >= MIN_ESS * m else (lo, mid)
            step = max(lo, 1e-3 * (gamma - done))
        logw = normalise_log(offset + step * inc)
        done += step
        if done >= gamma * (1 - 1e-9):
            return theta, logw
        proposal = _Kernel(theta, logw, h)
        theta = proposal.draw(rng, m)
        logprop = proposal.logpdf(theta)
        logq_t = kernel.logpdf(theta) if kernel is not None else _log_prior(theta)
    return theta, logw

def _check_run(data, particles, batch_size, passes, checkpoints):
    data = check_instance("data", data, LogisticData)
    m = check_count("particles", particles, low=2, high=100_000)
    b = min(check_count("batch_size", batch_size, high=1_000_000), data.train_y.size)
    passes = check_count("passes", passes, high=10_000)
    checkpoints = check_count("checkpoints", checkpoints, high=10_000)
    return data, m, b, passes, checkpoints


def _batches(rng, n, b, passes):
    """Minibatch index arrays: each pass a fresh permutation cut into ceil(n / b) batches."""
    for _ in range(passes):
        order = rng.permutation(n)
        for start in range(0, n, b):
            yield order[start:start + b]


def logistic_pmd(data: LogisticData, *, particles: int = 1000, batch_size: int = 10,
                 passes: int = 5, kde_passes: int = 1, bandwidth_scale: float = 1.0,
                 checkpoints: int = 20, seed=None) -> LogisticRun:
    """Particle mirror descent (Algorithm 3, the hybrid of L2137) on the logistic posterior of
    Sec 4.6.2: q_{t+1} proportional to q_t^(1 - gamma_t) (p(w) p(X_t | w)^(N / b))^gamma_t,
    gamma_t = 1/t over ``passes`` passes in minibatches of ``batch_size``. The first
    ``kde_passes`` passes use the weighted KDE (eqs 4.7-4.8, ``particles`` resampled from q_t
    every step, tempered sub-steps keeping the ESS >= MIN_ESS m); then ``particles`` draws from
    the KDE are reweighted (eq 4.6 with the KDE as base density) for the rest. The test
    error and log likelihood of the predictive are recorded at log-spaced checkpoints."""
    data, m, b, passes, checkpoints = _check_run(data, particles, batch_size, passes,
                                                 checkpoints)
    kde_passes = check_count("kde_passes", kde_passes, low=0, high=passes)
    scale = check_in_range("bandwidth_scale", bandwidth_scale, 1e-3, 1e3)
    rng = as_generator(seed)
    x, y = data.train_x, data.train_y
    n, d = x.shape
    per_pass = -(-n // b)
    total = passes * per_pass
    kde_steps = kde_passes * per_pass
    record_at = checkpoint_steps(total, checkpoints)
    h = scale * m ** (-1.0 / (d + 4))
    history = {"seen": [], "error": [], "loglik": [], "ess": []}
    theta = rng.standard_normal((m, d))  # q_1 = p
    logq = _log_prior(theta)
    logw = np.full(m, -math.log(m))
    kernel, seen = None, 0
    for t, idx in enumerate(_batches(rng, n, b, passes), start=1):
        seen += idx.size
        gamma = 1.0 / t
        scale_t = n / idx.size

        def log_target(w, idx=idx, scale_t=scale_t):
            return _log_post(w, x[idx], y[idx], scale_t)[0]

        if t <= kde_steps:
            if t > 1:
                kernel = _Kernel(theta, logw, h)
                theta = kernel.draw(rng, m)
                logq = kernel.logpdf(theta)
            theta, logw = _kde_prox(rng, theta, logq, kernel, log_target, gamma, h)
            if t == kde_steps and t < total:
                kernel = _Kernel(theta, logw, h)
                theta = kernel.draw(rng, m)
                logq = kernel.logpdf(theta)
                logw = np.full(m, -math.log(m))
        else:
            logw = normalise_log((1.0 - gamma) * logw + gamma * (log_target(theta) - logq))
        if t in record_at:
            err, ll = _predictive(theta, np.exp(logw), data.test_x, data.test_y)
            history["seen"].append(seen)
            history["error"].append(err)
            history["loglik"].append(ll)
            history["ess"].append(effective_sample_size(np.exp(logw)))
    w = np.exp(logw)
    return LogisticRun(theta, w / w.sum(), "PMD", history)


def logistic_sgld(data: LogisticData, *, particles: int = 1000, batch_size: int = 10,
                  burn_in: int = 1000, step_a: float | None = None, step_b: float = 10.0,
                  step_decay: float = 0.55, checkpoints: int = 20, seed=None) -> LogisticRun:
    """Stochastic gradient Langevin dynamics (Welling and Teh 2011), Sec 4.6.2's competitor:
    w <- w + eps_t / 2 (grad log p(w) + (N / b) sum_batch grad log p(y | x, w)) + N(0, eps_t I),
    eps_t = a (b0 + t)^(-decay), one chain from a prior draw; after ``burn_in`` iterations (the
    thesis's 1000) the last ``particles`` states are the samples. ``step_a`` defaults to a first
    step of half the inverse of the likelihood's largest curvature, N max_j mean(x_j^2) / 4."""
    data, m, b, _, checkpoints = _check_run(data, particles, batch_size, 1, checkpoints)
    burn_in = check_count("burn_in", burn_in, low=0, high=10_000_000)
    step_b = check_positive("step_b", step_b)
    decay = check_in_range("step_decay", step_decay, 0.0, 1.0)
    rng = as_generator(seed)
    x, y = data.train_x, data.train_y
    n, d = x.shape
    curvature = n * float(np.max(np.mean(x * x, axis=0))) / 4 + 1.0
    a = (0.5 * step_b ** decay / curvature if step_a is None
         else check_positive("step_a", step_a))
    total = burn_in + m
    record_at = checkpoint_steps(total, checkpoints)
    w = rng.standard_normal((1, d))
    chain = np.empty((total, d))
    history = {"seen": [], "error": [], "loglik": [], "ess": []}
    batches = _batches(rng, n, b, -(-total * b // n) + 1)
    seen = 0
    for t in range(total):
        idx = next(batches)
        seen += idx.size
        eps = a * (step_b + t) ** -decay
        grad = _log_post(w, x[idx], y[idx], n / idx.size)[1]
        w = w + 0.5 * eps * grad + math.sqrt(eps) * rng.standard_normal((1, d))
        if not np.all(np.abs(w) < 1e6):
            raise ValueError(f"SGLD diverged at iteration {t}: use a smaller step_a (got {a:g})")
        chain[t] = w[0]
        if t + 1 in record_at:
            first = burn_in if t + 1 > burn_in else 0
            cloud = chain[max(first, t + 1 - m):t + 1]
            err, ll = _predictive(cloud, np.full(cloud.shape[0], 1.0 / cloud.shape[0]),
                                  data.test_x, data.test_y)
            history["seen"].append(seen)
            history["error"].append(err)
            history["loglik"].append(ll)
            history["ess"].append(float(cloud.shape[0]))
    samples = chain[burn_in:]
    return LogisticRun(samples, np.full(m, 1.0 / m), "SGLD", history)


@dataclass(frozen=True)
class LogisticComparison:
    """``compare_logistic``: the ``data``, the MALA ``reference``, per method the ``runs``
    (one per repeat) and the final ``error`` and ``loglik`` (arrays over repeats), and per
    method and repeat the largest gap between its posterior mean and the reference's in
    reference standard deviations (``mean_gap``)."""

    data: LogisticData
    reference: Reference
    runs: dict
    error: dict
    loglik: dict
    mean_gap: dict
    settings: dict


def compare_logistic(data: LogisticData, *, particles: int = 1000, batch_size: int = 10,
                     passes: int = 5, repeats: int = 10, reference_steps: int = 5000,
                     checkpoints: int = 20, seed: int = 0, progress=None) -> LogisticComparison:
    """Sec 4.6.2 / Fig 4.2 (1) at this machine's scale: PMD (``logistic_pmd``, ``passes``
    passes) and SGLD (``logistic_sgld``, burn-in 1000, ``particles`` samples) with the same
    memory (``particles``), ``repeats`` seeds each, against a long MALA reference
    (``reference_posterior``, 4 chains of ``reference_steps``): test error and test log
    likelihood of each posterior predictive against the data visited."""
    data = check_instance("data", data, LogisticData)
    m = check_count("particles", particles, low=2, high=100_000)
    repeats = check_count("repeats", repeats, high=1000)
    reference_steps = check_count("reference_steps", reference_steps, low=4, high=10_000_000)
    seed = check_count("seed", seed, low=0, high=2**32 - 1)
    progress = check_progress(progress)
    seeds = np.random.SeedSequence(seed).spawn(1 + 2 * repeats)
    report(progress, 0.0, "MALA reference")
    ref = reference_posterior(data, steps=reference_steps, burn_in=min(1000, reference_steps),
                              seed=np.random.default_rng(seeds[0]))
    runs = {name: [] for name in LOGISTIC_METHODS}
    for r in range(repeats):
        runs["PMD"].append(logistic_pmd(data, particles=m, batch_size=batch_size, passes=passes,
                                        checkpoints=checkpoints,
                                        seed=np.random.default_rng(seeds[1 + 2 * r])))
        runs["SGLD"].append(logistic_sgld(data, particles=m, batch_size=batch_size,
                                          checkpoints=checkpoints,
                                          seed=np.random.default_rng(seeds[2 + 2 * r])))
        report(progress, (r + 1) / repeats, f"repeat {r + 1} of {repeats}")
    error = {k: np.array([run.history["error"][-1] for run in v]) for k, v in runs.items()}
    loglik = {k: np.array([run.history["loglik"][-1] for run in v]) for k, v in runs.items()}
    gap = {k: np.array([np.max(np.abs(run.weights @ run.particles - ref.mean) / ref.sd)
                        for run in v]) for k, v in runs.items()}
    settings = dict(particles=m, batch_size=batch_size, passes=passes, repeats=repeats,
                    reference_steps=reference_steps)
    return LogisticComparison(data, ref, runs, error, loglik, gap, settings)
