"""Page 9: the path argument with this sentence's numbers (dL_T/dh_1 split into the recurrent
path and the attention paths), the same over T = 10 ... 200 beside page 8's measurements, and
the long-range task of page 8 measured for attention."""
from __future__ import annotations

import pandas as pd
import streamlit as st

from rnnviz.explain import attention, longrange
from rnnviz.figures.attention import length_figure
from rnnviz.figures.gates import longrange_figures
from rnnviz.formatting import num

from ... import cache, resources
from ...i18n import prose, t
from ...page import folded
from ...widgets import md_escape, show_figure
from .reader import PAGE, Run


def paths_split(run: Run) -> dict | None:
    """The split for the sentence's last loss from its first word, once (cached), or None when
    no step after the first word has a target."""
    args = attention.last_loss(run.trace)
    if args is None or len(args[0]) <= run.source:
        return None
    return cache.attention_split(run.model, *args, source=run.source)


def paths(run: Run, split: dict | None) -> None:
    st.subheader(t("attention.paths_header"), anchor="paths")
    if split is None:
        st.info(t("attention.no_loss"))
        return
    T, s = split["T"], split["source"]
    st.markdown(prose(PAGE, "paths", T=T, s=s + 1, n=T - 1 - s, tok=md_escape(run.tokens[T - 1]),
                      first=md_escape(run.tokens[s]), rec=num(split["recurrent_norm"]),
                      direct=num(split["direct_norm"]), later=num(split["later_norm"]),
                      att=num(split["attention_norm"]), total=num(split["total_norm"]),
                      loss=num(split["loss"]), k=split["top_k"] + 1, nk=split["top_jacobians"],
                      ktok=md_escape(run.tokens[split["top_k"]]), w=num(split["top_weight"])))
    rows = [(t("attention.part.recurrent"), T - 1 - s, split["recurrent_norm"]),
            (t("attention.part.direct"), 0, split["direct_norm"]),
            (t("attention.part.later"), f"1 … {T - 1 - s}" if T - 1 > s else "—", split["later_norm"]),
            (t("attention.part.total"), "", split["total_norm"])]
    st.dataframe(pd.DataFrame([{t("attention.col.path"): a, t("attention.col.jacobians"): str(b),
                                t("attention.col.norm"): num(c)} for a, b, c in rows]), hide_index=True)
    per_k = attention.attention_part_norms(split)
    weights = split["weights"].tolist()
    def _folded():  # the expander's content: computed only when it is open (issue 24)
        st.dataframe(pd.DataFrame([{t("attention.col.k"): f"{k + 1} {run.tokens[k]}",
                                    t("attention.col.weight"): num(weights[k]),
                                    t("attention.col.jacobians"): k - s, t("attention.col.norm"): num(v)}
                                   for k, v in enumerate(per_k) if k >= s]), hide_index=True)
        st.markdown(prose(PAGE, "paths_check"))
    folded(t("attention.per_key"), "attention_per_key", _folded)


def lengths(run: Run) -> None:
    st.subheader(t("attention.lengths_header"), anchor="lengths")
    rows = cache.attention_lengths(run.model, run.trace.ids.tolist(), run.source)
    last = rows[-1]
    st.markdown(prose(PAGE, "lengths", Tmax=last["T"], rec=num(last["recurrent_norm"]),
                      att=num(last["attention_norm"]), direct=num(last["direct_norm"]),
                      total=num(last["total_norm"]), rec10=num(rows[0]["recurrent_norm"]),
                      att10=num(rows[0]["attention_norm"]), k=last["top_k"] + 1,
                      n=last["top_jacobians"], w=num(last["top_weight"]), s=run.source + 1))
    page8 = attention.page8_curves(resources.longrange_results())
    labels = {k: t(f"attention.fig.len_{k}") for k in ("title", "x", "y", "recurrent", "attention",
                                                       "direct", "total")}
    names = {c: t("attention.fig.len_page8", cell=t(f"gates.cell.{c}")) for c in page8}
    show_figure(length_figure(rows, page8, labels, names), t("attention.file.lengths"),
                key="attention_lengths")
    st.caption(t("attention.lengths_caption"))


def long_range() -> None:
    """The task of page 8 ("the label is the first token") measured for attention (longrange.json),
    drawn with page 8's figures beside Elman, LSTM and GRU."""
    st.subheader(t("attention.task_header"), anchor="task")
    rows = attention.task_rows(resources.longrange_results())
    if not any(r["cell"] == longrange.ATTENTION for r in rows):
        st.info(t("attention.task_missing"))
        return
    f = attention.task_findings(rows)
    st.markdown(prose(PAGE, "task", far=f["far"], **{f"l_{c}": f["learned"].get(c, 0) for c in
                                                    ("elman", "lstm", "gru", "attention")},
                      **{f"g_{c}": num(f["grad"].get(c, float("nan"))) for c in ("elman", "attention")}))
    names = {c: t(f"attention.cell.{c}") for c in ("elman", "lstm", "gru", "attention")}
    labels = {k: t(f"gates.fig.task_{k}") for k in ("acc_title", "grad_title", "x", "acc", "grad",
                                                     "chance", "zero")}
    acc, grad = longrange_figures(rows, names, labels)
    show_figure(acc, t("attention.file.task_acc"), key="attention_task_acc")
    show_figure(grad, t("attention.file.task_grad"), key="attention_task_grad")
    dists = sorted({r["distance"] for r in rows})
    table = []
    for cell, name in names.items():
        acc_ = {r["distance"]: r["accuracy"] for r in rows if r["cell"] == cell}
        table.append({t("attention.col.cell"): name,
                      **{str(d): (num(100 * acc_[d]) + " %") if d in acc_ else "" for d in dists}})
    st.dataframe(pd.DataFrame(table), hide_index=True)
    st.caption(t("attention.task_source"))
