"""Every Python example of the README and of docs/headless.md runs, and prints what its comments
say.

The blocks are read from README.md and docs/headless.md themselves (every fenced ``python``
block, in order), so the docs and this test cannot drift. Each block runs whole in a fresh interpreter
(``sys.executable -c``, the repository as the working directory, the environment inherited:
``OPENBLAS_NUM_THREADS=1`` and the like from ``tests/conftest.py``), as a reader who pastes it
into a script would run it.

The convention the README's blocks follow, checked here:

* every ``print(...)`` is a statement of the block's top level and writes one line;
* the comment on a ``print``'s line starts with what it prints: the comment up to its first
  ": " (or all of it) is the expected line; what follows the ": " explains it. For example
  ``print(err.herding_slope)   # -1.00: O(1/T) moment matching`` expects a line holding one
  number within tolerance of -1.00.

The printed line and the expected text are compared number by number (the same count, each
within ``tolerance(expected)``), and the text around the numbers must be the same up to
whitespace (brackets, words such as True). The examples are seeded, so on this machine they
print the same numbers on every run; the tolerance is for other machines, where another CPU or
BLAS may change the last bits of a float and a run then follows a slightly different path with
the same statistics. ``REL_TOL`` is 2 %: the printed values are averages over many steps or
runs, fitted slopes and final errors, which such a change moves far less (perturbing herding's
w0 by 1e-12 to 1e-6 changed 2 of its 100,000 states, and its slope in none of 15 digits). A
number written with few digits may also be off by half a unit of its last digit (0.12 stands for
anything that rounds to 0.12): that is the tolerance of values near 0. Integers (shapes, counts,
bits) must be equal. A value that is 0 up to rounding (a converged error of 5e-11) is printed as
a comparison (``True``), so that no tolerance is needed for it.

Wall times are printed (``pytest -s``), not asserted: the machine's load decides them.
"""

from __future__ import annotations

import ast
import io
import os
import pathlib
import re
import resource
import subprocess
import sys
import time
import tokenize

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
#: The files whose ``python`` blocks are run: the README, and the page its Headless section
#: sends each paper's engines to.
EXAMPLE_DOCS = ("README.md", "docs/headless.md")

#: Relative tolerance of every printed number (see the module docstring for why 2 %).
REL_TOL = 0.02
#: A block that has not finished after this many seconds has hung (the slowest takes seconds;
#: this bound is not a timing check).
TIMEOUT_S = 300

#: A number as printed or written: 2, -1.00, 0.12, 5e-11, 1.0e-03 (not the digits of a word such
#: as x2 or sigma0).
NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?(?!\w)")


def readme_blocks() -> list[tuple[str, int, str]]:
    """(file, line of the block's first code line in it, code) for every ```python block of
    ``EXAMPLE_DOCS``."""
    blocks = []
    for doc in EXAMPLE_DOCS:
        lines = (ROOT / doc).read_text().splitlines()
        i = 0
        while i < len(lines):
            if lines[i].strip() == "```python":
                start, body = i + 1, []
                i += 1
                while i < len(lines) and lines[i].strip() != "```":
                    body.append(lines[i])
                    i += 1
                blocks.append((doc, start + 1, "\n".join(body) + "\n"))
            i += 1
    return blocks


def block_id(number: int, code: str) -> str:
    """``block3-sbeed``: the block's number (from 1) and the engines it imports."""
    names = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("dynamics"):
            names += [a.name for a in node.names]
    return f"block{number}-" + "-".join(names or ["nodynamics"])


def decimals(token: str) -> int:
    """Digits after the point of a written number, counted in its last place (5e-11: 11)."""
    mantissa, _, exponent = token.lower().partition("e")
    places = len(mantissa.partition(".")[2])
    return places - int(exponent or 0)


def tolerance(expected: str) -> float:
    """How far a printed number may be from the number written as ``expected``: 0 for an
    integer (a shape, a count, a sequence of bits), else ``REL_TOL`` of it or half a unit of
    its last written digit, whichever is larger."""
    if re.fullmatch(r"[-+]?\d+", expected):
        return 0.0
    return max(REL_TOL * abs(float(expected)), 0.5 * 10.0 ** -decimals(expected))


def expected_prints(code: str, first_line: int = 1) -> list[tuple[int, str, str]]:
    """(README line, the print's source, the expected text) for each print of the block whose
    first line is README line ``first_line``, in order."""
    tree = ast.parse(code)
    comments = {}
    for tok in tokenize.generate_tokens(io.StringIO(code).readline):
        if tok.type == tokenize.COMMENT:
            comments.setdefault(tok.start[0], tok.string[1:].strip())
    top = {id(node.value) for node in tree.body if isinstance(node, ast.Expr)}
    prints = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "print"):
            line, source = first_line + node.lineno - 1, ast.get_source_segment(code, node)
            assert id(node) in top, (
                f"line {line}: {source} is not a statement of the block's top level "
                f"(the convention: each print writes one line, in order)")
            comment = next((comments[n] for n in range(node.lineno, node.end_lineno + 1)
                            if n in comments), None)
            assert comment, f"line {line}: {source} has no comment saying what it prints"
            prints.append((line, source, comment.split(": ", 1)[0]))
    return sorted(prints)


def compare(printed: str, expected: str) -> str | None:
    """Why ``printed`` is not ``expected`` (numbers within tolerance), or None."""
    got, want = NUMBER.findall(printed), NUMBER.findall(expected)
    if len(got) != len(want):
        return f"{len(got)} numbers printed, {len(want)} expected"
    bad = [f"{g} vs {w} (tolerance {tolerance(w):.2g})" for g, w in zip(got, want)
           if not abs(float(g) - float(w)) <= tolerance(w) * (1 + 1e-9)]
    if bad:
        return "; ".join(bad)
    text = [re.sub(r"\s+", "", NUMBER.sub("#", s)) for s in (printed, expected)]
    if text[0] != text[1]:
        return f"the text around the numbers differs: {text[0]!r} vs {text[1]!r}"
    return None


BLOCKS = readme_blocks()


def test_readme_has_the_examples():
    assert len(BLOCKS) >= 9, f"README.md and docs/headless.md have {len(BLOCKS)} python blocks"
    assert any(doc == "README.md" for doc, _, _ in BLOCKS)
    for doc, line, code in BLOCKS:
        assert expected_prints(code, line), f"the block at {doc} line {line} prints nothing"


def test_the_check_fails_on_a_wrong_comment():
    """The comparison is not vacuous: a number off by more than its tolerance, a missing
    number or other words fail; rounding to the written digits and the tolerance pass."""
    code = "x = 1\nprint(x)   # 1: one\nprint(f'{x:.4f}', x > 0)   # 1.00 True\n"
    assert [(line, want) for line, _, want in expected_prints(code, 10)] == [
        (11, "1"), (12, "1.00 True")]
    assert compare("-1.00125313504419", "-1.00") is None
    assert compare("0.304 0.1793", "0.304 0.179") is None
    assert compare("0.0102", "0.0100") is None                  # within 2 %
    assert compare("0.0106", "0.0100") is not None              # 6 % off
    assert compare("(100001, 2)", "(100000, 2)") is not None    # integers are exact
    assert compare("0.887 True", "0.887 False") is not None
    assert compare("0.887", "0.887 0.389") is not None
    assert compare("5.1e-11", "5e-11") is None
    assert compare("1.0e-03", "1.2e-03") is not None


@pytest.mark.parametrize(("doc", "line", "code"), BLOCKS,
                         ids=[block_id(i + 1, code) for i, (_, _, code) in enumerate(BLOCKS)])
def test_readme_example_prints_what_its_comments_say(doc, line, code):
    prints = expected_prints(code, line)
    start, before = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=dict(os.environ),
                          capture_output=True, text=True, timeout=TIMEOUT_S)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    print(f"\n{doc} block at line {line}: {time.perf_counter() - start:.1f} s "
          f"({cpu:.1f} s of CPU)", end="")
    assert proc.returncode == 0, (f"the block at {doc} line {line} failed:\n"
                                  + proc.stderr[-3000:])
    out = proc.stdout.splitlines()
    assert len(out) == len(prints), (
        f"the block at {doc} line {line} printed {len(out)} lines for {len(prints)} "
        f"prints (each print must write one line):\n" + proc.stdout)
    failures = [f"{doc} line {n}: {source}\n    printed:  {got}\n    comment:  {want}\n    "
                f"{why}"
                for (n, source, want), got in zip(prints, out)
                if (why := compare(got, want)) is not None]
    assert not failures, "\n".join(failures)
