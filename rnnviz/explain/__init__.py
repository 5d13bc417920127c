"""rnnviz.explain."""
