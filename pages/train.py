"""6 · Your own data: train a language model on your text, watch it learn, keep and download it."""
import streamlit as st

from ui import session
from ui.sections import train, train_cells

session.start_page()  # a stopped run keeps its model before anything is drawn
train.intro()
src, level = train.source()
corpus = train.read_text(src, level)
if corpus is not None:
    train.corpus_summary(corpus, level)
settings = train.settings()
train.vocab_info(corpus, settings)
train.train_button(corpus, settings)
train.result(st.session_state.get(session.TRAIN_RUN))
train_cells.offer(st.session_state.get(session.TRAIN_RUN))  # page 8's other two cells
train.model_files(session.own_models())
train.try_current(session.current())
