"""Long computations on a page (learning runs, experiments) as jobs: one mechanism for every
explorer.

A page's model declares what it offers with ``Run`` (class attribute ``runs``) and gets one
``Job`` per run (no Panel in it); on the served page ``views.framework.job_section.JobSection``
draws it: the run's settings, Run and Cancel buttons, a
progress bar with status text, an alert when a run fails, and the run's panels, which grow while
it runs (the engine's partial results, see ``dynamics.checks.report``) and keep the last result
on screen. In the served app the computation runs in a worker process (``views.framework.worker``), so
that it never holds the server's interpreter lock against the pages' moves; elsewhere in a
worker thread. Either way the page answers meanwhile; every update of the page happens on the
session's event loop.

- A newer request supersedes an older one: the older is cancelled (its progress callable raises
  ``dynamics.checks.Cancelled`` at the engine's next report) and whatever it returns is never
  shown.
- Results are cached per settings across sessions, in the pages' one results store with a
  byte budget (``views.framework.cache``): asking again is instant.
- A failing run shows an alert; the previous result stays.
- Time estimates are measured on this machine: while a run goes, from its own progress
  (``Remaining``); before it starts, the page's estimate (``Run.estimate``, seconds on the
  development machine) corrected by how long the same run took against its estimate on this
  server before, or until a run finished, by this machine's speed (``machine_speed``, a
  calibration timed at most every two minutes; see ``measured_estimate``).
- A run belongs to its session (``job.session``, the ``views.framework.session.SessionWatch``
  its page sets): it is cancelled when the session's tab is
  closed or the session is destroyed, and every run is cancelled when the server stops
  (``cancel_all``, from ``app/app_hooks.py``); computations run in daemon threads, so nothing
  keeps a stopping server alive.
"""

from __future__ import annotations

import asyncio
import functools
import threading
import time
import weakref
import numpy as np
import param

from dynamics.checks import Cancelled
from views.framework import worker as _worker
from views.framework.cache import LOCK, STORE
from views.framework.runs import Run

__all__ = ["Run", "Job", "Remaining", "cached_result", "in_daemon_thread",
           "measured_estimate", "machine_speed", "progress_part", "cancel_all"]

#: Finished results kept across sessions, by ("job", page, run, settings), among the pages'
#: results (one byte budget for all, see ``views.framework.cache``).
_CACHE = STORE
_CACHE_LOCK = LOCK
#: How often a running job's progress reaches the page (seconds).
REFRESH = 0.25
#: How often its partial result is drawn (seconds): redrawing a run's panels takes the
#: server's event loop, which the other knobs' moves need.
PARTIAL_EVERY = 1.0


class Remaining:
    """The seconds left of a running computation, from its own progress rate on this machine
    and, early in the run, the time expected before it started.

    The rate is measured over the recent half of the time since the run's first progress
    report (what came before, building the data and loading kernels, is not part of it; and an
    engine's fraction is not always proportional to its work, so the recent rate is the better
    guide): from the report ``(f1, t1)`` nearest that half-way time to now ``(f, t)``, the run
    ends at ``t + (1 - f) (t - t1) / (f - f1)``. Given ``expected`` (the run's estimated
    seconds, see ``measured_estimate``), the end it implies for the work left,
    ``t + (1 - f) expected``, is blended in with weight ``1 - f / PRIOR_UNTIL`` (none once
    ``PRIOR_UNTIL`` of the work is done): the first part of a run is often not like the rest
    (the cheap models of a sweep first), and by half of it the run's own rate is the better
    guide (the expected time can be off: a calibration timed on a busy machine). That end is
    smoothed (exponentially, weight ``SMOOTHING`` for the newest) and the time to it is what is
    left. Without ``expected``, None until
    ``MIN_FRACTION`` of the work and ``MIN_SECONDS`` have passed since the first report."""

    SMOOTHING = 0.3
    MIN_FRACTION = 0.02
    MIN_SECONDS = 1.0
    PRIOR_UNTIL = 0.5

    def __init__(self, expected: float | None = None):
        self._reports: list[tuple[float, float]] = []
        self.end: float | None = None
        self.expected = expected if expected is not None and expected > 0 else None

    def update(self, fraction: float, elapsed: float) -> float | None:
        reports = self._reports
        reports.append((fraction, elapsed))
        f0, t0 = reports[0]
        prior = (None if self.expected is None
                 else elapsed + (1 - fraction) * self.expected)
        if fraction - f0 < self.MIN_FRACTION or elapsed - t0 < self.MIN_SECONDS:
            end = prior
        else:
            middle = (t0 + elapsed) / 2
            f1, t1 = min(reports, key=lambda r: abs(r[1] - middle))
            if fraction - f1 < self.MIN_FRACTION / 4 or elapsed - t1 <= 0:
                f1, t1 = f0, t0  # too little progress lately to measure a rate: the whole run's
            end = elapsed + (1 - fraction) * (elapsed - t1) / (fraction - f1)
            if prior is not None:
                weight = max(0.0, 1.0 - fraction / self.PRIOR_UNTIL)
                end = weight * prior + (1 - weight) * end
        if end is None:
            return None
        self.end = end if self.end is None else (
            self.SMOOTHING * end + (1 - self.SMOOTHING) * self.end)
        return max(self.end - elapsed, 0.0)


#: Measured seconds over the page's estimate of finished runs on this server, by (page, run).
_RATIOS: dict = {}


def _record_ratio(explorer, run: "Run", settings: dict, seconds: float) -> None:
    if not run.has_estimate() or seconds <= 0:
        return
    try:
        estimated = float(run.estimate(dict(settings)))
    except Exception:  # noqa: BLE001 - an estimate that fails only means no correction
        return
    if estimated > 0:
        ratio = seconds / estimated
        old = _RATIOS.get((explorer.slug, run.key))
        # geometric mean with what was measured before: a ratio, so averaged on a log scale
        _RATIOS[(explorer.slug, run.key)] = ratio if old is None else (ratio * old) ** 0.5


def _calibration_work() -> None:
    """A fixed mix of what the engines spend time on: dense array arithmetic (NumPy and BLAS)
    and interpreted Python."""
    a = np.random.default_rng(0).standard_normal((300, 300))
    for _ in range(40):
        a = np.tanh(a @ a.T / 300.0)
    total = 0
    for i in range(600_000):
        total += i * i


#: Best-of seconds of ``_calibration_work`` on the development machine (2 shared cores, where
#: the pages' estimates were measured), idle: the reference of ``machine_speed``.
CALIBRATION_SECONDS = 0.039
#: How far ``machine_speed`` may scale an estimate (a disturbed calibration stays bounded).
SPEED_BOUNDS = (0.25, 8.0)


#: How long a calibration stands (seconds): one timed while the server started (other threads
#: importing, pages drawn) read 1.8x against 1.16x a minute later.
CALIBRATION_EVERY = 120.0
_speed: list = []  # [(when, speed)], the last calibration


def machine_speed() -> float:
    """How many times slower than the development machine this one runs the calibration work
    (``_calibration_work``, best of three: about 0.12 s), within ``SPEED_BOUNDS``; timed again
    when the last timing is older than ``CALIBRATION_EVERY``. Above 1 on a slower or busier
    machine."""
    now = time.monotonic()
    if not _speed or now - _speed[0][0] > CALIBRATION_EVERY:
        best = min(_timed(_calibration_work) for _ in range(3))
        _speed[:] = [(now, float(min(max(best / CALIBRATION_SECONDS, SPEED_BOUNDS[0]),
                                     SPEED_BOUNDS[1])))]
    return _speed[0][1]


def _timed(function) -> float:
    started = time.perf_counter()
    function()
    return time.perf_counter() - started


def measured_estimate(explorer, run: "Run", settings: dict) -> tuple[float, bool] | None:
    """The expected seconds of ``run`` with ``settings`` and whether runs that finished on this
    server measured them: the page's estimate times the measured/estimated ratio of the same
    run's finished runs here or, before one finished, times ``machine_speed()``; None when the
    run has no estimate."""
    if not run.has_estimate():
        return None
    seconds = float(run.estimate(dict(settings)))
    ratio = _RATIOS.get((explorer.slug, run.key))
    return (seconds * ratio, True) if ratio is not None else (seconds * machine_speed(), False)


def _left(seconds: float) -> str:
    if seconds < 90:
        return f"about {max(1, round(seconds))} s left"
    return f"about {seconds / 60:.0f} min left"


#: Every job of every live session, so that a stopping server cancels them all.
_JOBS: weakref.WeakSet = weakref.WeakSet()


def cancel_all() -> int:
    """Cancel every running job of every session (the server is stopping); returns how many
    were running."""
    running = [job for job in list(_JOBS) if job.running]
    for job in running:
        job.cancel()
    return len(running)


def in_daemon_thread(loop: asyncio.AbstractEventLoop, function, *args) -> asyncio.Future:
    """``function(*args)`` in a new daemon thread, as a future of ``loop``. Unlike the loop's
    default executor, whose threads the interpreter joins at exit, a daemon thread does not keep
    a server that was told to stop (SIGTERM) alive until the computation ends."""
    future = loop.create_future()

    def settle(result, exc):
        if not future.done():
            if exc is not None:
                future.set_exception(exc)
            else:
                future.set_result(result)

    def work():
        try:
            result, exc = function(*args), None
        except BaseException as error:  # noqa: BLE001 - handed to the awaiting coroutine
            result, exc = None, error
        try:
            loop.call_soon_threadsafe(settle, result, exc)
        except RuntimeError:  # the loop is closed: the server stopped, nobody waits
            pass

    threading.Thread(target=work, name="ldx-job", daemon=True).start()
    return future


def progress_part(progress, lo: float, hi: float, what: str):
    """``progress`` for one part of a run that calls several engines: fractions mapped into
    [lo, hi], messages prefixed with ``what`` (None stays None)."""
    if progress is None:
        return None
    return lambda fraction, message: progress(lo + (hi - lo) * fraction, f"{what}: {message}")


def _cache_key(explorer, run: Run, settings: dict) -> tuple:
    # list-valued settings (a ListSelector's choice) as tuples, so that the key hashes
    return ("job", explorer.slug, run.key,
            *sorted((k, tuple(v) if isinstance(v, list) else v) for k, v in settings.items()))


def cached_result(explorer, run: Run, settings: dict):
    """The result of ``run`` with ``settings`` if some session computed it, else None."""
    with _CACHE_LOCK:
        return _CACHE.get(_cache_key(explorer, run, settings))


def _store(explorer, run: Run, settings: dict, result) -> None:
    with _CACHE_LOCK:
        try:
            _CACHE[_cache_key(explorer, run, settings)] = result
        except ValueError:  # larger than the whole budget: not kept
            pass


class Job(param.Parameterized):
    """One run on one page: its state, and the result it shows."""

    running = param.Boolean(False, doc="A computation is under way.")
    fraction = param.Number(0.0, bounds=(0.0, 1.0), doc="Fraction done of the running computation.")
    message = param.String("", doc="What the job is doing, or how it ended.")
    error = param.String("", doc="Why the last run failed (empty when it did not).")
    shown = param.Parameter(None, doc="The result on screen: the last finished one, or the "
                                      "running computation's partial result.")
    settings = param.Dict(None, allow_None=True, doc="The settings of the finished result.")
    result = param.Parameter(None, doc="The last finished result.")

    def __init__(self, explorer, run: Run, **params):
        super().__init__(**params)
        self.explorer, self.run = explorer, run
        #: The served session the job belongs to (its page's ``SessionWatch``, set by the
        #: ``Page``): its place in the worker processes' fair queue, and a gone session stops
        #: the run. None: no session (a script, a test).
        self.session = None
        self._token = 0
        self._cancel: threading.Event | None = None
        _JOBS.add(self)

    def current_settings(self) -> dict:
        return self.run.settings()

    # --- running -------------------------------------------------------------------------------
    def _progress_callable(self, cancel: threading.Event, latest: dict):
        def progress(fraction, message, partial=None):
            if cancel.is_set():
                raise Cancelled()
            latest.update(fraction=float(fraction), message=str(message))
            if partial is not None:
                latest["partial"] = partial
        return progress

    def _compute(self, settings: dict, progress):
        return self.run.compute(dict(settings), progress)

    def compute(self, progress=None):
        """Run (or fetch from the cache) with the current settings, blocking, and show the
        result: for scripts and tests. ``progress`` gets the engine's reports."""
        settings = self.current_settings()
        result = cached_result(self.explorer, self.run, settings)
        if result is None:
            result = self._compute(settings, progress)
            _store(self.explorer, self.run, settings, result)
        self._finish(settings, result, 0.0)
        return result

    def cancel(self) -> None:
        """Stop the running computation at the engine's next progress report."""
        if self._cancel is not None:
            self._cancel.set()

    async def start(self) -> None:
        """Run with the current settings in a worker process (served) or thread, showing progress and partial
        results on this event loop; a later ``start`` supersedes this one."""
        self._token += 1
        token = self._token
        self.cancel()  # supersede the run under way, if any
        cancel = threading.Event()
        self._cancel = cancel
        settings = self.current_settings()
        started = time.monotonic()
        hit = cached_result(self.explorer, self.run, settings)
        if hit is not None:
            self._finish(settings, hit, 0.0)
            self.message = "Already computed (cached): shown at once."
            return
        latest: dict = {}
        self.param.update(running=True, error="", fraction=0.0, message="Starting…")
        loop = asyncio.get_running_loop()
        if _worker.enabled():  # the served app: in a worker process
            knobs = {name: getattr(self.explorer, name) for name in self.explorer.knob_names()}
            future = in_daemon_thread(loop, functools.partial(
                _worker.run, session=self.session), type(self.explorer), knobs,
                self.run.key, settings, cancel, latest)
        else:
            future = in_daemon_thread(loop, self._compute, settings,
                                       self._progress_callable(cancel, latest))
        session = self.session
        expected = measured_estimate(self.explorer, self.run, settings)  # None: no estimate
        remaining = Remaining(expected[0] if expected is not None else None)
        drawn = 0.0  # when a partial result was last drawn
        while not future.done():
            await asyncio.wait({future}, timeout=REFRESH)
            if session is not None and not session.alive():
                cancel.set()  # nobody is left to see it: stop at the engine's next report
            if token == self._token and latest.get("queued"):  # its place in the queue;
                self.message = latest["message"]  # the run's time counts from its turn
                started = time.monotonic()
            elif token == self._token and latest:
                fraction = min(max(latest["fraction"], 0.0), 1.0)
                left = remaining.update(fraction, time.monotonic() - started)
                message = f"{100 * fraction:.0f} %: {latest['message']}"
                update = dict(fraction=fraction, message=message if left is None
                              else f"{message} ({_left(left)})")
                now = time.monotonic()
                if "partial" in latest and now - drawn >= PARTIAL_EVERY:
                    update["shown"] = latest.pop("partial")
                    drawn = now
                self.param.update(**update)
        try:
            result = future.result()
        except Cancelled:
            if token == self._token:
                self.param.update(running=False, shown=self.result,
                                  message="Cancelled; the last finished result is shown."
                                  if self.result is not None else "Cancelled.")
            return
        except Exception as exc:  # noqa: BLE001 - shown on the page; the server keeps running
            if token == self._token:
                self.param.update(running=False, shown=self.result, error=str(exc) or
                                  type(exc).__name__, message="Failed.")
            return
        _store(self.explorer, self.run, settings, result)
        seconds = time.monotonic() - started
        _record_ratio(self.explorer, self.run, settings, seconds)
        if token == self._token:
            self._finish(settings, result, seconds)

    def _finish(self, settings: dict, result, seconds: float) -> None:
        self.param.update(running=False, fraction=1.0, error="", settings=dict(settings),
                          result=result, shown=result,
                          message=f"Done in {seconds:.1f} s." if seconds else "Done.")
