"""Ask the model directly (issue 28), shared by the overview and page 2: a hidden-state heatmap
whose cells open (that unit over the sentence, that step's whole vector, where the unit is most /
least active), the search for units that track a property, and the clamp that silences one."""
from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from rnnviz import limits
from rnnviz.conventions import TAGS
from rnnviz.engine import units
from rnnviz.explain import units as lessons
from rnnviz.explain.home import hidden_peak
from rnnviz.figures import hidden as fh
from rnnviz.figures.units import change_bars, step_vector
from rnnviz.formatting import num, num_inside

from .. import cache, resources, session
from ..cellpick import pick_cell
from ..i18n import prose, t
from ..widgets import code_radio, guard, md_escape, show_figure
from .slots.common import setup as slot_setup

SOURCES = ("sentence", "text", "slot")
PROPERTIES = ("span", "quotes", "half", "after")
TEXT_PROPERTIES = ("quotes", "half", "after")
BIND = {"bind": "query-params"}
MAX_LINES = 400  # lines of a text the search reads (the first ones)


def hidden_map(values, tokens, fig, key: str, keys: tuple[str, str], split: int | None = None,
               name: str = "h", steps: dict | None = None, download=None) -> tuple[int, int]:
    """A units x steps heatmap made clickable, and the chosen cell opened below it. Returns
    (unit, step), 0-based. fig: the heatmap (rows units, columns steps); steps: the chart follows
    the step slider (ui/stepped.steps_data); download: its download's figure, made on click."""
    T, H = values.shape
    peak = hidden_peak(values)
    unit, step = pick_cell(fig, t("probe.map_file", name=name), key, keys,
                           (t("probe.unit_row"), t("probe.step_col")), ((1, H), (1, T)),
                           (peak["unit"] + 1, peak["t"] + 1), link="unit", steps=steps,
                           download=download)
    unit_panel(values, tokens, unit - 1, step - 1, key, split, name)
    return unit - 1, step - 1


def unit_panel(values, tokens, unit: int, step: int, key: str, split: int | None, name: str) -> None:
    """Unit `unit` over the sentence, step `step`'s whole vector, where the unit is most / least active."""
    st.markdown(t("probe.cell_header", u=_unit_name(unit, split), t=step + 1, tok=md_escape(tokens[step]),
                  v=num_inside(float(values[step, unit])), name=name))
    c1, c2 = st.columns(2)
    with c1:
        show_figure(cache.figure(fh.unit_lines, values, tokens, [unit], name, labels={
            "title": t("probe.line_title", u=_unit_name(unit, split), name=name), "x": t("hidden.ax_step"),
            "y": t("hidden.ax_named", name=name)}), "unit-line", key=f"{key}_line")
    with c2:
        show_figure(cache.figure(step_vector, values[step], unit, {
            "title": t("probe.vector_title", t=step + 1, name=name), "x": t("hidden.ax_unit"),
            "y": t("hidden.ax_named", name=name)}, split), "step-vector", key=f"{key}_vector")
    ext = units.extremes(values, unit, 3)
    st.caption(t("probe.extremes", u=_unit_name(unit, split), most=_places(ext["most"], tokens),
                  least=_places(ext["least"], tokens)))


def _places(pairs, tokens) -> str:
    return ", ".join(f"“{md_escape(tokens[i])}” ({t('probe.step_short', t=i + 1)}, {num_inside(v)})"
                     for i, v in pairs)


def _unit_name(unit: int, split: int | None) -> str:
    if split is None:
        return f"u{unit + 1}"
    return f"→u{unit + 1}" if unit < split else f"←u{unit - split + 1}"


# ---- find units that track something ---------------------------------------------------------

@dataclass(frozen=True)
class Subject:
    """What the search reads and silences: a model on a sentence (session.Current has the same
    fields; page 8 makes one for the LSTM or GRU of its trio)."""

    model: object
    vocab: object
    tokens: list
    trace: object
    input_ids: tuple
    lang: str


def unit_search(cur: session.Current | Subject, p: str, sources: tuple[str, ...] = SOURCES,
                pick=None) -> None:
    """Folded (computes nothing when closed): rank the units by how well they separate a property,
    then silence one. p: the page's key prefix. The slot source uses page 5's taggers and data.
    pick: called first inside the open box, returns the Subject to search (page 8: LSTM or GRU)."""
    st.header(t("probe.h_search"), anchor=f"{p}-search")
    with st.expander(t("probe.search_open"), key=f"{p}_search", on_change="rerun",
                     bind="query-params") as box:
        if not box.open:
            return
        cur = pick() if pick is not None else cur
        st.markdown(prose("probe", "search"))
        source = code_radio(t("probe.source"), sources, f"{p}_src", lambda c: t(f"probe.src.{c}"))
        with guard():
            if source == "slot":
                _slot_search(p, slot_setup(cur.lang))
            else:
                _lm_search(cur, p, source)


def _lm_search(cur: session.Current, p: str, source: str) -> None:
    """The current model: over the learner's sentence (in sample) or a text (a third held out)."""
    props = PROPERTIES if source == "sentence" else TEXT_PROPERTIES
    kind = code_radio(t("probe.property"), props, f"{p}_prop", lambda c: t(f"probe.prop.{c}"))
    tokens, T = cur.tokens, cur.trace.T
    span, word = (0, 0), ""
    if kind == "span":
        c1, c2 = st.columns(2)
        a = int(c1.number_input(t("probe.span_first"), 1, T, 1, key=f"{p}_span_a", **BIND))
        b = int(c2.number_input(t("probe.span_last"), 1, T, min(2, T), key=f"{p}_span_b", **BIND))
        span = (min(a, b) - 1, max(a, b) - 1)
        st.caption(t("probe.span_is", words=md_escape(" ".join(tokens[span[0]:span[1] + 1]))))
    if kind == "after":
        word = st.text_input(t("probe.after_word"), tokens[min(1, T - 1)], key=f"{p}_word",
                             max_chars=limits.MAX_LABEL_CHARS * 4)  # not in the link: free text
    if source == "sentence":
        found = cache.search_sentence(cur.model, cur.trace, tokens, kind, span, word)
    else:
        found = cache.search_text(cur.model, cur.vocab, _text_lines(p, setup_lang=cur.lang), kind, word)
    _results(found, cur.tokens, cur.trace.h.numpy(), "h")
    _lm_clamp(cur, p, found)


def _text_lines(p: str, setup_lang: str) -> list[str]:
    """The learner's own text (one sentence a line), or else page 5's travel sentences."""
    own = st.text_area(t("probe.own_text"), "", key=f"{p}_text", height=90, max_chars=limits.MAX_TEXT_CHARS,
                       help=t("probe.own_text_help", n=MAX_LINES))
    lines = [x.strip() for x in own.splitlines() if x.strip()][:MAX_LINES]
    if lines:
        return lines
    data = resources.zh_tagging_data() if setup_lang == "zh" else resources.tagging_data()
    sep = "" if setup_lang == "zh" else " "
    st.caption(t("probe.builtin_text", n=min(MAX_LINES, len(data.train))))
    return [sep.join(toks) for toks, _ in data.train[:MAX_LINES]]


def _results(found: dict, tokens, values, name: str, split: int | None = None) -> None:
    """The ranking, the honest verdict, and the best unit over the sentence."""
    rows = [{t("probe.col.unit"): _unit_name(r["unit"], split), t("probe.col.d"): r["d"],
             t("probe.col.p"): r["p"], t("probe.col.auc"): r["auc"]} for r in found["rows"]]
    best = found["rows"][0]
    where = t("probe.in_sample") if found["in_sample"] else t("probe.held_out")
    if found["tracked"]:
        st.success(t("probe.tracked", u=_unit_name(best["unit"], split), auc=f"{best['auc']:.3f}",
                     where=where))
    else:
        st.warning(t("probe.not_tracked", auc=f"{max(r['auc'] for r in found['rows']):.3f}", where=where,
                     good=units.AUC_GOOD))
    st.caption(t("probe.counts", pos=found["n_pos"], neg=found["n_neg"], n=found["n_perm"]))
    st.dataframe(rows, hide_index=True, column_config={
        t("probe.col.d"): st.column_config.NumberColumn(format="%.3f"),
        t("probe.col.p"): st.column_config.NumberColumn(format="%.4f"),
        t("probe.col.auc"): st.column_config.NumberColumn(format="%.3f")})
    show_figure(fh.unit_lines(values, tokens, [best["unit"]], name, labels={
        "title": t("probe.best_title", u=_unit_name(best["unit"], split), name=name),
        "x": t("hidden.ax_step"), "y": t("hidden.ax_named", name=name)}), "best-unit", key="probe_best")


def _lm_clamp(cur: session.Current, p: str, found: dict) -> None:
    """Silence a unit of the current language model: delta log p(next token) per position."""
    st.subheader(t("probe.h_clamp"))
    H = cur.model.cfg.H_out
    c1, c2 = st.columns(2)
    unit = int(c1.number_input(t("probe.clamp_unit"), 1, H, found["rows"][0]["unit"] + 1, key=f"{p}_clamp_u",
                               bind="query-params")) - 1
    with c2:
        to = code_radio(t("probe.clamp_to"), ("zero", "mean"), f"{p}_clamp_to", lambda c: t(f"probe.to.{c}"))
    value = 0.0 if to == "zero" else lessons.state_mean(cur.trace.h, unit)
    if cur.trace.T < 2:
        st.caption(t("probe.clamp_short"))
        return
    out = cache.clamp_effect(cur.model, cur.input_ids, unit, value, lm=True)
    st.markdown(prose("probe", "clamp-lm", u=unit + 1, value=num(value),
                      total=f"{lessons.total_change(out['delta']):+.3f}"))
    tokens = [f"{a} → {b}" for a, b in zip(cur.tokens, cur.tokens[1:])]
    show_figure(change_bars(out["delta"].numpy(), tokens, {"title": t("probe.clamp_title", u=unit + 1),
                                                           "y": t("probe.delta_logp")}),
                "clamp", key=f"{p}_clamp_fig")
    st.markdown(t("probe.largest", items=", ".join(
        f"“{md_escape(tokens[i])}” {d:+.3f}" for i, d in units.largest_changes(out["delta"], 3))))


# ---- the slot source: page 5's tagger --------------------------------------------------------

def _slot_search(p: str, setup) -> None:
    """Page 5's Elman tagger: a slot tag against another (or every other tag), the worked example."""
    model = setup.shipped["elman"]
    ex = cache.slot_example(model, setup.data, setup.lang, setup.pair)
    _worked_example(ex, setup)
    c1, c2 = st.columns(2)
    tags = list(TAGS)
    a = c1.selectbox(t("probe.tag_a"), tags, 1, key=f"{p}_tag_a", format_func=_tag_names().__getitem__)
    rest = ["*"] + [x for x in tags if x != a]
    names = _tag_names() | {"*": t("probe.every_other")}
    b = c2.selectbox(t("probe.tag_b"), rest, rest.index("departure") if "departure" in rest else 0,
                     key=f"{p}_tag_b", format_func=names.__getitem__)
    found = cache.search_slots(model, setup.data, setup.lang, a, None if b == "*" else b)
    tokens, h = lessons.sentence_states(model, setup.data.vocab, setup.pair[0])
    _results(found, tokens, h.numpy(), "h")
    _slot_clamp(p, setup, model, found)


def _slot_clamp(p: str, setup, model, found: dict) -> None:
    """Silence a unit of the tagger: delta p(tag) per token of the notes' pair."""
    st.subheader(t("probe.h_clamp"))
    H = model.cfg.H_out
    c1, c2 = st.columns(2)
    unit = int(c1.number_input(t("probe.clamp_unit"), 1, H, found["rows"][0]["unit"] + 1,
                               key=f"{p}_sclamp_u", bind="query-params")) - 1
    with c2:
        to = code_radio(t("probe.clamp_to"), ("zero", "mean"), f"{p}_sclamp_to", lambda c: t(f"probe.to.{c}"))
    value = 0.0 if to == "zero" else cache.slot_unit_mean(model, setup.data, setup.lang, unit)
    st.markdown(prose("probe", "clamp-tagger", u=unit + 1, value=num(value)))
    cols = st.columns(2)
    for i, (col, text) in enumerate(zip(cols, setup.pair[:2])):
        out = cache.slot_clamp(model, setup.data.vocab, setup.lang, text, unit, value)
        with col:
            show_figure(change_bars(out["delta"].numpy(), out["tokens"], {
                "title": md_escape(text), "y": t("probe.delta_tag")}), "clamp-tags", key=f"{p}_sclamp_{i}")
            changed = [f"“{md_escape(out['tokens'][k])}” {t(f'slots.tag.{TAGS[int(a)]}')} → "
                       f"{t(f'slots.tag.{TAGS[int(b)]}')}"
                       for k, (a, b) in enumerate(zip(out["tags"], out["tags_clamped"])) if a != b]
            st.caption(t("probe.tags_changed", items=", ".join(changed)) if changed else t("probe.tags_same"))


def _tag_names() -> dict:
    return {x: t(f"slots.tag.{x}") for x in TAGS}


def _worked_example(ex: dict, setup) -> None:
    """The prose's worked example with the numbers found now (rnnviz.explain.units.slot_example)."""
    a, b = ex["rows"]
    st.markdown(prose("probe", "example", u=ex["unit"] + 1, d=f"{ex['d']:.2f}", p=f"{ex['p']:.4f}",
                      auc=f"{ex['auc']:.3f}", value=num(ex["value"]), word=md_escape(setup.pair[2]),
                      a=md_escape(a["text"]), b=md_escape(b["text"]),
                      a_dest=f"{a['dest']:.3f}", a_dest_c=f"{a['dest_clamped']:.3f}",
                      b_dep=f"{b['dep']:.3f}", b_dep_c=f"{b['dep_clamped']:.3f}",
                      a_tag=t(f"slots.tag.{a['tag_clamped']}"), b_tag=t(f"slots.tag.{b['tag_clamped']}")))
    kept = all(r["tag"] == r["tag_clamped"] for r in ex["rows"])
    st.markdown(prose("probe", "example-kept" if kept else "example-changed"))
