"""Plotly figure builders: arrays in, go.Figure out. Pure functions; no streamlit."""
