"""Temperature bifurcations: from maximum likelihood (a fixed point) to herding (edge of chaos).

Implements Sec 1.2.2 of Chen & Welling, *Herding as a Learning System with Edge-of-Chaos
Dynamics* (seed paper ``000``): gradient ascent with a constant step on the tempered MRF
log-likelihood of eq 1.6, written in the herding scale of eqs 1.7-1.9,

    w_{t+1} = w_t + eta (phi_bar - E_{p_T(w_t)}[phi]),      p_T(x | w) ∝ exp(w . phi(x) / T),

which is eq 1.9 multiplied by T (the paper's w' = w / T are the natural parameters of the MRF).
Its Jacobian is J(w) = I - (eta / T) Cov_{p_T(w)}(phi), so only eta / T matters (up to the scale
of w). At high T the map contracts to the maximum-likelihood fixed point w* = T theta*, where
E_{p(theta*)}[phi] = phi_bar (moment matching, eq 1.1). As T falls the attractor splits into 2, 4,
8, ... points (Fig 1.1 left) up to an accumulation temperature below which the motion is
aperiodic; at T -> 0 the map becomes herding (eqs 1.7-1.8, `dynamics.herding.herd`).

Derived here (not stated in the paper): the fixed point loses stability when the lowest
eigenvalue of J there, 1 - eta c_max / T, crosses -1, i.e. at the first period-doubling
temperature T_1 = eta * c_max / 2, with c_max the largest eigenvalue of Cov_{p*}(phi) and p* the
moment-matching (max-entropy) distribution (`first_doubling_temperature`). Later doublings are
located numerically (`refine_doubling`) as the temperature where a multiplier of the 2^n-cycle's
monodromy matrix crosses -1. Measured on random 4-state, 2-feature models (seeds 0-99 of
`dynamics.herding.random_model`, eta = 1): 71 show a cascade of >= 3 doublings (most followed to
period 512-2048, with interval ratios converging to Feigenbaum's 4.6692, see DEFAULT_SEED), 7 stop
after the second doubling and 22 after the first (the 2-cycle then loses stability another way),
consistent with the paper's "observed very often".

Conventions: ``features`` is the (D, K) table whose row d is phi(x_d); ``moments`` is phi_bar (K,);
``temperature`` T > 0 strictly (T = 0 is herding: use `dynamics.herding.herd`).

Numerics: the softmax subtracts the largest score *before* dividing by T, so any T > 0 works
(T = 1e-300 gives the herding limit with exact ties averaged instead of sent to the lowest index).
1/T is capped at the largest double. The kernels use a branch-free exp(x) for x <= 0 (Cody-Waite
reduction and a degree-13 Taylor polynomial, relative error ~1e-16, flushing below exp(-708))
which LLVM vectorizes across temperatures; all kernels share it, so a single trajectory and a row
of the bifurcation diagram agree bit for bit. Kernels allow only the ``contract`` fast-math flag
(a * b + c fused into one FMA, no reassociation), which keeps that bitwise agreement.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from dynamics._common import (
    MAX_STEPS,
    check_array,
    check_count,
    check_features,
    check_moments,
    check_positive,
    describe,
)

__all__ = [
    "FEIGENBAUM_DELTA",
    "MAX_SAMPLE_VALUES",
    "MAX_MAP_EVALUATIONS",
    "MAX_LYAPUNOV_EVALUATIONS",
    "MAX_REFINE_PERIOD",
    "TemperedResult",
    "BifurcationResult",
    "PeriodDoublings",
    "DoublingPoint",
    "LyapunovResult",
    "LyapunovSweep",
    "tempered_trajectory",
    "bifurcation",
    "attractor_period",
    "periods",
    "period_doublings",
    "refine_doubling",
    "refine_doublings",
    "extend_doublings",
    "doubling_cascade",
    "lyapunov_exponent",
    "lyapunov_sweep",
    "mle_parameters",
    "fixed_point",
    "first_doubling_temperature",
    "DEFAULT_SEED",
]

#: Feigenbaum's constant delta: the limit ratio of successive period-doubling intervals of
#: generic one-parameter families with a quadratic critical point.
FEIGENBAUM_DELTA = 4.669201609102990
#: Cap on the float64 values a bifurcation diagram (len(temperatures) * keep * K) or a trajectory
#: ((steps + 1) * K) may hold: 2**26 values = 512 MiB.
MAX_SAMPLE_VALUES = 1 << 26
#: Cap on len(temperatures) * (burn_in + keep) map evaluations of one `bifurcation` call
#: (~5 s on two cores at D = 4, K = 2).
MAX_MAP_EVALUATIONS = 1_000_000_000
#: Cap on len(temperatures) * (burn_in + steps) map-and-Jacobian evaluations of `lyapunov_sweep`.
MAX_LYAPUNOV_EVALUATIONS = 200_000_000
#: Largest period `refine_doubling` handles (2**12: deeper doublings are closer than double
#: precision resolves on O(0.1) temperatures anyway).
MAX_REFINE_PERIOD = 4096
#: Temperatures per SIMD block of the bifurcation kernel (the innermost, vectorized loop).
LANES = 64
#: The study model of the bifurcation page: ``random_model(4, 2, seed=DEFAULT_SEED)`` (features
#: ~ N(0, 1), Dirichlet(1) data distribution, eta = 1), picked among seeds 0-99 because its cascade
#: is clean and its accumulation temperature is close to the paper's example (T_thresh ~ 0.116 in
#: Fig 1.1). Measured (`doubling_cascade` on linspace(0.005, 1.1 T_1, 3000), burn_in 20000,
#: extend 5): T_1 = 0.3040201 (= the analytic `first_doubling_temperature`), T_2 = 0.1793048,
#: T_3 = 0.1280342, T_4 = 0.1199762, T_5 = 0.1186055, T_6 = 0.1183285, T_7 = 0.1182700,
#: T_8 = 0.1182575, T_9 = 0.1182548, T_10 = 0.1182542 (period 1024); ratios delta_n = 2.43, 6.36,
#: 5.88, 4.95, 4.74, 4.682, 4.672, 4.6698 (Feigenbaum: 4.6692); accumulation temperature
#: T_inf = 0.1182541 (extrapolated), 0.1182491 (first persistent aperiodic grid point).
DEFAULT_SEED = 75

_DBL_MAX = np.finfo(np.float64).max
_LOG2E = 1.4426950408889634
_LN2_HI = 6.93147180369123816490e-01
_LN2_LO = 1.90821492927058770002e-10
_ROUND = 6755399441055744.0  # 1.5 * 2**52: adding and subtracting it rounds to an integer
_TINY = 1e-300


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


@dataclass(frozen=True)
class PeriodDoublings:
    """The period-doubling cascade seen while the temperature falls (Fig 1.1 left).

    Attributes
    ----------
    periods : ndarray of int64, shape (m,)
        The period after each doubling: 2, 4, 8, ... (or starting higher if the grid starts
        inside the cascade).
    temperatures : ndarray, shape (m,)
        Doubling temperatures T_1 > T_2 > ... : the refined value where ``refined`` is True,
        else the midpoint of the grid bracket.
    brackets : ndarray, shape (m, 2)
        Grid bracket [T_low, T_high] of each doubling: T_high is the last grid temperature read
        with the old period, T_low the first read with the new one (scanning downwards). For
        doublings added by `extend_doublings`, the predicted search bracket instead.
    refined : ndarray of bool, shape (m,)
        Whether ``temperatures[n]`` comes from `refine_doubling` (multiplier crossing -1).
    intervals : ndarray, shape (max(m - 1, 0),)
        T_n - T_{n+1}.
    ratios : ndarray, shape (max(m - 2, 0),)
        delta_n = (T_{n-1} - T_n) / (T_n - T_{n+1}); Feigenbaum's universal limit is 4.669.
    t_thresh_grid : float or None
        Highest grid temperature below the last doubling read as aperiodic (period 0, i.e. no
        period up to max_period) and not an isolated read (the next lower grid point also reads
        0, or it is the last one). An upper bound of the accumulation point, off by up to the
        64 -> 128 ... intervals plus the grid spacing. None when the grid never turns aperiodic
        below the cascade.
    t_thresh_extrapolated : float or None
        Geometric extrapolation of the accumulation temperature from the last interval,
        T_inf = T_m - (T_{m-1} - T_m) / (delta - 1) (temperatures fall along the cascade), with
        delta the last measured ratio (needs m >= 3) or FEIGENBAUM_DELTA (m == 2). None if m < 2.

    With no cascade the arrays are empty and the scalars None (never NaN).
    """

    periods: np.ndarray
    temperatures: np.ndarray
    brackets: np.ndarray
    refined: np.ndarray
    intervals: np.ndarray
    ratios: np.ndarray
    t_thresh_grid: float | None
    t_thresh_extrapolated: float | None


@dataclass(frozen=True)
class DoublingPoint:
    """A period-doubling bifurcation located by bisection on T (see `refine_doubling`).

    Attributes
    ----------
    temperature : float
        T_n where the cycle of period ``period // 2`` loses stability to one of period ``period``.
    period : int
        The new period.
    multiplier : float
        The critical multiplier (eigenvalue of the monodromy matrix of the old cycle) at the
        stable end of the final bracket: close to -1 for a genuine period doubling.
    cycle : ndarray, shape (period // 2, K)
        The old cycle at ``temperature`` (the points the new cycle splits from).
    """

    temperature: float
    period: int
    multiplier: float
    cycle: np.ndarray


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
# Kernels
# --------------------------------------------------------------------------------------------
@njit(inline="always", nogil=True, error_model="numpy", fastmath={"contract"})
def _exp(x):
    """exp(x) for x <= 0 (and -inf), branch-free so that loops over it vectorize.

    Cody-Waite reduction x = k ln2 + r, |r| <= ln2 / 2, a degree-13 Taylor polynomial for e^r
    (truncation < 5e-18 relative) and 2^k assembled in the exponent bits. Arguments below -708 are
    flushed to exp(-708) ~ 3e-308 (negligible next to the max state's 1).
    """
    x = max(x, -708.0)
    k = (x * _LOG2E + _ROUND) - _ROUND
    r = (x - k * _LN2_HI) - k * _LN2_LO
    p = 1.0 + r * (1.0 + r * (0.5 + r * (1.6666666666666666e-01 + r * (
        4.1666666666666664e-02 + r * (8.3333333333333332e-03 + r * (1.3888888888888889e-03 + r * (
            1.9841269841269841e-04 + r * (2.4801587301587302e-05 + r * (2.7557319223985893e-06 + r * (
                2.7557319223985888e-07 + r * (2.5052108385441720e-08 + r * (
                    2.0876756987868100e-09 + r * 1.6059043836821613e-10))))))))))))
    scale = np.int64((np.int64(k) + 1023) << 52).view(np.float64)
    return p * scale


@njit(inline="always", nogil=True, error_model="numpy", fastmath={"contract"})
def _inverse(t):
    """1 / t capped at the largest double (t > 0), so subnormal temperatures do not give inf."""
    v = 1.0 / t
    return v if v < _DBL_MAX else _DBL_MAX


@njit(inline="always", nogil=True, error_model="numpy", fastmath={"contract"})
def _softmax_moments(phi, w, inv_t, e, m):
    """Unnormalised p_T(x | w) into e (D,), unnormalised E[phi] into m (K,); returns 1 / Z.

    Scores w . phi(x) minus their max, times 1/T: every exponent is <= 0 and the max state's is 0.
    The operation order matches `_bifurcation_block` lane by lane.
    """
    D, K = phi.shape
    smax = -np.inf
    for d in range(D):
        s = 0.0
        for k in range(K):
            s += w[k] * phi[d, k]
        e[d] = s
        smax = s if s > smax else smax
    z = 0.0
    for k in range(K):
        m[k] = 0.0
    for d in range(D):
        v = _exp((e[d] - smax) * inv_t)
        e[d] = v
        z += v
        for k in range(K):
            m[k] += v * phi[d, k]
    return 1.0 / z


@njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})
def _trajectory_kernel(phi, phi_bar, inv_t, eta, out):
    """Iterate the tempered map (eq 1.9 times T) in place: out[0] = w0 on entry, shape (steps+1, K)."""
    D, K = phi.shape
    e = np.empty(D)
    m = np.empty(K)
    w = out[0].copy()
    for t in range(1, out.shape[0]):
        rz = _softmax_moments(phi, w, inv_t, e, m)
        for k in range(K):
            w[k] += eta * (phi_bar[k] - m[k] * rz)
            out[t, k] = w[k]


@njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})
def _bifurcation_block(phi, phi_bar, inv_t, eta, w, burn_in, keep, out, i0, n_valid, e, m, smax, rz):
    """Run LANES temperatures side by side (innermost loop over lanes, so it vectorizes).

    w (K, LANES) holds w0 per lane on entry; writes out[i0 + b, j] = w_{burn_in + j} for
    b < n_valid. e (D, LANES), m (K, LANES), smax and rz (LANES,) are scratch.
    """
    D, K = phi.shape
    total = burn_in + keep
    for t in range(total):
        if t >= burn_in:
            j = t - burn_in
            for b in range(n_valid):
                for k in range(K):
                    out[i0 + b, j, k] = w[k, b]
            if t == total - 1:
                break
        for b in range(LANES):
            smax[b] = -np.inf
            rz[b] = 0.0
        for d in range(D):
            for b in range(LANES):
                e[d, b] = 0.0
            for k in range(K):
                f = phi[d, k]
                for b in range(LANES):
                    e[d, b] += w[k, b] * f
            for b in range(LANES):
                v = e[d, b]
                smax[b] = v if v > smax[b] else smax[b]
        for k in range(K):
            for b in range(LANES):
                m[k, b] = 0.0
        for d in range(D):
            for b in range(LANES):
                v = _exp((e[d, b] - smax[b]) * inv_t[b])
                e[d, b] = v
                rz[b] += v
            for k in range(K):
                f = phi[d, k]
                for b in range(LANES):
                    m[k, b] += e[d, b] * f
        for b in range(LANES):
            rz[b] = 1.0 / rz[b]
        for k in range(K):
            g = phi_bar[k]
            for b in range(LANES):
                w[k, b] += eta * (g - m[k, b] * rz[b])


@njit(cache=True, nogil=True, parallel=True, error_model="numpy", fastmath={"contract"})
def _bifurcation_kernel(phi, phi_bar, inv_t, eta, w0, burn_in, keep, out):
    """Attractor samples for every temperature: blocks of LANES temperatures in parallel.

    out (n, keep, K): out[i, j] = w_{burn_in + j} at inverse temperature inv_t[i].
    """
    D, K = phi.shape
    n = inv_t.shape[0]
    n_blocks = (n + LANES - 1) // LANES
    for ib in prange(n_blocks):
        i0 = ib * LANES
        lanes_inv_t = np.empty(LANES)
        for b in range(LANES):
            lanes_inv_t[b] = inv_t[min(i0 + b, n - 1)]  # pad the last block with a real lane
        w = np.empty((K, LANES))
        for k in range(K):
            for b in range(LANES):
                w[k, b] = w0[k]
        e = np.empty((D, LANES))
        m = np.empty((K, LANES))
        smax = np.empty(LANES)
        rz = np.empty(LANES)
        _bifurcation_block(phi, phi_bar, lanes_inv_t, eta, w, burn_in, keep, out, i0,
                           min(LANES, n - i0), e, m, smax, rz)


@njit(inline="always", nogil=True, error_model="numpy", fastmath={"contract"})
def _jacobian(phi, e, rz, m, gain, jac):
    """J = I - gain * Cov_p(phi) with p = e * rz and E_p[phi] = m * rz; entries clipped to 1e300.

    Cov is accumulated as sum_x p(x) (phi(x) - mean)(phi(x) - mean)^T (no cancellation).
    """
    D, K = phi.shape
    for k in range(K):
        for l in range(K):
            jac[k, l] = 0.0
    for d in range(D):
        p = e[d] * rz
        if p == 0.0:
            continue
        for k in range(K):
            a = p * (phi[d, k] - m[k] * rz)
            for l in range(K):
                jac[k, l] += a * (phi[d, l] - m[l] * rz)
    for k in range(K):
        for l in range(K):
            c = jac[k, l]
            v = -gain * c if c != 0.0 else 0.0
            v = min(max(v, -1e300), 1e300)
            jac[k, l] = v + 1.0 if k == l else v


@njit(cache=True, nogil=True, error_model="numpy", fastmath={"contract"})
def _cycle_kernel(phi, phi_bar, inv_t, eta, w, steps, w_out, monodromy):
    """w_out = F^steps(w) and monodromy = J(w_{steps-1}) ... J(w_0) (product of Jacobians)."""
    D, K = phi.shape
    e = np.empty(D)
    m = np.empty(K)
    jac = np.empty((K, K))
    tmp = np.empty((K, K))
    gain = min(eta * inv_t, 1e300)
    for k in range(K):
        w_out[k] = w[k]
        for l in range(K):
            monodromy[k, l] = 1.0 if k == l else 0.0
    for _ in range(steps):
        rz = _softmax_moments(phi, w_out, inv_t, e, m)
        _jacobian(phi, e, rz, m, gain, jac)
        for k in range(K):
            for l in range(K):
                acc = 0.0
                for j in range(K):
                    acc += jac[k, j] * monodromy[j, l]
                tmp[k, l] = acc
        for k in range(K):
            for l in range(K):
                monodromy[k, l] = tmp[k, l]
        for k in range(K):
            w_out[k] += eta * (phi_bar[k] - m[k] * rz)


@njit(inline="always", nogil=True, error_model="numpy", fastmath={"contract"})
def _scaled_norm(v, n):
    big = 0.0
    for i in range(n):
        a = abs(v[i])
        big = a if a > big else big
    if big == 0.0:
        return 0.0
    acc = 0.0
    for i in range(n):
        q = v[i] / big
        acc += q * q
    return big * np.sqrt(acc)


@njit(cache=True, nogil=True, parallel=True, error_model="numpy", fastmath={"contract"})
def _lyapunov_kernel(phi, phi_bar, inv_t, eta, w0, burn_in, steps, out):
    """Lyapunov spectrum per temperature by the QR (Benettin) method; out (n, K), unsorted.

    After burn_in map steps, for each of ``steps`` steps: Z = J(w_t) Q, modified Gram-Schmidt
    Z = Q' R, accumulate log R_ii (R_ii floored at 1e-300), then step w.
    """
    D, K = phi.shape
    n = inv_t.shape[0]
    for i in prange(n):
        it = inv_t[i]
        gain = min(eta * it, 1e300)
        e = np.empty(D)
        m = np.empty(K)
        jac = np.empty((K, K))
        q = np.zeros((K, K))  # columns are the orthonormal frame
        z = np.empty((K, K))
        col = np.empty(K)
        sums = np.zeros(K)
        w = w0.copy()
        for k in range(K):
            q[k, k] = 1.0
        for _ in range(burn_in):
            rz = _softmax_moments(phi, w, it, e, m)
            for k in range(K):
                w[k] += eta * (phi_bar[k] - m[k] * rz)
        for _ in range(steps):
            rz = _softmax_moments(phi, w, it, e, m)
            _jacobian(phi, e, rz, m, gain, jac)
            for k in range(K):
                for l in range(K):
                    acc = 0.0
                    for j in range(K):
                        acc += jac[k, j] * q[j, l]
                    z[k, l] = acc
            for l in range(K):
                for k in range(K):
                    col[k] = z[k, l]
                for j in range(l):
                    dot = 0.0
                    for k in range(K):
                        dot += q[k, j] * col[k]
                    for k in range(K):
                        col[k] -= dot * q[k, j]
                r = _scaled_norm(col, K)
                if r < 1e-300:
                    # J collapsed this direction: restart it orthogonal to the others
                    r = 1e-300
                    for k in range(K):
                        col[k] = 0.0
                    col[l] = 1.0
                    for j in range(l):
                        dot = q[l, j]
                        for k in range(K):
                            col[k] -= dot * q[k, j]
                    nn = _scaled_norm(col, K)
                    for k in range(K):
                        q[k, l] = col[k] / nn
                else:
                    for k in range(K):
                        q[k, l] = col[k] / r
                sums[l] += np.log(r)
            for k in range(K):
                w[k] += eta * (phi_bar[k] - m[k] * rz)
        for k in range(K):
            out[i, k] = sums[k] / steps


@njit(cache=True, nogil=True, parallel=True, error_model="numpy", fastmath={"contract"})
def _periods_kernel(samples, tol, max_period, out):
    """out[i] = smallest p in 1..min(max_period, keep-1) with ||x[t+p] - x[t]|| < tol for all t."""
    n, keep, K = samples.shape
    top = min(max_period, keep - 1)
    for i in prange(n):
        found = 0
        for p in range(1, top + 1):
            ok = True
            for t in range(keep - p):
                acc = 0.0
                for k in range(K):
                    dv = samples[i, t + p, k] - samples[i, t, k]
                    acc += dv * dv
                if not np.sqrt(acc) < tol:
                    ok = False
                    break
            if ok:
                found = p
                break
        out[i] = found


# --------------------------------------------------------------------------------------------
# Validation helpers
# --------------------------------------------------------------------------------------------
def _check_temperature(value) -> float:
    try:
        t = float(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"temperature must be a real number > 0, got {describe(value)}") from exc
    if not np.isfinite(t) or t <= 0:
        raise ValueError(
            f"temperature must be finite and > 0, got {t!r} "
            "(T = 0 is herding: use dynamics.herding.herd for T = 0)"
        )
    return t


def _check_temperatures(temperatures) -> np.ndarray:
    temps = check_array("temperatures", temperatures, ndim=1)
    if temps.size == 0:
        raise ValueError("temperatures must not be empty")
    if np.any(temps <= 0):
        raise ValueError(
            f"temperatures must all be > 0, got minimum {temps.min()!r} "
            "(T = 0 is herding: use dynamics.herding.herd for T = 0)"
        )
    return temps


def _check_model(features, moments, w0, eta):
    phi = check_features(features)
    K = phi.shape[1]
    phi_bar = check_moments(moments, K)
    w = np.zeros(K) if w0 is None else check_array("w0", w0, shape=(K,)).copy()
    eta = check_positive("eta", eta)
    return phi, phi_bar, w, eta


def _inverse_temperatures(temps: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", divide="ignore"):
        inv = 1.0 / temps
    return np.minimum(inv, _DBL_MAX)


def _ensure_finite(result: np.ndarray, what: str) -> np.ndarray:
    """Refuse to return overflowed numbers (only reachable with extreme eta or feature scales)."""
    if not np.all(np.isfinite(result)):
        raise ValueError(
            f"{what} overflowed to inf/NaN: reduce eta or the scale of the features "
            "(|eta * phi| and |w . phi| must stay far below 1e308)"
        )
    return result


def _inv(t: float) -> float:
    """1 / t capped at the largest double, as the kernels use it."""
    return float(_inverse_temperatures(np.array([t], dtype=np.float64))[0])


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
# Periods and the doubling cascade
# --------------------------------------------------------------------------------------------
def _check_period_options(tol, max_period):
    tol = check_positive("tol", tol)
    max_period = check_count("max_period", max_period, high=1 << 20)
    return tol, max_period


def attractor_period(trajectory, *, tol: float = 1e-6, max_period: int = 64) -> int:
    """Period of a (burnt-in) orbit: the size of the attractor set in Fig 1.1 (left).

    The smallest p in 1..max_period with ||w_{t+p} - w_t|| < tol (Euclidean) for every t of the
    window (only p <= keep - 1 can be tested), or 0 when there is none: aperiodic, period longer
    than max_period, or not yet converged.

    Parameters
    ----------
    trajectory : array_like, shape (keep, K)
        Consecutive weights of one orbit, finite.
    tol : float
        Absolute tolerance > 0.
    max_period : int
        Largest period tested, >= 1.

    Returns
    -------
    int
    """
    traj = check_array("trajectory", trajectory, ndim=2)
    if traj.shape[0] < 1 or traj.shape[1] < 1:
        raise ValueError(f"trajectory must have shape (keep >= 1, K >= 1), got {traj.shape}")
    return int(periods(traj[None], tol=tol, max_period=max_period)[0])


def periods(samples, *, tol: float = 1e-6, max_period: int = 64) -> np.ndarray:
    """`attractor_period` of every row of a diagram: samples (n, keep, K) -> int64 (n,).

    Computed in parallel over the n temperatures.
    """
    arr = check_array("samples", samples, ndim=3)
    if min(arr.shape) < 1:
        raise ValueError(f"samples must have shape (n >= 1, keep >= 1, K >= 1), got {arr.shape}")
    tol, max_period = _check_period_options(tol, max_period)
    out = np.empty(arr.shape[0], dtype=np.int64)
    _periods_kernel(arr, tol, max_period, out)
    return out


def _is_power_of_two(p: int) -> bool:
    return p >= 1 and (p & (p - 1)) == 0


def _summarise(periods_found, temps_found, brackets, refined, t_thresh_grid) -> PeriodDoublings:
    periods_found = np.asarray(periods_found, dtype=np.int64)
    temps_found = np.asarray(temps_found, dtype=np.float64)
    intervals = -np.diff(temps_found)
    ratios = np.empty(0)
    if intervals.size >= 2:
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios = intervals[:-1] / intervals[1:]
        if not np.all(np.isfinite(ratios)):
            ratios = np.empty(0)  # coincident doublings (grid too coarse): no ratios
    t_extra = None
    m = temps_found.size
    if m >= 2 and intervals[-1] > 0:
        delta = ratios[-1] if ratios.size and ratios[-1] > 1 else FEIGENBAUM_DELTA
        t_extra = float(temps_found[-1] - intervals[-1] / (delta - 1.0))
    return PeriodDoublings(
        periods=periods_found,
        temperatures=temps_found,
        brackets=np.asarray(brackets, dtype=np.float64).reshape(-1, 2),
        refined=np.asarray(refined, dtype=bool),
        intervals=intervals,
        ratios=ratios,
        t_thresh_grid=t_thresh_grid,
        t_thresh_extrapolated=t_extra,
    )


def period_doublings(temperatures, periods, *, max_gap: int = 2) -> PeriodDoublings:
    """Read the period-doubling cascade off a period diagram (Fig 1.1 left), on the grid.

    Scanning T from high to low, the cascade starts at the first power-of-two period P read; each
    time the period read becomes 2P a doubling is recorded (bracket: last T read as P, first T
    read as 2P) and P doubles. Up to ``max_gap`` consecutive grid points reading 0 are tolerated
    inside the cascade (right at a doubling the orbit converges slowly and may read as 0). The
    scan stops at any other reading. Doubling temperatures here are bracket midpoints; use
    `refine_doublings` for precise values. See `PeriodDoublings` for t_thresh_grid and
    t_thresh_extrapolated (geometric extrapolation with the last measured ratio).

    Parameters
    ----------
    temperatures : array_like, shape (n,)
        Distinct temperatures > 0, any order.
    periods : array_like of int, shape (n,)
        Detected periods (0 = none), e.g. from `periods`.
    max_gap : int
        Zeros tolerated in a row inside the cascade, >= 0.

    Returns
    -------
    PeriodDoublings
        Empty arrays and None scalars when there is no doubling.
    """
    temps = _check_temperatures(temperatures)
    per = check_array("periods", periods, shape=(temps.size,), dtype=np.float64)
    if np.any(per < 0) or np.any(per != np.round(per)):
        raise ValueError(f"periods must be non-negative integers, got {describe(per)}")
    per = per.astype(np.int64)
    max_gap = check_count("max_gap", max_gap, low=0, high=temps.size)
    order = np.argsort(-temps, kind="stable")
    T, P_read = temps[order], per[order]
    if np.any(np.diff(T) == 0):
        raise ValueError("temperatures must be distinct")

    found_p, found_t, brackets = [], [], []
    start = next((i for i, p in enumerate(P_read) if p != 0), None)
    if start is not None and _is_power_of_two(int(P_read[start])):
        P = int(P_read[start])
        last = start
        gap = 0
        for i in range(start + 1, T.size):
            p = int(P_read[i])
            if p == P:
                last, gap = i, 0
            elif p == 2 * P:
                found_p.append(2 * P)
                found_t.append(0.5 * (T[last] + T[i]))
                brackets.append((T[i], T[last]))
                P, last, gap = 2 * P, i, 0
            elif p == 0 and gap < max_gap:
                gap += 1
            else:
                break
    t_thresh = None
    if found_p:
        below = T[brackets[-1][0] > T]  # grid points below the last doubling, high to low
        zero = P_read[brackets[-1][0] > T] == 0
        for j in range(below.size):
            # a persistent 0: not one of the <= max_gap transient zeros at a doubling
            if zero[j] and np.all(zero[j:j + max_gap + 1]):
                t_thresh = float(below[j])
                break
    return _summarise(found_p, found_t, brackets, [False] * len(found_p), t_thresh)


def _newton_cycle(phi, phi_bar, inv_t, eta, w, q, *, max_iter=20):
    """Solve F^q(w) = w by Newton from w; returns (w, monodromy) or None if it fails."""
    K = phi.shape[1]
    w = w.copy()
    w_out = np.empty(K)
    mono = np.empty((K, K))
    scale = 1.0 + np.abs(phi).max()
    for _ in range(max_iter):
        _cycle_kernel(phi, phi_bar, inv_t, eta, w, q, w_out, mono)
        residual = w_out - w
        if not np.all(np.isfinite(residual)) or not np.all(np.isfinite(mono)):
            return None
        if np.linalg.norm(residual) < 1e-13 * scale:
            return w, mono
        try:
            step = np.linalg.solve(mono - np.eye(K), -residual)
        except np.linalg.LinAlgError:
            return None
        # damp huge steps: continuation only ever needs to move a little
        norm = np.linalg.norm(step)
        if norm > scale:
            step *= scale / norm
        w = w + step
    _cycle_kernel(phi, phi_bar, inv_t, eta, w, q, w_out, mono)
    if np.linalg.norm(w_out - w) < 1e-10 * scale:
        return w, mono
    return None


def _separation(phi, phi_bar, inv_t, eta, w, q, scale) -> float:
    """min over proper divisors d of q of ||F^d(w) - w|| (``scale`` when q = 1)."""
    K = phi.shape[1]
    w_out = np.empty(K)
    mono = np.empty((K, K))
    best = scale
    for d in range(1, q):
        if q % d == 0:
            _cycle_kernel(phi, phi_bar, inv_t, eta, w, d, w_out, mono)
            best = min(best, float(np.linalg.norm(w_out - w)))
    return best


def _orbit(phi, phi_bar, inv_t, eta, w, q):
    out = np.empty((q + 1, phi.shape[1]))
    out[0] = w
    _trajectory_kernel(phi, phi_bar, inv_t, eta, out)
    return out[:q]


def refine_doubling(features, moments, period: int, t_lo: float, t_hi: float, *, w0=None,
                    eta: float = 1.0, burn_in: int = 20000, xtol: float = 1e-12) -> DoublingPoint:
    """Locate the temperature where the cycle of period ``period // 2`` doubles, by bisection on T.

    The period-doubling of Fig 1.1 (Sec 1.2.2) happens where the monodromy matrix
    M = J(w_{q-1}) ... J(w_0) of the q-cycle (q = period // 2, J = I - (eta/T) Cov_{p_T}(phi),
    eq 1.9) gets an eigenvalue through -1. At ``t_hi`` the map is iterated ``burn_in`` steps
    from w0 and the q-cycle polished by Newton on F^q(w) = w; the cycle is then continued by
    Newton in T, and [t_lo, t_hi] is bisected on "spectral radius of M < 1" until its width is
    below xtol * t_hi. Unlike a grid of detected periods this does not suffer from the slow
    convergence near the bifurcation.

    Parameters
    ----------
    features, moments : the model, as in `tempered_trajectory`.
    period : int
        The new period, an even number in [2, MAX_REFINE_PERIOD] (2 for the first doubling of
        the fixed point).
    t_lo, t_hi : float
        Bracket 0 < t_lo < t_hi: the q-cycle must be attracting at t_hi and repelling at t_lo.
    w0 : array_like, shape (K,), optional
        Start of the burn-in at t_hi (zeros when None).
    eta : float
        Step size > 0.
    burn_in : int
        Steps run at t_hi before the Newton polish, >= 0.
    xtol : float
        Relative width of the final bracket, in [1e-15, 1e-2].

    Returns
    -------
    DoublingPoint

    Raises
    ------
    ValueError
        Bad inputs, or when the bracket does not contain a period doubling of the q-cycle (no
        attracting q-cycle of minimal period q at t_hi, the cycle cannot be continued, it is
        still attracting at t_lo, or it loses stability through a complex pair of multipliers).
    """
    phi, phi_bar, w, eta = _check_model(features, moments, w0, eta)
    period = check_count("period", period, low=2, high=MAX_REFINE_PERIOD)
    if period % 2:
        raise ValueError(f"period must be even (the period after a doubling), got {period}")
    t_lo = _check_temperature(t_lo)
    t_hi = _check_temperature(t_hi)
    if not t_lo < t_hi:
        raise ValueError(f"need t_lo < t_hi, got t_lo = {t_lo!r}, t_hi = {t_hi!r}")
    burn_in = check_count("burn_in", burn_in, low=0)
    xtol = float(xtol)
    if not 1e-15 <= xtol <= 1e-2:
        raise ValueError(f"xtol must lie in [1e-15, 1e-2], got {xtol!r}")
    q = period // 2
    K = phi.shape[1]
    scale = 1.0 + np.abs(phi).max()

    inv_hi = _inv(t_hi)
    start = np.empty((burn_in + 1, K))
    start[0] = w
    _trajectory_kernel(phi, phi_bar, inv_hi, eta, start)
    sol = _newton_cycle(phi, phi_bar, inv_hi, eta, start[-1], q)
    if sol is None or max(abs(np.linalg.eigvals(sol[1]))) >= 1.0:
        raise ValueError(f"no attracting cycle of period {q} found at t_hi = {t_hi!r}")
    w_hi, mono_hi = sol
    if _separation(phi, phi_bar, inv_hi, eta, w_hi, q, scale) < 1e-9 * scale:
        raise ValueError(f"the attracting cycle at t_hi = {t_hi!r} has a period smaller than {q}")

    def continue_to(w_from, t_from, t_to):
        # Predictor-corrector continuation of the q-cycle in T. F^q(w) = w also holds on other
        # cycles (those of period d | q, other q-cycles nearby), and a long Newton jump can land
        # on one of them, so a step is accepted only if Newton moves the secant prediction by
        # less than 5% of the distance to the nearest F^d(w); otherwise the T step is halved.
        t_cur, w_cur = t_from, w_from
        t_prev = w_prev = None
        sep = _separation(phi, phi_bar, _inv(t_cur), eta, w_cur, q, scale)
        dt = (t_to - t_from) / 8.0
        for _ in range(400):
            t_next = t_to if abs(t_to - t_cur) <= abs(dt) else t_cur + dt
            pred = w_cur
            if t_prev is not None:
                pred = w_cur + (w_cur - w_prev) * ((t_next - t_cur) / (t_cur - t_prev))
            res = _newton_cycle(phi, phi_bar, _inv(t_next), eta, pred, q)
            if res is not None and np.linalg.norm(res[0] - pred) < 0.05 * sep:
                t_prev, w_prev = t_cur, w_cur
                t_cur, w_cur = t_next, res[0]
                if t_cur == t_to:
                    return res
                sep = _separation(phi, phi_bar, _inv(t_cur), eta, w_cur, q, scale)
                dt *= 1.5
            else:
                dt *= 0.5
                if abs(dt) < 1e-16 * abs(t_cur):
                    return None
        return None

    res_lo = continue_to(w_hi, t_hi, t_lo)
    if res_lo is None:
        raise ValueError(f"the period-{q} cycle could not be continued from t_hi to t_lo = {t_lo!r}")
    if max(abs(np.linalg.eigvals(res_lo[1]))) < 1.0:
        raise ValueError(
            f"the period-{q} cycle is still attracting at t_lo = {t_lo!r}: no doubling in "
            f"[{t_lo!r}, {t_hi!r}]"
        )
    lo, hi = t_lo, t_hi
    while hi - lo > xtol * hi:
        mid = 0.5 * (lo + hi)
        res = continue_to(w_hi, hi, mid)
        if res is None:
            raise ValueError(f"the period-{q} cycle could not be continued to T = {mid!r}")
        if max(abs(np.linalg.eigvals(res[1]))) < 1.0:
            hi, w_hi, mono_hi = mid, res[0], res[1]
        else:
            lo = mid
    eig = np.linalg.eigvals(mono_hi)
    crit = eig[np.argmax(np.abs(eig))]
    if abs(crit.imag) > 1e-6 or crit.real > 0:
        raise ValueError(
            f"the period-{q} cycle loses stability with multiplier {crit!r} near T = {hi!r}: "
            "not a period doubling"
        )
    cycle = _orbit(phi, phi_bar, _inv(hi), eta, w_hi, q)
    return DoublingPoint(temperature=float(0.5 * (lo + hi)), period=period,
                         multiplier=float(crit.real), cycle=cycle)


def refine_doublings(features, moments, doublings: PeriodDoublings, *, w0=None, eta: float = 1.0,
                     burn_in: int = 20000, xtol: float = 1e-12) -> PeriodDoublings:
    """Refine every grid doubling of `period_doublings` with `refine_doubling`.

    Each grid bracket is first widened by its own width on both sides (the grid reading is off
    near a doubling because convergence there is slow), keeping the top below the previous
    refined doubling. Doublings whose refinement fails keep the grid midpoint
    (``refined[n] = False``); intervals, ratios and t_thresh_extrapolated are recomputed.
    """
    if not isinstance(doublings, PeriodDoublings):
        raise ValueError(f"doublings must be a PeriodDoublings, got {describe(doublings)}")
    temps = doublings.temperatures.copy()
    refined = doublings.refined.copy()
    brackets = doublings.brackets
    previous = np.inf
    for n, (period, (b_lo, b_hi)) in enumerate(zip(doublings.periods, brackets)):
        width = b_hi - b_lo
        hi = min(b_hi + width, 0.5 * (b_hi + previous)) if np.isfinite(previous) else b_hi + width
        # lower ends to try: just below the bracket, then halfway down to the next doubling's
        # bracket (the grid reads the new period early because convergence near T_n is slow)
        floor = brackets[n + 1][1] if n + 1 < len(brackets) else 0.5 * b_lo
        candidates = (max(b_lo - width, 0.5 * (b_lo + floor)), 0.5 * (b_lo + floor))
        for lo in candidates:
            try:
                point = refine_doubling(features, moments, int(period), lo, hi, w0=w0, eta=eta,
                                        burn_in=burn_in, xtol=xtol)
            except ValueError:
                continue
            temps[n] = point.temperature
            refined[n] = True
            break
        previous = temps[n]
    return _summarise(doublings.periods, temps, doublings.brackets, refined,
                      doublings.t_thresh_grid)


def extend_doublings(features, moments, doublings: PeriodDoublings, *, count: int = 4, w0=None,
                     eta: float = 1.0, burn_in: int = 20000,
                     xtol: float = 1e-13) -> PeriodDoublings:
    """Continue a refined cascade past the grid: up to ``count`` more doublings.

    With the last two doublings T_{m-1} > T_m refined and d = T_{m-1} - T_m, the next one is
    sought by `refine_doubling` in a bracket predicted with Feigenbaum's delta: the cycle of
    period 2^m is started at T_m - 0.3 d / delta (inside its window) and its loss of stability
    searched down to T_m - 1.5 d / delta, then T_m - 3 d / delta. Stops at the first failure, so the
    result holds only bifurcations actually located (``refined`` True). Deep doublings are
    separated by d / delta^n: beyond ~12 doublings double precision no longer resolves them.
    """
    if not isinstance(doublings, PeriodDoublings):
        raise ValueError(f"doublings must be a PeriodDoublings, got {describe(doublings)}")
    count = check_count("count", count, low=0, high=16)
    periods_found = list(doublings.periods)
    temps = list(doublings.temperatures)
    brackets = [tuple(b) for b in doublings.brackets]
    refined = list(doublings.refined)
    for _ in range(count):
        if len(temps) < 2 or not (refined[-1] and refined[-2]):
            break
        d = temps[-2] - temps[-1]
        if not d > 0:
            break
        step = d / FEIGENBAUM_DELTA
        hi = temps[-1] - 0.3 * step
        point = None
        for reach in (1.5, 3.0):
            lo = temps[-1] - reach * step
            if lo <= 0:
                break
            try:
                point = refine_doubling(features, moments, 2 * int(periods_found[-1]), lo, hi,
                                        w0=w0, eta=eta, burn_in=burn_in, xtol=xtol)
                break
            except ValueError:
                continue
        if point is None or not point.temperature < temps[-1]:
            break
        periods_found.append(point.period)
        temps.append(point.temperature)
        brackets.append((lo, hi))
        refined.append(True)
    return _summarise(periods_found, temps, brackets, refined, doublings.t_thresh_grid)


def doubling_cascade(features, moments, temperatures, *, burn_in: int = 5000, keep: int = 256,
                     tol: float = 1e-6, max_period: int = 64, refine: bool = True,
                     extend: int = 4, w0=None, eta: float = 1.0) -> PeriodDoublings:
    """The whole Fig 1.1 (left) analysis: diagram, periods, grid doublings, refinement.

    ``bifurcation`` on the temperature grid, ``periods`` of each row, ``period_doublings`` on the
    grid and, with ``refine``, `refine_doublings`, then ``extend`` more doublings past the grid
    with `extend_doublings`. Sec 1.2.2 says the cascade is "observed very often" but not always:
    when the period never doubles on the grid the result has empty arrays and None scalars.

    Parameters
    ----------
    features, moments, w0, eta : the model, as in `tempered_trajectory`.
    temperatures : array_like, shape (n,)
        The grid, finite and > 0; it should reach above `first_doubling_temperature` and be
        fine enough to separate the doublings it is to resolve (they shrink by ~4.67 each).
    burn_in, keep : int
        Passed to `bifurcation`.
    tol, max_period :
        Passed to `periods` (doublings up to period max_period are read on the grid).
    refine : bool
        Refine the grid doublings by bisection on the cycle multipliers.
    extend : int
        Doublings to add past the grid (needs ``refine``), in [0, 16].

    Returns
    -------
    PeriodDoublings
    """
    diagram = bifurcation(features, moments, temperatures, burn_in=burn_in, keep=keep, w0=w0,
                          eta=eta)
    per = periods(diagram.samples, tol=tol, max_period=max_period)
    grid = period_doublings(diagram.temperatures, per)
    if refine and grid.periods.size:
        grid = refine_doublings(features, moments, grid, w0=w0, eta=eta)
        if extend:
            grid = extend_doublings(features, moments, grid, count=extend, w0=w0, eta=eta)
    return grid


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
        "moments must lie strictly inside the convex hull of the feature rows (no finite "
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


# --------------------------------------------------------------------------------------------
def _warmup() -> None:
    """Compile (or load from cache) every kernel of this module with the production dtypes."""
    phi = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, -1.0]], dtype=np.float64)
    phi_bar = np.array([0.1, 0.2], dtype=np.float64)
    w0 = np.zeros(2, dtype=np.float64)
    inv_t = np.array([1.0, 2.0, 10.0], dtype=np.float64)
    traj = np.zeros((4, 2), dtype=np.float64)
    _trajectory_kernel(phi, phi_bar, 2.0, 1.0, traj)
    samples = np.empty((3, 4, 2), dtype=np.float64)
    _bifurcation_kernel(phi, phi_bar, inv_t, 1.0, w0, 2, 4, samples)
    out_p = np.empty(3, dtype=np.int64)
    _periods_kernel(samples, 1e-6, 2, out_p)
    w_out = np.empty(2, dtype=np.float64)
    mono = np.empty((2, 2), dtype=np.float64)
    _cycle_kernel(phi, phi_bar, 2.0, 1.0, w0, 2, w_out, mono)
    lyap = np.empty((3, 2), dtype=np.float64)
    _lyapunov_kernel(phi, phi_bar, inv_t, 1.0, w0, 2, 3, lyap)
