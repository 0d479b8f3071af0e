"""One verdict per paper claim (issue 28 item 1): every claim the gallery judges is one function
in ``dynamics`` (``*_claim``), and its page and the gallery both call it. For each gallery entry
the gallery's caller (the entry's ``judge``, which ``views.figures.build`` reports) and the
page's caller (its status line, or the summary under the entry's run) are given the same page
and results, and the page shows the very verdict the gallery reports.

Small sizes: the runs' ``quick`` settings; two runs that still take many seconds there compute
a smaller engine call instead (the verdict, not the run, is under test)."""

from __future__ import annotations

import numba
import pytest

from dynamics import doeblin as db
from dynamics.claims import Verdict
from dynamics import sbeed
from dynamics.sbeed import pendulum as pend
from views import EXPLORERS
from views.figures import ENTRIES
from views.framework import jobs as _jobs
from views.framework.text import verdict_markdown
from views.pages.sbeed.ablation import AblationRuns

#: (page, run) -> a stand-in for the page's compute method: the engine below the knobs' bounds.
SMALLER = {
    ("sbeed", "ablation"): lambda settings, progress=None: AblationRuns(
        pend.ablation(steps=200, seeds=1, panels=("lam",)),
        sbeed.tabular_eta(etas=(0.0, 0.1, 1.0), seeds=1, iterations=100)),
    ("doeblin", "dnf"): lambda settings, progress=None: db.dnf_experiment(
        ("easy", "medium"), trials=3, max_steps=20_000, seed=0),
}


@pytest.fixture()
def own_results():
    """Runs cached by this test stay in it (a stand-in result must not reach another test)."""
    saved = dict(_jobs._CACHE)
    _jobs._CACHE.clear()
    threads = numba.get_num_threads()
    numba.set_num_threads(1)  # many small computations: a thread pool costs more than it saves
    yield
    numba.set_num_threads(threads)
    _jobs._CACHE.clear()
    _jobs._CACHE.update(saved)


def _page_text(explorer, entry) -> str:
    """What the page shows about the entry's results: its runs' summaries, else its status."""
    if not entry.runs:
        return explorer.status()
    texts = []
    for name in entry.runs:
        job = explorer.jobs[name]
        texts.append(job.run.summary(job.settings, job.result))
    return " ".join(texts)


@pytest.mark.parametrize("entry_id", list(ENTRIES))
def test_the_page_and_the_gallery_give_one_verdict(entry_id, own_results, monkeypatch):
    entry = ENTRIES[entry_id]
    cls = EXPLORERS[entry.slug]
    knobs = dict(cls.quick)
    runs = [r for r in cls.runs if r.key in entry.runs]
    for run in runs:
        knobs.update(run.quick_knobs())
    explorer = cls(**knobs)
    for run in runs:
        job = explorer.jobs[run.key]
        if (entry.slug, run.key) in SMALLER:
            monkeypatch.setattr(job.run, "compute", SMALLER[entry.slug, run.key])
        job.compute()
    verdict = entry.judge(explorer)  # the gallery's caller
    assert isinstance(verdict, Verdict)
    assert verdict.claim and verdict.statement and verdict.measured and verdict.why
    assert verdict.outcome.startswith({True: "reproduced", False: "differs: ",
                                       None: "not decided: "}[verdict.agrees])
    page = _page_text(explorer, entry)  # the page's caller
    assert verdict_markdown(verdict) in page, page


def test_a_verdicts_powers_are_typeset_on_the_page():
    """The engines write powers as plain text ("T^-1.00"), which the gallery prints; the page
    typesets them as it does the rest of its math (a raw ``T^-0.64`` sat in the herding page's
    typeset status line)."""
    from views.framework.text import math_markdown

    verdict = Verdict(claim="Prop 1.2", statement="", agrees=True, measured="",
                      why="error falls as T^-1.00, not T^-1/2 at 2^-k")
    text = verdict_markdown(verdict)
    assert "$T^{-1.00}$" in text and "$T^{-1/2}$" in text and "$2^{-k}$" in text
    assert "^-" not in math_markdown(text)


def test_a_verdict_s_rule_and_power_are_one_click_away():
    """The page line says the outcome, the claim and why; the rule and its power, which can
    run to several lines, are folded under "rule and power" (a ``<details>`` element)."""
    verdict = Verdict(claim="Fig 1", statement="", agrees=None, measured="", why="too short",
                      rule="slope < -0.9 by Z SE", power="1.96 SE = 0.05 at T^-1")
    text = verdict_markdown(verdict)
    head, folded = text.split("<details", 1)
    assert head == "**Not decided** (Fig 1): too short. "
    assert "<summary>rule and power</summary>" in folded
    assert "rule: slope < -0.9 by Z SE; power: 1.96 SE = 0.05 at $T^{-1}$" in folded
    assert "<details" not in verdict_markdown(Verdict("c", "s", True, "m", "held"))
