"""Building one gallery entry, a pure task that runs on any worker: the page with the entry's
settings, its runs, its figure (PNG, PDF), the numbers behind every panel, its claim's verdict
and its study; and the cache key that says when a stored build is still good."""

from __future__ import annotations

import dataclasses
import hashlib
import inspect
import io
import json
import os
import pathlib
import tempfile
import time

import numpy as np

from views.figures.entry import Entry
from views.figures.gallery import ENTRIES

#: The repository: ``dynamics/`` and ``views/`` below it are the code a figure depends on.
ROOT = pathlib.Path(__file__).resolve().parents[2]
#: The folders whose Python source can change a figure or a verdict, subpackages included.
SOURCES = ("dynamics", "views")


def code_version(root: pathlib.Path | None = None) -> str:
    """A hash of every Python file under ``dynamics/`` and ``views/`` (subpackages too, by
    path): a cached build made with other code is redone."""
    root = ROOT if root is None else pathlib.Path(root)
    digest = hashlib.sha256()
    for folder in SOURCES:
        for path in sorted((root / folder).rglob("*.py")):
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_key(entry: Entry, quick: bool, seed: int | None, version: str) -> str:
    text = repr((entry.id, sorted(entry.settings(quick, seed).items()), quick, version))
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def _plain(value):
    """A verdict's number as JSON takes it (numpy scalars and arrays)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    return str(value)


def _grid_netcdf(layer) -> bytes:
    """An image's labelled grid as netCDF (xarray; scipy's netCDF-3 writer)."""
    import xarray as xr

    x, y, z = (d.name for d in layer.dimensions()[:3])
    xs = layer.dimension_values(0, expanded=False)
    ys = layer.dimension_values(1, expanded=False)
    values = layer.dimension_values(2, flat=False)
    array = xr.DataArray(np.asarray(values, dtype=float), coords={y: ys, x: xs}, dims=(y, x),
                         name=z, attrs={"long_name": layer.dimensions()[2].pprint_label})
    return bytes(array.to_dataset().to_netcdf(engine="scipy"))


def _tables(layout) -> dict[str, str | bytes]:
    """The numbers behind every panel: one file per element (panel and layer), images as
    netCDF grids, everything else as CSV."""
    import holoviews as hv

    tables: dict[str, str | bytes] = {}
    for p, panel in enumerate(layout):
        layers = list(panel) if isinstance(panel, hv.Overlay) else [panel]
        title = str(panel.opts.get("plot", "matplotlib").kwargs.get("title", "") or "")
        for k, layer in enumerate(layers):
            stem = f"panel{p + 1}_layer{k + 1}"
            if isinstance(layer, hv.Image):
                tables[f"{stem}.nc"] = _grid_netcdf(layer)
                continue
            try:
                frame = layer.dframe()
            except Exception:  # noqa: BLE001 - an element without tabular data (a label)
                continue
            buffer = io.StringIO()
            buffer.write(f"# {title} / {type(layer).__name__} {layer.label}\n")
            frame.to_csv(buffer, index=False)
            tables[f"{stem}.csv"] = buffer.getvalue()
    return tables


#: Topic of the dask event log on which entries built on workers report their progress.
PROGRESS_TOPIC = "ldx-figures-progress"


def _worker_progress(entry_id: str):
    """On a dask worker: a progress callable that sends (entry, fraction, message) to the
    client through the worker's event log (``run`` subscribes), at most twice a second."""
    try:
        from distributed import get_worker

        worker = get_worker()
    except (ImportError, ValueError):  # not on a dask worker
        return None
    last = [0.0]

    def progress(fraction, message):
        now = time.monotonic()
        if now - last[0] >= 0.5 or fraction >= 1.0:
            last[0] = now
            worker.log_event(PROGRESS_TOPIC, (entry_id, float(fraction), str(message)))
    return progress


def build(entry_id: str, quick: bool = False, seed: int | None = None,
          progress=None) -> dict:
    """Compute one entry: its figure as PNG and PDF bytes, its tables, and its claim's verdict
    on the explorer's results (``Entry.judge``: the paper's statement, what we measured, the
    outcome; its numbers in ``verdict.json``). Pure: the same arguments give the same files.
    ``progress(fraction, message)`` hears the entry's runs and study as they go (on a dask
    worker, by default, the client)."""
    from views import EXPLORERS
    from views.framework import export_figures

    entry = ENTRIES[entry_id]
    started = time.perf_counter()
    cls = EXPLORERS[entry.slug]
    knobs = entry.settings(quick, seed)
    if "seed" in knobs and "seed" not in cls.param:
        knobs.pop("seed")
    explorer = cls(**knobs)
    progress = progress or _worker_progress(entry_id)
    stages = len(entry.runs) + (entry.study is not None)

    def stage(k: int, name: str):
        if progress is None:
            return None
        return lambda fraction, message, **_: progress((k + fraction) / stages,
                                                       f"{name}: {message}")

    for k, run in enumerate(entry.runs):
        explorer.jobs[run].compute(progress=stage(k, run))
    layout = explorer.figure(only=entry.panels)
    files = {}
    with tempfile.TemporaryDirectory() as tmp:
        paths = export_figures(layout, [os.path.join(tmp, entry_id + suffix)
                                        for suffix in (".png", ".pdf")], title=entry.title)
        for path in paths:
            files[path.suffix] = path.read_bytes()
    verdict = entry.judge(explorer)
    tables = _tables(layout)
    tables["verdict.json"] = json.dumps(dataclasses.asdict(verdict), indent=1, ensure_ascii=False,
                                        default=_plain) + "\n"
    details = ""
    if entry.study is not None:
        # a study that takes the explorer reads the entry's runs too (what it differs by)
        more = ({"explorer": explorer}
                if "explorer" in inspect.signature(entry.study).parameters else {})
        study = entry.study(quick, 0 if seed is None else seed, progress=stage(stages - 1,
                                                                               "study"), **more)
        details = study["markdown"]
        tables.update(study["tables"])
        tables["DIFFERENCES.md"] = f"# {entry.title}: where we differ from the paper\n\n" + details
    return dict(id=entry_id, png=files[".png"], pdf=files[".pdf"], tables=tables,
                claim=verdict.claim, statement=verdict.statement, ours=verdict.measured,
                verdict=verdict.outcome, power=verdict.power_line, details=details, settings=knobs,
                seconds=time.perf_counter() - started)
