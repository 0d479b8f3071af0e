"""How long ``ldx-export --from`` takes to read a state file crafted against its reader
(``views.framework.stamp.read_state``, issue 45 item 5), at 100 kB, 1 MB and 10 MB in each
format: the times are printed, and the ratio of 10 MB to 1 MB is asserted under 30 (a linear
reader: about 10; a quadratic one: 100). The crafted files are ``tests/views/_state_files``'s:
the most chunks, blocks or boxes a PNG, GIF or MP4 of that size holds; a PDF, SVG or HTML file
whose state is opened over and over and never closed."""

from __future__ import annotations

import pytest

from tests.bench._timing import best_time
from tests.views import _state_files as crafted
from views.framework import stamp

SIZES = (100_000, 1_000_000, 10_000_000)


def _read(path):
    try:
        stamp.read_state(path)
    except ValueError:
        pass


@pytest.mark.bench
@pytest.mark.parametrize("suffix", sorted(crafted.CRAFTED))
def test_reading_a_crafted_state_file_is_linear_in_its_size(suffix, tmp_path):
    times = []
    for size in SIZES:
        path = tmp_path / f"{size}{suffix}"
        path.write_bytes(crafted.CRAFTED[suffix](size))
        times.append(best_time(lambda: _read(path), repeats=3))
    print(f"\n{suffix}: " + ", ".join(f"{size / 1e6:g} MB {t * 1e3:.1f} ms"
                                       for size, t in zip(SIZES, times))
          + f"; 10 MB / 1 MB = {times[2] / times[1]:.1f}")
    assert times[2] / times[1] < 30
