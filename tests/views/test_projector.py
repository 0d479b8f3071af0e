"""The row of controls above a present page's plots (``views.framework.projector.control_row``,
issue 49 item 1): it keeps to the width it is given, on a projector's 1024 px and beside a
lesson's column, by leaving the zoom's reset to **More controls**, making the toggle compact
and, last, narrowing the one control; nothing is lost (every control and button is in the row
or under the toggle)."""

from __future__ import annotations

import panel as pn
import pytest

from views.framework.lesson_view import COLUMN_WIDTH
from views.framework.projector import (COMPACT_MORE_WIDTH, GAP, MIN_CONTROL_WIDTH, MORE_WIDTH,
                                       PLAYER_WIDTH, ROW_CONTROL_WIDTH, ROW_WIDTH, _outer,
                                       control_row)


def _parts(n_controls: int = 4):
    player = pn.widgets.Player(start=0, end=10, width=PLAYER_WIDTH)
    reset = pn.widgets.Button(label="Reset zoom", width=120)
    knobs = [pn.widgets.FloatSlider(label=f"knob {i}", start=0, end=1) for i in range(n_controls)]
    return player, reset, knobs


def _row_width(row) -> int:
    """The px the row's items take, as the layout counts them (widths, margins and gaps)."""
    return sum(_outer(item) if not isinstance(item, pn.Column) else item.width + GAP
               for item in row.objects)


def _everything(row, more) -> list:
    found = []
    for box in (row, more):
        found += [o for o in box.select(pn.widgets.Widget)]
    return found


@pytest.mark.parametrize("width, compact, reset_in_row", [
    (ROW_WIDTH, False, True),                   # a projector's row
    (ROW_WIDTH - COLUMN_WIDTH, True, False),    # beside a lesson's column
    (600, True, False),                         # narrower still: the control narrowed
])
def test_the_row_keeps_to_its_width_and_loses_nothing(width, compact, reset_in_row):
    player, reset, knobs = _parts()
    row, more = control_row(pn.Column(*knobs), [player, reset], width=width)
    assert _row_width(row) <= width, f"{_row_width(row)} px in a {width}-px row"
    toggle = row.objects[-1]
    assert isinstance(toggle, pn.widgets.Toggle)
    assert toggle.label == ("More" if compact else "More controls")
    assert toggle.width + 2 * toggle.margin[1] == (COMPACT_MORE_WIDTH if compact else MORE_WIDTH)
    assert any(o is reset for o in row.objects) is reset_in_row
    assert row.objects[0] is player
    shown = _everything(row, more)
    for widget in (player, reset, *knobs):  # each once, in the row or under the toggle
        assert sum(w is widget for w in shown) == 1, widget.name
    controls = [o for o in row.objects if isinstance(o, pn.Column)]
    assert controls and all(MIN_CONTROL_WIDTH <= c.width <= ROW_CONTROL_WIDTH for c in controls)
    toggle.value = True
    assert more.visible is True
    assert toggle.label == ("Less" if compact else "Fewer controls")  # what a click does
    toggle.value = False
    assert more.visible is False and toggle.label == ("More" if compact else "More controls")
    toggle.value = True


def test_a_row_with_room_keeps_its_controls_at_their_width():
    player, reset, knobs = _parts()
    row, _ = control_row(pn.Column(*knobs), [player, reset], width=ROW_WIDTH)
    controls = [o for o in row.objects if isinstance(o, pn.Column)]
    assert [c.width for c in controls] == [ROW_CONTROL_WIDTH] * len(controls)
