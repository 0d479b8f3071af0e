"""Algorithm 4 of Dai's thesis (Embedding-SGD) on random Fourier features with the l2 regularisers
of eq C.7, the two baselines of Sec 5.6.1 (SGD with virtual samples, SGD-SAA) and plain regression
on the noisy inputs, all with the thesis's step eta / (eta0 + sqrt(i)) (see the package's
docstring)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..checks import (MAX_ABS, as_generator, check_array, check_choice, check_count,
                       check_positive, check_progress, report)
from .task import INPUT_NOISE, truth

__all__ = ["DIVERGED", "INTERIOR", "METHODS", "METHOD_NAMES", "step_size", "MethodRun",
           "fit_method", "EmbeddingRun", "embedding_sgd"]

#: A run whose averaged fit leaves DIVERGED (1 + max |y|) on the test inputs has diverged.
DIVERGED = 100.0
#: The interior of the input interval: |x~| <= INTERIOR, away from the ends where the virtual
#: samples' law N(x, 0.05^2) ignores that x~ stops at +-0.5.
INTERIOR = 0.4
#: The methods ``fit_method`` runs: Embedding-SGD (Algorithm 4), the two baselines of Sec 5.6.1
#: and plain regression of y on the noisy x.
METHODS = ("embedding", "virtual", "saa", "plain")
#: The thesis's names of the methods.
METHOD_NAMES = {"embedding": "Embedding-SGD", "virtual": "SGD with virtual samples",
                "saa": "SGD-SAA", "plain": "plain regression"}


def step_size(i, *, eta: float, eta0: float):
    """The step of Sec 5.6.1, gamma_i = eta / (eta0 + sqrt(i)), at the steps ``i`` (integers
    >= 1, a scalar or an array). eta0 = 0 is Theorem 22's gamma / sqrt(i)."""
    eta = check_positive("eta", eta)
    eta0 = check_positive("eta0", eta0, allow_zero=True)
    if eta0 > MAX_ABS or eta > MAX_ABS:
        raise ValueError(f"eta and eta0 must be at most {MAX_ABS:g}, got {eta:g} and {eta0:g}")
    if isinstance(i, (bool, np.bool_)) or (isinstance(i, np.ndarray) and i.dtype == bool):
        raise ValueError(f"i must hold integers >= 1, got the flag {i!r}")
    steps = check_array("i", i, max_abs=MAX_ABS)
    if np.any(steps < 1) or np.any(steps != np.round(steps)):
        raise ValueError(f"i must hold integers >= 1, got minimum {steps.min():g}")
    out = eta / (eta0 + np.sqrt(steps))
    return float(out[0]) if np.ndim(i) == 0 else out


class _Features:
    """Random Fourier features of a Gaussian kernel with the given bandwidths per input column:
    phi(v) = sqrt(2 / D) cos(W v + c), so phi(v) . phi(v') ~ exp(-|(v - v') / bw|^2 / 2).

    In float32: its cosine is about 10 times faster than float64's (SIMD), and a phase
    W v + c of at most a few hundred keeps an absolute error near 1e-5."""

    def __init__(self, count: int, bandwidths, rng: np.random.Generator):
        bandwidths = np.asarray(bandwidths, float)
        self.W = (rng.standard_normal((count, len(bandwidths))) / bandwidths).astype(np.float32)
        self.c = rng.uniform(0.0, 2.0 * np.pi, count).astype(np.float32)
        self.norm = np.float32(np.sqrt(2.0 / count))

    def __call__(self, V: np.ndarray) -> np.ndarray:
        arg = V.astype(np.float32) @ self.W.T
        arg += self.c
        np.cos(arg, out=arg)
        arg *= self.norm
        return arg


class _FitErrors:
    """Test errors of a run's averaged fit ``fit`` of the truth ``target`` on the noiseless
    test inputs ``grid``: over all of them, and over the interior |x~| <= ``INTERIOR``."""

    @property
    def mse(self) -> float:
        return float(np.mean((self.fit - self.target) ** 2))

    @property
    def mse_interior(self) -> float:
        inside = np.abs(self.grid) <= INTERIOR
        return float(np.mean((self.fit[inside] - self.target[inside]) ** 2))


@dataclass(frozen=True)
class MethodRun(_FitErrors):
    """One run of ``fit_method``: the averaged fit of f at the noiseless test inputs ``grid``,
    the truth ``target`` there, and ``history`` (data visited ``seen``, test MSE ``mse`` on all
    test inputs and ``mse_interior`` on those with |x~| <= ``INTERIOR``, at log-spaced
    steps); ``options`` the method's constants."""

    method: str
    grid: np.ndarray
    target: np.ndarray
    fit: np.ndarray
    history: dict
    options: dict


def _check_data(x, y, batch_size):
    x_in, x = x, check_array("x", x, ndim=1, max_abs=MAX_ABS)
    if np.ndim(x_in) != 1:  # (check_array reads a scalar as one datum)
        raise ValueError(f"x must be a 1-d array of data, got the scalar {x_in!r}")
    if len(x) == 0:
        raise ValueError("x must hold at least one datum")
    y = check_array("y", y, shape=x.shape, max_abs=MAX_ABS)
    m = check_count("batch_size", batch_size, low=1, high=len(x))
    return x, y, m


def _check_test_inputs(test_inputs, test_points):
    if test_inputs is None:
        test_points = check_count("test_points", test_points, low=2, high=100_000)
        return np.linspace(-0.5, 0.5, test_points)
    if np.ndim(test_inputs) != 1:  # (check_array reads a scalar as one input)
        raise ValueError(f"test_inputs must be a 1-d array of inputs, got {test_inputs!r}")
    grid = check_array("test_inputs", test_inputs, ndim=1, max_size=100_000, max_abs=MAX_ABS)
    if len(grid) == 0:
        raise ValueError("test_inputs must hold at least one input")
    return grid


def _check_options(eta, eta0, lam_f, lam_u, virtual_samples) -> dict:
    eta = check_positive("eta", eta)
    eta0 = check_positive("eta0", eta0, allow_zero=True)
    first = step_size(1, eta=eta, eta0=eta0)
    options = dict(eta=eta, eta0=eta0)
    for name, lam in (("lam_f", lam_f), ("lam_u", lam_u)):
        lam = check_positive(name, lam, allow_zero=True)
        # eq C.7 shrinks by (1 - gamma_i lam): at 1 or beyond the first step wipes or flips f
        if first * lam >= 1.0:
            raise ValueError(f"{name} must be below (eta0 + 1) / eta = {1 / first:g} so that "
                             f"the shrinkage 1 - gamma_1 {name} of eq C.7 stays positive, got "
                             f"{lam:g}")
        options[name] = lam
    options["virtual_samples"] = check_count("virtual_samples", virtual_samples, high=1000)
    return options


def _train(method, x, y, m, psi, phi, rng, options, grid, virtual_noise, checkpoints,
           progress, share=(0.0, 1.0), target=None, marks=None, grid_y=None):
    """One pass of ``method`` over (x, y), ``m`` data a step; returns the fit at ``grid`` and
    the history. The output is the average of the iterates weighted by the steps (Algorithm 4's
    output, Theorem 22). ``target``: the truth at ``grid`` (default: the task's); with
    ``marks`` (steps) the history also holds the averaged f at ``grid`` there ("fits", step 0
    is f = 0) and, given ``grid_y``, the averaged dual u(grid, grid_y) ("duals")."""
    eta, eta0, lam_f, lam_u = options["eta"], options["eta0"], options["lam_f"], options["lam_u"]
    M = options["virtual_samples"] if method != "plain" else 1
    noise = virtual_noise if method != "plain" else 0.0
    target = truth(grid) if target is None else target
    inside = np.abs(grid) <= INTERIOR
    psi_grid = psi(grid[:, None])
    w_f = np.zeros(psi.W.shape[0])
    w_u = np.zeros(phi.W.shape[0]) if method == "embedding" else None
    avg_f, weight = np.zeros_like(w_f), 0.0
    avg_u = np.zeros_like(w_u) if w_u is not None else None
    steps = len(x) // m
    snapshots = marks is not None
    if snapshots:
        marks = set(int(k) for k in marks)
    else:
        marks = set(np.unique(np.r_[np.geomspace(1, steps, max(2, checkpoints)).astype(int),
                                    steps]).tolist())
    history = {"seen": [], "mse": [], "mse_interior": []}
    if snapshots:
        history["fits"] = [np.zeros(len(grid))]
        phi_grid = phi(np.column_stack([grid, grid_y])) if grid_y is not None else None
        if phi_grid is not None:
            history["duals"] = [np.zeros(len(grid))]
    limit = DIVERGED * (1.0 + float(np.max(np.abs(y))))
    for i in range(1, steps + 1):
        xb, yb = x[(i - 1) * m:i * m], y[(i - 1) * m:i * m]
        z = np.repeat(xb, M) + noise * rng.standard_normal(m * M) if noise else np.repeat(xb, M)
        psi_z = psi(z[:, None])                        # (m M, D): M virtual samples a datum
        f_z = (psi_z @ w_f.astype(np.float32)).reshape(m, M)
        gamma = eta / (eta0 + np.sqrt(i))
        if method == "embedding":
            phi_xy = phi(np.column_stack([xb, yb]))
            u = phi_xy @ w_u.astype(np.float32)
            # eq C.7: f's gradient u(x, y) E_z psi(z), u's [E_z f(z) - grad l*(u)] phi(x, y);
            # the M virtual samples of a datum estimate its E_z (M = 1: Algorithm 4)
            grad_f = psi_z.T @ np.repeat(u / M, M) / m
            grad_u = phi_xy.T @ (f_z.mean(1) - yb - u).astype(np.float32) / m
            w_u *= 1.0 - gamma * lam_u
            w_u += gamma * grad_u
        elif method == "saa":     # (mean_j f(z_ij) - y_i) mean_j psi(z_ij)
            grad_f = psi_z.T @ np.repeat((f_z.mean(1) - yb) / M, M).astype(np.float32) / m
        else:                     # virtual samples, plain: mean_ij (f(z_ij) - y_i) psi(z_ij)
            grad_f = psi_z.T @ (f_z - yb[:, None]).ravel().astype(np.float32) / (m * M)
        w_f *= 1.0 - gamma * lam_f
        w_f -= gamma * grad_f
        weight += gamma
        avg_f += (gamma / weight) * (w_f - avg_f)
        if avg_u is not None:
            avg_u += (gamma / weight) * (w_u - avg_u)
        if i in marks:
            fit = psi_grid @ avg_f
            _check_stable(method, fit, limit, i * m, options)
            if snapshots:
                history["fits"].append(fit)
                if phi_grid is not None:
                    history["duals"].append(phi_grid @ avg_u)
            history["seen"].append(i * m)
            history["mse"].append(float(np.mean((fit - target) ** 2)))
            history["mse_interior"].append(float(np.mean((fit[inside] - target[inside]) ** 2))
                                           if inside.any() else float("nan"))
            report(progress, share[0] + (share[1] - share[0]) * i / steps,
                   f"{METHOD_NAMES[method]}: {i * m:,} of {steps * m:,} data")
    return psi_grid @ avg_f, {k: np.asarray(v) for k, v in history.items()}


def _check_stable(method, fit, limit, seen, options):
    """Stop a run whose averaged iterate left the data's range (or stopped being finite)."""
    size = float(np.max(np.abs(fit)))
    if not size <= limit:  # also NaN
        raise ValueError(
            f"{method} diverged after {seen:,} data: its fit reached {size:.3g} on the test "
            f"inputs, beyond {DIVERGED:g} (1 + max |y|) = {limit:.3g}. The step eta = "
            f"{options['eta']:g}, eta0 = {options['eta0']:g} (gamma_i = eta / (eta0 + "
            "sqrt(i))) is too large for these kernels: use a smaller eta or a larger eta0")


def _prepare(x, y, batch_size, eta, eta0, lam_f, lam_u, virtual_samples, bandwidth_f,
             bandwidth_u, dual_y_scale, features_f, features_u, virtual_noise, test_inputs,
             test_points, checkpoints, progress, seed):
    """The checked inputs of a run (``fit_method``, ``embedding_sgd``), each bad one refused by
    name, and its random Fourier features: psi for f on x, phi for the dual u on (x, y)."""
    x, y, m = _check_data(x, y, batch_size)
    options = _check_options(eta, eta0, lam_f, lam_u, virtual_samples)
    bandwidth_f = check_positive("bandwidth_f", bandwidth_f)
    bandwidth_u = check_positive("bandwidth_u", bandwidth_u)
    dual_y_scale = check_positive("dual_y_scale", dual_y_scale)
    features_f = check_count("features_f", features_f, low=1, high=100_000)
    features_u = check_count("features_u", features_u, low=1, high=100_000)
    virtual_noise = check_positive("virtual_noise", virtual_noise, allow_zero=True)
    grid = _check_test_inputs(test_inputs, test_points)
    checkpoints = check_count("checkpoints", checkpoints, low=1, high=10_000)
    progress = check_progress(progress)
    if len(x) // m == 0:
        raise ValueError(f"batch_size {m} is larger than the {len(x)} data")
    rng = as_generator(seed)
    psi = _Features(features_f, [bandwidth_f], rng)
    phi = _Features(features_u, [bandwidth_u, bandwidth_u / dual_y_scale], rng)
    sizes = dict(bandwidth_f=bandwidth_f, bandwidth_u=bandwidth_u, dual_y_scale=dual_y_scale,
                 features_f=features_f, features_u=features_u)
    return (x, y, m, options, grid, checkpoints, progress, rng, psi, phi, virtual_noise,
            sizes)


def fit_method(x, y, *, method: str = "embedding", eta: float = 10.0, eta0: float = 10.0,
               lam_f: float = 1e-4, lam_u: float = 1e-4, bandwidth_f: float = 0.05,
               bandwidth_u: float = 0.1, dual_y_scale: float = 0.05, features_f: int = 500,
               features_u: int = 500, virtual_noise: float = INPUT_NOISE,
               virtual_samples: int = 1, batch_size: int = 50, seed=None,
               checkpoints: int = 25, test_points: int = 400, test_inputs=None,
               progress=None) -> MethodRun:
    """One method of Sec 5.6.1 on the data (x, y), one pass, ``batch_size`` data a step, step
    gamma_i = eta / (eta0 + sqrt(i)), l2 weights ``lam_f`` on f and ``lam_u`` on u (eq C.7:
    theta <- (1 - gamma_i lam_f) theta - gamma_i grad), ``virtual_samples`` draws
    z ~ N(x, ``virtual_noise``^2) a datum, f on random Fourier features of a Gaussian kernel.

    ``method``: "embedding" (Algorithm 4 on eq C.7's saddle point, the dual u on (x, y) with y
    read times ``dual_y_scale``), "virtual" (SGD with virtual samples: the upper bound
    E_{x,y,z} (f(z) - y)^2 / 2), "saa" (SGD-SAA: (mean_j f(z_j) - y)^2 / 2) or "plain" (f(x) ~
    y, no virtual samples). Scored on the noiseless ``test_inputs`` (default ``test_points``
    points on [-0.5, 0.5]) against ``truth``."""
    method = check_choice("method", method, METHODS)
    (x, y, m, options, grid, checkpoints, progress, rng, psi, phi, virtual_noise,
     sizes) = _prepare(x, y, batch_size, eta, eta0, lam_f, lam_u, virtual_samples, bandwidth_f,
                       bandwidth_u, dual_y_scale, features_f, features_u, virtual_noise,
                       test_inputs, test_points, checkpoints, progress, seed)
    with np.errstate(over="ignore", invalid="ignore"):  # a diverging run raises at a mark
        fit, history = _train(method, x, y, m, psi, phi, rng, options, grid, virtual_noise,
                              checkpoints, progress)
    options.update(sizes, virtual_noise=virtual_noise, batch_size=m)
    return MethodRun(method, grid, truth(grid), fit, history, options)


@dataclass(frozen=True)
class EmbeddingRun(_FitErrors):
    """An Embedding-SGD run and its baseline, plain regression on the noisy inputs (the same
    features, steps and regulariser). ``grid``/``fit``/``baseline_fit``: their averaged fits on
    the test grid (noiseless x), ``target`` the truth there; ``history``: data visited and the
    test MSE of both at log-spaced points."""

    grid: np.ndarray
    target: np.ndarray
    fit: np.ndarray
    baseline_fit: np.ndarray
    history: dict

    @property
    def baseline_mse(self) -> float:
        return float(np.mean((self.baseline_fit - self.target) ** 2))


def embedding_sgd(x, y, *, batch_size: int = 50, eta: float = 10.0, eta0: float = 10.0,
                  lam_f: float = 1e-4, lam_u: float = 1e-4, bandwidth_f: float = 0.05,
                  bandwidth_u: float = 0.1, dual_y_scale: float = 0.05, features_f: int = 500,
                  features_u: int = 500, virtual_noise: float = INPUT_NOISE, seed=None,
                  checkpoints: int = 25, test_points: int = 400, progress=None) -> EmbeddingRun:
    """Algorithm 4 (eq C.7's regularised saddle point, step gamma_i = eta / (eta0 + sqrt(i)))
    on the data (x, y) in order (one pass, ``batch_size`` data a step), one virtual sample
    z ~ N(x, ``virtual_noise``^2) a datum, and the baseline (plain SGD of f(x) ~ y on the same
    features, steps and l2 weight ``lam_f``); both scored on noiseless test inputs in
    [-0.5, 0.5] (Sec 5.5). ``fit_method`` runs one method, the thesis's baselines included."""
    (x, y, m, options, grid, checkpoints, progress, rng, psi, phi, virtual_noise,
     _) = _prepare(x, y, batch_size, eta, eta0, lam_f, lam_u, 1, bandwidth_f, bandwidth_u,
                   dual_y_scale, features_f, features_u, virtual_noise, None, test_points,
                   checkpoints, progress, seed)
    with np.errstate(over="ignore", invalid="ignore"):  # a diverging run raises at a mark
        fit, history = _train("embedding", x, y, m, psi, phi, rng, options, grid,
                              virtual_noise, checkpoints, progress, share=(0.0, 0.6))
        base, base_history = _train("plain", x, y, m, psi, phi, rng, options, grid, 0.0,
                                    checkpoints, progress, share=(0.6, 1.0))
    history = dict(history, baseline_mse=base_history["mse"])
    return EmbeddingRun(grid, truth(grid), fit, base, history)
