"""The served page's download buttons (``downloads``, built by ``views.framework.page.Page``):
one per export format, and on a page with a timeline GIF and MP4 (``animation_buttons``). On a
served page the file is made in a worker process (``views.framework.remote``), the button
showing its place in the queue and its progress; elsewhere here.
"""

from __future__ import annotations

import asyncio
import functools
import io

import panel as pn

from views.framework import stamp
from views.framework import worker as _worker
from views.framework.animation import (ANIMATION_FORMATS, DEFAULT_FPS, DEFAULT_FRAMES,
                                       animation_task, run_file_stem)
from views.framework.figure import EXPORT_FORMATS
from views.framework.page_workarounds import Text
from views.framework.remote import WIDTH, export_task, in_worker, page_state, show_progress

__all__ = ["downloads", "animation_buttons", "EXPORT_SIGN_S"]

#: Seconds an export button waits, its sign shown, before the drawing holds the server's loop
#: (long enough for the label's change to be written to the browser's websocket).
EXPORT_SIGN_S = 0.05


def downloads(page) -> pn.FlexBox:
    """One download button per export format, its file named after the page and the settings
    drawn (``views.framework.stamp.file_stem``); on a page with a timeline, GIF and MP4 too,
    the timeline animated (``animation_buttons``)."""
    model = page.model
    buttons = [
        pn.widgets.FileDownload(
            filename=f"{stamp.file_stem(model)}{s}",
            label=s[1:].upper(), color="light", width=WIDTH, embed=False,
        )
        for s in EXPORT_FORMATS
    ]
    for button, suffix in zip(buttons, EXPORT_FORMATS):
        button.callback = functools.partial(_export_with_sign, page, suffix, button)
    animated = animation_buttons(page) if model.timeline is not None else []

    def rename(*_):  # the file is named after the settings drawn
        stem = stamp.file_stem(model)
        for button, suffix in zip(buttons, EXPORT_FORMATS):
            button.filename = f"{stem}{suffix}"
        stem = stamp.file_stem(model, time=False)
        for button, suffix in zip(animated, ANIMATION_FORMATS):
            button.filename = f"{stem}{suffix}"

    model.param.watch(rename, ["drawn", "t"] if "t" in model.param else ["drawn"])
    # wraps on a narrow screen (a fixed row of 630 px made a phone's page that wide)
    return pn.FlexBox(Text("**Export the figure**", margin=(8, 5), width=150),
                      *buttons, *animated, flex_wrap="wrap", sizing_mode="stretch_width")


async def _export_with_sign(page, suffix: str, button) -> io.BytesIO:
    """The figure as ``suffix`` for a download button, the button saying "…" (or its place in
    the queue) and disabled while it is drawn (a bifurcation PDF takes some 9 s, and the
    button gave no sign). On a served page it is drawn in a worker process
    (``views.framework.remote``), elsewhere here."""
    model = page.model
    label = button.label
    button.param.update(disabled=True, label=f"{label} …")
    try:
        if _worker.enabled():  # the served app: drawn in a worker process, the loop free
            return io.BytesIO(await in_worker(
                model, export_task, (suffix, page_state(model)[2]), key=("export", suffix),
                session=page.session,
                on_progress=lambda latest: show_progress(button, label, latest)))
        # the sign reaches the browser before the drawing holds the loop
        await asyncio.sleep(EXPORT_SIGN_S)
        return model.export_bytes(suffix)
    finally:
        button.param.update(disabled=False, label=label, width=WIDTH)


async def _encode(page, suffix: str, button, run: str | None = None) -> io.BytesIO:
    """The page's animation for a download, its progress on the button meanwhile (its place in
    the queue, then the frames drawn): in a worker process on a served page (the server goes
    on answering), else here."""
    model = page.model
    label = button.label
    # the button says how far it is (Panel's loading spinner would hide the words)
    button.param.update(disabled=True, label=f"{label} …")
    try:
        if not _worker.enabled():  # a script's or a notebook's page: here
            await asyncio.sleep(0)  # the button shows its sign before the work holds the loop
            return io.BytesIO(model.animation_bytes(suffix, run=run))
        data = await in_worker(model, animation_task,
                               (suffix, page_state(model)[2], run),
                               key=("animation", suffix, run), session=page.session,
                               on_progress=lambda latest: show_progress(button, label, latest))
        return io.BytesIO(data)
    finally:
        button.param.update(disabled=False, label=label, width=WIDTH)


def animation_buttons(page, run: str | None = None) -> list:
    """The page's GIF and MP4 download buttons, their files named like the static exports
    (``stamp.file_stem``, without the time: an animation shows every time); ``run``: of that
    run's timeline (``views.framework.animation.run_file_stem``)."""
    model = page.model
    buttons = []
    what = "The timeline" if run is None else "The run's timeline"
    for suffix in ANIMATION_FORMATS:
        button = pn.widgets.FileDownload(
            filename=f"{run_file_stem(model, run)}{suffix}",
            label=suffix[1:].upper(), color="light", width=WIDTH, embed=False,
            description=f"{what} as an animation ({DEFAULT_FRAMES} frames at most, "
                        f"{DEFAULT_FPS} a second); takes some seconds")

        async def callback(suffix=suffix, button=button):
            data = await _encode(page, suffix, button, run)
            # named after the settings drawn now (read after this returns)
            button.filename = f"{run_file_stem(model, run)}{suffix}"
            return data

        button.callback = callback
        buttons.append(button)
    return buttons
