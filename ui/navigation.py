"""The pages of the app, in order: file, title key, URL path, icon. app.py builds the navigation
from it; the overview links to the rest. A page appears only once its file exists."""
from __future__ import annotations

import functools
from pathlib import Path

import streamlit as st

from .i18n import current_lang, t

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
    ("pages/attention.py", "nav.attention", "attention", ":material/center_focus_strong:"),
    ("pages/glossary.py", "nav.glossary", "glossary", ":material/translate:"),
)
# The default page is served at "/", and Streamlit reserves its url_path too; so the overview
# is the default page under "start" and /overview opens it through a hidden second entry.
DEFAULT_URL, DEFAULT_ALIAS = "overview", "start"


@functools.lru_cache(maxsize=1)
def _shipped() -> tuple[tuple[str, str, str, str], ...]:
    """The rows of PAGES whose file exists: looked up once per process (three times a run, 12
    files each, cost a few ms of every run under a class's load)."""
    return tuple(row for row in PAGES if (APP_ROOT / row[0]).exists())


def existing_pages() -> list[tuple[str, str, str, str]]:
    """(file, title, url path, icon) of every page whose file exists, titles translated."""
    return [(path, t(key), url, icon) for path, key, url, icon in _shipped()]


def has_page(url: str) -> bool:
    """Whether the page with this url path exists (its file is there)."""
    return any(u == url for _, _, u, _ in existing_pages())


def available_pages() -> list:
    """st.Page objects for st.navigation: the overview is the default page ("/"), and
    /overview opens it too (a hidden entry: links and bookmarks to /overview keep working)."""
    pages = []
    for path, title, url, icon in existing_pages():
        if url == DEFAULT_URL:
            pages.append(st.Page(str(APP_ROOT / path), title=title, url_path=DEFAULT_ALIAS, icon=icon,
                                 default=True))
            pages.append(st.Page(str(APP_ROOT / path), title=title, url_path=url, icon=icon,
                                 visibility="hidden"))
        else:
            pages.append(st.Page(str(APP_ROOT / path), title=title, url_path=url, icon=icon))
    return pages


# On a phone (390 px): long equations scroll sideways instead of overflowing the page, titles
# wrap and shrink to fit, the top toolbar does not cover the first title, wide tables scroll
# sideways and plotly's own toolbar (over the chart titles) is hidden: each chart keeps its
# "Download chart as HTML" button. On a wider screen a table's text wraps at the table's width
# (Streamlit wraps each cell at 400 px: page 8's vectors took two lines beside empty space).
PHONE_CSS = """
<style>
.katex-display { overflow-x: auto; overflow-y: hidden; padding-bottom: 2px; }
h1, h2, h3 { overflow-wrap: anywhere; }
[data-testid="stTable"] { overflow-x: auto; }
[class*="st-key-phone_only"] { display: none !important; }  /* cues that only a phone needs */
[class*="st-key-step_sync_"] { display: none !important; }  /* ui/widgets.step_form's sync (by script) */
[data-testid="stElementContainer"]:has([data-rnnviz-kept]) { display: none !important; }  /* and its mark */
@media (min-width: 641px) {  /* a table's cell wraps at the table's width, not at 400 px */
  [data-testid="stTable"] td [data-testid="stMarkdownContainer"] { max-width: none; }
}
@media (max-width: 640px) {
  [class*="st-key-phone_only"] { display: block !important; }
  [data-testid="stTable"] table { min-width: 600px; }
  .modebar-container { display: none !important; }  /* plotly's toolbar covered chart titles */
  [data-testid="stElementToolbar"] { display: none !important; }  /* it covered the text above a table */
  h1 { font-size: 1.6rem !important; }
  h2 { font-size: 1.3rem !important; }
  h3 { font-size: 1.15rem !important; }
  .stMainBlockContainer, .block-container { padding-top: 3.5rem !important; }
}
</style>
"""


# Streamlit's file uploader writes its own English ("Upload", "1MB per file • TXT") that no
# parameter translates: in another language the button and the drop zone say the catalogue's
# words (each uploader's own label or help gives its size limit in the learner's language).
UPLOADER_CSS = """
<style>
[data-testid="stFileUploaderDropzone"] [data-testid="stBaseButton-secondary"] p { font-size: 0; }
[data-testid="stFileUploaderDropzone"] [data-testid="stBaseButton-secondary"] p::after {
  content: "BUTTON"; font-size: 0.875rem; }
[data-testid="stFileUploaderDropzoneInstructions"] span { font-size: 0; }
[data-testid="stFileUploaderDropzoneInstructions"] span::after { content: "DROP"; font-size: 0.75rem; }
</style>
"""


def css_string(text: str) -> str:
    """text as the inside of a CSS string: no quote, backslash, angle bracket or line break."""
    return "".join(c for c in text if c not in '"\\<>\n\r')


def uploader_css(lang: str) -> str:
    """UPLOADER_CSS with the catalogue's words; nothing in English (Streamlit's own words)."""
    if lang == "en":
        return ""
    return (UPLOADER_CSS.replace("BUTTON", css_string(t("uploader.button")))
            .replace("DROP", css_string(t("uploader.drop"))))


def phone_style() -> None:
    """The small style block above (no layout change at desktop width), and the uploader's
    words in the learner's language."""
    st.html(PHONE_CSS + uploader_css(current_lang()))
    st.container(key="phone_only_sidebar_cue").caption(t("nav.sidebar_cue"))
