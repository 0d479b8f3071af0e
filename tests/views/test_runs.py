"""Runs as objects (``views.framework.runs.Run``): a run's settings are its own parameters,
written ``<run>.<setting>`` in a link (older prefixed names still open), its behaviour its
methods, its panels ``Plot``s of its own functions."""

from __future__ import annotations

import pytest

from views import EXPLORERS
from views.framework import jobs
from views.framework.runs import Run, run_key

RUNS = [(slug, run) for slug, cls in EXPLORERS.items() for run in cls.runs]


@pytest.mark.parametrize("slug, run", RUNS, ids=[f"{s}.{r.key}" for s, r in RUNS])
def test_a_run_declares_its_settings_and_behaviour_once(slug, run):
    cls = EXPLORERS[slug]
    assert issubclass(run, Run) and run.key and run.title and run.button
    assert not hasattr(run, "legacy_settings")  # declared as an object, not by strings
    own = set(run.knob_names())
    # a setting is the run's own or a page knob it uses, never both (one name, one value)
    assert not own & set(run.uses), own & set(run.uses)
    assert set(run.uses) <= set(cls.knob_names()), set(run.uses) - set(cls.knob_names())
    assert set(run.display) <= set(cls.knob_names())
    # an older link's name opens a setting of this run, and no page knob has that name
    assert set(run.aliases.values()) <= own
    assert not set(run.aliases) & set(cls.knob_names())
    # quick sizes name settings the run has
    assert set(run.quick) <= own | set(cls.knob_names())
    # panels are the run's own functions (no behaviour named by a string)
    for plot in run.plots:
        assert plot.function is not None and getattr(run, plot.method) is plot.function
    assert run.compute is not Run.compute


def test_a_runs_settings_round_trip_through_the_link_and_its_old_names_open():
    cls = EXPLORERS["sbeed"]
    page = cls(**{"ablation.steps": 400, "p_seeds": 1})
    assert page.jobs["ablation"].run.steps == 400 and page.jobs["pendulum"].run.seeds == 1
    query = page.query()
    assert query["ablation.steps"] == "400" and "a_steps" not in query
    reopened, notes = cls.from_query({k: [v] for k, v in query.items()})
    assert notes == [] and reopened.query() == query
    old, notes = cls.from_query({"a_steps": ["600"], "sw_seeds": ["2"]})
    assert notes == [] and old.jobs["ablation"].run.steps == 600
    assert old.jobs["swimmer"].run.seeds == 2
    # a value a run's setting refuses is reported by its label, like a knob's
    bad, notes = cls.from_query({"ablation.steps": ["1e9"], "ablation.nothing": ["1"]})
    assert bad.jobs["ablation"].run.steps == 10_000
    assert any("Steps per run must be" in n for n in notes), notes
    assert any("ablation.nothing" in n for n in notes), notes


def test_the_cache_key_and_the_settings_follow_the_runs_own_settings_and_the_knobs_it_uses():
    page = EXPLORERS["sbeed"]()
    job = page.jobs["bias"]
    before = jobs._cache_key(page, job.run, job.current_settings())
    job.run.states = 10
    moved = jobs._cache_key(page, job.run, job.current_settings())
    page.gamma = 0.8  # a knob the run uses
    used = jobs._cache_key(page, job.run, job.current_settings())
    page.n_states = 50  # a knob it does not use
    assert len({before, moved, used}) == 3
    assert jobs._cache_key(page, job.run, job.current_settings()) == used
    assert job.current_settings() == dict(states=10, actions=4, seed=0, gamma=0.8, lam=0.1)


def test_a_runs_float_setting_snaps_to_its_step_as_a_knob_does():
    run = EXPLORERS["sbeed"]().jobs["pendulum"].run
    run.eta = 0.1 + 0.2  # 0.30000000000000004
    assert run.eta == 0.3 and run.knob_text("eta") == "0.3"
    assert run_key("pendulum", "eta") in EXPLORERS["sbeed"].setting_names()
