"""Particle mirror descent (Algorithm 3 of Sec 4.3.3, re-derived from eqs 4.3-4.8; see the
package text for the derivation)."""

from __future__ import annotations

import math

import numpy as np

from dynamics.checks import (as_generator, check_choice, check_count, check_in_range,
                              check_instance, check_positive, check_progress, report)
from dynamics.pmd.kde import Particles, _kde_cells, effective_sample_size, median_bandwidth
from dynamics.pmd.model import Grid, MixtureModel, check_data, log_likelihood

__all__ = [
    "STEP_SIZES",
    "STRATEGIES",
    "BANDWIDTH_RULES",
    "MIN_ESS",
    "step_size",
    "batch_weights",
    "mirror_descent_iterate",
    "particle_mirror_descent",
]

#: Step-size schedules gamma_t: 1/t (Thm 18; the last iterate of one pass is the exact
#: posterior) and 2/(t + 1) (the appendix's choice for the KDE branch, L5815).
STEP_SIZES = ("1/t", "2/(t+1)")
#: Prox-mappings: weighted particles (Sec 4.3.1), weighted KDE (Sec 4.3.2), or the KDE first and
#: weighted particles after it (L2137).
STRATEGIES = ("particles", "kde", "hybrid")
#: KDE bandwidth h_t = scale * s * m_t^(-1/4) (Theorem 17 in 2-D with the Gaussian kernel), s the
#: prior's scale sqrt(sigma1 sigma2) ("prior") or the weighted standard deviation of the current
#: cloud ("cloud").
BANDWIDTH_RULES = ("prior", "cloud")
#: A KDE prox step is split into tempered sub-steps that keep the effective sample size at or
#: above this fraction of the particles (our addition, see ``_tempered_prox``).
MIN_ESS = 0.5


def step_size(rule: str, t: int) -> float:
    """gamma_t of the schedule ``rule`` (one of ``STEP_SIZES``) at step t >= 1."""
    rule = check_choice("rule", rule, STEP_SIZES)
    return _step_size(rule, check_count("t", t, low=1, high=10**15))


def _step_size(rule: str, t: int) -> float:
    return 1.0 / t if rule == "1/t" else 2.0 / (t + 1)


def batch_weights(rule: str, steps: int) -> np.ndarray:
    """The exponent of each batch's tempered likelihood p(X_s | theta)^(N / b) in the exact
    iterate q_{t+1} after ``steps`` = t steps: gamma_s prod_{r = s+1..t} (1 - gamma_r). The
    prior's exponent is always 1. For gamma = 1/t every batch gets 1/t; for 2/(t + 1), batch s
    gets 2 s / (t (t + 1)): later data weigh more."""
    rule = check_choice("rule", rule, STEP_SIZES)
    t = check_count("steps", steps, high=10_000_000)
    gammas = np.array([_step_size(rule, s) for s in range(1, t + 1)])
    keep = np.cumprod((1.0 - gammas)[::-1])[::-1]  # prod_{r >= s} (1 - gamma_r)
    after = np.r_[keep[1:], 1.0]  # prod_{r > s}
    return gammas * after


def mirror_descent_iterate(model: MixtureModel, data, grid_x, grid_y, *, steps: int,
                           batch_size: int = 10, step_size_rule: str = "1/t") -> np.ndarray:
    """The exact mirror-descent iterate q_{steps+1} (eq 4.3, no particle approximation) on a
    grid, normalised like ``grid_posterior``: log p(theta) + sum_s w_s (N / b) log p(X_s | theta)
    with the weights of ``batch_weights``. After one pass with gamma = 1/t it is the posterior;
    before, a posterior of the data seen, tempered up to N points. What PMD's cloud tracks."""
    model = check_instance("model", model, MixtureModel)
    step_size_rule = check_choice("step_size_rule", step_size_rule, STEP_SIZES)
    x = check_data(data)
    b = check_count("batch_size", batch_size, high=1_000_000)
    b = min(b, x.size)
    T = -(-x.size // b)
    t = check_count("steps", steps, high=T)
    grid = Grid(grid_x, grid_y)
    points = grid.points()
    log_q = model.log_prior(points)
    for s, w in enumerate(batch_weights(step_size_rule, t)):
        batch = x[s * b:(s + 1) * b]
        log_q += w * (x.size / batch.size) * log_likelihood(model, batch, points)
    log_q -= log_q.max()
    dens = np.exp(log_q)
    dens /= dens.sum() * grid.cell_area
    return dens.reshape(grid.shape)


def check_run(model, data, particles, batch_size):
    """The common arguments of every method, checked: (data, particles, batch size)."""
    check_instance("model", model, MixtureModel)
    x = check_data(data)
    m = check_count("particles", particles, low=2, high=1_000_000)
    b = check_count("batch_size", batch_size, high=1_000_000)
    return x, m, min(b, x.size)


def checkpoint_steps(T: int, checkpoints: int) -> set[int]:
    """About ``checkpoints`` steps of 1..T, log-spaced (curves against data seen are read on a
    log axis), always including the last."""
    checkpoints = check_count("checkpoints", checkpoints, high=10_000)
    steps = np.unique(np.geomspace(1, T, checkpoints).round().astype(int))
    return set(steps.tolist()) | {T}


def minibatch_schedule(n: int, batch: int, epochs: int,
                       checkpoints: int) -> tuple[int, int, set[int]]:
    """Steps of ``epochs`` passes over ``n`` data in minibatches of ``batch``: the steps a pass,
    the steps in all, and the steps recorded (``checkpoint_steps``)."""
    steps_per_epoch = -(-n // batch)
    total = epochs * steps_per_epoch
    return steps_per_epoch, total, checkpoint_steps(total, checkpoints)


def normalise_log(logw: np.ndarray) -> np.ndarray:
    """Log weights shifted so that their exponentials sum to 1."""
    logw = logw - logw.max()
    return logw - math.log(np.exp(logw).sum())


def record(history: dict, seen: int, theta: np.ndarray, logw: np.ndarray, **extra) -> None:
    """Append one checkpoint of a particle run to ``history``: data seen, effective sample
    size, the cloud (particles, weights), and the method's own ``extra`` entries."""
    w = np.exp(logw)
    history["seen"].append(seen)
    history["ess"].append(effective_sample_size(w))
    history["clouds"].append((theta.copy(), w))
    for key, value in extra.items():
        history[key].append(value)


def _draw(rng, centres, logw, h, k):
    """k draws from a weighted KDE: an ancestor by weight plus h N(0, I)."""
    ancestors = rng.choice(centres.shape[0], size=k, p=np.exp(logw))
    return centres[ancestors] + h * rng.standard_normal((k, 2))


def _largest_step(inc, most, min_ess):
    """The largest delta in (0, most] with ESS(exp(delta * inc)) >= min_ess (bisection)."""
    def ess(d):
        lw = d * inc
        w = np.exp(lw - lw.max())
        return w.sum() ** 2 / (w * w).sum()
    if ess(most) >= min_ess:
        return most
    lo, hi = 0.0, most
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if ess(mid) >= min_ess else (lo, mid)
    return max(lo, most * 1e-3)


def _spread(theta, logw) -> float:
    w = np.exp(logw)
    mean = w @ theta
    return max(float(np.sqrt((w @ ((theta - mean) ** 2)).mean())), 1e-6)


def _tempered_prox(rng, theta, logq, base_logq, log_target, gamma, bandwidth):
    """One KDE prox-mapping (eq 4.8) from particles ``theta`` drawn from q_t, whose log density
    at them is ``logq``; ``base_logq(points)`` evaluates q_t anywhere.

    The exponent goes from 0 to gamma in sub-steps q(l') = q(l) r^(l' - l), r = p L / q_t,
    each as large as keeps the ESS >= MIN_ESS m, with a resample-and-jitter (a draw from the KDE
    of q(l)) between sub-steps. When the ESS allows the whole step this is eq 4.8 itself. Our
    addition: with gamma_1 = 1 the first step's weights are the first batch's likelihood^(N/b),
    whose ESS is a few particles of 1500, and one KDE step then keeps whichever mode those few
    particles sit in. Returns (particles, log weights, bandwidth, sub-steps)."""
    m = theta.shape[0]
    done, substeps = 0.0, 0
    while True:
        inc = log_target(theta) - logq
        delta = _largest_step(inc, gamma - done, MIN_ESS * m)
        logw = normalise_log(delta * inc)
        done += delta
        substeps += 1
        h = bandwidth(theta, logw)
        if done >= gamma * (1 - 1e-9) or substeps >= 100:
            return theta, logw, h, substeps
        theta = _draw(rng, theta, logw, h, m)
        logq = base_logq(theta)


def particle_mirror_descent(model: MixtureModel, data, *, particles: int = 1500,
                            batch_size: int = 10, seed=None, strategy: str = "particles",
                            step_size_rule: str = "1/t", bandwidth_rule: str = "prior",
                            bandwidth_scale: float = 1.0, switch: float = 0.3,
                            start_particles: int = 1500, checkpoints: int = 25,
                            progress=None) -> Particles:
    """Particle mirror descent over one pass of ``data`` in minibatches of ``batch_size``:
    q_{t+1} proportional to q_t^(1 - gamma_t) (p(theta) p(X_t | theta)^(N / b))^gamma_t.

    ``strategy`` (``STRATEGIES``): "particles" draws ``particles`` from the prior once and
    reweights them (eq 4.6); "kde" resamples m_t particles from the weighted KDE q_t every step
    and reweights them by q_t^(-gamma) (p L^(N/b))^gamma (eqs 4.7-4.8), m_t growing linearly
    from ``start_particles`` to ``particles``, the bandwidth by ``bandwidth_rule``; "hybrid"
    runs the KDE over the first ``switch`` fraction of the steps, then draws ``particles`` from
    the KDE once and reweights them with the KDE as base density. ``step_size_rule``:
    ``STEP_SIZES``. The result's kernel (``density``) has the median-trick bandwidth of
    Sec 4.6.1; ``history`` records every checkpoint (log-spaced steps) for the page.
    ``progress(fraction, message, partial=history)`` is called at each checkpoint."""
    x, m, b = check_run(model, data, particles, batch_size)
    strategy = check_choice("strategy", strategy, STRATEGIES)
    bandwidth_rule = check_choice("bandwidth_rule", bandwidth_rule, BANDWIDTH_RULES)
    step_size_rule = check_choice("step_size_rule", step_size_rule, STEP_SIZES)
    scale = check_positive("bandwidth_scale", bandwidth_scale)
    switch = check_in_range("switch", switch, 0.0, 1.0)
    m0 = min(check_count("start_particles", start_particles, low=2, high=1_000_000), m)
    progress = check_progress(progress)
    rng = as_generator(seed)
    n = x.size
    T = -(-n // b)
    checkpoints_at = checkpoint_steps(T, checkpoints)
    kde_steps = {"particles": 0, "kde": T, "hybrid": int(round(switch * T))}[strategy]
    prior_scale = math.sqrt(model.sigma1 * model.sigma2)

    def bandwidth(theta, logw):
        s = prior_scale if bandwidth_rule == "prior" else _spread(theta, logw)
        return scale * s * theta.shape[0] ** -0.25

    def log_target(theta, batch):  # log p + (N / b) log p(X_t | theta)
        return model.log_prior(theta) + (n / batch.size) * log_likelihood(model, batch, theta)

    # q_1 = p: the first particles are prior draws, whose density is known exactly.
    theta = model.prior_draws(m0 if kde_steps else m, rng)
    logq = model.log_prior(theta)  # the base density of the reweighting, at the particles
    logw = np.full(theta.shape[0], -math.log(theta.shape[0]))
    h = bandwidth(theta, logw)
    history = {"seen": [], "ess": [], "clouds": [], "bandwidths": [], "substeps": []}
    substeps = 0
    for t in range(1, T + 1):
        batch = x[(t - 1) * b: t * b]
        gamma = _step_size(step_size_rule, t)
        if t <= kde_steps:
            if t == 1:
                def base_logq(points):
                    return model.log_prior(points)
            else:
                # q_t is the KDE of the last cloud: draw m_t particles from it.
                k = int(round(m0 + (m - m0) * (t - 1) / max(1, kde_steps - 1)))
                centres, centre_logw, centre_h = theta, logw, h

                def base_logq(points, c=centres, lw=centre_logw, hh=centre_h):
                    return _kde_cells(points, c, lw, hh)
                theta = _draw(rng, centres, centre_logw, centre_h, k)
                logq = base_logq(theta)
            theta, logw, h, taken = _tempered_prox(
                rng, theta, logq, base_logq, lambda th: log_target(th, batch), gamma, bandwidth)
            substeps += taken
            if t == kde_steps and t < T:
                # Hybrid: the particle branch from here on, with base density q_s = this KDE.
                new = _draw(rng, theta, logw, h, m)
                logq = _kde_cells(new, theta, logw, h)
                theta = new
                logw = np.full(m, -math.log(m))
        else:
            # Weighted particles: the weights are q_t / q_s at particles drawn from q_s, and
            # q_{t+1} / q_s = (q_t / q_s)^(1 - gamma) (p L^(N/b) / q_s)^gamma. With q_s = p
            # (the "particles" strategy) the prior terms cancel: eq 4.6.
            logw = normalise_log((1.0 - gamma) * logw + gamma * (log_target(theta, batch) - logq))
        if t in checkpoints_at:
            seen = min(n, t * b)
            record(history, seen, theta, logw, bandwidths=h, substeps=substeps)
            report(progress, t / T, f"particle mirror descent: {seen} of {n} data",
                   partial=history)
    w = np.exp(logw)
    w /= w.sum()
    return Particles(theta, w, median_bandwidth(theta, seed=rng), "PMD",
                     {k: list(v) for k, v in history.items()})
