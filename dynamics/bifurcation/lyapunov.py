"""Lyapunov exponents of the tempered map across temperatures (QR iteration of the Jacobians)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dynamics.checks import (
    check_count,
)
from dynamics.bifurcation._kernels import (MAX_LYAPUNOV_EVALUATIONS, _check_model, _check_temperature, _check_temperatures, _ensure_finite, _inverse_temperatures, _lyapunov_kernel)

__all__ = [
    "LyapunovResult",
    "LyapunovSweep",
    "lyapunov_exponent",
    "lyapunov_sweep",
]


@dataclass(frozen=True)
class LyapunovResult:
    """Lyapunov spectrum of the tempered map along one orbit.

    Attributes
    ----------
    exponents : ndarray, shape (K,)
        The K exponents in nats per step, in decreasing order.
    largest : float
        exponents[0].
    temperature : float
    """

    exponents: np.ndarray
    largest: float
    temperature: float


@dataclass(frozen=True)
class LyapunovSweep:
    """Lyapunov spectra across temperatures.

    Attributes
    ----------
    temperatures : ndarray, shape (n,)
    exponents : ndarray, shape (n, K)
        Per temperature, the K exponents in decreasing order.
    largest : ndarray, shape (n,)
        exponents[:, 0].
    """

    temperatures: np.ndarray
    exponents: np.ndarray
    largest: np.ndarray



# --------------------------------------------------------------------------------------------
# Lyapunov exponents
# --------------------------------------------------------------------------------------------
def lyapunov_sweep(features, moments, temperatures, steps: int, *, burn_in: int = 1000, w0=None,
                   eta: float = 1.0) -> LyapunovSweep:
    """Lyapunov spectrum of the tempered map (eq 1.9) at each temperature, in parallel.

    QR (Benettin) method with the exact Jacobian J(w) = I - (eta / T) Cov_{p_T(w)}(phi) along the
    orbit started at w0 after ``burn_in`` steps: lambda_i = (1 / steps) sum_t log R_ii(t). At an
    attracting fixed point lambda_1 = log of the spectral radius of J there; at a period-doubling
    temperature lambda_1 -> 0; in the herding limit T -> 0, J -> I and all exponents -> 0
    (Sec 1.2.6). Jacobian entries are clipped to 1e300 and R_ii floored at 1e-300 so the result
    is always finite.

    Parameters
    ----------
    features, moments, w0, eta : as in `tempered_trajectory`.
    temperatures : array_like, shape (n,)
        Finite temperatures > 0.
    steps : int
        Steps averaged, >= 1.
    burn_in : int
        Steps discarded first, >= 0. n * (burn_in + steps) <= MAX_LYAPUNOV_EVALUATIONS.

    Returns
    -------
    LyapunovSweep
        ``exponents`` (n, K) decreasing per row, ``largest`` (n,).
    """
    phi, phi_bar, w, eta = _check_model(features, moments, w0, eta)
    temps = _check_temperatures(temperatures)
    steps = check_count("steps", steps)
    burn_in = check_count("burn_in", burn_in, low=0)
    n, K = temps.size, phi.shape[1]
    work = n * (burn_in + steps)
    if work > MAX_LYAPUNOV_EVALUATIONS:
        raise ValueError(
            f"len(temperatures) * (burn_in + steps) must be <= MAX_LYAPUNOV_EVALUATIONS = "
            f"{MAX_LYAPUNOV_EVALUATIONS}, got {n} * {burn_in + steps} = {work}"
        )
    out = np.empty((n, K))
    _lyapunov_kernel(phi, phi_bar, _inverse_temperatures(temps), eta, w, burn_in, steps, out)
    _ensure_finite(out, "the Lyapunov exponents")
    out = -np.sort(-out, axis=1)
    return LyapunovSweep(temperatures=temps, exponents=out, largest=out[:, 0].copy())


def lyapunov_exponent(features, moments, temperature: float, steps: int, *, burn_in: int = 1000,
                      w0=None, eta: float = 1.0) -> LyapunovResult:
    """Lyapunov spectrum of the tempered map (eq 1.9) at one temperature; see `lyapunov_sweep`."""
    T = _check_temperature(temperature)
    sweep = lyapunov_sweep(features, moments, np.array([T]), steps, burn_in=burn_in, w0=w0,
                           eta=eta)
    exps = sweep.exponents[0]
    return LyapunovResult(exponents=exps, largest=float(exps[0]), temperature=T)


