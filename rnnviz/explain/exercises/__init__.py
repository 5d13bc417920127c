"""rnnviz.explain.exercises."""
