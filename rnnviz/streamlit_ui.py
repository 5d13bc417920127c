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
from streamlit import config as st_config
from streamlit.runtime.pages_manager import PagesManager

from . import export, limits
from .catalog import BUILTINS, load_builtin
from .links import (OWN_PREFIX, _short, link_model_problem, overflowing,  # noqa: F401
                    rejected_params, share_url)
from .data import lm_pair
from .errors import InputError
from .model import RNNModel
from .text import Prepared, Vocab, decode_upload, prepare, upload_lines
from .trace import Trace, trace

# Streamlit treats an app with a pages/ folder as an old-style multipage app until the first
# st.navigation call: if a server's very first request is a deep link (/embedding), that page
# runs alone, without app.py's sidebar and link handling (AppTest does the same after
# switch_page). app.py owns the navigation (its st.navigation call switches the old mode off),
# so a page that finds itself running alone switches it off and reruns through app.py.


def _rerun_through_app() -> None:
    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        if st_config.get_option("global.appTest"):
            # AppTest runs a switched-to page alone on every run (a rerun would drop clicks):
            # draw the sidebar here, its widgets keeping the values chosen on other pages.
            # (AppTest has no browser to update the URL, so the page's first URL is stale there.)
            kept = [k for k in ("model", "text") if k in st.session_state]
            _forget_initial_params(kept)
            for key in kept:
                st.session_state[key] = st.session_state[key]
            sidebar()
        else:
            st.rerun()


DEFAULT_MODEL = "default"
DEFAULT_TEXT = BUILTINS[DEFAULT_MODEL].default_sentence
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

def _on_line_pick():
    line = st.session_state.get("upload_line")
    if line:
        st.session_state["text"] = line


def use_model(name: str, model: RNNModel, vocab: Vocab, meta: dict) -> str:
    """Add an own model to this session and make it the current one from the next run on.

    The sidebar's selectbox is already drawn in this run, so the switch is queued and done
    at the top of the next run (call st.rerun() after this)."""
    own_models()[name] = (model, vocab, dict(meta))
    key = OWN_PREFIX + name
    st.session_state["pending_model"] = key
    return key


TRAIN_RUN = "train_run"  # session key of the training page's current TrainingRun


def keep_run(run) -> str:
    """Keep a training run's model (as trained so far) as an own model, current from the next run."""
    from .corpus import model_meta
    run.finish()
    return use_model(run.name, run.model, run.vocab, model_meta(run, run.name))


def finish_interrupted_training() -> None:
    """A run still marked running was interrupted (stop button, or any click during training):
    keep what it learned. Done here because the learner may have left the training page."""
    _rerun_through_app()
    run = st.session_state.get(TRAIN_RUN)
    if run is not None and run.status == "running":
        run.finish("stopped")
        keep_run(run)


def _apply_pending_model() -> None:
    key = st.session_state.pop("pending_model", None)
    if key and key in model_options():
        st.session_state["model"] = key
        st.session_state["text"] = default_sentence(key)


def _model_from_link() -> None:
    """Once per session: take the model named in the URL (?model=notes), or explain why not."""
    if st.session_state.get("_link_read"):
        return
    st.session_state["_link_read"] = True
    _drop_overflowing_params()
    st.session_state["_link_initial"] = {k: st.query_params.get_all(k) for k in st.query_params}
    asked = st.query_params.get("model")
    if asked is None:
        return
    problem = link_model_problem(asked, model_options())
    if problem:
        link_notices().append(problem)
        del st.query_params["model"]
    else:
        st.session_state["model"] = asked


def _drop_overflowing_params() -> None:
    """Before any widget reads the URL: remove values that would crash a bound number input.

    Streamlit seeds widgets from its private copy of the first URL, so that copy is cleaned too."""
    bad = [k for k in st.query_params if k != "text" and overflowing(st.query_params.get_all(k))]
    if not bad:
        return
    _forget_initial_params(bad, remove=True)
    link_notices().append("Ignored link value(s) too large to be a number: "
                          + ", ".join(_short(k) for k in bad[:10]) + ".")


def _forget_initial_params(keys, remove: bool = False) -> None:
    """Streamlit seeds a widget from its private copy of the first URL (no public API to edit it)."""
    from streamlit.runtime.state.session_state_proxy import get_session_state
    with get_session_state().query_params() as qp:
        for key in keys:
            qp._initial_query_params.pop(key, None)
            if remove:
                qp.remove_param(key)


def link_notices() -> list[str]:
    return st.session_state.setdefault("_link_notices", [])


def _sync_model_param() -> None:
    """Keep ?model= in the URL equal to the chosen model (absent for the default)."""
    key = st.session_state.get("model", DEFAULT_MODEL)
    now = st.query_params.get("model")
    if key == DEFAULT_MODEL and now is not None:
        del st.query_params["model"]
    elif key != DEFAULT_MODEL and now != key:
        st.query_params["model"] = key


def sidebar():
    """The shared sidebar. Returns a slot for the share link, filled by `share_link` at the
    end of the run (once the page's own widgets have put their values in the URL)."""
    _model_from_link()
    finish_interrupted_training()
    _apply_pending_model()
    sb = st.sidebar
    notices_slot = sb.empty()
    _show_notices(notices_slot, dismiss=False)  # redrawn with a Dismiss button by share_link
    options = model_options()
    if "model" in st.session_state and st.session_state["model"] not in options:
        st.session_state["model"] = DEFAULT_MODEL  # e.g. an own model of a lost session
    chosen = sb.selectbox("Model", options, format_func=model_label, key="model",
                          help="The built-in models are shared read-only; models you train live "
                               "in your session only.")
    if st.session_state.get("_shown_model", chosen) != chosen:
        st.session_state["text"] = default_sentence(chosen)  # a new model starts on its own sentence
    st.session_state["_shown_model"] = chosen
    _sync_model_param()
    sb.text_area("Sentence", value=DEFAULT_TEXT, key="text", bind="query-params", height=90,
                 max_chars=limits.MAX_TEXT_CHARS,  # a longer link sentence is cut, URL too
                 help=f"Up to {limits.MAX_TOKENS} tokens are used. Words are split on spaces and "
                      "punctuation; Chinese, Japanese and Korean text one character at a time.")
    up = sb.file_uploader("…or pick a line from a .txt file", type=["txt"], key="upload",
                          max_upload_size=max(1, limits.MAX_UPLOAD_BYTES // 1_000_000),
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
    return notices_slot, sb.empty()


# ---- links that reproduce a view --------------------------------------------------

def _show_notices(slot, dismiss: bool) -> None:
    if not link_notices():
        slot.empty()
        return
    with slot.container():
        for msg in link_notices():
            st.warning(msg, icon=":material/link_off:")
        if dismiss and st.button("Dismiss", key="link_dismiss"):
            link_notices().clear()
            st.rerun()


def share_link(slots) -> None:
    """End of run: link notices at the top of the sidebar, the shareable link in its slot."""
    notices_slot, link_slot = slots
    params = {k: st.query_params.get_all(k) for k in st.query_params}
    if not st.session_state.get("_link_checked"):
        st.session_state["_link_checked"] = True
        rejected, unused = rejected_params(st.session_state.get("_link_initial", {}),
                                           dict(st.session_state), current=params)
        link_notices().extend(rejected)
        if unused:
            link_notices().append("Ignored link parameter(s) that nothing on this page uses: "
                                  + ", ".join(_short(u) for u in unused[:10]) + ".")
    _show_notices(notices_slot, dismiss=True)
    with link_slot.expander("Share this view", icon=":material/link:"):
        st.caption("Anyone who opens this link sees this page, model, sentence and settings. "
                   "Hover the box and click its copy icon.")
        st.code(share_url(st.context.url, params, _drawn_widget_keys()), language=None,
                wrap_lines=True)
        if st.session_state.get("model", "").startswith(OWN_PREFIX):
            st.caption("Your own model is not in the link (it lives only in this session): "
                       "download it on page 6 and send the file.")


def _drawn_widget_keys():
    """Keys of the widgets drawn in this run, as a container (`in` works); None if Streamlit
    does not say (it is internal: ctx.shared.widget_user_keys_this_run in 1.67)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    ctx = get_script_run_ctx()
    return getattr(getattr(ctx, "shared", None), "widget_user_keys_this_run", None)


# ---- exports ----------------------------------------------------------------------------

def show_figure(fig, name: str, key: str | None = None) -> None:
    """The chart (its toolbar saves a PNG) and a button that downloads it as standalone HTML.

    The HTML (about 5 MB: plotly.js is inside, so it opens offline) is made only on click."""
    st.plotly_chart(fig, width="stretch", key=None if key is None else f"{key}_chart")
    st.download_button("Download chart as HTML", data=lambda: export.figure_html(fig),
                       file_name=export.safe_filename(name, "html"), mime="text/html",
                       key=f"{key or export.safe_filename(name, 'html')}_html", on_click="ignore",
                       icon=":material/download:")


def download_csv(df, name: str, key: str | None = None, label: str | None = None) -> None:
    """A button that downloads a table as CSV (full float precision)."""
    st.download_button(label or f"Download {name} as CSV", data=lambda: export.csv_bytes(df),
                       file_name=export.safe_filename(name, "csv"), mime="text/csv",
                       key=f"{key or export.safe_filename(name, 'csv')}_csv", on_click="ignore",
                       icon=":material/download:")


def download_trace(cur: "Current", key: str) -> None:
    """Pick a table of the current trace (tokens, h_t, p, gradients...) and download it."""
    names = {"tokens": "tokens, targets and losses", "h": "hidden states h_t",
             "a": "pre-activations a_t", "p": "probabilities p_t", "grad_h": "dL/dh_t",
             "delta": "dL/da_t", "grad_x": "dL/dx_t", "grads": "parameter gradients"}
    c1, c2 = st.columns([2, 1], vertical_alignment="bottom")
    table = c1.selectbox("Table of this trace", list(names), format_func=names.get,
                         key=f"{key}_table")
    with c2:
        download_csv(export.trace_frame(cur.trace, cur.vocab, table), f"trace-{table}",
                     key=f"{key}_{table}", label="Download CSV")


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
    finish_interrupted_training()  # no-ops after the sidebar; needed when a page runs alone
    _apply_pending_model()
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
