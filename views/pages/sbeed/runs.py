"""The SBEED page's runs (Dai, ch 6): the bias of eta = 0 against the branching noise (Prop 24's
example in numbers), the rollout length k of sampled SBEED (eq D.3), and training on
gymnasium's Pendulum-v1 (``dynamics.sbeed.pendulum.sbeed_pendulum``). The ablation and the
Swimmer runs are in ``ablation`` and ``swimmer`` beside this file."""

from __future__ import annotations

from dataclasses import dataclass

import holoviews as hv
import numpy as np
import param

from dynamics import sbeed
from dynamics.checks import report
from dynamics.sbeed import pendulum as pend
from views.framework import (DASHED, DOTTED, MPL_DASHED, MPL_DOTTED, Frames, Mark, Plot, Timeline,
                             axis, integer_ticks, prose, style)
from views.framework.jobs import progress_part
from views.framework.runs import Run
from views.pages.sbeed.ablation import PENDULUM_SECONDS_PER_K, smooth
from views.pages.sbeed.common import ETA_COLORS, NOW, PAGE_BUFFER, make_mdp

__all__ = ["BiasRun", "KRun", "PendulumRun", "BiasSweep", "KSweep", "PendulumRuns", "K_VALUES"]

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
BOB_DIMS = (axis("x", "horizontal position (rod lengths)"), axis("y", "height (rod lengths)"))


def _episode_marks(frame, rollout) -> tuple:
    """What the Pendulum run's timeline (its episode under the learned policy's mean action)
    draws: the pendulum on panel ``frame``, a line at the time on panel ``rollout``."""
    return (Mark(frame, "trail", x="bx", y="by", dims=BOB_DIMS, length=20, always=True,
                 options=dict(color="#1f77b4", alpha=0.5, bokeh=dict(line_width=3),
                              mpl=dict(linewidth=2))),
            Mark(frame, "ray", x="bx", y="by", dims=BOB_DIMS, always=True,
                 options=dict(color="#333333", bokeh=dict(line_width=5), mpl=dict(linewidth=3))),
            Mark(frame, "point", x="bx", y="by", dims=BOB_DIMS, always=True,
                 options=dict(color="#d62728", bokeh=dict(size=18), mpl=dict(s=120))),
            Mark(rollout, "vline", x="time", options=NOW),
            # the bob's height ends at the time shown
            Mark(rollout, "grow", x="time", dims=("time",), keep=("upright",)))


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


class BiasRun(Run):
    """The eta = 0 fixed point's distance to V* on Garnets of growing branching (Prop 24)."""

    key = "bias"
    title = "The bias of η = 0 against the branching noise"
    button = "Run the bias sweep"
    text = prose(__file__, "bias.md")
    uses = ("seed", "gamma", "lam")
    aliases = {"bias_states": "states", "bias_action": "actions"}
    quick = {"states": 5, "actions": 2}

    states = param.Integer(30, bounds=(5, 100), step=5, label="States",
                           doc="States of the Garnets of the bias run.")
    actions = param.Integer(4, bounds=(2, 8), label="Actions", doc="Actions of the Garnets.")

    def compute(self, settings: dict, progress=None) -> BiasSweep:
        S, A = int(settings["states"]), int(settings["actions"])
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

    def estimate(self, settings: dict) -> float:
        return 0.05 * settings["states"] * settings["actions"] / 10

    def summary(self, settings: dict, result: BiasSweep) -> str:
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

    plots = (Plot(bias_plot, title="Bias of the η = 0 fixed point"),)


class KRun(Run):
    """Sampled SBEED at rollout lengths ``K_VALUES``, eta = 0 against eta = 1 (eq D.3)."""

    key = "ksweep"
    title = "The rollout length k (sampled SBEED)"
    button = "Run the k sweep"
    text = prose(__file__, "ksweep.md")
    uses = ("mdp_name", "n_states", "n_actions", "branching", "seed", "gamma", "lam",
            "batch_size")
    aliases = {"k_eta_step": "step_size", "k_iterations": "iterations"}
    quick = {"iterations": 2_000, "n_states": 5, "batch_size": 8}

    step_size = param.Number(0.2, bounds=(0.01, 0.3), step=0.01, label="Step size",
                             doc="Step size of the sampled runs of the k run.")
    iterations = param.Integer(20000, bounds=(2000, 100_000), step=1000, label="Iterations",
                               doc="Updates of each sampled run.")

    def compute(self, settings: dict, progress=None) -> KSweep:
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
                    iterations=int(settings["iterations"]), step_size=float(settings["step_size"]),
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

    def estimate(self, settings: dict) -> float:
        return len(K_VALUES) * settings["iterations"] * sum(K_RUN_COST.values())

    def summary(self, settings: dict, result: KSweep) -> str:
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

    plots = (Plot(k_plot, title="Distance to V* after training, against k"),)


class PendulumRun(Run):
    """SBEED on gymnasium's Pendulum-v1, with the learned V and a rollout of its policy."""

    key = "pendulum"
    title = "Pendulum-v1: returns while learning"
    button = "Train on Pendulum"
    text = prose(__file__, "pendulum.md")
    aliases = {"p_lam": "lam", "p_eta": "eta", "p_k": "k", "p_noise": "noise",
               "p_steps": "steps", "p_seeds": "seeds"}
    quick = {"steps": 2_000, "seeds": 1, "k": 1}

    lam = param.Number(0.01, bounds=(0.001, 0.1), step=0.001, label="λ",
                       doc="Entropy weight of the Pendulum run.")
    eta = param.Number(0.1, bounds=(0.0, 1.0), step=0.01, label="η", doc="Dual weight.")
    k = param.Integer(10, bounds=(1, 100), label="k", doc="Rollout length.")
    noise = param.Number(0.2, bounds=(0.0, 1.0), step=0.05, label="Transition noise (rad/s)",
                         doc="Standard deviation added to the angular velocity each step.")
    steps = param.Integer(20_000, bounds=(2_000, 200_000), step=2_000, label="Steps",
                          doc="Environment steps per seed (episodes of 200).")
    seeds = param.Integer(2, bounds=(1, 5), label="Seeds", doc="Runs with seeds 0, 1, ...")

    def compute(self, settings: dict, progress=None) -> PendulumRuns:
        seeds = int(settings["seeds"])
        runs: list = []

        for s in range(seeds):
            def inner(fraction, message, partial=None, s=s):
                report(progress, (s + fraction) / seeds, f"seed {s + 1} of {seeds}: {message}",
                       partial=PendulumRuns(runs + ([partial] if partial is not None else []),
                                            seeds))

            runs.append(pend.sbeed_pendulum(
                steps=int(settings["steps"]), lam=float(settings["lam"]),
                eta=float(settings["eta"]), k=int(settings["k"]),
                noise=float(settings["noise"]), seed=s, progress=inner))
        return PendulumRuns(runs, seeds)

    def estimate(self, settings: dict) -> float:
        return (PENDULUM_SECONDS_PER_K * settings["steps"] / 1000 * settings["seeds"]
                * pend.run_cost(int(settings["k"])))

    def summary(self, settings: dict, result: PendulumRuns) -> str:
        done = [r for r in result.runs if r.done == len(r.returns)]
        if len(done) < result.seeds:
            return ""
        last = [np.mean(r.returns[-10:]) for r in done]
        first = [np.mean(r.returns[:10]) for r in done]
        secs = sum(r.seconds for r in done)
        return (f"**This run:** mean return of the first 10 episodes {np.mean(first):.0f}, of the "
                f"last 10 {np.mean(last):.0f} (seeds: {', '.join(f'{x:.0f}' for x in last)}); "
                f"the mean action from hanging down scores {done[0].rollout_return:.0f}; "
                f"{secs:.0f} s of compute for {len(done) * settings['steps']:,} steps.")

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

    timeline = Timeline(episode_frames, unit="step",
                        marks=_episode_marks(pendulum_frame, rollout_plot),
                        caption=prose(__file__, "pendulum.timeline.md"))
    plots = (Plot(return_plot, title="Episode return against environment steps"),
             Plot(v_image, title="Learned V(angle, velocity), seed 0"),
             Plot(rollout_plot, title="Bob height under the mean action"),
             Plot(pendulum_frame, title="Rollout of the learned policy, seed 0"))
