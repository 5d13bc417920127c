"""The one UI-helper module: the shared sidebar, the current model and sentence, cached traces.

It is the only file in rnnviz that imports streamlit; everything it shows is computed
by the rest of rnnviz. Pages call `current()` and draw.
"""
from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from . import limits
from .catalog import BUILTINS, load_builtin
from .data import lm_pair
from .errors import InputError
from .model import RNNModel
from .text import Prepared, Vocab, decode_upload, prepare, upload_lines
from .trace import Trace, trace

DEFAULT_MODEL = "default"
DEFAULT_TEXT = BUILTINS[DEFAULT_MODEL].default_sentence
OWN_PREFIX = "own:"
APP_ROOT = Path(__file__).resolve().parents[1]

# (file, title, url path, icon). A page appears in the navigation only once its file exists.
PAGES = (
    ("pages/home.py", "Overview", "overview", ":material/home:"),
    ("pages/embedding.py", "1 · Embedding lookup", "embedding", ":material/table_rows:"),
    ("pages/hidden.py", "2 · Hidden states", "hidden", ":material/timeline:"),
    ("pages/output.py", "3 · Output and loss", "output", ":material/bar_chart:"),
    ("pages/bptt.py", "4 · BPTT and Jacobians", "bptt", ":material/undo:"),
    ("pages/slots.py", "5 · Slot filling", "slots", ":material/flight:"),
    ("pages/train.py", "6 · Your own data", "train", ":material/model_training:"),
)


def existing_pages() -> list[tuple]:
    return [p for p in PAGES if (APP_ROOT / p[0]).exists()]


def available_pages() -> list:
    return [st.Page(str(APP_ROOT / path), title=title, url_path=url, icon=icon,
                    default=(url == "overview")) for path, title, url, icon in existing_pages()]


@st.cache_resource(show_spinner=False)
def builtin(key: str) -> tuple[RNNModel, Vocab, dict]:
    """Read-only, shared by every session: never train or edit it in place (deepcopy first)."""
    return load_builtin(key)


@st.cache_data(max_entries=256, show_spinner=False)
def _cached_trace(fingerprint: str, ids: tuple, targets: tuple, reduction: str, _model) -> Trace:
    return trace(_model, list(ids), list(targets), reduction)


def cached_trace(model: RNNModel, ids, targets, reduction: str = "sum") -> Trace:
    """One Trace per (weights, ids, targets, reduction), computed once for every page."""
    return _cached_trace(model.fingerprint(), tuple(int(i) for i in ids),
                         tuple(int(t) for t in targets), reduction, model)


def own_models() -> dict:
    """This session's own models (trained or uploaded): name -> (model, vocab, meta)."""
    return st.session_state.setdefault("own_models", {})


def model_options() -> list[str]:
    return list(BUILTINS) + [OWN_PREFIX + name for name in own_models()]


def model_label(key: str) -> str:
    if key in BUILTINS:
        return BUILTINS[key].label
    return f"Your model: {key.removeprefix(OWN_PREFIX)}"


def model_description(key: str) -> str:
    if key in BUILTINS:
        return BUILTINS[key].description
    return get_model(key)[2].get("description", "A model from this session.")


def get_model(key: str) -> tuple[RNNModel, Vocab, dict]:
    if key in BUILTINS:
        return builtin(key)
    return own_models()[key.removeprefix(OWN_PREFIX)]


def default_sentence(key: str) -> str:
    if key in BUILTINS:
        return BUILTINS[key].default_sentence
    return get_model(key)[2].get("default_sentence", DEFAULT_TEXT)


def md_escape(text: str) -> str:
    """User text inside markdown: every markdown, LaTeX and HTML character escaped."""
    return re.sub(r"([\\`*_{}\[\]()#+\-.!|$<>~&])", r"\\\1", str(text))


# ---- the sidebar (drawn by app.py on every page) --------------------------------

def _on_model_change():
    st.session_state["text"] = default_sentence(st.session_state["model"])


def _on_line_pick():
    line = st.session_state.get("upload_line")
    if line:
        st.session_state["text"] = line


def sidebar() -> None:
    sb = st.sidebar
    options = model_options()
    sb.selectbox("Model", options, format_func=model_label, key="model",
                 bind="query-params", on_change=_on_model_change,
                 help="The built-in models are shared read-only; models you train live in your session only.")
    sb.text_area("Sentence", value=DEFAULT_TEXT, key="text", bind="query-params", height=90,
                 help=f"Up to {limits.MAX_TOKENS} tokens are used. Words are split on spaces and "
                      "punctuation; Chinese, Japanese and Korean text one character at a time.")
    up = sb.file_uploader("…or pick a line from a .txt file", type=["txt"], key="upload",
                          help=f"UTF-8 text, one sentence per line, up to {limits.MAX_UPLOAD_BYTES:,} bytes.")
    if up is not None:
        try:
            lines, skipped = upload_lines(decode_upload(up.getvalue()))
        except InputError as err:
            sb.error(str(err))
        else:
            if skipped:
                sb.warning(f"Only the first {limits.MAX_UPLOAD_LINES:,} lines are offered; "
                           f"{skipped:,} more were skipped.")
            sb.selectbox(f"Line ({len(lines):,} in the file)", lines, index=None,
                         placeholder="Choose a line", key="upload_line", on_change=_on_line_pick)


# ---- the current model and sentence ---------------------------------------------------

@dataclass(frozen=True)
class Current:
    """What every page works on: the chosen model and the sentence, traced once."""

    key: str
    label: str
    model: RNNModel
    vocab: Vocab
    meta: dict
    text: str
    prepared: Prepared
    input_ids: tuple       # (T,) what the model reads (with <bos> when the vocabulary has it)
    target_ids: tuple      # (T,) the next token at each step (IGNORE where none)
    trace: Trace

    @property
    def tokens(self) -> list[str]:
        """The input tokens as the model sees them (<bos>, <unk> included)."""
        return self.vocab.decode(self.input_ids)

    @property
    def level(self) -> str:
        return self.meta.get("level", "word")


def _selected_key() -> str:
    key = st.session_state.get("model", DEFAULT_MODEL)
    return key if key in model_options() else DEFAULT_MODEL


def current() -> Current:
    """The current model and sentence. A bad sentence is explained and the last good one stays."""
    key = _selected_key()
    model, vocab, meta = get_model(key)
    level = meta.get("level", "word")
    text = st.session_state.get("text", DEFAULT_TEXT)
    good = st.session_state.setdefault("last_good", {})
    try:
        prepared = prepare(text, vocab, level)
        good[key] = text
    except InputError as err:
        st.error(str(err))
        text = good.get(key, default_sentence(key))
        prepared = prepare(text, vocab, level)
        st.info(f"Showing the last sentence that worked: “{md_escape(text)}”.")
    for notice in prepared.notices:
        st.warning(md_escape(notice))
    input_ids, target_ids = lm_pair(list(prepared.ids), vocab)
    tr = cached_trace(model, input_ids, target_ids)
    return Current(key, model_label(key), model, vocab, meta, text, prepared,
                   tuple(input_ids), tuple(target_ids), tr)


@contextlib.contextmanager
def guard():
    """Show an InputError as a message instead of a traceback; the rest of the page goes on."""
    try:
        yield
    except InputError as err:
        st.error(str(err))
