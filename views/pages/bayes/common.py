"""What the Bayes page's live panels and its runs share: the colours of the full and the
spherical update."""

from __future__ import annotations

FULL_COLOR, SPHERICAL_COLOR = "#d62728", "#1f77b4"
