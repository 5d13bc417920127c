"""Page 3: 3 the whole sentence (top-k per step, the per-step table and L_t, sum vs mean) and
4 a padded batch (padding carries no loss)."""

from __future__ import annotations

import streamlit as st

from rnnviz.explain import output as out
from rnnviz.figures import output as figs
from rnnviz.figures.common import step_labels
from rnnviz.formatting import num
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import PAD, prepare

from ... import cache, session, stepped
from ...cache import cached_trace
from ...i18n import prose, t
from ...page import figure_labels
from ...widgets import follow_part, guard, labelled_choice, md_escape, named_part, show_figure
from .common import BIND, PAGE, table


def whole_sentence(cur: session.Current, steps: stepped.Steps, k: int) -> None:
    """Top-k per step (a window around the step on long sentences), the per-step table and L_t."""
    st.header(t("output.h_sentence"), anchor="out-sentence")
    tr, vocab = cur.trace, cur.vocab
    names, targets = step_labels(cur.tokens), out.target_tokens(vocab, tr.targets)
    k_top = min(k, 10)
    worst = out.worst_step(tr)
    if worst is not None:
        st.markdown(
            prose(
                PAGE,
                "sentence",
                k=k_top,
                worst_t=worst + 1,
                worst_input=md_escape(cur.tokens[worst]),
                worst_target=md_escape(targets[worst]),
                worst_loss=num(float(tr.loss_t[worst])),
                worst_p=num(float(tr.p[worst, tr.targets[worst]])),
            )
        )
    idx, vals = out.top_k(tr, k_top)
    text = figure_labels(
        x="output.ax_rank", y="output.ax_step", colorbar="output.ax_prob", token="output.token"
    )

    def title(t1: int) -> str:  # a long sentence's heatmap shows a window of steps around t1
        lo, hi = out.step_window(tr.T, t1 - 1)
        where = (
            t("output.where_all")
            if (lo, hi) == (0, tr.T)
            else t("output.where_window", lo=lo + 1, hi=hi, T=tr.T, t=t1)
        )
        return t("output.fig_topk", k=k_top, where=where)

    def figure(t1: int):
        lo, hi = out.step_window(tr.T, t1 - 1)
        return cache.figure(figs.topk_heatmap, out.index_words(vocab, idx[lo:hi]), vals[lo:hi], names[lo:hi],
                            title(t1), text)

    stepped.chart(steps, "out_fig_topk", figure, title(steps.at))
    k_table = min(k_top, out.MAX_TABLE_TOP)  # all k are in the heatmap; the table keeps its row on screen
    st.caption(
        t("output.table_caption", k=k_table) + (t("output.table_more", k=k_top) if k_table < k_top else "")
    )
    table(out.sentence_rows(tr, vocab, k_table, cur.tokens))
    title = t("output.fig_loss")
    show_figure(
        cache.figure(figs.loss_bars,
            names,
            tr.loss_t.numpy(),
            [x or t("output.cell_none") for x in targets],
            tr.valid.numpy(),
            title,
            figure_labels(x="output.ax_step", y="output.col_loss_nats", target="output.col_target"),
        ),
        title,
        key="out_fig_loss",
    )
    reduction(cur)


def reduction(cur: session.Current) -> None:
    tr = cur.trace
    if not bool(tr.valid.any()):
        return
    r = out.reductions(tr, cached_trace(cur.model, cur.input_ids, cur.target_ids, "mean"))
    st.markdown(
        prose(
            PAGE,
            "reduction",
            N=r["N"],
            sum=num(r["sum"]),
            mean=num(r["mean"]),
            gsum=num(r["grad_norm_sum"]),
            gmean=num(r["grad_norm_mean"]),
            gdiff=num(r["grad_max_diff"]),
        )
    )


BATCH_VIEW = "out_batch_view"  # fragment key: the second sentence and sum / mean redraw this section alone


def padded_batch(cur: session.Current) -> None:
    """Two sentences in one batch: padding, the mask, IGNORE targets, sum vs mean. Its controls
    redraw it alone (a fragment of its own: nothing else on the page depends on them)."""
    st.header(t("output.h_batch"), anchor="out-batch")
    named_part(BATCH_VIEW, _padded_batch, cur)


def _padded_batch(cur: session.Current) -> None:
    vocab = cur.vocab
    half = out.first_half_text(cur.prepared.tokens, cur.level)
    other = (
        st.text_input(
            t("output.batch2"),
            key="out_batch2",
            **BIND,
            placeholder=half,
            max_chars=2000,
            help=t("output.batch2_help"),
            on_change=follow_part,
            args=(BATCH_VIEW,),
        )
        or half
    )
    with guard():
        prep2 = prepare(other, vocab, cur.level)
        for name, values in prep2.notice_items:  # in the learner's language
            st.warning(md_escape(t("output.second_prefix"))
                       + t(f"notices.{name}", **{k: md_escape(v) for k, v in values.items()}))
        pairs = [(list(cur.input_ids), list(cur.target_ids)), lm_pair(list(prep2.ids), vocab)]
        reds = ("sum", "mean")
        red = labelled_choice(st.radio, t("output.reduction"), reds, [t(f"output.red_{r}") for r in reds],
                              "out_batch_red", horizontal=True, on_change=follow_part, args=(BATCH_VIEW,))
        batch = out.padded_batch(cur.model, pairs, vocab.stoi.get(PAD, 0), red)
        batch_view(cur, pairs, batch, red)


def batch_view(cur: session.Current, pairs: list, batch, red: str) -> None:
    vocab, tr = cur.vocab, cur.trace
    tr_b = cached_trace(cur.model, pairs[1][0], pairs[1][1])
    loss_a, loss_b, sum_ab = out.exact_sum(float(tr.loss), float(tr_b.loss))
    nums = dict(loss_a=loss_a, loss_b=loss_b, sum_ab=sum_ab, n_valid=batch.n_valid, BT=batch.ids.numel())
    st.markdown(
        prose(
            PAGE,
            "padding",
            T=batch.ids.shape[1],
            reduction=t(f"output.red_{red}"),
            batch_loss=num(batch.loss),
            reduction_line=prose(PAGE, f"padding_{red}", **nums),
        )
    )
    if PAD not in vocab:
        st.caption(prose(PAGE, "pad_id"))
    if cur.model.cfg.bidirectional:
        st.markdown(prose(PAGE, "padding_bidi"))
    rows = []
    for b in range(2):
        cells = zip(batch.ids[b], batch.mask[b])
        rows.append(
            {
                "row": t("output.row_tokens", n=b + 1),
                **{str(j + 1): vocab.itos[int(i)] if m else "<pad>" for j, (i, m) in enumerate(cells)},
            }
        )
        rows.append(
            {
                "row": t("output.row_mask", n=b + 1),
                **{str(j + 1): str(int(m)) for j, m in enumerate(batch.mask[b])},
            }
        )
    table(rows)
    title = t("output.fig_batch")
    text = figure_labels(x="output.ax_position", y="output.ax_sentence", no_target="output.no_target",
                         colorbar="output.col_loss_nats") | {
        "pad": "pad"
    }
    show_figure(
        cache.figure(figs.batch_loss_heatmap,
            batch.loss_t.numpy(),
            batch.mask.numpy(),
            (batch.targets != out.IGNORE).numpy(),
            [t("output.sentence_n", n=1), t("output.sentence_n", n=2)],
            title,
            text,
        ),
        title,
        key="out_fig_batch",
    )
