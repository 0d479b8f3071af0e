"""The herding map's Numba kernels (eqs 1.7-1.8): exact integer scores, and float scores whose
argmax is the one of the directly computed float scores (see ``dynamics.herding.herd``)."""

from __future__ import annotations

import numpy as np
from numba import njit

#: Unit roundoff of float64.
_U = 2.0**-53


@njit(cache=True, nogil=True)
def _direct(weights, t, features, d):
    """fl(w_t . phi(x_d)), summed over k = 0..K-1 in this order (the float mode's score)."""
    acc = 0.0
    for k in range(features.shape[1]):
        acc += weights[t, k] * features[d, k]
    return acc


@njit(cache=True, nogil=True)
def _violates(weights, t, c, tol2):
    """Whether cycling c = w_t . rho[s_t] > 0 breaks eq 1.40: c^2 > tol2 ||w_t||^2."""
    wn2 = 0.0
    for k in range(weights.shape[1]):
        wn2 += weights[t, k] * weights[t, k]
    return c * c > tol2 * wn2


@njit(cache=True, nogil=True, inline="always")
def _advance(scores, G, prev):
    """The next step's scores, ``scores += G[prev]`` in place, fused with their argmax: (the
    lowest index of the maximum, the maximum). Float or int64 scores alike (one copy for both
    kernels' modes)."""
    x = scores[0] + G[prev, 0]
    scores[0] = x
    top = x
    best = 0
    for d in range(1, scores.shape[0]):
        x = scores[d] + G[prev, d]
        scores[d] = x
        if x > top:
            top = x
            best = d
    return best, top


@njit(cache=True, nogil=True)
def _herd_kernel(features, moments, eta, refresh, rtol, states, weights, cycling):
    """Run eqs 1.7-1.8 in float64, in place; weights[0] holds w0 on entry.

    The state of step t is the lowest index d maximising the direct score
    a_d = fl(sum_k w_t[k] phi[d, k]) (``_direct``: sequential sum over k). To keep O(D) per step
    the kernel advances scores g_d incrementally, g += G[s] with G[s, d] = fl(eta (phi_bar -
    phi(x_s)) . phi(x_d)), and recomputes them directly at the start of every block of
    ``refresh`` steps. |g_d - a_d| <= eps (a bound on the drift, from the unit roundoff, K,
    max|phi|, max||w||, max|eta (phi_bar - phi)| and the steps since the recompute), so when the
    two largest g are within 2 eps, every d with g_d >= max g - 2 eps is rescored directly and
    the lowest index with the largest a_d wins: the states equal those of ``refresh`` = 1.
    A step violates eq 1.40 when cycling > rtol * ||w_{t-1}|| * max_x ||phi_bar - phi(x)||.
    Returns (number of violations, max_t ||w_t||^2, max cycling).
    """
    D, K = features.shape
    steps = states.shape[0]
    rho = np.empty((D, K))
    delta = np.empty((D, K))
    rho_max2 = 0.0
    p_max = 0.0
    d_max = 0.0
    for d in range(D):
        r2 = 0.0
        for k in range(K):
            rho[d, k] = moments[k] - features[d, k]
            delta[d, k] = eta * rho[d, k]
            r2 += rho[d, k] * rho[d, k]
            p_max = max(p_max, abs(features[d, k]))
            d_max = max(d_max, abs(delta[d, k]))
        rho_max2 = max(rho_max2, r2)
    tol2 = rtol * rtol * rho_max2  # compared with c^2 / ||w||^2 when c > 0
    n_G = D if refresh > 1 else 0
    G = np.empty((n_G, n_G))
    for s in range(n_G):
        for d in range(D):
            acc = 0.0
            for k in range(K):
                acc += delta[s, k] * features[d, k]
            G[s, d] = acc
    g = np.empty(D)
    violations = 0
    c_max = -np.inf
    w2_max = 0.0
    for k in range(K):
        w2_max += weights[0, k] * weights[0, k]
    # eps_j = scale * ((2 K + 2 j) max||w|| + j K d_max) bounds |g - a| j steps after a recompute
    # (with a safety factor 4 on the first-order rounding bounds).
    scale = 4.0 * _U * K * p_max
    w_max = np.sqrt(w2_max)
    e0 = 4.0 * scale * K * w_max                   # 2 eps_j = e0 + j e1
    e1 = 2.0 * scale * (2.0 * w_max + K * d_max)
    t = 0
    while t < steps:
        # Direct scores from w_t, then the argmax (ties to the lowest index).
        for d in range(D):
            g[d] = _direct(weights, t, features, d)
        best = 0
        gb = g[0]
        for d in range(1, D):
            if g[d] > gb:
                gb = g[d]
                best = d
        stop = min(steps, t + refresh)
        j = 0
        margin = e0
        while True:
            states[t] = best
            c = 0.0
            w2 = 0.0
            for k in range(K):
                c += weights[t, k] * rho[best, k]
                wk = weights[t, k] + delta[best, k]
                weights[t + 1, k] = wk
                w2 += wk * wk
            cycling[t] = c
            if c > c_max:
                c_max = c
            t += 1
            j += 1
            margin += e1
            if w2 > w2_max:
                w2_max = w2
                w_max = np.sqrt(w2_max)
                e0 = 4.0 * scale * K * w_max
                e1 = 2.0 * scale * (2.0 * w_max + K * d_max)
                margin = e0 + j * e1
            if c > 0.0 and _violates(weights, t - 1, c, tol2):
                violations += 1
            if t >= stop:
                break
            # Incremental scores for the next step, fused with its argmax.
            best, gb = _advance(g, G, best)
            # Scores within 2 eps of the maximum: a branch-free count (vectorised).
            low = gb - margin          # margin = 2 eps_j = e0 + j e1
            near = 0
            for d in range(D):
                near += g[d] >= low
            if near > 1:
                # A near or exact tie: the direct scores of the candidates decide.
                best = -1
                ab = 0.0
                for d in range(D):
                    if g[d] >= low:
                        a = _direct(weights, t, features, d)
                        if best < 0 or a > ab:
                            ab = a
                            best = d
    return violations, w2_max, c_max


@njit(cache=True, nogil=True)
def _herd_exact_kernel(phi, r, u0, eta, n, rho, incremental, rtol, states, weights, cycling):
    """Run eqs 1.7-1.8 in exact integer arithmetic, in place.

    ``phi`` (D, K) int64 features, ``r`` (D, K) int64 = N phi_bar - N phi (N = ``n``, the scale
    that makes N phi_bar and N w0 / eta integers), ``u0`` (K,) int64 = N w0 / eta. The kernel keeps
    u_t = N w_t / eta (an integer vector: u_{t+1} = u_t + r[s_t]) and the integer scores
    S_d = u_t . phi(x_d), advanced by the integer table G[s, d] = r[s] . phi(x_d); the state is
    the lowest index d maximising S_d, which is the argmax of w_t . phi(x_d) exactly (eta > 0).
    Without ``incremental`` (short runs) S is recomputed from u_t at every step instead.
    The caller bounds every |S_d|, |u| and |G| below 2^62. weights[t] = eta * (u_t / N) in
    float64 (weights[0] is left as given); ``rho`` = phi_bar - phi (float) for the cycling record.
    Returns (number of violations, max_t ||w_t||^2, max cycling).
    """
    D, K = phi.shape
    steps = states.shape[0]
    rho_max2 = 0.0
    for d in range(D):
        r2 = 0.0
        for k in range(K):
            r2 += rho[d, k] * rho[d, k]
        rho_max2 = max(rho_max2, r2)
    tol2 = rtol * rtol * rho_max2
    n_G = D if incremental else 0
    G = np.empty((n_G, n_G), dtype=np.int64)
    for s in range(n_G):
        for d in range(D):
            acc = 0
            for k in range(K):
                acc += r[s, k] * phi[d, k]
            G[s, d] = acc
    u = u0.copy()
    S = np.empty(D, dtype=np.int64)
    for d in range(D):
        acc = 0
        for k in range(K):
            acc += u[k] * phi[d, k]
        S[d] = acc
    best = 0
    sb = S[0]
    for d in range(1, D):
        if S[d] > sb:
            sb = S[d]
            best = d
    violations = 0
    c_max = -np.inf
    w2_max = 0.0
    for k in range(K):
        w2_max += weights[0, k] * weights[0, k]
    for t in range(steps):
        states[t] = best
        c = 0.0
        w2 = 0.0
        for k in range(K):
            c += weights[t, k] * rho[best, k]
            u[k] += r[best, k]
            wk = eta * (u[k] / n)
            weights[t + 1, k] = wk
            w2 += wk * wk
        cycling[t] = c
        if c > c_max:
            c_max = c
        if w2 > w2_max:
            w2_max = w2
        if c > 0.0 and _violates(weights, t, c, tol2):
            violations += 1
        if t + 1 < steps and not incremental:
            for d in range(D):
                acc = 0
                for k in range(K):
                    acc += u[k] * phi[d, k]
                S[d] = acc
            best = 0
            sb = S[0]
            for d in range(1, D):
                if S[d] > sb:
                    sb = S[d]
                    best = d
        elif t + 1 < steps:
            best, sb = _advance(S, G, best)
    return violations, w2_max, c_max
