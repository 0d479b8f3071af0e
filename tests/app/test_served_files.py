"""What the served app sends for a page (``views.framework.served``, installed by
``app/app_hooks.py``): each page's HTML lists only the bundles it uses, its scripts deferred; the
server compresses what it sends to a client that accepts gzip, and only to such a client."""

from __future__ import annotations

import gzip
import re
import urllib.parse
import urllib.request

from tests.app.conftest import server  # noqa: F401


def _get(url: str, gzipped: bool = False):
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"} if gzipped else {})
    with urllib.request.urlopen(request, timeout=120) as response:
        return response.headers, response.read()


def _scripts(url: str) -> list[str]:
    headers, body = _get(url)
    page = body.decode()
    assert all(" defer " in tag for tag in re.findall(r"<script[^>]*\bsrc=[^>]*>", page))
    return [urllib.parse.urljoin(url, src) for src in
            re.findall(r'<script[^>]*\bsrc="([^"]+)"', page)]


def test_pages_list_only_the_bundles_they_use(server):  # noqa: F811
    home = " ".join(_scripts(server))
    herding = " ".join(_scripts(f"{server}?page=herding"))
    for scripts in (home, herding):
        assert "bokeh.min.js" in scripts and "panel.min.js" in scripts
        for unused in ("katex", "tabulator", "luxon", "es-module-shims"):
            assert unused not in scripts, unused
    assert "bokeh-mathjax" not in home  # no math on the home page
    assert "bokeh-mathjax" in herding  # the page text's math


def test_static_files_and_pages_go_compressed_when_the_client_accepts_it(server):  # noqa: F811
    bokeh_js = next(s for s in _scripts(f"{server}?page=herding") if "bokeh.min.js" in s)
    plain_headers, plain = _get(bokeh_js)
    headers, body = _get(bokeh_js, gzipped=True)
    assert plain_headers.get("Content-Encoding") is None
    assert headers.get("Content-Encoding") == "gzip"
    assert gzip.decompress(body) == plain and len(body) < len(plain) / 2
    headers, body = _get(server, gzipped=True)
    assert headers.get("Content-Encoding") == "gzip" and b"<html" in gzip.decompress(body)
