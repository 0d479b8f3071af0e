"""A run's part of a served page (``JobSection``, a collaborator of
``views.framework.page.Page``): the run's text and settings, Run and Cancel buttons, a progress
bar with status text, an alert when a run fails, and the run's panels, which grow while it runs
and keep the last result on screen. The run itself is a ``views.framework.jobs.Job``."""

from __future__ import annotations

import holoviews as hv
import panel as pn

from views.framework.jobs import Job, cached_result, measured_estimate
from views.framework.runs import run_key
from views.framework.text import math_markdown, plain
from views.framework.page_workarounds import Alert, Text, steady_text

__all__ = ["JobSection"]


class JobSection(pn.viewable.Viewer):
    """A run's part of the page: text, settings, Run and Cancel, progress, alert, panels."""

    def __init__(self, page, job: Job):
        super().__init__()
        self.page, self.job, run = page, job, job.run
        self.explorer = explorer = page.model
        # labels on one line: a slider's title sat above the other widgets' labels
        self.settings = pn.FlexBox(
            *[pn.Column(page.control(n, run=run), width=180) for n in run.knob_names()
              if page.shows(run_key(run.key, n))],
            gap="8px", align_items="baseline")
        self.button = pn.widgets.Button(label=run.button, color="primary", width=200)
        self.stop = pn.widgets.Button(label="Cancel", color="light", width=90, disabled=True)
        self.progress = pn.indicators.Progress(value=0, max=1000, active=False,
                                               sizing_mode="stretch_width", max_width=400,
                                               bar_color="primary", margin=(14, 10))
        self.status = steady_text(Text("", sizing_mode="stretch_width"))
        self.alert = steady_text(Alert("", alert_type="danger", visible=False,
                                               sizing_mode="stretch_width"))
        self.results = pn.Column(sizing_mode="stretch_width")
        self.button.on_click(self._on_click)
        self.stop.on_click(lambda _: job.cancel())
        job.param.watch(self._state, ["running", "fraction", "message", "error"])
        job.param.watch(self._shown, ["shown"])
        run.param.watch(self._settings_changed, list(run.knob_names()))
        if run.uses:
            explorer.param.watch(self._settings_changed, list(run.uses))
        self._panes = None
        self._placeholder = None
        self._display = []
        self._state()
        self._shown()

    async def _on_click(self, event=None) -> None:
        await self.job.start()

    # --- drawing ---------------------------------------------------------------------------------
    def _state(self, *events) -> None:
        job = self.job
        self.button.disabled = False  # a new request supersedes the running one
        self.stop.disabled = not job.running
        self.progress.active = job.running
        self.progress.value = int(round(1000 * job.fraction))
        # plain text: an error (and so the status) can quote a typed value
        self.status.object = plain(job.message, limit=500)
        self.alert.object = (f"**The run failed:** {plain(job.error, limit=2_000)}"
                             if job.error else "")
        self.alert.visible = bool(job.error)

    def placeholder_text(self) -> str:
        """What the run's place says before it is run: how to start it and how long it takes."""
        run, explorer = self.job.run, self.explorer
        settings = self.job.current_settings()
        if cached_result(explorer, run, settings) is not None:
            when = "already computed: instant"
        elif run.has_estimate():
            seconds, measured = measured_estimate(explorer, run, settings)
            when = (f"about {seconds:.0f} s, from the last runs on this server" if measured
                    else f"roughly {seconds:.0f} s; the time left is shown as it runs")
        else:  # a run without an estimate: say nothing of its time rather than guess
            return (f"Click **{run.button}** to compute. The computation runs in the "
                    "background: the rest of the page stays live.")
        return (f"Click **{run.button}** to compute ({when}). The computation runs in the "
                "background: the rest of the page stays live.")

    def _show_placeholder(self) -> None:
        """The placeholder in the run's place, its text brought up to date. One pane, updated
        in place: a new one per knob move made the browser lay the whole page out again for
        every move of a burst (seconds on the SBEED page, whose runs depend on gamma)."""
        text = self.placeholder_text()
        if self._placeholder is None:
            self._placeholder = steady_text(Alert(text, alert_type="info",
                                                          sizing_mode="stretch_width"))
        elif self._placeholder.object != text:
            self._placeholder.object = text
        if list(self.results.objects) != [self._placeholder]:
            self.results.objects = [self._placeholder]

    def _settings_changed(self, *events) -> None:
        if self.job.shown is None and not self.job.running:
            self._show_placeholder()

    def _shown(self, *events) -> None:
        job, explorer, page = self.job, self.explorer, self.page
        if job.shown is None:
            self._show_placeholder()
            return
        if self._panes is None:
            stream = hv.streams.Params(job, ["shown"])
            self._panes = []
            for plot in job.run.plots:
                shown_by = [n for n in job.run.display if n in (plot.depends or ())]
                streams = [stream] + ([hv.streams.Params(explorer, shown_by)] if shown_by else [])
                self._panes.append(page.run_pane(plot, streams))
            self._display = [page.control(n) for n in job.run.display if page.shows(n)]
            if job.run.timeline is not None:
                self._display.append(page.timeline_control(job.run.key))
                # the run's timeline as GIF and MP4 (``Model.animate(run=...)``)
                self._display.append(pn.FlexBox(
                    Text("**Animate the run**", margin=(8, 5), width=140),
                    *page.animation_buttons(job.run.key), flex_wrap="wrap"))
        body = [pn.FlexBox(*self._display, gap="8px")] if self._display else []
        body.append(pn.FlexBox(*self._panes, gap="8px"))
        if job.result is not None and job.shown is job.result:
            for text in (job.run.extra(job.settings, job.result),
                         job.run.summary(job.settings, job.result)):
                if text:
                    body.append(Text(text, sizing_mode="stretch_width"))
        self.results.objects = body

    def __panel__(self):
        run = self.job.run
        return pn.Card(
            Text(math_markdown(run.text), sizing_mode="stretch_width", max_width=960),
            self.settings,
            pn.Row(self.button, self.stop, self.progress, sizing_mode="stretch_width"),
            self.status, self.alert, self.results,
            title=run.title, collapsible=True, sizing_mode="stretch_width", margin=(10, 10),
        )
