"""rnnviz.explain.notes."""
