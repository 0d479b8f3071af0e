"""A URL is never a blank page: any query string opens the page with its valid part applied and
every ignored part named in words (``Explorer.from_query``), for every registered explorer.

Queries are generated from each explorer's knobs, so a new explorer is covered by registering:
valid values, values whose combination fails, malformed text, unknown keys, huge numbers, NaN,
empty and repeated values.
"""

from __future__ import annotations

import json
import urllib.parse

import numpy as np
import param
import pytest

from views import EXPLORERS

from ._pages import random_value

#: Generated query strings per explorer.
QUERIES = 200
BAD = ["abc", "", "nan", "NaN", "inf", "-inf", "1e9", "3.7", "-5", "1" * 40, "[1,2", "[-1.0,-1.0]",
       "true", "None", "%", "0x10", "1,5", "  ", "½"]


def _good_text(explorer, name, rng) -> str:
    p = explorer.param[name]
    value = random_value(explorer, name, rng)
    if isinstance(p, param.Range):
        return json.dumps(list(value))
    if isinstance(p, param.Boolean):
        return "true" if value else "false"
    if isinstance(p, param.ListSelector):
        return ",".join(str(v) for v in value)
    if isinstance(p, param.Selector) and getattr(p, "names", None):
        return str(value)
    return str(value)


def queries(cls, count: int, seed: int) -> list[str]:
    """``count`` query strings for ``cls``'s page, drawn with ``seed``."""
    rng = np.random.default_rng(seed)
    explorer = cls()
    names = cls.knob_names()
    out = []
    for _ in range(count):
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
        out.append(urllib.parse.urlencode(pairs))
    return out


def _args(query: str) -> dict:
    """What ``pn.state.session_args`` holds for a query: name -> list of bytes."""
    args: dict = {}
    for key, value in urllib.parse.parse_qsl(query, keep_blank_values=True):
        args.setdefault(key, []).append(value.encode())
    return args


@pytest.mark.parametrize("slug", sorted(EXPLORERS))
def test_any_query_opens_the_page_with_a_message_for_what_was_ignored(slug):
    cls = EXPLORERS[slug]
    first = cls.plots[0]
    counts = {"clean": 0, "with messages": 0}
    for query in queries(cls, QUERIES, seed=len(slug)):
        explorer, messages = cls.from_query(_args(query))
        assert isinstance(explorer, cls), query
        explorer.result()
        assert explorer.error == "", (query, explorer.error)
        explorer.element(first)  # a drawn plot
        for message in messages:
            # words for the page, not a developer's exception text
            assert "Traceback" not in message and "parameter '" not in message, (query, message)
        # the knobs hold valid values
        for name in cls.knob_names():
            p = explorer.param[name]
            value = getattr(explorer, name)
            if isinstance(p, param.Number) and not isinstance(p, param.Integer):
                assert np.isfinite(value), (query, name)
        counts["with messages" if messages else "clean"] += 1
        # what the page writes back reopens to the same state, silently
        again, more = cls.from_query({k: [v] for k, v in explorer.query().items()})
        assert more == [], (query, more)
        assert again.query() == explorer.query()
    assert counts["with messages"] > 0 and counts["clean"] > 0, counts


def test_queries_say_what_was_ignored_in_words():
    cls = EXPLORERS["bifurcation"]
    explorer, messages = cls.from_query(_args(
        "page=bifurcation&coordinate=3&log_t=%5B-1.0%2C-1.0%5D&seed=abc&foo=1&eta=1.2&eta=0.7"))
    assert explorer.coordinate == 2 and explorer.log_t == (-1.0, -0.95)
    assert explorer.seed == cls.param["seed"].default and explorer.eta == 0.7
    text = " ".join(messages)
    assert "Model seed must be a whole number from 0 to 99,999; got 'abc'" in text
    assert "no setting 'foo'" in text and "given 2 times" in text
    assert "K = 2" in text and "ends must differ" in text
    herding = EXPLORERS["herding"]
    explorer, messages = herding.from_query(_args("page=herding&w0=2"))
    assert explorer.w0 == "2" and messages == []
    explorer, messages = herding.from_query(_args("page=herding&w0=abc"))
    assert explorer.w0 == herding.param["w0"].default and "w0" in messages[0]


def test_slider_values_are_written_on_their_step():
    explorer = EXPLORERS["herding"]()
    explorer.eta = 1.4500000000000002
    assert explorer.eta == 1.45 and explorer.query()["eta"] == "1.45"
