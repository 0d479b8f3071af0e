"""Files written whole or not at all, for the page's exports (``views.framework.export_figure``)
and the paper gallery (``views.figures``): a reader, or a run that was killed and started
again, never finds half a file at a final name.

A module of its own (no import beyond the standard library) rather than more lines in the
long ``views.framework``.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import secrets

__all__ = ["PARTIAL_GLOB", "atomic_path"]

#: Name pattern of the files ``atomic_path`` writes before they are complete (hidden).
PARTIAL_GLOB = ".*.partial*"


@contextlib.contextmanager
def atomic_path(path):
    """Write a file all at once or not at all: yields a temporary path beside ``path`` (same
    directory, so the rename is atomic; hidden, with ``path``'s suffix so writers that go by
    it still work) and renames it onto ``path`` when the block ends without an exception.

    A reader of ``path`` sees the old file or the new one, never half of one; a failure leaves
    the old file and no temporary; a process killed while writing leaves only a temporary
    matching ``PARTIAL_GLOB``, which its next run may delete (the gallery does).
    """
    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.stem}.{secrets.token_hex(4)}.partial{path.suffix}")
    try:
        yield partial
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
