"""The "Code" view of a page (issue 27 item 4): a short script, using only the headless API,
that recomputes the page's numbers and writes its figure. Run here for every page (with the
page's ``example_change`` applied): its status line and every panel's data equal the page's."""

from __future__ import annotations

import contextlib
import io

import holoviews as hv
import numpy as np
import pytest

from views import EXPLORERS
from views.framework import stamp


def _data(figure) -> list:
    """Every element's values, dimension by dimension, in order."""
    out = []
    for element in figure.traverse(lambda e: e, [hv.Element]):
        for dim in element.dimensions():
            values = element.dimension_values(dim)
            out.append((type(element).__name__, dim.name, values))
    return out


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_the_code_of_a_page_recomputes_its_numbers_and_figure(slug, tmp_path, monkeypatch):
    cls = EXPLORERS[slug]
    explorer = cls(**cls.example_change)
    code = stamp.script(explorer)
    # a line a knob (the SBEED page has 29) and a dozen more
    assert "import" in code and code.count("\n") < 15 + len(cls.setting_names())
    monkeypatch.chdir(tmp_path)
    namespace: dict = {}
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(code, f"{slug}-code.py", "exec"), namespace)  # noqa: S102 - our script
    assert printed.getvalue().rstrip("\n") == explorer.status()
    assert (tmp_path / f"{stamp.file_stem(explorer)}.png").stat().st_size > 10_000
    ours, theirs = _data(explorer.figure()), _data(namespace["figure"])
    assert [(t, d) for t, d, _ in ours] == [(t, d) for t, d, _ in theirs]
    for (kind, dim, a), (_, _, b) in zip(ours, theirs):
        if a.dtype.kind in "fc":
            assert np.allclose(a, b, equal_nan=True), (kind, dim)
        else:
            assert np.array_equal(a, b), (kind, dim)


def test_the_code_holds_a_links_text_as_data():
    from views.pages.herding import HerdingExplorer

    explorer, _ = HerdingExplorer.from_query({"w0": ["1, 2"]})
    code = stamp.script(explorer)
    compile(code, "code.py", "exec")
    assert "'w0': '1, 2'," in code


def test_the_code_runs_in_a_fresh_interpreter(tmp_path):
    import subprocess
    import sys

    from views.pages.neuron import NeuronExplorer

    explorer = NeuronExplorer(**NeuronExplorer.example_change)
    (tmp_path / "code.py").write_text(stamp.script(explorer))
    done = subprocess.run([sys.executable, "code.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.rstrip("\n") == explorer.status()
    assert (tmp_path / f"{stamp.file_stem(explorer)}.png").exists()
