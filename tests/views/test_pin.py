"""Two settings side by side (``views.framework.pin``, issue 49 item 4): Pin keeps the knobs
drawn, the figure holds the pinned state beside the live one and names the knobs that differ,
the link (``pin=``) and the exports keep both, and a link's bad ``pin=`` earns a notice, never
an error."""

from __future__ import annotations

import urllib.parse

import holoviews as hv
import numpy as np
import panel as pn
import pytest

from views import EXPLORERS
from views.framework import knobs
from views.framework.page import Page
from views.framework.pin import FADED, PIN_KEY, PREFIX, pin_chars
from views.framework.pin_view import PIN_LABEL, UNPIN_LABEL
from views.framework.present import Presentation
from views.framework.remote import page_state, restore
from views.framework.stamp import parse_state, read_state, script, state_text
from views.framework.text import plain

HERDING = EXPLORERS["herding"]
QUICK = dict(HERDING.quick)


def _through_a_link(model) -> dict:
    """``model.query()`` written as the address bar holds it and read back as the server does."""
    address = urllib.parse.urlencode({"page": model.slug, **model.query()})
    return urllib.parse.parse_qs(address, keep_blank_values=True)


def test_pin_keeps_the_knobs_and_names_those_that_differ():
    model = HERDING(**QUICK, seed=1)
    assert model.pinned is None and PIN_KEY not in model.query()
    pinned = model.pin()
    assert pinned == {name: getattr(model, name) for name in model.knob_names()}
    assert model.pinning.differences() == []
    assert model.pinning.line() == "Pinned: the same settings as now"
    model.seed, model.eta = 2, 0.5
    labels = (HERDING.param["seed"].label, HERDING.param["eta"].label)
    assert model.pinning.differences() == [(labels[0], "1", "2"), (labels[1], "1.0", "0.5")]
    assert model.pinning.line() == f"Pinned: {labels[0]} = 1 (now 2), {labels[1]} = 1.0 (now 0.5)"
    assert model.pinned["seed"] == 1  # a knob move leaves the pinned state as it was
    model.unpin()
    assert model.pinned is None and model.pinning.line() == "" and model.pinning.twin() is None
    assert PIN_KEY not in model.query()


def test_pin_with_changes_and_a_knob_that_is_not_one():
    model = HERDING(**QUICK)
    model.pin(seed=7)
    assert model.pinned["seed"] == 7 and model.seed == HERDING.param["seed"].default
    with pytest.raises(ValueError, match="'colour' is not a knob"):
        model.pin(colour=1)
    with pytest.raises(ValueError, match="seed"):
        model.pin(seed=-3)


def test_a_link_with_pin_reopens_exactly_both_states():
    model = HERDING(**QUICK, seed=1, n_states=5)
    model.pin()
    model.seed, model.w0 = 4, "0.25,-0.5"
    args = _through_a_link(model)
    assert args[PIN_KEY] == [model.pinning.text()]
    reopened, notes = HERDING.from_query(args)
    assert notes == []
    assert reopened.pinned == model.pinned and reopened.knob_values() == model.knob_values()
    assert reopened.query() == model.query()
    assert reopened.pinning.line() == model.pinning.line()
    assert "Model seed = 1 (now 4)" in reopened.pinning.line()
    # the pinned state is the state a link of its knobs alone opens
    alone, _ = HERDING.from_query(urllib.parse.parse_qs(model.pinning.text()))
    assert reopened.pinning.twin().knob_values() == alone.knob_values()
    # the script of the state (the Code view) rebuilds the pin too
    assert f"{PIN_KEY!r}: {model.pinning.text()!r}" in script(model)


def test_pin_holds_knobs_in_the_links_encoding_and_a_missing_knob_is_its_default():
    model = HERDING(**QUICK)
    model.pin(seed=3)
    held = urllib.parse.parse_qs(model.pinning.text())
    assert held == {n: [knobs.text(HERDING.param[n], model.pinned[n])] for n in
                    HERDING.knob_names()}
    reopened, notes = HERDING.from_query({PIN_KEY: ["seed=3"]})
    assert notes == []
    assert reopened.pinned == {**{n: HERDING.param[n].default for n in HERDING.knob_names()},
                               "seed": 3}


@pytest.mark.parametrize("raw, said", [
    ("seed=3&colour=red", "there is no knob 'colour' on this page"),
    ("seed=123456789", "Model seed must be a whole number from 0 to 99,999; got '123456789'"),
    ("eta=nan", "Learning rate eta"),
    ("seed=<b>1</b>", "got '<b>1</b>'"),
    ("seed=1" * 2_000, "the value holds 12,000 characters, more than the"),
])
def test_a_bad_pin_gives_a_notice_not_an_error(raw, said):
    reopened, notes = HERDING.from_query({"seed": ["2"], PIN_KEY: [raw]})
    assert reopened.seed == 2  # the page's own knobs are read as ever
    assert any(n.startswith(PREFIX) and said in n for n in notes), notes
    assert said in reopened.notice  # the page's notice (shown through ``plain``)
    if not raw.startswith("seed=3&"):  # no knob value read: nothing is pinned, and said so
        assert reopened.pinned is None and reopened.pinning.line() == ""
        assert "characters" in said or any("nothing is pinned" in n for n in notes), notes
    else:  # a refused part is left out, as in a link; the knob read is pinned
        assert reopened.pinned["seed"] == 3
        assert reopened.pinning.text() is not None


def test_a_pin_with_one_value_refused_keeps_the_others_and_that_knobs_default():
    reopened, notes = HERDING.from_query({"seed": ["2"], PIN_KEY: ["seed=3&eta=nan"]})
    assert reopened.pinned["seed"] == 3
    assert reopened.pinned["eta"] == HERDING.param["eta"].default
    assert any("Learning rate eta" in n for n in notes) and not any(
        "nothing is pinned" in n for n in notes)


def test_pin_given_too_often_pins_nothing_and_the_cap_holds_every_knob_at_its_longest():
    reopened, notes = HERDING.from_query({PIN_KEY: ["seed=1"] * (knobs.REPEATS + 1)})
    assert reopened.pinned is None and notes[0].startswith(PREFIX)
    for cls in EXPLORERS.values():
        longest = urllib.parse.urlencode(
            {n: "%" * knobs.limits(cls.param[n])[0] for n in cls.knob_names()})
        assert len(longest) <= pin_chars(cls) <= knobs.QUERY_CHARS // 4, cls.slug


def test_an_export_with_a_pin_holds_both_titled(tmp_path):
    model = HERDING(**QUICK, seed=1)
    model.pin()
    model.seed = 2
    layout = model.figure()
    elements = list(layout)
    assert len(elements) == 2 * len(model.plots)
    titles = [hv.Store.lookup_options("matplotlib", e, "plot").kwargs.get("title")
              for e in elements]
    assert titles[1::2] == [model.pinning.title(p) for p in model.plots]
    assert titles[5] == "Pinned: Moment error"  # "(Prop 1.2)" is on the live panel beside it
    # the pinned copies draw the pinned state's data: a fresh model's at its knobs
    moment = [p.method for p in model.plots].index("moment_plot")
    fresh = list(HERDING(**model.pinned).figure())[moment]
    overlaid, pinned_copy = elements[2 * moment], elements[2 * moment + 1]
    assert len(pinned_copy) == len(fresh) and len(overlaid) == 2 * len(fresh)
    assert [np.array_equal(a.dimension_values(1), b.dimension_values(1))
            for a, b in zip(pinned_copy, fresh)] == [True] * len(fresh)
    # the live panel holds the pinned curves faded under its own (``pin.Pinning.overlay``)
    under, now = list(overlaid)[:len(fresh)], list(overlaid)[len(fresh):]
    assert all(np.array_equal(a.dimension_values(1), b.dimension_values(1))
               for a, b in zip(under, fresh))
    assert not all(np.array_equal(a.dimension_values(1), b.dimension_values(1))
                   for a, b in zip(pinned_copy, now))
    path = model.export(tmp_path / "pinned.png")
    query, _ = read_state(path)
    rebuilt, notes = HERDING.from_query(query)
    assert notes == [] and rebuilt.pinned == model.pinned and rebuilt.seed == 2
    assert parse_state(state_text(model))[0][PIN_KEY] == [model.pinning.text()]


def test_a_worker_rebuilds_the_pin_for_an_export():
    model = HERDING(**QUICK)
    model.pin(seed=5)
    cls, values, state = page_state(model)
    rebuilt = cls(**values)
    restore(rebuilt, state)
    assert rebuilt.pinned == model.pinned


def test_the_pages_pin_button_draws_the_pinned_copies_beside_the_live_panels():
    model = HERDING(**QUICK, seed=1)
    page = Page(model)
    body = page.panel()
    view = page.pin_view
    places = [view.beside(p.method)[0] for p in model.plots]
    assert view.button.label == PIN_LABEL and view.unpin.label == UNPIN_LABEL
    assert not any(p.visible for p in places) and view.row.visible is False
    # nothing above the plots while nothing is pinned; each place follows its live panel
    (box,) = [b for b in body.select(pn.FlexBox) if any(o is places[0] for o in b.objects)]
    assert [type(o).__name__ for o in box.objects] == ["HoloViews", "Column"] * len(places)
    assert all(box.objects[2 * i + 1] is place for i, place in enumerate(places))
    view.button.clicks += 1
    assert model.pinned is not None and view.row.visible is True
    assert all(p.visible for p in places)
    model.seed = 2
    assert view.line.object == f"**Pinned:** {plain(model.pinning.words())}"  # plain text
    assert model.pinning.line() == "Pinned: Model seed = 1 (now 2)"
    pane = places[0].objects[0]
    assert model.pinning.title(model.plots[0]) in str(
        hv.Store.lookup_options("bokeh", pane.object, "plot").kwargs.get("title"))
    view.button.clicks += 1  # Pin again: the state drawn now
    assert model.pinned["seed"] == 2 and model.pinning.line() == (
        "Pinned: the same settings as now")
    view.unpin.clicks += 1
    assert model.pinned is None and not any(p.visible for p in places)
    assert view.row.visible is False


def test_a_present_view_shows_pins_row_only_while_pinned():
    model = HERDING(**QUICK)
    page = Page(model, Presentation(True, ("seed",)))
    page.panel()
    assert page.pin_view.row.visible is False
    model.pin(seed=3)
    assert page.pin_view.row.visible is True
    assert page.pin_view.line.object.startswith("**Pinned:** ")


class _Unlucky(HERDING):
    """Herding that cannot compute seed 13 (an engine refusing a state, in words)."""

    def _compute(self):
        if self.seed == 13:
            raise ValueError("seed 13 <b>refused</b>")
        return super()._compute()


def test_a_pinned_state_that_cannot_be_computed_is_said_and_the_live_page_goes_on():
    model = _Unlucky(**QUICK)
    page = Page(model)
    page.panel()
    model.pin(seed=13)
    view = page.pin_view
    assert view.line.object == plain("The pinned settings could not be drawn: seed 13 "
                                     "<b>refused</b>")
    assert not any(view.beside(p.method)[0].visible for p in model.plots)
    assert model.error == "" and model.result() is not None  # the live state is untouched
    model.pin(seed=12)
    assert all(view.beside(p.method)[0].visible for p in model.plots)
    assert view.line.object == f"**Pinned:** {plain(model.pinning.words())}"


def test_overlay_draws_the_pinned_curves_faded_under_the_live_ones_where_a_panel_allows():
    model = HERDING(**QUICK, seed=1)
    by_name = {p.method: p for p in model.plots}
    moment, cones = by_name["moment_plot"], by_name["cones_plot"]
    live = model.drawing.panel_element(moment)
    assert model.pinning.overlay(moment, live) is live  # nothing pinned
    model.pin(seed=2)
    pinned = HERDING(**QUICK, seed=2).drawing.panel_element(moment)
    both = model.pinning.overlay(moment, model.drawing.panel_element(moment))
    assert len(both) == len(pinned) + len(live)
    for under, expected in zip(list(both)[:len(pinned)], pinned):
        assert np.array_equal(under.dimension_values(1), expected.dimension_values(1))
        assert hv.Store.lookup_options("bokeh", under, "style").kwargs["alpha"] == FADED
    for over, expected in zip(list(both)[len(pinned):], live):  # the live curves on top
        assert np.array_equal(over.dimension_values(1), expected.dimension_values(1))
    # an image (the cones' regions) is not drawn twice: the pinned copy beside it shows it
    element = model.drawing.panel_element(cones)
    assert model.pinning.overlay(cones, element) is element


def _drawn_renderers(bokeh_model) -> int:
    from bokeh.models import GlyphRenderer
    return sum(1 for r in bokeh_model.select({"type": GlyphRenderer}) if r.visible)


def test_the_live_page_overlays_the_pinned_curves_and_keeps_live_equal_to_fresh():
    """Pin draws the pinned curves faded under the live ones on the live page, where a panel
    allows (issue 49 item 4: "overlaid where a panel allows"); a knob move keeps them; the
    live page equals a fresh one at the same knobs and pin; Unpin takes them away."""
    from tests.views._pages import differences, render

    model = HERDING(**QUICK, seed=1)
    page = Page(model)
    drawn = render(page)
    by_name = [p.method for p in model.plots]
    moment, cones = by_name.index("moment_plot"), by_name.index("cones_plot")
    alone = [_drawn_renderers(m) for m in drawn]
    model.pin(seed=2)
    pinned = [_drawn_renderers(m) for m in drawn]
    assert pinned[moment] > alone[moment]  # the pinned curves, under the live ones
    assert pinned[cones] == alone[cones]  # the cones' regions: only their copy beside

    def fresh():
        again = HERDING(**{k: getattr(model, k) for k in model.knob_names()})
        if model.pinned is not None:
            again.pinned = dict(model.pinned)
        return render(again)

    assert differences(drawn, fresh()) == []
    model.seed = 3  # a move: the pinned curves stay under the new live ones
    assert [_drawn_renderers(m) for m in drawn][moment] == pinned[moment]
    assert differences(drawn, fresh()) == []
    model.unpin()
    assert [_drawn_renderers(m) for m in drawn] == alone
    assert differences(drawn, fresh()) == []


def test_a_pinned_state_still_computing_is_not_overlaid():
    model = HERDING(**QUICK, seed=1)
    moment = next(p for p in model.plots if p.method == "moment_plot")
    model.pin(seed=2)
    model.pinning.pending = model.pinning.text()  # a served page computing it off the loop
    alone = model.drawing.panel_element(moment)
    assert not any(layer.group == "Pinned" for layer in alone)
    model.pinning.pending = None
    both = model.drawing.panel_element(moment)
    assert len(both) == 2 * len(alone)
    assert model.drawing.panel_element(moment, pinned=False).group != "Pinned"


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_every_page_pinned_and_unpinned_draws_as_a_fresh_page(slug):
    """On every page, pinning a state one knob step away and unpinning it leave the live page
    equal to a fresh page at the same knobs and pin (the overlaid panels drawn anew)."""
    from tests.views._pages import differences, render
    from tests.views._url_fuzz import size_knobs
    from tests.views.test_columns import _step

    cls = EXPLORERS[slug]
    model = cls(**{k: int(v) for k, v in size_knobs(cls).items()})
    page = Page(model)
    drawn = render(page)
    names = [n for n in model.knob_names() if _step(model, n) is not None]
    name = "seed" if "seed" in names else names[0]

    def fresh():
        again = cls(**{k: getattr(model, k) for k in model.knob_names()})
        again.pinned = None if model.pinned is None else dict(model.pinned)
        return render(again)

    model.pin(**{name: _step(model, name)})
    assert model.pinning.differences(), slug
    assert differences(drawn, fresh()) == [], f"{slug}: pinned {model.pinning.line()}"
    model.unpin()
    assert differences(drawn, fresh()) == [], f"{slug}: unpinned"


def test_each_pin_draws_each_overlaid_panel_anew_once(monkeypatch):
    """A panel drawn anew leaves its old stream behind until collected: a later pin must not
    draw the panel again for it."""
    from tests.views._pages import render

    model = HERDING(**QUICK, seed=1)
    page = Page(model)
    render(page)
    drawn = []
    original = page._live_panel
    monkeypatch.setattr(page, "_live_panel", lambda plot, pane=None: (
        drawn.append(plot.method), original(plot, pane))[1])
    overlaid = {"moment_plot", "autocorrelation_plot", "words_plot"}
    for change in (lambda: model.pin(seed=2), model.unpin, lambda: model.pin(seed=3)):
        drawn.clear()
        change()
        assert sorted(drawn) == sorted(overlaid), drawn
