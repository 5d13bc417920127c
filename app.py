"""RNN Explorer: the entry point. Owns navigation and the shared sidebar; pages draw the rest.

    streamlit run app.py
"""
import streamlit as st

from ui import navigation, sidebar
from ui.i18n import first_visit_lang, t

first_visit_lang()  # before the first t(): the link's ?lang= or the browser's language
st.set_page_config(page_title=t("app.page_title"), page_icon=":material/cycle:", layout="wide")
navigation.phone_style()
nav = st.navigation(navigation.available_pages())
slots = sidebar.sidebar()
nav.run()
sidebar.share_link(slots)  # last: the page's own widgets have put their values in the URL by now
