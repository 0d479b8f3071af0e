"""The experiment of Sec 4.6.1 / Fig 4.1: every method on the same data, their total variation and
cross entropy against the exact posterior as the data are visited, over repeats."""

from __future__ import annotations

import numbers
from dataclasses import dataclass

import numpy as np

from dynamics._common import (check_array, check_count, check_flag, check_instance,
                              check_positive, check_progress, report)
from dynamics.pmd.baselines import gibbs, one_pass_smc, sgld, svi
from dynamics.pmd.kde import GaussianFit, Particles, median_bandwidth
from dynamics.pmd.mirror import check_run, particle_mirror_descent
from dynamics.pmd.model import (Grid, MixtureModel, check_data, cross_entropy, grid_posterior,
                                total_variation)
from dynamics.sweep import sweep

__all__ = ["METHODS", "GRID_SHARE", "Comparison", "posterior_grid", "estimate_on", "exact_samples",
           "compare_methods",
           "mode_shares", "RepeatSummary", "compare_repeats"]

#: The methods of Fig 4.1 that are implemented, in the page's order.
METHODS = ("PMD", "one-pass SMC", "SGLD", "Gibbs", "SVI")
#: The share of ``compare_methods``' progress fraction for the exact posterior on the grid,
#: computed before any method runs (1.0 of 2.3 s at the page's sizes, measured).
GRID_SHARE = 0.4

def posterior_grid(model: MixtureModel, data, *, spacing: float = 0.02,
                   max_side: int = 500) -> Grid:
    """A grid fine enough for the exact posterior of ``data`` (``spacing``; coarser when the
    posterior's box needs more than ``max_side`` points a side): the box where a coarse grid
    over the prior's +-5 sigma holds posterior density above 1e-8 of its peak, padded by a
    quarter of its size."""
    model = check_instance("model", model, MixtureModel)
    x = check_data(data)
    spacing = check_positive("spacing", spacing)
    max_side = check_count("max_side", max_side, low=10, high=4000)
    reach = 5 * np.array([model.sigma1, model.sigma2])
    coarse = Grid(np.linspace(-reach[0], reach[0], 101), np.linspace(-reach[1], reach[1], 101))
    dens = grid_posterior(model, x, coarse.x, coarse.y)
    rows, cols = np.nonzero(dens > 1e-8 * dens.max())
    lo = np.array([coarse.x[cols.min()], coarse.y[rows.min()]])
    hi = np.array([coarse.x[cols.max()], coarse.y[rows.max()]])
    pad = 0.25 * (hi - lo) + 2 * (coarse.x[1] - coarse.x[0])
    lo, hi = lo - pad, hi + pad
    spacing = max(spacing, float((hi - lo).max()) / (max_side - 1))
    return Grid.around(lo, hi, spacing)


def estimate_on(result, grid: Grid, exact: np.ndarray, cloud=None, *, best_of_gaussian=False):
    """A method's density on ``grid``: the weighted KDE of its particles (median-trick
    bandwidth) or its Gaussian; with ``best_of_gaussian`` the better, in total variation, of
    the KDE and a Gaussian fit to the particles (the paper's rule for Gibbs and SGLD).
    ``cloud`` = (particles, weights) overrides the result's own (a checkpoint)."""
    result = check_instance("result", result, (Particles, GaussianFit))
    grid = check_instance("grid", grid, Grid)
    exact = _check_exact(exact, grid)
    best_of_gaussian = check_flag("best_of_gaussian", best_of_gaussian)
    if cloud is not None:
        if not isinstance(cloud, (tuple, list)) or len(cloud) != 2:
            raise ValueError(f"cloud must be None or a pair (particles, weights), got "
                             f"{type(cloud).__name__}")
        particles, weights = _check_cloud(cloud[0], cloud[1], "cloud particles", "cloud weights")
    if isinstance(result, GaussianFit):
        return result.density_on(grid)
    particles, weights = (result.particles, result.weights) if cloud is None else (particles,
                                                                                   weights)
    kde = Particles(particles, weights, median_bandwidth(particles), result.method)
    dens = kde.density_on(grid)
    if best_of_gaussian and particles.shape[0] > 2:
        fit = GaussianFit.of(kde).density_on(grid)
        area = grid.cell_area
        if total_variation(exact, fit, area) < total_variation(exact, dens, area):
            dens = fit
    return dens


def mode_shares(particles: np.ndarray, weights: np.ndarray) -> tuple[float, float]:
    """The weight on theta2 < 0 and on theta2 > 0. The model's symmetry (theta1, theta2) ->
    (theta1 + theta2, -theta2) flips theta2's sign, so the sign separates its two modes."""
    particles, weights = _check_cloud(particles, weights)
    below = float(weights[particles[:, 1] < 0].sum())
    return below, float(weights.sum()) - below


def exact_samples(exact: np.ndarray, grid: Grid, m: int, rng: np.random.Generator) -> Particles:
    """``m`` independent draws from the exact posterior on the grid (a cell by its mass, then a
    uniform point in it), equally weighted: what a perfect sampler would return."""
    grid = check_instance("grid", grid, Grid)
    exact = _check_exact(exact, grid)
    m = check_count("m", m, low=2, high=10_000_000)
    rng = check_instance("rng", rng, np.random.Generator)
    prob = exact.ravel() / exact.sum()
    cells = rng.choice(prob.size, size=m, p=prob)
    step = np.array([grid.x[1] - grid.x[0], grid.y[1] - grid.y[0]])
    points = grid.points()[cells] + (rng.random((m, 2)) - 0.5) * step
    return Particles(points, np.full(m, 1.0 / m), median_bandwidth(points), "exact samples")


def _check_exact(exact, grid: Grid) -> np.ndarray:
    """A density on ``grid``: shape grid.shape, finite, non-negative, positive somewhere."""
    exact = check_array("exact", exact, shape=grid.shape)
    if np.any(exact < 0) or not exact.sum() > 0:
        raise ValueError("exact must be a non-negative density with a positive sum")
    return exact


def _check_cloud(particles, weights, pname="particles", wname="weights"):
    """Weighted particles: (m, 2) finite points and m non-negative weights, positive sum."""
    particles = check_array(pname, particles, ndim=2, shape=(None, 2))
    weights = check_array(wname, weights, shape=(particles.shape[0],))
    if particles.shape[0] == 0 or np.any(weights < 0) or not weights.sum() > 0:
        raise ValueError(f"{wname} must be non-negative with a positive sum over at least one "
                         f"particle, got {weights!r}")
    return particles, weights


def _check_methods(methods) -> tuple:
    """A non-empty sequence of names from ``METHODS`` (a lone string is refused)."""
    if isinstance(methods, str) or not isinstance(methods, (tuple, list)):
        raise TypeError(f"methods must be a tuple or list of names from {METHODS}, got "
                        f"{type(methods).__name__}")
    unknown = [name for name in methods if not isinstance(name, str) or name not in METHODS]
    if unknown or not methods:
        raise ValueError(f"methods must be a non-empty list of names from {METHODS}, got "
                         f"{list(methods)}")
    return tuple(methods)


def _check_seed(seed):
    """None or a non-negative integer (the entropy of the run's SeedSequence)."""
    if seed is None or (isinstance(seed, numbers.Integral) and not isinstance(seed, bool)
                        and seed >= 0):
        return None if seed is None else int(seed)
    raise ValueError(f"seed must be None or a non-negative integer, got {seed!r}")


@dataclass(frozen=True)
class Comparison:
    """All methods on one data set: the ``grid``, the ``exact`` posterior of all the data on it,
    each method's ``results``, its final density on the grid (``densities``), its learning
    curves (``curves``: method -> {"seen", "tv", "ce"} arrays against data visited), and the
    ``floor``: the total variation and cross entropy of as many exact posterior samples as
    particles, turned into a density by the same KDE rule (what the metric gives a perfect
    sampler)."""

    grid: Grid
    exact: np.ndarray
    results: dict
    densities: dict
    curves: dict
    floor: dict

    def final(self, method: str, metric: str = "tv") -> float:
        return float(self.curves[method][metric][-1])


def _curves(result, grid, exact, best_of_gaussian):
    area = grid.cell_area
    seen, tv, ce = [], [], []
    if isinstance(result, GaussianFit):
        states = [GaussianFit(m, c, result.method) for m, c in result.history["gaussians"]]
        dens = [s.density_on(grid) for s in states]
    else:
        dens = [estimate_on(result, grid, exact, cloud, best_of_gaussian=best_of_gaussian)
                for cloud in result.history["clouds"]]
    for visited, q in zip(result.history["seen"], dens):
        seen.append(visited)
        tv.append(total_variation(exact, q, area))
        ce.append(cross_entropy(exact, q, area))
    return {"seen": np.asarray(seen), "tv": np.asarray(tv), "ce": np.asarray(ce)}


def compare_methods(model: MixtureModel, data, *, methods=METHODS, particles: int = 1500,
                    batch_size: int = 10, seed=None, grid: Grid | None = None,
                    pmd_options: dict | None = None, checkpoints: int = 25,
                    progress=None) -> Comparison:
    """Run ``methods`` (names from ``METHODS``) on ``data`` with the budget of Sec 4.6.1
    (``particles`` for every Monte-Carlo method, minibatches of ``batch_size``, burn-in 50 for
    Gibbs and 1000 for SGLD) and measure total variation and cross entropy against the exact
    posterior of all the data, at log-spaced checkpoints of the data each has visited. Gibbs
    and SGLD use the better of a KDE and a Gaussian fit, as the paper does; every KDE has the
    median-trick bandwidth (0.1 x the median pairwise distance)."""
    x, m, b = check_run(model, data, particles, batch_size)
    methods = _check_methods(methods)
    seed = _check_seed(seed)
    checkpoints = check_count("checkpoints", checkpoints, high=10_000)
    if pmd_options is not None:
        check_instance("pmd_options", pmd_options, dict)
    progress = check_progress(progress)
    report(progress, 0.0, "exact posterior on the grid")
    grid = posterior_grid(model, x) if grid is None else check_instance("grid", grid, Grid)
    exact = grid_posterior(model, x, grid.x, grid.y)
    # the methods share what GRID_SHARE leaves of the progress fraction
    first = GRID_SHARE
    seeds = np.random.SeedSequence(seed).spawn(len(METHODS) + 1)
    runners = {
        "PMD": lambda s: particle_mirror_descent(model, x, particles=m, batch_size=b, seed=s,
                                                 checkpoints=checkpoints, **(pmd_options or {})),
        "one-pass SMC": lambda s: one_pass_smc(model, x, particles=m, batch_size=b, seed=s,
                                               checkpoints=checkpoints),
        "SGLD": lambda s: sgld(model, x, particles=m, batch_size=b, seed=s,
                               checkpoints=checkpoints),
        "Gibbs": lambda s: gibbs(model, x, particles=m, seed=s, checkpoints=checkpoints),
        "SVI": lambda s: svi(model, x, particles=m, batch_size=b, seed=s,
                             checkpoints=checkpoints),
    }
    results, densities, curves = {}, {}, {}
    for k, name in enumerate(methods):
        report(progress, first + (1 - first) * k / len(methods), f"{name}: running")
        rng = np.random.default_rng(seeds[METHODS.index(name)])
        result = runners[name](rng)
        best = name in ("SGLD", "Gibbs")
        results[name] = result
        densities[name] = estimate_on(result, grid, exact, best_of_gaussian=best)
        curves[name] = _curves(result, grid, exact, best)
        report(progress, first + (1 - first) * (k + 1) / len(methods), f"{name}: done",
               partial={"curves": dict(curves)})
    perfect = estimate_on(exact_samples(exact, grid, m, np.random.default_rng(seeds[-1])),
                          grid, exact)
    floor = {"tv": total_variation(exact, perfect, grid.cell_area),
             "ce": cross_entropy(exact, perfect, grid.cell_area)}
    return Comparison(grid, exact, results, densities, curves, floor)


@dataclass(frozen=True)
class RepeatSummary:
    """``compare_repeats``: per method the curves of every repeat (``tv``, ``ce``: repeats x
    checkpoints, against ``seen``), each repeat's floor (``Comparison.floor``), and per repeat
    whether PMD kept both modes (at least
    ``MODE_FLOOR`` of its weight on each side) and whether its final TV was below SGLD's and
    Gibbs's."""

    seen: dict
    tv: dict
    ce: dict
    floor_tv: np.ndarray
    floor_ce: np.ndarray
    pmd_both_modes: np.ndarray
    pmd_beats_local: np.ndarray
    comparisons: tuple

    def fraction_both_modes(self) -> float:
        return float(np.mean(self.pmd_both_modes))

    def fraction_pmd_best(self) -> float:
        return float(np.mean(self.pmd_beats_local))


#: PMD "keeps both modes" when each side of theta2 = 0 holds at least this share of its weight.
MODE_FLOOR = 0.1


def _repeat(r: int, model: MixtureModel, theta: np.ndarray, n: int, seed: int, methods: tuple,
            options: dict, progress=None) -> Comparison:
    """Repeat ``r`` of ``compare_repeats``: its data (seed ``seed + r``) and methods."""
    data = model.sample(n, theta, seed=seed + r)
    return compare_methods(model, data, methods=methods, seed=seed + r, progress=progress,
                           **options)


def compare_repeats(model: MixtureModel, theta, n: int, *, repeats: int = 10, seed: int = 0,
                    methods=METHODS, progress=None, **options) -> RepeatSummary:
    """``compare_methods`` on ``repeats`` data sets of ``n`` points drawn with ``theta`` (data
    seed ``seed + r``, method seeds from it), through ``dynamics.sweep``; ``progress`` hears
    each repeat as it goes and, after each, the summary so far (``partial``)."""
    model = check_instance("model", model, MixtureModel)
    theta = check_array("theta", theta, shape=(2,), max_abs=1e100)
    n = check_count("n", n, high=10_000_000)
    repeats = check_count("repeats", repeats, high=1000)
    seed = _check_seed(seed)
    seed = 0 if seed is None else seed
    methods = _check_methods(methods)
    progress = check_progress(progress)
    finished: dict = {}

    def done(r: int, comparison: Comparison) -> RepeatSummary:
        finished[r] = comparison
        return _summary([finished[k] for k in sorted(finished)], methods)

    tasks = [dict(r=r, model=model, theta=theta, n=n, seed=seed, methods=methods,
                  options=options) for r in range(repeats)]
    return _summary(sweep(_repeat, tasks, progress=progress, done=done, task_progress=True),
                    methods)


def _summary(comparisons: list, methods) -> RepeatSummary:
    seen = {name: comparisons[0].curves[name]["seen"] for name in methods}
    tv = {name: np.array([c.curves[name]["tv"] for c in comparisons]) for name in methods}
    ce = {name: np.array([c.curves[name]["ce"] for c in comparisons]) for name in methods}
    both, best = [], []
    for c in comparisons:
        if "PMD" in c.results:
            res = c.results["PMD"]
            both.append(min(mode_shares(res.particles, res.weights)) >= MODE_FLOOR)
            local = [c.final(name) for name in ("SGLD", "Gibbs") if name in c.results]
            best.append(bool(local) and c.final("PMD") < min(local))
    floor_tv = np.array([c.floor["tv"] for c in comparisons])
    floor_ce = np.array([c.floor["ce"] for c in comparisons])
    return RepeatSummary(seen, tv, ce, floor_tv, floor_ce, np.array(both, bool),
                         np.array(best, bool), tuple(comparisons))

