"""The URL fuzz of every page (``Explorer.from_query``), shared by ``test_url_fuzz*.py``.

Queries are generated from each explorer's knobs, so a new explorer is covered by registering:
valid values, values whose combination fails, malformed text, unknown keys, huge numbers, NaN,
empty and repeated values, values longer than their knob's cap.

Balance (issue 25 item 0): opening a link computes the page (``from_query`` falls back to the
defaults when the settings cannot be computed together), so a link costs a page's computation.
The in-process fuzz therefore (1) opens its links at small sizes: knobs that set a size
(``size_knobs``) start a quarter of the way from their lower bound to their default unless the
link sets them itself, and (2) splits each page's links into ``PARTS`` slices, one per test file,
so that ``pytest -n 2 --dist loadfile`` spreads them over both workers whatever a page costs.
"""

from __future__ import annotations

import functools
import json
import math
import urllib.parse

import numba
import numpy as np
import param

from views import EXPLORERS

from ._pages import random_value

#: Generated query strings per explorer, and the slices (test files) they are split into.
QUERIES = 200
PARTS = 3
BAD = ["abc", "", "nan", "NaN", "inf", "-inf", "1e9", "3.7", "-5", "1" * 40, "[1,2", "[-1.0,-1.0]",
       "true", "None", "%", "0x10", "1,5", "  ", "½"]
#: Values longer than any knob's cap (``views.framework.knobs.limits``): a 1,001-digit number
#: (valid but for its length), a 5,000-digit whole number (beyond Python's own limit for
#: ``int``), a list of 300 items. Every ``LONG_EVERY``-th link gives one to a knob.
LONG = ["0." + "0" * 998 + "1", "7" * 5000, ",".join(["1"] * 300)]
LONG_EVERY = 10


def _is_size(p, dependent: set) -> bool:
    """A whole-number knob that sets how much a page computes: a range from 1 or more that spans
    8 times or more, not following other knobs (steps, particles, points, lattice sides; not
    seeds, frames or indices)."""
    if not isinstance(p, param.Integer) or p.name in dependent or p.bounds is None:
        return False
    lo, hi = p.bounds
    return lo is not None and hi is not None and lo >= 1 and hi >= 8 * lo and p.default > lo


def _good_text(explorer, name, rng) -> str:
    p = explorer.knob_param(name)
    if _is_size(p, set(explorer.knob_bounds())):
        # log-uniform from the lower bound to the default: small sizes more often. Sizes
        # beyond the default are accepted by the same code as any valid size, and cost the
        # engine's time (PCT's steps=4200 took 15 s a link, loaded); the huge ones of BAD
        # ("1e9", "111...") still test the bounds.
        lo, hi = p.bounds[0], p.default
        value = int(round(math.exp(rng.uniform(math.log(lo), math.log(hi)))))
        step = p.step or 1
        return str(int(min(hi, max(lo, lo + round((value - lo) / step) * step))))
    value = random_value(explorer, name, rng)
    if isinstance(p, param.Range):
        return json.dumps(list(value))
    if isinstance(p, param.Boolean):
        return "true" if value else "false"
    if isinstance(p, param.ListSelector):
        return ",".join(str(v) for v in value)
    return str(value)


@functools.cache
def size_knobs(cls) -> dict[str, str]:
    """The size knobs (``_is_size``) at small values, each a quarter of the way (log scale)
    from its lower bound to its default; plus the knobs whose range follows them
    (``knob_bounds``: a frame within the steps) at the value the page gives them there, so that
    the base opens clean. A size whose small value the page still refuses or changes is left
    out."""
    explorer = cls()
    dependent = set(explorer.knob_bounds())
    small = {}
    for name in cls.knob_names():
        p = cls.param[name]
        if not _is_size(p, dependent):
            continue
        lo = p.bounds[0]
        value = round(math.exp(math.log(lo) + 0.25 * (math.log(p.default) - math.log(lo))))
        step = p.step or 1
        small[name] = str(int(max(lo, lo + round((value - lo) / step) * step)))
    while small:
        built = cls(**{k: int(v) for k, v in small.items()})
        for name in dependent:   # where the page moves a dependent knob, start it there
            if getattr(built, name) != cls.param[name].default:
                small[name] = built.query()[name]
        opened, messages = cls.from_query({k: [v.encode()] for k, v in small.items()})
        changed = [k for k, v in small.items() if opened.query().get(k) != v]
        if not messages and not changed:
            break
        small = {k: v for k, v in small.items() if k not in dependent}
        small.pop((changed or list(small))[-1])
    return small


def queries(cls, count: int, seed: int, *, small: bool = False) -> list[str]:
    """``count`` query strings for ``cls``'s page, drawn with ``seed``; with ``small``, the size
    knobs the query does not set are added at their small values (``size_knobs``)."""
    rng = np.random.default_rng(seed)
    explorer = cls()
    names = cls.setting_names()  # the knobs and the runs' settings
    base = size_knobs(cls) if small else {}
    out = []
    for i in range(count):
        pairs = [("page", cls.slug)]
        for _ in range(rng.integers(0, 5)):
            name = names[rng.integers(len(names))]
            roll = rng.random()
            if roll < 0.45:
                pairs.append((name, _good_text(explorer, name, rng)))
            elif roll < 0.8:
                pairs.append((name, BAD[rng.integers(len(BAD))]))
            elif roll < 0.9:
                pairs.append((f"{name}_x" if rng.random() < 0.5 else "zoom", "1"))
            else:  # repeated key
                pairs += [(name, _good_text(explorer, name, rng)),
                          (name, BAD[rng.integers(len(BAD))])]
        if cls.timeline is not None and rng.random() < 0.3:
            # the timeline's time, or an older link's frame knob that stands for it
            keys = ["t", *cls.timeline.aliases]
            value = (str(int(rng.integers(-2, 6000))) if rng.random() < 0.6
                     else BAD[rng.integers(len(BAD))])
            pairs.append((keys[rng.integers(len(keys))], value))
        if i % LONG_EVERY == LONG_EVERY - 1:  # no draw from rng: the other links stay as they were
            k = i // LONG_EVERY
            pairs.append((names[k % len(names)], LONG[k % len(LONG)]))
        given = {key for key, _ in pairs}
        pairs += [(k, v) for k, v in base.items() if k not in given]
        out.append(urllib.parse.urlencode(pairs))
    return out


def _args(query: str) -> dict:
    """What ``pn.state.session_args`` holds for a query: name -> list of bytes."""
    args: dict = {}
    for key, value in urllib.parse.parse_qsl(query, keep_blank_values=True):
        args.setdefault(key, []).append(value.encode())
    return args


def check_links(slug: str, part: int) -> None:
    """Slice ``part`` of ``QUERIES`` links of the page: each opens the page, computed, with
    every ignored part named in words, valid knob values, and a URL that reopens silently."""
    cls = EXPLORERS[slug]
    first = cls.plots[0]
    counts = {"clean": 0, "with messages": 0}
    # Numba's parallel kernels on a link's small inputs cost more in waking their thread pool
    # than in computing when the cores are busy (the PMD likelihood: 9 ms a call under load,
    # 4x the page's whole time); the links test URL handling, so one thread (this thread's).
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    # The size knobs' defaults at their small values while the links open: a link whose size
    # is refused (steps=NaN) opens at the default, which is what the fuzz checks, not the
    # default's cost (PCT at its default 2,000 steps: 13 s a link on a loaded machine).
    links = queries(cls, QUERIES, seed=len(slug), small=True)[part::PARTS]
    small = {name: int(value) for name, value in size_knobs(cls).items()
             if isinstance(cls.param[name], param.Integer) and value.isdigit()}
    defaults = {name: cls.param[name].default for name in small}
    try:
        for name, value in small.items():
            cls.param[name].default = value
        drawn: set = set()
        for query in links:
            _open(cls, first, query, counts, drawn)
    finally:
        for name, value in defaults.items():
            cls.param[name].default = value
        numba.set_num_threads(threads)
    assert counts["with messages"] > 0 and counts["clean"] > 0, counts


def _open(cls, first, query: str, counts: dict, drawn: set) -> None:
    """Open one link. What depends only on the state the link opens (its first plot drawn,
    the address it writes reopening silently) is checked once a state (``drawn``): about half
    of a page's 200 links open a state an earlier link opened, and a plot's HoloViews elements
    were most of the fuzz's time (profiled)."""
    explorer, messages = cls.from_query(_args(query))
    assert isinstance(explorer, cls), query
    explorer.result()
    assert explorer.error == "", (query, explorer.error)
    for message in messages:
        # words for the page, not a developer's exception text
        assert "Traceback" not in message and "parameter '" not in message, (query, message)
    # the knobs hold valid values
    for name in cls.setting_names():
        p = explorer.knob_param(name)
        value = explorer.setting(name)
        if isinstance(p, param.Number) and not isinstance(p, param.Integer):
            assert np.isfinite(value), (query, name)
    counts["with messages" if messages else "clean"] += 1
    state = tuple(sorted(explorer.query().items()))
    if state in drawn:
        return
    drawn.add(state)
    explorer.element(first)  # a drawn plot
    # what the page writes back reopens to the same state, silently
    again, more = cls.from_query({k: [v] for k, v in explorer.query().items()})
    assert more == [], (query, more)
    assert again.query() == explorer.query()
