"""Page 3: what to look at, 1 where the labels come from (the text is its own answer key), 2 one
step written out (z, softmax, L, p - y) and, on the notes model, the notes' own worked example."""

from __future__ import annotations

import functools
from types import SimpleNamespace

import streamlit as st

from rnnviz.explain import output as out
from rnnviz.figures import output as figs
from rnnviz.formatting import num
from rnnviz.store.catalog import NOTES_VOCAB
from rnnviz.text.tokenize import EOS

from ... import cache, session, stepped
from ...i18n import current_lang, prose, t
from ...page import figure_labels
from ...widgets import md_escape, shared_step, show_figure, step_form
from .common import BIND, PAGE, table, table_shown

TOC = ("labels", "step", "sentence", "batch", "generation", "gradstep", "byhand")



def intro(cur: session.Current) -> bool:
    """Title and intro; False (with a note) when the model predicts tags, not next tokens."""
    st.title(t("output.title"))
    st.markdown(prose(PAGE, "intro"))
    if cur.model.cfg.K != len(cur.vocab):
        st.info(t("output.tagger"))
        return False
    return True


def look_here(cur: session.Current, steps: stepped.Steps) -> None:
    """The things to look at, with this sentence's numbers (step by step), and the contents."""
    tr, worst = cur.trace, out.worst_step(cur.trace)
    if worst is not None:
        targets = out.target_tokens(cur.vocab, tr.targets)
        stepped.markdown(steps, "out_look", lambda t1: prose(
            PAGE,
            "look",
            t=t1,
            tok=md_escape(cur.tokens[t1 - 1]),
            L=num(float(tr.loss)),
            N=out.valid_count(tr),
            worst_t=worst + 1,
            worst_target=md_escape(targets[worst]),
            worst_loss=num(float(tr.loss_t[worst])),
        ), box="info")
    st.markdown(" · ".join(f"[{t('output.h_' + k)}](#out-{k})" for k in TOC))


def labels(cur: session.Current) -> None:
    """1 · The text is its own answer key: inputs and targets by shifting, with and without
    <bos> / <eos>."""
    st.header(t("output.h_labels"), anchor="out-labels")
    vocab, tr = cur.vocab, cur.trace
    n_valid = out.valid_count(tr)
    st.markdown(
        prose(
            PAGE,
            "labels",
            T=tr.T,
            n_valid=n_valid,
            **out.vocab_size_note(vocab),
            no_target_note="" if n_valid == tr.T else t("output.no_target_note"),
        )
    )
    if EOS not in vocab and "today" not in vocab:  # the notes' own example goes on with "today"
        words = f" ({md_escape(', '.join(vocab.itos))})" if len(vocab) <= 12 else ""
        st.markdown(prose(PAGE, "no_eos", V=len(vocab), words=words))
    words = vocab.decode(cur.prepared.ids)
    with_in, with_tg = out.shift_pairs(words, specials=True)
    wo_in, wo_tg = out.shift_pairs(words, specials=False)
    st.markdown(prose(PAGE, "labels_compare", n_with=len(with_in), n_without=len(wo_in)))
    st.caption(t("output.this_model_specials" if vocab.has_specials else "output.this_model_plain"))
    table(out.context_rows(cur.tokens, out.target_tokens(vocab, tr.targets), tr.targets.tolist()))
    st.caption(t("output.compare_plain" if vocab.has_specials else "output.compare_specials"))
    other_in, other_tg = (wo_in, wo_tg) if vocab.has_specials else (with_in, with_tg)
    if other_in:
        table(out.context_rows(other_in, other_tg))
    else:
        st.info(t("output.one_word"))


def step_controls(cur: session.Current, deferred: bool = False) -> tuple[int, int]:
    """2 · The step (shared with the other pages) and how many outputs to show. deferred: the
    slider in a step form (the parts follow it in the browser; ui/widgets.step_form)."""
    st.header(t("output.h_step"), anchor="out-step")
    K = cur.model.cfg.K
    c1, c2 = st.columns([3, 1], vertical_alignment="bottom")
    with c1, step_form("out_step", deferred):
        t1 = shared_step(t("output.step"), cur.trace.T, cur.vocab.has_specials, "out_step",
                         deferred=deferred, help=t("output.step_help"))
    k_max = min(20, K)
    k = c2.number_input(
        t("output.top_k"), 1, k_max, min(8, k_max), key="out_k", **BIND, help=t("output.top_k_help", K=K)
    )
    return t1, int(k)


def fig_text() -> dict:
    return figure_labels(
        "output.fig_",
        "p_panel",
        "grad_panel",
        x="output.ax_next_red",
        p_axis="output.ax_prob",
        grad_axis="output.ax_grad",
    )


def one_step(cur: session.Current, steps: stepped.Steps, k: int) -> None:
    """z_t = W_o h_t + b_o row by row, the softmax written out, L_t and p_t - y_t, each step of
    `steps` (ui/stepped.py): where live, their slides made once per model, sentence, k, language
    and step for every session (_slides)."""
    parts = _parts(cur.model, cur.trace, cur.vocab, tuple(cur.tokens), k)
    kept = _slides(cur.model, cur.trace, cur.vocab, tuple(cur.tokens), k, current_lang(), steps.first,
                   steps.last) if steps.live else {}
    stepped.markdown(steps, "out_step_text", parts.text, slides=kept.get("text"))
    st.caption(t("output.logit_rows"))
    stepped.table(steps, "out_logits", parts.logits, index=False, slides=kept.get("logits"))
    stepped.table(steps, "out_softmax", parts.softmax, index=False, slides=kept.get("softmax"))
    stepped.markdown(steps, "out_step_prose", parts.prose, slides=kept.get("prose"))
    name = t("output.fig_step", t=steps.at, tok=cur.tokens[steps.at - 1])
    stepped.chart(steps, "out_fig_step", parts.figure, name, figs=kept.get("figs"))


@cache.kept_steps("output_step_slides", holds_figures=True)
def _slides(model, tr, vocab, tokens: tuple, k: int, lang: str, first: int, last: int) -> dict:
    """one_step's slides and figures for steps first..last (lang: the catalogue's, read by prose
    and t): shared by every session, never edited."""
    steps, parts = stepped.span("out_step", first, last), _parts(model, tr, vocab, tokens, k)
    return {"text": stepped.markdown_slides(steps, parts.text),
            "logits": stepped.table_slides(steps, parts.logits, False),
            "softmax": stepped.table_slides(steps, parts.softmax, False),
            "prose": stepped.markdown_slides(steps, parts.prose),
            "figs": stepped.plain_figures(steps, parts.figure)}


def _parts(model, tr, vocab, tokens: tuple, k: int) -> SimpleNamespace:
    """Step t1's parts (t1 in 1..T), each a function of t1: text, logits and softmax (tables),
    prose and figure. Each step's view is made once, when a part first asks for it."""
    labels_ = vocab.itos
    view = functools.cache(lambda t1: out.step_view(tr, t1 - 1, labels_))
    shown = functools.cache(lambda t1: out.shown_outputs(view(t1), k))
    K, H, jordan = model.cfg.K, model.cfg.H_out, model.cfg.cell == "jordan"

    def text(t1: int) -> str:
        v, tok = view(t1), md_escape(tokens[t1 - 1])
        if v.target is None:
            return prose(PAGE, "no_target", t=t1, tok=tok)
        note = t("output.shown_all", K=K) if len(shown(t1)) == K else t("output.shown_top", k=k)
        return prose(PAGE, "step", t=t1, tok=tok, target=md_escape(labels_[v.target]), K=K, H=H,
                     shown_note=note)

    def figure(t1: int):
        v, idx = view(t1), shown(t1)
        return cache.figure(figs.prob_and_grad_bars, [v.labels[i] for i in idx], v.p[idx],
                            v.p_minus_y[idx], idx.index(v.target) if v.target is not None else None,
                            t("output.fig_step", t=t1, tok=tokens[t1 - 1]), fig_text())

    return SimpleNamespace(
        text=text,
        logits=lambda t1: table_shown(out.logit_rows(model, tr, t1 - 1, shown(t1), labels_)),
        softmax=lambda t1: table_shown(out.softmax_rows(view(t1), shown(t1))),
        prose=lambda t1: step_prose(view(t1), jordan) if view(t1).target is not None else "",
        figure=figure)


def step_prose(view: out.StepView, jordan: bool) -> str:
    """Softmax, cross-entropy and p - y with the step's own numbers (markdown)."""
    tgt = view.target
    target = md_escape(view.labels[tgt])
    softmax = prose(PAGE, "softmax", K=len(view.z), normaliser=num(view.normaliser), target=target,
                    exp_target=num(view.exps[tgt]), p_target=num(view.p[tgt]), zmax=num(view.zmax))
    loss = prose(PAGE, "loss", target=target, p_target=num(view.p[tgt]), loss=num(view.loss))
    grad = prose(PAGE, "grad", one_minus_p=num(1 - view.p[tgt]), autograd_diff=num(view.autograd_diff),
                 jordan_note=" " + prose(PAGE, "jordan_note") if jordan else "")
    return "\n\n".join((softmax, loss, grad))


def notes_example(cur: session.Current) -> None:
    """On the notes model: the notes' own p_t = [0.1, 0.1, 0.4, 0.3, 0.1] worked through
    (L = 0.916, p - y = [0.1, 0.1, -0.6, 0.3, 0.1]), beside the model's own step."""
    if cur.key != "notes":
        return
    view = out.notes_view(NOTES_VOCAB)
    with st.container(border=True):
        st.markdown(prose(PAGE, "notes", loss=num(view.loss)))
        table(out.softmax_rows(view, list(range(len(view.p)))))
        title = t("output.fig_notes")
        show_figure(
            cache.figure(figs.prob_and_grad_bars,
                list(view.labels), view.p, view.p_minus_y, view.target, title, fig_text()
            ),
            title,
            key="out_fig_notes",
        )


def labels_and_step(cur: session.Current) -> tuple[int, int]:
    """What to look at (drawn on top, once the step is known), section 1, and section 2's
    controls. Returns (1-based step, top-k)."""
    top = st.container()
    labels(cur)
    t1, k = step_controls(cur)
    with top:
        look_here(cur, stepped.still("out_step", t1))
    return t1, k
