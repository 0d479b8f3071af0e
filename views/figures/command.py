"""``python -m views.figures`` (or ``ldx-figures``): build the gallery's entries, on a local
dask.distributed cluster, a running one, or in this process, and write the gallery."""

from __future__ import annotations

import asyncio
import os
import pathlib
import sys
import time

from views.figures.builder import PROGRESS_TOPIC, build, cache_key, code_version
from views.figures.files import load, remove_partials, store, write_entry
from views.figures.gallery import ENTRIES
from views.figures.report import write_report
from views.framework.text import CommandParser, printable

#: Where the gallery goes unless ``--out`` says otherwise.
DEFAULT_OUT = pathlib.Path("figures")


def _cluster(scheduler: str | None):
    """A dask.distributed Client: to ``scheduler``, or to a local cluster of one worker
    process per core (workers may start processes of their own: the HBM sweep does)."""
    import dask
    from distributed import Client, LocalCluster

    if scheduler:
        return Client(scheduler), None
    dask.config.set({"distributed.worker.daemon": False})
    cluster = LocalCluster(n_workers=os.cpu_count() or 1, threads_per_worker=1,
                           processes=True, dashboard_address=None)
    return Client(cluster), cluster


#: Seconds a local worker is given to exit on its own once the run is over.
WORKER_EXIT_S = 90


def _close(cluster) -> None:
    """Stop the local cluster, giving each worker ``WORKER_EXIT_S`` to exit on its own. The
    nanny's default (4 s, then it kills the process and logs a warning) was too short for a
    worker tearing down its heap of HoloViews, Bokeh and Matplotlib on a loaded machine: two
    ``distributed.nanny - WARNING ... killing`` lines ended normal runs. The nanny waits only as
    long as the worker takes; 30 s was still too short on a heavily loaded machine."""
    async def stop(nannies):
        await asyncio.gather(*(nanny.close(timeout=WORKER_EXIT_S) for nanny in nannies))

    cluster.sync(stop, list(cluster.workers.values()))
    cluster.close()


def run(ids: list[str], *, out: pathlib.Path, quick: bool, seed: int | None,
        executor=None, progress: bool = True) -> list[dict]:
    """Build the entries ``ids`` (cached ones are reused) on ``executor`` and write the
    gallery into ``out``; returns the results in the order of ``ids``. ``ValueError`` naming
    ``--out`` when ``out`` or its ``.cache`` is there but is not a folder."""
    from tqdm import tqdm

    from dynamics.sweep import sweep

    out = pathlib.Path(out)
    cache = out / ".cache"
    for folder in (out, cache):
        if folder.exists() and not folder.is_dir():
            raise ValueError(f"--out {str(out)!r}: {str(folder)!r} is there and is not a "
                             "folder; the gallery is written into a folder")
    out.mkdir(parents=True, exist_ok=True)
    cache.mkdir(exist_ok=True)
    remove_partials(out)  # what a killed run was writing; its finished entries have records
    version = code_version()
    keys = {i: cache_key(ENTRIES[i], quick, seed, version) for i in ids}
    results = {}
    for i in ids:
        record = load(cache, i, keys[i])  # only ever parsed as JSON: never run
        if record is not None:
            results[i] = record
    todo = [i for i in ids if i not in results]
    if progress and len(todo) < len(ids):
        print(f"figures: reused from {printable(cache)}: "
              f"{', '.join(i for i in ids if i in results)}", file=sys.stderr)
    bar = tqdm(total=len(ids), initial=len(ids) - len(todo), desc="figures", unit="figure",
               disable=not progress, file=sys.stderr)
    done_before = [0]

    running: dict[str, str] = {}
    ended: set[str] = set()  # a worker's report can arrive after its entry did

    def tick(fraction, message):
        done = int(round(fraction * len(todo)))
        bar.update(done - done_before[0])
        done_before[0] = done

    def show_running():
        bar.set_postfix_str("; ".join(running.values())[:150])

    def within(entry_id, fraction, message):
        """Progress inside the entries being built, shown after the bar."""
        if fraction >= 1.0 or entry_id in ended:
            running.pop(entry_id, None)
        else:
            running[entry_id] = f"{entry_id} {100 * fraction:.0f}% ({message})"
        show_running()

    tasks = [dict(entry_id=i, quick=quick, seed=seed) for i in todo]
    subscribed = progress and hasattr(executor, "subscribe_topic")
    if subscribed:  # entries on dask workers report through the event log
        executor.subscribe_topic(PROGRESS_TOPIC, lambda event: within(*event[1]))
    elif executor is None and progress:
        for t in tasks:
            t["progress"] = lambda f, m, i=t["entry_id"]: within(i, f, m)
    def finished(k, result):  # as each entry arrives: its files, then its record
        ended.add(todo[k])
        if running.pop(todo[k], None) is not None:  # no longer shown as running
            show_running()
        write_entry(out, result)
        store(cache, todo[k], keys[todo[k]], result)
        results[todo[k]] = result

    try:
        sweep(build, tasks, executor=executor, progress=tick, done=finished)
    finally:
        if subscribed:
            executor.unsubscribe_topic(PROGRESS_TOPIC)
        bar.close()
    ordered = [results[i] for i in ids]
    for r in ordered:
        write_entry(out, r)  # reused entries: only files missing or changed are written
    write_report(out, ordered, ENTRIES, quick=quick)
    return ordered


def _without_missing_simulator(ids: list[str]) -> list[str]:
    """``ids`` less the entries that run gymnasium's Swimmer where MuJoCo, an optional extra,
    is not installed, saying which were left out and how to enable them."""
    from dynamics.sbeed import swimmer

    if swimmer.installed():
        return ids
    left = [i for i in ids if any("swimmer" in run for run in ENTRIES[i].runs)]
    if left:
        print(f"figures: left out {', '.join(left)}: {swimmer.MISSING}", file=sys.stderr)
    return [i for i in ids if i not in left]


def main(argv: list[str] | None = None) -> int:
    parser = CommandParser(
        prog="ldx-figures", description="Regenerate the paper figures the project reproduces, "
        "with the paper's numbers beside ours (REPORT.md, index.html).")
    parser.add_argument("--only", action="append", metavar="ID",
                        help=f"entries to build (repeatable; a prefix such as 'dai.' selects "
                             f"several): {', '.join(ENTRIES)}")
    parser.add_argument("--quick", action="store_true",
                        help="small sizes (tests and CI) instead of the paper's")
    parser.add_argument("--out", type=pathlib.Path, default=DEFAULT_OUT,
                        help="output folder (default: ./figures): a folder or a new name; "
                        "files in it are written only where nothing or a regular file is")
    parser.add_argument("--seed", type=int, default=None,
                        help="seed for every entry that has one (default: the pages' seeds)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="a running dask.distributed scheduler to send the work to")
    where.add_argument("--serial", action="store_true", help="run in this process")
    args = parser.parse_args(argv)
    ids = list(ENTRIES)
    if args.only:
        ids = [i for i in ENTRIES if any(i == o or (o.endswith(".") and i.startswith(o))
                                         for o in args.only)]
        unknown = [o for o in args.only if not any(
            i == o or (o.endswith(".") and i.startswith(o)) for i in ENTRIES)]
        if unknown:
            parser.error(f"unknown entries {unknown}; known: {', '.join(ENTRIES)}")
    if args.seed is not None and args.seed < 0:
        parser.error("--seed must be >= 0")
    ids = _without_missing_simulator(ids)
    started = time.perf_counter()
    client = cluster = None
    try:
        if not args.serial:
            client, cluster = _cluster(args.scheduler)
        results = run(ids, out=args.out, quick=args.quick, seed=args.seed, executor=client)
    except ValueError as exc:  # an --out that is not a folder, a file there that is not regular
        parser.error(str(exc))
    except OSError as exc:  # a folder that cannot be made or written
        parser.error(f"--out {str(args.out)!r} could not be written: {exc.strerror or exc}")
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            _close(cluster)
    differs = [r["id"] for r in results if r["verdict"].startswith("differs")]
    unjudged = [r["id"] for r in results if r["verdict"].startswith("not decided")]
    print(f"{len(results)} entries in {printable(args.out)} ({time.perf_counter() - started:.0f} s); "
          f"reproduced {len(results) - len(differs) - len(unjudged)}, differs {len(differs)}"
          + (f": {', '.join(differs)}" if differs else "")
          + (f"; not decided {len(unjudged)}: {', '.join(unjudged)}" if unjudged else ""))
    return 0
