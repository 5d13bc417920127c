"""Overview: the sentence as tokens and ids, the model's sizes, a first heatmap of h_t."""
import pandas as pd
import streamlit as st

from rnnviz import streamlit_ui as ui
from rnnviz.export import trace_frame
from rnnviz.figures.overview import hidden_heatmap
from rnnviz.prose import section
from rnnviz.summary import token_table, model_sizes

st.title("RNN Explorer")
st.markdown(section("home", "intro"))
cur = ui.current()
tr = cur.trace

st.subheader("Your sentence, as the model reads it")
bos = cur.vocab.has_specials
st.markdown(section("home", "tokens", n_words=len(cur.prepared.tokens), T=tr.T,
                    bos_note=" (a <bos> start token first)" if bos else ""))
st.dataframe(pd.DataFrame(token_table(cur.model, cur.vocab, cur.input_ids, cur.prepared.tokens)), hide_index=True)
ui.download_csv(trace_frame(tr, cur.vocab, "tokens"), "tokens and losses", key="home_tokens")

st.subheader("The model")
sizes = model_sizes(cur.model)
st.markdown(section("home", "sizes", **sizes))
st.caption(ui.md_escape(f"{cur.label}: {ui.model_description(cur.key)}"))

st.subheader("Hidden states h_t")
h = tr.h.numpy()
t, u = divmod(int(abs(h).argmax()), h.shape[1])
st.markdown(section("home", "heatmap", hmax=float(abs(h).max()), hmax_t=t + 1,
                    hmax_tok=ui.md_escape(cur.tokens[t]), hmax_u=u + 1))
ui.show_figure(hidden_heatmap(h, cur.tokens), "hidden states heatmap", key="home_heatmap")
ui.download_csv(trace_frame(tr, cur.vocab, "h"), "hidden states h_t", key="home_h")

with st.expander("Download any table of this trace (CSV)", icon=":material/download:"):
    ui.download_trace(cur, key="home_trace")

st.subheader("Where to next")
for path, title, _, icon in ui.existing_pages()[1:]:
    st.page_link(str(ui.APP_ROOT / path), label=title, icon=icon)
