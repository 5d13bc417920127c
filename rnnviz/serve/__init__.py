"""rnnviz.serve."""
