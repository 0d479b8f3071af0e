"""The rbm page's classification run (Fig 1.14) as a run object: its settings, older links'
names for them, and what it computes, summarises and draws."""

from __future__ import annotations

import numpy as np

from views import EXPLORERS


def test_older_links_open_the_runs_settings_and_the_url_writes_their_new_names():
    """class_hidden, class_steps, class_splits and class_seed were page knobs: a link with
    them still sets the run's settings, and the page's link writes classify.<setting>; the
    page's own hidden, steps and seed stay apart from the run's."""
    cls = EXPLORERS["rbm"]
    old = {"class_hidden": "8", "class_steps": "40", "class_splits": "2", "class_seed": "5"}
    explorer, messages = cls.from_query({k: [v] for k, v in old.items()})
    assert messages == []
    run = explorer.jobs["classify"].run
    assert (run.hidden, run.steps, run.splits, run.seed) == (8, 40, 2, 5)
    defaults = cls()
    assert (explorer.hidden, explorer.steps, explorer.seed) == (
        defaults.hidden, defaults.steps, defaults.seed)
    query = explorer.query()
    assert not set(old) & set(query)
    assert {k: query[f"classify.{k}"] for k in ("hidden", "steps", "splits", "seed")} == dict(
        hidden="8", steps="40", splits="2", seed="5")
    assert run.settings() == dict(hidden=8, steps=40, splits=2, seed=5)
    assert not {"class_hidden", "class_steps", "class_splits", "class_seed"} & set(
        explorer.knob_names())


def test_the_hidden_counts_are_a_quarter_a_half_and_all_of_h():
    run = EXPLORERS["rbm"]().jobs["classify"].run
    assert run.hidden_counts(100) == (25, 50, 100)
    assert run.hidden_counts(4) == (1, 2, 4)
    assert run.hidden_counts(2) == (1, 2)


def test_the_classification_run_computes_summarises_and_draws():
    explorer = EXPLORERS["rbm"](**{f"classify.{k}": v
                                   for k, v in EXPLORERS["rbm"].runs[0].quick.items()})
    job = explorer.jobs["classify"]
    result = job.compute()
    run = job.run
    assert result.splits == 1 and result.steps == 20
    assert tuple(result.hidden["H"]) == run.hidden_counts(4)
    text = run.summary(job.settings, result)
    assert text.startswith(f"**1 split(s), {result.n_test} test digits, 20 iterations")
    assert "| splits | 4 | 1 |" in run.extra(job.settings, result)
    element = run.classify_plot(result)
    means = np.concatenate([layer.dimension_values(1) for layer in element
                            if type(layer).__name__ == "Scatter"])
    assert np.all((0 <= means) & (means <= 100))
