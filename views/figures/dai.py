"""Dai, *Learning over functions, distributions and dynamics via stochastic optimization*: the
gallery's entries, each beside the page it uses, judged by the claim functions the pages
call."""

from __future__ import annotations

from dynamics import dsg, pmd, sbeed
from dynamics import embedding_sgd as es
from views.figures.entry import Entry

# --- the doubly stochastic gradients page ----------------------------------------------------


def _rate(e):
    r = e.jobs["curve"].result
    return dsg.rate_claim(r.history, steps=r.steps, batch=r.batch, block=r.block, norma=r.norma)


def _posterior(e):
    return dsg.posterior_claim(e.jobs["gp"].result.run)


# --- the particle mirror descent page --------------------------------------------------------


def _pmd(e):
    return pmd.best_method_claim(e.jobs["fig41"].result)


# --- the SBEED page --------------------------------------------------------------------------


def _ablation(e):
    return sbeed.intermediate_best_claim(e.jobs["ablation"].result)


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
          _pmd, panels=("tv_plot", "ce_plot", "exact_final", "final_0", "final_1",
                        "final_2", "final_3", "final_4"),
          runs=("fig41",), quick=dict(repeats=2, n_data=200, particles=500)),
    Entry("dai.fig6_1", "sbeed",
          "Dai, Fig 6.1: the SBEED ablation over λ, η and k",
          _ablation, panels=("ablation_lam", "ablation_eta", "ablation_k"),
          runs=("ablation",), quick=dict(a_steps=2000, a_seeds=1)),
    Entry("dai.fig5_2a", "esgd",
          "Dai, Fig 5.2 (a): Embedding-SGD on noisy measurements",
          _mse, panels=("seeds_plot", "seeds_fit_plot"), runs=("seeds",),
          knobs=dict(runs_n=10, runs_data=100_000, features=500),
          quick=dict(runs_n=2, runs_data=20_000, features=200)),
)
