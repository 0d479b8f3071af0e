"""Files written whole or not at all, for the page's exports (``views.framework.export_figure``)
and the paper gallery (``views.figures``): a reader, or a run that was killed and started
again, never finds half a file at a final name; and a write never replaces anything but a
regular file (``check_target``): not a directory, a device node such as ``/dev/null``, a FIFO,
a socket or a symbolic link.

A module of its own (no import beyond the standard library) rather than more lines in the
long ``views.framework``.
"""

from __future__ import annotations

import contextlib
import os
import pathlib
import secrets
import stat

__all__ = ["PARTIAL_GLOB", "atomic_path", "check_target"]

#: Name pattern of the files ``atomic_path`` writes before they are complete (hidden).
PARTIAL_GLOB = ".*.partial*"


_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link"))


def check_target(path, name: str = "path") -> pathlib.Path:
    """``path`` if a file may be written there: nothing is there or a regular file is;
    otherwise ``ValueError`` naming ``name`` (``-o``) and what is there ("-o '/dev/null' is a
    character device, not a regular file"). A symbolic link is refused whatever it points to
    (writing through it would reach a file the caller did not name; replacing it would lose
    the link)."""
    path = pathlib.Path(path)
    try:
        mode = os.lstat(path).st_mode
    except FileNotFoundError:
        return path
    except OSError as exc:  # a parent that is not a directory, a denied search
        raise ValueError(f"{name} {str(path)!r} cannot be written: {exc.strerror}") from None
    if stat.S_ISREG(mode):
        return path
    kind = next((what for test, what in _KINDS if test(mode)), "not a file")
    if stat.S_ISLNK(mode):
        kind += f" (to {os.readlink(path)!r})"
    raise ValueError(f"{name} {str(path)!r} is {kind}, not a regular file: only regular files "
                     "are written, never replaced")


@contextlib.contextmanager
def atomic_path(path):
    """Write a file all at once or not at all: yields a temporary path beside ``path`` (same
    directory, so the rename is atomic; hidden, with ``path``'s suffix so writers that go by
    it still work) and renames it onto ``path`` when the block ends without an exception and
    ``path`` is still absent or a regular file (``check_target``, before and after writing:
    ``ValueError`` otherwise, and nothing is replaced).

    A reader of ``path`` sees the old file or the new one, never half of one; a failure leaves
    the old file and no temporary; a process killed while writing leaves only a temporary
    matching ``PARTIAL_GLOB``, which its next run may delete (the gallery does).
    """
    path = check_target(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.stem}.{secrets.token_hex(4)}.partial{path.suffix}")
    try:
        yield partial
        check_target(path)
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
