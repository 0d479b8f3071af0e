"""SBEED explorer: smoothed Bellman error embedding, and the bias its dual removes.

Dai's thesis (seed 004), chapter 6 (eqs 6.4-6.10, Thm 27, Algorithm 5) and appendix D (Prop 55,
the multi-step objective D.3). The live panels run tabular SBEED on a finite MDP for several
values of eta at once; runs (jobs) sweep the branching noise, the rollout length k, and train on
gymnasium's Pendulum-v1 (Fig 6.1's ablation) and on MuJoCo's Swimmer-v5 (its three panels).
"""

from __future__ import annotations

from dataclasses import dataclass

import holoviews as hv
import numpy as np
import panel as pn
import param

from dynamics import sbeed
from dynamics.checks import report
from dynamics.sbeed import pendulum as pend
from views.framework.cache import results_cache
from views.framework import (DASHED, DOTTED, MPL_DASHED, MPL_DOTTED, Explorer, Frames, Mark,
                             Plot, Timeline, axis, integer_ticks, style)
from views.framework.text import prose, verdict_markdown
from views.framework.jobs import Run, progress_part
from views.framework.marks import legend_layer
from views.pages.sbeed import ablation, swimmer
from views.pages.sbeed.ablation import PENDULUM_SECONDS_PER_K, AblationRuns, smooth

MDPS = ("risky choice (4 states)", "FrozenLake 4x4, slippery", "FrozenLake 4x4, not slippery",
        "Garnet")
ETAS = ("0", "0.25", "0.5", "0.75", "1")
ETA_COLORS = {"0": "#d62728", "0.25": "#ff7f0e", "0.5": "#bcbd22", "0.75": "#17becf",
              "1": "#1f77b4"}
STAR_COLOR = "#222222"
ACTION_NAMES = {"FrozenLake": ("←", "↓", "→", "↑"), "risky": ("safe", "risky")}
#: Replay buffer of the page's sampled runs (segments): the dual is solved on it every 5 updates.
PAGE_BUFFER = 5000
#: Rollout lengths of the k run, and the eta values it compares.
K_VALUES = (1, 2, 4, 8, 16)
#: Seconds per iteration of one run of the k sweep, by eta (sampled mode, the page's buffer),
#: measured on the development machine: an eta = 1 run fits the dual and takes 40-65 us an
#: iteration, an eta = 0 run 4-19 us (the risky choice, FrozenLake, a 100-state Garnet; k = 1
#: to 16 changes either by less than 1.4x). They weigh the sweep's progress fraction and give
#: its estimate.
K_RUN_COST = {"0": 5e-6, "1": 4.7e-5}
#: Progress reports of each run of the k sweep (its checkpoints; the result does not depend on
#: them): an eta = 1 run is a fifth of the sweep.
K_REPORTS = 20
STATE_DIMS = (axis("rank", "state (sorted by V*)"), axis("V", "value"))
BOB_DIMS = (axis("x", "horizontal position (rod lengths)"), axis("y", "height (rod lengths)"))
#: The timeline's line at iteration t on the per-iteration panels.
NOW = dict(color="gray", bokeh=dict(line_width=1.5, **DOTTED), mpl=dict(linewidth=1, **MPL_DOTTED))


def _state_mark(eta: str) -> Mark:
    """The learned V of the run with dual weight ``eta`` at iteration t, per state (NaN rows
    when that eta is not run: nothing drawn)."""
    return Mark("states_plot", "points", x="rank", y=f"V_{eta}", dims=STATE_DIMS, always=True,
                options=dict(color=ETA_COLORS[eta], bokeh=dict(size=6), mpl=dict(s=14)))


#: The Pendulum episode under the learned policy's mean action (the pendulum run's timeline).
EPISODE = Timeline(
    "episode_frames", unit="step",
    caption=prose(__file__, "pendulum.timeline.md"),
    marks=(Mark("pendulum_frame", "trail", x="bx", y="by", dims=BOB_DIMS, length=20,
                always=True, options=dict(color="#1f77b4", alpha=0.5, bokeh=dict(line_width=3),
                                          mpl=dict(linewidth=2))),
           Mark("pendulum_frame", "ray", x="bx", y="by", dims=BOB_DIMS, always=True,
                options=dict(color="#333333", bokeh=dict(line_width=5), mpl=dict(linewidth=3))),
           Mark("pendulum_frame", "point", x="bx", y="by", dims=BOB_DIMS, always=True,
                options=dict(color="#d62728", bokeh=dict(size=18), mpl=dict(s=120))),
           Mark("rollout_plot", "vline", x="time", options=NOW)))


def _readable_cell_values(plot, element) -> None:
    """An exported policy heat map's cell values in two decimals, white on the dark (low)
    cells of magma and black on the light ones: matplotlib wrote them all in black, five
    decimals, unreadable on the darkest cells (a 0 on black did not show)."""
    for text in plot.handles["axis"].texts:
        try:
            value = float(text.get_text())
        except ValueError:  # "-" for a missing value
            continue
        text.set_text(f"{value:.2f}")
        text.set_color("white" if value < 0.6 else "black")


@results_cache
def make_mdp(name: str, n_states: int, n_actions: int, branching: int, seed: int) -> sbeed.MDP:
    if name.startswith("risky"):
        return sbeed.risky_choice()
    if name.startswith("FrozenLake"):
        return sbeed.frozen_lake(slippery="not" not in name)
    return sbeed.garnet(n_states, n_actions, min(branching, n_states), seed=seed)


@dataclass(frozen=True)
class TabularPage:
    mdp: sbeed.MDP
    runs: dict

    @property
    def V_star(self) -> np.ndarray:
        """V*_lam, which every run computed (soft value iteration) for its distances."""
        return next(iter(self.runs.values())).V_star


@results_cache
def run_tabular(key: tuple, etas: tuple, gamma: float, lam: float, iterations: int,
                step_size: float, mode: str, k: int, batch_size: int, seed: int) -> TabularPage:
    mdp = make_mdp(*key)
    runs = {eta: sbeed.sbeed_tabular(mdp, gamma=gamma, lam=lam, eta=float(eta),
                                     iterations=iterations, k=k, step_size=step_size, mode=mode,
                                     batch_size=batch_size, buffer_size=PAGE_BUFFER, seed=seed,
                                     n_checkpoints=60)
            for eta in etas}
    return TabularPage(mdp, runs)


@results_cache
def lam_sweep(key: tuple, gamma: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Entropy of pi*_lam and sup|V*_lam - V*| for lam on a log grid."""
    mdp = make_mdp(*key)
    lams = np.logspace(-2.5, 1, 36)
    hard = sbeed.soft_value_iteration(mdp, gamma=gamma, lam=0.0, tol=1e-8)
    ent, gap = [], []
    live = ~mdp.terminal
    V = hard.V
    for lam in lams:  # each lam starts from the previous one's values
        soft = sbeed.soft_value_iteration(mdp, gamma=gamma, lam=lam, tol=1e-8, V0=V)
        V = soft.V
        ent.append(sbeed.policy_entropy(soft.policy[live]))
        gap.append(np.max(np.abs(soft.V - hard.V)))
    return lams, np.array(ent), np.array(gap)


@dataclass(frozen=True)
class BiasSweep:
    branching: np.ndarray
    bias: np.ndarray
    variance: np.ndarray
    value_loss: np.ndarray
    done: int


@dataclass(frozen=True)
class KSweep:
    k: np.ndarray
    error: dict
    done: int


@dataclass(frozen=True)
class PendulumRuns:
    runs: list
    seeds: int


class SBEEDExplorer(Explorer):
    """Tabular SBEED for several eta at once, with runs on the branching noise, k and Pendulum."""

    slug = "sbeed"
    title = "SBEED"
    summary = ("Smoothed Bellman error embedding: a dual function removes the bias that "
               "stochastic transitions put into Bellman residual minimisation.")
    paper = "Dai, Learning over functions, distributions and dynamics via stochastic optimization"
    figures = "Ch 6: eqs 6.4-6.10, Thm 27, Algorithm 5, Prop 55, Fig 6.1"

    mdp_name = param.Selector(objects=list(MDPS), default=MDPS[0], label="MDP",
                              doc="risky choice: the 4-state example where eta = 0 flips the "
                                  "choice; FrozenLake: gymnasium's lake (holes and goal end "
                                  "the episode); Garnet: a random MDP.")
    n_states = param.Integer(100, bounds=(5, 200), step=5, label="Garnet states",
                             doc="Number of states of the Garnet MDP (Garnet only).")
    n_actions = param.Integer(4, bounds=(2, 8), label="Garnet actions",
                              doc="Number of actions of the Garnet MDP (Garnet only).")
    branching = param.Integer(5, bounds=(1, 20), label="Garnet branching",
                              doc="Next states per (s, a); 1 is deterministic (no bias). Garnet only.")
    seed = param.Integer(0, bounds=(0, 99_999), label="Seed",
                         doc="Seed of the Garnet MDP, the initial V and policy, and samples.")
    gamma = param.Number(0.9, bounds=(0.5, 0.99), step=0.01, label="Discount γ",
                         doc="Discount factor gamma.")
    lam = param.Number(0.1, bounds=(0.01, 2.0), step=0.01, label="Entropy weight λ",
                       doc="Smoothing lambda of eq 6.4: the policy is softmax(Q / lambda).")
    etas = param.ListSelector(default=["0", "0.5", "1"], objects=list(ETAS), label="Dual weights η",
                              doc="Values of eta run side by side: 1 cancels the variance "
                                  "bias, 0 is PCL's objective.")
    shown_eta = param.Selector(objects=list(ETAS), default="0", label="η of the policy panel",
                               doc="Which run the policy panel shows.")
    iterations = param.Integer(5000, bounds=(500, 50_000), step=500, label="Iterations",
                               doc="Primal updates of each run.")
    # 0.15, not the engine's 0.2: with 0.2 the exact runs on the risky-choice MDP (the default)
    # diverge for γ >= 0.93, two notches of the γ slider up; 0.15 ran at every γ up to 0.99 on
    # the risky choice, a 100-state Garnet and FrozenLake (5000 iterations, η 0, 0.5 and 1), and
    # ends where 0.2 does at γ = 0.9 except for the η = 1 runs, which stop a little further off.
    step_size = param.Number(0.15, bounds=(0.01, 0.3), step=0.01, label="Step size",
                             doc="Step of V and of the policy logits (preconditioned by 1/d(s), "
                                 "or per visit when sampled; sampled steps decay as 1/j). Above "
                                 "0.15 a run at a high γ can diverge.")
    mode = param.Selector(objects=["exact", "sampled"], default="exact", label="Gradients",
                          doc="exact: expected gradients with the dual at its maximiser; "
                              "sampled: Algorithm 5 on a replay buffer of k-step segments.")
    k = param.Integer(1, bounds=(1, 20), label="Rollout length k",
                      doc="Steps in delta_k (eq D.3); sampled gradients only.")
    batch_size = param.Integer(32, bounds=(1, 512), label="Batch size",
                               doc="Segments per sampled update.")
    bias_action = param.Integer(4, bounds=(2, 8), label="Actions", doc="Actions of the Garnets.")
    bias_states = param.Integer(30, bounds=(5, 100), step=5, label="States",
                                doc="States of the Garnets of the bias run.")
    k_eta_step = param.Number(0.2, bounds=(0.01, 0.3), step=0.01, label="Step size",
                              doc="Step size of the sampled runs of the k run.")
    k_iterations = param.Integer(20000, bounds=(2000, 100_000), step=1000, label="Iterations",
                                 doc="Updates of each sampled run.")
    p_lam = param.Number(0.01, bounds=(0.001, 0.1), step=0.001, label="λ",
                         doc="Entropy weight of the Pendulum run.")
    p_eta = param.Number(0.1, bounds=(0.0, 1.0), step=0.01, label="η", doc="Dual weight.")
    p_k = param.Integer(10, bounds=(1, 100), label="k", doc="Rollout length.")
    p_noise = param.Number(0.2, bounds=(0.0, 1.0), step=0.05, label="Transition noise (rad/s)",
                           doc="Standard deviation added to the angular velocity each step.")
    p_steps = param.Integer(20_000, bounds=(2_000, 200_000), step=2_000, label="Steps",
                            doc="Environment steps per seed (episodes of 200).")
    p_seeds = param.Integer(2, bounds=(1, 5), label="Seeds", doc="Runs with seeds 0, 1, ...")
    a_steps = param.Integer(10_000, bounds=(200, 100_000), step=200, label="Steps per run",
                            doc="Environment steps of each ablation run.")
    a_seeds = param.Integer(3, bounds=(1, 5), label="Seeds",
                            doc="Seeds per setting (paper: 5; at least 3 to name a best value).")
    sw_steps = param.Integer(20_000, bounds=(100, 200_000), step=1_000, label="Steps per run",
                             doc="Environment steps of each Swimmer run.")
    sw_seeds = param.Integer(3, bounds=(1, 5), label="Seeds",
                             doc="Seeds per value (at least 3 to name a best value).")
    sw_episode = param.Integer(1000, bounds=(100, 1000), step=100, label="Episode length",
                               doc="Steps of a Swimmer episode (gymnasium's time limit: 1000).")
    sw_updates = param.Integer(50, bounds=(1, 200), label="Updates per episode",
                               doc="Primal-dual updates after each Swimmer episode.")

    fields = ("seed",)
    widgets = {name: {"throttled": True} for name in (
        "n_states", "n_actions", "branching", "gamma", "lam", "iterations", "step_size", "k",
        "batch_size")}
    widgets["etas"] = {"type": pn.widgets.CheckBoxGroup, "inline": True}
    groups = {"MDP": ("mdp_name", "gamma", "lam", "n_states", "n_actions", "branching", "seed"),
              "SBEED": ("etas", "shown_eta", "iterations", "step_size", "mode", "k",
                        "batch_size")}

    # what the generic tests and benches need of this page (see ``Explorer``)
    example_change = {"lam": 0.3}
    bench_move = ("lam", [0.11, 0.12, 0.13, 0.14, 0.15, 0.16, 0.17, 0.18])
    plots = (
        Plot("error_plot", title="Distance to the smoothed optimum", ignores=("shown_eta",)),
        Plot("value_plot", title="Value of the learned policy", ignores=("shown_eta",)),
        Plot("objective_plot", title="The objective SBEED minimises", ignores=("shown_eta",)),
        Plot("states_plot", title="V at iteration t against V* per state",
             ignores=("shown_eta",)),
        Plot("policy_plot", title="Learned policy"),
        Plot("lam_plot", title="Smoothing: entropy of π* against λ",
             depends=("mdp_name", "n_states", "n_actions", "branching", "seed", "gamma", "lam")),
    )
    timeline = Timeline(
        "iteration_frames", unit="iteration",
        caption=prose(__file__, "timeline.md"),
        marks=(*(Mark(p, "vline", x="t", options=NOW)
                 for p in ("error_plot", "value_plot", "objective_plot")),
               *(_state_mark(eta) for eta in ETAS)))
    runs = (
        Run("bias", quick=(("bias_states", 5), ("bias_action", 2)),
            title="The bias of η = 0 against the branching noise",
            button="Run the bias sweep", settings=("bias_states", "bias_action"),
            compute="run_bias", uses=("seed", "gamma", "lam"),
            plots=(Plot("bias_plot", title="Bias of the η = 0 fixed point"),),
            text=prose(__file__, "bias.md"),
            estimate="bias_estimate", summary="bias_summary"),
        Run("ksweep", quick=(("k_iterations", 2_000), ("n_states", 5), ("batch_size", 8)),
            title="The rollout length k (sampled SBEED)", button="Run the k sweep",
            settings=("k_eta_step", "k_iterations"), compute="run_k",
            uses=("mdp_name", "n_states", "n_actions", "branching", "seed", "gamma", "lam",
                  "batch_size"),
            plots=(Plot("k_plot", title="Distance to V* after training, against k"),),
            text=prose(__file__, "ksweep.md"),
            estimate="k_estimate", summary="k_summary"),
        Run("pendulum", quick=(("p_steps", 2_000), ("p_seeds", 1), ("p_k", 1)),
            title="Pendulum-v1: returns while learning",
            button="Train on Pendulum",
            settings=("p_lam", "p_eta", "p_k", "p_noise", "p_steps", "p_seeds"),
            compute="run_pendulum",
            plots=(Plot("return_plot", title="Episode return against environment steps"),
                   Plot("v_image", title="Learned V(angle, velocity), seed 0"),
                   Plot("rollout_plot", title="Bob height under the mean action"),
                   Plot("pendulum_frame", title="Rollout of the learned policy, seed 0")),
            timeline=EPISODE,
            text=prose(__file__, "pendulum.md"),
            estimate="pendulum_estimate", summary="pendulum_summary"),
        Run("ablation", quick=(("a_steps", 200), ("a_seeds", 1)),
            title="Fig 6.1's ablation on Pendulum", button="Run the ablation",
            settings=("a_steps", "a_seeds"), compute="run_ablation",
            plots=(Plot("ablation_lam", title="(a) λ, with η = 0.1 and k = 10"),
                   Plot("ablation_eta", title="(b) η, with λ = 0.01 and k = 10"),
                   Plot("ablation_k", title="(c) k, with λ = 0.01 and η = 0.1"),
                   Plot("ablation_eta_noisy", title="(b) with noisier transitions"),
                   Plot("ablation_tabular", title="η on a Garnet, where the dual is exact")),
            text=prose(__file__, "ablation.md"),
            estimate="ablation_estimate", summary="ablation_summary"),
        Run("swimmer", quick=(("sw_steps", 100), ("sw_seeds", 1), ("sw_episode", 100),
                              ("sw_updates", 5)),
            title="Fig 6.1 (b) on Swimmer (MuJoCo)", button="Run η on Swimmer",
            settings=("sw_steps", "sw_seeds", "sw_episode", "sw_updates"),
            compute="run_swimmer",
            plots=(Plot("swimmer_eta", title="η on Swimmer (λ = 0.01, k = 10)"),),
            text=prose(__file__, "swimmer.md"), estimate="swimmer_estimate",
            summary="swimmer_summary"),
        Run("swimmer_lk", quick=(("sw_steps", 100), ("sw_seeds", 1), ("sw_episode", 100),
                                 ("sw_updates", 5)),
            title="Fig 6.1 (a) and (c) on Swimmer (MuJoCo)", button="Run λ and k on Swimmer",
            settings=("sw_steps", "sw_seeds", "sw_episode", "sw_updates"),
            compute="run_swimmer_lk",
            plots=(Plot("swimmer_lam", title="(a) λ on Swimmer (η = 0.1, k = 10)"),
                   Plot("swimmer_k", title="(c) k on Swimmer (λ = 0.01, η = 0.1)"),
                   Plot("swimmer_k_variance", title="(c) the variance of δₖ against k")),
            text=prose(__file__, "swimmer_lk.md"), estimate="swimmer_lk_estimate",
            summary="swimmer_lk_summary"),
    )

    text = prose(__file__, "page.md")

    # --- computation -------------------------------------------------------------------------
    def _mdp_key(self) -> tuple:
        return (self.mdp_name, int(self.n_states), int(self.n_actions), int(self.branching),
                int(self.seed))

    def _etas(self) -> tuple:
        chosen = [e for e in ETAS if e in self.etas]
        return tuple(chosen) if chosen else ("1",)

    def _compute(self) -> TabularPage:
        k = int(self.k) if self.mode == "sampled" else 1
        return run_tabular(self._mdp_key(), self._etas(), float(self.gamma), float(self.lam),
                           int(self.iterations), float(self.step_size), self.mode, k,
                           int(self.batch_size), int(self.seed))

    def knob_bounds(self) -> dict:
        if self.mode == "exact":
            return {"k": (1, 1, "exact gradients (single-step, k = 1)")}
        return {"k": (1, 20, "sampled gradients")}

    def status(self) -> str:
        page = self.result()
        parts = []
        for eta, run in page.runs.items():
            parts.append(f"η = {eta}: ‖V − V*‖∞ **{run.v_error[-1]:.3g}**")
        kind = ("deterministic" if page.mdp.deterministic else "stochastic")
        return (f"{page.mdp.name} ({kind}, {page.mdp.n_states} states): " + "; ".join(parts)
                + f". Value of π*: {next(iter(page.runs.values())).value_star:.3f}.")

    # --- live panels -------------------------------------------------------------------------
    def _per_eta_log_curves(self, field: str, label: str, floor: float):
        """One curve per eta of a per-iteration history of the runs, on a log axis."""
        dims = [axis("iteration", "iteration"), axis(field, label)]
        layers = []
        for eta, run in self.result().runs.items():
            values = np.maximum(getattr(run, field), floor)
            it = np.arange(len(values), dtype=float)
            stride = max(1, len(it) // 1500)
            layers.append(style(hv.Curve((it[::stride], values[::stride]), *dims,
                                         label=f"η = {eta}"),
                                color=ETA_COLORS[eta], bokeh=dict(line_width=2),
                                mpl=dict(linewidth=1.5)))
        # bottom left: every run starts at its largest distance (V0 = 0) and falls, so that
        # corner stays empty; at the top right the legend covered the runs that level off
        return style(hv.Overlay(layers), logy=True, framewise=True)

    def error_plot(self):
        return self._per_eta_log_curves("v_error", "‖Vₜ − V*‖∞", 1e-12)

    def value_plot(self):
        page = self.result()
        dims = [axis("iteration", "iteration"), axis("value", "Σ d(s) Vπ(s), entropy included")]
        layers = []
        for eta, run in page.runs.items():
            layers.append(style(hv.Curve((run.checkpoints.astype(float), run.value), *dims,
                                         label=f"η = {eta}"),
                                color=ETA_COLORS[eta], bokeh=dict(line_width=2),
                                mpl=dict(linewidth=1.5)))
        run = next(iter(page.runs.values()))
        layers.append(style(hv.Curve(([0.0, float(run.checkpoints[-1])], [run.value_star] * 2),
                                     *dims, label="π*"), color=STAR_COLOR, bokeh=DASHED,
                            mpl=MPL_DASHED))
        # outside the axes: the runs level off anywhere from the bottom to the top (the risky
        # choice at γ = 0.99 put η = 0.5 under a legend at the bottom right)
        return style(hv.Overlay(layers), framewise=True)

    def objective_plot(self):
        return self._per_eta_log_curves(
            "objective", "ℓη(Vₜ, πₜ), the dual at its maximiser (eq D.1)", 1e-16)

    def iteration_frames(self) -> Frames:
        """The timeline: the runs' checkpoints (iterations), and each run's V per state there,
        in the order of V* (NaN for an eta not run)."""
        page = self.result()
        order = np.argsort(page.V_star, kind="stable")
        first = next(iter(page.runs.values()))
        arrays = {f"V_{eta}": (page.runs[eta].V_path[:, order] if eta in page.runs
                               else np.full((len(first.checkpoints), len(order)), np.nan))
                  for eta in ETAS}
        return Frames(first.checkpoints, {}, arrays=arrays,
                      fixed={"rank": np.arange(len(order), dtype=float)})

    def states_plot(self):
        """V* and the legend; each run's V at iteration t is a mark of the timeline."""
        page = self.result()
        order = np.argsort(page.V_star, kind="stable")
        x = np.arange(len(order), dtype=float)
        layers = [style(hv.Curve((x, page.V_star[order]), *STATE_DIMS, label="V*"),
                        color=STAR_COLOR, bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))]
        for eta in page.runs:  # legend entries (the points are the timeline's)
            layers.append(legend_layer("points", STATE_DIMS, f"η = {eta}",
                                       **_state_mark(eta).options))
        values = np.concatenate([run.V_path.ravel() for run in page.runs.values()]
                                + [page.V_star])
        values = values[np.isfinite(values)]
        pad = 0.05 * max(float(np.ptp(values)), 1e-9)
        return style(hv.Overlay(layers), framewise=True,
                     xlim=(-0.5, len(order) - 0.5), xticks=integer_ticks(0, len(order) - 1),
                     ylim=(float(values.min()) - pad, float(values.max()) + pad))

    def policy_plot(self):
        page = self.result()
        eta = self.shown_eta if self.shown_eta in page.runs else next(iter(page.runs))
        pol = page.runs[eta].policy
        mdp = page.mdp
        grid = getattr(mdp, "grid", None)
        if grid is not None:  # FrozenLake: V on the lake and the policy's mean move as arrows
            n = grid.shape[0]
            V = page.runs[eta].V.reshape(n, n)
            img = hv.Image(V, bounds=(0, 0, n, n),  # row 0 of the lake on top
                           kdims=[axis("col", "column"), axis("row", "row (from the bottom)")],
                           vdims=[axis("V", f"learned V (η = {eta})")])
            dx = pol[:, 2] - pol[:, 0]
            dy = pol[:, 3] - pol[:, 1]
            rows, cols = np.divmod(np.arange(mdp.n_states), n)
            live = ~mdp.terminal
            angle = np.arctan2(dy, dx)[live]
            mag = np.hypot(dx, dy)[live]
            field = hv.VectorField((cols[live] + 0.5, n - rows[live] - 0.5, angle, mag),
                                   kdims=[axis("col", "column"), axis("row", "row (from the bottom)")],
                                   vdims=["angle", "mag"])
            labels = hv.Labels(([c + 0.5 for c in range(n) for r in range(n)],
                                [n - r - 0.8 for c in range(n) for r in range(n)],
                                [grid[r, c] for c in range(n) for r in range(n)]),
                               kdims=[axis("col", "column"), axis("row", "row (from the bottom)")],
                               vdims=["cell"])
            return (style(img, cmap="viridis", colorbar=True)
                    * style(field, color="white", magnitude=hv.dim("mag"), pivot="mid",
                            bokeh=dict(line_width=2), mpl=dict(linewidth=1))
                    * style(labels, bokeh=dict(text_color="white", text_font_size="9pt"),
                            mpl=dict(color="white", size=8)))
        names = ACTION_NAMES["risky"] if mdp.name.startswith("risky") else [
            f"a{a}" for a in range(mdp.n_actions)]
        shown = min(mdp.n_states, 60)
        # actions in the order of their names: HoloViews' matplotlib heat map labels the rows
        # in the data's order but places the cells in sorted order (the export showed the risky
        # choice's safe probabilities in the row named risky)
        actions = sorted(range(mdp.n_actions), key=lambda a: names[a])
        data = [(s, names[a], float(pol[s, a])) for s in range(shown) for a in actions]
        heat = hv.HeatMap(data, kdims=[axis("state", "state"), axis("action", "action")],
                          vdims=[axis("p", f"π(a | s), η = {eta}")])
        # the exported figure writes each cell's probability in it only when the cells are few
        # enough to read (the risky choice's 4 x 2); a Garnet's 60 x 4 gets a tick every 10th
        # state instead of 60 overprinted ones (the live page's hover gives every value)
        mpl = dict(show_values=shown * mdp.n_actions <= 32, hooks=[_readable_cell_values])
        return style(heat, cmap="magma", colorbar=True, clim=(0.0, 1.0), framewise=True,
                     xticks=integer_ticks(0, shown - 1),
                     bokeh=dict(tools=["hover"]), mpl=mpl)

    def prepare(self) -> None:
        lam_sweep(self._mdp_key(), float(self.gamma))  # the smoothing panel's sweep

    def lam_plot(self):
        lams, ent, gap = lam_sweep(self._mdp_key(), float(self.gamma))
        dims = [axis("smoothing", "λ"), axis("policy_entropy", "mean entropy of π* (nats)")]
        curve = style(hv.Curve((lams, ent), *dims, label="entropy"), color="#9467bd",
                      bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))
        mdp = make_mdp(*self._mdp_key())
        top = float(np.log(mdp.n_actions))
        ceiling = style(hv.Curve((lams[[0, -1]], [top, top]), *dims, label="log |A| (uniform)"),
                        color="gray", bokeh=DASHED, mpl=MPL_DASHED)
        here = float(np.interp(np.log(self.lam), np.log(lams), ent))
        mark = style(hv.Scatter(([float(self.lam)], [here]), *dims, label="this λ"),
                     color="black", bokeh=dict(size=9), mpl=dict(s=40))
        return style(curve * ceiling * mark, logx=True, framewise=True,
                     ylim=(0, top * 1.1))

    # --- the bias run ----------------------------------------------------------------------------
    def run_bias(self, settings: dict, progress=None) -> BiasSweep:
        S, A = int(settings["bias_states"]), int(settings["bias_action"])
        gamma, lam = float(settings["gamma"]), float(settings["lam"])
        bs = np.arange(1, min(10, S) + 1)
        bias = np.full(len(bs), np.nan)
        var = np.full(len(bs), np.nan)
        loss = np.full(len(bs), np.nan)
        for i, b in enumerate(bs):
            mdp = sbeed.garnet(S, A, int(b), seed=int(settings["seed"]))
            star = sbeed.soft_value_iteration(mdp, gamma=gamma, lam=lam)
            fixed = sbeed.biased_fixed_point(mdp, gamma=gamma, lam=lam, eta=0.0)
            bias[i] = np.max(np.abs(fixed.V - star.V))
            var[i] = gamma**2 * np.mean(mdp.P @ star.V**2 - (mdp.P @ star.V) ** 2)
            loss[i] = np.mean(star.V - sbeed.policy_values(mdp, fixed.policy, gamma=gamma, lam=lam))
            report(progress, (i + 1) / len(bs), f"branching {b} of {bs[-1]}",
                   partial=BiasSweep(bs, bias.copy(), var.copy(), loss.copy(), i + 1))
        return BiasSweep(bs, bias, var, loss, len(bs))

    def bias_estimate(self, settings: dict) -> float:
        return 0.05 * settings["bias_states"] * settings["bias_action"] / 10

    def bias_summary(self, settings: dict, result: BiasSweep) -> str:
        if result.done < len(result.branching):
            return ""
        return (f"**This run:** the η = 0 fixed point is off V* by {result.bias[0]:.2g} with one "
                f"next state and by {np.nanmax(result.bias):.3g} at most (branching "
                f"{result.branching[np.nanargmax(result.bias)]}); its policy loses "
                f"{np.nanmax(result.value_loss):.3g} of smoothed value on average at worst.")

    def bias_plot(self, result: BiasSweep):
        dims = [axis("branching", "next states per (s, a)"), axis("bias", "value")]
        return style(
            style(hv.Curve((result.branching.astype(float), result.bias), *dims,
                           label="max over s of |V(η = 0) − V*|"), color=ETA_COLORS["0"],
                  bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))
            * style(hv.Curve((result.branching.astype(float), result.value_loss), *dims,
                             label="mean loss of value of its policy"), color="#ff7f0e",
                    bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))
            * style(hv.Curve((result.branching.astype(float), result.variance), *dims,
                             label="γ² E Var[V*(s′)]"), color="gray", bokeh=DASHED,
                    mpl=MPL_DASHED),
            framewise=True, xticks=integer_ticks(1, int(result.branching.max())))

    # --- the k run ---------------------------------------------------------------------------
    def run_k(self, settings: dict, progress=None) -> KSweep:
        mdp = make_mdp(settings["mdp_name"], int(settings["n_states"]), int(settings["n_actions"]),
                       int(settings["branching"]), int(settings["seed"]))
        ks = np.array(K_VALUES)
        error = {"0": np.full(len(ks), np.nan), "1": np.full(len(ks), np.nan)}
        total = 2 * len(ks)
        done = 0
        spent = 0.0  # the share of the sweep's time done: its progress fraction
        for i, k in enumerate(ks):
            for eta in error:
                share = K_RUN_COST[eta] / (len(ks) * sum(K_RUN_COST.values()))
                inner = progress_part(progress, spent, min(spent + share, 1.0),
                                      f"k = {k}, η = {eta}")
                run = sbeed.sbeed_tabular(
                    mdp, gamma=float(settings["gamma"]), lam=float(settings["lam"]),
                    eta=float(eta), k=int(k), mode="sampled",
                    iterations=int(settings["k_iterations"]), step_size=float(settings["k_eta_step"]),
                    batch_size=int(settings["batch_size"]), buffer_size=PAGE_BUFFER,
                    seed=int(settings["seed"]), n_checkpoints=K_REPORTS,
                    progress=None if inner is None else lambda f, m, partial=None: inner(f, m))
                tail = run.v_error[-max(1, len(run.v_error) // 10):]
                error[eta][i] = float(np.mean(tail))
                done += 1
                spent += share
                report(progress, min(spent, 1.0), f"k = {k}, η = {eta}",
                       partial=KSweep(ks, {e: v.copy() for e, v in error.items()}, done))
        return KSweep(ks, error, total)

    def k_estimate(self, settings: dict) -> float:
        return len(K_VALUES) * settings["k_iterations"] * sum(K_RUN_COST.values())

    def k_summary(self, settings: dict, result: KSweep) -> str:
        if np.isnan(result.error["1"]).any() or np.isnan(result.error["0"]).any():
            return ""
        best = {e: int(result.k[np.argmin(v)]) for e, v in result.error.items()}
        return (f"**This run:** the smallest distance to V* is at k = {best['1']} for η = 1 "
                f"({np.min(result.error['1']):.3g}) and k = {best['0']} for η = 0 "
                f"({np.min(result.error['0']):.3g}).")

    def k_plot(self, result: KSweep):
        dims = [axis("k", "rollout length k"), axis("error", "mean ‖Vₜ − V*‖∞, last 10 %")]
        layers = [style(hv.Curve((result.k.astype(float), v), *dims, label=f"η = {e}"),
                        color=ETA_COLORS[e], bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))
                  * style(hv.Scatter((result.k.astype(float), v), *dims), color=ETA_COLORS[e],
                          bokeh=dict(size=7), mpl=dict(s=20))
                  for e, v in result.error.items()]
        return style(hv.Overlay(layers), logx=True, logy=True, framewise=True,
                     xticks=[float(k) for k in K_VALUES])

    # --- Pendulum ----------------------------------------------------------------------------
    def run_pendulum(self, settings: dict, progress=None) -> PendulumRuns:
        seeds = int(settings["p_seeds"])
        runs: list = []

        for s in range(seeds):
            def inner(fraction, message, partial=None, s=s):
                report(progress, (s + fraction) / seeds, f"seed {s + 1} of {seeds}: {message}",
                       partial=PendulumRuns(runs + ([partial] if partial is not None else []),
                                            seeds))

            runs.append(pend.sbeed_pendulum(
                steps=int(settings["p_steps"]), lam=float(settings["p_lam"]),
                eta=float(settings["p_eta"]), k=int(settings["p_k"]),
                noise=float(settings["p_noise"]), seed=s, progress=inner))
        return PendulumRuns(runs, seeds)

    def pendulum_estimate(self, settings: dict) -> float:
        return (PENDULUM_SECONDS_PER_K * settings["p_steps"] / 1000 * settings["p_seeds"]
                * pend.run_cost(int(settings["p_k"])))

    def pendulum_summary(self, settings: dict, result: PendulumRuns) -> str:
        done = [r for r in result.runs if r.done == len(r.returns)]
        if len(done) < result.seeds:
            return ""
        last = [np.mean(r.returns[-10:]) for r in done]
        first = [np.mean(r.returns[:10]) for r in done]
        secs = sum(r.seconds for r in done)
        return (f"**This run:** mean return of the first 10 episodes {np.mean(first):.0f}, of the "
                f"last 10 {np.mean(last):.0f} (seeds: {', '.join(f'{x:.0f}' for x in last)}); "
                f"the mean action from hanging down scores {done[0].rollout_return:.0f}; "
                f"{secs:.0f} s of compute for {len(done) * settings['p_steps']:,} steps.")

    def return_plot(self, result: PendulumRuns):
        dims = [axis("steps", "environment steps"), axis("return", "episode return")]
        runs = [r for r in result.runs if np.isfinite(r.returns).any()]
        done = min(int(np.isfinite(r.returns).sum()) for r in runs)
        curves = np.stack([smooth(r.returns[:done]) for r in runs])
        steps = runs[0].steps[:done]
        layers = []
        if len(runs) > 1:
            layers.append(style(hv.Area((steps, curves.min(0), curves.max(0)), dims[0],
                                        [dims[1], "hi"], label=f"range over {len(runs)} seeds"),
                                color="#1f77b4", alpha=0.25, bokeh=dict(line_alpha=0),
                                mpl=dict(facecolor="#1f77b4", linewidth=0)))
        layers.append(style(hv.Curve((steps, curves.mean(0)), *dims,
                                     label="mean" if len(runs) > 1 else "seed 0"),
                            color="#1f77b4", bokeh=dict(line_width=2), mpl=dict(linewidth=1.5)))
        return style(hv.Overlay(layers), framewise=True)

    def v_image(self, result: PendulumRuns):
        run = result.runs[0]
        img = hv.Image((run.angles, run.velocities, run.V_grid.astype(np.float32)),
                       kdims=[axis("angle", "angle θ (rad, 0 = upright)"),
                              axis("velocity", "angular velocity (rad/s)")],
                       vdims=[axis("V", "learned V")])
        return style(img, cmap="viridis", colorbar=True, framewise=True)

    def episode_frames(self, result: PendulumRuns) -> Frames:
        """The Pendulum run's timeline: the bob (sin θ, cos θ, θ = 0 upright) at each step of
        seed 0's rollout, and the step's time (s); one frame hanging down before a rollout."""
        rollout = result.runs[0].rollout if result.runs else np.array([[np.pi, 0.0]])
        theta = rollout[:, 0]
        t = np.arange(len(theta))
        return Frames(t, {"bx": np.sin(theta), "by": np.cos(theta), "time": t * pend.DT})

    def rollout_plot(self, result: PendulumRuns):
        run = result.runs[0]
        t = np.arange(len(run.rollout)) * pend.DT
        dims = [axis("time", "time (s)"), axis("height", "height of the bob, cos θ (rod lengths)")]
        curve = style(hv.Curve((t, np.cos(run.rollout[:, 0])), *dims, label="cos θ(t)"),
                      color="#1f77b4", bokeh=dict(line_width=2), mpl=dict(linewidth=1.5))
        up = style(hv.Curve((t[[0, -1]], [1.0, 1.0]), *dims, label="upright"), color="gray",
                   bokeh=DASHED, mpl=MPL_DASHED)
        return style(curve * up, framewise=True, ylim=(-1.1, 1.25))

    def pendulum_frame(self, result: PendulumRuns):
        """The pivot and the circle the bob moves on; the pendulum at step t (rod, bob, trail)
        is the episode's marks."""
        circle = np.linspace(0, 2 * np.pi, 121)
        path = style(hv.Curve((np.sin(circle), np.cos(circle)), *BOB_DIMS), color="#cccccc",
                     bokeh=dict(line_width=1, **DOTTED), mpl=dict(linewidth=0.8, **MPL_DOTTED))
        pivot = style(hv.Points(([0.0], [0.0]), list(BOB_DIMS)), color="black", bokeh=dict(size=7),
                      mpl=dict(s=20))
        # x range wider than y range by about the panel's plot area ratio: a round swing
        # (an export keeps the data's aspect: a square box drew the circle as an ellipse)
        return style(path * pivot, xlim=(-1.75, 1.75), ylim=(-1.3, 1.3), framewise=True,
                     mpl=dict(aspect="equal"))

    # --- the ablation (views.pages.sbeed.ablation) ----------------------------------------------------
    def run_ablation(self, settings: dict, progress=None) -> AblationRuns:
        return ablation.run(settings, progress)

    def ablation_estimate(self, settings: dict) -> float:
        return ablation.estimate(settings)

    def ablation_summary(self, settings: dict, result: AblationRuns) -> str:
        return ablation.summary(result)

    def ablation_lam(self, result):
        return ablation.returns_panel(result, "lam", "λ")

    def ablation_eta(self, result):
        return ablation.returns_panel(result, "eta", "η")

    def ablation_k(self, result):
        return ablation.returns_panel(result, "k", "k")

    def ablation_eta_noisy(self, result):
        return ablation.returns_panel(result, "eta_noisy", "η")

    def ablation_tabular(self, result):
        return ablation.tabular_panel(result)

    # --- Fig 6.1 (b) on Swimmer (views.pages.sbeed.swimmer) ---------------------------------------------
    def run_swimmer(self, settings: dict, progress=None):
        return swimmer.run(settings, progress)

    def swimmer_estimate(self, settings: dict) -> float:
        return swimmer.estimate(settings)

    def swimmer_summary(self, settings: dict, result) -> str:
        return swimmer.summary(result)

    def swimmer_eta(self, result):
        return swimmer.eta_panel(result)

    # --- Fig 6.1 (a) and (c) on Swimmer -----------------------------------------------------------
    def run_swimmer_lk(self, settings: dict, progress=None):
        return swimmer.run_lam_k(settings, progress)

    def swimmer_lk_estimate(self, settings: dict) -> float:
        return swimmer.estimate_lam_k(settings)

    def swimmer_lk_summary(self, settings: dict, result) -> str:
        return swimmer.summary_lam_k(result)

    def swimmer_lam(self, result):
        return swimmer.lam_panel(result)

    def swimmer_k(self, result):
        return swimmer.k_panel(result)

    def swimmer_k_variance(self, result):
        return swimmer.k_variance_panel(result)
