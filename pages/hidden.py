"""Hidden states: h_t step by step on the learner's sentence, the whole sequence, why order
and tanh matter, the parameter count, Elman vs Jordan vs bidirectional, and a hand exercise."""
import numpy as np
import pandas as pd
import streamlit as st

from rnnviz import hidden as hd
from rnnviz import limits
from rnnviz.errors import InputError
from rnnviz.figures import hidden as fh
from rnnviz.prose import section
from ui import cache
from ui import compat as ui

P = "hidden"
st.title("2 · Hidden states h_t")
cur = ui.current()
tr, cfg, tokens = cur.trace, cur.model.cfg, cur.tokens
T, H = tr.T, cfg.hidden_size
rec = "W_y y_(t-1)" if cfg.cell == "jordan" else "W_h h_(t-1)"
st.markdown(section(P, "intro", label=ui.md_escape(cur.label), T=T, H=H))


def _trace_text(model, text: str):
    """Trace another sentence on a model (cached); InputError if none of its words is known."""
    ids, targets, prep = hd.sentence_pair(text, cur.vocab, cur.level)
    return cur.vocab.decode(ids), ui.cached_trace(model, ids, targets), prep


def _vec_table(cols: dict, index) -> pd.DataFrame:
    return pd.DataFrame({k: np.asarray(v, dtype=float) for k, v in cols.items()}, index=index)


# ---- step through time --------------------------------------------------------------------
st.header("Step through time")


def _move(delta: int):
    st.session_state["hid_step"] = min(T, max(1, st.session_state.get("hid_step", 1) + delta))


if st.session_state.get("hid_step", 1) > T:
    st.session_state["hid_step"] = T
playing = T > 1 and st.session_state.get("hid_play", False)


@st.fragment(run_every=1.5 if playing else None)
def _player():
    """While 'Play' is on, move one step every 1.5 s (looping) and redraw the page."""
    if st.session_state.get("hid_play", False) and T > 1:
        if st.session_state.pop("hid_play_started", False):
            st.session_state["hid_step"] = st.session_state.get("hid_step", 1) % T + 1
            st.rerun(scope="app")
        st.session_state["hid_play_started"] = True


_player()
c0, c1, c2, c3 = st.columns([1.6, 0.8, 0.8, 10], vertical_alignment="bottom")
c0.toggle("Play", key="hid_play", disabled=T == 1, help="Step through the sentence on its own, "
          "one step every 1.5 s, looping.")
c1.button("◀", key="hid_prev", on_click=_move, args=(-1,), disabled=T == 1, help="Previous step",
          width="stretch")
c2.button("▶", key="hid_next", on_click=_move, args=(1,), disabled=T == 1, help="Next step",
          width="stretch")
if T > 1:
    t1 = c3.slider("Step t", 1, T, 1, key="hid_step", bind="query-params",
                   help="Steps count from 1 as in the notes (code counts from 0).")
else:
    t1 = 1
t = t1 - 1
terms = hd.step_terms(cur.model, tr, t)
hmax_u = int(terms["h"].abs().argmax())
st.markdown(section(P, "step", t=t1, T=T, tok=ui.md_escape(tokens[t]), H=H, rec=rec,
                    n_wx=float(terms["Wx_x"].norm()), n_wh=float(terms["Wh_h"].norm()),
                    n_b=float(terms["b"].norm()), hmax=float(terms["h"][hmax_u].abs()),
                    hmax_u=hmax_u + 1,
                    first_note=" (zero: h_0 = 0 at the first step)" if t == 0 else ""))
rec_tex = r"W_y\,y_{%d}" % t if cfg.cell == "jordan" else r"W_h\,h_{%d}" % t
phi_tex = r"\tanh" if cfg.nonlinearity == "tanh" else r"\mathrm{%s}" % cfg.nonlinearity
st.latex(rf"a_{{{t1}}} = W_x\,x_{{{t1}}} + {rec_tex} + b_h,\qquad h_{{{t1}}} = {phi_tex}(a_{{{t1}}})")
units = [f"u{j + 1}" for j in range(H)]
left, right = st.columns([3, 2])
left.dataframe(_vec_table({"W_x x_t": terms["Wx_x"], rec: terms["Wh_h"], "b_h": terms["b"],
                           "a_t (sum)": terms["a"], f"h_t = {cfg.nonlinearity}(a_t)": terms["h"]},
                          units), height=min(600, 38 + 35 * H), width="stretch")
with right:
    st.markdown(section(P, "shapes", d=cfg.embed_dim, H=H, K=cfg.K))
    st.dataframe(pd.DataFrame(hd.shape_table(cfg)), hide_index=True, width="stretch",
                 column_config={"symbol": st.column_config.TextColumn(width="small"),
                                "shape": st.column_config.TextColumn(width="small"),
                                "meaning": st.column_config.TextColumn(width="large")})
st.caption("x_t = E[id]: " + hd.fmt_vec(terms["x"].tolist()) + f" (token “{tokens[t]}”)")
st.plotly_chart(fh.step_terms_bar(terms, rec), width="stretch", key="hid_fig_terms")

# ---- the whole sequence -----------------------------------------------------------------
st.header("The whole sentence")
show_a = st.toggle("Show a_t (before tanh) instead of h_t", key="hid_show_a", bind="query-params")
st.markdown(section(P, "heatmap", t=t1))
values = tr.a if show_a else tr.h
split = H if cfg.bidirectional else None
st.plotly_chart(fh.time_heatmap(values.numpy(), tokens, t, "a" if show_a else "h", split),
                width="stretch", key="hid_fig_heat")
all_units = list(range(values.shape[1]))
picked = st.multiselect("Units to plot over time", all_units, default=all_units[:4],
                        format_func=lambda j: f"u{j + 1}", key="hid_units", bind="query-params")
if picked:
    st.plotly_chart(fh.unit_lines(values.numpy(), tokens, picked, "a" if show_a else "h"),
                    width="stretch", key="hid_fig_units")

st.subheader("Trajectory, and a second sentence to compare")
overlay_default, overlay_note = hd.default_overlay(tokens, cur.vocab, cur.level, text=cur.text)


def _pair(a: str, b: str):
    st.session_state.update(text=a, hid_overlay=b)


presets = hd.order_presets(cur.vocab)
row = st.container(horizontal=True)
for a, b in presets:
    row.button(f"{a} ⇄ {b}", key=f"hid_pair_{a}", on_click=_pair, args=(a, b),
               help="Preset pair: sets the sidebar sentence and the second sentence.")
overlay = st.text_input("Second sentence (overlaid)", value=overlay_default, key="hid_overlay",
                        bind="query-params", max_chars=limits.MAX_LINE_CHARS,
                        help="By default your sentence with the words reversed. "
                             f"Up to {limits.MAX_TOKENS} tokens.")
typed = bool(overlay.strip()) and overlay.strip() != overlay_default.strip()
if not typed and overlay_note:
    st.info(ui.md_escape(overlay_note))
paths = [("your sentence", tr, tokens)]
if typed or overlay_default:
    try:
        tok_b, tr_b, prep_b = _trace_text(cur.model, overlay if typed else overlay_default)
    except InputError as err:
        if typed:  # only text the learner typed gets an error; a derived default just stays off
            st.error(f"Second sentence: {err}")
    else:
        for notice in prep_b.notices:
            st.caption(ui.md_escape("Second sentence: " + notice))
        paths.append(("second sentence", tr_b, tok_b))
with ui.guard():
    coords, share = hd.pca_2d([p[1].h.numpy() for p in paths])
    if len(paths) > 1:
        dist = float((paths[0][1].h[-1] - paths[-1][1].h[-1]).norm())
        st.markdown(section(P, "pca", H=values.shape[1], share=float(share.sum()), dist=dist))
    else:
        st.markdown(section(P, "pca-one", H=values.shape[1], share=float(share.sum())))
    st.plotly_chart(fh.pca_trajectory([(n, xy, tk) for (n, _, tk), xy in zip(paths, coords)],
                                      share), width="stretch", key="hid_fig_pca")

# ---- why order matters ----------------------------------------------------------------
st.header("Why order matters")


def _notes_scalar():
    st.session_state.update(hid_wx=2.0, hid_wh=0.5, hid_x1=1.0, hid_x2=3.0)


st.button("Preset: the notes' example (h_t = 2 x_t + 0.5 h_(t-1), inputs 1 and 3)",
          key="hid_scalar_preset", on_click=_notes_scalar)
cols = st.columns(4)
w_x = cols[0].number_input("w_x", -10.0, 10.0, 2.0, 0.1, key="hid_wx", bind="query-params")
w_h = cols[1].number_input("w_h", -10.0, 10.0, 0.5, 0.1, key="hid_wh", bind="query-params")
x1 = cols[2].number_input("first input", -100.0, 100.0, 1.0, 1.0, key="hid_x1", bind="query-params")
x2 = cols[3].number_input("second input", -100.0, 100.0, 3.0, 1.0, key="hid_x2", bind="query-params")
ab, ba = hd.scalar_rnn([x1, x2], w_x, w_h), hd.scalar_rnn([x2, x1], w_x, w_h)
st.markdown(section(P, "scalar", h_ab=ab[-1], h_ba=ba[-1]))
st.code("\n".join([f"inputs [{x1:g}, {x2:g}]:"] + hd.scalar_steps([x1, x2], w_x, w_h)
                  + ["", f"inputs [{x2:g}, {x1:g}]:"] + hd.scalar_steps([x2, x1], w_x, w_h)),
        language=None)
if len(paths) > 1:
    cmp = hd.order_comparison(tr.x, paths[1][1].x, tr.h, paths[1][1].h)
    st.markdown(section(P, "order_model", sent_a=ui.md_escape(" ".join(hd.plain_words(tokens))),
                        sent_b=ui.md_escape(" ".join(hd.plain_words(paths[1][2]))), sum_diff=cmp["sum_diff"],
                        final_diff=cmp["final_diff"],
                        bag_note="(the same words in another order: the sums are equal)"
                        if cmp["same_bag"] else "(not the same words, so the sums differ)"))

# ---- why tanh ------------------------------------------------------------------------------
st.header("Why tanh")
if cfg.cell == "elman" and not cfg.bidirectional:
    lin_model = cache.with_nonlinearity(cur.model, "linear")
    lin_tr = ui.cached_trace(lin_model, cur.input_ids, cur.target_ids)
    k, step_note = hd.expansion_step(t, T)  # h_2 (the notes' case) at step 1, at most h_5
    expansion = hd.linear_expansion(lin_model, lin_tr.x, k)
    total = sum(v for _, v in expansion)
    err = float((total - lin_tr.h[k].double()).abs().max())
    st.markdown(section(P, "linear", t=k + 1, err=err,
                        expansion=" + ".join(f"`{n}`" for n, _ in expansion)))
    st.caption(step_note + " Linear model: the same weights, φ(a) = a.")
    table = {n: v for n, v in expansion}
    table["sum of the terms"] = total
    table["linear model's h_t"] = lin_tr.h[k]
    st.dataframe(_vec_table(table, units), height=min(400, 38 + 35 * H), width="stretch")
    norms = {}
    for phi in ("tanh", "relu", "linear"):
        m = cur.model if phi == cfg.nonlinearity else cache.with_nonlinearity(cur.model, phi)
        norms[f"φ = {phi}"] = ui.cached_trace(m, cur.input_ids, cur.target_ids).h.norm(dim=1).tolist()
    st.plotly_chart(fh.norms_plot(norms, tokens), width="stretch", key="hid_fig_norms")
else:
    st.info("The linear expansion is written for a one-directional Elman model; pick one to see it.")

gw = st.slider("Recurrent weight w in h_t = w·h_(t-1)", -3.0, 3.0, 2.0, 0.1, key="hid_grow_w",
               bind="query-params")
grow = hd.growth(gw, 1.0, 10)
st.markdown(section(P, "growth", w=gw, h0=1, n=10, lin_last=f"{grow['linear'][-1]:.4g}",
                    tanh_last=f"{grow['tanh'][-1]:.4f}"))
st.plotly_chart(fh.growth_plot({"linear": grow["linear"], "tanh": grow["tanh"]}, gw, 1.0),
                width="stretch", key="hid_fig_growth")
sat = hd.saturation(tr.h)
st.markdown(section(P, "saturation", sat_count=sat["count"], sat_total=sat["total"],
                    sat_share=sat["share"], thr=hd.SATURATION, slope=1 - hd.SATURATION ** 2))
st.plotly_chart(fh.saturation_bar(sat["per_step"], tokens, hd.SATURATION), width="stretch",
                key="hid_fig_saturation")

# ---- parameters -----------------------------------------------------------------------
st.header("Parameters")
tot = hd.param_totals(cfg, T)
st.markdown(section(P, "params", T=T, **tot))
pc1, pc2 = st.columns([2, 3])
pc1.dataframe(pd.DataFrame(hd.param_terms(cfg)), hide_index=True, width="stretch")
pc2.plotly_chart(fh.params_vs_T(tot["shared"], max(2 * T, 20), T),
                width="stretch", key="hid_fig_params")
st.plotly_chart(fh.unrolled(tokens, "W_y" if cfg.cell == "jordan" else "W_h"),
                width="stretch", key="hid_fig_unrolled")

# ---- cell variants ------------------------------------------------------------------------
st.header("Elman, Jordan, bidirectional")
kind = st.radio("Cell", hd.VARIANTS, horizontal=True, key="hid_cell", bind="query-params",
                format_func=str.capitalize)
for eq in hd.variant_equations(kind):
    st.latex(eq)
st.markdown(section(P, f"variant-{kind}", K=cfg.K, H=H, H2=2 * H))
same = kind == ("bidirectional" if cfg.bidirectional else cfg.cell)
if same:
    v_model, shared, fresh = cur.model, [n for n, _ in cur.model.named_parameters()], []
else:
    v_model, shared, fresh = cache.cell_variant(cur.model, kind)
v_tr = ui.cached_trace(v_model, cur.input_ids, cur.target_ids)
vc = hd.variant_comparison(kind, tr.h, v_tr.h, H)
if same:
    compare = "This is the current model, so its states are the ones above."
elif kind == "bidirectional":
    compare = (f"Its forward half shares the current model's weights, so it equals the current h_t "
               f"(largest difference {vc['forward_max_diff']:.1e}); the backward half is new: "
               "at step 1 it has already read the whole sentence.")
else:
    compare = (f"Its final state differs from the current model's by {vc['final_diff']:.3f} "
               "(Euclidean distance).")
fresh_note = (" " + section(P, "variant-fresh", fresh=", ".join(fresh), seed=0)) if fresh else ""
st.markdown(section(P, "variant-shared", shared=", ".join(shared) or "none",
                    fresh_note=fresh_note, compare=compare))
v_split = H if v_model.cfg.bidirectional else None
st.plotly_chart(fh.time_heatmap(v_tr.h.numpy(), tokens, t, "h", v_split,
                                title=f"{kind.capitalize()} cell: h_t per step and unit"
                                + (" (→ forward units above the line, ← backward below)" if v_split else "")),
                width="stretch", key="hid_fig_variant")

# ---- try it by hand -----------------------------------------------------------------------
st.header("Try it by hand")


@st.fragment
def by_hand():
    seed = st.session_state.setdefault("hid_ex_seed", 0)
    if st.button("New exercise", key="hid_ex_new"):
        seed = st.session_state["hid_ex_seed"] = seed + 1
    ex = hd.make_exercise(seed)
    st.markdown(section(P, "byhand", tol=hd.TOL))
    st.latex(rf"W_x={_tex(ex.W_x)},\quad W_h={_tex(ex.W_h)}")
    st.latex(rf"b_h={_tex([ex.b])}^T,\quad x_1={_tex([ex.x1])}^T,\quad x_2={_tex([ex.x2])}^T")
    cols = st.columns(4)
    vals = [cols[i].number_input(lab, -10.0, 10.0, 0.0, 0.01, format="%.3f", key=f"hid_ex_{i}")
            for i, lab in enumerate(["h_1[1]", "h_1[2]", "h_2[1]", "h_2[2]"])]
    if st.button("Check", key="hid_ex_check"):
        try:
            v = hd.check_exercise(ex, vals[:2], vals[2:])
        except InputError as err:
            st.error(str(err))
            return
        right = "h_1 = " + hd.fmt_vec(v["right"][0]) + ", h_2 = " + hd.fmt_vec(v["right"][1])
        if v["h1_ok"] and v["h2_ok"]:
            st.success("Both right. " + right)
        elif v["mistake"]:
            st.warning(f"Not quite. {hd.EXPLAIN[v['mistake']]} The right answer: {right}.")
        else:
            ok = "h_1 is right; h_2 is not." if v["h1_ok"] else "h_1 is not right yet."
            st.error(f"{ok} Recompute a_t term by term. The right answer: {right}.")


def _tex(rows) -> str:
    body = r"\\".join("&".join(f"{x:g}" for x in r) for r in rows)
    return r"\begin{bmatrix}" + body + r"\end{bmatrix}"


by_hand()
