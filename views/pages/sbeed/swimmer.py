"""The SBEED page's Swimmer runs (Dai, Sec 6.7.2 and Fig 6.1 on the paper's own environment):
the eta panel (b) and the lambda (a) and k (c) panels on gymnasium's Swimmer-v5
(``dynamics.sbeed.swimmer.swimmer_ablation``), their estimates, the lines read off a result
(``dynamics.sbeed.claims.swimmer_claim``'s and ``k_variance_claim``'s verdicts), their panels
and the gallery's studies."""

from __future__ import annotations

import holoviews as hv
import numpy as np

from dynamics.sbeed import claims
from dynamics.sbeed import swimmer as sw
import param

from views.framework import Plot, axis, prose, style
from views.framework.runs import Run
from views.framework.text import verdict_markdown
from views.pages.sbeed.ablation import COLORS, runs_panel

__all__ = ["SwimmerRun", "SwimmerLamKRun", "SECONDS_PER_K", "ETA_ZERO_COST", "K_COST", "study",
           "study_lam_k"]

#: CPU seconds per 1,000 Swimmer steps of a run that solves its dual (eta > 0; 50 updates an
#: episode, a buffer of 10 episodes), measured on the development machine (2 shared cores):
#: 3.9 s for 5,000 steps, 0.9 s of them in the simulator.
SECONDS_PER_K = 0.8
#: An eta = 0 run's time over an eta > 0 run's (it skips the dual): 3.2 s against 3.9 s.
ETA_ZERO_COST = 0.8
#: A run's time against the rollout length k, over the k = 10 run's: 3,000 steps took 1.76,
#: 2.26, 3.25 and 8.54 s of CPU at k = 1, 10, 20 and 100: about
#: (25 + k) / 35.
K_COST = {k: (25.0 + k) / 35.0 for k in sw.SWIMMER_ABLATION["k"]}

def _per_run(settings: dict) -> float:
    """Seconds of one k = 10 run with a dual: ``SECONDS_PER_K`` at 50 updates an episode, the
    simulator's share (0.9 of 3.9 s) fixed and the rest in proportion to the updates."""
    updates = int(settings.get("updates", 50))
    share = 0.9 / 3.9
    return (SECONDS_PER_K * int(settings["steps"]) / 1000
            * (share + (1 - share) * updates / 50))


def study(quick: bool, seed: int = 0, progress=None, explorer=None) -> dict:
    """The gallery's report of where the Swimmer panel differs from Fig 6.1 (b)
    (``dai.fig6_1_swimmer``): the budget against the paper's and the numbers of the entry's own
    run, per eta and seed (``study.csv``)."""
    result = explorer.jobs["swimmer"].result
    verdict = claims.swimmer_claim(result)
    rows, lines = _panel_table(result, verdict, "eta", "η")
    steps = int(result.steps[-1])
    runs = len(result.panels["eta"]) * result.seeds
    markdown = "\n".join([
        f"**{verdict.outcome}** ({result.seeds} seeds of {steps:,} environment steps a run, "
        f"episodes of {result.episode}, {runs} runs; {result.seconds:.0f} s of wall time, "
        f"{result.env_seconds:.0f} s of it in MuJoCo).",
        "",
        "1. **The environment.** gymnasium's Swimmer-v5 on the `mujoco` wheel (4.0.0 when "
        "measured: manylinux x86-64 binaries, installed from the package registry without a "
        "compiler); the paper's Swimmer-v1 is the same swimmer under the older `mujoco-py`. "
        "The paper's \"stochastic transition\" is not described: ours adds N(0, 0.3²) to each "
        "torque the simulator receives.",
        "2. **The budget.** The thesis does not print its runs' length; its search grid alone "
        "(training every 1,000-3,000 steps on batches of 10,000-40,000) suggests runs of about "
        "a million steps, 5 seeds. Ours are " + f"{steps:,} steps and {result.seeds} seeds a "
        "value (at the gallery's full size, 25,000 steps and 3 seeds, the 18 runs took 331 s "
        "of CPU on this 2-core machine, measured 2026-11-26): the returns are those of the "
        "first tens of episodes of learning, near where the initial policy starts (about 10 "
        "over the first episodes).",
        "3. **The learner.** V and the dual are linear in random features instead of two "
        "64-unit tanh layers (as on Pendulum); the policy's RBF network has the paper's 100 "
        "hidden nodes; γ = 0.995 and the grids are the thesis's; the step sizes (Adam 0.01 "
        "for V, a KL prox of 0.01 a step for the policy) and 50 updates of 256 segments an "
        "episode are ours.",
        "4. **Panels.** η (b) here; λ (a) and k (c) are the entry `dai.fig6_1_swimmer_lam_k`.",
        "",
        *lines,
        "",
        "**Result.** " + verdict.why + ".",
    ])
    return dict(markdown=markdown, tables={"study.csv": "\n".join(rows) + "\n"})


def _panel_table(result: sw.SwimmerAblation, verdict, name: str, symbol: str):
    """The study's rows (CSV, per value and seed) and markdown table of one panel: the final
    return (mean ± standard error [min, max] over seeds, the best in bold), the share of
    delta_k's variance the dual explains and delta_k's variance on the buffer (in the CSV also
    its held-out residual, ``k_variance_claim``'s effect)."""
    p = verdict.numbers[name]
    rows = [f"{name},seed,final_return,dual_explained,delta_var,residual_var"]
    lines = [f"| {symbol} | final return, mean ± se [min, max] | dual explains | Var δₖ |",
             "| --- | --- | --- | --- |"]
    for value, returns in result.panels[name].items():
        finals = returns[:, -p["final_episodes"]:].mean(axis=1)
        dual = result.dual[name][value]
        var = (result.delta_var or {}).get(name, {}).get(value, np.full(len(finals), np.nan))
        held = (result.residual_var or {}).get(name, {}).get(value, np.full(len(finals), np.nan))
        for s, (x, d, v, r) in enumerate(zip(finals, dual, var, held)):
            rows.append(f"{value:g},{s},{x:.3f},{d:.4f},{v:.5g},{r:.5g}")
        fit = f"{np.nanmean(dual):.2f}" if np.isfinite(dual).any() else "-"
        spread = f"{np.mean(var):.3g}" if np.isfinite(var).all() else "-"
        se = p["se"][value]
        mark = "**" if value == p["best"] else ""
        lines.append(f"| {mark}{value:g}{mark} | {p['mean'][value]:.1f}"
                     + (f" ± {se:.1f}" if np.isfinite(se) else "")
                     + f" [{p['low'][value]:.1f}, {p['high'][value]:.1f}] | {fit} | {spread} |")
    return rows, lines


# --- Fig 6.1 (a) and (c) on Swimmer -------------------------------------------------------------

def study_lam_k(quick: bool, seed: int = 0, progress=None, explorer=None) -> dict:
    """The gallery's report of where the lambda and k panels differ from Fig 6.1 (a) and (c)
    (``dai.fig6_1_swimmer_lam_k``): the budget against the paper's and the entry's own numbers
    per value and seed (``lam.csv``, ``k.csv``)."""
    result = explorer.jobs["swimmer_lk"].result
    verdict = claims.swimmer_claim(result)
    spread = claims.k_variance_claim(result)
    lam_rows, lam_lines = _panel_table(result, verdict, "lam", "λ")
    k_rows, k_lines = _panel_table(result, verdict, "k", "k")
    steps = int(result.steps[-1])
    runs = result.seeds * (len(result.panels["lam"]) + len(result.panels["k"]) - 1)
    markdown = "\n".join([
        f"**{verdict.outcome}**; the variance against k: **{spread.outcome}** ({result.seeds} "
        f"seeds of {steps:,} environment steps a run, episodes of {result.episode}, {runs} runs; "
        f"{result.seconds:.0f} s of wall time, {result.env_seconds:.0f} s of it in MuJoCo).",
        "",
        "1. **The environment and the learner** are `dai.fig6_1_swimmer`'s (Swimmer-v5 on the "
        "`mujoco` wheel, N(0, 0.3²) torque noise for the paper's undescribed \"stochastic "
        "transition\", V and the dual linear in random features instead of two 64-unit tanh "
        "layers, the policy's RBF network of 100 hidden nodes, γ = 0.995).",
        "2. **The budget.** The thesis does not print its runs' length (about a million steps "
        "a run and 5 seeds, judging by its search grid: training every 1,000-3,000 steps on "
        f"batches of 10,000-40,000). Ours: {steps:,} steps and {result.seeds} seeds a value, "
        "the 6 settings of the two panels (λ = 0.01 is k = 10) in one sweep; a run's CPU time "
        "grows with k (about (25 + k) / 35 of the k = 10 run's: k = 100 is 3.6 times). At the "
        "gallery's full size (25,000 steps and 3 seeds: 2.5 % of the thesis's steps a run) the "
        "18 runs took 561 s of CPU on this 2-core machine (33 min of wall time under "
        "`nice -n 5` at load 5-8, measured 2026-11-26), about 280 s a panel.",
        "3. **The grids** are the thesis's: λ in {0.001, 0.01, 0.1}, k in {1, 10, 20, 100}, "
        "each around λ = 0.01, η = 0.1, k = 10 (our defaults; the thesis does not print its "
        "own).",
        "",
        "**(a) λ**", "", *lam_lines, "",
        "**(c) k**", "", *k_lines, "",
        "**Result.** Intermediate best: " + verdict.why + ". The variance against k: "
        + spread.why + ".",
    ])
    return dict(markdown=markdown, tables={"lam.csv": "\n".join(lam_rows) + "\n",
                                           "k.csv": "\n".join(k_rows) + "\n"})


class SwimmerRun(Run):
    """Fig 6.1 (b), eta, on gymnasium's Swimmer-v5."""

    key = "swimmer"
    title = "Fig 6.1 (b) on Swimmer (MuJoCo)"
    button = "Run η on Swimmer"
    text = prose(__file__, "swimmer.md")
    aliases = {"sw_steps": "steps", "sw_seeds": "seeds", "sw_episode": "episode",
               "sw_updates": "updates"}
    quick = {"steps": 100, "seeds": 1, "episode": 100, "updates": 5}

    steps = param.Integer(20_000, bounds=(100, 200_000), step=1_000, label="Steps per run",
                          doc="Environment steps of each Swimmer run.")
    seeds = param.Integer(3, bounds=(1, 5), label="Seeds",
                          doc="Seeds per value (at least 3 to name a best value).")
    episode = param.Integer(1000, bounds=(100, 1000), step=100, label="Episode length",
                            doc="Steps of a Swimmer episode (gymnasium's time limit: 1000).")
    updates = param.Integer(50, bounds=(1, 200), label="Updates per episode",
                            doc="Primal-dual updates after each Swimmer episode.")

    def compute(self, settings: dict, progress=None) -> sw.SwimmerAblation:
        """The run's settings ``steps``, ``seeds``, ``episode`` and ``updates``: the
        eta panel."""
        return sw.swimmer_ablation(steps=int(settings["steps"]), seeds=int(settings["seeds"]),
                                   episode=int(settings["episode"]),
                                   updates=int(settings.get("updates", 50)), progress=progress)

    def estimate(self, settings: dict) -> float:
        """Seconds of the eta panel (one process): the thesis's six values of eta, one without a
        dual."""
        per_run = _per_run(settings)
        etas = sw.SWIMMER_ABLATION["eta"]
        return int(settings["seeds"]) * per_run * sum(ETA_ZERO_COST if e == 0 else 1.0
                                                         for e in etas)

    def summary(self, settings: dict, result: sw.SwimmerAblation) -> str:
        """The claim's numbers, the dual's fit and the verdict (the gallery's, word for word)."""
        verdict = claims.swimmer_claim(result)
        dual = verdict.numbers["eta"]["dual_explained"]
        fits = ", ".join(f"{v:g}: {x:.2f}" for v, x in dual.items() if x is not None)
        return (f"**This run:** {verdict.measured}. The dual explains this fraction of the "
                f"variance of δₖ on the replay buffer (last 5 episodes, by η): {fits}. "
                f"{result.seconds:.0f} s of wall time, {result.env_seconds:.0f} s of it in MuJoCo. "
                + verdict_markdown(verdict))

    def swimmer_eta(self, result: sw.SwimmerAblation):
        return runs_panel(result, "eta", "η")

    plots = (Plot(swimmer_eta, title="η on Swimmer (λ = 0.01, k = 10)"),)


class SwimmerLamKRun(SwimmerRun):
    """Fig 6.1 (a) and (c), lambda and k, on Swimmer-v5: the same settings as the eta run,
    its own."""

    key = "swimmer_lk"
    title = "Fig 6.1 (a) and (c) on Swimmer (MuJoCo)"
    button = "Run λ and k on Swimmer"
    text = prose(__file__, "swimmer_lk.md")
    aliases = {}  # the older links' sw_ settings open the eta run's

    def compute(self, settings: dict, progress=None) -> sw.SwimmerAblation:
        """The run's settings ``steps``, ``seeds``, ``episode`` and ``updates``: the
        lambda and k panels in one sweep."""
        return sw.swimmer_ablation(steps=int(settings["steps"]), seeds=int(settings["seeds"]),
                                   episode=int(settings["episode"]), panels=("lam", "k"),
                                   updates=int(settings.get("updates", 50)), progress=progress)

    def estimate(self, settings: dict) -> float:
        """Seconds of the lambda and k panels (one process): 3 values of lambda and 4 of k, the
        shared one once, a run's time by ``K_COST``."""
        per_run = _per_run(settings)
        lams = len(sw.SWIMMER_ABLATION["lam"]) - 1  # lam = 0.01 is the k panel's k = 10
        return int(settings["seeds"]) * per_run * (lams + sum(K_COST.values()))

    def summary(self, settings: dict, result: sw.SwimmerAblation) -> str:
        """Both claims' numbers and verdicts (the gallery's, word for word)."""
        best = claims.swimmer_claim(result)
        spread = claims.k_variance_claim(result)
        return (f"**This run:** {best.measured}. {result.seconds:.0f} s of wall time, "
                f"{result.env_seconds:.0f} s of it in MuJoCo. " + verdict_markdown(best)
                + f"\n\n**The variance against k:** {spread.measured}. " + verdict_markdown(spread))

    def swimmer_lam(self, result: sw.SwimmerAblation):
        return runs_panel(result, "lam", "λ")

    def swimmer_k(self, result: sw.SwimmerAblation):
        return runs_panel(result, "k", "k")

    def swimmer_k_variance(self, result: sw.SwimmerAblation):
        """Per seed, the variance of delta_k over the replay buffer (mean of the last 5 episodes)
        for each k of the grid (evenly spaced, labelled), and its mean over seeds; beside it the
        mean of the held-out part the dual's inputs do not explain (what ``k_variance_claim``
        judges), where the run has it."""
        var = result.delta_var["k"]
        ks = list(var)
        x = np.arange(len(ks), dtype=float)
        seeds = len(next(iter(var.values())))
        dims = [axis("k_index", "rollout length k"),
                axis("delta_var", "variance of δₖ on the buffer")]
        points = style(hv.Scatter((np.repeat(x, seeds), np.concatenate([var[k] for k in ks])),
                                  *dims, label="per seed"),
                       color=COLORS[0], alpha=0.6, bokeh=dict(size=6), mpl=dict(s=14))
        mean = style(hv.Curve((x, [float(np.mean(var[k])) for k in ks]), *dims, label="mean"),
                     color=COLORS[0], bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))
        overlay = points * mean
        held = (result.residual_var or {}).get("k")
        if held and all(np.all(np.isfinite(held[k])) for k in ks):
            overlay = overlay * style(hv.Curve((x, [float(np.mean(held[k])) for k in ks]), *dims,
                                               label="held-out residual (mean)"),
                                      color=COLORS[1], bokeh=dict(line_width=2, line_dash="dashed"),
                                      mpl=dict(linewidth=1.5, linestyle="--"))
        return style(overlay, framewise=True, xticks=[(float(i), f"{k:g}") for i, k in
                                                      enumerate(ks)])

    plots = (Plot(swimmer_lam, title="(a) λ on Swimmer (η = 0.1, k = 10)"),
             Plot(swimmer_k, title="(c) k on Swimmer (λ = 0.01, η = 0.1)"),
             Plot(swimmer_k_variance, title="(c) the variance of δₖ against k"))
