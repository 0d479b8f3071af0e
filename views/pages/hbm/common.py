"""What the HBM page's live panels and its runs share: the colours of P*, its projection P*(B)
and a fit."""

from __future__ import annotations

PSTAR_COLOR, PROJ_COLOR, FIT_COLOR = "#222222", "#d62728", "#1f77b4"
