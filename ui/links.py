"""URL state in and out: the model named in a link, link notices, the share box, and the one
pages/-folder workaround. The checks themselves are pure (rnnviz.links); this file only reads
and writes st.query_params and session state.

Widgets bind their own values to the URL (`bind="query-params"`); what is here is what a
widget cannot do alone: the model (its options depend on the session), values that would crash
a widget, and telling the learner what a link asked for that could not be shown.
"""
from __future__ import annotations

from pathlib import Path

import streamlit as st
from streamlit import config as st_config
from streamlit.runtime.pages_manager import PagesManager

from rnnviz.explain.checkpoints import KEYS as CHECKPOINT_KEYS
from rnnviz.serve import replica
from rnnviz.serve.links import (
    OWN_PREFIX,
    _short,
    link_model_problem_item,
    overflowing_params,
    rejected_items,
    share_url,
)

from .i18n import t
from .widgets import SHARE_BOX, SHARE_VIEW, md_escape

# Widget keys whose values must survive a page that runs alone (see page_runs_alone).
SIDEBAR_KEYS = ("model", "text", "lang")


def page_runs_alone() -> bool:
    """The one workaround for Streamlit's pages/ folder. True when the caller must draw the
    sidebar itself (AppTest only).

    Streamlit treats an app with a pages/ folder as an old-style multipage app until the first
    st.navigation call: if a server's very first request is a deep link (/embedding), that page
    runs alone, without app.py's sidebar and link handling (AppTest does the same after
    switch_page). app.py owns the navigation, so a page that finds itself alone switches the old
    mode off and reruns through app.py. AppTest runs a switched-to page alone on every run (a
    rerun would drop clicks), so there the caller draws the sidebar, its widgets keeping the
    values chosen on other pages (AppTest has no browser to update the URL, so the first URL is
    stale there). Calls nothing of the sidebar itself: no call loop."""
    if not PagesManager.uses_pages_directory:
        return False
    PagesManager.uses_pages_directory = False
    if not st_config.get_option("global.appTest"):
        st.rerun()
    kept = [k for k in SIDEBAR_KEYS if k in st.session_state]
    forget_initial_params(kept)
    for key in kept:
        st.session_state[key] = st.session_state[key]
    return True


def forget_initial_params(keys, remove: bool = False) -> None:
    """Streamlit seeds a widget from its private copy of the first URL (no public API to edit it)."""
    from streamlit.runtime.state.session_state_proxy import get_session_state
    with get_session_state().query_params() as qp:
        for key in keys:
            qp._initial_query_params.pop(key, None)
            if remove:
                qp.remove_param(key)


def notices() -> list[str]:
    """Messages about what a link asked for and could not get (shown atop the sidebar)."""
    return st.session_state.setdefault("_link_notices", [])


def read_link(options: list[str]) -> None:
    """Once per session, before any widget: drop values that would crash a widget, remember the
    link's parameters, and take the model it names (?model=notes) or say why not."""
    if st.session_state.get("_link_read"):
        return
    st.session_state["_link_read"] = True
    _drop_overflowing_params()
    st.session_state["_link_initial"] = {k: st.query_params.get_all(k) for k in st.query_params}
    _replica_notice()
    asked = st.query_params.get("model")
    if asked is None:
        return
    problem = link_model_problem_item(asked, options)
    if problem:
        key, values = problem
        notices().append(t(f"links.{key}", **{k: md_escape(v) for k, v in values.items()}))
        del st.query_params["model"]
    else:
        st.session_state["model"] = asked
        st.session_state["_model_pinned"] = True  # a link's model stays, whatever is typed


def _drop_overflowing_params() -> None:
    """Remove values that would crash a bound number input ("1e309", "-inf"), from the URL and
    from Streamlit's private copy of the first URL; text parameters ("?glossary_q=infinity")
    are left alone."""
    bad = overflowing_params({k: st.query_params.get_all(k) for k in st.query_params})
    if not bad:
        return
    forget_initial_params(bad, remove=True)
    notices().append(t("links.too_large", names=", ".join(_short(k) for k in bad[:10])))


def sync_model_param(key: str, default: str | None = None) -> None:
    """Keep ?model= in the URL equal to the chosen model, always present: a link opens the same
    model whatever a fresh session starts on. (`default` is ignored; kept for old callers.)"""
    if st.query_params.get("model") != key:
        st.query_params["model"] = key


def show_notices(slot, dismiss: bool) -> None:
    """The link notices in their sidebar slot; with a Dismiss button at the end of the run."""
    if not notices():
        slot.empty()
        return
    with slot.container():
        for msg in notices():
            st.warning(msg, icon=":material/link_off:")
        if dismiss and st.button(t("links.dismiss"), key="link_dismiss"):
            notices().clear()
            st.rerun()


def _replica_notice() -> None:
    """Behind the load balancer: a session whose replica stopped was moved here; say so."""
    old, here = st.context.cookies.get(replica.COOKIE), replica.this_replica()
    if replica.moved_notice(old, here):
        notices().append(t("links.moved", old=md_escape(old), here=md_escape(here)))


CLAIMED = "_link_claimed"  # link parameters a page reads itself (not a widget): cell=s,t, unit=k
HELD = "_link_unused_held"  # unused names waiting until no checkpoint hides part of the page


def claim(*names: str) -> None:
    """A page reads these link parameters itself (ui/cellpick.py's cell=s,t): they are not
    "unused", and the share link keeps them although no widget has their name."""
    st.session_state.setdefault(CLAIMED, set()).update(names)


def claimed() -> set:
    return st.session_state.get(CLAIMED, set())


def _checkpoint_pending() -> bool:
    """Does a predict-first checkpoint hide part of this page in this run (its question drawn)?
    The widgets it hides have not read the link yet."""
    drawn = _drawn_widget_keys()
    return drawn is not None and any(k in drawn for k in CHECKPOINT_KEYS)


def check_link_once() -> None:
    """End of the first run: which link values did the widgets refuse, and which does no widget
    use? (Only then have the page's widgets read the URL.) While a checkpoint hides part of the
    page, the names no widget has read yet are held, and said only in a run without one."""
    held = st.session_state.get(HELD)
    if held and not _checkpoint_pending():
        st.session_state.pop(HELD)
        unused = [u for u in held if u not in st.session_state and u not in claimed()]
        if unused:
            notices().append(t("links.unused", names=", ".join(_short(u) for u in unused[:10])))
    if st.session_state.get("_link_checked"):
        return
    st.session_state["_link_checked"] = True
    rejected, unused = rejected_items(st.session_state.get("_link_initial", {}), dict(st.session_state),
                                      skip=("model", "class", "teacher", "lesson", "step", *claimed()),
                                      current=current_params())
    notices().extend(t("links.rejected", **{k: md_escape(v) for k, v in r.items()}) for r in rejected)
    if unused and _checkpoint_pending():
        st.session_state[HELD] = unused
    elif unused:
        notices().append(t("links.unused", names=", ".join(_short(u) for u in unused[:10])))


_PAGE_WIDGETS = "_share_page_widgets"  # session key: the widget keys the last full run drew


def main_script_folder() -> Path | None:
    """The folder of the script Streamlit runs (app.py's, deploy/ for deploy/streamlit_app.py),
    where it serves static/ from; None outside a script run."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    ctx = get_script_run_ctx()
    return None if ctx is None else Path(ctx.main_script_path).resolve().parent


def _drawn_widget_keys():
    """Keys of the widgets drawn in this run, as a container (`in` works); None if Streamlit
    does not say (it is internal: ctx.shared.widget_user_keys_this_run in 1.67). A fragment's
    rerun draws only its own widgets: the others are those of the last full run."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    ctx = get_script_run_ctx()
    drawn = getattr(getattr(ctx, "shared", None), "widget_user_keys_this_run", None)
    if drawn is None:
        return None
    drawn = drawn.snapshot() if hasattr(drawn, "snapshot") else frozenset(drawn)
    if getattr(ctx, "fragment_ids_this_run", None):
        return drawn | st.session_state.get(_PAGE_WIDGETS, frozenset())
    st.session_state[_PAGE_WIDGETS] = drawn
    return drawn


def current_params() -> dict[str, list[str]]:
    return {k: st.query_params.get_all(k) for k in st.query_params}


class _Keep:
    """The parameters the share link keeps: drawn widgets' keys (Streamlit's set answers `in`
    only, it cannot be iterated) and the claimed ones."""

    def __init__(self, drawn, claimed_names):
        self.drawn, self.claimed = drawn, set(claimed_names)

    def __contains__(self, key) -> bool:
        return key in self.claimed or key in self.drawn


@st.fragment(key=SHARE_VIEW)
def share_view(slot) -> None:
    """The share box as a fragment: a step move reruns it with the page's step fragment
    (widgets.rerun_step_view), so the link follows a move that reruns no more than that."""
    share_box(slot)


def share_box(slot) -> None:
    """'Share this view': the link to this page with the model, sentence and every setting."""
    # Opening the box reruns this fragment (on_change="rerun"): the link is computed from the URL
    # as it is then. A control inside a page's step fragment writes the URL but does not rerun
    # this box, so a link drawn before would miss it (emb_rule=wd after page 1's rule radio).
    with slot.expander(t("links.share"), icon=":material/link:", key=SHARE_BOX, on_change="rerun"):
        st.caption(t("links.share_help"))
        drawn = _drawn_widget_keys()
        keep = None if drawn is None else _Keep(drawn, claimed())
        st.code(share_url(st.context.url, current_params(), keep), language=None, wrap_lines=True)
        if st.session_state.get("model", "").startswith(OWN_PREFIX):
            st.caption(t("links.own_model"))


# ---- Streamlit internals: the one contained workaround --------------------------------------
# Nothing else in ui/ imports streamlit.runtime (tests/core/test_layering.py checks it). Each
# helper says what it reaches for; on a Streamlit without it, it does nothing.

def set_initial_param(key: str, value: str) -> None:
    """Streamlit's private copy of the first URL, so that a widget seeds from `value`."""
    from streamlit.runtime.state.session_state_proxy import get_session_state
    with get_session_state().query_params() as qp:
        qp._initial_query_params[key] = [value]


def session_state_object():
    """This session's own state object (Streamlit's SafeSessionState), readable outside a script
    run, where st.session_state reads an empty one: a download's data made on click after the run
    (ui/stepped.chart). st.session_state itself when there is no run context."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    ctx = get_script_run_ctx()
    return ctx.session_state if ctx is not None else st.session_state


def in_fragment_rerun() -> bool:
    """Whether this run is a fragment's own rerun (ctx.fragment_ids_this_run in 1.67)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    ctx = get_script_run_ctx()
    return bool(ctx is not None and getattr(ctx, "fragment_ids_this_run", None))


def current_session_id() -> str | None:
    """The id of the session whose script run this thread is, or None (another thread)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    ctx = get_script_run_ctx(suppress_warning=True)
    return getattr(ctx, "session_id", None) if ctx is not None else None


def connected_session_ids() -> set[str]:
    """The ids of the sessions with a browser tab connected now (1.67's
    runtime._session_mgr._active_session_info_by_id; read in one step, no lock taken). A closed
    tab's session, kept for a reconnect, is not one of them. Empty without a runtime."""
    from streamlit import runtime
    if not runtime.exists():
        return set()
    active = getattr(runtime.get_instance()._session_mgr, "_active_session_info_by_id", None)
    return set(active) if isinstance(active, dict) else set()


def expire_closed_sessions(manager=None) -> int:
    """Drop the sessions kept past server.disconnectedSessionTTL from Streamlit's session store,
    under its own lock (1.67's runtime._session_mgr._session_storage._cache); how many."""
    from streamlit import runtime
    if manager is None:
        if not runtime.exists():
            return 0
        manager = runtime.get_instance()._session_mgr
    lock = getattr(manager, "_storage_lock", None)
    store = getattr(getattr(manager, "_session_storage", None), "_cache", None)
    if lock is None or not hasattr(store, "expire"):
        return 0
    with lock:
        return len(store.expire())
