"""The pages of the app, in order: file, title key, URL path, icon. app.py builds the navigation
from it; the overview links to the rest. A page appears only once its file exists."""
from __future__ import annotations

from pathlib import Path

import streamlit as st

from .i18n import t

APP_ROOT = Path(__file__).resolve().parents[1]

# (file, title key in locales/<lang>.toml, url path, icon)
PAGES = (
    ("pages/home.py", "nav.overview", "overview", ":material/home:"),
    ("pages/embedding.py", "nav.embedding", "embedding", ":material/table_rows:"),
    ("pages/hidden.py", "nav.hidden", "hidden", ":material/timeline:"),
    ("pages/output.py", "nav.output", "output", ":material/bar_chart:"),
    ("pages/bptt.py", "nav.bptt", "bptt", ":material/undo:"),
    ("pages/slots.py", "nav.slots", "slots", ":material/flight:"),
    ("pages/train.py", "nav.train", "train", ":material/model_training:"),
    ("pages/origins.py", "nav.origins", "origins", ":material/hub:"),
    ("pages/gates.py", "nav.gates", "gates", ":material/join_inner:"),
)


def existing_pages() -> list[tuple[str, str, str, str]]:
    """(file, title, url path, icon) of every page whose file exists, titles translated."""
    return [(path, t(key), url, icon) for path, key, url, icon in PAGES if (APP_ROOT / path).exists()]


def available_pages() -> list:
    """st.Page objects for st.navigation (the overview is the default page)."""
    return [st.Page(str(APP_ROOT / path), title=title, url_path=url, icon=icon,
                    default=(url == "overview")) for path, title, url, icon in existing_pages()]
