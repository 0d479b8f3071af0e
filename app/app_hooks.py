"""Server lifecycle hooks of the ``app`` directory application (picked up by ``panel serve app``)."""

import dynamics


def on_server_loaded(server_context):
    """Compile (or load from the numba disk cache) every kernel once, before the first session."""
    dynamics.warmup(verbose=True)
