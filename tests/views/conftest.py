"""Fixtures shared by the view tests."""

from __future__ import annotations

import pytest

from views.framework import jobs as _jobs, worker as _worker


@pytest.fixture()
def worker_processes():
    """Runs compute in worker processes, as in the served app, with an empty results cache
    (stand-in results must not leak out); both as they were afterwards."""
    saved = dict(_jobs._CACHE)
    _jobs._CACHE.clear()
    before = _worker._STATE["context"]
    _worker.enable()
    yield
    _worker._STATE["context"] = before
    _jobs._CACHE.clear()
    _jobs._CACHE.update(saved)
