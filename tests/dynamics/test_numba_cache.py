"""A second start compiles nothing (issue 27 item 3): every Numba kernel that the served app's
warm-up readies (``dynamics.warmup()``) is loaded from the on-disk cache that the first start
wrote, in a fresh process. A kernel without ``cache=True``, or one whose cache cannot be used
(a source or signature that changes from process to process), is compiled again on every start
and is named here."""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: Warm every engine, then list the kernels this process compiled instead of loading them.
_CHECK = """
import json, sys
import dynamics
from numba.core.dispatcher import Dispatcher
dynamics.warmup()
compiled = sorted(
    f"{key}.{name}" for key, module in list(sys.modules.items())
    if key == "dynamics" or key.startswith("dynamics.")
    for name, kernel in vars(module).items()
    if isinstance(kernel, Dispatcher) and kernel.stats.cache_misses)
print(json.dumps(compiled))
"""


def _start() -> list[str]:
    done = subprocess.run([sys.executable, "-c", _CHECK], cwd=ROOT, capture_output=True,
                          text=True, timeout=900, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_a_second_start_loads_every_kernel_from_the_disk_cache():
    if os.environ.get("LDX_PRECOMPILED") != "1":
        # the first start: compiles what the cache lacks. In a run on several workers the
        # engines were compiled before the workers started (tests/conftest.py), every engine
        # in a process of its group: that was the first start (a 30-s start less here).
        _start()
    assert _start() == []
