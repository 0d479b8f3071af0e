"""What a closed page leaves behind: nothing of it may stay reachable once its session is gone.

A served session's page is dropped by Bokeh when the session is destroyed; anything the page
registered with a library's process-wide state must not keep it alive. Panel's jscallback
registry (``panel.links.Callback.registry``) is weakly keyed by the callback's source but holds
its arguments strongly: a path from the arguments back to the source kept every page of every
closed session (measured in a served app: explorers alive 6, 12 after two rounds of six
open-move-close cycles; 0 after the fix)."""

from __future__ import annotations

import gc
import weakref

import pytest

import views
from views.framework.page import Page

SLUGS = list(views.EXPLORERS)


@pytest.mark.parametrize("slug", SLUGS)
def test_a_built_page_is_freed_once_dropped(slug):
    from panel.links import Callback

    gc.collect()
    registered = len(Callback.registry)
    explorer = views.EXPLORERS[slug]()
    page = Page(explorer).panel()
    gone = weakref.ref(explorer)
    del explorer, page
    for _ in range(3):  # what a collection frees can hold the last reference to more
        gc.collect()   # (a collection of a test worker's heap is costly: stop when done)
        if gone() is None and len(Callback.registry) == registered:
            break
    assert gone() is None, [type(r).__name__ for r in gc.get_referrers(gone())][:8]
    assert len(Callback.registry) == registered  # none of the page's browser callbacks is left
