"""Dai, *Learning over functions, distributions and dynamics via stochastic optimization*: the
gallery's entries, each beside the page it uses, judged by the claim functions the pages
call."""

from __future__ import annotations

import numpy as np

from dynamics import dsg, pmd, sbeed
from dynamics import embedding_sgd as es
from views.figures.entry import Entry
from views.sbeed import ablation as sbeed_ablation

# --- the doubly stochastic gradients page ----------------------------------------------------


def _rate(e):
    r = e.jobs["curve"].result
    return dsg.rate_claim(r.history, steps=r.steps, batch=r.batch, block=r.block, norma=r.norma)


def _posterior(e):
    return dsg.posterior_claim(e.jobs["gp"].result.run)


# --- the particle mirror descent page --------------------------------------------------------


def _pmd(e):
    return pmd.best_method_claim(e.jobs["fig41"].result)


def _pmd_modes(e):
    return pmd.both_modes_claim(e.jobs["fig41"].result)


#: The thesis's "sigma_x = 2.5" read as a standard deviation: the reading the study sets beside
#: the page's default (the variance reading).
SD_READING = 2.5
#: The KDE branch as the thesis describes its run (Sec 4.6.1: the particle count grows to the
#: budget, the bandwidth shrinks as m_t^(-1/4)): m_t grows linearly from this many particles.
KDE_START = 100
#: SGD NPV (13 s of CPU a pass at 1500 components, measured) runs on this many of the data sets.
NPV_REPEATS = 3


def _finals(summary) -> str:
    return ", ".join(f"{name} {summary.tv[name][:, -1].mean():.3f} "
                     f"[{summary.tv[name][:, -1].min():.3f}, {summary.tv[name][:, -1].max():.3f}]"
                     for name in sorted(summary.tv, key=lambda k: summary.tv[k][:, -1].mean()))


def _pmd_extra_runs(explorer, settings, n, m, theta, progress):
    """The study's runs beside the page's: the standard-deviation reading, the KDE branch and
    SGD NPV (full size only)."""
    def later(fraction, message, partial=None):
        if progress:
            progress(0.2 + 0.4 * fraction, f"σₓ = {SD_READING:g}: {message}")
    extra, m_extra = int(settings["repeats"]), m
    other = explorer.run_fig41(dict(settings, sigma_x=SD_READING, repeats=extra,
                                    particles=m_extra), later)

    def kde_later(fraction, message, partial=None):
        if progress:
            progress(0.6 + 0.2 * fraction, f"KDE branch: {message}")
    model = pmd.MixtureModel(settings["sigma1"], settings["sigma2"], settings["sigma_x"],
                             settings["p"])
    kde = pmd.compare_repeats(
        model, theta, n, repeats=extra, seed=int(settings["seed"]),
        methods=("PMD",), particles=m_extra, batch_size=int(settings["batch_size"]),
        pmd_options=dict(strategy="kde", start_particles=min(KDE_START, m_extra),
                         step_size_rule=settings["step_rule"]), progress=kde_later)

    def npv_later(fraction, message, partial=None):
        if progress:
            progress(0.8 + 0.2 * fraction, f"SGD NPV: {message}")
    npv = pmd.compare_repeats(
        model, theta, n, repeats=min(NPV_REPEATS, extra),
        seed=int(settings["seed"]), methods=("SGD NPV",), particles=m_extra,
        batch_size=int(settings["batch_size"]), progress=npv_later)
    return other, kde, npv


def _pmd_head(main, best, modes, settings, n, m, seed, stability) -> str:
    """The study's verdict paragraph and its table of the metric on exact posterior draws."""
    repeats = len(main.comparisons)
    verdict = ("**reproduced**" if best.agrees else "**not reproduced**")
    return "\n".join([
        f"Fig 4.1 (1)-(2), PMD lowest in total variation and cross entropy: {verdict} with "
        f"σₓ = {settings['sigma_x']:g} (the variance reading, {repeats} repeats, "
        f"{n} data, {m} particles). Final total variation, mean [min, max]: {_finals(main)}; "
        f"the floor (exact posterior draws of the same size through the same KDE) "
        f"{main.floor_tv.mean():.3f} [{main.floor_tv_range.min():.3f}, "
        f"{main.floor_tv_range.max():.3f}]. {best.why}. Modes: {modes.measured} "
        f"({modes.outcome}).",
        "",
        "1. **The metric.** Sec 4.6.1 scores every method with a KDE of bandwidth 0.1 x the "
        "median pairwise distance of its own particles. On two equal modes that bandwidth "
        "follows the sample's mode split, so exact posterior draws score anything in a wide "
        "range; we give every method one bandwidth per data set, chosen on exact posterior "
        "draws, and draw the floor beside every curve. Eight redraws of "
        f"{m} exact posterior draws (data seed {seed}):",
        "",
        "| data | bandwidth rule | h | total variation | cross entropy |",
        "| --- | --- | --- | --- | --- |",
        *stability,
    ])


def _pmd_study(quick: bool, seed: int = 0, progress=None, explorer=None) -> dict:
    """Fig 4.1's differences: the metric on exact posterior draws (the paper's median trick
    against our reference bandwidth), the other reading of sigma_x, PMD's particles, the KDE
    branch with a growing particle count on the same data sets, and SGD NPV."""
    settings = explorer.jobs["fig41"].settings
    main = explorer.jobs["fig41"].result
    n, m = int(settings["n_data"]), int(settings["particles"])
    theta = (settings["theta1"], settings["theta2"])
    rows = ["reading,sigma_x,metric,bandwidth,tv_min,tv_mean,tv_max,ce_min,ce_mean,ce_max"]
    stability = []
    readings = (("variance", settings["sigma_x"]), ("standard deviation", SD_READING))
    for k, (reading, sigma_x) in enumerate(readings):
        if progress:
            progress(0.1 * k, f"metric on exact draws, σₓ = {sigma_x:g}")
        model = pmd.MixtureModel(settings["sigma1"], settings["sigma2"], sigma_x, settings["p"])
        data = model.sample(n, theta, seed=seed)
        redrawn = pmd.metric_redraws(model, data, m, redraws=8, seed=seed)
        for metric in ("median", "reference"):
            tv, ce = redrawn[metric]["tv"], redrawn[metric]["ce"]
            hs = redrawn[metric]["bandwidths"]
            h = f"{hs.min():.3f}-{hs.max():.3f}" if metric == "median" else f"{hs[0]:.3f}"
            rows.append(f"{reading},{sigma_x:g},{metric},{h},{tv.min():.4f},{tv.mean():.4f},"
                        f"{tv.max():.4f},{ce.min():.4f},{ce.mean():.4f},{ce.max():.4f}")
            stability.append(f"| σₓ = {sigma_x:g} ({reading}) | {metric} | {h} | "
                             f"{tv.min():.3f}-{tv.max():.3f} | {ce.min():.2f}-{ce.max():.2f} |")

    best, modes = pmd.best_method_claim(main), pmd.both_modes_claim(main)
    if quick:  # tests and CI: the metric's table only, the runs beside it at full size
        markdown = _pmd_head(main, best, modes, settings, n, m, seed, stability) + "\n\n" + (
            "At quick sizes the study's other runs (the other reading of σₓ, the KDE branch, "
            "SGD NPV) are skipped; `python -m views.figures --only dai.fig4_1` runs them.")
        return dict(markdown=markdown, tables={"study.csv": "\n".join(rows) + "\n"})
    other, kde, npv = _pmd_extra_runs(explorer, settings, n, m, theta, progress)
    extra, m_extra = int(settings["repeats"]), m
    kde_tv = kde.tv["PMD"][:, -1]
    kde_ess = np.mean([c.results["PMD"].ess for c in kde.comparisons])
    kde_h = np.mean([c.results["PMD"].history["bandwidths"][-1] for c in kde.comparisons])
    npv_tv = npv.tv["SGD NPV"][:, -1]
    npv_runs = len(npv.comparisons)
    npv_width = np.median([np.median(c.results["SGD NPV"].widths) for c in npv.comparisons])
    o_best, o_modes = pmd.best_method_claim(other), pmd.both_modes_claim(other)
    ess = np.mean([c.results["PMD"].ess for c in main.comparisons])
    markdown = "\n".join([
        _pmd_head(main, best, modes, settings, n, m, seed, stability),
        "",
        "2. **The reading of σₓ.** The thesis writes σₓ = 2.5 without saying whether it is a "
        "standard deviation or, as in Welling and Teh whose model it takes, a variance; it "
        "says Gibbs and SGLD stay in one mode in each run. With the variance reading (the "
        f"page's default), {modes.measured}. With σₓ = 2.5 as a standard deviation "
        f"({extra} repeat{'s' if extra > 1 else ''}, {m_extra} particles), {o_modes.measured}; "
        "final total "
        f"variation {_finals(other)}, "
        f"floor {other.floor_tv.mean():.3f}. Verdicts under that reading: {o_best.outcome}; "
        f"modes {o_modes.outcome}.",
        "",
        "3. **PMD's particles.** The thesis's PMD is the particle branch reweighting prior draws "
        "(eq 4.6) here: with gamma_t = 1/t its weights are exact importance weights from the "
        f"prior, and the posterior of {n} points is so narrow that PMD ends with an effective "
        f"sample size of {ess:.0f} of {m} (mean): a few spikes in both modes, which a fine "
        "kernel scores poorly.",
        "",
        "4. **The KDE branch**, as Sec 4.6.1 describes the thesis's own run (eqs 4.7-4.8: "
        f"resampled from the weighted KDE every step, m_t growing linearly from "
        f"{min(KDE_START, m_extra)} to {m_extra}, h_t = m_t^(-1/4) times the prior's scale, here {kde_h:.3f} at the end; the "
        "thesis states neither the step sizes nor the schedule: gamma_t "
        f"{settings['step_rule']}, and our tempered sub-steps), on the first {extra} of the "
        f"same data sets: final total variation {kde_tv.mean():.3f} [{kde_tv.min():.3f}, "
        f"{kde_tv.max():.3f}] against the floor {kde.floor_tv.mean():.3f}; it keeps both "
        f"modes in {int(kde.both_modes['PMD'].sum())} of {extra} (effective sample size "
        f"{kde_ess:.0f})."
        + (" With gamma_t = 1/t each iterate is the posterior of N copies of the data seen, as "
           "narrow as the final posterior while its centre moves by about σₓ / sqrt(t b) a "
           "step, and the kernel (wider than the ridges) re-blurs it every step: the cloud "
           "swings between the modes (the page's timeline shows it with *Prox-mapping* kde) "
           "and mostly settles in one." if 2 * kde.both_modes["PMD"].sum() < extra else ""),
        "",
        "5. **SGD NPV**, the sixth method (Gershman et al.'s mixture of "
        f"{m_extra} isotropic Gaussians and their entropy bound; our stochastic version: one "
        "reparameterised draw per component and step, Adam, 5 passes over the data; the "
        "thesis states none of these), on the first "
        f"{npv_runs} data sets: final total variation {npv_tv.mean():.3f} "
        f"[{npv_tv.min():.3f}, {npv_tv.max():.3f}] against the floor "
        f"{npv.floor_tv.mean():.3f}; it keeps both modes in "
        f"{int(npv.both_modes['SGD NPV'].sum())} of {npv_runs} (median component width "
        f"{npv_width:.3f}). Its cost, particles² kernel pairs a step, keeps it off the page and "
        "out of the 10-repeat comparison.",
        "",
        "**Result.** " + ("PMD has the lowest final total variation." if best.agrees else
                          "Not reproduced: " + best.why
                          + f" (PMD {main.tv['PMD'][:, -1].mean():.3f}, its KDE branch "
                          f"{kde_tv.mean():.3f}, SGD NPV {npv_tv.mean():.3f} on {npv_runs} data "
                          "sets, the floor "
                          f"{main.floor_tv.mean():.3f})."),
    ])
    return dict(markdown=markdown, tables={"study.csv": "\n".join(rows) + "\n"})


# --- the SBEED page --------------------------------------------------------------------------


def _ablation(e):
    result = e.jobs["ablation"].result
    return sbeed.intermediate_best_claim(result.pendulum, result.tabular)


# --- the Embedding-SGD page ------------------------------------------------------------------


def _mse(e):
    return es.mse_claim(e.jobs["seeds"].result)


ENTRIES = (
    Entry("dai.fig3_4", "dsg",
          "Dai, Fig 3.4: kernel ridge regression by doubly stochastic gradients",
          _rate, panels=("target_plot", "fit_plot", "error_plot", "memory_plot"),
          runs=("curve",), quick=dict(points=500, steps=512)),
    Entry("dai.fig3_5", "dsg",
          "Dai, Fig 3.5: the Gaussian-process posterior by doubly stochastic gradients",
          _posterior, panels=("gp_error_plot", "gp_mean_plot", "gp_variance_plot"),
          runs=("gp",),
          quick=dict(gp_points=256, gp_tests=64, gp_batch=16, gp_block=64, gp_steps=64,
                     first_step=4.0)),
    Entry("dai.fig4_1", "pmd",
          "Dai, Fig 4.1: particle mirror descent on a two-mode mixture posterior",
          _pmd, panels=("tv_plot", "kl_plot", "modes_plot", "exact_final", "final_0",
                        "final_1", "final_2", "final_3", "final_4"),
          runs=("fig41",), knobs=dict(repeats=10),
          quick=dict(repeats=2, n_data=200, particles=500), study=_pmd_study),
    Entry("dai.fig4_1_modes", "pmd",
          "Dai, Fig 4.1 (4)-(9): PMD keeps both modes, Gibbs and SGLD one",
          _pmd_modes, panels=("modes_plot", "exact_final", "final_0", "final_2", "final_3"),
          runs=("fig41",), knobs=dict(repeats=10),
          quick=dict(repeats=2, n_data=100, particles=200)),
    Entry("dai.fig6_1", "sbeed",
          "Dai, Fig 6.1: the SBEED ablation over λ, η and k",
          _ablation, panels=("ablation_lam", "ablation_eta", "ablation_k", "ablation_eta_noisy",
                             "ablation_tabular"),
          runs=("ablation",), knobs=dict(a_seeds=5),
          quick=dict(a_steps=1000, a_seeds=1), study=sbeed_ablation.study),
    Entry("dai.fig5_2a", "esgd",
          "Dai, Fig 5.2 (a): Embedding-SGD on noisy measurements",
          _mse, panels=("seeds_plot", "seeds_fit_plot"), runs=("seeds",),
          knobs=dict(runs_n=10, runs_data=100_000, features=500),
          quick=dict(runs_n=2, runs_data=20_000, features=200)),
)
