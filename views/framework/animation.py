"""A page's timeline as an animation: GIF and MP4 (``Animator``, the model's ``animator``:
``Model.animate``; the served page's buttons that download them are ``views.framework.downloads``).

Frame k of an animation is the figure the page exports at time t_k of its timeline, its title
saying the time (drawn fast by ``views.framework.film.Film``). The format follows the path's
suffix: ``.gif`` (written by Pillow, with one palette for the whole animation, so that a frame
stores only the rectangle that changed since the one before) or ``.mp4`` (H.264, through
imageio and the ffmpeg that the imageio-ffmpeg wheel ships). On a served page the buttons
encode in a worker process (``views.framework.worker.call``, ``animation_task``), the button
showing the progress.
"""

from __future__ import annotations

import math
import numbers
import os
import pathlib
import tempfile

import numpy as np

from views.framework import stamp
from views.framework.files import atomic_path
from views.framework.film import ANIMATION_DPI, Film, frame_title
from views.framework.remote import restore

__all__ = ["ANIMATION_FORMATS", "DEFAULT_FRAMES", "MAX_FRAMES", "DEFAULT_FPS", "MAX_FPS",
           "ANIMATION_DPI", "Animator", "animation_task", "frame_indices", "frame_title", "check_run",
           "check_panels", "landscape_columns"]

#: Formats ``animate`` writes, by file suffix.
ANIMATION_FORMATS = (".gif", ".mp4")
#: Frames of an animation by default (fewer when the timeline has fewer), and the most asked:
#: a GIF's frames are held in memory until it is written (about 1 MB each for herding).
DEFAULT_FRAMES, MAX_FRAMES = 100, 600
#: Frames per second by default, and the most (a GIF counts time in hundredths of a second).
DEFAULT_FPS, MAX_FPS = 10, 50
#: Quality of the MP4's H.264 (imageio's 0-10 scale; 8 keeps the text sharp).
MP4_QUALITY = 8
#: A GIF palette's colour within this of white (black) in every channel becomes white (black).
PURE = 12


def _check_fps(fps) -> float:
    if isinstance(fps, (bool, np.bool_)) or not isinstance(fps, numbers.Real):
        raise TypeError(f"fps must be a number of frames per second in (0, {MAX_FPS}], got "
                        f"{fps!r} of type {type(fps).__name__}")
    value = float(fps)
    if not (math.isfinite(value) and 0 < value <= MAX_FPS):
        raise ValueError(f"fps must be a number of frames per second in (0, {MAX_FPS}], got "
                         f"{fps!r}")
    return value


def check_run(explorer, run) -> str | None:
    """``run`` of ``animate``: None (the page's timeline) or the name of one of the page's
    runs that has a timeline and a result to show; ``ValueError`` or ``TypeError`` naming
    ``run`` otherwise."""
    if run is None:
        return None
    timed = [r.key for r in explorer.runs if r.timeline is not None]
    if not isinstance(run, str):
        raise TypeError(f"run must be None or the name of a run with a timeline "
                        f"({', '.join(timed) or 'this page has none'}), got {run!r} of type "
                        f"{type(run).__name__}")
    if run not in timed:
        raise ValueError(f"run must be None or the name of a run of the {explorer.title} page "
                         f"with a timeline ({', '.join(timed) or 'it has none'}), got {run!r}")
    if explorer.jobs[run].shown is None:
        raise ValueError(f"run {run!r} has no result to animate yet: compute it first "
                         f"(explorer.jobs[{run!r}].compute())")
    return run


def frame_indices(explorer, frames=None, run=None) -> np.ndarray:
    """The timeline frames (indices into ``explorer.frames(run)``) an animation shows, from
    ``animate``'s ``frames``: None, ``DEFAULT_FRAMES`` of them (or every one of a shorter
    timeline); a whole number n, n frames; both evenly spaced over the page's frames, first
    and last included, so spaced in time as the page's own frames are (every step, or the
    run's checkpoints); or a sequence of times, each drawn as the page draws it (its last
    frame at or before the time). ``ValueError`` or ``TypeError`` naming ``frames``.
    ``run``: the frames of that run's own timeline (``check_run``)."""
    run = check_run(explorer, run)
    if run is None and explorer.timeline is None:
        raise ValueError(f"the {explorer.title} page has no timeline to animate (pages with "
                         "a time axis do)")
    page = explorer.frames(run)
    if page is None:
        raise ValueError(f"the {explorer.title} page has no result to animate")
    count = len(page)
    if frames is None:
        return _spaced(count, min(DEFAULT_FRAMES, count))
    if isinstance(frames, (bool, np.bool_, str, bytes)):
        raise TypeError(f"frames must be None, a number of frames or a sequence of times, got "
                        f"{frames!r}")
    if isinstance(frames, numbers.Integral):
        most = min(count, MAX_FRAMES)
        if not 1 <= int(frames) <= most:
            raise ValueError(f"frames must be a number of frames from 1 to {most} (the "
                             f"timeline has {count:,} frames, an animation at most "
                             f"{MAX_FRAMES}), got {int(frames)}")
        return _spaced(count, int(frames))
    if isinstance(frames, numbers.Number):
        raise TypeError(f"frames must be None, a whole number of frames or a sequence of "
                        f"times, got {frames!r}")
    try:
        times = np.asarray(list(frames))
    except TypeError:
        raise TypeError(f"frames must be None, a number of frames or a sequence of times, "
                        f"got {frames!r} of type {type(frames).__name__}") from None
    if times.ndim != 1 or len(times) == 0:
        raise ValueError(f"frames must be a non-empty sequence of times, got {frames!r}")
    if times.dtype.kind not in "iu":
        raise TypeError(f"frames must hold whole numbers (times on the timeline), got "
                        f"{times.dtype} values")
    if len(times) > MAX_FRAMES:
        raise ValueError(f"frames must hold at most {MAX_FRAMES} times, got {len(times):,}")
    lo, hi = int(page.t[0]), int(page.t[-1])
    outside = times[(times < lo) | (times > hi)]
    if len(outside):
        raise ValueError(f"frames must be times from {lo:,} to {hi:,} (the timeline's), got "
                         f"{int(outside[0]):,}")
    return np.searchsorted(page.t, times, side="right") - 1


def check_panels(explorer, panels=None, run=None) -> tuple[str, ...]:
    """The panels an animation shows (plot method names, as ``figure(only=...)`` takes
    them), from ``animate``'s ``panels``: None, the panels that move in time (those with a
    mark of the timeline; a run's: all its panels); else a sequence of panel names of the
    page (a run's: of the run). ``ValueError`` or ``TypeError`` naming ``panels``."""
    if run is None:
        names = tuple(p.method for p in explorer.panels())
        marked = {m.plot for m in explorer.timeline.marks}
        moving = tuple(n for n in names if n in marked)
    else:
        names = moving = tuple(p.method for p in explorer.jobs[run].run.plots)
    if panels is None:
        return moving or names
    if isinstance(panels, str) or not isinstance(panels, (list, tuple)):
        raise TypeError(f"panels must be None or a tuple of panel names ({', '.join(names)}), "
                        f"got {panels!r} of type {type(panels).__name__}")
    if not panels or len(set(panels)) != len(panels):
        raise ValueError(f"panels must name at least one panel, each once, of "
                         f"{', '.join(names)}; got {panels!r}")
    for name in panels:
        if not isinstance(name, str):
            raise TypeError(f"panels must hold panel names (text), got {name!r} of type "
                            f"{type(name).__name__}")
        if name not in names:
            raise ValueError(f"panels must be panels of the {explorer.title} page "
                             f"({', '.join(names)}), got {name!r}")
    return tuple(panels)


def landscape_columns(count: int) -> int:
    """Panels a row of an animation of ``count`` panels: at most four a row, in as few rows
    as that takes, spread evenly over them; a row wider than the rows are tall (landscape)."""
    rows = -(-count // 4)
    return -(-count // rows)


def _spaced(count: int, n: int) -> np.ndarray:
    """``n`` indices evenly spaced over ``range(count)``, first and last included."""
    return np.rint(np.linspace(0, count - 1, n)).astype(int) if n > 1 else np.array([0])


# --- encoding -------------------------------------------------------------------------------


class _Palette:
    """RGB colours to the index of the nearest of a palette's (Euclidean in RGB; of equally
    near ones the first: the darkest red, then green, then blue in ``gif_palette``'s order),
    remembered for the next frames. Exactly the nearest: Pillow's own mapping goes through a
    coarse cache, which put white paper on a grey (252) entry beside white."""

    def __init__(self, entries: np.ndarray):
        self.entries = np.asarray(entries, dtype=np.int32).reshape(-1, 3)
        self._found = np.full(1 << 24, -1, dtype=np.int16)  # by colour 0xRRGGBB

    def indices(self, rgb: np.ndarray) -> np.ndarray:
        packed = ((rgb[..., 0].astype(np.int32) << 16) | (rgb[..., 1].astype(np.int32) << 8)
                  | rgb[..., 2])
        found = self._found[packed]
        if found.min() < 0:
            new = np.unique(packed[found < 0])
            for start in range(0, len(new), 4096):  # a few MB of distances at a time
                chunk = new[start:start + 4096]
                colors = np.stack([chunk >> 16, (chunk >> 8) & 255, chunk & 255], axis=1)
                distance = ((colors[:, None, :] - self.entries[None]) ** 2).sum(axis=2)
                self._found[chunk] = np.argmin(distance, axis=1)
            found = self._found[packed]
        return found.astype(np.uint8)


def gif_palette(frames: list[np.ndarray]) -> np.ndarray:
    """The palette of a GIF (at most 256 RGB rows, sorted) for these frames: their median cut,
    the colours nearest white and black made exactly white and black (the paper and the ink;
    averaged with their antialiased edges they came out grey)."""
    from PIL import Image

    cut = Image.fromarray(np.vstack(frames)).quantize(colors=256, dither=Image.Dither.NONE)
    entries = np.asarray(cut.getpalette(), dtype=int).reshape(-1, 3)
    for pure in (255, 0):
        k = int(np.argmin(np.abs(entries - pure).max(axis=1)))
        if np.abs(entries[k] - pure).max() <= PURE:
            entries[k] = pure
    return np.unique(entries, axis=0).astype(np.uint8)


def _write_gif(film: Film, indices, path, fps: float, state: str, progress) -> None:
    """A GIF of one palette (``gif_palette`` of the first, middle and last frames), each
    frame held by Pillow as palette indices until the file is written. Pillow stores a frame
    as the rectangle that changed since the one before, in the colours it uses, what did not
    change in it transparent."""
    from PIL import Image

    entries = gif_palette([film.draw(int(indices[k])) for k in
                           sorted({0, len(indices) // 2, len(indices) - 1})])
    palette = _Palette(entries)
    images = []
    for k, i in enumerate(indices):
        image = Image.fromarray(palette.indices(film.draw(int(i))), mode="P")
        image.putpalette(entries.ravel().tolist())
        images.append(image)
        _report(progress, k + 1, len(indices))
    images[0].save(path, format="GIF", save_all=True, append_images=images[1:], loop=0,
                   duration=round(1000 / fps), comment=state.encode())


def _write_mp4(film: Film, indices, path, fps: float, state: str, progress) -> None:
    """An H.264 MP4 (yuv420p, which needs an even width and height: a last row or column of
    the figure's white margin is left out)."""
    import imageio.v2 as imageio

    writer = imageio.get_writer(path, format="FFMPEG", mode="I", fps=fps, codec="libx264",
                                quality=MP4_QUALITY, pixelformat="yuv420p", macro_block_size=1,
                                ffmpeg_log_level="error",
                                output_params=["-metadata", f"comment={state}"])
    try:
        for k, i in enumerate(indices):
            frame = film.draw(int(i))
            height, width = frame.shape[:2]
            writer.append_data(np.ascontiguousarray(frame[:height - height % 2,
                                                          :width - width % 2]))
            _report(progress, k + 1, len(indices))
    finally:
        writer.close()


def _report(progress, done: int, total: int) -> None:
    if progress is not None:
        progress(done / total, f"frame {done:,} of {total:,}")


def run_state(explorer, run: str | None) -> str:
    """The state an animation carries: the page's (without the time), and for a run's
    timeline the run's name (``run=``, which ``ldx-export`` reads to compute the run)."""
    state = stamp.state_text(explorer, time=False)
    if run is None:
        return state
    query, _, version = state.rpartition(";")
    return f"{query}&run={run};{version}"


def run_file_stem(explorer, run: str | None) -> str:
    """An animation's file name without suffix: the page's (``stamp.file_stem`` without the
    time), and the run's name for a run's timeline."""
    stem = stamp.file_stem(explorer, time=False)
    return stem if run is None else f"{stem}_run-{run}"


def write_animation(explorer, path, *, frames=None, fps=DEFAULT_FPS, run=None,
                    progress=None, panels=None) -> pathlib.Path:
    """``Model.animate``, and ``progress(fraction, message)`` after each frame."""
    path = pathlib.Path(path)
    suffix = path.suffix.lower()
    if suffix not in ANIMATION_FORMATS:
        raise ValueError(f"path must end in one of {', '.join(ANIMATION_FORMATS)}, got "
                         f"{str(path)!r}")
    fps = _check_fps(fps)
    run = check_run(explorer, run)
    indices = frame_indices(explorer, frames, run)
    panels = check_panels(explorer, panels, run)
    state = run_state(explorer, run)
    film = Film(explorer, indices, run=run, panels=panels,
                columns=landscape_columns(len(panels)))
    try:
        with atomic_path(path) as partial:
            write = _write_gif if suffix == ".gif" else _write_mp4
            write(film, indices, partial, fps, state, progress)
    finally:
        film.close()
    return path


class Animator:
    """The model's animations of its timeline (``model.animator``; ``Model.animate`` and
    ``Model.animation_bytes`` are its methods). Uses only the model's public names."""

    def __init__(self, model):
        self.model = model

    def animate(self, path, *, frames=None, fps=DEFAULT_FPS, run=None,
                panels=None) -> pathlib.Path:
        """Write the page's timeline as an animation: frame k is the figure ``export`` writes
        at time t_k (drawn with matplotlib at ``ANIMATION_DPI``) of the panels that move in
        time, at most four a row (landscape), its title naming the page, the settings and
        t_k. It starts at t = 0 and builds up as the page does: what has not happened by t_k
        is not drawn. ``panels``: these panels only (plot method names, as
        ``figure(only=...)`` takes them), e.g. ``panels=("cones_plot",)``. The format follows the suffix of ``path``: ``.gif`` or ``.mp4``
        (else ``ValueError``). The file carries the page's state (without the time) like an
        export: a GIF in its comment, an MP4 in its ``comment`` metadata.

        ``frames``: None for ``DEFAULT_FRAMES`` frames (all of a timeline with fewer); a whole
        number n for n frames (at most ``MAX_FRAMES`` and the timeline's); both evenly spaced
        over the page's timeline frames, first and last included, so spaced in time as the
        page's frames are (every step, or the run's checkpoints, log-spaced on some pages);
        or a sequence of times (whole numbers within the run, at most ``MAX_FRAMES``), each
        drawn as the page draws it (its last frame at or before the time). ``fps``: frames per
        second, in (0, ``MAX_FPS``]. A bad value is a ``ValueError`` (a wrong type a
        ``TypeError``) naming the parameter. Consecutive frames that are the same picture are
        stored once in a GIF, shown for their total time.

        ``run``: animate that run's own timeline instead (the DSG run's steps, an SBEED
        episode): its panels (``figure(only=...)``) at each of its times, once the run has a
        result (``explorer.jobs[run].compute()``); its name is in the file's state
        (``run=``), so ``ldx-export --from`` computes the run and rebuilds the animation.

        Only pages with a timeline animate. Returns ``path``, written whole or not at all."""
        return write_animation(self.model, path, frames=frames, fps=fps, run=run,
                               panels=panels)

    def animation_bytes(self, suffix: str, progress=None, run=None) -> bytes:
        """The default animation (``animate``) as bytes (the page's download buttons)."""
        with tempfile.TemporaryDirectory() as tmp:
            out = write_animation(self.model, os.path.join(tmp, f"{self.model.slug}{suffix}"),
                                  run=run, progress=progress)
            return out.read_bytes()


# --- in a worker process --------------------------------------------------------------------


def animation_task(explorer, args, progress):
    """In a worker process (``views.framework.worker.call``): the page's animation as bytes,
    over the zoom windows the page shows; a run's, from the result the page shows (sent
    along: the worker does not compute it again)."""
    suffix, state, run = args
    restore(explorer, state)
    return explorer.animation_bytes(suffix, progress=progress, run=run)
