"""The served app: ``panel serve app`` (this directory) serves this script at ``/app``.

One session shows one page, chosen by the ``page`` query parameter: the home page of cards, or one
explorer. Each session builds its own explorer, whose knobs are synced to the URL, so every state is
a shareable link (``/app?page=herding&seed=3&steps=50000``). Navigation is by plain links, which
start a fresh session: nothing mutable is shared between sessions.
"""

from __future__ import annotations

import asyncio
import functools
import html
import os
import pathlib
import threading
import urllib.parse

import panel as pn

from views import EXPLORERS
from views.framework import math_markdown, readiness
from views.framework import stamp
from views.framework.knobs import check_query
from views.framework.jobs import in_daemon_thread
from views.framework.live import session_post
from views.framework.lesson_view import (COLUMN_WIDTH, lesson_list, lesson_panel, open_lesson,
                                         present_view, step_view)
from views.framework.page import Page
from views.framework.panes import for_touch
from views.framework.present import Presentation
from views.framework.projector import (HEADER, PRESENT_CSS, ROW_WIDTH, control_row,
                                       header_buttons)
from views.framework.text import plain, quote
from views.framework.page_workarounds import FIND_JS, Alert, Text, one_graph_walk, steady_text
from views.framework.served import MATH_LATER
from views.framework.workarounds import served_stylesheets, tolerant_location_query

ASSETS = pathlib.Path(__file__).resolve().parent.parent / "assets"
TITLE = "Learning Dynamics Explorer"

#: A narrow screen (a phone, 390 px): one column that scrolls as a whole (the settings, when the
#: header's menu button opens them, above the plots), instead of a 320-px sidebar beside a
#: main area cut at the screen's edge; the header one line.
NARROW_CSS = """
@media (max-width: 600px) {
  #container { overflow-y: auto !important; height: auto !important; min-height: 100vh; }
  #content { flex-direction: column; flex-wrap: nowrap; overflow: visible !important;
             height: auto; margin: 0; }
  #sidebar { width: 100% !important; max-width: none !important; height: auto;
             overflow: visible; border-right: none; padding: 8px 4px;
             border-bottom: 1px solid var(--bs-border-color); }
  #main { overflow: visible; padding: 6px 4px; width: 100%; flex: none; }
  #header { flex-wrap: nowrap; padding-top: 2px; padding-bottom: 2px; }
  #header .title { display: block; font-size: 1.05em; line-height: 1.3em; overflow: hidden;
                   text-overflow: ellipsis; white-space: nowrap; }
  .app-header { display: block; min-width: 0; flex: 1 1 auto; overflow: hidden; }
  #header-items { flex-grow: 0; margin-left: 0; }
}
"""

#: On a narrow screen the sidebar starts closed, so that the first plot comes on the first
#: screen (it was 1.5-2.2 screens down under the settings); the header's menu button opens the
#: settings above the plots. Run once the page is in the browser (``phone_sidebar``).
CLOSE_NARROW_SIDEBAR_JS = """
const sidebar = document.getElementById('sidebar');
if (sidebar && window.matchMedia('(max-width: 600px)').matches
    && sidebar.classList.contains('show')) {
  sidebar.classList.remove('show');  // Bootstrap's collapse reads its state from this class
  const toggle = document.getElementById('sidebar-toggle');
  if (toggle) toggle.setAttribute('aria-expanded', 'false');
}
"""


def phone_sidebar() -> pn.widgets.IntInput:
    """A hidden widget that closes the sidebar on a narrow screen once the page is shown
    (``CLOSE_NARROW_SIDEBAR_JS``): put it in the sidebar."""
    trigger = pn.widgets.IntInput(value=0, visible=False)
    trigger.jscallback(value=CLOSE_NARROW_SIDEBAR_JS)
    pn.state.onload(lambda: setattr(trigger, "value", 1))
    return trigger


# no "katex": the page text's math is typeset by Bokeh's MathJax (``math_markdown``), and
# Panel's KaTeX model would add its 280 kB script and style sheet to every page
# no notifications (toasts): what a link did not use is said in the page's notice, above the
# plots, where a toast said it again over the plots' right edge for 15 s
pn.extension(sizing_mode="stretch_width")
pn.config.loading_indicator = True
served_stylesheets()  # before any model: a session rebuilt on connect must not link the CDN
tolerant_location_query()  # a 5,000-digit value in a link must not blank the page


def _page_name(args: dict) -> str:
    raw = args.get("page", [b"home"])[0]
    return raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw)


def navigation(current: str) -> pn.pane.HTML:
    """The page menu at the top of the sidebar: one line ("Pages: Herding") that opens onto
    links to the home page and every explorer (the current one highlighted). Closed on an
    explorer's page, so that its settings come first; open on the home page. Plain links (a
    ``<details>`` element, no script): each starts a fresh session."""
    items = [("home", "Home")] + [(slug, cls.title) for slug, cls in EXPLORERS.items()]
    links = "".join(
        f'<li><a class="ldx-nav{" ldx-current" if slug == current else ""}" '
        f'href="?page={slug}">{html.escape(title)}</a></li>'
        for slug, title in items
    )
    titles = dict(items)
    here = titles.get(current, "Home")
    opened = " open" if current not in EXPLORERS else ""
    return pn.pane.HTML(
        f"<nav><details class='ldx-menu'{opened}><summary>Pages: "
        f"<b>{html.escape(here)}</b></summary><ul class='ldx-nav-list'>{links}</ul>"
        "</details></nav>",
        stylesheets=[
            ".ldx-menu summary{cursor:pointer;padding:6px 10px;border-radius:6px;"
            "font-size:15px;border:1px solid #ccd;list-style-position:inside}"
            ".ldx-menu summary:hover{background:rgba(0,0,0,0.06)}"
            ".ldx-nav-list{list-style:none;padding:0;margin:4px 0 8px 0}"
            ".ldx-nav{display:block;padding:5px 10px;border-radius:6px;text-decoration:none;"
            "color:inherit;font-size:15px}"
            ".ldx-nav:hover{background:rgba(0,0,0,0.06)}"
            ".ldx-current{font-weight:600;background:rgba(0,114,181,0.12)}"
        ],
        sizing_mode="stretch_width", css_classes=["ldx-navigation"],
    )


def card(slug: str, cls) -> pn.Column:
    """A home-page card: thumbnail, title, one line and the paper (from its ``Paper`` record)."""
    thumb = ASSETS / "thumbnails" / f"{slug}.png"
    picture = (pn.pane.PNG(str(thumb), width=300, height=200, fixed_aspect=True)
               if thumb.exists() else pn.Spacer(height=0))
    body = pn.pane.HTML(
        f'<a href="?page={slug}" style="text-decoration:none;color:inherit">'
        f"<h3 style='margin:4px 0'>{html.escape(cls.title)}</h3></a>"
        f"<p style='margin:4px 0'>{html.escape(cls.summary)}</p>"
        f"<p style='margin:4px 0;color:#666;font-size:13px'>{html.escape(cls.paper.short)},"
        f" <i>{html.escape(cls.paper.title)}</i> ({cls.paper.year}),"
        f" {html.escape(cls.figures.split(';')[0])}</p>"
        f'<a href="?page={slug}">Open the explorer →</a>',
        sizing_mode="stretch_width",
    )
    return pn.Column(picture, body, width=330, styles={"border": "1px solid #ddd",
                     "border-radius": "8px", "padding": "8px"}, sizing_mode=None)


HOME_INTRO = """
## Learning algorithms as dynamical systems

Each page runs one learning algorithm as an iterated map and shows what it does. Every page explains
its plot with the paper's equations, every slider updates the figure live, the URL always holds the
current settings (copy it to share the exact view), and every figure exports to PNG, SVG, PDF or
HTML.
"""


def home_text() -> str:
    """The home page's text: the introduction and one line per explorer, generated from
    ``views.EXPLORERS`` so that it names every page there is."""
    lines = [f"- **[{cls.title}](?page={slug})**: {cls.summary}" for slug, cls in EXPLORERS.items()]
    return HOME_INTRO + "\n" + "\n".join(lines) + "\n"


def home() -> pn.Column:
    cards = pn.FlexBox(*[card(slug, cls) for slug, cls in EXPLORERS.items()], gap="16px")
    lessons = lesson_list()
    return pn.Column(Text(math_markdown(home_text()), max_width=900), cards,
                     *([Text(lessons, max_width=900)] if lessons else []))


#: Build an explorer's page with a frame in each plot's place and put its plots in one per
#: turn of the event loop (``Page.defer_plots``): the browser shows the page before its
#: plots, and a session being built holds the loop for one plot's render at a time instead of
#: its page's. What it does to another session's moves: docs/speed.md ("Building a session").
#: ``LDX_DEFER_PLOTS=0`` builds a page's plots at once (the served test of closed sessions uses
#: it: with the frame first, a client that never shows the page never gets plots to refresh).
DEFER_PLOTS = os.environ.get("LDX_DEFER_PLOTS", "1") != "0"

#: Seconds a session's build waits for its page's result before it shows the page's
#: "computing" note and computes the result off the event loop (``opened``): a result in the
#: results cache is back well within it.
HEAD_START_S = 0.05


def opened(slug: str, args: dict, lesson=None):
    """The explorer of ``slug`` for this session from the URL's query ``args`` (a lesson's step:
    its link, ``views.framework.lesson_view``), its settings computed off the event loop (in a daemon thread:
    the kernels release the interpreter lock).

    Returns ``(presentation, page, None)`` (the link's presentation; the page of the explorer
    checked, ``explorer_page``) if the result was ready within ``HEAD_START_S``, else
    ``(presentation, None, finish)``: ``await finish()`` gives the page once computed.

    Outside a served session (a script, a test) the result is computed here."""
    cls = EXPLORERS[slug]
    args = dict(args)
    try:  # a link too long as a whole is not read at all (``knobs.check_query``) ...
        check_query(args)
    except ValueError:  # ... the explorer says so (``unchecked_query``) and shows the defaults
        presentation, shown_messages = Presentation.from_query(cls, {})
        unchecked = cls.unchecked_query(args)
    else:
        presentation, shown_messages = Presentation.from_query(cls, args)
        unchecked = cls.unchecked_query(Presentation.without(args))
    if session_post() is None:
        return presentation, explorer_page(slug, presentation, shown_messages,
                                           cls.checked_query(*unchecked), lesson), None
    explorer, done, outcome = unchecked[0], threading.Event(), {}

    def compute():
        try:
            explorer.compute()
        except Exception as exc:  # noqa: BLE001 - checked_query falls back to the defaults
            outcome["failure"] = exc
        else:
            try:
                explorer.prepare()
            except Exception:  # noqa: BLE001 - the page's draw computes what it lacks
                pass
        finally:
            done.set()

    future = in_daemon_thread(asyncio.get_running_loop(), compute)
    if done.wait(HEAD_START_S):
        return presentation, explorer_page(slug, presentation, shown_messages, cls.checked_query(
            *unchecked, failure=outcome.get("failure")), lesson), None

    async def finish():
        await future
        return explorer_page(slug, presentation, shown_messages, cls.checked_query(
            *unchecked, failure=outcome.get("failure")), lesson)

    return presentation, None, finish


def explorer_page(slug: str, presentation: Presentation, shown_messages: list[str],
                  checked: tuple, lesson=None) -> Page:
    """The page (``views.framework.Page``, shown as ``presentation`` says) of the explorer of
    ``slug`` built from the URL's query (``checked``: what ``Explorer.unchecked_query`` and
    ``checked_query`` made of it, ``opened``), the explorer kept equal to the URL from then
    on.

    The query is read by ``Explorer.from_query``'s halves, which apply every valid value, clamp
    dependent knobs and fall back to the defaults if the values cannot be computed together;
    what it did not use is said once, in the page's notice (a yellow alert above the plots).
    The URL is then written from the knobs' canonical text (floats on their slider's step, w0
    as typed), so a link the app wrote reopens exactly this state: what the link held and the
    page did not use (unknown names, refused values) leaves the address once the page is loaded. A
    teacher's link (``present=1``, ``show=...``, ``views.framework.present``) keeps its keys
    in the address too, as does a lesson's (``lesson``: a
    ``views.framework.lesson_view.OpenedLesson``), whose name and step lead the address."""
    explorer, _ = checked  # the messages are in the explorer's notice
    page = Page(explorer, presentation)
    if shown_messages:
        explorer.notice = " ".join(filter(None, [explorer.notice, *shown_messages]))

    def address() -> dict:
        return {**(lesson.address() if lesson is not None else {}), "page": slug,
                **explorer.query(), **presentation.query()}

    write_address(address)
    location = pn.state.location
    if location is not None:
        def drawn(*_):
            # the address follows what the page draws (a move superseded before it was
            # drawn never reaches it); a state that failed keeps the last good address, so a
            # shared link never opens what its sender did not see
            if not explorer.error:
                _write(location, address())

        explorer.param.watch(drawn, ["drawn", "t", "pinned"])
        for job in explorer.jobs.values():  # a run's own settings are in the address too
            job.run.param.watch(drawn, list(job.run.knob_names()))
    return page


def reset_link(slug: str, presentation: Presentation) -> pn.pane.HTML:
    """A "Reset" link: the same page (and the same teacher's view) at its default settings, in
    a fresh session."""
    query = urllib.parse.urlencode({"page": slug, **presentation.query()})
    return pn.pane.HTML(
        f'<a class="ldx-reset" href="?{html.escape(query, quote=True)}" '
        'title="This page at its default settings">Reset</a>',
        stylesheets=[".ldx-reset{display:inline-block;padding:5px 14px;border:1px solid #6c757d;"
                     "border-radius:6px;color:#495057;text-decoration:none;font-size:14px}"
                     ".ldx-reset:hover{background:rgba(0,0,0,0.06)}"
                     f"@media (pointer: coarse), (max-width: 600px){{.ldx-reset{{"
                     f"padding:10px 14px}}}}"],
        width=70, margin=(5, 5))


def code_view(explorer) -> tuple[pn.widgets.Toggle, pn.pane.HTML]:
    """A "Code" toggle and the view it opens: a short Python script, using only the headless
    API, that recomputes the page's numbers and writes its figure at the settings drawn
    (``views.framework.stamp.script``), shown as text."""
    toggle = pn.widgets.Toggle(label="Code", color="primary", variant="outline",
                               width=70)

    def text() -> str:
        return ("<p><b>This page, without a server</b> (copy into a file and run it with the "
                "project installed):</p><pre class='ldx-code'>"
                f"{html.escape(stamp.script(explorer))}</pre>")

    view = steady_text(pn.pane.HTML(
        text(), visible=False, sizing_mode="stretch_width", css_classes=["ldx-code-view"],
        stylesheets=[".ldx-code{background:#f6f8fa;padding:10px;border-radius:6px;"
                     "font-size:13px;overflow-x:auto}"]))
    def refresh(*_):
        # written while shown, and when shown: a hidden view costs a knob move nothing. A
        # watcher, not pn.bind: a bound text shows Panel's loading spinner at each redraw,
        # whose class and stylesheets the browser re-applies after the text (``steady_text``)
        if toggle.value:
            view.object = text()

    explorer.param.watch(refresh, "drawn")
    toggle.param.watch(lambda event: (refresh(), setattr(view, "visible", event.new)), "value")
    return toggle, view


#: The "Copy link" button's click, in the browser: the address (which always holds the state
#: drawn) to the clipboard; where the page is not a secure context (served on a LAN address
#: over http) the browser has no clipboard API, and a prompt shows the link selected instead.
COPY_LINK_JS = """
const href = window.location.href;
const done = () => { source.label = 'Link copied'; setTimeout(() => { source.label = 'Copy link'; }, 2000); };
if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(href).then(done, () => window.prompt('Copy this link:', href));
} else {
    window.prompt('Copy this link:', href);
}
"""


def copy_link() -> pn.widgets.Button:
    """A button that copies the page's link (its exact state) to the clipboard."""
    button = pn.widgets.Button(label="Copy link", color="primary", variant="outline",
                               width=100, css_classes=["ldx-copy-link"])
    # the button is the callback's source: in args, Panel's callback registry would keep it alive
    button.js_on_click(code=COPY_LINK_JS)
    return button


def _write(location, query: dict) -> None:
    location.search = "?" + urllib.parse.urlencode(query)


def write_address(query) -> None:
    """Once the page is in the browser, replace its address by ``query()``, the state drawn.

    Not before: the browser's Location model sends the address it was opened with when it
    starts, which would overwrite a value written while the session is being built."""
    location = pn.state.location
    if location is not None:
        pn.state.onload(lambda: _write(location, query()))


def waiting_page(slug: str) -> pn.Column:
    """The page of an explorer whose engines the server's first start is still compiling
    (``views.framework.readiness``): what it waits for and how far the start is, updated every
    second, and the page itself once they are ready (the browser reloads the same address)."""
    cls = EXPLORERS[slug]

    def text() -> str:
        left = readiness.waiting_for(cls)
        return (f"## {cls.title}\n\n**The server is compiling its engines** (the first start "
                f"after installing; later starts load them from the disk cache). This page "
                f"opens by itself once {'its engine' if len(left) < 2 else 'its engines'} "
                f"({', '.join(left) or 'none'}) {'is' if len(left) < 2 else 'are'} ready.\n\n"
                f"{readiness.progress()}.")

    note = Text(text(), sizing_mode="stretch_width", css_classes=["ldx-waiting"])
    bar = pn.indicators.Progress(active=True, sizing_mode="stretch_width", max_width=600)
    reload = pn.widgets.IntInput(value=0, visible=False)
    reload.jscallback(value="window.location.reload()")

    def tick():
        if readiness.waiting_for(cls):
            note.object = text()
        else:
            callback.stop()
            reload.value = 1

    callback = pn.state.add_periodic_callback(tick, period=1000)
    return pn.Column(note, bar, reload, sizing_mode="stretch_width")


def math_later(page: str) -> None:
    """An explorer's page (or its waiting page) loads MathJax whatever its first answer holds:
    its text and plots may come after it (``views.framework.served.page_resources``, which
    leaves MathJax out of a page without math: the home page)."""
    if page in EXPLORERS and pn.state.curdoc is not None:
        pn.state.curdoc.template_variables[MATH_LATER] = True


def build() -> pn.template.BootstrapTemplate:
    args = dict(pn.state.session_args or {})
    lesson = open_lesson(args)
    if lesson is not None:
        args = lesson.args
    page = _page_name(args)
    math_later(page)
    sidebar, header, looks = [navigation(page)], [], {"header_background": "#0072b5"}
    if page in EXPLORERS and readiness.waiting_for(EXPLORERS[page]):
        main, title = [waiting_page(page)], f"{TITLE}: {EXPLORERS[page].title}"
        pn.state.onload(_shown)
    elif page in EXPLORERS:
        # the page's address comes from the explorer's knobs (explorer_page)
        presentation, shown, finish = opened(page, args, lesson)
        title = f"{TITLE}: {EXPLORERS[page].title}"
        if presentation.present:
            # no sidebar: the page's buttons go in the header, the controls the link keeps in
            # a row above the plots
            # a row of the page's buttons in the header, beside the page's title alone
            sidebar, looks, title = [], HEADER, EXPLORERS[page].title
        if shown is not None:
            side, main = explorer_parts(page, shown, beside=lesson is not None)
            (header if presentation.present else sidebar).extend(side)
            draw_plots(shown)
        else:
            # the result is computed off the loop meanwhile; then the page is put in these
            side, main = pn.Column(sizing_mode="stretch_width"), [computing(page)]
            (header if presentation.present else sidebar).append(side)

            async def fill():
                ready = await finish()
                parts, body = explorer_parts(page, ready, beside=lesson is not None)
                side.objects = parts
                main[0].objects = body
                draw_plots(ready)

            pn.state.onload(fill)
    else:
        main = [home()]
        title = TITLE
        if page != "home":
            main.insert(0, Alert(
                f"There is no page {plain(quote(page))}; here are the explorers.",
                alert_type="warning", css_classes=["ldx-notice"]))
        if pn.state.session_args:  # the bare address of the app stays as it is
            write_address(lambda: {**(lesson.address() if lesson else {}), "page": "home"})
        pn.state.onload(_shown)
    shown_main = main
    if sidebar and page in EXPLORERS and lesson is None:  # a lesson's caption stays in sight
        sidebar.append(phone_sidebar())
    if lesson is not None:  # the lesson's column: in the sidebar, or beside the plots
        column = lesson_panel(lesson)
        if sidebar:
            sidebar.insert(1, column)
        else:  # (``main`` itself stays what ``fill`` fills)
            column.param.update(sizing_mode="fixed", width=COLUMN_WIDTH)
            shown_main = [pn.Row(pn.Column(*main, sizing_mode="stretch_width"), column,
                                 sizing_mode="stretch_width")]
    # The Bootstrap template uses only resources Panel bundles (the Fast templates fetch a web
    # font, which fails offline and leaves a console error).
    template = pn.template.BootstrapTemplate(
        title=title, sidebar=sidebar, main=shown_main, header=header, sidebar_width=320,
        main_max_width="1100px" if sidebar else "1900px", **looks,
        # a phone lays the page out at its own width (without this, at 980 px shown at 40 %)
        meta_viewport="width=device-width, initial-scale=1",
    )
    template.config.raw_css.append(NARROW_CSS)
    if not sidebar:  # present mode: a lower header
        template.config.raw_css.append(PRESENT_CSS)
    return template


def explorer_parts(slug: str, page: Page, beside: bool = False) -> tuple[list, list]:
    """The parts of an explorer's page in the sidebar (in a teacher's view: in the header) and
    in the main area (``beside``: narrower by a lesson's column). With ``DEFER_PLOTS``, a
    served page's plots are frames until ``draw_plots`` puts them in."""
    if DEFER_PLOTS and session_post() is not None:
        page.defer_plots()
    code, code_pane = code_view(page.model)
    step, step_pane = step_view(slug, page.model, lambda: {
        "page": slug, **page.model.query(), **page.presentation.query()})
    reveal_when_shown(code_pane, "ldx-code-view")
    reveal_when_shown(step_pane, "ldx-step-view")
    if page.presentation.present:  # the buttons in the header, one row of controls above
        body = page.panel()        # the plots (``views.framework.projector``)
        row, more = control_row(page.controls(), page.present_row, page.present_folded,
                                width=ROW_WIDTH - (COLUMN_WIDTH if beside else 0))
        return ([header_buttons([copy_link(), reset_link(slug, page.presentation), code, step])],
                [row, more, code_pane, step_pane, body])
    present, present_pane = present_view(slug, page.model, lambda: {
        "page": slug, **page.model.query()})
    reveal_when_shown(present_pane, "ldx-present-view")
    copy = copy_link()
    # on a phone, buttons a fingertip can take
    for_touch(copy, code, step, present, page.pin_view.button)
    # the buttons wrap in the sidebar's 320 px (four in a row ran past its edge)
    return ([pn.FlexBox(copy, reset_link(slug, page.presentation), code, step, present,
                        page.pin_view.button, gap="0px", sizing_mode="stretch_width"),
             Text("### Settings"), page.controls()],
            [code_pane, step_pane, present_pane, page.panel()])


#: When a toggle opens its view, bring the view into sight (it sits at the top of the page,
#: out of sight of a page scrolled down to its plots). Run in the browser on the view's own
#: ``visible`` change, which comes with the server's answer however long that takes (not on the
#: toggle's click, which would have to guess it); the browser then lays the view out within a
#: few frames, and the view scrolls in once it has a size.
REVEAL_JS = """
if (!cb_obj.visible) return;
""" + FIND_JS + """
const reveal = tries => {
  const view = find(document, '.CLASS');
  if (view && view.getBoundingClientRect().height > 0) {
    view.scrollIntoView({behavior: 'smooth', block: 'start'});
  } else if (tries > 0) {
    setTimeout(() => reveal(tries - 1), 50);
  }
};
reveal(40);
"""


def reveal_when_shown(view, css_class: str):
    """``view`` (of class ``css_class``) scrolled into sight each time it is shown."""
    view.jscallback(visible=REVEAL_JS.replace("CLASS", css_class))
    return view


def draw_plots(page: Page) -> None:
    """With ``DEFER_PLOTS``: once the browser has shown the page's frame, put its plots in, one
    per turn of the event loop (``Page.draw_deferred``). The server's warm-up waits until
    the page is shown (``_shown``): then once its last plot is in, else its own page draws
    would come between the plots."""
    post = session_post()
    if DEFER_PLOTS and post is not None:
        pn.state.onload(functools.partial(page.draw_deferred, post, done=_shown))
    else:
        pn.state.onload(_shown)


def computing(page: str) -> pn.Column:
    """The main area of an explorer's page while its result for the link's settings is
    computed off the event loop (``opened``)."""
    return pn.Column(
        Text(f"## {EXPLORERS[page].title}\n\n**Computing this page's result for "
                         "the link's settings**: the page follows once it is ready.",
                         sizing_mode="stretch_width",
                         # a place of plots still to come, as a plot's frame is (ldx-skeleton)
                         css_classes=["ldx-computing", "ldx-skeleton"]),
        pn.indicators.Progress(active=True, sizing_mode="stretch_width", max_width=600),
        sizing_mode="stretch_width")


def _shown() -> None:
    """The browser has shown this session's page (an explorer's: with its last plot in place):
    the server's warm-up may draw its next page (``app_hooks._loading``)."""
    context = pn.state.curdoc.session_context if pn.state.curdoc is not None else None
    if context is not None:
        pn.state.cache.setdefault("ldx-sessions-shown", set()).add(context.id)


# one walk of the session's model graph for the whole page instead of one per plot, link and
# root added (a herding page: some 23 walks, a third of the server's time to answer the GET)
with one_graph_walk():
    build().servable(title=TITLE)
