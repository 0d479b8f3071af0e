"""A second start compiles nothing (issue 27 item 3): every Numba kernel that the served app's
warm-up readies (``dynamics.warmup()``) is loaded from the on-disk cache that the first start
wrote, in a fresh process. A kernel without ``cache=True``, or one whose cache cannot be used
(a source or signature that changes from process to process), is compiled again on every start
and is named here.

And the first start of a fresh clone, with an empty Numba cache, readies the first page's engines
(those its code imports) before any other (issue 45 item 7): on a fresh clone the herding page,
the README's screenshot, drew 450 s after ``panel serve``, after every other engine."""

from __future__ import annotations

import json
import os
import pathlib
import re
import signal
import socket
import subprocess
import sys
import time

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


#: Seconds the first start may take to ready the first page's engines from an empty cache
#: (compiling them, on two cores shared with the tests).
COLD_START_LIMIT = 600.0
_READY = re.compile(r"^dynamics\.(\w+): ready in", re.MULTILINE)


def test_the_first_start_readies_the_first_pages_engines_before_the_others(tmp_path):
    """``panel serve app`` with an empty Numba cache, watched until the first two pages'
    engines are ready: the first page's were readied before any other, then the second page's
    (loaded as soon as the server's compiling child has them). The others are still compiling
    then: the server and its children are stopped there, so this costs two pages' compilation,
    not every engine's."""
    import views
    from views.framework import readiness

    pages = list(views.EXPLORERS.values())
    first = readiness.engines_of(pages[0])
    second = [name for name in readiness.engines_of(pages[1]) if name not in first]
    log_path = tmp_path / "server.log"
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba-cache"),
           "LDX_WARM_PAGES": "first"}
    begun, first_at = time.monotonic(), None
    with open(log_path, "w") as log:
        # a session of its own, so that the compiling child goes with the server at the end
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = str(probe.getsockname()[1])
        server = subprocess.Popen([sys.executable, "-m", "panel", "serve", "app", "--port", port,
                                   "--address", "127.0.0.1", "--num-procs", "1"], cwd=ROOT,
                                  env=env, stdout=log, stderr=subprocess.STDOUT,
                                  start_new_session=True)
        try:
            while time.monotonic() - begun < COLD_START_LIMIT and server.poll() is None:
                seen = set(_READY.findall(log_path.read_text()))
                if first_at is None and set(first) <= seen:
                    first_at = time.monotonic() - begun
                if set(first + second) <= seen:
                    break
                time.sleep(0.5)
            seconds = time.monotonic() - begun
        finally:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait()
    text = log_path.read_text()
    ready = _READY.findall(text)
    assert "engines to compile" in text, "not a compiling start:\n" + text[-3000:]
    assert set(first + second) <= set(ready), (
        f"the first two pages' engines {first + second} were not ready in {seconds:.0f} s:\n"
        + text[-3000:])
    assert ready[:len(first)] == first, (
        f"the first page computes with {first}; the start readied {ready} in that order")
    assert ready[len(first):len(first) + len(second)] == second, (
        f"the second page's engines {second} come next; the start readied {ready}")
    # the log counts the engines as the waiting page does (readiness.step, readiness.progress):
    # "compiling torus (2 of 11)" is the second of the 11 names the start said it compiles
    listed = re.search(r"^dynamics: (\d+) engines to compile: (.+)$", text, re.MULTILINE)
    names = listed.group(2).split(", ")
    assert int(listed.group(1)) == len(names)
    steps = re.findall(r"^dynamics: compiling (\w+) \((\d+) of (\d+)\) done by the child",
                       text, re.MULTILINE)
    assert steps, text[-3000:]
    for name, index, total in steps:
        assert (int(index), int(total)) == (names.index(name) + 1, len(names)), (name, names)
    print(f"\nfirst start: the first page's engines ready {first_at:.1f} s after panel serve, "
          f"the second's {seconds:.1f} s; readied in this order: {ready}")
