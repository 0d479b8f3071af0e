"""The competitors of Fig 4.1, each a plain function with the same budget as PMD: stochastic
gradient Langevin dynamics, one-pass sequential Monte Carlo, a Gibbs sampler with latent
indicators, and stochastic variational inference with a Gaussian. The sixth, stochastic
nonparametric VI (SGD NPV), is in ``npv``.

Every result records ``history`` at log-spaced checkpoints of the data visited (``seen``), so
that the page can draw all methods on one axis: SGLD visits b data per iteration, Gibbs all N
per sweep, the one-pass methods each datum once."""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from dynamics.checks import (as_generator, check_array, check_count, check_in_range,
                              check_positive, check_progress, report)
from dynamics.pmd.kde import GaussianFit, Particles, effective_sample_size, median_bandwidth
from dynamics.pmd.mirror import (check_run, checkpoint_steps, minibatch_schedule, normalise_log,
                                  record)
from dynamics.pmd.model import MixtureModel, log_likelihood

__all__ = ["one_pass_smc", "sgld", "gibbs", "svi", "LIU_WEST_SHRINK"]

#: Liu and West's shrinkage a of the kernel move after resampling (h^2 = 1 - a^2).
LIU_WEST_SHRINK = 0.98


def one_pass_smc(model: MixtureModel, data, *, particles: int = 1500, batch_size: int = 10,
                 seed=None, ess_fraction: float = 0.5, checkpoints: int = 25,
                 progress=None) -> Particles:
    """One-pass sequential Monte Carlo (Balakrishnan and Madigan 2006): particles drawn from the
    prior are reweighted by each minibatch's likelihood (so they target the posterior of the
    data seen so far); when the effective sample size falls below ``ess_fraction`` m they are
    resampled multinomially and moved by the kernel of Liu and West (shrink towards the mean by
    a = ``LIU_WEST_SHRINK``, then add N(0, (1 - a^2) Cov)), which needs no second look at the
    data. ``history["resamplings"]`` counts the resampling events."""
    x, m, b = check_run(model, data, particles, batch_size)
    frac = check_in_range("ess_fraction", ess_fraction, 0.0, 1.0)
    progress = check_progress(progress)
    rng = as_generator(seed)
    n = x.size
    T = -(-n // b)
    checkpoints_at = checkpoint_steps(T, checkpoints)
    theta = model.prior_draws(m, rng)
    logw = np.full(m, -math.log(m))
    a = LIU_WEST_SHRINK
    resamplings = 0
    history = {"seen": [], "ess": [], "clouds": [], "resamplings": []}
    for t in range(1, T + 1):
        batch = x[(t - 1) * b: t * b]
        logw = normalise_log(logw + log_likelihood(model, batch, theta))
        w = np.exp(logw)
        if effective_sample_size(w) < frac * m:
            mean = w @ theta
            cov = ((theta - mean) * w[:, None]).T @ (theta - mean)
            ancestors = rng.choice(m, size=m, p=w)
            chol = np.linalg.cholesky((1 - a * a) * cov + 1e-12 * np.eye(2))
            theta = a * theta[ancestors] + (1 - a) * mean + rng.standard_normal((m, 2)) @ chol.T
            logw = np.full(m, -math.log(m))
            resamplings += 1
        if t in checkpoints_at:
            seen = min(n, t * b)
            record(history, seen, theta, logw, resamplings=resamplings)
            report(progress, t / T, f"one-pass SMC: {seen} of {n} data", partial=history)
    w = np.exp(logw)
    return Particles(theta, w / w.sum(), median_bandwidth(theta, seed=rng), "one-pass SMC",
                     history)


def _chain_history(chain: np.ndarray, burn_in: int, keep: int, visits_per_step: int,
                   checkpoints: int) -> dict:
    """Checkpoints of a Markov chain (log-spaced steps): the samples it would report then, i.e.
    the last ``keep`` states after the burn-in, or the last ``keep`` states so far while it is
    still burning in."""
    history = {"seen": [], "ess": [], "clouds": []}
    for i in sorted(checkpoint_steps(chain.shape[0], checkpoints)):
        first = burn_in if i > burn_in else 0
        cloud = chain[max(first, i - keep):i]
        history["seen"].append(i * visits_per_step)
        history["ess"].append(float(cloud.shape[0]))
        history["clouds"].append((cloud.copy(), np.full(cloud.shape[0], 1.0 / cloud.shape[0])))
    return history


def sgld(model: MixtureModel, data, *, particles: int = 1500, batch_size: int = 10,
         seed=None, burn_in: int = 1000, step_a: float | None = None, step_b: float = 10.0,
         step_decay: float = 0.55, start=None, checkpoints: int = 25,
         progress=None) -> Particles:
    """Stochastic gradient Langevin dynamics (Welling and Teh 2011), one chain:
    theta <- theta + eps_t / 2 (grad log p + (N / b) sum_batch grad log p(x | theta))
    + N(0, eps_t I), eps_t = a (b + t)^(-decay), minibatches without replacement within each
    pass. The ``particles`` states after ``burn_in`` iterations are the samples, equally
    weighted. ``step_a`` defaults to a first step of half the inverse curvature of N data's
    likelihood along theta1 (the stiffest direction, N / sigma_x^2); a = 1/N, tried first, left
    the chain short of the mode after the burn-in."""
    x, m, b = check_run(model, data, particles, batch_size)
    burn_in = check_count("burn_in", burn_in, low=0)
    decay = check_in_range("step_decay", step_decay, 0.0, 1.0)
    step_b = check_positive("step_b", step_b)
    progress = check_progress(progress)
    rng = as_generator(seed)
    n = x.size
    a = (0.5 * step_b ** decay / (n / model.sigma_x ** 2 + 1.0 / min(model.sigma1, model.sigma2) ** 2)
         if step_a is None else check_positive("step_a", step_a))
    theta = (model.prior_draws(1, rng)[0] if start is None
             else check_array("start", start, shape=(2,)).copy())
    total = burn_in + m
    chain = np.empty((total, 2))
    order, pos = rng.permutation(n), 0
    noise = rng.standard_normal((total, 2))
    for t in range(total):
        if pos + b > n:
            order, pos = rng.permutation(n), 0
        batch = x[order[pos:pos + b]]
        pos += b
        eps = a * (step_b + t) ** -decay
        grad = model.grad_log_posterior(batch, theta[None, :], n / batch.size)[0]
        theta = theta + 0.5 * eps * grad + math.sqrt(eps) * noise[t]
        if not np.all(np.abs(theta) < 1e6):  # also NaN: the prior's scale is O(1)
            raise ValueError(
                f"SGLD diverged at iteration {t}: |theta| reached "
                f"{np.max(np.abs(theta)):.3g}; the step eps_t = a (b + t)^-decay with step_a = {a:g}, step_b = {step_b:g} is too large for "
                f"{n} data: use a smaller step_a (None picks half the inverse curvature)")
        chain[t] = theta
        if progress is not None and t % 250 == 0:
            report(progress, t / total, f"SGLD: iteration {t} of {total}")
    samples = chain[burn_in:]
    return Particles(samples, np.full(m, 1.0 / m), median_bandwidth(samples, seed=rng), "SGLD",
                     _chain_history(chain, burn_in, m, b, checkpoints))


@njit(cache=True, nogil=True)
def _gibbs_chain(x, sigma1, sigma2, sigma_x, p, theta0, sweeps, seed):
    """Gibbs sampling of (z, theta). z_n | theta picks a component by its responsibility;
    theta | z is Gaussian, the posterior of a linear-Gaussian model whose rows are (1, 0) for
    data of the first component (mean theta1) and (1, 1) for the second (theta1 + theta2)."""
    np.random.seed(seed)
    n = x.shape[0]
    out = np.empty((sweeps, 2))
    t1, t2 = theta0[0], theta0[1]
    inv = 1.0 / (sigma_x * sigma_x)
    lp, lq = math.log(p), math.log(1.0 - p)
    total = 0.0
    for i in range(n):
        total += x[i]
    for s in range(sweeps):
        n2 = 0
        sum2 = 0.0
        for i in range(n):
            u = lp - 0.5 * (x[i] - t1) ** 2 * inv
            v = lq - 0.5 * (x[i] - t1 - t2) ** 2 * inv
            if np.random.random() * (1.0 + math.exp(min(u - v, 700.0))) < 1.0:
                n2 += 1
                sum2 += x[i]
        # precision P = diag(1/s1^2, 1/s2^2) + A^T A / sigma_x^2, and P^-1 A^T x / sigma_x^2
        p11 = 1.0 / (sigma1 * sigma1) + n * inv
        p12 = n2 * inv
        p22 = 1.0 / (sigma2 * sigma2) + n2 * inv
        det = p11 * p22 - p12 * p12
        c11, c12, c22 = p22 / det, -p12 / det, p11 / det
        b1, b2 = total * inv, sum2 * inv
        m1 = c11 * b1 + c12 * b2
        m2 = c12 * b1 + c22 * b2
        l11 = math.sqrt(c11)
        l21 = c12 / l11
        l22 = math.sqrt(max(c22 - l21 * l21, 0.0))
        e1, e2 = np.random.standard_normal(), np.random.standard_normal()
        t1 = m1 + l11 * e1
        t2 = m2 + l21 * e1 + l22 * e2
        out[s, 0] = t1
        out[s, 1] = t2
    return out


def gibbs(model: MixtureModel, data, *, particles: int = 1500, batch_size: int = 10,
          seed=None, burn_in: int = 50, start=None, checkpoints: int = 25) -> Particles:
    """A Gibbs sampler with latent component indicators, scanning all N data per sweep: the
    ``particles`` sweeps after ``burn_in`` are the samples, equally weighted. ``batch_size`` is
    checked and accepted for the methods' common signature; a sweep uses every datum."""
    x, m, _ = check_run(model, data, particles, batch_size)
    burn_in = check_count("burn_in", burn_in, low=0)
    rng = as_generator(seed)
    theta0 = (model.prior_draws(1, rng)[0] if start is None
              else check_array("start", start, shape=(2,)))
    chain = _gibbs_chain(x, model.sigma1, model.sigma2, model.sigma_x, model.p,
                         np.ascontiguousarray(theta0, dtype=np.float64), burn_in + m,
                         int(rng.integers(2**31 - 1)))
    samples = chain[burn_in:]
    return Particles(samples, np.full(m, 1.0 / m), median_bandwidth(samples, seed=rng), "Gibbs",
                     _chain_history(chain, burn_in, m, x.size, checkpoints))


def svi(model: MixtureModel, data, *, particles: int = 1500, batch_size: int = 10, seed=None,
        epochs: int = 20,
        samples: int = 10, learning_rate: float = 0.1, checkpoints: int = 25,
        progress=None) -> GaussianFit:
    """Stochastic variational inference with a full-covariance Gaussian q = N(mu, L L^T), L
    lower triangular with a log-parameterised diagonal: the reparameterised minibatch gradient
    of the ELBO, E_q[grad log p(theta) + (N / b) sum_batch grad log p(x | theta)] from
    ``samples`` draws, plus the entropy's gradient, followed with Adam (step ``learning_rate`` / sqrt(1 + passes so far))
    over ``epochs`` passes; ``particles`` draws from the final q are returned with it
    (``.particles``, ``.weights``), like the samplers' results. The result is the average of the iterates of the last pass (Polyak),
whose noise the last iterate would carry. The variance converges slowly from its start (the
identity): on a conjugate test model of 100 data it was 1.8-2.3 times the exact one after 20
passes. A unimodal family: it can hold one mode at best (Sec 4.6.1: "the
    stochastic variational inference fails")."""
    x, m, b = check_run(model, data, particles, batch_size)
    epochs = check_count("epochs", epochs, high=10_000)
    k = check_count("samples", samples, high=100_000)
    lr = check_positive("learning_rate", learning_rate)
    progress = check_progress(progress)
    rng = as_generator(seed)
    n = x.size
    steps_per_epoch, total, checkpoints_at = minibatch_schedule(n, b, epochs, checkpoints)
    params = np.array([*(0.1 * rng.standard_normal(2)), 0.0, 0.0, 0.0])  # mu, log L11, L21, log L22
    first, second, average = np.zeros(5), np.zeros(5), np.zeros(5)
    history = {"seen": [], "gaussians": []}

    def factor(params):
        return np.array([[math.exp(params[2]), 0.0], [params[3], math.exp(params[4])]])

    step = 0
    for _ in range(epochs):
        order = rng.permutation(n)
        for start in range(0, n, b):
            batch = x[order[start:start + b]]
            L = factor(params)
            eps = rng.standard_normal((k, 2))
            g = model.grad_log_posterior(batch, params[:2] + eps @ L.T, n / batch.size)
            gL = (g[:, :, None] * eps[:, None, :]).mean(0)
            # ascent direction; the +1s are the entropy's gradient in log L11 and log L22
            grad = np.array([*g.mean(0), gL[0, 0] * L[0, 0] + 1.0, gL[1, 0],
                             gL[1, 1] * L[1, 1] + 1.0])
            step += 1
            first = 0.9 * first + 0.1 * grad
            second = 0.999 * second + 0.001 * grad * grad
            rate = lr / math.sqrt(1.0 + step / steps_per_epoch)  # Robbins-Monro decay
            params = params + rate * (first / (1 - 0.9 ** step)) / (
                np.sqrt(second / (1 - 0.999 ** step)) + 1e-8)
            if not np.all(np.abs(params) < 100.0):  # also NaN; |log L_ii| > 100 overflows
                raise ValueError(
                    f"SVI diverged at step {step}: a variational parameter reached "
                    f"{np.max(np.abs(params)):.3g}; learning_rate = {lr:g} is too large: use a "
                    "smaller one (the default 0.1 is stable)")
            if step > total - steps_per_epoch:  # Polyak average over the last pass
                average += (params - average) / (step - (total - steps_per_epoch))
            if step in checkpoints_at:
                L = factor(params)
                history["seen"].append(step * b)
                history["gaussians"].append((params[:2].copy(), L @ L.T))
        report(progress, step / total, f"SVI: {step} of {total} steps")
    L = factor(average)
    draws = average[:2] + rng.standard_normal((m, 2)) @ L.T
    return GaussianFit(average[:2].copy(), L @ L.T, "SVI", history, draws, np.full(m, 1.0 / m))


def _warmup() -> None:
    _gibbs_chain(np.zeros(3), 1.0, 1.0, 2.5, 0.5, np.zeros(2), 2, 0)
