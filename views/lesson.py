"""Lessons: a teacher's sequence of views, kept as a Markdown file in ``lessons/``.

A lesson file is a title, an optional introduction, then its steps::

    # Herding at the edge of chaos

    What the class will see, in a sentence or two.

    ## The weights walk from cone to cone

    The caption: Markdown with LaTeX ($w_t$), shown beside the plot.

    [open](?page=herding&n_states=3&t=50&present=1&show=seed&play=1)

Each step is a ``##`` heading, its caption, and one line ``[open](<link>)``: the state the step
opens, a link the app wrote (**Add this view as a step** on a page writes the whole step). The
link holds the page, its settings, the time ``t``, the presentation (``present``, ``show``) and
``play=1`` to start playing the timeline. ``?lesson=<name>&step=<k>`` opens step k of
``lessons/<name>.md`` in the app.

``check`` reads every step's link as the app would, without a browser: an unknown page, a
setting the page does not have, a value out of range, an outside link or raw HTML in a caption
are reported by step (``python -m views.lesson lessons/herding.md --check``; ``--compute``
also computes each step's settings and checks its time). A lesson with a bad step still opens
its other steps.

Files are read in one pass with a size cap, only if they are regular files; nothing is
written.
"""

from __future__ import annotations

import re
import sys
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

from views.framework.text import CommandParser, clip, printable, quote

__all__ = ["Lesson", "Step", "LESSONS", "MAX_BYTES", "MAX_STEPS", "NAME", "parse", "read",
           "lessons", "check", "check_step", "step_args", "step_markdown", "main"]

#: Where the shipped lessons are (one file each, ``<name>.md``).
LESSONS = Path(__file__).resolve().parents[1] / "lessons"
#: The longest lesson file read (bytes) and the most steps it may have.
MAX_BYTES, MAX_STEPS = 64_000, 40
#: A lesson's name (its file's stem): what ``?lesson=`` may hold.
NAME = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
#: The keys of a step's link that are not a page's settings: the presentation, the page and
#: whether to play.
VIEW_KEYS = ("page", "present", "show", "play")

_OPEN = re.compile(r"\[open\]\((\?[^()\s]*)\)")
_HTML = re.compile(r"<[A-Za-z!/?]")
_LINK = re.compile(r"\]\(([^)\s]*)\)")


@dataclass(frozen=True)
class Step:
    """One step: its ``heading``, its ``caption`` (Markdown with LaTeX), the ``link`` it opens
    (a query, ``?page=...``; "" when the step has none) and the line of the file it starts on."""

    heading: str
    caption: str
    link: str
    line: int


@dataclass(frozen=True)
class Lesson:
    """A lesson: its ``name`` (the file's stem), ``title``, ``intro`` (Markdown) and steps."""

    name: str
    title: str
    intro: str
    steps: tuple[Step, ...]


def parse(text: str, name: str = "lesson") -> Lesson:
    """The lesson a file's text holds. ``ValueError`` (naming the line) when it has no title,
    no step, too many steps, or a step without exactly one ``[open](...)`` line; the steps'
    links are read by ``check``."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if len(text.encode()) > MAX_BYTES:
        raise ValueError(f"a lesson is at most {MAX_BYTES:,} bytes; this one has "
                         f"{len(text.encode()):,}")
    lines = text.splitlines()
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None or not lines[first].startswith("# "):
        raise ValueError("a lesson starts with its title, a line '# Title'")
    title = lines[first][2:].strip()
    intro, steps, current = [], [], None
    for number, line in enumerate(lines[first + 1:], start=first + 2):
        if line.startswith("## "):
            if len(steps) == MAX_STEPS:
                raise ValueError(f"a lesson has at most {MAX_STEPS} steps (line {number})")
            current = {"heading": line[3:].strip(), "caption": [], "links": [], "line": number}
            steps.append(current)
        elif current is None:
            intro.append(line)
        elif _OPEN.fullmatch(line.strip()):
            current["links"].append(_OPEN.fullmatch(line.strip()).group(1))
        else:
            current["caption"].append(line)
    if not steps:
        raise ValueError("a lesson has at least one step, a line '## Heading'")
    made = []
    for k, step in enumerate(steps, start=1):
        if len(step["links"]) != 1:
            raise ValueError(f"step {k} ({clip(step['heading'], 60)}, line {step['line']}) must "
                             f"have one line '[open](?page=...)', not {len(step['links'])}")
        made.append(Step(step["heading"], "\n".join(step["caption"]).strip(),
                         step["links"][0], step["line"]))
    return Lesson(name, title, "\n".join(intro).strip(), tuple(made))


def read(source) -> Lesson:
    """The lesson named ``source`` (``lessons/<name>.md``) or in the file at path ``source``:
    a regular file, read with the size cap."""
    if isinstance(source, str) and NAME.fullmatch(source):
        path = LESSONS / f"{source}.md"
    elif isinstance(source, (str, Path)):
        path = Path(source)
    else:
        raise TypeError(f"source must be a lesson's name or a path, got {type(source).__name__}")
    if not path.is_file():
        raise ValueError(f"there is no lesson file {quote(str(path))}")
    with open(path, "rb") as f:
        data = f.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError(f"a lesson is at most {MAX_BYTES:,} bytes; {quote(str(path))} is longer")
    return parse(data.decode(errors="replace"), path.stem)


def lessons() -> dict[str, Lesson]:
    """The shipped lessons by name (files of ``LESSONS`` that parse), in name order."""
    found = {}
    for path in sorted(LESSONS.glob("*.md")):
        if NAME.fullmatch(path.stem):
            found[path.stem] = read(path)
    return found


def step_args(step: Step) -> dict[str, list[str]]:
    """The step's link as a served page's query arguments (name -> values)."""
    return urllib.parse.parse_qs(step.link[1:], keep_blank_values=True)


def step_markdown(heading: str, caption: str, query: dict) -> str:
    """A step, as **Add this view as a step** writes it: the heading, the caption and the
    ``[open](...)`` line of ``query`` (name -> text, the page's ``query()`` with its page and
    presentation)."""
    heading = " ".join(str(heading).split()) or "A step"
    link = "?" + urllib.parse.urlencode(query, safe=",")
    return f"## {heading}\n\n{str(caption).strip()}\n\n[open]({link})\n"


def check_step(step: Step, compute: bool = False) -> list[str]:
    """A sentence for each problem of one step's link (``check`` says which step)."""
    if not isinstance(step, Step):
        raise TypeError(f"step must be a Step, got {type(step).__name__}")
    from views import EXPLORERS
    from views.framework.present import Presentation

    args = step_args(step)
    pages = args.get("page", [])
    if not pages:
        return ["its link names no page (page=...)"]
    slug = pages[-1]
    if slug not in EXPLORERS:
        return [f"there is no page {quote(slug)}"]
    cls = EXPLORERS[slug]
    problems = []
    presentation, said = Presentation.from_query(cls, args)
    problems += said
    play = args.get("play", ["0"])[-1].strip().lower()
    if play not in ("0", "1"):
        problems.append(f"play must be 1 or 0; got {quote(play)}.")
    settings = {k: v for k, v in args.items() if k not in VIEW_KEYS}
    if compute:
        _, said = cls.from_query(settings)
    else:
        _, said, _ = cls.unchecked_query(settings)
    problems += said
    for href in _LINK.findall(step.caption):
        if not (href.startswith("?") or href.startswith("#")):
            problems.append(f"its caption links outside the app ({quote(href)}).")
    if _HTML.search(step.caption):
        problems.append("its caption holds raw HTML, which is shown as text.")
    return problems


def check(lesson: Lesson, compute: bool = False) -> list[str]:
    """A sentence for each problem of each step (empty: every step opens as written): read as
    the app reads the step's link; with ``compute``, each step's settings are computed and its
    time checked against the run."""
    if not isinstance(lesson, Lesson):
        raise TypeError(f"lesson must be a Lesson, got {type(lesson).__name__}")
    out = []
    for k, step in enumerate(lesson.steps, start=1):
        for problem in check_step(step, bool(compute)):
            out.append(f"step {k} ({clip(step.heading, 60)}, line {step.line}): {problem}")
    return out


def main(argv=None) -> int:
    parser = CommandParser(prog="python -m views.lesson",
                           description="Read a lesson file and check its steps.")
    parser.add_argument("lesson", help="a lesson's file (lessons/<name>.md) or its name")
    parser.add_argument("--check", action="store_true",
                        help="check every step's link as the app reads it (exit 1 on a problem)")
    parser.add_argument("--compute", action="store_true",
                        help="with --check: also compute each step's settings and its time")
    args = parser.parse_args(argv)
    try:
        lesson = read(args.lesson)
    except ValueError as exc:
        print(printable(f"error: {exc}"), file=sys.stderr)
        return 2
    print(printable(f"{lesson.title} ({len(lesson.steps)} steps)"))
    for k, step in enumerate(lesson.steps, start=1):
        print(printable(f"  {k}. {step.heading}"))
    if not args.check:
        return 0
    problems = check(lesson, compute=args.compute)
    for problem in problems:
        print(printable(problem))
    print("every step opens as written" if not problems else
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
