"""Every paper figure the project reproduces, from one command, with the paper's statement or
number beside ours: ``python -m views.figures`` (or ``ldx-figures``).

Each entry of ``ENTRIES`` is one figure or table of a source paper: an explorer with the paper's
settings (``knobs``; ``quick`` shrinks them for tests and CI), the runs it needs, the panels that
make the figure, and ``judge``, which calls the entry's claim function in ``dynamics`` (the one
the page calls) on the explorer's results: the paper's statement, what we measured and the
verdict ("reproduced", or "differs" and how). The command writes, per entry, ``<id>.png`` and
``<id>.pdf``, the numbers behind every panel in ``<id>/`` (CSV; images as netCDF grids through
xarray) with the verdict's numbers (``verdict.json``), and for all of them ``index.html`` (a
gallery) and ``REPORT.md`` (paper against ours, with verdicts).

Entries are tasks of one sweep (``dynamics.sweep``): by default on a local dask.distributed
cluster (one worker process per core) started and stopped here; ``--scheduler ADDRESS`` sends
them to a running cluster, ``--serial`` runs them in this process. An entry's result is a pure
function of its settings, so the files are the same whichever way it ran. Finished entries are
cached in ``<out>/.cache`` under a key of the entry's settings and the code's version (a hash of
every Python file under ``dynamics/`` and ``views/``, subpackages included): a re-run redoes only
what changed. Every file is written whole or not at all, and an entry's record after its files
(``files``), so a run killed in the middle and started again rebuilds only the entries that had
not finished.

A package: one module per paper, named by its record's key in ``dynamics.papers.PAPERS``
(``chen_welling``, ``steinhardt``, ``opper``, ``luo``, ``dai``), holds its entries, each beside
the page it uses; ``gallery`` collects them in the papers' order; ``entry``
is what an entry is, ``builder`` builds one (and the cache key), ``files`` and ``report`` write
the gallery, ``command`` is the command line.
"""

from __future__ import annotations

from views.figures.builder import PROGRESS_TOPIC, ROOT, build, cache_key, code_version
from views.figures.command import DEFAULT_OUT, main, run
from views.figures.entry import Entry
from views.figures.gallery import ENTRIES

__all__ = ["DEFAULT_OUT", "ENTRIES", "Entry", "PROGRESS_TOPIC", "ROOT", "build", "cache_key",
           "code_version", "main", "run"]
