"""Attractor periods and the period-doubling cascade: doubling temperatures found on a grid,
refined where a multiplier of the 2^n-cycle crosses -1, and their Feigenbaum ratios."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from dynamics.checks import (
    check_array,
    check_count,
    check_positive,
    check_in_range,
    check_flag,
    describe,
)
from dynamics.bifurcation._kernels import (FEIGENBAUM_DELTA, MAX_REFINE_PERIOD, _check_model, _check_temperature, _check_temperatures, _cycle_kernel, _inv, _periods_kernel, _trajectory_kernel)
from dynamics.bifurcation.tempered_map import (bifurcation)

__all__ = [
    "PeriodDoublings",
    "DoublingPoint",
    "attractor_period",
    "periods",
    "period_doublings",
    "refine_doubling",
    "refine_doublings",
    "extend_doublings",
    "doubling_cascade",
]


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
        delta the last measured ratio (needs m >= 3) or FEIGENBAUM_DELTA (m == 2). None if m < 2,
        or if the extrapolation is not a temperature > 0 (a last ratio near 1 on a coarse grid).

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
        if t_extra <= 0:
            t_extra = None  # a ratio near 1 (coarse grid) overshoots below T = 0: no estimate
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
    max_gap = check_count("max_gap", max_gap, low=0, high=max(temps.size, 2))
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
    t_lo = _check_temperature(t_lo, "t_lo")
    t_hi = _check_temperature(t_hi, "t_hi")
    if not t_lo < t_hi:
        raise ValueError(f"need t_lo < t_hi, got t_lo = {t_lo!r}, t_hi = {t_hi!r}")
    burn_in = check_count("burn_in", burn_in, low=0)
    xtol = check_in_range("xtol", xtol, 1e-15, 1e-2)
    q = period // 2
    K = phi.shape[1]
    scale = 1.0 + np.abs(phi).max()

    inv_hi = _inv(t_hi)
    start = np.empty((burn_in + 1, K))
    start[0] = w
    _trajectory_kernel(phi, phi_bar, inv_hi, eta, start)
    sol = _newton_cycle(phi, phi_bar, inv_hi, eta, start[-1], q)
    if sol is None or max(abs(np.linalg.eigvals(sol[1]))) >= 1.0:
        raise ValueError(f"no attracting cycle of period {q} of these features and moments found "
                         f"at t_hi = {t_hi!r} with "
                         f"eta = {eta!r} (a smaller eta or another bracket may have one)")
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
        raise ValueError(f"the period-{q} cycle of these features and moments could not be "
                         f"continued from t_hi to t_lo = {t_lo!r}")
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
            raise ValueError(f"the period-{q} cycle of these features and moments could not "
                             f"be continued to T = {mid!r}")
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


def _check_refinement(features, moments, w0, eta, burn_in, xtol) -> None:
    """The arguments ``refine_doublings`` and ``extend_doublings`` pass on to `refine_doubling`,
    checked first: that one's ValueError means "no doubling here" to them, not a bad input."""
    _check_model(features, moments, w0, eta)
    check_count("burn_in", burn_in, low=0)
    check_in_range("xtol", xtol, 1e-15, 1e-2)


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
    _check_refinement(features, moments, w0, eta, burn_in, xtol)
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
    _check_refinement(features, moments, w0, eta, burn_in, xtol)
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
    refine = check_flag("refine", refine)
    extend = check_count("extend", extend, low=0, high=16)
    diagram = bifurcation(features, moments, temperatures, burn_in=burn_in, keep=keep, w0=w0,
                          eta=eta)
    per = periods(diagram.samples, tol=tol, max_period=max_period)
    grid = period_doublings(diagram.temperatures, per)
    if refine and grid.periods.size:
        grid = refine_doublings(features, moments, grid, w0=w0, eta=eta)
        if extend:
            grid = extend_doublings(features, moments, grid, count=extend, w0=w0, eta=eta)
    return grid


