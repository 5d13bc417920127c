"""rnnviz.text."""
