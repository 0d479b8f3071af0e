"""What the herding page and its runs share: the colours of herding, i.i.d. sampling and the
Sturmian guide."""

from __future__ import annotations

HERDING_COLOR, IID_COLOR, STURMIAN_COLOR = "#d62728", "#1f77b4", "#2ca02c"
