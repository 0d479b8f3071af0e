"""A typed knob on the page (``Field``): a text box whose value goes through
``views.framework.knobs.parse`` (``Model.parse_knob``), answering a refused value with an inline
message and restoring the last good value."""

from __future__ import annotations

import panel as pn

from views.framework.knobs import limits
from views.framework.text import plain
from views.framework.page_workarounds import Text, prompt_widget, steady_text

__all__ = ["Field"]


class Field(pn.viewable.Viewer):
    """A typed knob: a text box for ``explorer.<name>``.

    A value is parsed by ``Model.parse_knob`` (never reinterpreted: ``1e9`` is refused in a
    whole-number field, not read as 19). A refused value leaves the knob as it was, puts the
    last good value back in the box and shows why under it, with the allowed range."""

    def __init__(self, explorer, name: str, **params):
        super().__init__()
        self.explorer, self.knob = explorer, name
        p = explorer.param[name]
        # the browser takes no more characters than ``parse`` reads (a client that sends more
        # is refused by ``parse``)
        self.input = prompt_widget(pn.widgets.TextInput(
            label=p.label, value=explorer.knob_text(name), description=p.doc,
            max_length=limits(p)[0], sizing_mode="stretch_width", **params))
        self.message = steady_text(Text(
            "", visible=False, sizing_mode="stretch_width", margin=(0, 10),
            css_classes=["ldx-field-message"], styles={"color": "#b00020", "font-size": "13px"}))
        self.input.param.watch(self._typed, "value")
        explorer.param.watch(self._changed, name)

    def _typed(self, event) -> None:
        current = self.explorer.knob_text(self.knob)
        if event.new == current:
            return
        try:
            value = self.explorer.parse_knob(self.knob, event.new)
        except ValueError as exc:
            # the box first, then the message: the browser gets them in this order, so a
            # message on screen always sits under the restored value
            self.input.value = current
            self.message.object = plain(f"{exc}. Kept {current}.")
            self.message.visible = True
            return
        self.message.visible = False
        setattr(self.explorer, self.knob, value)
        # the explorer may have normalised the value: show what it holds
        self.input.value = self.explorer.knob_text(self.knob)

    def _changed(self, event) -> None:
        self.input.value = self.explorer.knob_text(self.knob)

    def __panel__(self):
        return pn.Column(self.input, self.message, sizing_mode="stretch_width", margin=0)
