"""The Doeblin page's two experiments, run as jobs (``views.framework.jobs``): the word-task
learning curves (Steinhardt & Liang Sec 4-5, Fig 4) and the DNF search times (Sec 5, Table 1),
their page text, the settings they take from the page's knobs and the lines read off a result."""

from __future__ import annotations

import numpy as np

from dynamics import doeblin as db
from views.framework.text import verdict_markdown

__all__ = ["DNF_KEYS", "DNF_SECONDS_PER_TRIAL", "WORD_KEYS", "WORD_SECONDS_PER_UNIT",
           "dnf_table_markdown", "experiment_summary", "word_task_settings"]

WORD_KEYS = ("word_channel", "word_noise", "word_length", "transitions", "epochs", "seeds")
DNF_KEYS = ("trials",)
#: Seconds of one unit of work measured on the development machine (2 shared cores), used for
#: the estimate shown before a run: word task per transition x epoch x seed, DNF per trial.
WORD_SECONDS_PER_UNIT = 35.0 / (20 * 22 * 4)
DNF_SECONDS_PER_TRIAL = 26.0 / 80


def word_task_settings(settings: dict) -> dict:
    """The page's word-task knobs as ``db.train_word_task`` arguments."""
    return dict(transitions=int(settings["transitions"]), epochs=int(settings["epochs"]),
                seeds=int(settings["seeds"]), channel=settings["word_channel"],
                noise=float(settings["word_noise"]),
                words=db.WORD_LISTS[int(settings["word_length"])])


def experiment_summary(kind: str, settings: dict, result) -> str:
    """One line read off a result: which method wins (no hard-coded numbers)."""
    if kind == "word":
        names = list(result.methods)
        w, ws = result.word_mean[-1], result.word_se[-1]
        c, cs = result.char_mean[-1], result.char_se[-1]
        bw, bc = int(np.argmax(w)), int(np.argmax(c))
        finals = ", ".join(f"{m} {w[k]:.3f} / {c[k]:.3f}" for k, m in enumerate(names))
        channel = ("keys beside" if settings["word_channel"] == "neighbour"
                   else "uniform letters")
        return (f"**This run** ({settings['word_length']}-letter words, noise "
                f"{settings['word_noise']:g} ({channel}), T = {settings['transitions']}, "
                f"{settings['epochs']} epochs, "
                f"{settings['seeds']} seeds, {result.seconds:.0f} s): best final word accuracy "
                f"**{names[bw]}** ({w[bw]:.3f} ± {ws[bw]:.3f}), best character accuracy "
                f"**{names[bc]}** ({c[bc]:.3f} ± {cs[bc]:.3f}). Final word / character accuracy: "
                f"{finals}; u alone {result.u_word_accuracy.mean():.3f} / "
                f"{result.u_char_accuracy.mean():.3f}, Bayes decoder "
                f"{result.oracle_word_accuracy.mean():.3f} / "
                f"{result.oracle_char_accuracy.mean():.3f}. "
                + verdict_markdown(db.word_order_claim(result)))
    names = list(result.methods)
    hard = len(result.levels) - 1
    t = result.mean_seconds[hard]
    fastest = int(np.argmin(t))
    steps = result.mean_steps[hard]
    ratios = []
    for a, b in (("0-stage", "1-stage"), ("1-stage", "2-stage"), ("0-stage", "2-stage")):
        if a in names and b in names:
            i, j = names.index(a), names.index(b)
            ratios.append(f"{a} / {b} {t[i] / t[j]:.2f}x (steps {steps[i] / steps[j]:.2f}x)")
    return (f"**This run** ({settings['trials']} trials per level, {result.total_seconds:.0f} s): "
            f"fastest on the hardest level ({result.levels[hard]}) is **{names[fastest]}**; time "
            f"ratios there (above 1: the second method is faster) {', '.join(ratios)}. Times are "
            "wall-clock and vary with the machine's load; step counts do not. "
            + verdict_markdown(db.staged_restarts_claim(result)))


def dnf_table_markdown(result) -> str:
    """Table 1 as Markdown: mean ± s.e. time (ms) and mean steps, methods x levels."""
    head = "| method | " + " | ".join(result.levels) + " |"
    rule = "|---|" + "---|" * len(result.levels)
    rows = [head, rule]
    for k, method in enumerate(result.methods):
        cells = []
        for a in range(len(result.levels)):
            ge = "≥ " if result.solved_fraction[a, k] < 1 else ""
            cells.append(f"{ge}{1e3 * result.mean_seconds[a, k]:.3g} ± "
                         f"{1e3 * result.se_seconds[a, k]:.2g} ms "
                         f"({result.mean_steps[a, k]:,.0f} steps)")
        rows.append(f"| {method} | " + " | ".join(cells) + " |")
    return "\n".join(rows)
