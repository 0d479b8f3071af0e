"""The gallery's entries, one module per paper, in the order the report lists them."""

from __future__ import annotations

from views.figures import chen_welling, dai, luo, opper, steinhardt
from views.figures.entry import Entry

#: Every entry by id: Chen & Welling, Steinhardt & Liang, Opper, Luo & Sugiyama, Dai.
ENTRIES: dict[str, Entry] = {e.id: e for paper in (chen_welling, steinhardt, opper, luo, dai)
                             for e in paper.ENTRIES}
