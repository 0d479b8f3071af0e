"""Every paper figure the project reproduces, from one command, with the paper's statement or
number beside ours: ``python -m views.figures`` (or ``ldx-figures``).

Each entry of ``ENTRIES`` is one figure or table of a source paper: an explorer with the paper's
settings (``knobs``; ``quick`` shrinks them for tests and CI), the runs it needs, the panels that
make the figure, the paper's statement, and ``judge``, which reads our result and returns what we
measured and a verdict ("reproduced", or "differs" and how). The command writes, per entry,
``<id>.png`` and ``<id>.pdf``, the numbers behind every panel in ``<id>/`` (CSV; images as
netCDF grids through xarray), and for all of
them ``index.html`` (a gallery) and ``REPORT.md`` (paper against ours, with verdicts).

Entries are tasks of one sweep (``dynamics.sweep``): by default on a local dask.distributed
cluster (one worker process per core) started and stopped here; ``--scheduler ADDRESS`` sends
them to a running cluster, ``--serial`` runs them in this process. An entry's result is a pure
function of its settings, so the files are the same whichever way it ran. Finished entries are
cached in ``<out>/.cache`` under a key of the entry's settings and the code's version (a hash of
``dynamics/`` and ``views/``): a re-run redoes only what changed.
"""

from __future__ import annotations

import argparse
import hashlib
import html
import io
import os
import pathlib
import pickle
import sys
import tempfile
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parent.parent
#: Where the gallery goes unless ``--out`` says otherwise.
DEFAULT_OUT = pathlib.Path("figures")


@dataclass(frozen=True)
class Entry:
    """One figure or table of a paper, as an explorer draws it."""

    id: str
    slug: str
    title: str
    paper: str
    judge: Callable
    panels: tuple[str, ...]
    runs: tuple[str, ...] = ()
    knobs: dict = field(default_factory=dict)
    quick: dict = field(default_factory=dict)

    def settings(self, quick: bool, seed: int | None) -> dict:
        knobs = dict(self.knobs)
        if quick:
            knobs.update(self.quick)
        if seed is not None:
            knobs["seed"] = seed
        return knobs


# --- judges: what we measured, and whether it is what the paper says --------------------------


def _verdict(ok: bool, how: str) -> str:
    return "reproduced" if ok else f"differs: {how}"


def _judge_dsg_curve(e) -> tuple[str, str]:
    from dynamics import dsg

    r = e.jobs["curve"].result
    h = r.history
    late = h["step"] >= min(100, h["step"][-1] // 4)
    slope = dsg.loglog_slope(h["step"][late], h["error"][late])
    norma = r.norma["error"][-1] if r.norma is not None else float("nan")
    ours = (f"log-log slope {slope:.2f} over steps {int(h['step'][late][0])}-{r.steps} "
            f"(batch {r.batch}, block {r.block}); ‖f̄ − f*‖² {h['error'][-1]:.2e}; memory "
            f"{r.steps * r.block + 1:,} numbers against NORMA's {r.steps * r.batch * 3:,} "
            f"(NORMA's error after {min(r.steps, 1024)} steps: {norma:.2e})")
    return ours, _verdict(-1.25 < slope < -0.75, f"slope {slope:.2f}, not about −1")


def _judge_gp(e) -> tuple[str, str]:
    h = e.jobs["gp"].result.run.history
    mean = h["mean_error"][-1] / h["mean_error"][0]
    var = h["variance_error"][-1] / h["variance_error"][0]
    ours = (f"after {int(h['seen'][-1]):,} points the squared errors against eq 3.9 fell to "
            f"{mean:.3f} (mean: {h['mean_error'][-1]:.2e}) and {var:.3f} (variance: "
            f"{h['variance_error'][-1]:.2e}) of their first values, falling throughout")
    ok = mean < 0.1 and var < 0.1 and np.all(np.diff(h["mean_error"]) < 0)
    return ours, _verdict(ok, "the errors fell by less than 10x in this run")


def _judge_esgd(e) -> tuple[str, str]:
    runs = e.jobs["seeds"].result.runs
    mse = np.array([r.mse for r in runs])
    base = np.mean([r.baseline_mse for r in runs])
    data = int(runs[0].history["seen"][-1])
    ours = (f"{len(runs)} runs of {data:,} data: MSE {mse.mean():.4f} on average ({mse.min():.4f}"
            f" to {mse.max():.4f}); plain regression on the noisy inputs {base:.4f}")
    ok = mse.mean() <= 1.5 * 0.0029 and data >= 100_000
    return ours, _verdict(ok, f"our MSE is {mse.mean() / 0.0029:.1f} times the paper's (the "
                              "step constants and bandwidths it chose are not readable; ours "
                              "still beats plain regression "
                              f"{base / mse.mean():.0f}-fold)")


def _judge_toy(e) -> tuple[str, str]:
    r = e.jobs["toy"].result
    right, wrong = r.right, r.wrong
    ratio = right.t[-1] * right.mse[-1] / right.limit
    se = right.t[-1] * right.stderr[-1] / right.limit
    sandwich = wrong.t[-1] * wrong.mse[-1] / wrong.limit
    ours = (f"t J E(θ_t − θ*)² = {ratio:.3f} ± {se:.3f} at t = {int(right.t[-1]):,} "
            f"({right.runs:,} runs); misspecified: t E(θ_t − θ_p)² / sandwich = {sandwich:.3f}")
    ok = abs(ratio - 1) <= max(3 * se, 0.05)
    return ours, _verdict(ok, f"efficiency ratio {ratio:.3f} ± {se:.3f}, not 1")


def _judge_curve(e) -> tuple[str, str]:
    from dynamics import online_bayes as ob

    r = e.jobs["curve"].result
    f = r.full
    rows, gaps = [], []
    for a in ob.QUOTED_ALPHA:
        k = np.flatnonzero(np.isclose(f.alpha, a))
        if k.size and r.replica is not None:
            k = k[0]
            rows.append(f"α {a:g}: {f.eps[k]:.3f} (batch Bayes {r.replica[k]:.3f})")
            gaps.append(abs(f.eps[k] - r.replica[k]) - 2 * f.stderr[k])
    ours = f"ε of ADF, {f.runs} runs, N = {f.N}: " + "; ".join(rows)
    ok = bool(gaps) and max(gaps) < 0.02
    return ours, _verdict(ok, "ADF is further than 0.02 from batch Bayes at some α")


def _judge_hbm(e) -> tuple[str, str]:
    r = e.jobs["sweep"].result
    rows = [i for i, m in enumerate(r.models) if m.kind == "hbm"]
    bias = r.bias[rows, 0]
    var_large_n = r.variance[rows, -1]
    full = rows[-1]
    falls_with_n = r.variance[full, -1] < r.variance[full, 0]
    bias_falls = bool(np.all(np.diff(bias) <= 1e-12))
    var_grows = var_large_n[-1] > var_large_n[0]
    best_small = int(np.argmin(r.total[rows, 0])) + 1
    best_large = int(np.argmin(r.total[rows, -1])) + 1
    ours = (f"n = {r.n}, {r.datasets} datasets per N: HBM bias {bias[0]:.3f} (order 1) to "
            f"{bias[-1]:.2g} (order {len(rows)}); at N = {int(r.Ns[-1]):,} variance "
            f"{var_large_n[0]:.2g} (order 1) to {var_large_n[-1]:.2g}; lowest total error at "
            f"N = {int(r.Ns[0])}: order {best_small}, at N = {int(r.Ns[-1]):,}: order "
            f"{best_large}")
    ok = bias_falls and var_grows and falls_with_n
    return ours, _verdict(ok, "bias, variance or their trend with N do not behave as stated")


def _judge_moments(e) -> tuple[str, str]:
    err = e.result().error
    ours = (f"fitted rates: herding T^{err.herding_slope:.2f}, i.i.d. T^{err.iid_slope:.2f}; "
            f"autocorrelation at lag 1: herding {e.result().autocorrelation[1]:.2f}, i.i.d. "
            f"{e.result().iid_autocorrelation[1]:.2f}")
    ok = (err.herding_slope < -0.85 and -0.65 < err.iid_slope < -0.35
          and e.result().autocorrelation[1] < 0)
    return ours, _verdict(ok, "the fitted rates are not about −1 and −1/2, or the lag-1 "
                              "autocorrelation is not negative")


FEIGENBAUM = 4.669201609


def _judge_cascade(e) -> tuple[str, str]:
    a = e.result()
    c = a.cascade
    ratios = ", ".join(f"{r:.3f}" for r in c.ratios)
    ours = (f"doublings to period {int(c.periods[-1]) if c.periods.size else 0}; ratios "
            f"δₙ = {ratios}")
    ok = c.ratios.size >= 3 and abs(c.ratios[-1] / FEIGENBAUM - 1) < 0.01
    return ours, _verdict(ok, "the ratios do not settle within 1 % of Feigenbaum's 4.6692")


def _judge_sturmian(e) -> tuple[str, str]:
    r = e.result()
    T = np.arange(1, len(r.words) + 1)
    sturmian = bool(np.all(r.words == T + 1))
    ours = (f"rate {float(e.rate):.6f}: M(T) = T + 1 for T = 1..{len(T)}: {sturmian}; largest "
            f"discrepancy {float(np.abs(r.run.discrepancy).max()):.3f} (bound {r.bound:g})")
    ok = sturmian and float(np.abs(r.run.discrepancy).max()) <= r.bound
    return ours, _verdict(ok, "the word count or the discrepancy bound fails")


def _judge_torus(e) -> tuple[str, str]:
    r = e.result()
    ours = (f"discrepancy of the irrational rotation {r.discrepancy[0]:.3f} -> "
            f"{r.discrepancy[-1]:.5f}; of the rational one {r.rational_discrepancy[-1]:.3f} at "
            f"the end")
    ok = r.discrepancy[-1] < 0.01 < r.rational_discrepancy[-1]
    return ours, _verdict(ok, "the irrational rotation does not fill the torus evenly")


def _judge_words(e) -> tuple[str, str]:
    r = e.jobs["word"].result
    names = list(r.methods)
    w, c = r.word_mean[-1], r.char_mean[-1]
    finals = "; ".join(f"{m} {w[k]:.3f} / {c[k]:.3f}" for k, m in enumerate(names))
    best_w, best_c = names[int(np.argmax(w))], names[int(np.argmax(c))]
    ours = f"final word / character accuracy: {finals} (best: {best_w} / {best_c})"
    ok = best_w.startswith("doeblin") and best_c.startswith("doeblin")
    return ours, _verdict(ok, f"{best_w} has the best word accuracy and {best_c} the best "
                              "character accuracy, not Doeblin sampling (issue 17 item 3: "
                              "the task and model differ from the paper's)")


def _judge_dnf(e) -> tuple[str, str]:
    r = e.jobs["dnf"].result
    hardest = r.mean_seconds[-1]
    cells = ", ".join(f"{m} {1e3 * t:.3g} ms" for m, t in zip(r.methods, hardest))
    ours = f"mean time to a consistent formula at level '{r.levels[-1]}': {cells}"
    order = list(np.argsort(hardest))
    ok = [r.methods[k] for k in order] == ["2-stage", "1-stage", "0-stage"]
    fastest = r.methods[order[0]]
    how = (f"{fastest} is fastest; the paper's order is 2-stage, 1-stage (30 % slower), 0-stage "
           f"(50x slower). {_restart_evidence(min(int(e.trials), 12))}")
    return ours, _verdict(ok, how)


def _restart_evidence(problems: int) -> str:
    """What the restart rate does on our hardest problems: the paper's 0.0002 against 2e-5,
    mean MH steps to a consistent formula (and how many of the problems were solved within
    300,000 steps), the same problems and seeds for every method."""
    from dynamics.doeblin import dnf

    level = dnf.DNF_LEVELS["harder"]
    cells, means = [], {}
    for method, restart in (("0-stage", 0.0), ("1-stage", 2e-4), ("2-stage", 2e-4),
                            ("1-stage", 2e-5), ("2-stage", 2e-5)):
        steps, solved = [], 0
        for k in range(problems):
            problem = dnf.make_dnf_problem(**level, seed=k)
            run = dnf.dnf_search(problem, method=method, max_steps=300_000, seed=100 + k,
                                 **({"restart": restart} if restart else {}))
            steps.append(run.steps)
            solved += bool(run.solved)
        rate = "" if method == "0-stage" else f" at restart rate {restart:g}"
        means[method, restart] = float(np.mean(steps))
        cells.append(f"{method}{rate} {np.mean(steps):,.0f} steps ({solved}/{problems} solved)")
    plain = means["0-stage", 0.0]
    rarer = [m for m in ("1-stage", "2-stage") if means[m, 2e-5] < plain]
    closing = (f"with restarts ten times rarer, {' and '.join(rarer)} beat no restarts, by "
               f"{plain / min(means[m, 2e-5] for m in rarer):.2f}x at most (the paper: 50x)"
               if rarer else "ten times rarer restarts do not beat no restarts either")
    return (f"Mean MH steps from a random formula on {problems} of our 'harder' problems: "
            + "; ".join(cells) + f". The paper's rate 0.0002 restarts every 5,000 steps on "
            f"average, before a typical solve here; {closing}. Our random problems leave plain "
            "MH no traps to escape; the paper's come from verifying C programs, which we do "
            "not have.")


def _judge_pmd(e) -> tuple[str, str]:
    r = e.jobs["fig41"].result
    tv = {name: float(v[:, -1].mean()) for name, v in r.tv.items()}
    ce = {name: float(v[:, -1].mean()) for name, v in r.ce.items()}
    order = sorted(tv, key=tv.get)
    ours = ("final total variation " + ", ".join(f"{m} {tv[m]:.3f}" for m in order)
            + "; cross entropy " + ", ".join(f"{m} {ce[m]:.3f}" for m in sorted(ce, key=ce.get))
            + f" ({len(r.comparisons)} repeats)")
    ok = order[0] == "PMD" and min(ce, key=ce.get) == "PMD"
    return ours, _verdict(ok, f"{order[0]} ends with the lowest total variation and "
                              f"{min(ce, key=ce.get)} with the lowest cross entropy, not PMD")


def _judge_ising(e) -> tuple[str, str]:
    page = e.result()
    sw, herd = page.sw_fit.slope, page.herd_fit.slope
    ours = (f"L = {int(e.L)}, β = {float(e.beta):g}, {int(e.steps)} samples: cluster-size "
            f"exponents Swendsen-Wang {sw:.2f}, herding {herd:.2f} (fitted over sizes "
            f"{page.sw_fit.fit_min:.0f}-{page.sw_fit.fit_max:.0f}); neighbour correlation "
            f"{page.c:.4f} (SW) against {page.herd.correlation.mean():.4f} (herding)")
    ok = abs(sw - herd) < 0.15
    return ours, _verdict(ok, f"the exponents differ by {abs(sw - herd):.2f}")


def _judge_boundaries(e) -> tuple[str, str]:
    r = e.jobs["boundaries"].result
    ours = (f"{e.dataset} data: test error voted perceptron {100 * r.vp_error:.1f} %, "
            f"conditional herding with {r.hidden} hidden units {100 * r.ch_error:.1f} %")
    ok = r.ch_error < r.vp_error
    return ours, _verdict(ok, "conditional herding does not beat the voted perceptron")


def _judge_ablation(e) -> tuple[str, str]:
    r = e.jobs["ablation"].result
    parts, extremes = [], []
    for name, values in r.panels.items():
        finals = {v: float(np.median(runs[:, -10:].mean(axis=1))) for v, runs in values.items()}
        order = list(finals)
        best = max(finals, key=finals.get)
        parts.append(f"{name}: best {best} (" + ", ".join(f"{v} {x:.0f}" for v, x in
                                                       finals.items()) + ")")
        if best in (order[0], order[-1]):
            extremes.append(f"{name} = {best}")
    ours = (f"median final return over {r.seeds} seeds (last 10 episodes, Pendulum-v1 instead "
            "of Swimmer): " + "; ".join(parts))
    return ours, _verdict(not extremes, "the best value is at the end of its grid for "
                                        + ", ".join(extremes))


def _judge_doeblin_chain(e) -> tuple[str, str]:
    sw = e.result().sweep
    gap_ok = bool(np.all(sw.gaps >= sw.eps - 1e-12))
    mono = bool(np.all(np.diff(sw.kl_restart_pi) >= -1e-12)
                and np.all(np.diff(sw.kl_pi_restart) >= -1e-12))
    ours = (f"{len(sw.eps)} values of ε from {sw.eps[0]:.1e} to {sw.eps[-1]:.2g}: spectral gap "
            f">= ε at every one: {gap_ok} (smallest gap − ε {float(np.min(sw.gaps - sw.eps)):.2e});"
            f" KL(π̃‖π) and KL(π‖π̃) non-decreasing in ε: {mono}; π̃(y) from "
            f"{sw.stationary[0, e.state - 1]:.3f} to {sw.stationary[-1, e.state - 1]:.3f}")
    return ours, _verdict(gap_ok and mono, "Prop 3.1 or 3.4 fails on this grid")


def _judge_staged(e) -> tuple[str, str]:
    run = e.result()
    st, bd = run.staged, run.bounds
    above = bool(np.all(st.gaps >= bd.theorem - 1e-12))
    cor = ~np.isnan(bd.corollary)
    above_cor = bool(np.all(st.gaps[cor] >= bd.corollary[cor] - 1e-12))
    ours = (f"ε₁ = {st.eps1:g}, {len(st.eps2)} values of ε₂: staged gap above Thm 3.6's bound "
            f"at all: {above}, above Cor 3.7's ε₂/78 where it applies ({int(cor.sum())} values):"
            f" {above_cor}; smallest ratio gap / Thm 3.6 bound "
            f"{float(np.min(st.gaps / bd.theorem)):.2f}")
    return ours, _verdict(above and above_cor, "a staged gap falls below its bound")


def _judge_attractor(e) -> tuple[str, str]:
    res = e.result()
    box = e.jobs["box"].result
    used = box.sizes[box.used]
    ours = (f"D = {int(e.n_states)}, K = {int(e.n_features)}, seed {int(e.seed)}: box-counting "
            f"dimension of the attractor {box.dimension:.3f} (fitted over box sides "
            f"{used.max():.3g}-{used.min():.3g} of the bounding box, {int(e.box_steps):,} steps);"
            f" ℓ₀(w) ≤ 0 held at every step: {bool(res.run.cycling_holds)} (Fig 1.2's Tipi)")
    ok = 0.0 < box.dimension < 1.0 and bool(res.run.cycling_holds)
    return ours, _verdict(ok, f"our random model's attractor measures {box.dimension:.2f}, not "
                              "between 0 and 1 (the paper's example, whose features it does "
                              "not give)")


ENTRIES: dict[str, Entry] = {e.id: e for e in (
    Entry("herding.fig1_1", "bifurcation",
          "Chen & Welling, Fig 1.1: the period-doubling cascade of tempered herding",
          "Lowering the temperature sends gradient ascent through a period-doubling cascade "
          "into chaos at T = 0 (the edge of chaos), with Feigenbaum's universal ratio.",
          _judge_cascade,
          panels=("orbit_annotations", "period_plot", "attractor_plot", "lyapunov_plot")),
    Entry("herding.fig1_8_9", "neuron",
          "Chen & Welling, Figs 1.8-1.9: a single herded neuron writes a Sturmian sequence",
          "With an irrational rate the herded neuron's states form a Sturmian sequence (the "
          "rabbit sequence for the golden rate): M(T) = T + 1 distinct words of length T and a "
          "discrepancy bounded by 1 (Prop 1.5, Cor 1.6).",
          _judge_sturmian,
          panels=("weights_plot", "stripes_plot", "discrepancy_plot", "words_plot")),
    Entry("herding.fig1_17", "torus",
          "Chen & Welling, Fig 1.17: herding with D = K + 1 states is a rotation on the torus",
          "An irrational rotation fills the torus uniformly (Prop 1.11); a rational one visits "
          "q points.",
          _judge_torus,
          panels=("torus_plot", "rational_plot", "weights_plot", "discrepancy_plot")),
    Entry("herding.fig1_4", "herding",
          "Chen & Welling, Prop 1.2 and Fig 1.4: moment matching and negative autocorrelation",
          "Herding matches the moments at rate O(1/T), against O(1/√T) for i.i.d. samples, "
          "and its samples are negatively autocorrelated (Fig 1.4).",
          _judge_moments, panels=("moment_plot", "autocorrelation_plot"),
          quick=dict(steps=5000)),
    Entry("herding.fig1_10_11", "herding",
          "Chen & Welling, Figs 1.2, 1.10-1.11: the Tipi function, the cones and the attractor",
          "Herding's weights trace a bounded, often fractal attractor inside the cones of the "
          "states; for the example of Fig 1.11 (six states, two features) its Hausdorff "
          "dimension is between 0 and 1.",
          _judge_attractor, panels=("cones_plot", "tipi_plot", "box_plot"), runs=("box",),
          quick=dict(box_steps=50_000)),
    Entry("herding.fig1_6_7", "ising",
          "Chen & Welling, Figs 1.6-1.7: herding an Ising lattice at the critical temperature",
          "Herding's samples look like the Ising model's, and their connected-component sizes "
          "follow a power law with an almost identical exponent.",
          _judge_ising, panels=("sw_image", "herd_image", "cluster_plot", "correlation_plot"),
          knobs=dict(L=100), quick=dict(L=32, steps=300, frame=299)),
    Entry("herding.fig1_16", "pct",
          "Chen & Welling, Fig 1.16: decision boundaries of the voted perceptron and conditional "
          "herding",
          "On the banana data the hidden units of conditional herding give it a better boundary "
          "than the voted perceptron, whose weights oscillate.",
          _judge_boundaries, panels=("vp_plot", "ch_plot"), runs=("boundaries",),
          quick=dict(epochs=60)),
    Entry("steinhardt.fig1", "doeblin",
          "Steinhardt & Liang, Fig 1 and Props 3.1-3.5: a chain made fast-mixing by restarts",
          "Restarting with probability ε gives a spectral gap of at least ε (Prop 3.1); the "
          "stationary law moves from π to u as ε grows, in two regimes for the three-state chain"
          " (Fig 1), and both KL divergences to π grow monotonically (Prop 3.4).",
          _judge_doeblin_chain,
          panels=("stationary_plot", "divergence_plot", "gap_plot", "eigen_plot")),
    Entry("steinhardt.fig2", "doeblin",
          "Steinhardt & Liang, Fig 2 and Thm 3.6: staged strong Doeblin chains",
          "A chain of stages (restart, a simpler chain, the full chain) keeps a spectral gap "
          "bounded below by Thm 3.6 (and ε₂/78 under Cor 3.7's hypothesis).",
          _judge_staged, panels=("staged_plot",)),
    Entry("steinhardt.fig4", "doeblin",
          "Steinhardt & Liang, Fig 4: word inference from keyboard gestures",
          "Learning a strong Doeblin chain beats Gibbs sampling: 3.6 % more character accuracy "
          "with 5x fewer samples (Doeblin sampling above u_θ-Gibbs and basic Gibbs).",
          _judge_words, panels=("word_plot", "char_plot"), runs=("word",),
          quick=dict(transitions=10, epochs=3, seeds=1)),
    Entry("steinhardt.table1", "doeblin",
          "Steinhardt & Liang, Table 1: DNF formula search with staged restarts",
          "The 2-stage chain is fastest, 30 % faster than uniform restarts (1-stage) and 50x "
          "faster than no restarts (0-stage).",
          _judge_dnf, panels=("dnf_plot",), runs=("dnf",), quick=dict(trials=10)),
    Entry("opper.fig1", "bayes",
          "Opper, Fig 1: efficiency of the 1-D toy, and a misspecified model",
          "Assumed-density filtering is asymptotically efficient: t J E(θ_t − θ*)² → 1 (eq "
          "8.10); a misspecified model's error follows the sandwich A⁻¹BA⁻¹/t.",
          _judge_toy, panels=("toy_plot", "sandwich_plot"), runs=("toy",),
          quick=dict(toy_runs=200, toy_t=2000)),
    Entry("opper.fig2", "bayes",
          "Opper, Fig 2: the perceptron's learning curve against batch Bayes",
          "The online ADF curve of the probit perceptron (N = 50, σ₀ = 6.24) lies very close "
          "to the optimal batch Bayes curve.",
          _judge_curve, panels=("curve_plot", "entropic_plot"), runs=("curve",),
          quick=dict(n_runs=8, alpha_max=5.0)),
    Entry("luo.figs5_9", "hbm",
          "Luo & Sugiyama, Figs 5-9: bias and variance against N and the number of parameters",
          "More parameters lower the bias and raise the variance; the variance falls with N, "
          "so the best model grows with the sample size.",
          _judge_hbm,
          panels=("total_plot", "bias_n_plot", "variance_plot", "bias_plot", "params_plot"),
          runs=("sweep",), knobs=dict(datasets=24),
          quick=dict(n=4, datasets=2, n_max=300, hidden=[0, 2])),
    Entry("dai.fig3_4", "dsg",
          "Dai, Fig 3.4: kernel ridge regression by doubly stochastic gradients",
          "The averaged iterate converges to the optimum at rate O(1/t) (Thm 11), with "
          "accuracy comparable to NORMA's in far less memory.",
          _judge_dsg_curve, panels=("target_plot", "fit_plot", "error_plot", "memory_plot"),
          runs=("curve",), quick=dict(points=500, steps=1024)),
    Entry("dai.fig3_5", "dsg",
          "Dai, Fig 3.5: the Gaussian-process posterior by doubly stochastic gradients",
          "On 2¹¹ training and 2¹⁰ test points (σ² = 0.1, batch 64, block 512) the doubly "
          "stochastic estimates converge to the posterior mean and variance.",
          _judge_gp, panels=("gp_error_plot", "gp_mean_plot", "gp_variance_plot"),
          runs=("gp",),
          quick=dict(gp_points=256, gp_tests=64, gp_batch=16, gp_block=64, gp_steps=64,
                     first_step=4.0)),
    Entry("dai.fig4_1", "pmd",
          "Dai, Fig 4.1: particle mirror descent on a two-mode mixture posterior",
          "PMD reaches a lower total variation and cross entropy to the posterior than one-pass "
          "SMC, SGLD, Gibbs sampling and SVI for the same data visited.",
          _judge_pmd, panels=("tv_plot", "ce_plot", "exact_final", "final_0", "final_1",
                              "final_2", "final_3", "final_4"),
          runs=("fig41",), quick=dict(repeats=2)),
    Entry("dai.fig6_1", "sbeed",
          "Dai, Fig 6.1: the SBEED ablation over λ, η and k",
          "An intermediate entropy weight λ, an intermediate dual weight η and an intermediate "
          "rollout length k each give the best return (on Swimmer-v1).",
          _judge_ablation, panels=("ablation_lam", "ablation_eta", "ablation_k"),
          runs=("ablation",), quick=dict(a_steps=2000, a_seeds=1)),
    Entry("dai.fig5_2a", "esgd",
          "Dai, Fig 5.2 (a): Embedding-SGD on noisy measurements",
          "Average MSE 0.0029 after 0.1M data (10 runs), significantly better than the "
          "alternatives.",
          _judge_esgd, panels=("seeds_plot", "seeds_fit_plot"), runs=("seeds",),
          knobs=dict(runs_n=10, runs_data=100_000, features=500),
          quick=dict(runs_n=2, runs_data=20_000, features=200)),
)}


# --- building one entry (a pure task: it runs on any worker) -----------------------------------


def code_version() -> str:
    """A hash of the engines' and views' source: cached results older than it are redone."""
    digest = hashlib.sha256()
    for folder in ("dynamics", "views"):
        for path in sorted((ROOT / folder).glob("*.py")):
            digest.update(path.name.encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_key(entry: Entry, quick: bool, seed: int | None, version: str) -> str:
    text = repr((entry.id, sorted(entry.settings(quick, seed).items()), quick, version))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _grid_netcdf(layer) -> bytes:
    """An image's labelled grid as netCDF (xarray; scipy's netCDF-3 writer)."""
    import xarray as xr

    x, y, z = (d.name for d in layer.dimensions()[:3])
    xs = layer.dimension_values(0, expanded=False)
    ys = layer.dimension_values(1, expanded=False)
    values = layer.dimension_values(2, flat=False)
    array = xr.DataArray(np.asarray(values, dtype=float), coords={y: ys, x: xs}, dims=(y, x),
                         name=z, attrs={"long_name": layer.dimensions()[2].pprint_label})
    return bytes(array.to_dataset().to_netcdf(engine="scipy"))


def _tables(layout) -> dict[str, str | bytes]:
    """The numbers behind every panel: one file per element (panel and layer), images as
    netCDF grids, everything else as CSV."""
    import holoviews as hv

    tables: dict[str, str | bytes] = {}
    for p, panel in enumerate(layout):
        layers = list(panel) if isinstance(panel, hv.Overlay) else [panel]
        title = str(panel.opts.get("plot", "matplotlib").kwargs.get("title", "") or "")
        for k, layer in enumerate(layers):
            stem = f"panel{p + 1}_layer{k + 1}"
            if isinstance(layer, hv.Image):
                tables[f"{stem}.nc"] = _grid_netcdf(layer)
                continue
            try:
                frame = layer.dframe()
            except Exception:  # noqa: BLE001 - an element without tabular data (a label)
                continue
            buffer = io.StringIO()
            buffer.write(f"# {title} / {type(layer).__name__} {layer.label}\n")
            frame.to_csv(buffer, index=False)
            tables[f"{stem}.csv"] = buffer.getvalue()
    return tables


def build(entry_id: str, quick: bool = False, seed: int | None = None) -> dict:
    """Compute one entry: its figure as PNG and PDF bytes, its tables, what we measured and
    the verdict. Pure: the same arguments give the same files."""
    from views import EXPLORERS
    from views._common import export_figure

    entry = ENTRIES[entry_id]
    started = time.perf_counter()
    cls = EXPLORERS[entry.slug]
    knobs = entry.settings(quick, seed)
    if "seed" in knobs and "seed" not in cls.param:
        knobs.pop("seed")
    explorer = cls(**knobs)
    for run in entry.runs:
        explorer.jobs[run].compute()
    layout = explorer.figure(only=entry.panels)
    files = {}
    with tempfile.TemporaryDirectory() as tmp:
        for suffix in (".png", ".pdf"):
            path = export_figure(layout, os.path.join(tmp, entry_id + suffix), title=entry.title)
            files[suffix] = path.read_bytes()
    ours, verdict = entry.judge(explorer)
    return dict(id=entry_id, png=files[".png"], pdf=files[".pdf"], tables=_tables(layout),
                ours=ours, verdict=verdict, settings=knobs,
                seconds=time.perf_counter() - started)


# --- the command ---------------------------------------------------------------------------------


def _write(out: pathlib.Path, result: dict) -> None:
    (out / f"{result['id']}.png").write_bytes(result["png"])
    (out / f"{result['id']}.pdf").write_bytes(result["pdf"])
    folder = out / result["id"]
    folder.mkdir(exist_ok=True)
    for old in list(folder.glob("*.csv")) + list(folder.glob("*.nc")):
        old.unlink()
    for name, data in result["tables"].items():
        if isinstance(data, bytes):
            (folder / name).write_bytes(data)
        else:
            (folder / name).write_text(data)


def write_report(out: pathlib.Path, results: list[dict], *, quick: bool) -> None:
    size = ("**Quick sizes** (tests and CI): smaller than the paper's, so a verdict here is "
            "about this size." if quick else "The paper's sizes where the entry gives them.")
    lines = ["# Paper figures: the paper's statement beside ours", "", size, "",
             "| figure | the paper | ours | verdict |", "| --- | --- | --- | --- |"]
    for r in results:
        e = ENTRIES[r["id"]]
        lines.append(f"| [{e.title}]({r['id']}.png) | {e.paper} | {r['ours']} | "
                     f"**{r['verdict']}** |")
    lines += ["", "Times (seconds, on the worker that built each entry): "
              + ", ".join(f"{r['id']} {r['seconds']:.1f}" for r in results) + "."]
    (out / "REPORT.md").write_text("\n".join(lines) + "\n")
    cards = []
    for r in results:
        e = ENTRIES[r["id"]]
        csvs = " ".join(f'<a href="{r["id"]}/{name}">{name}</a>'
                        for name in sorted(r["tables"]))
        cards.append(
            f'<section id="{r["id"]}"><h2>{html.escape(e.title)}</h2>'
            f'<a href="{r["id"]}.pdf"><img src="{r["id"]}.png" alt="{html.escape(e.title)}"></a>'
            f'<p><b>The paper:</b> {html.escape(e.paper)}</p>'
            f'<p><b>Ours:</b> {html.escape(r["ours"])}</p>'
            f'<p><b>Verdict:</b> {html.escape(r["verdict"])}</p>'
            f'<p class="files">PDF: <a href="{r["id"]}.pdf">{r["id"]}.pdf</a>; numbers: {csvs}'
            f'</p></section>')
    (out / "index.html").write_text(
        "<!doctype html><html><head><meta charset='utf-8'><title>Learning Dynamics Explorer: "
        "paper figures</title><style>body{font-family:sans-serif;max-width:1100px;margin:auto;"
        "padding:1em}section{border-top:1px solid #ccc;padding:1em 0}img{max-width:100%}"
        ".files{font-size:small}</style></head><body><h1>Paper figures</h1>"
        f"<p>{html.escape(size.replace('**', ''))} See REPORT.md for the table.</p>"
        + "".join(cards) + "</body></html>\n")


def _cluster(scheduler: str | None):
    """A dask.distributed Client: to ``scheduler``, or to a local cluster of one worker
    process per core (workers may start processes of their own: the HBM sweep does)."""
    import dask
    from distributed import Client, LocalCluster

    if scheduler:
        return Client(scheduler), None
    dask.config.set({"distributed.worker.daemon": False})
    cluster = LocalCluster(n_workers=os.cpu_count() or 1, threads_per_worker=1,
                           processes=True, dashboard_address=None)
    return Client(cluster), cluster


def run(ids: list[str], *, out: pathlib.Path, quick: bool, seed: int | None,
        executor=None, progress: bool = True) -> list[dict]:
    """Build the entries ``ids`` (cached ones are reused) on ``executor`` and write the
    gallery into ``out``; returns the results in the order of ``ids``."""
    from tqdm import tqdm

    from dynamics.sweep import sweep

    out.mkdir(parents=True, exist_ok=True)
    cache = out / ".cache"
    cache.mkdir(exist_ok=True)
    version = code_version()
    keys = {i: cache_key(ENTRIES[i], quick, seed, version) for i in ids}
    results = {}
    for i in ids:
        path = cache / f"{i}-{keys[i]}.pickle"
        if path.exists():
            results[i] = pickle.loads(path.read_bytes())
    todo = [i for i in ids if i not in results]
    bar = tqdm(total=len(ids), initial=len(ids) - len(todo), desc="figures", unit="figure",
               disable=not progress, file=sys.stderr)
    done_before = [0]

    def tick(fraction, message):
        done = int(round(fraction * len(todo)))
        bar.update(done - done_before[0])
        done_before[0] = done

    built = sweep(build, [dict(entry_id=i, quick=quick, seed=seed) for i in todo],
                  executor=executor, progress=tick)
    bar.close()
    for i, result in zip(todo, built):
        results[i] = result
        for stale in cache.glob(f"{i}-*.pickle"):
            stale.unlink()
        (cache / f"{i}-{keys[i]}.pickle").write_bytes(pickle.dumps(result))
    ordered = [results[i] for i in ids]
    for r in ordered:
        _write(out, r)
    write_report(out, ordered, quick=quick)
    return ordered


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="ldx-figures", description="Regenerate the paper figures the project reproduces, "
        "with the paper's numbers beside ours (REPORT.md, index.html).")
    parser.add_argument("--only", action="append", metavar="ID",
                        help=f"entries to build (repeatable; a prefix such as 'dai.' selects "
                             f"several): {', '.join(ENTRIES)}")
    parser.add_argument("--quick", action="store_true",
                        help="small sizes (tests and CI) instead of the paper's")
    parser.add_argument("--out", type=pathlib.Path, default=DEFAULT_OUT,
                        help="output folder (default: ./figures)")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed for every entry that has one (default: the pages' seeds)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="a running dask.distributed scheduler to send the work to")
    where.add_argument("--serial", action="store_true", help="run in this process")
    args = parser.parse_args(argv)
    ids = list(ENTRIES)
    if args.only:
        ids = [i for i in ENTRIES if any(i == o or (o.endswith(".") and i.startswith(o))
                                         for o in args.only)]
        unknown = [o for o in args.only if not any(
            i == o or (o.endswith(".") and i.startswith(o)) for i in ENTRIES)]
        if unknown:
            parser.error(f"unknown entries {unknown}; known: {', '.join(ENTRIES)}")
    if args.seed is not None and args.seed < 0:
        parser.error("--seed must be >= 0")
    started = time.perf_counter()
    client = cluster = None
    try:
        if not args.serial:
            client, cluster = _cluster(args.scheduler)
        results = run(ids, out=args.out, quick=args.quick, seed=args.seed, executor=client)
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
    differs = [r["id"] for r in results if r["verdict"] != "reproduced"]
    print(f"{len(results)} entries in {args.out} ({time.perf_counter() - started:.0f} s); "
          f"reproduced {len(results) - len(differs)}, differs {len(differs)}"
          + (f": {', '.join(differs)}" if differs else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
