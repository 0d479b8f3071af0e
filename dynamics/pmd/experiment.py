"""The experiment of Sec 4.6.1 / Fig 4.1: every method on the same data, their total variation and
cross entropy against the exact posterior as the data are visited, over repeats."""

from __future__ import annotations

import numbers
from dataclasses import dataclass, field

import numpy as np

from dynamics.checks import (check_array, check_count, check_flag, check_instance,
                              check_positive, check_progress, report)
from dynamics.pmd.baselines import gibbs, one_pass_smc, sgld, svi
from dynamics.pmd.kde import GaussianFit
from dynamics.pmd.metric import (MODE_FLOOR, check_metric_bandwidth, estimate_on, floor_scores,
                                 reference_bandwidth, result_mode_shares)
from dynamics.pmd.mirror import check_run, particle_mirror_descent
from dynamics.pmd.npv import GaussianMixture, sgd_npv
from dynamics.pmd.model import (Grid, MixtureModel, check_data, cross_entropy, grid_posterior,
                                total_variation)
from dynamics.sweep import sweep

__all__ = ["METHODS", "EXTRA_METHODS", "GRID_SHARE", "FLOOR_DRAWS", "Comparison", "posterior_grid",
           "compare_methods", "RepeatSummary", "compare_repeats", "metric_redraws",
           "average_densities"]

#: The methods of Fig 4.1 that the page runs, in its order.
METHODS = ("PMD", "one-pass SMC", "SGLD", "Gibbs", "SVI")
#: Fig 4.1's sixth method, run on request (``methods=``): its entropy bound costs particles^2 per
#: step, 13 s of CPU a pass at the paper's 1500 components (measured), too slow for the page.
EXTRA_METHODS = ("SGD NPV",)
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


def _check_methods(methods) -> tuple:
    """A non-empty sequence of names from ``METHODS`` and ``EXTRA_METHODS`` (a lone string is
    refused)."""
    known = METHODS + EXTRA_METHODS
    if isinstance(methods, str) or not isinstance(methods, (tuple, list)):
        raise TypeError(f"methods must be a tuple or list of names from {known}, got "
                        f"{type(methods).__name__}")
    unknown = [name for name in methods if not isinstance(name, str) or name not in known]
    if unknown or not methods:
        raise ValueError(f"methods must be a non-empty list of names from {known}, got "
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
    curves (``curves``: method -> {"seen", "tv", "ce"} arrays against data visited), the
    metric's kernel ``bandwidth`` (``metric``), and its ``floor``: the total variation and cross
    entropy of as many exact posterior draws as particles through the same estimator ("tv",
    "ce": the mean over ``FLOOR_DRAWS`` draws; "tv_draws", "ce_draws": each draw), what the
    metric gives a perfect sampler. ``entropy``: the exact posterior's (on the grid), the least
    cross entropy: cross entropy minus it is the KL divergence KL(p || q)."""

    grid: Grid
    exact: np.ndarray
    results: dict
    densities: dict
    curves: dict
    floor: dict
    bandwidth: float = float("nan")
    entropy: float = float("nan")

    def final(self, method: str, metric: str = "tv") -> float:
        return float(self.curves[method][metric][-1])


#: Sets of exact posterior draws behind each data set's floor.
FLOOR_DRAWS = 4


def _curves(result, grid, exact, best_of_gaussian, bandwidth):
    area = grid.cell_area
    seen, tv, ce = [], [], []
    if isinstance(result, GaussianFit):
        states = [GaussianFit(m, c, result.method) for m, c in result.history["gaussians"]]
        dens = [s.density_on(grid) for s in states]
    elif isinstance(result, GaussianMixture):
        dens = [GaussianMixture(m, w, result.method).density_on(grid)
                for m, w in result.history["mixtures"]]
    else:
        dens = [estimate_on(result, grid, exact, cloud, best_of_gaussian=best_of_gaussian,
                            bandwidth=bandwidth)
                for cloud in result.history["clouds"]]
    for visited, q in zip(result.history["seen"], dens):
        seen.append(visited)
        tv.append(total_variation(exact, q, area))
        ce.append(cross_entropy(exact, q, area))
    return {"seen": np.asarray(seen), "tv": np.asarray(tv), "ce": np.asarray(ce)}


def compare_methods(model: MixtureModel, data, *, methods=METHODS, particles: int = 1500,
                    batch_size: int = 10, seed=None, grid: Grid | None = None,
                    pmd_options: dict | None = None, checkpoints: int = 25,
                    metric_bandwidth="reference", progress=None) -> Comparison:
    """Run ``methods`` (names from ``METHODS``) on ``data`` with the budget of Sec 4.6.1
    (``particles`` for every Monte-Carlo method, minibatches of ``batch_size``, burn-in 50 for
    Gibbs and 1000 for SGLD) and measure total variation and cross entropy against the exact
    posterior of all the data, at log-spaced checkpoints of the data each has visited (Fig 4.1
    (1)-(2)). Particles become a density by a Gaussian KDE whose bandwidth is
    ``metric_bandwidth``: "reference" (default), one bandwidth for this data set chosen on
    exact posterior draws (``reference_bandwidth``); or "median", the paper's median trick on
    each method's own particles. Gibbs and SGLD use the better of the KDE and a
    Gaussian fit, as the paper does. The floor: ``FLOOR_DRAWS`` sets of m exact posterior draws
    through the same KDE."""
    x, m, b = check_run(model, data, particles, batch_size)
    methods = _check_methods(methods)
    seed = _check_seed(seed)
    checkpoints = check_count("checkpoints", checkpoints, high=10_000)
    if pmd_options is not None:
        check_instance("pmd_options", pmd_options, dict)
    metric_bandwidth = check_metric_bandwidth(metric_bandwidth)
    progress = check_progress(progress)
    report(progress, 0.0, "exact posterior on the grid")
    grid = posterior_grid(model, x) if grid is None else check_instance("grid", grid, Grid)
    exact = grid_posterior(model, x, grid.x, grid.y)
    # the methods share what GRID_SHARE leaves of the progress fraction
    first = GRID_SHARE
    # children by index: the methods', the metric's two, then the extra methods'
    seeds = np.random.SeedSequence(seed).spawn(len(METHODS) + 2 + len(EXTRA_METHODS))
    method_seeds = {name: seeds[k] for k, name in enumerate(METHODS)}
    method_seeds.update({name: seeds[len(METHODS) + 2 + k]
                         for k, name in enumerate(EXTRA_METHODS)})
    h = (reference_bandwidth(exact, grid, m, seed=np.random.default_rng(seeds[len(METHODS)]))
         if metric_bandwidth == "reference" else None)  # None: the median trick
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
        "SGD NPV": lambda s: sgd_npv(model, x, particles=m, batch_size=b, seed=s,
                                     checkpoints=checkpoints),
    }
    results, densities, curves = {}, {}, {}
    for k, name in enumerate(methods):
        report(progress, first + (1 - first) * k / len(methods), f"{name}: running")
        rng = np.random.default_rng(method_seeds[name])
        result = runners[name](rng)
        best = name in ("SGLD", "Gibbs")
        results[name] = result
        densities[name] = estimate_on(result, grid, exact, best_of_gaussian=best, bandwidth=h)
        curves[name] = _curves(result, grid, exact, best, h)
        report(progress, first + (1 - first) * (k + 1) / len(methods), f"{name}: done",
               partial={"curves": dict(curves)})
    floor_rng = np.random.default_rng(seeds[len(METHODS) + 1])
    # the median trick: each draw with its own bandwidth, as each method had
    scores = floor_scores(exact, grid, m, "median" if h is None else h, seed=floor_rng,
                          draws=FLOOR_DRAWS)
    floor = {"tv": float(scores["tv"].mean()), "ce": float(scores["ce"].mean()),
             "tv_draws": scores["tv"], "ce_draws": scores["ce"]}
    return Comparison(grid, exact, results, densities, curves, floor,
                      float("nan") if h is None else h,
                      cross_entropy(exact, exact, grid.cell_area))


@dataclass(frozen=True)
class RepeatSummary:
    """``compare_repeats``: per method the curves of every repeat (``tv``, ``ce``: repeats x
    checkpoints, against ``seen``), each repeat's floor (``Comparison.floor``: ``floor_tv``,
    ``floor_ce`` the means, ``floor_tv_range``, ``floor_ce_range`` (repeats, 2) the least and
    largest draw) and metric ``bandwidth``; ``kl``, ``floor_kl`` and ``floor_kl_range``: the same
    cross entropies minus the exact posterior's entropy, KL(p || q) >= 0 (Fig 4.1 (2) plots "KL
    divergence (cross entropy)"); per method and repeat the share of the weight in
    the smaller mode (``smaller_share``, the side of theta2 = 0 with less; the exact
    posterior's in ``exact_smaller_share``) and whether it kept
    both modes (``both_modes``: at least ``MODE_FLOOR`` on each side; never for a Gaussian,
    which has one mode); and per repeat whether
    PMD kept both modes and whether its final TV was below SGLD's and Gibbs's."""

    seen: dict
    tv: dict
    ce: dict
    floor_tv: np.ndarray
    floor_ce: np.ndarray
    pmd_both_modes: np.ndarray
    pmd_beats_local: np.ndarray
    comparisons: tuple
    smaller_share: dict = field(default_factory=dict)
    both_modes: dict = field(default_factory=dict)
    floor_tv_range: np.ndarray | None = None
    floor_ce_range: np.ndarray | None = None
    bandwidth: np.ndarray | None = None
    exact_smaller_share: np.ndarray | None = None
    kl: dict = field(default_factory=dict)
    floor_kl: np.ndarray | None = None
    floor_kl_range: np.ndarray | None = None

    def fraction_both_modes(self, method: str = "PMD") -> float:
        return float(np.mean(self.both_modes[method]))

    def fraction_pmd_best(self) -> float:
        return float(np.mean(self.pmd_beats_local))


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
    each repeat as it goes and, after each, the summary so far (``partial``). The paper
    repeats 10 times (Sec 4.6.1)."""
    model = check_instance("model", model, MixtureModel)
    theta = check_array("theta", theta, shape=(2,), max_abs=1e100)
    n = check_count("n", n, high=10_000_000)
    repeats = check_count("repeats", repeats, high=1000)
    seed = _check_seed(seed)
    seed = 0 if seed is None else seed
    methods = _check_methods(methods)
    progress = check_progress(progress)
    if "metric_bandwidth" in options:
        check_metric_bandwidth(options["metric_bandwidth"])
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
    smaller = {name: np.array([min(result_mode_shares(c.results[name])) for c in comparisons])
               for name in methods}
    # a Gaussian has one mode, however its mass falls on the two sides of theta2 = 0
    both_modes = {name: (share >= MODE_FLOOR) & np.array(
        [not isinstance(c.results[name], GaussianFit) for c in comparisons], bool)
        for name, share in smaller.items()}
    best = []
    for c in comparisons:
        if "PMD" in c.results:
            local = [c.final(name) for name in ("SGLD", "Gibbs") if name in c.results]
            best.append(bool(local) and c.final("PMD") < min(local))
    floor_tv = np.array([c.floor["tv"] for c in comparisons])
    floor_ce = np.array([c.floor["ce"] for c in comparisons])
    tv_range = np.array([[np.min(c.floor["tv_draws"]), np.max(c.floor["tv_draws"])]
                         for c in comparisons])
    ce_range = np.array([[np.min(c.floor["ce_draws"]), np.max(c.floor["ce_draws"])]
                         for c in comparisons])
    pmd_both = both_modes.get("PMD", np.zeros(0, bool))
    entropy = np.array([c.entropy for c in comparisons])
    exact_below = np.array([c.exact[c.grid.y < 0].sum() / c.exact.sum() for c in comparisons])
    return RepeatSummary(seen, tv, ce, floor_tv, floor_ce, pmd_both, np.array(best, bool),
                         tuple(comparisons), smaller, both_modes, tv_range, ce_range,
                         np.array([c.bandwidth for c in comparisons]),
                         np.minimum(exact_below, 1 - exact_below),
                         {name: v - entropy[:, None] for name, v in ce.items()},
                         floor_ce - entropy, ce_range - entropy[:, None])


def metric_redraws(model: MixtureModel, data, m: int = 1500, *, redraws: int = 8,
                   seed=0) -> dict:
    """What the metric gives a perfect sampler, redrawn: ``redraws`` sets of ``m`` exact
    posterior draws of ``data`` scored (total variation and cross entropy against the exact
    posterior) with the paper's median trick ("median": each set's own bandwidth) and with the
    data set's reference bandwidth ("reference", ``reference_bandwidth``, chosen on other
    draws). Returns {"median": floor_scores(...), "reference": floor_scores(...),
    "bandwidth": the reference bandwidth}. A metric that can rank scores these sets alike."""
    model = check_instance("model", model, MixtureModel)
    x = check_data(data)
    m = check_count("m", m, low=2, high=1_000_000)
    redraws = check_count("redraws", redraws, high=1000)
    seed = _check_seed(seed)
    grid = posterior_grid(model, x)
    exact = grid_posterior(model, x, grid.x, grid.y)
    seeds = np.random.SeedSequence(seed).spawn(3)
    h = reference_bandwidth(exact, grid, m, seed=np.random.default_rng(seeds[0]))
    return {"median": floor_scores(exact, grid, m, "median", draws=redraws,
                                   seed=np.random.default_rng(seeds[1])),
            "reference": floor_scores(exact, grid, m, h, draws=redraws,
                                      seed=np.random.default_rng(seeds[2])),
            "bandwidth": h}


def average_densities(summary: RepeatSummary) -> tuple[Grid, dict]:
    """Fig 4.1 (3)-(9)'s "average solution" (Sec 4.6.1: "It should be noticed that this is the
    average solution"): each method's final density averaged over the repeats of ``summary``,
    and the exact posterior's ("exact"). Our repeats draw new data (``compare_repeats``), each on
    its own grid: every density is interpolated bilinearly onto the first repeat's grid (zero
    outside its own grid) before the mean, so the average of a method stuck in one mode per run
    shows both modes when the runs chose different ones. Returns (grid, {name: density})."""
    summary = check_instance("summary", summary, RepeatSummary)
    from scipy.interpolate import RegularGridInterpolator

    grid = summary.comparisons[0].grid
    points = grid.points()[:, ::-1]  # (theta2, theta1): the densities' axis order

    def on_grid(c: Comparison, dens: np.ndarray) -> np.ndarray:
        if c.grid is grid:
            return dens
        f = RegularGridInterpolator((c.grid.y, c.grid.x), dens, bounds_error=False,
                                    fill_value=0.0)
        return f(points).reshape(grid.shape)

    names = ["exact", *[n for n in METHODS + EXTRA_METHODS if n in summary.tv]]
    out = {}
    for name in names:
        stack = [on_grid(c, c.exact if name == "exact" else c.densities[name])
                 for c in summary.comparisons if name == "exact" or name in c.densities]
        out[name] = np.mean(stack, axis=0)
    return grid, out
