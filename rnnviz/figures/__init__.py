"""Plotly figure builders: arrays in, go.Figure out. Pure functions; no streamlit."""
from .common import heatmap, step_labels  # noqa: F401
