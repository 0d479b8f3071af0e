"""Server lifecycle hooks of the ``app`` directory application (picked up by ``panel serve app``)."""

import time

import dynamics


def on_server_loaded(server_context):
    """Compile (or load from the numba disk cache) every kernel once, before the first session:
    the engines', then datashader's (rasterize and spread)."""
    dynamics.warmup(verbose=True)
    from views._common import warmup_rendering

    start = time.perf_counter()
    warmup_rendering()
    print(f"datashader rendering: ready in {time.perf_counter() - start:.2f} s")
