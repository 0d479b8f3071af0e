"""The paper claims the Doeblin runs are judged by (Steinhardt & Liang, Props 3.1-3.4, Thm 3.6
and Cor 3.7, Fig 4 and Table 1). The page and the gallery call these; so do the studies
(``dynamics.doeblin.studies``) on each of their settings."""

from __future__ import annotations

import numpy as np

from dynamics.checks import check_count, check_instance
from dynamics.claims import Verdict
from dynamics.doeblin.chains import RestartSweep
from dynamics.doeblin.dnf_table import DNFTable
from dynamics.doeblin.staged import StagedBounds, StagedSweep
from dynamics.doeblin.word_task import WordTaskResult

__all__ = ["restart_gap_claim", "staged_gap_claim", "word_order_claim",
           "staged_restarts_claim", "WORD_MIN_SEEDS"]

#: Rounding allowed when a gap is compared with its bound.
_ROUNDING = 1e-12
#: Fewest seeds (independent repetitions) on which `word_order_claim` judges the word task.
WORD_MIN_SEEDS = 3


def restart_gap_claim(sweep: RestartSweep, *, state: int = 1) -> Verdict:
    """Steinhardt & Liang, Props 3.1 and 3.4 (Fig 1): "The spectral gap of A~ is at least
    epsilon" and "Both KL(pi~_eps || pi) and KL(pi || pi~_eps) are monotonic functions of
    epsilon".

    Rule: on every epsilon of ``sweep`` (`restart_sweep`, epsilon increasing) the gap is at
    least epsilon, and both divergences never decrease as epsilon grows. ``state`` (1-based)
    is the state whose stationary probability the sentence follows."""
    check_instance("sweep", sweep, RestartSweep)
    state = check_count("state", state, high=sweep.stationary.shape[1])
    margin = sweep.gaps - sweep.eps
    gap_ok = bool(np.all(margin >= -_ROUNDING))
    mono = bool(np.all(np.diff(sweep.kl_restart_pi) >= -_ROUNDING)
                and np.all(np.diff(sweep.kl_pi_restart) >= -_ROUNDING))
    return Verdict.from_checks(
        "Steinhardt & Liang, Fig 1 and Props 3.1-3.5",
        "Restarting with probability ε gives a spectral gap of at least ε (Prop 3.1); the "
        "stationary law moves from π to u as ε grows, in two regimes for the three-state chain "
        "(Fig 1), and both KL divergences to π grow monotonically (Prop 3.4).",
        ((gap_ok, "a spectral gap falls below ε (Prop 3.1)"),
         (mono, "a KL divergence decreases as ε grows (Prop 3.4)")),
        measured=(f"{len(sweep.eps)} values of ε from {sweep.eps[0]:.1e} to {sweep.eps[-1]:.2g}:"
                  f" spectral gap >= ε at every one: {gap_ok} (smallest gap − ε "
                  f"{float(np.min(margin)):.2e}); KL(π̃‖π) and KL(π‖π̃) non-decreasing in ε: "
                  f"{mono}; π̃(y = {state}) from {sweep.stationary[0, state - 1]:.3f} to "
                  f"{sweep.stationary[-1, state - 1]:.3f}"),
        why=(f"the gap is at least ε at all {len(sweep.eps)} values and both divergences grow "
             "with ε"),
        numbers=dict(smallest_gap_minus_eps=float(np.min(margin)), gap_at_least_eps=gap_ok,
                     kl_monotone=mono))


def staged_gap_claim(staged: StagedSweep, bounds: StagedBounds) -> Verdict:
    """Steinhardt & Liang, Thm 3.6 and Cor 3.7 (Fig 2): the staged strong Doeblin chain's
    spectral gap is at least Thm 3.6's bound, and at least eps_2 / 78 under Cor 3.7's
    hypothesis.

    Rule: at every eps_2 of ``staged`` (`staged_sweep`) the gap is at least ``bounds.theorem``
    (`staged_cycle_bounds` on the same grid), and at least ``bounds.corollary`` where the
    corollary applies (not NaN)."""
    check_instance("staged", staged, StagedSweep)
    check_instance("bounds", bounds, StagedBounds)
    if bounds.theorem.shape != staged.gaps.shape:
        raise ValueError(f"bounds must be on the grid of staged ({staged.gaps.size} values of "
                         f"eps_2), got {bounds.theorem.size}")
    above = bool(np.all(staged.gaps >= bounds.theorem - _ROUNDING))
    cor = ~np.isnan(bounds.corollary)
    above_cor = bool(np.all(staged.gaps[cor] >= bounds.corollary[cor] - _ROUNDING))
    smallest = float(np.min(staged.gaps / bounds.theorem))
    return Verdict.from_checks(
        "Steinhardt & Liang, Fig 2 and Thm 3.6",
        "A chain of stages (restart, a simpler chain, the full chain) keeps a spectral gap "
        "bounded below by Thm 3.6 (and ε₂/78 under Cor 3.7's hypothesis).",
        ((above, "a staged gap falls below Thm 3.6's bound"),
         (above_cor, "a staged gap falls below Cor 3.7's ε₂/78 where it applies")),
        measured=(f"ε₁ = {staged.eps1:g}, {len(staged.eps2)} values of ε₂: staged gap above Thm "
                  f"3.6's bound at all: {above}, above Cor 3.7's ε₂/78 where it applies "
                  f"({int(cor.sum())} values): {above_cor}; smallest ratio gap / Thm 3.6 bound "
                  f"{smallest:.2f}"),
        why=f"every staged gap is above its bounds (at least {smallest:.2f} times Thm 3.6's)",
        numbers=dict(above_theorem=above, above_corollary=above_cor,
                     corollary_values=int(cor.sum()), smallest_ratio=smallest))


def _best_doeblin(names: list, values: np.ndarray) -> tuple[str, float] | None:
    present = [m for m in ("doeblin", "doeblin-edit") if m in names]
    if not present:
        return None
    best = max(present, key=lambda m: values[names.index(m)])
    return best, float(values[names.index(best)])


def _paper_order(names: list, values: np.ndarray) -> bool:
    """Whether the better Doeblin training > u-Gibbs > basic-Gibbs in ``values``."""
    _, doeblin = _best_doeblin(names, values)
    u, basic = (float(values[names.index(m)]) for m in ("u-gibbs", "basic-gibbs"))
    return doeblin > u > basic


def word_order_claim(result: WordTaskResult) -> Verdict:
    """Steinhardt & Liang, Sec 5 and Fig 4: "Overall, our Doeblin sampler outperforms
    u_theta-Gibbs by a significant margin, which in turn outperforms basic-Gibbs", with Fig 4
    plotting word-level (left) and character-level (right) accuracy.

    Rule (one for the page, the gallery and the study): at the last evaluation of ``result``
    (`train_word_task`), the better of the two Doeblin trainings ("doeblin", Algorithm 1 as
    written; "doeblin-edit", the paper's edit-distance weights) has a higher mean held-out
    accuracy than u-Gibbs, and u-Gibbs than basic-Gibbs, in word accuracy and in character
    accuracy both, the means taken over at least ``WORD_MIN_SEEDS`` (3) seeds. How many seeds
    show the order on their own, and the margin of the better Doeblin training over u-Gibbs
    with its standard error (``numbers[kind]["margin"]``, ``["margin_se"]``: the two methods'
    standard errors over seeds, combined), are reported beside it; the margin's size (the
    paper: 3.6 % character accuracy) is not judged. A result with fewer seeds, or without a
    Doeblin training, u-Gibbs and basic-Gibbs, is not judged."""
    check_instance("result", result, WordTaskResult)
    names = list(result.methods)
    statement = ("Learning a strong Doeblin chain beats Gibbs sampling: 3.6 % more character "
                 "accuracy with 5x fewer samples (Doeblin sampling above u_θ-Gibbs and basic "
                 "Gibbs).")
    finals = {"word": result.word_mean[-1], "character": result.char_mean[-1]}
    errors = {"word": result.word_se[-1], "character": result.char_se[-1]}
    seeds = int(result.word_accuracy.shape[-1])
    measured = (f"final word / character accuracy, mean of {seeds} seed(s) at T = "
                f"{result.transitions}: "
                + "; ".join(f"{m} {finals['word'][k]:.3f} / {finals['character'][k]:.3f}"
                            for k, m in enumerate(names)))
    gibbs = {"u-gibbs", "basic-gibbs"}
    if _best_doeblin(names, finals["word"]) is None or not gibbs <= set(names):
        return Verdict(claim="Steinhardt & Liang, Fig 4", statement=statement, agrees=None,
                       measured=measured, why="the run lacks a Doeblin training, u-Gibbs or "
                                              "basic-Gibbs")
    per_seed = [all(_paper_order(names, acc[-1, :, s])
                    for acc in (result.word_accuracy, result.char_accuracy))
                for s in range(seeds)]
    held = int(sum(per_seed))
    measured += f"; the paper's order holds on {held} of {seeds} seed(s) on their own"
    if seeds < WORD_MIN_SEEDS:
        return Verdict(claim="Steinhardt & Liang, Fig 4", statement=statement, agrees=None,
                       measured=measured,
                       why=f"the run has {seeds} seed(s); a verdict needs at least "
                           f"{WORD_MIN_SEEDS}", numbers=dict(seeds=seeds, seeds_agreeing=held))
    numbers, holds, said = dict(seeds=seeds, seeds_agreeing=held), [], []
    for kind, values in finals.items():
        best, doeblin = _best_doeblin(names, values)
        u, basic = (float(values[names.index(m)]) for m in ("u-gibbs", "basic-gibbs"))
        ok = _paper_order(names, values)
        holds.append(ok)
        margin_se = float(np.hypot(errors[kind][names.index(best)],
                                   errors[kind][names.index("u-gibbs")]))
        numbers[kind] = dict(doeblin=doeblin, doeblin_method=best, u_gibbs=u, basic_gibbs=basic,
                             margin=doeblin - u, margin_se=margin_se)
        order = " > ".join(m for m in sorted(names, key=lambda m: -values[names.index(m)]))
        said.append(f"{kind} accuracy: {best} {doeblin:.3f} > u-gibbs {u:.3f} > basic-gibbs "
                    f"{basic:.3f}" if ok else f"{kind} accuracy orders {order}")
    agrees = all(holds)
    return Verdict(
        claim="Steinhardt & Liang, Fig 4", statement=statement, agrees=agrees,
        measured=measured,
        why=("the paper's order holds in " if agrees else
             "the paper's order (Doeblin > u-Gibbs > basic-Gibbs, in word and character "
             "accuracy) fails: ") + "; ".join(said)
            + f" (means of {seeds} seeds; on its own, {held} of {seeds} seeds; the better "
              f"Doeblin training − u-Gibbs: {numbers['word']['margin']:+.3f} ± "
              f"{numbers['word']['margin_se']:.3f} in word accuracy, "
              f"{numbers['character']['margin']:+.3f} ± {numbers['character']['margin_se']:.3f} "
              "in character accuracy)",
        numbers=numbers)


def staged_restarts_claim(table: DNFTable) -> Verdict:
    """Steinhardt & Liang, Sec 5 and Table 1: "Using the staged method we are able to obtain a
    30% speedup over uniformly random restarts and a 50x improvement over no restarts".

    Rule (one for the page, the gallery and the study): on the hardest level of ``table`` (its
    last, `dnf_experiment`), the mean number of MH steps to a zero-error formula orders the
    searches 2-stage < 1-stage < 0-stage (unsolved runs count the step cap). Steps, not
    seconds: the paper times whole verifications, ours would time one search on a machine
    whose load moves its seconds, and a step of each search costs about the same (3.6-4.5 us
    on the "hard" level, measured); the seconds and the ratios are reported beside the order,
    whose size (30 %, 50x) is not judged."""
    check_instance("table", table, DNFTable)
    names = list(table.methods)
    level = table.levels[-1]
    steps, seconds = table.mean_steps[-1], table.mean_seconds[-1]
    statement = ("The 2-stage chain is fastest, 30 % faster than uniform restarts (1-stage) and "
                 "50x faster than no restarts (0-stage).")
    cells = ", ".join(f"{m} {steps[k]:,.0f} steps ({1e3 * seconds[k]:.3g} ms)"
                      for k, m in enumerate(names))
    measured = f"mean steps (time) to a consistent formula at level '{level}': {cells}"
    if set(names) != {"0-stage", "1-stage", "2-stage"}:
        return Verdict(claim="Steinhardt & Liang, Table 1", statement=statement, agrees=None,
                       measured=measured, why="the run lacks one of the three searches")
    plain, uniform, staged = (float(steps[names.index(m)])
                              for m in ("0-stage", "1-stage", "2-stage"))
    agrees = staged < uniform < plain
    order = " < ".join(names[k] for k in np.argsort(steps, kind="stable"))
    ratios = (f"1-stage / 2-stage {uniform / staged:.2f}x, 0-stage / 2-stage "
              f"{plain / staged:.2f}x in steps (the paper: 1.3x and 50x in seconds)")
    return Verdict(
        claim="Steinhardt & Liang, Table 1", statement=statement, agrees=agrees,
        measured=measured,
        why=(f"on level '{level}' the mean steps order {order}"
             + ("" if agrees else ", not 2-stage < 1-stage < 0-stage") + f"; {ratios}"),
        numbers=dict(level=level, steps={m: float(steps[k]) for k, m in enumerate(names)},
                     seconds={m: float(seconds[k]) for k, m in enumerate(names)}))
