"""BPTT and Jacobians: paths into dL/dh_t, the delta recursion, shared-weight sums, step
Jacobians and all-pairs norm heatmaps, vanishing / exploding, precision, gradient checking,
clipping. Thin: every number comes from rnnviz (bptt, chains, gradcheck)."""
import numpy as np
import pandas as pd
import streamlit as st

from rnnviz import chains, gradcheck, limits
from rnnviz.bptt import delta_steps, jacobian_factors, product_chain, shared_weight_terms, state_grad_sources
from rnnviz.figures import bptt as figs
from rnnviz.figures.common import fmt
from rnnviz.prose import section
from ui import cache
from ui import compat as ui

P = "bptt"


def text(key, **kw):
    st.markdown(section(P, key, **kw))


def step_slider(label, lo, hi, default, key, **kw):
    """A step slider whose kept value (session or URL) may be out of range for a new sentence."""
    if lo == hi:  # a one-step sentence: nothing to choose (a slider needs min < max)
        st.caption(f"{label}: {lo} (the only step)")
        return lo
    v = st.session_state.get(key)
    if isinstance(v, int) and not lo <= v <= hi:
        st.session_state[key] = min(max(v, lo), hi)
    return st.slider(label, lo, hi, default, key=key, bind="query-params", **kw)


def table(rows, height="auto"):
    """A dataframe; small errors and norms in scientific notation so 1e-10 is not shown as 0."""
    df = pd.DataFrame(rows)
    sci = {c: st.column_config.NumberColumn(format="%.3e") for c in df.columns
           if df[c].dtype.kind == "f" and (c.startswith("rel.") or c.startswith("max |"))}
    st.dataframe(df, hide_index=True, column_config=sci, height=height)


st.title("4 · Backpropagation through time")
text("intro")
cur = ui.current()
tr, model, tokens = cur.trace, cur.model, cur.tokens
T, H = tr.T, model.cfg.hidden_size
safe = [ui.md_escape(tok) for tok in tokens]  # for prose; figures take the raw tokens
elman = model.cfg.cell == "elman" and not model.cfg.bidirectional
if not elman:
    st.info(section(P, "not_elman"))

# ---- paths into dL/dh_t -----------------------------------------------------------------
st.header("Where dL/dh_t comes from")
t = step_slider("Step t", 1, T, min(2, T), "bptt_step",
                help="Time is shown 1..T as in the notes (code counts from 0).") - 1
G, F = cache.gradient_flow(model, tr)  # from the cached step Jacobians
src = state_grad_sources(G, tr, t)
direct_part = (section(P, "paths_direct", t=t + 1, direct=fmt(float(np.linalg.norm(src["parts"][0].numpy()))))
               if src["has_direct"] else section(P, "paths_no_direct", t=t + 1))
later_part = (section(P, "paths_later", n_later=len(src["later_steps"]), later=fmt(src["later_norm"]),
                      names=", ".join(f"L_{s + 1}" for s in src["later_steps"]))
              if src["later_steps"] else section(P, "paths_no_later"))
none_part = " " + section(P, "paths_none", none=fmt(float(G[0, 1].norm()))) if T > 1 else ""
text("paths", t=t + 1, tok=safe[t], direct_part=direct_part, later_part=later_part,
     total=fmt(float(tr.grad_h[t].norm())), none_part=none_part)
st.plotly_chart(figs.paths_bar(src["parts"].numpy(), src["steps"], t, tokens, H), width="stretch")

if elman:
    st.subheader("The recursion, stepped backwards")
    ds = delta_steps(model, tr)
    rows = [{"t": k + 1, "token": tokens[k], "||W_o^T e_t|| (own loss)": float(ds["from_output"][k].norm()),
             "||W_h^T delta_t+1|| (from later)": float(ds["from_later"][k].norm()),
             "mean phi'(a_t)": float(ds["slope"][k].mean()), "||delta_t||": float(ds["delta"][k].norm())}
            for k in range(T - 1, -1, -1)]
    text("delta", t=t + 1)
    st.dataframe(pd.DataFrame(rows), hide_index=True)
    st.caption(f"Step {t + 1} unit by unit: delta = phi' x (own + later).")
    st.dataframe(pd.DataFrame({"unit": [f"u{j + 1}" for j in range(H)], "phi'(a_t)": ds["slope"][t].numpy(),
                               "W_o^T e_t": ds["from_output"][t].numpy(),
                               "W_h^T delta_t+1": ds["from_later"][t].numpy(),
                               "delta_t": ds["delta"][t].numpy()}), hide_index=True,
                 height=min(35 * (H + 1) + 3, 400))  # 35 px a row and the header: no empty rows

    st.header("Shared weights: one gradient, summed over time")
    terms = shared_weight_terms(model, tr)
    wh = terms["W_h"]
    text("shared", max_diff=fmt(wh["max_diff"]), T=T)
    st.dataframe(pd.DataFrame([{"t": k + 1, "token": tokens[k],
                                "||delta_t h_t-1^T||_F": float(wh["terms"][k].norm()),
                                "||running sum||_F": float(wh["terms"][: k + 1].sum(0).norm())}
                               for k in range(T)]), hide_index=True)
    table([{"parameter": n, "term": term, "||sum over t||": float(v["sum"].norm()),
            "||autograd||": float(v["autograd"].norm()), "max |difference|": v["max_diff"]}
           for (n, v), term in zip(terms.items(), ("delta_t h_t-1^T", "delta_t x_t^T", "delta_t",
                                                   "e_t h_t^T", "e_t"))])

# ---- Jacobians ----------------------------------------------------------------------------
st.header("Step Jacobians and all-pair norms")
c1, c2 = st.columns(2)
scale = c1.select_slider("Scale W_h by", [0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0], value=1.0,
                         key="bptt_scale", bind="query-params", disabled=not elman,
                         help="Re-runs the model on a copy with W_h multiplied by this factor.")
scale = scale if elman else 1.0
ord_label = c2.radio("Norm", ["spectral ||.||_2", "Frobenius ||.||_F"], key="bptt_ord", horizontal=True,
                     bind="query-params")
ord_ = 2 if ord_label.startswith("spectral") else "fro"
m2 = model if scale == 1.0 else chains.scaled_model(model, scale)
tr2 = tr if scale == 1.0 else ui.cached_trace(m2, cur.input_ids, cur.target_ids)
J = cache.step_jacobians(m2, tr2)  # (T, H, H), once per (model, sentence): sliders reuse it
N = cache.jacobian_norms(m2, tr2, ord_)
if elman:
    jf = jacobian_factors(m2, tr2, t, J)
    text("jacobian", t=t + 1, smin=fmt(float(jf["slope"].min())), smax=fmt(float(jf["slope"].max())),
         wnorm=fmt(jf["norm_W"]), jnorm=fmt(jf["norm_J"]), wmax=fmt(jf["max_W"]), jmax=fmt(jf["max_J"]))
    st.plotly_chart(figs.jacobian_parts(jf["slope"].numpy(), jf["W_h"].numpy(), jf["J"].numpy(), t),
                    width="stretch")
Nn = N.numpy()
text("heatmap", T=T, limit=limits.MAX_JACOBIAN_T, zeros=int((Nn == 0).sum()), infs=int(np.isinf(Nn).sum()))
st.plotly_chart(figs.log_norm_heatmap(Nn, tokens, f"log10 ||dh_s/dh_t|| ({ord_label.split()[0]})",
                                      "log10 norm", "||dh_s/dh_t||"), width="stretch")
if scale == 1.0:
    text("flow")
    st.plotly_chart(figs.log_norm_heatmap(F.numpy(), tokens, "Gradient flow: log10 ||dL_s/dh_t||",
                                          "log10 norm", "||dL_s/dh_t||"), width="stretch")

if T > 1:
    st.subheader("The chain behind one cell")
    c1, c2 = st.columns(2)
    with c1:
        s_cell = step_slider("Later step s", 1, T, T, "bptt_cell_s") - 1
    with c2:
        t_cell = step_slider("Earlier step t", 1, T, 1, "bptt_cell_t") - 1
    if t_cell > s_cell:
        st.caption("t is after s: no path runs back in time, so the chain is shown for (t, s) swapped.")
        s_cell, t_cell = t_cell, s_cell
    if s_cell == t_cell:
        st.caption("s = t: the product has no factors; dh_t/dh_t = I.")
    else:
        chain = product_chain(J, s_cell, t_cell)
        text("chain", s=s_cell + 1, t=t_cell + 1, n=s_cell - t_cell, value=fmt(float(Nn[s_cell, t_cell])))
        st.plotly_chart(figs.chain_plot(chain["rows"], s_cell, t_cell), width="stretch")

# ---- vanishing / exploding ------------------------------------------------------------------
st.header("Vanishing and exploding")
N2 = N if ord_ == 2 else cache.jacobian_norms(m2, tr2, 2)
dist = chains.norm_vs_distance(N2, J, m2.W_h if elman else None)
text("distance", maxj=fmt(dist["max_J"]), rho=fmt(dist["rho"]) if dist["rho"] is not None else "n/a", scale=scale)
st.plotly_chart(figs.distance_plot(dist, chains.PRACTICAL_FLOOR), width="stretch")

preset = st.selectbox("The notes' scalar chains", list(chains.SCALAR_PRESETS), key="bptt_chain",
                      bind="query-params")
w, n = chains.SCALAR_PRESETS[preset]
prods = chains.scalar_chain(w, n)
text("scalar", w=w, n=n, value=fmt(float(prods[-1]), 6))
st.plotly_chart(figs.scalar_chain_plot(prods, w), width="stretch")
lr = [chains.long_range(r) for r in chains.LONG_RANGE["rhos"]]
text("longrange", n=lr[0]["n"], small=fmt(lr[0]["factor"], 3), big=fmt(lr[1]["factor"], 3))

st.subheader("Precision: float32 against float64")
c1, c2 = st.columns(2)
pw = c1.select_slider("Factor w", [0.1, 0.25, 0.5, 0.9, 1.1, 2.0, 4.0, 10.0], value=0.5, key="bptt_pw",
                      bind="query-params")
pn = c2.slider("Steps n", 10, 400, 200, key="bptt_pn", bind="query-params")
pc = chains.precision_chain(pw, pn)
def at_k(key):
    return f"at k = {pc[key]}" if pc[key] is not None else f"not within {pn} steps"


text("precision", sub=at_k("subnormal"), zero=at_k("zero"), inf=at_k("inf"), floor=at_k("floor"),
     eps=fmt(chains.FLOAT32_EPS, 3))
st.plotly_chart(figs.precision_plot(pc, pw, chains.FLOAT32_SMALLEST_NORMAL, chains.FLOAT32_MAX,
                                    chains.PRACTICAL_FLOOR), width="stretch")
big_w = max(pw, 1 / pw)
st.caption(f"How NaN appears, with w = {big_w:g} and n = {pn}:")
st.dataframe(pd.DataFrame(chains.nan_examples(big_w, pn)).map(lambda v: fmt(v) if isinstance(v, float) else v),
             hide_index=True)

# ---- gradient check ---------------------------------------------------------------------------
st.header("Gradient check")
setting = st.radio("Setting", ["The notes' setting (B=4, T=4, d_x=8, d_h=16, 3 classes)",
                               "The current model and sentence"], key="bptt_gc", bind="query-params")
if setting.startswith("The notes"):
    rows, sweep = cache.notes_check()
    text("gradcheck_notes", mark=gradcheck.PASS_MARK)
    table(rows)
    text("sweep", first=fmt(sweep[0]["||dL/dW_x||"]), last=fmt(sweep[-1]["||dL/dW_x||"]))
    st.dataframe(pd.DataFrame(sweep), hide_index=True)
    st.plotly_chart(figs.t_sweep_plot(sweep), width="stretch")
elif elman:
    text("gradcheck_model", mark=gradcheck.PASS_MARK)
    table(cache.model_gradient_check(model, cur.input_ids, cur.target_ids))
else:
    st.info(section(P, "not_elman"))

# ---- clipping -----------------------------------------------------------------------------------
st.header("Gradient clipping")
c1, c2 = st.columns(2)
explode = c1.select_slider("Exploding setting: W_h scaled by", [1.0, 3.0, 6.0, 10.0], value=6.0,
                           key="bptt_explode", bind="query-params")
max_norm = c2.select_slider("max_norm", [0.1, 0.5, 1.0, 5.0, 10.0, 100.0], value=1.0, key="bptt_maxnorm",
                            bind="query-params")
demo, steps = cache.clipping(explode, max_norm)
text("clipping", before=fmt(demo["norm before"]), after=fmt(demo["norm after"]), cos=f"{demo['cosine']:.12f}",
     max_norm=max_norm)
st.plotly_chart(figs.clip_bar(demo["norm before"], demo["norm after"], max_norm), width="stretch")
st.dataframe(pd.DataFrame(steps), hide_index=True)

# ---- try it by hand -----------------------------------------------------------------------------
st.header("Try it by hand")
if st.button("New exercise", key="bptt_new"):
    st.session_state["bptt_seed"] = int(st.session_state.get("bptt_seed", 0)) + 1
ex = chains.chain_exercise(int(st.session_state.get("bptt_seed", 0)))
text("byhand", w=ex["w"], n=ex["n"], slopes=", ".join(map(str, ex["slopes"])))
ans = st.number_input("Your product dh_n/dh_0", value=None, format="%.6f", key="bptt_answer")
if ans is not None:
    ok, msg = chains.check_chain(ex, ans)
    (st.success if ok else st.error)(msg)
