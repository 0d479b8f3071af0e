"""Runs declared the older way, by strings naming page methods and page knobs: ``Run(name,
title=..., button=..., settings=(...), compute="method", ...)`` builds a
``views.framework.runs.Run`` subclass whose behaviour forwards to the page's methods and whose
settings are the page's knobs. For pages not yet moved to run objects; remove once none
imports it."""

from __future__ import annotations

from views.framework.figure import Plot
from views.framework.runs import Run as _Run

__all__ = ["Run"]


def _forward(method: str):
    def forward(self, *args):
        return getattr(self.model, method)(*args)
    forward.__name__ = method
    return forward


def Run(name: str, *, title: str, button: str, settings: tuple[str, ...], compute: str,
        plots: tuple = (), text: str = "", estimate: str | None = None,
        summary: str | None = None, extra: str | None = None, uses: tuple[str, ...] = (),
        display: tuple[str, ...] = (), quick: tuple = (), timeline=None) -> type[_Run]:
    """A run class whose settings are the page knobs ``settings`` (and ``uses``) and whose
    compute, estimate, summary, extra and panels are the page's methods of those names."""
    body = dict(key=name, title=title, button=button, text=text, uses=tuple(settings) + tuple(uses),
                display=tuple(display), quick=dict(quick), timeline=timeline,
                legacy_settings=tuple(settings))
    body["compute"] = lambda self, s, progress=None: getattr(self.model, compute)(s, progress)
    if estimate is not None:
        body["estimate"] = lambda self, s: getattr(self.model, estimate)(s)
    if summary is not None:
        body["summary"] = lambda self, s, result: getattr(self.model, summary)(s, result)
    if extra is not None:
        body["extra"] = lambda self, s, result: getattr(self.model, extra)(s, result)
    forwarded = []
    for plot in plots:
        function = _forward(plot.method)
        body[plot.method] = function
        new = Plot(function, title=plot.title, cloud=plot.cloud, zoom=plot.zoom,
                   ignores=tuple(plot.ignores), depends=plot.depends,
                   cloud_under=plot.cloud_under)
        forwarded.append(new)
    body["plots"] = tuple(forwarded)
    if timeline is not None and isinstance(timeline.frames, str):
        body[timeline.frames] = _forward(timeline.frames)
    return type(f"{name.title()}Run", (_Run,), body)
