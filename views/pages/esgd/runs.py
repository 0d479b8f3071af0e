"""The Embedding-SGD page's runs (Dai, ch 5): Fig 5.2 (a), Embedding-SGD against SGD with
virtual samples and SGD-SAA over seeds; Fig 5.1's toy, a GP-drawn function recovered from its
smoothed measurements; and policy evaluation (eq 5.18, Sec 5.6.2) on random MDPs with exact
values, Embedding-SGD against GTD2, residual gradient and TD(0)."""

from __future__ import annotations

import holoviews as hv
import numpy as np
import param

from dynamics import esgd as es
from views.framework import DASHED, MPL_DASHED, Plot, axis, prose, style
from views.framework.runs import Run
from views.framework.text import verdict_markdown
from views.pages.esgd.common import (BASE_COLOR, ESGD_COLOR, METHOD_COLORS, PAPER_MSE,
                                     TRUTH_COLOR, mse_overlay)

__all__ = ["SeedsRun", "GPToyRun", "PolicyRun", "POLICY_COLORS", "POLICY_STEP"]

#: Policy evaluation (Sec 5.6.2): the methods' colours, and the step (eta, eta0) of every
#: method (from the thesis's grid {0.1, 1, 10}; the best of it for Embedding-SGD on one MDP).
POLICY_COLORS = {"embedding": ESGD_COLOR, "gtd2": "#2ca02c", "rg": "#9467bd", "td": BASE_COLOR}
POLICY_STEP = (10.0, 10.0)


class SeedsRun(Run):
    """Fig 5.2 (a): each method at its constants chosen on validation data
    (``es.compare_methods``), over runs on fresh data."""

    key = "seeds"
    title = "Fig 5.2 (a): Embedding-SGD against SGD with virtual samples and SGD-SAA"
    button = "Run the methods"
    text = prose(__file__, "seeds.md")
    uses = ("features", "seed")
    aliases = {"runs_n": "runs", "runs_data": "data"}
    quick = {"runs": 1, "data": 20_000, "features": 20}
    widgets = {"runs": {"throttled": True}}

    runs = param.Integer(4, bounds=(1, 20), label="Runs",
                         doc="Runs of each method, on fresh data (the paper: 10).")
    data = param.Selector(default=100_000, objects=[20_000, 50_000, 100_000, 200_000],
                          label="Data per run", doc="The paper: 0.1M.")

    def compute(self, settings: dict, progress=None) -> es.Comparison:
        return es.compare_methods(int(settings["runs"]), int(settings["data"]),
                                  seed=int(settings["seed"]),
                                  features=int(settings["features"]), progress=progress)

    def estimate(self, settings: dict) -> float:
        # measured: 8.3 s of CPU for the three methods' runs of 0.1M data at 500 features
        return (8.3 * int(settings["runs"]) * int(settings["data"]) / 100_000
                * max(int(settings["features"]), 100) / 500)

    def summary(self, settings: dict, result: es.Comparison) -> str:
        rows = ["| method | constants (η, η₀, bandwidths) | test MSE, whole interval | "
                f"on \\|x̃\\| ≤ {es.INTERIOR:g} |", "| --- | --- | --- | --- |"]
        for m in result.runs:
            c = result.constants[m]
            consts = ", ".join(f"{c[k]:g}" for k in ("eta", "eta0", "bandwidth_f",
                                                     "bandwidth_u") if k in c)
            whole, inner = result.mse(m), result.mse(m, interior=True)
            sd = (lambda v: f" ± {v.std(ddof=1):.4f}" if len(v) > 1 else "")
            rows.append(f"| {es.METHOD_NAMES[m]} | {consts} | {whole.mean():.4f}{sd(whole)} | "
                        f"{inner.mean():.4f}{sd(inner)} |")
        runs = len(result.mse("embedding"))
        return (f"**{runs} run{'s' if runs > 1 else ''} of {result.data:,} data** "
                f"(mean ± sd over the runs). The paper: {PAPER_MSE} after 0.1M data, 10 runs.\n\n"
                + "\n".join(rows) + "\n\n" + verdict_markdown(es.mse_claim(result)))

    def seeds_plot(self, result: es.Comparison):
        seen = result.runs["embedding"][0].history["seen"].astype(float)
        curves = {es.METHOD_NAMES[m]: (METHOD_COLORS[m],
                                       np.mean([r.history["mse"] for r in runs], axis=0))
                  for m, runs in result.runs.items()}
        esgd = np.array([r.history["mse"] for r in result.runs["embedding"]])
        return mse_overlay(seen, curves, ", mean", band=(esgd.min(0), esgd.max(0)))

    def seeds_fit_plot(self, result: es.Comparison):
        r0 = result.runs["embedding"][0]
        dims = [axis("x", "noiseless input x̃"), axis("y", "f(x̃)")]
        parts = [style(hv.Curve((r0.grid, r0.target), *dims, label="truth"), color=TRUTH_COLOR,
                       bokeh=dict(line_width=3), mpl=dict(linewidth=2))]
        for m, runs in result.runs.items():
            parts.append(style(hv.Curve((r0.grid, np.mean([r.fit for r in runs], axis=0)),
                                        *dims, label=es.METHOD_NAMES[m]),
                               color=METHOD_COLORS[m], bokeh=dict(line_width=2),
                               mpl=dict(linewidth=1.2)))
        return style(hv.Overlay(parts), framewise=True)

    plots = (Plot(seeds_plot, title="Fig 5.2 (a): test MSE, runs averaged"),
             Plot(seeds_fit_plot, title="Each method's fit, runs averaged"))


class GPToyRun(Run):
    """Fig 5.1: Embedding-SGD recovers a GP-drawn f* from smoothed measurements
    (``es.gp_toy``)."""

    key = "toy"
    title = "Fig 5.1: recovering a GP-drawn function from its smoothed measurements"
    button = "Run the toy"
    text = prose(__file__, "toy.md")
    uses = ("seed",)
    aliases = {"toy_iterations": "iterations"}
    quick = {"iterations": 200}

    iterations = param.Selector(default=2000, objects=[200, 500, 1000, 2000, 5000],
                                label="Iterations",
                                doc="Steps of 20 fresh data (Fig 5.1 shows 0 to 2000).")

    def compute(self, settings: dict, progress=None) -> es.ToyRun:
        return es.gp_toy(int(settings["iterations"]), seed=int(settings["seed"]))

    def summary(self, settings: dict, result: es.ToyRun) -> str:
        return (f"After **{int(result.iterations[-1]):,}** iterations the recovered f is "
                f"**{result.errors[-1]:.4f}** from f* (mean squared error on the grid), the "
                f"smoothed signal the data measure {result.observed_error:.4f}. "
                + verdict_markdown(es.recovery_claim(result)))

    def toy_plot(self, result: es.ToyRun):
        dims = [axis("x", "x"), axis("y", "f(x)")]
        curve = (lambda v, label, color, extra: style(
            hv.Curve((result.grid, v), *dims, label=label), color=color, **extra))
        thick = dict(bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))
        return style(
            curve(result.truth, "truth f*", TRUTH_COLOR, dict(bokeh=DASHED, mpl=MPL_DASHED))
            * curve(result.observed, "smoothed signal E[f*(z) | x]", "#17becf", thick)
            * curve(result.fits[-1], "Embedding-SGD f", ESGD_COLOR, thick)
            * curve(result.duals[-1], "dual u(x, y)", "#2ca02c", thick),
            framewise=True)

    def toy_steps_plot(self, result: es.ToyRun):
        dims = [axis("x", "x"), axis("y", "f(x)")]
        parts = [style(hv.Curve((result.grid, result.truth), *dims, label="truth f*"),
                       color=TRUTH_COLOR, bokeh=DASHED, mpl=MPL_DASHED)]
        shown = list(range(1, len(result.iterations)))
        for j, k in enumerate(shown):
            parts.append(style(
                hv.Curve((result.grid, result.fits[k]), *dims,
                         label=f"iteration {int(result.iterations[k]):,}"),
                color=ESGD_COLOR, alpha=0.25 + 0.75 * (j + 1) / len(shown),
                bokeh=dict(line_width=1.5), mpl=dict(linewidth=1)))
        return style(hv.Overlay(parts), framewise=True)

    plots = (Plot(toy_plot, title="Fig 5.1: f* and what was learnt"),
             Plot(toy_steps_plot, title="Fig 5.1: f along the iterations"))


class PolicyRun(Run):
    """Sec 5.6.2, Fig 5.3: policy evaluation on Garnet MDPs whose values are known
    (``es.compare_policy_evaluation``)."""

    key = "policy"
    title = "Sec 5.6.2, Fig 5.3: policy evaluation on random MDPs with known values"
    button = "Run policy evaluation"
    text = prose(__file__, "policy.md")
    uses = ("seed",)
    aliases = {"pe_states": "states", "pe_dim": "dim", "pe_runs": "runs",
               "pe_iterations": "iterations"}
    quick = {"runs": 1, "iterations": 300}
    widgets = {name: {"throttled": True} for name in ("states", "dim", "runs")}

    states = param.Integer(30, bounds=(5, 200), label="MDP states",
                           doc="States of each Garnet MDP (3 actions, 10 successors each).")
    dim = param.Integer(6, bounds=(1, 30), label="Value features",
                        doc="Features of the linear value V(s) = θ·ψ(s) (a constant and "
                            "random ones).")
    runs = param.Integer(5, bounds=(1, 20), label="MDPs",
                         doc="Random MDPs (with their features) each method runs on "
                             "(the paper: 10 trials).")
    iterations = param.Selector(default=5000, objects=[300, 1000, 2000, 5000, 10000],
                                label="Iterations (batch 20)",
                                doc="Steps of 20 sampled transitions (Sec 5.6.2's batch).")

    def compute(self, settings: dict, progress=None) -> dict:
        states = int(settings["states"])
        return es.compare_policy_evaluation(
            states=states, dim=min(int(settings["dim"]), states), branching=min(10, states),
            iterations=int(settings["iterations"]), runs=int(settings["runs"]),
            eta=POLICY_STEP[0], eta0=POLICY_STEP[1], seed=int(settings["seed"]),
            progress=progress)

    def estimate(self, settings: dict) -> float:
        # measured: about 1 s of CPU per method for 5000 iterations of 20 on 30 states
        return 4 * 2e-4 * int(settings["iterations"]) * int(settings["runs"]) + 0.5

    def summary(self, settings: dict, result: dict) -> str:
        return verdict_markdown(es.policy_evaluation_claim(result))

    def policy_plot(self, result: dict):
        dims = [axis("seen", "transitions visited"), axis("msbe", "mean square Bellman error")]
        parts = []
        seen = result["runs"][0]["embedding"].history["seen"].astype(float)
        for method in result["runs"][0]:
            curve = np.mean([r[method].history["msbe"] for r in result["runs"]], axis=0)
            color = POLICY_COLORS[method]
            parts.append(style(hv.Curve((seen, curve), *dims,
                                        label=es.PE_METHOD_NAMES[method]),
                               color=color, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)))
            limit = np.mean([es.bellman_error(mdp, psi @ lim[method]) for mdp, psi, lim in
                             zip(result["mdps"], result["features"], result["limits"])])
            if method != "gtd2":  # GTD2's limit is TD(0)'s
                parts.append(style(hv.Curve((seen[[0, -1]], [limit, limit]), *dims,
                                            label=f"{es.PE_METHOD_NAMES[method]}'s limit"),
                                   color=color, bokeh=dict(line_dash="dotted", line_width=1.5),
                                   mpl=dict(linestyle=":", linewidth=1)))
        return style(hv.Overlay(parts), logx=True, logy=True, framewise=True)

    def policy_value_plot(self, result: dict):
        dims = [axis("state", "state (sorted by V^π)"), axis("V", "value")]
        exact, psi = result["exact"][0], result["features"][0]
        order = np.argsort(exact)
        x = np.arange(len(exact), dtype=float)
        parts = [style(hv.Curve((x, exact[order]), *dims, label="V^π (Bellman equation)"),
                       color=TRUTH_COLOR, bokeh=DASHED, mpl=MPL_DASHED)]
        for method, run in result["runs"][0].items():
            parts.append(style(hv.Curve((x, (psi @ run.theta)[order]), *dims,
                                        label=es.PE_METHOD_NAMES[method]),
                               color=POLICY_COLORS[method], bokeh=dict(line_width=1.5),
                               mpl=dict(linewidth=1.2)))
        return style(hv.Overlay(parts), framewise=True)

    plots = (Plot(policy_plot, title="Bellman error against transitions"),
             Plot(policy_value_plot, title="V^π and the learned values (first MDP)"))
