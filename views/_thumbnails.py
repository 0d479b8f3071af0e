"""Write the home page's card thumbnails: ``python -m views._thumbnails``.

Each thumbnail is the first panel of the explorer's default figure, exported through the same
matplotlib path as ``export`` (so a thumbnail always shows what the page computes), at card size.
Run it again after changing an explorer's first plot or defaults.
"""

from __future__ import annotations

import pathlib
import sys

import holoviews as hv

from views import EXPLORERS
from views.framework.figure import export_figure, export_styles

THUMBNAILS = pathlib.Path(__file__).resolve().parent.parent / "assets" / "thumbnails"


def write_thumbnail(slug: str, folder: pathlib.Path = THUMBNAILS) -> pathlib.Path:
    explorer = EXPLORERS[slug]()
    with export_styles():
        element = explorer.element(explorer.plots[0])
    element = element.opts(fig_inches=3.0, aspect=1.5, title="", xaxis=None, yaxis=None,
                           show_legend=False, backend="matplotlib")
    return export_figure(hv.Layout([element]).opts(sublabel_format="", backend="matplotlib"),
                         folder / f"{slug}.png")


def main(argv: list[str]) -> None:
    for slug in argv or list(EXPLORERS):
        print(write_thumbnail(slug))


if __name__ == "__main__":
    main(sys.argv[1:])
