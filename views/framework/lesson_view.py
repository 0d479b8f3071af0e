"""Lessons in the served app (``app/main.py``): ``?lesson=<name>&step=<k>`` opens step k of ``lessons/<name>.md``
(``views.lesson``).

The step's link is the page's state; keys the address holds besides ``lesson`` and ``step``
override it, so that the address the page writes as the class moves a knob (the lesson, the
step and the whole state) reopens exactly what was shown. The step's caption is shown beside the
plots with the previous and next steps as buttons and keys (Page Down and Page Up, which a
presenter's remote sends, or n and p). A step that cannot open as written says which step and
why; the rest of the lesson opens. ``step_view`` writes the current state as a step to paste
into a lesson (**Add this view as a step**), and ``present_view`` makes its present-mode link
with the controls the teacher picks by their labels (**Present**).
"""

from __future__ import annotations

import html
import urllib.parse
from dataclasses import dataclass, field

import panel as pn

from views import EXPLORERS
from views.framework.knobs import NUMBER_CHARS
from views.framework.page_workarounds import FIND_JS, Alert, Text, steady_text
from views.framework.text import math_markdown, plain, quote
from views.lesson import NAME, Lesson, check_step, lessons, read, step_args, step_markdown

__all__ = ["OpenedLesson", "LESSON_KEYS", "open_lesson", "lesson_panel", "lesson_list",
           "step_view", "present_view", "CAPTION_OPTIONS"]

#: The address's keys of a lesson: its name and the step's number (from 1).
LESSON_KEYS = ("lesson", "step")
#: A caption is Markdown with LaTeX, whose raw HTML is shown as text and whose bare words that
#: look like addresses stay words.
CAPTION_OPTIONS = {"linkify": False, "html": False}
#: The width of the lesson's column beside the plots in a teacher's view (px).
COLUMN_WIDTH = 300


def _text(raws) -> str:
    raws = list(raws) if isinstance(raws, (list, tuple)) else [raws]
    raw = raws[-1] if raws else b""
    return raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)


@dataclass
class OpenedLesson:
    """What a lesson's address opens: the ``lesson`` (None: it could not be read), the step
    ``k`` (from 1), the page's query ``args`` (the step's link, overridden by the address's
    other keys), whether to ``play`` the timeline, and ``problems``: sentences saying what did
    not open as written."""

    lesson: Lesson | None
    k: int
    args: dict
    play: bool = False
    problems: list = field(default_factory=list)

    def address(self) -> dict:
        return {"lesson": self.lesson.name, "step": str(self.k)} if self.lesson else {}


def open_lesson(args: dict) -> OpenedLesson | None:
    """The lesson an address asks for (None: the address names none)."""
    keys = {(k.decode(errors="replace") if isinstance(k, bytes) else str(k)): v
            for k, v in args.items()}
    if "lesson" not in keys:
        return None
    name = _text(keys["lesson"]).strip()
    own = {k: v for k, v in keys.items() if k not in LESSON_KEYS}
    if not NAME.fullmatch(name) or name not in lessons():
        return OpenedLesson(None, 1, own, problems=[
            f"There is no lesson {quote(name)}; the lessons are listed on the home page."])
    lesson = read(name)
    problems = []
    raw = _text(keys.get("step", ["1"])).strip()
    try:
        if len(raw) > NUMBER_CHARS:
            raise ValueError
        k = int(raw)
        if not 1 <= k <= len(lesson.steps):
            raise ValueError
    except ValueError:
        problems.append(f"step must be a whole number from 1 to {len(lesson.steps)}; got "
                        f"{quote(raw)}: the lesson opens at step 1.")
        k = 1
    step = lesson.steps[k - 1]
    problems += [f"Step {k} ({step.heading}): {p}" for p in check_step(step)]
    merged = {**step_args(step), **own}
    play = _text(merged.pop("play", ["0"])).strip() == "1"
    return OpenedLesson(lesson, k, merged, play, problems)


_KEYS_JS = FIND_JS + """
if (!window.ldxLessonKeys) {
  window.ldxLessonKeys = true;
  document.addEventListener('keydown', (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const el = event.composedPath()[0];
    const tag = el && el.tagName;
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || (el && el.isContentEditable))
      return;
    const go = {PageDown: 'next', n: 'next', PageUp: 'previous', p: 'previous'}[event.key];
    if (!go) return;
    const link = find(document, 'a.ldx-lesson-' + go);
    if (link) { event.preventDefault(); window.location.href = link.href; }
  });
}
"""


#: ``play=1``: once the page's timeline player is in the browser, start it (from the step's t).
_PLAY_JS = """
const start = performance.now();
const play = () => {
  const p = window.ldxTimelinePlayer;
  if (p != null) { p.direction = 1; }
  else if (performance.now() - start < 60000) { setTimeout(play, 200); }
};
setTimeout(play, 500);
"""


def _step_link(lesson: Lesson, k: int) -> str:
    return "?" + urllib.parse.urlencode({"lesson": lesson.name, "step": k})


def _navigation(lesson: Lesson, k: int) -> pn.pane.HTML:
    """Previous and next as links (each opens its step in a fresh session), which the keys
    follow."""
    parts = []
    for name, target, label in (("previous", k - 1, "← Previous"), ("next", k + 1, "Next →")):
        if 1 <= target <= len(lesson.steps):
            heading = html.escape(lesson.steps[target - 1].heading, quote=True)
            parts.append(f'<a class="ldx-lesson-{name} ldx-lesson-button" '
                         f'href="{html.escape(_step_link(lesson, target), quote=True)}" '
                         f'title="Step {target}: {heading} ({"Page Up or p" if name == "previous" else "Page Down or n"})">{label}</a>')
    return pn.pane.HTML(
        " ".join(parts), margin=(5, 5),
        stylesheets=[".ldx-lesson-button{display:inline-block;padding:5px 12px;margin-right:6px;"
                     "border:1px solid #0072b5;border-radius:6px;color:#0072b5;"
                     "text-decoration:none;font-size:14px}"
                     ".ldx-lesson-button:hover{background:rgba(0,114,181,0.08)}"])


def lesson_panel(opened: OpenedLesson) -> pn.Column:
    """The lesson's column: its title, the step's number and heading, the previous and next
    buttons, what did not open as written, and the caption."""
    lesson, k = opened.lesson, opened.k
    items = []
    if opened.problems:
        items.append(Alert(plain(" ".join(opened.problems), limit=1200),
                           alert_type="warning", css_classes=["ldx-lesson-problems"]))
    if lesson is not None:
        step = lesson.steps[k - 1]
        items.append(Text(f"**{plain(lesson.title)}**, step {k} of {len(lesson.steps)}",
                          margin=(5, 10, 0, 10)))
        items.append(_navigation(lesson, k))
        items.append(Text(f"#### {plain(step.heading)}\n\n" + math_markdown(step.caption),
                          renderer_options=CAPTION_OPTIONS, css_classes=["ldx-lesson-caption"],
                          sizing_mode="stretch_width"))
        keys = pn.widgets.IntInput(value=0, visible=False)
        keys.jscallback(value=_KEYS_JS + (_PLAY_JS if opened.play else ""))
        items.append(keys)
        pn.state.onload(lambda: setattr(keys, "value", 1))
    return pn.Column(*items, css_classes=["ldx-lesson"], sizing_mode="stretch_width")


def lesson_list() -> str:
    """The home page's list of lessons (Markdown): each title links its first step."""
    found = lessons()
    if not found:
        return ""
    lines = [f"- **[{plain(lesson.title)}]({_step_link(lesson, 1)})** "
             f"({len(lesson.steps)} steps)" for lesson in found.values()]
    return "### Lessons\n\nStep-by-step tours of the pages, for a class:\n\n" + "\n".join(lines)


def step_view(slug: str, model, address) -> tuple[pn.widgets.Toggle, pn.pane.HTML]:
    """A "Step" toggle and the view it opens: this view as a lesson's step (Markdown to paste
    into a file of ``lessons/``), written from ``address()`` (the page, its state and its
    presentation) when shown and at each state drawn while shown."""
    toggle = pn.widgets.Toggle(label="Step", color="primary", variant="outline",
                               width=70)
    cls = EXPLORERS[slug]

    def text() -> str:
        markdown = step_markdown(cls.title, cls.summary, address())
        return ("<p><b>Add this view as a step</b>: paste into a lesson file "
                "(<code>lessons/&lt;name&gt;.md</code>; write your heading and caption):</p>"
                f"<pre class='ldx-code'>{html.escape(markdown)}</pre>")

    view = steady_text(pn.pane.HTML(
        "", visible=False, sizing_mode="stretch_width", css_classes=["ldx-step-view"],
        stylesheets=[".ldx-code{background:#f6f8fa;padding:10px;border-radius:6px;"
                     "font-size:13px;overflow-x:auto;white-space:pre-wrap}"]))

    def refresh(*_):
        if toggle.value:
            view.object = text()

    model.param.watch(refresh, ["drawn", "t"])
    toggle.param.watch(lambda event: (refresh(), setattr(view, "visible", event.new)), "value")
    return toggle, view


def present_view(slug: str, model, address) -> tuple[pn.widgets.Toggle, pn.Column]:
    """A "Present" toggle and the view it opens: the teacher picks the controls to keep by
    their labels, and a link opens this state in present mode with them (``present=1&show=``,
    ``views.framework.present``), written from ``address()`` (the page and its state) when
    shown, at each state drawn and at each pick."""
    toggle = pn.widgets.Toggle(label="Present", color="primary", variant="outline",
                               width=80)
    options = {}
    for name in model.setting_names():
        label = model.knob_param(name).label or name
        run = name.split(".")[0] if "." in name else ""
        options[f"{label} ({run})" if run else label] = name
    choice = pn.widgets.MultiChoice(label="Controls to show (none: the plots alone)",
                                    options=options, value=[], sizing_mode="stretch_width")
    link = steady_text(pn.pane.HTML("", sizing_mode="stretch_width",
                                    css_classes=["ldx-present-link"]))

    def text() -> str:
        query = {**{k: v for k, v in address().items() if k not in ("present", "show")},
                 "present": "1"}
        if choice.value:
            query["show"] = ",".join(choice.value)
        href = "?" + urllib.parse.urlencode(query, safe=",")
        return (f'<a href="{html.escape(href, quote=True)}" class="ldx-present-open">Open this '
                "view in present mode</a> (a link to share or put in a lesson: it keeps the "
                "state drawn and the controls picked).")

    view = pn.Column(choice, link, visible=False, sizing_mode="stretch_width",
                     css_classes=["ldx-present-view"])

    def refresh(*_):
        if toggle.value:
            link.object = text()

    model.param.watch(refresh, ["drawn", "t"])
    choice.param.watch(refresh, "value")
    toggle.param.watch(lambda event: (refresh(), setattr(view, "visible", event.new)), "value")
    return toggle, view
