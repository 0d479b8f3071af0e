"""Present mode (``present=1``, ``views.framework.present``) laid out for a projector's screen
(1024 x 768): the first plot on the first screen, with one row of controls above it.

- the header: a light bar, one line high, with the page's title and its buttons (Copy link,
  Reset, Code, Step: ``header_buttons``, ``PRESENT_CSS``);
- ``control_row``: the timeline's player (``split_timeline``), any other button of the plots
  (the zoom's reset, where it leaves room for a control) and as many of the page's first
  controls (of the page's order, or of the link's ``show``) as fit beside them on a 1024-px
  screen (less a lesson's column), in one row; **More controls** opens the others, the
  buttons left out, the player's loop options and the rest of the timeline's control under it;
- ``one_line_status``: the status line cut to one line, the page text folded under it; one
  click on the line opens both.
"""

from __future__ import annotations

import panel as pn

from views.framework.page_workarounds import Text

__all__ = ["ROW_WIDTH", "ROW_CONTROL_WIDTH", "PLAYER_WIDTH", "MORE_WIDTH", "COMPACT_MORE_WIDTH",
           "MIN_CONTROL_WIDTH", "PRESENT_CSS", "HEADER",
           "ONE_LINE_CSS", "header_buttons", "control_row", "split_timeline",
           "one_line_status"]

#: The width the row above the plots fills on a 1024-px screen (px, the main area's 994 px
#: less a margin), and the width of a control in it and under **More controls**.
ROW_WIDTH = 940
ROW_CONTROL_WIDTH, MORE_CONTROL_WIDTH = 210, 300
#: The player's width in that row (px): its nine buttons and the scrubber above them.
PLAYER_WIDTH = 330
#: The margin of a widget in that row (px) and the gap between two.
MARGIN, GAP = (5, 3), 4
#: The **More controls** toggle's width (px), and its compact width ("More"), taken where the
#: player, one control and the full toggle do not fit in the row (a lesson's step).
MORE_WIDTH, COMPACT_MORE_WIDTH = 150, 76
#: The toggle's label, by (compact, open): it says what a click does.
MORE_LABELS = {(False, False): "More controls", (False, True): "Fewer controls",
               (True, False): "More", (True, True): "Less"}
#: The narrowest a control in the row may be made so that the row keeps to one line (px).
MIN_CONTROL_WIDTH = 150
#: The header of present mode: a light bar one line high (the template's blue one is 64 px),
#: which holds the page's buttons (the row below keeps its width for the controls).
HEADER = dict(header_background="#eef2f6", header_color="#1f2d3d")
PRESENT_CSS = """
#header { padding-top: 0; padding-bottom: 0; box-shadow: none !important;
          border-bottom: 1px solid #d0d7de; }
#header .title { font-size: 1.15em; line-height: 1.9em; }
#main { padding-top: 4px; }
"""
#: A slider's title in the row: on two lines where one is too narrow.
WRAPPING_TITLE = ".bk-slider-title { white-space: normal; }"
#: A text cut to its first line (``one_line_status``): its first paragraph, with an ellipsis.
ONE_LINE_CSS = """
p { text-align: left; }
:host(.ldx-one-line) p { display: block !important; white-space: nowrap; overflow: hidden;
                         text-overflow: ellipsis; margin: 0; }
:host(.ldx-one-line) { max-height: 1.6em; overflow: hidden; }
:host(.ldx-one-line) p ~ * { display: none; }
:host(.ldx-one-line) details.ldx-rule { display: none; }
"""


def _is_heading(item) -> bool:
    """A group's heading among ``Page.controls()``'s items (a Markdown text); every other item
    is a control."""
    return isinstance(item, Text)


def _outer(widget) -> int:
    """The width ``widget`` takes in a row (px): its own and its margins."""
    margin = widget.margin if isinstance(widget.margin, (tuple, list)) else (widget.margin,) * 2
    sides = margin[1] + margin[3] if len(margin) == 4 else 2 * margin[-1]
    return (widget.width or 0) + sides + GAP


def header_buttons(buttons: list) -> pn.FlexBox:
    """The page's buttons in the header bar, at its right end."""
    for button in buttons:
        button.margin = MARGIN
    return pn.FlexBox(*buttons, gap=f"{GAP}px", justify_content="flex-end", flex_wrap="nowrap",
                      align_items="center", sizing_mode="stretch_width",
                      css_classes=["ldx-header-buttons"])


def control_row(controls: pn.Column, lead: list = (), folded: list = (), *,
                width: int = ROW_WIDTH) -> tuple[pn.FlexBox, pn.viewable.Viewable]:
    """The one row above a present page's plots, at most ``width`` px wide (a lesson's column
    takes some of ``ROW_WIDTH``): ``lead``'s player, its other buttons (the zoom's reset) where
    they leave room for a control, then the first controls of ``controls``
    (``Page.controls()``) that fit (at least one, narrowed down to ``MIN_CONTROL_WIDTH`` where
    the row is short), and, when there is more, a **More controls** toggle (compact, "More",
    where the full one does not fit) that opens the other controls (under their group
    headings) and the buttons left out in a box below the row, and shows ``folded`` (hidden
    parts of the page: the rest of the timeline's control) and the player's loop options.
    Returns the row and that box (an empty spacer when nothing is left)."""
    for widget in lead:
        widget.margin = MARGIN
    players = [w for w in lead if isinstance(w, pn.widgets.Player)]
    buttons = [w for w in lead if not any(w is p for p in players)]
    items = list(controls.objects)
    knobs = [o for o in items if not _is_heading(o)]
    slot = ROW_CONTROL_WIDTH + GAP
    room = width - sum(_outer(w) for w in players)
    compact = room < slot + MORE_WIDTH + GAP
    room -= (COMPACT_MORE_WIDTH if compact else MORE_WIDTH) + GAP
    kept, left_out = [], []
    for button in buttons:  # beside the player while a control still fits after it
        if room - _outer(button) >= slot:
            kept.append(button)
            room -= _outer(button)
        else:
            left_out.append(button)
    first = knobs[:max(1, room // slot)]
    control_width = ROW_CONTROL_WIDTH if room >= slot else max(MIN_CONTROL_WIDTH, room - GAP)
    rest, heading = [pn.Row(*left_out, margin=0)] if left_out else [], None
    for item in items:
        if _is_heading(item):
            heading = item
        elif not any(item is k for k in first):
            if heading is not None:  # a group's heading goes with its first control left
                rest.append(pn.Column(heading, styles={"flex": "1 1 100%"}, margin=0,
                                      sizing_mode="stretch_width"))
                heading = None
            rest.append(pn.Column(item, width=MORE_CONTROL_WIDTH, margin=0))
    for knob in first:  # a long slider title wraps (its value stays in sight), not overruns
        if isinstance(knob, pn.widgets.Widget):
            knob.stylesheets = [*knob.stylesheets, WRAPPING_TITLE]
    row = [*players, *kept, *(pn.Column(k, width=control_width, margin=0) for k in first)]
    more = pn.Spacer(height=0, margin=0)
    if rest or folded or players:
        more = pn.FlexBox(*rest, gap="4px 16px", align_items="end", visible=False,
                          sizing_mode="stretch_width", css_classes=["ldx-more-controls"])
        toggle = pn.widgets.Toggle(
            label=MORE_LABELS[compact, False], color="primary",
            variant="outline", margin=MARGIN, css_classes=["ldx-more-toggle"],
            width=(COMPACT_MORE_WIDTH if compact else MORE_WIDTH) - 2 * MARGIN[1])

        def opened(event):
            toggle.label = MORE_LABELS[compact, event.new]
            more.visible = event.new and bool(rest)
            for part in folded:
                part.visible = event.new
            for player in players:
                player.param.update(show_loop_controls=event.new,
                                    height=PLAYER_HEIGHT[event.new])

        toggle.param.watch(opened, "value")
        row.append(toggle)
    bar = pn.FlexBox(*row, gap=f"{GAP}px", align_items="end", sizing_mode="stretch_width",
                     css_classes=["ldx-control-row"])
    return bar, more


#: The player's height in the row (px): its scrubber and buttons; with its loop options.
PLAYER_HEIGHT = {False: 62, True: 90}


def split_timeline(control: pn.viewable.Viewable):
    """The player of the timeline's ``control`` (``views.framework.player.timeline_control``),
    taken out of it to stand in the row above the plots (``control_row``), without its loop
    options; and the rest of the control (step size, notes, what time means), hidden.
    Returns ``(player, rest)``; ``(None, control)`` for a control without a player."""
    players = control.select(pn.widgets.Player)
    if not players:
        return None, control
    player = players[0]
    for layout in control.select(pn.layout.ListLike):
        if any(o is player for o in layout.objects):
            layout.objects = [o for o in layout.objects if o is not player]
    player.param.update(show_loop_controls=False, height=PLAYER_HEIGHT[False],
                        width=PLAYER_WIDTH, sizing_mode="fixed", min_width=None,
                        max_width=None, styles={})
    control.visible = False  # still in the page: its hidden widgets carry the player's time
    return player, control


def one_line_status(status: Text, *texts) -> pn.Card:
    """``status`` (the page's status line) cut to one line, as the head of a closed card that
    holds ``texts`` (the page text): a click on the line opens the card, and the line shows
    whole while it is open."""
    status.param.update(css_classes=[*status.css_classes, "ldx-one-line"],
                        stylesheets=[*status.stylesheets, ONE_LINE_CSS])
    card = pn.Card(*texts, header=status, collapsible=True, collapsed=True,
                   sizing_mode="stretch_width", margin=(2, 10), css_classes=["ldx-status-card"])

    def opened(event):
        classes = [c for c in status.css_classes if c != "ldx-one-line"]
        status.css_classes = classes if not event.new else [*classes, "ldx-one-line"]

    card.param.watch(opened, "collapsed")
    return card
