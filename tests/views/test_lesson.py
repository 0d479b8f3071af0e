"""Lessons as files (``views.lesson``, issue 49 item 3): the shipped lessons open step by step as
written; a bad lesson says which step and why; a step written from a page's state reopens it."""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.parse

import pytest

from views import EXPLORERS, lesson as lessons_module
from views.framework.present import Presentation
from views.lesson import (LESSONS, MAX_BYTES, MAX_STEPS, Lesson, check, lessons, parse, read,
                          step_args, step_markdown)

SHIPPED = ("herding-edge-of-chaos", "period-doubling", "mixing-by-restarts")


def test_three_lessons_ship_each_of_five_to_eight_steps():
    found = lessons()
    assert set(SHIPPED) <= set(found)
    for name in SHIPPED:
        lesson = found[name]
        assert 5 <= len(lesson.steps) <= 8, name
        assert lesson.title and lesson.intro
        assert all(step.heading and step.caption for step in lesson.steps)


@pytest.mark.parametrize("name", SHIPPED)
def test_every_shipped_step_opens_as_written(name):
    """Each step computed as the app opens it: no setting refused, changed or out of range,
    its time within the run."""
    assert check(read(name), compute=True) == []


def test_a_step_opens_the_state_its_link_holds():
    lesson = read("period-doubling")
    args = step_args(lesson.steps[3])
    assert args["page"] == ["bifurcation"]
    cls = EXPLORERS["bifurcation"]
    explorer, messages, _ = cls.unchecked_query(
        {k: v for k, v in args.items() if k not in ("page", "present", "show", "play")})
    assert messages == []
    assert explorer.at_log_t == -0.92 and explorer.log_t == cls.param["log_t"].default
    presentation, said = Presentation.from_query(cls, args)
    assert said == [] and presentation.present and presentation.show == ("at_log_t",)


BAD = """# A lesson with bad steps

## Fine
A caption.

[open](?page=herding&n_states=3)

## No such page
[open](?page=nowhere)

## Out of range
States beyond the slider.

[open](?page=herding&n_states=99)

## Unknown setting and a bad play
[open](?page=torus&colour=red&play=maybe)

## Links out
See [this](https://example.com) and <b>bold</b>.

[open](?page=neuron)

## Fine again
[open](?page=neuron)
"""


def test_a_bad_lesson_names_each_bad_step_and_why_and_keeps_the_rest():
    lesson = parse(BAD, "bad")
    assert len(lesson.steps) == 6
    problems = check(lesson)
    by_step = {p.split(" (")[0] for p in problems}
    assert by_step == {"step 2", "step 3", "step 4", "step 5"}
    text = "\n".join(problems)
    assert "there is no page 'nowhere'" in text
    assert "step 3 (Out of range, line 11): States D must be a whole number from 2 to 16; got '99'" \
        in text
    assert "there is no setting 'colour'" in text and "play must be 1 or 0" in text
    assert "links outside the app" in text and "raw HTML" in text


@pytest.mark.parametrize("text,words", [
    ("no title\n## s\n[open](?page=neuron)\n", "starts with its title"),
    ("# Title\n\nno steps\n", "at least one step"),
    ("# Title\n## s\ncaption only\n", "must have one line"),
    ("# Title\n## s\n[open](?page=neuron)\n[open](?page=torus)\n", "not 2"),
    ("# T\n" + "## s\n[open](?page=neuron)\n" * (MAX_STEPS + 1), f"at most {MAX_STEPS} steps"),
    ("# T\n" + "x" * MAX_BYTES, f"at most {MAX_BYTES:,} bytes"),
])
def test_a_malformed_lesson_is_refused_in_words(text, words):
    with pytest.raises(ValueError, match=words):
        parse(text)


def test_bad_arguments_are_refused_by_name(tmp_path):
    with pytest.raises(TypeError, match="text"):
        parse(b"# T")
    with pytest.raises(TypeError, match="lesson"):
        check("herding-edge-of-chaos")
    with pytest.raises(TypeError, match="source"):
        read(3)
    with pytest.raises(ValueError, match="no lesson file"):
        read("no-such-lesson")
    with pytest.raises(ValueError, match="no lesson file"):
        read(tmp_path)  # a directory is not a lesson file
    big = tmp_path / "big.md"
    big.write_text("# T\n" + "x" * (2 * MAX_BYTES))
    with pytest.raises(ValueError, match="at most"):
        read(big)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_not_read(tmp_path):
    fifo = tmp_path / "pipe.md"
    os.mkfifo(fifo)
    with pytest.raises(ValueError, match="no lesson file"):
        read(fifo)  # a reader would block on it for ever


def test_a_step_written_from_a_page_reopens_its_state():
    cls = EXPLORERS["herding"]
    explorer = cls(n_states=4, eta=0.5, seed=7)
    query = {"page": "herding", **explorer.query(),
             **Presentation(present=True, show=("eta", "seed")).query()}
    text = "# A lesson\n\n" + step_markdown("Half the step", "The attractor *shrinks*.", query)
    step = parse(text).steps[0]
    assert step.heading == "Half the step" and step.caption == "The attractor *shrinks*."
    assert check(Lesson("x", "x", "", (step,))) == []
    args = {k: v for k, v in step_args(step).items() if k not in ("page", "present", "show")}
    reopened, messages, _ = cls.unchecked_query(args)
    assert messages == [] and reopened.query() == explorer.query()


def test_the_lessons_folder_holds_only_lessons():
    names = sorted(p.name for p in LESSONS.iterdir())
    assert names == sorted(f"{n}.md" for n in lessons())


def test_the_command_line_checks_a_lesson(tmp_path):
    bad = tmp_path / "bad.md"
    bad.write_text(BAD)
    env = dict(os.environ, PYTHONPATH=str(LESSONS.parent))
    good = subprocess.run([sys.executable, "-m", "views.lesson", str(LESSONS / "period-doubling.md"),
                           "--check"], capture_output=True, text=True, env=env, timeout=300)
    assert good.returncode == 0, good.stderr
    assert "every step opens as written" in good.stdout
    out = subprocess.run([sys.executable, "-m", "views.lesson", str(bad), "--check"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 1 and "step 2 (No such page" in out.stdout
    missing = subprocess.run([sys.executable, "-m", "views.lesson", "no-such", "--check"],
                             capture_output=True, text=True, env=env, timeout=300)
    assert missing.returncode == 2 and "no lesson file" in missing.stderr


def test_step_markdown_keeps_commas_of_a_list_readable():
    text = step_markdown("h", "c", {"page": "doeblin", "show": "log_eps,seed"})
    assert "show=log_eps,seed" in text
    assert urllib.parse.parse_qs(text.split("](?")[1].rstrip(")\n"))["show"] == ["log_eps,seed"]
    assert lessons_module.NAME.fullmatch("period-doubling")
