"""RNN Explorer: the entry point. Owns navigation and the shared sidebar; pages draw the rest.

    streamlit run app.py
"""
import streamlit as st

from rnnviz import streamlit_ui as ui

st.set_page_config(page_title="RNN Explorer", page_icon=":material/cycle:", layout="wide")
nav = st.navigation(ui.available_pages())
slots = ui.sidebar()
nav.run()
ui.share_link(slots)  # last: the page's own widgets have put their values in the URL by now
