"""The numba kernels of the tempered map (eq 1.9) and the shared input checks, for
``dynamics.bifurcation`` (see its docstring for the numerics)."""

from __future__ import annotations


import numpy as np
from numba import njit, prange

from dynamics.checks import (
    check_array,
    check_features,
    check_moments,
    check_positive,
    check_real,
    describe,
)

__all__ = [
    "FEIGENBAUM_DELTA",
    "MAX_SAMPLE_VALUES",
    "MAX_MAP_EVALUATIONS",
    "MAX_LYAPUNOV_EVALUATIONS",
    "MAX_REFINE_PERIOD",
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
def _check_temperature(value, name: str = "temperature") -> float:
    t = check_real(name, value, finite=False)
    if not np.isfinite(t) or t <= 0:
        raise ValueError(
            f"{name} must be finite and > 0, got {t!r} "
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
