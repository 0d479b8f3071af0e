"""Herding with hidden units on binarised digits (Chen & Welling Sec 1.3.3, eqs 1.46-1.55,
Prop 1.8-1.9; the experiment of Sec 1.4.2 and the picture of Fig 1.13).

The model is an RBM with visible units x in {-1, +1}^n, hidden units z in {-1, +1}^m and
features phi(x, z) = (x_i z_j, x_i, z_j) (``generalized_herding.rbm_features``). Herding keeps
the weights w = (W, b, c) and steps

    z*_it = argmax_z w_{t-1} . phi(x_i, z) = sign(W^T x_i + c)             (eq 1.47, exact)
    s*_t  = argmax_s w_{t-1} . phi(s)                                        (eq 1.48)
    w_t   = w_{t-1} + mean_i phi(x_i, z*_it) - phi(s*_t)                     (eq 1.49)

The joint argmax of eq 1.48 is found three ways (``search``):

- ``"exact"``: enumerate the smaller layer (2^min(n, m) states, Gray code), the other one
  following in closed form (z = sign(W^T x + c) given x; x = sign(W z + b) given z);
- ``"safe"``: Prop 1.9, coordinate ascent started from the data case of highest score
  w . phi(x_i, z*_i): the PCT condition (eq 1.50-1.51) then holds by construction;
- ``"local"``: the same coordinate ascent started from the previous pseudo-sample s*_{t-1} (the
  paper's "herding using local optimization", H1-H5 of Fig 1.14), which can end below the data's
  mean score, and then the PCT does not hold at that step.

Prop 1.8: while the PCT holds at every step, every moment of the data completed by the hidden
units matches the pseudo-samples' at O(1/tau). Sec 1.4.2 leaves out the update of the hidden
biases c (to keep the hidden units' entropy high): ``update_hidden_bias=False``.

The data are scikit-learn's 8 x 8 digits (1,797 images of 0-16 grey levels, shipped with the
package), binarised with the paper's USPS mapping x' = 2 Theta(x / x_max - 0.2) - 1 (Sec 1.4.2,
x_max = 16 here, 256 there): a pixel is +1 ("ink") above 20 % of full intensity.

Ties: the weights start N(0, init^2), a continuous random part that every later weight keeps
(the steps are multiples of 1/D), so two states' scores, or a field and 0, are exactly equal with
probability zero; the rules below fix what happens if they are, and the kernels compute in
double in a fixed order (no BLAS), so a run is the same on every machine. A unit's sign is +1 on a
zero field in eq 1.47 and in the closed-form layer; the ascent keeps v_i on a zero field; the
exact search keeps the first maximiser in its Gray-code order; "safe" starts from the first data
case of highest score.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
from numba import njit

from ..checks import (as_generator, check_array, check_budget, check_choice, check_count,
                      check_flag, check_in_range, check_instance, check_positive,
                      check_progress, report)
from ..claims import Verdict, stated
from ..pct.generalized_herding import rate

__all__ = ["DIGIT_SIDE", "MAX_HIDDEN", "MAX_EXACT_LAYER", "SEARCHES", "HiddenHerding",
           "binary_digits", "rbm_argmax", "herd_hidden", "pixel_pairs", "mosaic",
           "moment_matching_claim", "hidden_sweep"]

#: Side of scikit-learn's digit images (8 x 8 = 64 visible units).
DIGIT_SIDE = 8
#: Most hidden units a run takes.
MAX_HIDDEN = 256
#: The exact argmax enumerates 2^k states of the smaller layer: k at most this.
MAX_EXACT_LAYER = 16
#: The three ways to find the joint argmax of eq 1.48.
SEARCHES = ("exact", "safe", "local")
#: Most operations (multiply-adds, roughly) one run may take.
MAX_OPERATIONS = 1e11


@functools.lru_cache(maxsize=1)
def _raw_digits() -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's digits (1,797 rows of 64 grey levels 0-16, and labels), read from the
    file the package ships (what ``sklearn.datasets.load_digits`` reads; importing
    ``sklearn.datasets`` costs seconds, reading the file milliseconds)."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("sklearn")
    if spec is not None and spec.submodule_search_locations:
        path = Path(list(spec.submodule_search_locations)[0]) / "datasets/data/digits.csv.gz"
        if path.is_file():
            table = np.loadtxt(path, delimiter=",")
            return table[:, :-1].copy(), table[:, -1].astype(np.int64)
    from sklearn.datasets import load_digits

    bunch = load_digits()
    return bunch.data.astype(np.float64), bunch.target.astype(np.int64)


def binary_digits(cases: int | None = None, *, digit: int | None = None,
                  threshold: float = 0.2, seed=None) -> tuple[np.ndarray, np.ndarray]:
    """scikit-learn's 8 x 8 digits as rows of -1/+1 pixels, and their labels.

    Binarised as the paper's USPS digits (Sec 1.4.2): x' = 2 Theta(x / 16 - ``threshold``) - 1,
    with Theta(u) = 1 for u > 0 (so +1 is ink). ``digit`` None keeps every class, else one class
    (0-9); ``cases`` None keeps every image, else that many drawn without replacement (``seed``)
    and kept in the data set's order. Returns (images (D, 64) int8, labels (D,))."""
    if digit is not None:
        digit = check_count("digit", digit, low=0, high=9)
    threshold = check_in_range("threshold", threshold, 0.0, 1.0, low_open=True)
    rng = as_generator(seed)
    images, labels = _raw_digits()
    keep = np.flatnonzero(labels == digit) if digit is not None else np.arange(len(labels))
    if cases is not None:
        cases = check_count("cases", cases, low=1, high=len(keep))
        keep = np.sort(rng.choice(keep, size=cases, replace=False))
    x = np.where(images[keep] / 16.0 - threshold > 0, 1, -1).astype(np.int8)
    return x, labels[keep].copy()


# --- kernels -------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _sign(a):
    return 1.0 if a >= 0.0 else -1.0


@njit(cache=True, nogil=True)
def _exact_argmax(W, b, c, v, z):
    """eq 1.48 exactly: enumerate the smaller layer in Gray-code order (one unit flips per
    state, so the other layer's fields update in O(larger layer)); the larger layer follows in
    closed form. Writes the maximiser into v and z."""
    n, m = W.shape
    if n <= m:   # enumerate x, score b.x + sum_j |W^T x + c|_j
        M = W.copy()                       # (k, other), rows contiguous
        bias_small, bias_other = b, c
    else:        # enumerate z, score c.z + sum_i |W z + b|_i
        M = np.ascontiguousarray(W.T)
        bias_small, bias_other = c, b
    k, other = M.shape
    small = -np.ones(k)
    field = bias_other.copy()
    for i in range(k):
        for j in range(other):
            field[j] -= M[i, j]
    base = 0.0
    for i in range(k):
        base -= bias_small[i]               # bias_small . small at the all -1 state
    best = -np.inf
    best_code = 0
    code = 0
    for step in range(1 << k):
        if step > 0:
            flip = 0           # the unit that flips between Gray codes step - 1 and step
            while not (step >> flip) & 1:
                flip += 1
            code ^= 1 << flip
            small[flip] = -small[flip]
            base += 2.0 * small[flip] * bias_small[flip]
            twice = 2.0 * small[flip]
            for j in range(other):
                field[j] += twice * M[flip, j]
        score = base
        for j in range(other):
            score += abs(field[j])
        if score > best:
            best = score
            best_code = code
    # decode the best state and its partner
    for i in range(k):
        bit = 1.0 if (best_code >> i) & 1 else -1.0
        if n <= m:
            v[i] = bit
        else:
            z[i] = bit
    if n <= m:
        for j in range(m):
            s = c[j]
            for i in range(n):
                s += W[i, j] * v[i]
            z[j] = _sign(s)
    else:
        for i in range(n):
            s = b[i]
            for j in range(m):
                s += W[i, j] * z[j]
            v[i] = _sign(s)


@njit(cache=True, nogil=True)
def _hidden_given(W, c, v, z):
    n, m = W.shape
    changed = False
    for j in range(m):
        s = c[j]
        for i in range(n):
            s += W[i, j] * v[i]
        new = _sign(s)
        if new != z[j]:
            z[j] = new
            changed = True
    return changed


@njit(cache=True, nogil=True)
def _ascent(W, b, c, v, z, sweeps):
    """Coordinate ascent on v.b + v^T W z + c.z from (v, z): z given v, then each v_i given the
    rest (kept on a tie), at most ``sweeps`` sweeps; never lowers the score (Prop 1.9)."""
    n, m = W.shape
    _hidden_given(W, c, v, z)
    for _ in range(sweeps):
        changed = False
        for i in range(n):
            field = b[i]
            for j in range(m):
                field += W[i, j] * z[j]
            new = 1.0 if field > 0 else (-1.0 if field < 0 else v[i])
            if new != v[i]:
                v[i] = new
                changed = True
        if _hidden_given(W, c, v, z):
            changed = True
        if not changed:
            return


@njit(cache=True, nogil=True)
def _herd(X, W, b, c, v, steps, mode, sweeps, update_c, vis, hid, gap, norm, err,
          pos_sum, neg_sum):
    """eqs 1.47-1.49 for ``steps`` steps (mode 0 exact, 1 safe, 2 local), in place on W, b, c;
    per step the PCT gap, ||w||, and the largest moment error of each group (visible, hidden,
    visible-hidden pairs); pos_sum / neg_sum collect the data's and the pseudo-samples' feature
    sums."""
    D, n = X.shape
    m = W.shape[1]
    A = np.empty((D, m))
    Z = np.empty((D, m))
    score = np.empty(D)
    z = np.empty(m)
    pos = np.empty(n * m + n + m)
    xbar = np.zeros(n)
    for i in range(D):
        for a in range(n):
            xbar[a] += X[i, a]
    for a in range(n):
        xbar[a] /= D
    _hidden_given(W, c, v, z)
    for t in range(steps):
        # eq 1.47: each data case's hidden units, exact; its score w . phi(x_i, z*_i)
        mean_score = 0.0
        for i in range(D):
            s = 0.0
            for j in range(m):
                A[i, j] = c[j]
            for a in range(n):      # row-wise, so that the inner loops run along memory
                xa = X[i, a]
                s += xa * b[a]
                for j in range(m):
                    A[i, j] += xa * W[a, j]
            for j in range(m):
                Z[i, j] = _sign(A[i, j])
                s += abs(A[i, j])
            score[i] = s
            mean_score += s
        mean_score /= D
        # eq 1.48
        if mode == 0:
            _exact_argmax(W, b, c, v, z)
        else:
            if mode == 1:   # Prop 1.9: from the best data case
                k = 0
                for i in range(1, D):
                    if score[i] > score[k]:
                        k = i
                for a in range(n):
                    v[a] = X[k, a]
            _ascent(W, b, c, v, z, sweeps)
        s_score = 0.0
        for a in range(n):
            f = b[a]
            for j in range(m):
                f += W[a, j] * z[j]
            s_score += v[a] * f
        for j in range(m):
            s_score += c[j] * z[j]
        gap[t] = s_score - mean_score          # eqs 1.50-1.51: >= 0 is the PCT condition
        # eq 1.49: positive term (the data completed by z*), negative term (the pseudo-sample)
        pos[:] = 0.0
        for i in range(D):
            for a in range(n):
                xa = X[i, a]
                for j in range(m):
                    pos[a * m + j] += xa * Z[i, j]
        for q in range(n * m):
            pos[q] /= D
        for a in range(n):
            pos[n * m + a] = xbar[a]
        for j in range(m):
            acc = 0.0
            for i in range(D):
                acc += Z[i, j]
            pos[n * m + n + j] = acc / D
        total = 0.0
        for a in range(n):
            for j in range(m):
                W[a, j] += pos[a * m + j] - v[a] * z[j]
                total += W[a, j] * W[a, j]
            b[a] += xbar[a] - v[a]
            total += b[a] * b[a]
        for j in range(m):
            if update_c:
                c[j] += pos[n * m + n + j] - z[j]
            total += c[j] * c[j]
        norm[t] = np.sqrt(total)
        for a in range(n):
            for j in range(m):
                pos_sum[a * m + j] += pos[a * m + j]
                neg_sum[a * m + j] += v[a] * z[j]
            pos_sum[n * m + a] += xbar[a]
            neg_sum[n * m + a] += v[a]
        for j in range(m):
            pos_sum[n * m + n + j] += pos[n * m + n + j]
            neg_sum[n * m + n + j] += z[j]
        # Prop 1.8 (eq 1.52): the largest |difference of running means| in each group
        e_pair = 0.0
        for q in range(n * m):
            e_pair = max(e_pair, abs(pos_sum[q] - neg_sum[q]))
        e_vis = 0.0
        for q in range(n * m, n * m + n):
            e_vis = max(e_vis, abs(pos_sum[q] - neg_sum[q]))
        e_hid = 0.0
        for q in range(n * m + n, n * m + n + m):
            e_hid = max(e_hid, abs(pos_sum[q] - neg_sum[q]))
        err[t, 0] = e_vis / (t + 1)
        err[t, 1] = e_hid / (t + 1)
        err[t, 2] = e_pair / (t + 1)
        for a in range(n):
            vis[t, a] = np.int8(v[a])
        for j in range(m):
            hid[t, j] = np.int8(z[j])


# --- public --------------------------------------------------------------------------------------


def _check_layers(W, b, c) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    W = check_array("W", W, ndim=2)
    n, m = W.shape
    if n < 1 or m < 1:
        raise ValueError(f"W must have at least one visible and one hidden unit, got {W.shape}")
    return W, check_array("b", b, shape=(n,)), check_array("c", c, shape=(m,))


def rbm_argmax(W, b, c) -> tuple[np.ndarray, np.ndarray]:
    """The joint maximiser (x, z) of x^T W z + b^T x + c^T z over +-1 states (eq 1.48 for an
    RBM): enumerates the 2^k states of the smaller layer (k <= ``MAX_EXACT_LAYER``), the
    other layer given in closed form (sign of its field, ties to +1)."""
    W, b, c = _check_layers(W, b, c)
    n, m = W.shape
    if min(n, m) > MAX_EXACT_LAYER:
        raise ValueError(f"W has shape {W.shape}: the exact argmax enumerates the smaller layer, "
                         f"at most {MAX_EXACT_LAYER} units")
    v, z = np.empty(n), np.empty(m)
    _exact_argmax(np.ascontiguousarray(W), b.copy(), c.copy(), v, z)
    return v, z


@dataclass(frozen=True)
class HiddenHerding:
    """A run of herding with hidden units (eqs 1.47-1.49), ``steps`` long.

    Per step: the pseudo-samples ``visible`` (steps, n) and ``hidden`` (steps, m), the joint
    states s*_t; ``pct_gap`` w_{t-1} . phi(s*_t) - mean_i w_{t-1} . phi(x_i, z*_it) (eqs
    1.50-1.51: the PCT condition holds when >= 0) and ``pct_held``; ``weight_norm`` ||w_t||;
    ``error`` (steps, 3) the largest |running mean of the data's moment - the pseudo-samples'|
    over the visible units x_i, the hidden units z_j and the pairs x_i z_j (eq 1.52, Prop 1.8:
    at most 2R / tau while the PCT holds). Over the run: the data's moments (completed by
    z*_it, averaged over the steps) ``data_visible`` (n,), ``data_hidden`` (m,), ``data_pairs``
    (n, m), and the pseudo-samples' ``sample_visible``, ``sample_hidden``, ``sample_pairs``."""

    visible: np.ndarray
    hidden: np.ndarray
    pct_gap: np.ndarray
    pct_held: np.ndarray
    weight_norm: np.ndarray
    error: np.ndarray
    data_visible: np.ndarray
    data_hidden: np.ndarray
    data_pairs: np.ndarray
    sample_visible: np.ndarray
    sample_hidden: np.ndarray
    sample_pairs: np.ndarray
    search: str
    update_hidden_bias: bool


def herd_hidden(data, hidden: int, steps: int, *, search: str = "safe", sweeps: int = 10,
                update_hidden_bias: bool = True, init: float = 0.1, seed=None) -> HiddenHerding:
    """Herd an RBM with ``hidden`` units to the data (D, n) of -1/+1 (eqs 1.47-1.49).

    ``search`` finds the joint argmax of eq 1.48: ``"exact"`` (enumerating the smaller layer:
    n or ``hidden`` at most ``MAX_EXACT_LAYER``), ``"safe"`` (Prop 1.9: at most ``sweeps``
    coordinate-ascent sweeps from the data case of highest score) or ``"local"`` (the same from
    the previous pseudo-sample; the first starts from a random state). ``update_hidden_bias``
    False leaves the hidden biases c at their start, as Sec 1.4.2 does. The weights start
    N(0, ``init``^2), drawn from ``seed`` in the order W, b, c as
    ``generalized_herding.herd_rbm`` draws them (with ``search`` exact or safe and the hidden
    biases updated, the two give the same run)."""
    X = check_array("data", data, ndim=2)
    D, n = X.shape
    if D < 1 or n < 1 or not np.all(np.abs(X) == 1):
        raise ValueError(f"data must be a non-empty (D, n) array of -1 and +1, got shape "
                         f"{X.shape}")
    m = check_count("hidden", hidden, low=1, high=MAX_HIDDEN)
    steps = check_count("steps", steps, high=10_000_000)
    search = check_choice("search", search, SEARCHES)
    sweeps = check_count("sweeps", sweeps, low=1, high=1000)
    update_hidden_bias = check_flag("update_hidden_bias", update_hidden_bias)
    init = check_positive("init", init)
    if init > 1e6:
        raise ValueError(f"init must be at most 1e6, got {init}")
    if search == "exact" and min(n, m) > MAX_EXACT_LAYER:
        raise ValueError(f"search 'exact' enumerates the smaller layer: n = {n} visible and "
                         f"hidden = {m} units, at most {MAX_EXACT_LAYER} in one of them")
    per_step = 3 * D * n * m + ((1 << min(n, m)) * max(n, m) if search == "exact"
                                else 2 * sweeps * n * m)
    check_budget("steps, hidden and data", float(steps) * per_step, MAX_OPERATIONS,
                 "operations")
    rng = as_generator(seed)
    W = init * rng.standard_normal((n, m))
    b = init * rng.standard_normal(n)
    c = init * rng.standard_normal(m)
    v = np.where(rng.random(n) < 0.5, -1.0, 1.0)
    Xf = np.ascontiguousarray(X, dtype=np.float64)
    vis = np.empty((steps, n), np.int8)
    hid = np.empty((steps, m), np.int8)
    gap, norm = np.empty(steps), np.empty(steps)
    err = np.empty((steps, 3))
    pos_sum, neg_sum = np.zeros(n * m + n + m), np.zeros(n * m + n + m)
    _herd(Xf, W, b, c, v, steps, SEARCHES.index(search), sweeps, update_hidden_bias, vis, hid,
          gap, norm, err, pos_sum, neg_sum)
    tol = 1e-9 * (1 + np.abs(gap))
    pos, neg = pos_sum / steps, neg_sum / steps
    return HiddenHerding(
        visible=vis, hidden=hid, pct_gap=gap, pct_held=gap >= -tol, weight_norm=norm,
        error=err, data_visible=pos[n * m: n * m + n], data_hidden=pos[n * m + n:],
        data_pairs=pos[: n * m].reshape(n, m), sample_visible=neg[n * m: n * m + n],
        sample_hidden=neg[n * m + n:], sample_pairs=neg[: n * m].reshape(n, m),
        search=search, update_hidden_bias=update_hidden_bias)


def pixel_pairs(states) -> np.ndarray:
    """The second moments mean x_i x_j (i < j) of rows of -1/+1 units, (n(n-1)/2,): what
    Fig 1.13 says the pseudo-samples share with the data besides the means (with hidden units
    herding matches them only through the hidden units, not as its own features)."""
    x = check_array("states", states, ndim=2)
    if x.shape[0] < 1 or x.shape[1] < 2 or not np.all(np.abs(x) == 1):
        raise ValueError(f"states must be a non-empty (N, n >= 2) array of -1 and +1, got "
                         f"shape {x.shape}")
    x = x.astype(np.float64)
    i, j = np.triu_indices(x.shape[1], 1)
    return (x.T @ x / len(x))[i, j]


def mosaic(states, *, columns: int, side: int = DIGIT_SIDE) -> np.ndarray:
    """Rows of side x side images laid out ``columns`` a row, top to bottom (Fig 1.13's
    picture of pseudo-samples): a (rows * side, columns * side) array, unused tiles -1."""
    x = check_array("states", states, ndim=2)
    side = check_count("side", side, low=1, high=64)
    columns = check_count("columns", columns, low=1, high=1000)
    if x.shape[1] != side * side:
        raise ValueError(f"states must have side^2 = {side * side} columns, got {x.shape[1]}")
    rows = max(1, -(-len(x) // columns))
    tiles = np.full((rows * columns, side, side), -1, dtype=x.dtype)
    tiles[: len(x)] = x.reshape(-1, side, side)
    return (tiles.reshape(rows, columns, side, side).transpose(0, 2, 1, 3)
            .reshape(rows * side, columns * side))


@stated
def moment_matching_claim(run: HiddenHerding, data, *, seed=0) -> Verdict:
    """A study of the hidden units (Sec 1.4.2), not a verdict on Fig 1.13's caption: how close
    an RBM's pseudo-samples come to the data's pixel means and pixel-pair moments mean x_i x_j
    (``pixel_pairs``), each against as many cases drawn independently from the data with
    replacement (``seed``). Fig 1.13 herds the pairs themselves (a fully visible model,
    ``visible_herding.pair_matching_claim`` judges it); with hidden units the pairs are not
    features, only the pixel means and the pixel-hidden pairs are (Prop 1.8), so the pairs
    measure what the hidden units carry. Its outcome is always "not decided" against the
    caption; ``numbers`` says whether means and pairs came as close as the draws
    (``means_as_close``, ``pairs_as_close``), and the measured line gives the fitted rate of
    each group's error (``rate``)."""
    check_instance("run", run, HiddenHerding)
    X = check_array("data", data, ndim=2)
    n = run.visible.shape[1]
    if X.shape[0] < 1 or X.shape[1] != n or not np.all(np.abs(X) == 1):
        raise ValueError(f"data must be a non-empty (D, {n}) array of -1 and +1 (the run's "
                         f"visible units), got shape {X.shape}")
    if n < 2:
        raise ValueError("data must have at least 2 columns (pixel pairs)")
    steps = len(run.visible)
    draws = X[as_generator(seed).integers(0, len(X), size=steps)]
    target_means, target_pairs = X.mean(axis=0), pixel_pairs(X)
    herd_means = float(np.abs(run.visible.mean(axis=0) - target_means).mean())
    iid_means = float(np.abs(draws.mean(axis=0) - target_means).mean())
    herd_pairs = float(np.abs(pixel_pairs(run.visible) - target_pairs).mean())
    iid_pairs = float(np.abs(pixel_pairs(draws) - target_pairs).mean())
    start = max(1, steps // 10)
    rates = ([rate(run.error[:, k], start=start) if np.count_nonzero(run.error[start:, k]) > 1
              else float("nan") for k in range(3)] if steps >= 20 else [float("nan")] * 3)
    held = float(run.pct_held.mean())
    close = "as close as" if herd_pairs <= iid_pairs else "farther than"
    return Verdict(
        "Chen & Welling, Sec 1.4.2 (hidden units; Fig 1.13 is judged on a fully visible model)",
        _STUDY, None,
        measured=(f"{steps} pseudo-samples of an RBM with {run.hidden.shape[1]} hidden units "
                  f"({run.search} argmax, PCT held at {100 * held:.1f} % of steps): pixel means "
                  f"off by {herd_means:.4f} on average (independent draws {iid_means:.4f}), "
                  f"pixel pairs by {herd_pairs:.4f} ({iid_pairs:.4f}); largest-error rates "
                  f"tau^{rates[0]:.2f} (pixels), tau^{rates[1]:.2f} (hidden units), "
                  f"tau^{rates[2]:.2f} (pixel-hidden pairs)"),
        why=(f"a study of what the hidden units carry, not judged against Fig 1.13's caption "
             f"(a fully visible model herds the pairs there): the pixel pairs come {close} "
             f"{steps} independent draws ({herd_pairs:.4f} against {iid_pairs:.4f})"),
        numbers=dict(herding_means=herd_means, iid_means=iid_means, herding_pairs=herd_pairs,
                     iid_pairs=iid_pairs, means_as_close=herd_means <= iid_means,
                     pairs_as_close=herd_pairs <= iid_pairs, rate_visible=rates[0],
                     rate_hidden=rates[1], rate_pairs=rates[2], pct_held=held),
        effect="mean |pseudo-samples' - data's| pixel pairs of an RBM, against independent "
               "draws (reported)",
        rule="none against the caption: the pairs are not the RBM's features")


def hidden_sweep(data, hidden_counts, steps: int, *, search: str = "safe", sweeps: int = 10,
                 update_hidden_bias: bool = True, seed=0, progress=None) -> tuple[Verdict, ...]:
    """``moment_matching_claim`` of a ``herd_hidden`` run on ``data`` for each number of hidden
    units in ``hidden_counts`` (the same ``steps``, ``search``, ``sweeps``, ``update_hidden_bias``
    and ``seed``): how close the pixel pairs, which are no feature of the RBM, come to the
    data's as the hidden units that carry them grow (Fig 1.13, Sec 1.4.2's 50-1000 units)."""
    counts = check_array("hidden_counts", hidden_counts, ndim=1)
    if counts.size < 1 or counts.size > 20:
        raise ValueError(f"hidden_counts must hold 1 to 20 counts, got {counts.size}")
    counts = [check_count("hidden_counts", h, low=1, high=MAX_HIDDEN) for h in counts]
    progress = check_progress(progress)
    verdicts = []
    for k, m in enumerate(counts):
        report(progress, k / len(counts), f"{m} hidden units")
        run = herd_hidden(data, m, steps, search=search, sweeps=sweeps,
                          update_hidden_bias=update_hidden_bias, seed=seed)
        verdicts.append(moment_matching_claim(run, data, seed=seed))
    report(progress, 1.0, "done")
    return tuple(verdicts)


_STUDY = ("With hidden units, the pixel pairs are carried by the hidden units only (Prop 1.8 "
          "matches the pixel means and the pixel-hidden pairs): how close they come to the data's "
          "as the hidden units grow.")


def _warmup() -> None:
    X = np.array([[1, -1, 1], [-1, 1, 1]], np.int8)
    for search in SEARCHES:
        herd_hidden(X, 2, 2, search=search, seed=0)
    rbm_argmax(np.zeros((3, 2)), np.zeros(3), np.zeros(2))
