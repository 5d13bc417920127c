"""rnnviz.engine."""
