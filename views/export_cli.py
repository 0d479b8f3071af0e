"""``ldx-export``: rebuild an exported figure from the page state it carries, or export a page
from a link's query; a ``.gif`` or ``.mp4`` output animates the page's timeline
(``Explorer.animate``).

    ldx-export --from herding_seed-7.png -o herding_seed-7.pdf
    ldx-export --query "page=herding&seed=7" -o herding.svg
    ldx-export --query "page=herding" -o herding.mp4 --frames 200 --fps 20
    ldx-export --query "page=dsg&run=curve" -o dsg_curve.gif   # a run's own timeline

A query's ``run`` (which an animation of a run's timeline carries) names a run of the page: it
is computed (blocking, with the page's settings) and its timeline animated.

The state is read with ``views.framework.stamp.read_state``; the page is built with
``Explorer.from_query``, exactly as the served app builds it from a link, and what the state
held that the page did not use is printed. Without ``-o`` the figure is written beside the
source under the name the page gives it.

A stranger's file is read within caps: ``--from`` reads a regular file of at most
``stamp.MAX_FILE_BYTES`` (50 MB), in time linear in its size, and refuses a PNG or GIF of more
than ``stamp.MAX_PIXELS`` pixels. ``-o`` writes a regular file only: a new name or an existing
regular file, which is replaced whole (``views.framework.files.atomic_path``); a directory, a
device node (``/dev/null``), a FIFO, a socket or a symbolic link is refused by name, never
replaced. Every message quoting a file, a link or a path escapes control characters
(``views.framework.text.printable``).
"""

from __future__ import annotations

import pathlib
import sys
import urllib.parse

from views import EXPLORERS
from views.framework import stamp
from views.framework.files import check_target
from views.framework.text import CommandParser, printable
from views.framework.knobs import CHOICE_CHARS, QUERY_CHARS, check_length
from views.framework.animation import (ANIMATION_FORMATS, DEFAULT_FPS, DEFAULT_FRAMES,
                                       run_file_stem)

__all__ = ["main", "explorer_from_query"]


def explorer_from_query(query: dict):
    """The explorer a query (``{name: [value]}``) describes, and the sentences of what it did
    not use; ``ValueError`` naming ``page`` for a query of no page."""
    page = (query.get("page") or [None])[-1]
    if page is not None:
        check_length("page", page, CHOICE_CHARS)
    if page not in EXPLORERS:
        raise ValueError(f"page must be one of {', '.join(EXPLORERS)}, got {page!r}")
    return EXPLORERS[page].from_query(query)


def main(argv=None) -> int:
    parser = CommandParser(prog="ldx-export", description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--from", dest="source", metavar="FIGURE",
                        help="an exported figure (.png, .svg, .pdf, .html) or animation (.gif, "
                             f".mp4) to rebuild: a regular file of at most "
                             f"{stamp.MAX_FILE_BYTES // 2**20} MB, an image of at most "
                             f"{stamp.MAX_PIXELS:,} pixels")
    source.add_argument("--query", help="a link's query, e.g. 'page=herding&seed=7'")
    parser.add_argument("-o", "--output",
                        help="the file to write (.png .svg .pdf .html, or .gif .mp4: the "
                             "timeline animated): a new name or a regular file, which is "
                             "replaced; a directory, device, FIFO, socket or symbolic link is "
                             "refused")
    parser.add_argument("--frames", type=int, default=None,
                        help=f"frames of an animation (default {DEFAULT_FRAMES}, or all of a "
                             "shorter timeline)")
    parser.add_argument("--fps", type=float, default=DEFAULT_FPS,
                        help=f"frames per second of an animation (default {DEFAULT_FPS})")
    args = parser.parse_args(argv)
    try:
        if args.output:  # refused before any work, and again when the file is renamed there
            check_target(args.output, "-o")
        if args.source is not None:
            query, version = stamp.read_state(args.source)
            if version != stamp.VERSION:
                print(f"note: the figure was written by version {printable(version)}, this is "
                      f"{stamp.VERSION}", file=sys.stderr)
        else:
            # bounded before it is read, as a served link is (``views.framework.knobs``)
            check_length("--query", args.query, QUERY_CHARS)
            query = urllib.parse.parse_qs(args.query, keep_blank_values=True)
        query = dict(query)
        run = (query.pop("run", None) or [None])[-1]
        if run is not None:
            check_length("run", run, CHOICE_CHARS)
        explorer, messages = explorer_from_query(query)
        if run is not None:
            if run not in explorer.jobs:
                raise ValueError(f"run must be one of the {explorer.title} page's runs "
                                 f"({', '.join(explorer.jobs) or 'it has none'}), got {run!r}")
            print(f"computing the run {printable(repr(run))} …", file=sys.stderr)
            explorer.jobs[run].compute()
    except ValueError as exc:
        parser.error(str(exc))
    for message in messages:
        print(f"note: {printable(message)}", file=sys.stderr)
    if args.output:
        output = pathlib.Path(args.output)
    else:
        base = pathlib.Path(args.source).parent if args.source else pathlib.Path(".")
        suffix = pathlib.Path(args.source).suffix if args.source else ".png"
        animated = suffix.lower() in ANIMATION_FORMATS
        output = base / (f"{run_file_stem(explorer, run)}{suffix}" if animated
                         else f"{stamp.file_stem(explorer)}{suffix}")
        if args.source and output.resolve() == pathlib.Path(args.source).resolve():
            output = output.with_name(f"{output.stem}-rebuilt{suffix}")  # never overwrite it
    try:
        if output.suffix.lower() in ANIMATION_FORMATS:
            explorer.animate(output, frames=args.frames, fps=args.fps, run=run)
        else:
            explorer.export(output)
    except (ValueError, TypeError) as exc:
        parser.error(str(exc))
    except OSError as exc:  # a folder that cannot be made or written, a full disk
        parser.error(f"{str(output)!r} could not be written: {exc.strerror or exc}")
    print(printable(output))
    return 0


if __name__ == "__main__":
    sys.exit(main())
