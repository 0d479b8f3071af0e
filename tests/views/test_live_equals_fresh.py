"""Live == fresh, for every registered explorer: after any sequence of valid knob moves, every
panel of the live page draws exactly what a new page opened at the URL the live page wrote
draws (data, axis labels and ranges, titles, legends, colour bars, tables).

The pages are real Panel pages rendered to Bokeh models in-process (what the server keeps in sync
with the browser). The walks are seeded random sequences of moves, and include moves that
invalidate another knob (lowering K below the plotted weight w_k, shrinking a chain below the
tracked state), which the page resolves by clamping. A new explorer gets this test by
registering in ``views.EXPLORERS``.

The first render of every page is also checked for what issue 27 asks of every panel: no legend
inside a plot's data area, and no error from Bokeh's validation of its models.
"""

from __future__ import annotations

import numpy as np
import pytest

from views import EXPLORERS

from ._legends import assert_models_valid_and_legends_outside
from ._pages import differences, random_value, render
from ._url_fuzz import size_knobs

#: Walks per explorer and random moves per walk. The first walk starts with the invalidating
#: moves and is compared with a fresh page after them and at its end; the second walk, from
#: another seed, at its end. A fresh page's render (HoloViews building every plot) is most of the
#: test's time, whatever the sizes, so each page gets 2-3 comparisons (docs/speed.md has what
#: more cost).
WALKS, MOVES = 2, 3



def _fresh(cls, live):
    explorer, messages = cls.from_query({k: [v] for k, v in live.query().items()})
    assert messages == [], f"the URL the page wrote did not reopen cleanly: {messages}"
    assert all(explorer.setting(k) == live.setting(k) for k in live.setting_names())
    return explorer


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_live_page_equals_a_fresh_page_after_random_knob_moves(slug):
    cls = EXPLORERS[slug]
    tried = 0
    for walk in range(WALKS):
        rng = np.random.default_rng([walk, len(slug)])
        # the size knobs start small (what is compared does not depend on a run's length; the
        # default sizes made Ising's and Doeblin's walks 35-39 s each); moves may draw them up
        # to twice their default
        live = cls(**{k: int(v) for k, v in size_knobs(cls).items()})
        models = render(live)
        if walk == 0:  # the first render of the page, reused (issue 27)
            assert_models_valid_and_legends_outside(models)
        # moves that invalidate another knob (declared on the page) first
        moves = list(cls.invalidating) if walk == 0 else []
        while len(moves) < MOVES + (len(cls.invalidating) if walk == 0 else 0):
            # the knobs and the runs' settings (which the URL holds too)
            name = live.setting_names()[rng.integers(len(live.setting_names()))]
            moves.append((name, None))
        done = []
        for name, value in moves:
            if value is None:
                value = random_value(live, name, rng)
            live.set_setting(name, value)
            done.append((name, value))
            assert live.error == "", f"{slug}: {name}={value!r} failed: {live.error}"
            after_invalidating = walk == 0 and len(done) == len(cls.invalidating) > 0
            if len(done) < len(moves) and not after_invalidating:
                continue
            found = differences(models, render(_fresh(cls, live)))
            tried += 1
            assert found == [], (f"{slug}: after the moves {done} the live page differs from "
                                 "a fresh one:\n" + "\n".join(found[:20]))
    assert tried >= WALKS + bool(cls.invalidating)
