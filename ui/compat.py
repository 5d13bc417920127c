"""The names pages/ used from the old rnnviz.streamlit_ui, for the pages not yet converted to
ui/sections (embedding, hidden, output, bptt, slots). Delete once they are."""
from rnnviz import limits  # noqa: F401

from .cache import cached_trace  # noqa: F401
from .session import Current, current  # noqa: F401
from .widgets import download_csv, guard, md_escape, show_figure  # noqa: F401
