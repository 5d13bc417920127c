"""Shared widgets: figure display, downloads, the error guard, a tolerant step slider and the
one exercise widget used by every "try it by hand".

Everything here draws; nothing computes a number (the numbers come from rnnviz).
"""
from __future__ import annotations

import contextlib
import html
from typing import Callable

import streamlit as st
from streamlit.errors import StreamlitAPIException

from rnnviz.errors import InputError
from rnnviz.explain.exercises.verdict import Verdict
from rnnviz.safe_text import escape_md
from rnnviz.store import export

from .charts import chart
from .i18n import error_text, same_label, t


def md_escape(text: str) -> str:
    """User text inside markdown: every markdown, LaTeX and HTML character escaped, and bare
    URLs / e-mail addresses defused (rnnviz.safe_text.escape_md, tested there)."""
    return escape_md(str(text))


@contextlib.contextmanager
def guard():
    """Show an InputError as a message instead of a traceback; the rest of the page goes on."""
    try:
        yield
    except InputError as err:
        st.error(error_text(err))


def plotly_json_settings() -> None:
    """Charts' JSON written by the standard library's json, on every machine: plotly's default
    ("auto") takes orjson when it is installed, whose first try fails on a figure that holds
    numpy text arrays (hover text) and then cleans every value in Python: 3.8 against 1.3 ms a
    page-8 step move, 7.1 against 2.2 ms the overview. app.py calls it once (no import side effect)."""
    import plotly.io as pio
    pio.json.config.default_engine = "json"


def show_figure(fig, name: str, key: str | None = None) -> None:
    """The chart (its toolbar saves a PNG) and a button that downloads it as standalone HTML.

    The HTML (about 5 MB: plotly.js is inside, so it opens offline) is made only on click."""
    chart(fig, width="stretch", key=None if key is None else f"{key}_chart")
    download_figure(fig, name, key)


def download_figure(fig, name: str, key: str | None = None) -> None:
    """The button that downloads a figure as standalone HTML (made only on click). fig: the
    figure, or a function that builds it (then the figure too is made only on click)."""
    st.download_button(t("widgets.download_chart"),
                       data=lambda: export.figure_html(fig() if callable(fig) else fig),
                       file_name=export.safe_filename(name, "html"), mime="text/html",
                       key=f"{key or export.safe_filename(name, 'html')}_html", on_click="ignore",
                       icon=":material/download:")


def download_csv(df, name: str, key: str | None = None, label: str | None = None) -> None:
    """A button that downloads a table as CSV (full float precision), made only on click.
    df: the table, or a function that makes it (then the table too is made only on click)."""
    st.download_button(label or t("widgets.download_csv", name=name),
                       data=lambda: export.csv_bytes(df() if callable(df) else df),
                       file_name=export.safe_filename(name, "csv"), mime="text/csv",
                       key=f"{key or export.safe_filename(name, 'csv')}_csv", on_click="ignore",
                       icon=":material/download:")


TRACE_TABLES = ("tokens", "h", "a", "p", "grad_h", "delta", "grad_x", "grads")


def download_trace(tr, vocab, key: str) -> None:
    """Pick a table of a trace (tokens, h_t, p, gradients...) and download it as CSV."""
    c1, c2 = st.columns([2, 1], vertical_alignment="bottom")
    names = {k: t(f"widgets.trace.{k}") for k in TRACE_TABLES}  # translated now (see labels_of)
    table = c1.selectbox(t("widgets.trace_table"), list(TRACE_TABLES), format_func=names.__getitem__,
                         key=f"{key}_table")
    with c2:
        download_csv(lambda: export.trace_frame(tr, vocab, table), f"trace-{table}", key=f"{key}_{table}",
                     label=t("widgets.download_csv_short"))


def labels_of(options, label) -> Callable[[object], str]:
    """A format_func with every option's label computed now, in this run's language.

    Streamlit (and AppTest) may call a format_func outside the run; one that calls t() there
    would label the options in English while the run drew them in Chinese."""
    names = {opt: label(opt) for opt in options}
    return lambda opt: names.get(opt, str(opt))


def clamp_kept(key: str, lo: int, hi: int) -> None:
    """A value kept in the session or the URL may be out of range for a new sentence: clamp it
    before the widget reads it (Streamlit would otherwise reset or reject it)."""
    v = st.session_state.get(key)
    if isinstance(v, int) and not lo <= v <= hi:
        st.session_state[key] = min(max(v, lo), hi)


def step_slider(label: str, lo: int, hi: int, default: int, key: str, **kw) -> int:
    """A step slider (1-based t) bound to the URL whose kept value may be out of range; a
    one-step sentence gets a caption instead (a slider needs min < max). Hidden by a lesson
    step: the step's value (or the default), clamped, and nothing drawn."""
    hidden, given = lesson_hidden(key)
    if hidden:
        return min(max(_as_int(given, default), lo), hi)
    if lo == hi:
        st.caption(t("widgets.only_step", label=label, t=lo))
        return lo
    clamp_kept(key, lo, hi)
    return st.slider(label, lo, hi, min(max(default, lo), hi), key=key, bind="query-params", **kw)


SHARED_STEP = "shared_step"  # session key: the step t (1-based) the learner last chose on any page


def first_word_step(has_bos: bool) -> int:
    """The first step worth showing (1-based): the first real word, not <bos> (whose memory
    term W_h h_0 is zero)."""
    return 2 if has_bos else 1


def shared_step(label: str, T: int, has_bos: bool, key: str, deferred: bool = False, **kw) -> int:
    """The page's step slider, sharing one choice across pages: a page opened after the learner
    chose t elsewhere starts at that t (unless its own link names a step). 1-based.
    deferred: the slider sits in step_form(key) (its move is sent with the form's sync)."""
    kept = st.session_state.get(SHARED_STEP)
    if key not in st.session_state and key not in st.query_params and isinstance(kept, int):
        st.session_state[key] = min(max(kept, 1), T)
    changed = {} if deferred else {"on_change": share_step, "args": (key,)}  # a form's widget has none
    value = step_slider(label, 1, T, first_word_step(has_bos), key, **changed, **kw)
    st.session_state[SHARED_STEP] = value
    return value


STEP_SYNC = "step_sync_"  # widget key prefix: a step form's hidden submit button (PHONE_CSS hides it)


@contextlib.contextmanager
def step_form(key: str, deferred: bool):
    """Around a page's step slider `key` (and its ◀ ▶, made by step_button): where its parts
    follow the slider in the browser (ui/stepped.py), a form, so that a move of the slider runs
    nothing at once. Streamlit draws the new value and writes it to the URL; the parts show that
    step; ui/stepped.js presses the form's hidden sync button when the learner stops moving, at
    a step outside the parts' window, or before a page change. That one run keeps the step in
    the session (the other pages, the share link), and writes it in a hidden mark, for which a
    page link clicked meanwhile waits. ◀ ▶ submit the form with the slider's value.
    Not deferred: nothing around the slider, whose every move reruns the step fragment."""
    if not deferred:
        yield
        return
    with st.form(f"{key}_form", border=False, enter_to_submit=False):
        yield
        st.form_submit_button(t("widgets.step_sync"), key=STEP_SYNC + key, on_click=share_step, args=(key,))
        # the step this run keeps, hidden (PHONE_CSS): a page link clicked after a move waits for it
        kept = int(st.session_state[key])
        st.html(f'<span data-rnnviz-kept="{html.escape(key)}" data-step="{kept}"></span>')


def step_button(where, label: str, key: str, deferred: bool, **kw) -> bool:
    """A button beside a step slider (◀ ▶): in a step_form, one of its submit buttons."""
    return (where.form_submit_button if deferred else where.button)(label, key=key, **kw)


def share_step(key: str) -> None:
    """From a step control's callback: the step in `key` is every page's step. The control sits
    in the page's one step fragment, so its move reruns that fragment already; the share link is
    rerun with it only when its box is open (a closed box computes nothing, and opening it
    computes the link from the URL then). A rerun asked for here would be a second run of the
    fragment: the first, begun for the move, is cut short (35-95 ms of a move in Chromium)."""
    st.session_state[SHARED_STEP] = st.session_state[key]
    follow_share()


def follow_share() -> None:
    """From a step-fragment control's callback (share_step, or page 7's centre word, which is not
    every page's step): the share link follows the move when its box is open (see share_step)."""
    if st.session_state.get(SHARE_BOX):
        rerun_step_view()


# A control inside a page's step fragment (StepParts' last part: page 1's update, page 4's W_h scale):
# it reruns its part alone, and with an open share box the step fragment and the link (follow_share).
FOLLOW = {"on_change": follow_share}


# ---- a control reruns only what it drives --------------------------------------------------------
# A page's step slider and the parts it drives are ONE fragment (STEP_VIEW): a step move reruns
# that fragment and the sidebar's share link (SHARE_VIEW, ui/links.py), nothing else of the page.
# Widgets inside keep writing their values to the URL (bind="query-params" works in a fragment).

STEP_VIEW = "step_view"    # fragment key of a page's step slider and the parts it drives
SHARE_VIEW = "share_view"  # fragment key of the sidebar's share link
SHARE_BOX = "share_box"    # widget key: the share link's expander, True while open
STEP_PART = "step_part_"  # session keys: what a page's first step-view part hands to the later ones
INPUT_KEYS = ("model", "text", "lang")  # what every part depends on (the sidebar's choices)


def page_inputs() -> tuple:
    """The sidebar's model, sentence and language as this run sees them."""
    return tuple(st.session_state.get(k) for k in INPUT_KEYS)


def step_view(draw: Callable, *args):
    """`draw(*args)` (the page's step slider and the parts it drives) as the page's step
    fragment: a move of a widget inside reruns it alone. It draws with what the last full run
    gave it, so if the model, sentence or language changed since (page_inputs), it reruns the
    whole page instead: a part never shows one model's step with another's numbers.
    A page calls it once; parts around sections the step does not drive: StepParts."""
    return _step_view(draw, page_inputs(), args)


class StepParts:
    """A page's step fragment in parts around sections the step does not drive, drawn by ONE
    fragment call, so that a step move is one run of it (a fragment called twice is two call
    sites: a move reruns the one that drew the slider, and the others only by a second run).

        steps = StepParts()
        steps.here(by_step, cur)        # marks the place of the slider's part
        fixed(cur)                      # drawn once per page run
        steps.draw(by_step_below, cur)  # every marked part in its place, then this one here

    A marked part is drawn into its place by the fragment (a container made by the full run);
    later parts read what the first handed on with handed(), as before. The last part is a
    fragment of its own inside it: a control drawn there (page 1's update rule, page 4's W_h
    scale) reruns that part alone; a step move reruns them all."""

    def __init__(self):
        self.parts: list[tuple] = []  # (container, draw, args) in page order

    def here(self, draw: Callable, *args) -> None:
        self.parts.append((st.container(), draw, args))

    def draw(self, draw: Callable, *args):
        """Draw the marked parts in their places and draw(*args) here; returns its value."""
        return step_view(_draw_parts, tuple(self.parts), draw, args)


def _draw_parts(parts: tuple, draw: Callable, args: tuple):
    for place, part, part_args in parts:
        with place:
            part(*part_args)
    return inner_part(draw, *args)


def inner_part(draw: Callable, *args):
    """Inside a page's step fragment: draw(*args) as a fragment of its own, drawn with the step
    fragment and rerun alone by a control inside it (then, as the step fragment, only with the
    inputs it was drawn for). StepParts' last part; page 8's step written out, so that a step
    move does not redraw the gates over the sentence, which follow the LSTM/GRU choice only."""
    return _inner_part(draw, page_inputs(), args)


@st.fragment
def _inner_part(draw: Callable, inputs: tuple, args: tuple):
    return _draw_fresh(draw, inputs, args)


def named_part(key: str, draw: Callable, *args):
    """draw(*args) as the fragment named `key`, for a section outside the page's step fragment: a
    control inside reruns it alone (give the control on_change=follow_part, args=(key,), so that
    an open share box follows too), and, as inner_part, only with the inputs it was drawn for."""
    return st.fragment(_draw_fresh, key=key)(draw, page_inputs(), args)


def follow_part(key: str) -> None:
    """A control's callback in the fragment `key` (named_part): its change reruns that fragment
    alone, and the sidebar's share link with it while the link's box is open (closed, the box
    computes the link from the URL when it is opened)."""
    if st.session_state.get(SHARE_BOX):
        try:
            st.rerun([key, SHARE_VIEW])
        except StreamlitAPIException:  # no such fragment drawn in this session
            pass


def hand_on(name: str, value):
    """From a page's first step-view part to its later parts (see step_view): `value`, kept in
    this session for handed(name). Returns value."""
    st.session_state[f"{STEP_PART}{name}"] = value
    return value


def handed(name: str):
    """What the first step-view part of this run handed on as `name`."""
    return st.session_state[f"{STEP_PART}{name}"]


@st.fragment(key=STEP_VIEW)
def _step_view(draw: Callable, inputs: tuple, args: tuple):
    return _draw_fresh(draw, inputs, args)


def _draw_fresh(draw: Callable, inputs: tuple, args: tuple):
    """draw(*args) if the sidebar's model, sentence and language are still `inputs`; else the
    whole page reruns (a step fragment's rerun never draws with another model's numbers)."""
    if stale(inputs):
        st.rerun(scope="app")
    return draw(*args)


def stale(inputs: tuple) -> bool:
    """Did the model, sentence or language change after `inputs` were taken?"""
    return inputs != page_inputs()


def rerun_step_view() -> None:
    """From a step control's callback: rerun the page's step fragment and the share link only
    (a page without a step fragment: the usual rerun)."""
    try:
        st.rerun([STEP_VIEW, SHARE_VIEW])
    except StreamlitAPIException:  # no such fragment drawn in this session
        pass


def exercise_number(key: str) -> int:
    """'Exercise 1, 2, ...' (numbered from 1, bound to the URL) with a 'New exercise' button."""
    c1, c2 = st.columns([1, 3], vertical_alignment="bottom")
    c2.button(t("exercise.new"), key=f"{key}_new", on_click=_next_number, args=(f"{key}_n",))
    return int(c1.number_input(t("exercise.number"), 1, 1_000_000, 1, key=f"{key}_n",
                               bind="query-params"))


def _next_number(key: str) -> None:
    st.session_state[key] = int(st.session_state.get(key, 1)) + 1


def show_verdict(v: Verdict) -> None:
    """Right or wrong, with the checker's hint (from the catalogue when it names a key)."""
    if v.ok is None:
        return
    text = t(v.hint_key, **v.values) if v.hint_key else v.message
    (st.success if v.ok else st.error)(md_escape(text))
    for more in v.more:  # every slip, not only the first (the other wrong parts of the answer)
        st.error(md_escape(t(more.hint_key, **more.values) if more.hint_key else more.message))


def exercise(key: str, ask: Callable[[], object], check: Callable[[object], Verdict],
             solution: Callable[[], str] | None = None) -> Verdict | None:
    """The one "try it by hand" widget: `ask()` draws the inputs and returns the answer,
    a Check button runs `check(answer)` -> Verdict (its hint on a wrong answer), and
    "Show the solution" reveals `solution()` (or the Verdict's own solution).

    Returns the Verdict once checked (None before). An InputError from the checker (an
    unreadable answer) is a message, not a traceback."""
    answer = ask()
    c1, c2 = st.columns(2)
    checked = c1.button(t("exercise.check"), key=f"{key}_check", type="primary")
    if checked:  # attempt first: the solution opens only after at least one Check
        st.session_state[f"_{key}_checked"] = True
    tried = bool(st.session_state.get(f"_{key}_checked"))
    shown = c2.toggle(t("exercise.show_solution"), key=f"{key}_solution", disabled=not tried,
                      help=None if tried else t("exercise.check_first")) and tried
    result = None
    if checked:
        with guard():
            result = check(answer)
            show_verdict(result)
    if shown:
        text = solution() if solution else (result.solution if result else None)
        if text is None and result is None:
            with guard():
                text = check(answer).solution
        st.info(t("exercise.solution", solution=md_escape(text or t("exercise.no_solution"))))
    return result


# ---- choices kept in the link -----------------------------------------------------------------

def _seed_code(key: str, codes: list, names: list, default: int) -> None:
    """Before a coded widget exists: its value from the link. A code is taken as is; a label (the
    way links were written before they held codes, in either language) is read as its code, and
    the link check then compares the code; anything else is the default (the check says so)."""
    if key in st.session_state:
        return
    asked = st.query_params.get(key)
    by_code = {str(c): c for c in codes}
    code = by_code.get(asked)
    if code is None and asked is not None:
        label = same_label(asked, names)
        code = codes[names.index(label)] if label is not None else None
        if code is not None:
            st.session_state.setdefault("_link_initial", {})[key] = [str(code)]
            st.query_params[key] = str(code)
    st.session_state[key] = codes[default] if code is None else code


def _keep_code(key: str, value, default, sticky: bool = False) -> None:
    """The URL follows the widget: its code, or nothing for the default. `sticky`: a code the
    URL holds stays (as the default's code) when the default itself depends on the language or
    the sentence, so switching language cannot change what the link opens."""
    if value == default and not (sticky and key in st.query_params):
        st.query_params.pop(key, None)
    elif st.query_params.get(key) != str(value):
        st.query_params[key] = str(value)


def code_radio(label: str, codes, key: str, shown: Callable[[str], str], default: int = 0, **kw) -> str:
    """A horizontal radio whose URL value is the option's short code (emb_rule=wd), whatever the
    language (bind="query-params" would write the shown label, which differs between languages
    and made the app's own links warn). Seeded once from the link (an unknown code: the default,
    and the link check says so; an old link's label: its code), then the URL follows the widget;
    the default leaves the URL. `shown(code)` is the label in the learner's language."""
    codes = list(codes)
    hidden, given = lesson_hidden(key)
    if hidden:
        return _given_code(given, codes, default)
    names = {c: shown(c) for c in codes}  # now, in this run's language (AppTest formats later)
    _seed_code(key, codes, list(names.values()), default)
    value = st.radio(label, codes, key=key, format_func=names.__getitem__, horizontal=True, **kw)
    _keep_code(key, value, codes[default])
    return value


def labelled_choice(widget, label: str, codes, names, key: str, **kw):
    """A radio / selectbox kept in the link by its short code (bptt_ord=fro), shown with the
    learner's labels `names` (one per code): switching language keeps the choice, and a link
    written before, with a label in either language, opens on the same choice. `index=` is the
    default. Returns the chosen code."""
    codes, names = list(codes), list(names)
    default = kw.pop("index", 0)
    hidden, given = lesson_hidden(key)
    if hidden:
        return _given_code(given, codes, default)
    _seed_code(key, codes, names, default)
    shown = dict(zip(codes, names))
    value = widget(label, codes, key=key, format_func=lambda c: shown.get(c, str(c)), **kw)
    _keep_code(key, value, codes[default], sticky=True)
    return value


# ---- controls a lesson step hides -------------------------------------------------------------
# One mechanism for every control a lesson can name: the helpers above (step_slider and so
# shared_step, code_radio, labelled_choice) ask lesson_hidden(key) first; a hidden control is
# not drawn and its value is the step's parameter of the same name (else the default).
# ui/lesson.py registers the lookup (this module cannot import it: lesson draws with widgets).

_HIDDEN_LOOKUP: list[Callable[[str], tuple[bool, str | None]]] = []


def hide_controls_with(lookup: Callable[[str], tuple[bool, str | None]]) -> None:
    """Register lookup(key) -> (hidden by the current lesson step, the step's value or None)."""
    _HIDDEN_LOOKUP[:] = [lookup]


def lesson_hidden(key: str) -> tuple[bool, str | None]:
    return _HIDDEN_LOOKUP[0](key) if _HIDDEN_LOOKUP else (False, None)


def _as_int(text: str | None, default: int) -> int:
    try:
        return int(str(text))
    except ValueError:
        return default


def _given_code(given: str | None, codes: list, default: int):
    """A hidden choice's value: the step's code when it is one, else the default's."""
    return next((c for c in codes if str(c) == given), codes[default])
