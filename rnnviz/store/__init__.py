"""rnnviz.store."""
