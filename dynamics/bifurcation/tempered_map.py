"""The tempered gradient map of eq 1.9: single trajectories, the bifurcation diagram over a grid
of temperatures, and the maximum-likelihood fixed point with the first doubling temperature."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dynamics.checks import (
    MAX_STEPS,
    check_count,
    check_features,
    check_moments,
    check_positive,
    describe,
)
from dynamics.bifurcation._kernels import (MAX_MAP_EVALUATIONS, MAX_SAMPLE_VALUES, _bifurcation_kernel, _check_model, _check_temperature, _check_temperatures, _ensure_finite, _inv, _inverse_temperatures, _trajectory_kernel)

__all__ = [
    "TemperedResult",
    "BifurcationResult",
    "tempered_trajectory",
    "bifurcation",
    "mle_parameters",
    "fixed_point",
    "first_doubling_temperature",
]


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class TemperedResult:
    """A trajectory of the tempered map (eq 1.9 in the herding scale).

    Attributes
    ----------
    weights : ndarray, shape (steps + 1, K)
        w_0, ..., w_steps; row 0 is w0.
    temperature : float
        T > 0.
    eta : float
        Step size.
    """

    weights: np.ndarray
    temperature: float
    eta: float


@dataclass(frozen=True)
class BifurcationResult:
    """Attractor samples per temperature (Fig 1.1 right).

    Attributes
    ----------
    temperatures : ndarray, shape (n,)
        The temperatures, in the order given.
    samples : ndarray, shape (n, keep, K)
        samples[i, j] = w_{burn_in + j} at temperatures[i]: rows burn_in .. burn_in + keep - 1
        of ``tempered_trajectory(..., temperatures[i], steps).weights`` (any steps >= burn_in +
        keep - 1), bit for bit.
    burn_in : int
    eta : float
    """

    temperatures: np.ndarray
    samples: np.ndarray
    burn_in: int
    eta: float


# --------------------------------------------------------------------------------------------
# Trajectories and diagrams
# --------------------------------------------------------------------------------------------
def tempered_trajectory(features, moments, temperature: float, steps: int, *, w0=None,
                        eta: float = 1.0) -> TemperedResult:
    """Iterate gradient ascent on the tempered MRF log-likelihood with a constant step.

    Eq 1.9 of Chen & Welling (Sec 1.2.2) multiplied by T, i.e. the gradient step on eq 1.6:

        w_{t+1} = w_t + eta (phi_bar - E_{p_T(w_t)}[phi]),   p_T(x | w) ∝ exp(w . phi(x) / T).

    As T -> 0 this is herding (eqs 1.7-1.8), with exact ties averaged rather than sent to the
    lowest index; at high T it converges to w* = T theta* (`fixed_point`).

    Parameters
    ----------
    features : array_like, shape (D, K)
        Row d is phi(x_d); finite, 2 <= D.
    moments : array_like, shape (K,)
        Target moments phi_bar.
    temperature : float
        T > 0 (any positive double, even 1e-300). For T = 0 use ``dynamics.herding.herd``.
    steps : int
        Number of map applications, >= 1, with (steps + 1) * K <= MAX_SAMPLE_VALUES.
    w0 : array_like, shape (K,), optional
        Initial weights; None means zeros.
    eta : float
        Step size > 0.

    Returns
    -------
    TemperedResult
        ``weights`` (steps + 1, K) with row 0 = w0.
    """
    phi, phi_bar, w, eta = _check_model(features, moments, w0, eta)
    T = _check_temperature(temperature)
    K = phi.shape[1]
    steps = check_count("steps", steps, high=min(MAX_STEPS, MAX_SAMPLE_VALUES // K - 1))
    out = np.empty((steps + 1, K))
    out[0] = w
    _trajectory_kernel(phi, phi_bar, _inv(T), eta, out)
    _ensure_finite(out, "the trajectory")
    return TemperedResult(weights=out, temperature=T, eta=eta)


def bifurcation(features, moments, temperatures, *, burn_in: int, keep: int, w0=None,
                eta: float = 1.0) -> BifurcationResult:
    """Attractor of the tempered map at each temperature: the bifurcation diagram of Fig 1.1.

    Runs eq 1.9 (herding scale, see `tempered_trajectory`) from the same w0 at every temperature,
    discards ``burn_in`` steps and keeps the next ``keep`` weights. The temperatures run in
    parallel (numba prange over blocks of LANES temperatures, vectorized inside a block).

    Parameters
    ----------
    features : array_like, shape (D, K)
    moments : array_like, shape (K,)
    temperatures : array_like, shape (n,)
        Finite temperatures > 0, any order.
    burn_in : int
        Steps discarded, >= 0.
    keep : int
        Weights kept per temperature, >= 1.
    w0 : array_like, shape (K,), optional
        Initial weights (zeros when None).
    eta : float
        Step size > 0.

    Returns
    -------
    BifurcationResult
        ``samples`` (n, keep, K): samples[i, j] = w_{burn_in + j} at temperatures[i].

    Raises
    ------
    ValueError
        Bad shapes or values, n * keep * K > MAX_SAMPLE_VALUES (2**26, 512 MiB) or
        n * (burn_in + keep) > MAX_MAP_EVALUATIONS.
    """
    phi, phi_bar, w, eta = _check_model(features, moments, w0, eta)
    temps = _check_temperatures(temperatures)
    burn_in = check_count("burn_in", burn_in, low=0)
    keep = check_count("keep", keep, low=1)
    n, K = temps.size, phi.shape[1]
    if n * keep * K > MAX_SAMPLE_VALUES:
        raise ValueError(
            f"len(temperatures) * keep * K must be <= MAX_SAMPLE_VALUES = {MAX_SAMPLE_VALUES}, "
            f"got {n} * {keep} * {K} = {n * keep * K}"
        )
    if n * (burn_in + keep) > MAX_MAP_EVALUATIONS:
        raise ValueError(
            f"len(temperatures) * (burn_in + keep) must be <= MAX_MAP_EVALUATIONS = "
            f"{MAX_MAP_EVALUATIONS}, got {n} * {burn_in + keep} = {n * (burn_in + keep)}"
        )
    out = np.empty((n, keep, K))
    _bifurcation_kernel(phi, phi_bar, _inverse_temperatures(temps), eta, w, burn_in, keep, out)
    _ensure_finite(out, "the bifurcation diagram")
    return BifurcationResult(temperatures=temps, samples=out, burn_in=burn_in, eta=eta)



# --------------------------------------------------------------------------------------------
# Fixed point (maximum likelihood) and the first doubling
# --------------------------------------------------------------------------------------------
def mle_parameters(features, moments) -> np.ndarray:
    """Natural parameters theta* of the moment-matching MRF: E_{p(theta*)}[phi] = phi_bar.

    The maximum-likelihood / maximum-entropy solution of eqs 1.1-1.4 (the paper's w' = w/T in
    eq 1.9), by damped Newton on the convex log Z(theta) - theta . phi_bar. With features that do
    not span R^K the minimum-norm solution is returned.

    Raises
    ------
    ValueError
        If the moments are not strictly inside the convex hull of the feature rows (no finite
        theta*), detected as Newton not converging.
    """
    phi = check_features(features)
    phi_bar = check_moments(moments, phi.shape[1])
    K = phi.shape[1]
    theta = np.zeros(K)
    scale = 1.0 + np.abs(phi).max()

    def objective(th):
        s = phi @ th
        smax = s.max()
        return smax + np.log(np.exp(s - smax).sum()) - th @ phi_bar

    def gradient(th):
        s = phi @ th
        p = np.exp(s - s.max())
        p /= p.sum()
        mean = p @ phi
        return mean - phi_bar, p, mean

    for _ in range(200):
        grad, p, mean = gradient(theta)
        gnorm = np.linalg.norm(grad)
        if gnorm < 1e-13 * scale:
            return theta
        centred = phi - mean
        hess = (centred * p[:, None]).T @ centred
        step = -np.linalg.lstsq(hess, grad, rcond=1e-14)[0]
        if np.linalg.norm(step) < 1e-15 * (1.0 + np.linalg.norm(theta)) and gnorm < 1e-9 * scale:
            return theta  # at the round-off floor of the gradient
        # Armijo backtracking; near the optimum f is flat to round-off, so a step that halves
        # the gradient norm is accepted too
        f0, alpha = objective(theta), 1.0
        while alpha > 1e-12:
            trial = theta + alpha * step
            if objective(trial) <= f0 + 1e-4 * alpha * (grad @ step):
                break
            if np.linalg.norm(gradient(trial)[0]) < 0.5 * gnorm:
                break
            alpha *= 0.5
        theta = theta + alpha * step
        if not np.all(np.isfinite(theta)):
            break
    raise ValueError(
        "moments must lie strictly inside the convex hull of the rows of features (no finite "
        f"maximum-likelihood parameters), got moments {describe(phi_bar)}"
    )


def fixed_point(features, moments, temperature: float) -> np.ndarray:
    """The fixed point w* = T theta* of the tempered map (eq 1.9), where E_{p_T(w*)}[phi] = phi_bar."""
    T = _check_temperature(temperature)
    return T * mle_parameters(features, moments)


def first_doubling_temperature(features, moments, *, eta: float = 1.0) -> float:
    """T_1 = eta * lambda_max(Cov_{p*}(phi)) / 2: where the fixed point of eq 1.9 first doubles.

    Derived from the Jacobian at the fixed point, J = I - (eta / T) C with C = Cov_{p*}(phi) and
    p* the moment-matching distribution (independent of T): its eigenvalues 1 - eta c_i / T lie in
    (-1, 1) for T > T_1 and the largest-c one crosses -1 at T_1.
    """
    phi = check_features(features)
    eta = check_positive("eta", eta)
    theta = mle_parameters(phi, moments)
    s = phi @ theta
    p = np.exp(s - s.max())
    p /= p.sum()
    centred = phi - p @ phi
    cov = (centred * p[:, None]).T @ centred
    return float(eta * np.linalg.eigvalsh(cov).max() / 2.0)


