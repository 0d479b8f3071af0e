"""Embedding-SGD explorer (Dai's thesis, chapter 5: the saddle point of eq 5.14, Algorithm 4;
the noisy-measurement task of Sec 5.5, Fig 5.2 (a)).

Live: one run of Embedding-SGD and of plain regression on the noisy inputs, their fits against
the truth and their test error against the data visited. Run: Fig 5.2 (a), Embedding-SGD against
the thesis's baselines (SGD with virtual samples, SGD-SAA), each at the constants chosen on
validation data, over seeds at the paper's 0.1M data, against the paper's reported MSE; Fig 5.1's
toy; and policy evaluation (eq 5.18, Sec 5.6.2) on random MDPs with exact values, Embedding-SGD
against GTD2, residual gradient and TD(0).
"""

from __future__ import annotations

from dataclasses import dataclass

import holoviews as hv
import numpy as np
import param

from dynamics import esgd as es
from views.framework.legacy_runs import Run
from dynamics.papers import DAI
from views.framework.cache import results_cache
from views.framework import DASHED, MPL_DASHED, Explorer, Plot, axis, style
from views.framework.text import prose, verdict_markdown
from views.framework.timeline import Frames, Mark, Timeline

ESGD_COLOR, BASE_COLOR, TRUTH_COLOR, SMOOTH_COLOR = "#d62728", "#1f77b4", "#222222", "#7f7f7f"
#: Fig 5.2 (a)'s methods, their colours.
METHOD_COLORS = {"embedding": ESGD_COLOR, "virtual": "#2ca02c", "saa": "#9467bd",
                 "plain": BASE_COLOR}
#: Policy evaluation (Sec 5.6.2): the methods' colours, and the step (eta, eta0) of every
#: method (from the thesis's grid {0.1, 1, 10}; the best of it for Embedding-SGD on one MDP).
POLICY_COLORS = {"embedding": ESGD_COLOR, "gtd2": "#2ca02c", "rg": "#9467bd", "td": BASE_COLOR}
POLICY_STEP = (10.0, 10.0)
#: The knobs of the model and its steps.
MODEL = ("eta", "eta0", "lam", "bandwidth_f", "bandwidth_u", "dual_y_scale", "features")
#: The paper's result (Sec 5.5): average MSE after 0.1M data over 10 runs.
PAPER_DATA, PAPER_MSE = es.PAPER_DATA, es.PAPER_MSE
#: Data points drawn in the data panel.
SHOWN = 1500
T_COLOR = "#111111"
MSE_DIMS = ("seen", "mse")


def _ring(color: str) -> dict:
    """A ringed dot in ``color`` at the current time, on the page and in exports."""
    return dict(bokeh=dict(size=12, color="white", fill_alpha=0.6, line_color=color,
                           line_width=3),
                mpl=dict(s=70, color="white", edgecolors=color, linewidth=2))


@dataclass(frozen=True)
class LiveRun:
    run: es.EmbeddingRun
    smoothed: np.ndarray


@results_cache
def live_run(data: int, eta: float, eta0: float, lam: float, bandwidth_f: float,
             bandwidth_u: float, dual_y_scale: float, features: int, seed: int) -> LiveRun:
    _, x, y = es.noisy_measurement(data, seed=seed)
    run = es.embedding_sgd(x, y, eta=eta, eta0=eta0, lam_f=lam, lam_u=lam,
                           bandwidth_f=bandwidth_f, bandwidth_u=bandwidth_u,
                           dual_y_scale=dual_y_scale, features_f=features,
                           features_u=features, seed=seed + 1)
    return LiveRun(run, es.conditional_mean(run.grid))


class ESGDExplorer(Explorer):
    """Learning through a conditional expectation: Embedding-SGD on noisy inputs."""

    slug = "esgd"
    title = "Embedding-SGD: regression from noisy inputs"
    summary = ("When the loss holds a conditional expectation, a saddle point in two functions "
               "makes SGD unbiased again: regression that undoes the noise on its inputs.")
    paper = DAI
    figures = ("Ch 5: Algorithm 4, Figs 5.1, 5.2 (a), 5.3; eqs 5.14 and 5.18, eq C.7, Secs "
               "5.6.1-5.6.2")

    data = param.Selector(default=20_000, objects=[2_000, 5_000, 10_000, 20_000, 50_000,
                                                   100_000],
                          label="Data visited", doc="Data of the live run, 50 a step (one pass).")
    eta = param.Number(10.0, bounds=(0.1, 20.0), step=0.1, label="Step η",
                       doc="γ_i = η / (η₀ + √i) for both functions (Sec 5.6.1; its grid: "
                           "0.1, 1, 10). η = 20 with η₀ = 0 and wide bandwidths (0.3) "
                           "diverges, which the page says in an alert.")
    eta0 = param.Number(10.0, bounds=(0.0, 100.0), step=1.0, label="Step offset η₀",
                        doc="γ_i = η / (η₀ + √i) (its grid: 1, 10, 100; 0 is γ / √i).")
    lam = param.Selector(default=1e-4, objects=[0.0, 1e-5, 1e-4, 1e-3, 1e-2],
                         label="l2 weight λ",
                         doc="The weight of ‖f‖²/2 and of ‖u‖²/2 in the saddle point (eq C.7).")
    bandwidth_f = param.Number(0.05, bounds=(0.01, 0.3), step=0.01, label="Primal bandwidth",
                               doc="Gaussian kernel of f(z) (the paper's grid: 0.05 ... 0.2).")
    bandwidth_u = param.Number(0.1, bounds=(0.01, 0.3), step=0.01, label="Dual bandwidth",
                               doc="Gaussian kernel of u(x, y), on x.")
    dual_y_scale = param.Number(0.05, bounds=(0.01, 1.0), step=0.01, label="Dual's y scale",
                                doc="u's kernel reads y times this (0.05: a bandwidth of "
                                    "about 1 in y, where u* is linear).")
    features = param.Integer(500, bounds=(20, 600), step=10, label="Random features",
                             doc="Features of each function (f on z, u on (x, y)).")
    seed = param.Integer(0, bounds=(0, 99_999), label="Seed",
                         doc="Seed of the data (and, plus one, of the features and samples).")
    runs_n = param.Integer(4, bounds=(1, 20), label="Runs",
                           doc="Runs of each method, on fresh data (the paper: 10).")
    runs_data = param.Selector(default=100_000, objects=[20_000, 50_000, 100_000, 200_000],
                               label="Data per run", doc="The paper: 0.1M.")
    toy_iterations = param.Selector(default=2000, objects=[200, 500, 1000, 2000, 5000],
                                    label="Iterations",
                                    doc="Steps of 20 fresh data (Fig 5.1 shows 0 to 2000).")
    pe_states = param.Integer(30, bounds=(5, 200), label="MDP states",
                              doc="States of each Garnet MDP (3 actions, 10 successors each).")
    pe_dim = param.Integer(6, bounds=(1, 30), label="Value features",
                           doc="Features of the linear value V(s) = θ·ψ(s) (a constant and "
                               "random ones).")
    pe_runs = param.Integer(5, bounds=(1, 20), label="MDPs",
                            doc="Random MDPs (with their features) each method runs on "
                                "(the paper: 10 trials).")
    pe_iterations = param.Selector(default=5000, objects=[300, 1000, 2000, 5000, 10000],
                                   label="Iterations (batch 20)",
                                   doc="Steps of 20 sampled transitions (Sec 5.6.2's batch).")

    fields = ("seed",)
    widgets = {name: {"throttled": True} for name in (
        "eta", "eta0", "bandwidth_f", "bandwidth_u", "dual_y_scale", "features", "runs_n",
        "pe_states", "pe_dim", "pe_runs")}
    # what the generic tests and benches need of this page (see ``Explorer``)
    example_change = {"seed": 2}
    bench_move = ("eta", [9.0, 9.5, 10.5, 11.0, 9.0, 9.5, 10.5, 11.0])
    # the test error first: beside the timeline's control, which moves its marks
    plots = (
        Plot("mse_plot", title="Test error against data visited"),
        Plot("fit_plot", title="Fits on noiseless inputs"),
        Plot("data_plot", title="The data: noisy inputs", depends=("seed",)),
    )
    timeline = Timeline(
        "seen_frames", unit="data seen",
        caption=prose(__file__, "timeline.md"),
        marks=(Mark("mse_plot", "vline", x="t", options=dict(
                   color=T_COLOR, alpha=0.6, bokeh=dict(line_width=1.5),
                   mpl=dict(linewidth=1))),
               Mark("mse_plot", "point", x="t", y="baseline", dims=MSE_DIMS,
                    options=_ring(BASE_COLOR)),
               Mark("mse_plot", "point", x="t", y="mse", dims=MSE_DIMS,
                    options=_ring(ESGD_COLOR))))
    runs = (
        Run("seeds", quick=(("runs_n", 1), ("runs_data", 20_000), ("features", 20)),
            title="Fig 5.2 (a): Embedding-SGD against SGD with virtual samples and SGD-SAA",
            button="Run the methods", settings=("runs_n", "runs_data"),
            uses=("features", "seed"), compute="run_seeds",
            plots=(Plot("seeds_plot", title="Fig 5.2 (a): test MSE, runs averaged"),
                   Plot("seeds_fit_plot", title="Each method's fit, runs averaged")),
            text=prose(__file__, "seeds.md"),
            estimate="seeds_estimate", summary="seeds_summary"),
        Run("toy", quick=(("toy_iterations", 200),),
            title="Fig 5.1: recovering a GP-drawn function from its smoothed measurements",
            button="Run the toy", settings=("toy_iterations",), uses=("seed",),
            compute="run_toy",
            plots=(Plot("toy_plot", title="Fig 5.1: f* and what was learnt"),
                   Plot("toy_steps_plot", title="Fig 5.1: f along the iterations")),
            text=prose(__file__, "toy.md"),
            summary="toy_summary"),
        Run("policy", quick=(("pe_runs", 1), ("pe_iterations", 300)),
            title="Sec 5.6.2, Fig 5.3: policy evaluation on random MDPs with known values",
            button="Run policy evaluation",
            settings=("pe_states", "pe_dim", "pe_runs", "pe_iterations"), uses=("seed",),
            compute="run_policy",
            plots=(Plot("policy_plot", title="Bellman error against transitions"),
                   Plot("policy_value_plot", title="V^π and the learned values (first MDP)")),
            text=prose(__file__, "policy.md"),
            estimate="policy_estimate", summary="policy_summary"),
    )

    text = prose(__file__, "page.md")

    def _compute(self) -> LiveRun:
        return live_run(int(self.data), float(self.eta), float(self.eta0), float(self.lam),
                        float(self.bandwidth_f),
                        float(self.bandwidth_u), float(self.dual_y_scale), int(self.features),
                        int(self.seed))

    def seen_frames(self) -> Frames:
        """The timeline: the test MSE of both methods where the run measured it, t the data
        visited by then."""
        h = self.result().run.history
        return Frames(h["seen"], {"mse": h["mse"], "baseline": h["baseline_mse"]})

    def data_plot(self):
        _, x, y = es.noisy_measurement(SHOWN, seed=int(self.seed))
        grid = np.linspace(-0.5, 0.5, 400)
        dims = [axis("x", "input x (noisy) and x̃"), axis("y", "y")]
        return style(
            style(hv.Scatter((x, y), *dims, label="data at the noisy x"), color="#999999",
                  alpha=0.5, bokeh=dict(size=3), mpl=dict(s=3))
            * style(hv.Curve((grid, es.truth(grid)), *dims, label="truth f(x̃)"),
                    color=TRUTH_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))
            * style(hv.Curve((grid, es.conditional_mean(grid)), *dims, label="E[y | x]"),
                    color=SMOOTH_COLOR, bokeh=DASHED, mpl=MPL_DASHED),
            framewise=True)

    def fit_plot(self):
        live = self.result()
        r = live.run
        dims = [axis("x", "noiseless input x̃"), axis("y", "f(x̃)")]
        return style(
            style(hv.Curve((r.grid, r.target), *dims, label="truth"), color=TRUTH_COLOR,
                  bokeh=dict(line_width=3), mpl=dict(linewidth=2))
            * style(hv.Curve((r.grid, live.smoothed), *dims, label="E[y | x]"),
                    color=SMOOTH_COLOR, bokeh=DASHED, mpl=MPL_DASHED)
            * style(hv.Curve((r.grid, r.baseline_fit), *dims, label="plain regression"),
                    color=BASE_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))
            * style(hv.Curve((r.grid, r.fit), *dims, label="Embedding-SGD"),
                    color=ESGD_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)),
            framewise=True)

    @staticmethod
    def _mse_overlay(seen: np.ndarray, curves: dict, suffix: str = "", band=None):
        """Test MSE against data visited: one curve per method (``curves``: label -> (colour,
        values)), Embedding-SGD's band, and the paper's reported point."""
        dims = [axis("seen", "data visited"), axis("mse", "test MSE (noiseless inputs)")]
        layers = []
        if band is not None:
            layers.append(style(hv.Area((seen, band[0], band[1]), kdims=[dims[0]],
                                        vdims=[dims[1], "hi"]),
                                alpha=0.2, bokeh=dict(color=ESGD_COLOR, line_alpha=0),
                                mpl=dict(facecolor=ESGD_COLOR, edgecolor="none")))
        layers += [style(hv.Curve((seen, values), *dims, label=f"{label}{suffix}"),
                         color=color, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))
                   for label, (color, values) in curves.items()]
        layers.append(style(hv.Scatter(([float(PAPER_DATA)], [PAPER_MSE]), *dims,
                                       label="paper: 0.0029 at 0.1M"),
                            color="black", bokeh=dict(size=14, marker="x", line_width=2),
                            mpl=dict(s=60, marker="X")))
        # the paper's mark inside the frame
        return style(hv.Overlay(layers), logx=True, logy=True,
                     framewise=True, xlim=(float(seen[0]), 2.0 * max(PAPER_DATA, seen[-1])))

    def mse_plot(self):
        h = self.result().run.history
        return self._mse_overlay(h["seen"].astype(float),
                                 {"plain regression": (BASE_COLOR, h["baseline_mse"]),
                                  "Embedding-SGD": (ESGD_COLOR, h["mse"])})

    def status(self) -> str:
        r = self.result().run
        return (f"After **{int(r.history['seen'][-1]):,}** data: Embedding-SGD test MSE "
                f"**{r.mse:.4f}**, plain regression on the noisy inputs **{r.baseline_mse:.4f}**"
                f" (the best it can reach, E[y|x], is "
                f"{np.mean((self.result().smoothed - r.target) ** 2):.4f} from the truth). The "
                f"paper: {PAPER_MSE} after 0.1M data, 10 runs averaged.")

    # --- run: Fig 5.2 (a), the methods over seeds ----------------------------------------------
    def run_seeds(self, settings: dict, progress=None) -> es.Comparison:
        return es.compare_methods(int(settings["runs_n"]), int(settings["runs_data"]),
                                  seed=int(settings["seed"]),
                                  features=int(settings["features"]), progress=progress)

    def seeds_estimate(self, settings: dict) -> float:
        # measured: 8.3 s of CPU for the three methods' runs of 0.1M data at 500 features
        return (8.3 * int(settings["runs_n"]) * int(settings["runs_data"]) / 100_000
                * max(int(settings["features"]), 100) / 500)

    def seeds_summary(self, settings: dict, result: es.Comparison) -> str:
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
        return self._mse_overlay(seen, curves, ", mean", band=(esgd.min(0), esgd.max(0)))

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

    # --- run: Fig 5.1, the GP toy -------------------------------------------------------------
    def run_policy(self, settings: dict, progress=None) -> dict:
        return es.compare_policy_evaluation(
            states=int(settings["pe_states"]), dim=min(int(settings["pe_dim"]),
                                                       int(settings["pe_states"])),
            branching=min(10, int(settings["pe_states"])),
            iterations=int(settings["pe_iterations"]), runs=int(settings["pe_runs"]),
            eta=POLICY_STEP[0], eta0=POLICY_STEP[1], seed=int(settings["seed"]),
            progress=progress)

    def policy_estimate(self, settings: dict) -> float:
        # measured: about 1 s of CPU per method for 5000 iterations of 20 on 30 states
        return 4 * 2e-4 * int(settings["pe_iterations"]) * int(settings["pe_runs"]) + 0.5

    def policy_summary(self, settings: dict, result: dict) -> str:
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

    def run_toy(self, settings: dict, progress=None) -> es.ToyRun:
        return es.gp_toy(int(settings["toy_iterations"]), seed=int(settings["seed"]))

    def toy_summary(self, settings: dict, result: es.ToyRun) -> str:
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
