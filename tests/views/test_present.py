"""A teacher's link (``views.framework.present``): ``present`` and ``show`` read from a query
without raising, written back, kept apart from the knobs; ``show`` keeps only the named
controls on the page."""

from __future__ import annotations

import panel as pn

from views.framework.page import Page
from views.framework.present import PRESENT_KEYS, Presentation
from views.pages.herding import HerdingExplorer


def test_a_teachers_link_is_read_and_written_back():
    args = {"present": [b"1"], "show": [b"seed,n_states,seed"], "seed": [b"3"]}
    presentation, messages = Presentation.from_query(HerdingExplorer, args)
    assert messages == []
    assert presentation == Presentation(True, ("seed", "n_states"))
    assert presentation.query() == {"present": "1", "show": "seed,n_states"}
    assert Presentation.without(args) == {"seed": [b"3"]}
    assert Presentation.from_query(HerdingExplorer, {k: [v.encode()] for k, v in
                                                     presentation.query().items()})[0] \
        == presentation
    assert Presentation().query() == {} and set(PRESENT_KEYS) == {"present", "show"}


def test_what_a_teachers_link_cannot_use_is_said_as_text():
    presentation, messages = Presentation.from_query(
        HerdingExplorer, {"present": ["<b>yes</b>"], "show": ["seed,<script>x</script>"]})
    assert presentation == Presentation(False, ("seed",))
    assert messages[0].startswith("present must be 1 or 0; got '<b>yes</b>'")
    assert "'<script>x</script>'" in messages[1]
    # an empty show keeps no control; present=0 is the plain page
    assert Presentation.from_query(HerdingExplorer, {"show": [""], "present": ["0"]}) == (
        Presentation(False, ()), [])


def _widget_names(viewable) -> set[str]:
    return {w.name for w in viewable.select(pn.widgets.Widget)}


def test_show_keeps_only_the_named_controls():
    explorer = HerdingExplorer()
    everything = _widget_names(Page(explorer).controls())
    kept = _widget_names(Page(explorer, Presentation(show=("seed", "n_states"))).controls())
    labels = {HerdingExplorer.param[n].label for n in ("seed", "n_states")}
    assert labels <= everything and len(everything) > 2
    assert {n for n in kept if n in everything} == labels
