"""A served page's download buttons draw their file in a worker process (views/framework/remote.py),
the session sending the page's state and receiving bytes: the same bytes as ``export`` in the
session's process, with the time, the zoom and the runs' results the page shows."""

from __future__ import annotations

import asyncio
import concurrent.futures

import numpy as np
import pytest
from PIL import Image

from views.pages.bifurcation import BifurcationExplorer
from views.pages.dsg import DSGExplorer
from views.framework import worker as _worker
from views.framework.downloads import _export_with_sign
from views.framework.page import Page
from views.pages.torus import TorusExplorer

pytestmark = pytest.mark.usefixtures("worker_processes")


class _Button:
    """What ``views.framework.downloads._export_with_sign`` uses of a download button."""

    def __init__(self, label):
        import param

        class Button(param.Parameterized):
            label = param.String()
            disabled = param.Boolean(False)
            width = param.Integer(70)

        self.widget = Button(label=label)


def _download(page, suffix: str, monkeypatch) -> tuple[bytes, list]:
    """The bytes the page's download button of ``suffix`` returns on a served page, and the
    tasks that went to a worker process meanwhile."""
    calls = []
    real = _worker.call

    def spy(cls, knobs, task, args, *rest, **options):
        calls.append((cls, task.__name__, options.get("key")))
        return real(cls, knobs, task, args, *rest, **options)

    monkeypatch.setattr(_worker, "call", spy)
    button = _Button(suffix[1:].upper()).widget
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        data = pool.submit(asyncio.run, _export_with_sign(Page(page), suffix, button)).result()
    assert button.label == suffix[1:].upper() and not button.disabled
    return data.getvalue(), calls


def _pixels(data: bytes, tmp_path, name: str) -> np.ndarray:
    path = tmp_path / name
    path.write_bytes(data)
    return np.asarray(Image.open(path).convert("RGB"))


def test_a_png_from_the_page_is_drawn_in_a_worker_and_equals_the_export(monkeypatch, tmp_path):
    page = TorusExplorer(steps=400, seed=7)
    page.t = 123  # a time on the timeline: part of the state sent
    data, calls = _download(page, ".png", monkeypatch)
    assert calls == [(TorusExplorer, "export_task", ("export", ".png"))]
    here = page.export_bytes(".png").getvalue()
    assert data == here or np.array_equal(_pixels(data, tmp_path, "worker.png"),
                                          _pixels(here, tmp_path, "here.png"))
    assert data[:8] == b"\x89PNG\r\n\x1a\n"


def test_svg_pdf_and_html_come_from_the_worker(monkeypatch):
    page = TorusExplorer(steps=400)
    for suffix, start in ((".svg", b"<?xml"), (".pdf", b"%PDF"), (".html", b"<!DOCTYPE html>")):
        data, calls = _download(page, suffix, monkeypatch)
        assert [c[1] for c in calls] == ["export_task"]
        assert data.lstrip().startswith(start), (suffix, data[:40])


def test_the_zoom_window_and_a_runs_result_go_with_the_page(monkeypatch, tmp_path):
    """A zoomed bifurcation diagram and a DSG page with its run's result: the worker draws the
    window and the run's panels the page shows (the run is not computed again there)."""
    page = BifurcationExplorer(**dict(BifurcationExplorer.quick))
    (method,) = list(page.windows)
    page.windows[method].update(x_range=(-1.2, -0.6), y_range=(-0.5, 0.5))
    data, _ = _download(page, ".png", monkeypatch)
    zoomed = page.export_bytes(".png").getvalue()
    assert np.array_equal(_pixels(data, tmp_path, "w.png"), _pixels(zoomed, tmp_path, "h.png"))
    page.windows[method].update(x_range=None, y_range=None)
    whole = page.export_bytes(".png").getvalue()
    assert whole != zoomed  # the window is what was drawn

    dsg = DSGExplorer(points=200, **{"curve.steps": 64})
    dsg.jobs["curve"].compute()
    dsg.set_time("curve", 20)
    data, calls = _download(dsg, ".png", monkeypatch)
    here = dsg.export_bytes(".png").getvalue()
    assert np.array_equal(_pixels(data, tmp_path, "dw.png"), _pixels(here, tmp_path, "dh.png"))
    without = DSGExplorer(points=200, **{"curve.steps": 64}).export_bytes(".png").getvalue()
    assert _pixels(without, tmp_path, "dn.png").shape != _pixels(here, tmp_path, "dh3.png").shape


def test_a_job_waiting_its_turn_says_its_place_and_starts_after_the_other_session():
    """Another session's job holds the only slot: the page's run says "queued: 1st of 1" in its
    status text, then computes once that job ends."""
    from views.framework.queue import QUEUE

    page = DSGExplorer(points=200, **{"curve.steps": 64})
    job = page.jobs["curve"]
    other = QUEUE.submit("another session", "run")
    assert other.granted
    released = []

    def release_when_queued(event):
        if event.new.startswith("queued") and not released:
            released.append(event.new)
            QUEUE.release(other)

    job.param.watch(release_when_queued, "message")
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        pool.submit(asyncio.run, job.start()).result(timeout=300)
    assert released == ["queued: 1st of 1"]
    assert job.error == "" and job.result is not None and "Done" in job.message
    assert QUEUE.running() == [] and QUEUE.waiting() == []


def test_a_download_button_says_its_place_then_its_progress():
    from views.framework.remote import QUEUED_WIDTH, WIDTH, show_progress

    button = _Button("GIF").widget
    show_progress(button, "GIF", {"fraction": 0.0, "message": "queued: 2nd of 3", "queued": True})
    assert (button.label, button.width) == ("GIF queued: 2nd of 3", QUEUED_WIDTH)
    show_progress(button, "GIF", {"fraction": 0.0, "message": "starting"})
    assert (button.label, button.width) == ("GIF …", WIDTH)
    show_progress(button, "GIF", {"fraction": 0.4, "message": "frame 40 of 100"})
    assert button.label == "GIF 40%"
