"""What every page-2 section shares: the page name, URL binding and the heatmaps' labels."""

from __future__ import annotations

from ...page import figure_labels

PAGE = "hidden"
BIND = {"bind": "query-params"}


def heat_labels(name: str) -> dict:
    return figure_labels(x="hidden.ax_step", y="hidden.ax_unit", colorbar=("hidden.ax_named", {"name": name}))
