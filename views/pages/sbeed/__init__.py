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
import param

from dynamics import sbeed
from dynamics.papers import DAI
from views.framework.cache import results_cache
from views.framework import (DASHED, MPL_DASHED, Explorer, Frames, Mark,
                             Plot, Timeline, axis, integer_ticks, style)
from views.framework.text import prose
from views.framework.marks import legend_layer
from views.framework.legends import LEGEND_BESIDE
from views.pages.sbeed.ablation import AblationRun
from views.pages.sbeed.swimmer import SwimmerLamKRun, SwimmerRun
from views.pages.sbeed.common import (ACTION_NAMES, ETA_COLORS, ETAS, MDPS, NOW, PAGE_BUFFER,
                                       STAR_COLOR, STATE_DIMS, make_mdp)
from views.pages.sbeed.runs import BiasRun, KRun, PendulumRun


def _state_options(eta: str) -> dict:
    """The style of the learned V of the run with dual weight ``eta``: its mark and its legend
    entry."""
    return dict(color=ETA_COLORS[eta], bokeh=dict(size=6), mpl=dict(s=14))


def _state_marks(plot) -> tuple:
    """On panel ``plot``, the learned V of the run with each dual weight eta at iteration t,
    per state (NaN rows when that eta is not run: nothing drawn)."""
    return tuple(Mark(plot, "points", x="rank", y=f"V_{eta}", dims=STATE_DIMS, always=True,
                      options=_state_options(eta)) for eta in ETAS)


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


class SBEEDExplorer(Explorer):
    """Tabular SBEED for several eta at once, with runs on the branching noise, k and Pendulum."""

    slug = "sbeed"
    title = "SBEED"
    summary = ("Smoothed Bellman error embedding: a dual function removes the bias that "
               "stochastic transitions put into Bellman residual minimisation.")
    paper = DAI
    figures = ("Ch 6 and appendix D: Algorithm 5, Fig 6.1 (on Pendulum-v1 and on Swimmer-v5); "
               "eqs 6.4-6.10, Props 24-26 and 55, Thm 27, eq D.3")

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

    fields = ("seed",)
    widgets = {name: {"throttled": True} for name in (
        "n_states", "n_actions", "branching", "gamma", "lam", "iterations", "step_size", "k",
        "batch_size")}
    widgets["etas"] = {"type": "checkboxes", "inline": True}
    groups = {"MDP": ("mdp_name", "gamma", "lam", "n_states", "n_actions", "branching", "seed"),
              "SBEED": ("etas", "shown_eta", "iterations", "step_size", "mode", "k",
                        "batch_size")}

    # what the generic tests and benches need of this page (see ``Explorer``)
    example_change = {"lam": 0.3}
    bench_move = ("lam", [0.11, 0.12, 0.13, 0.14, 0.15, 0.16, 0.17, 0.18])
    runs = (BiasRun, KRun, PendulumRun, AblationRun, SwimmerRun, SwimmerLamKRun)

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
        # beside the data area: under the x axis the first plot's legend fell below a
        # 1024 x 768 screen, and inside it covered the runs that level off
        return style(hv.Overlay(layers), logy=True, framewise=True,
                     bokeh=dict(hooks=[LEGEND_BESIDE]))

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
                                       **_state_options(eta)))
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

    # --- panels, layout and time axis (the methods above) ------------------------------------
    plots = (
        Plot(error_plot, title="Distance to the smoothed optimum", ignores=("shown_eta",)),
        Plot(value_plot, title="Value of the learned policy", ignores=("shown_eta",)),
        Plot(objective_plot, title="The objective SBEED minimises", ignores=("shown_eta",)),
        Plot(states_plot, title="V at iteration t against V* per state",
             ignores=("shown_eta",)),
        Plot(policy_plot, title="Learned policy"),
        Plot(lam_plot, title="Smoothing: entropy of π* against λ",
             depends=("mdp_name", "n_states", "n_actions", "branching", "seed", "gamma", "lam")),
    )
    timeline = Timeline(
        iteration_frames, unit="iteration",
        caption=prose(__file__, "timeline.md"),
        marks=(*(Mark(p, "vline", x="t", options=NOW)
                 for p in (error_plot, value_plot, objective_plot)),
               *_state_marks(states_plot),
               # the runs' curves end at t (π*'s value stays)
               *(Mark(p, "grow", x="t", dims=("iteration",), keep=("π*",))
                 for p in (error_plot, value_plot, objective_plot))))
