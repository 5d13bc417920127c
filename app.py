"""RNN Explorer: the entry point. Owns navigation and the shared sidebar; pages draw the rest.

    streamlit run app.py
"""
import streamlit as st

from rnnviz.serve.heap import freeze_startup_heap
from rnnviz.serve.nodelay import no_delay_on_tcp_sockets
from rnnviz.serve.threads import one_thread_per_run
from rnnviz.serve.turns import PAGE_TURNS
from ui import cellpick, checkpoint, classroom, lesson, navigation, sidebar, teacher
from ui.charts import serve_plotly
from ui.i18n import first_visit_lang, t
from ui.links import current_session_id
from ui.widgets import plotly_json_settings

one_thread_per_run()  # thread settings are no import side effect: set here, once
plotly_json_settings()  # charts' JSON by the standard library (set here, once)
freeze_startup_heap()  # once per process: the imports above leave the collector's full walks
no_delay_on_tcp_sockets()  # once per process: no 40-ms wait for an ACK between a run's messages
serve_plotly()  # once per process: Plotly.js at /app/static, so that charts are drawn in place
# page runs take turns (40 at once would share one core in 5-ms slices), least-used session first
with PAGE_TURNS.turn(who=current_session_id()):
    first_visit_lang()  # before the first t(): the link's ?lang= or the browser's language
    st.set_page_config(page_title=t("app.page_title"), page_icon=":material/cycle:", layout="wide")
    navigation.phone_style()
    nav = st.navigation(navigation.available_pages())
    classroom.read_link()  # ?class= (a student) and ?teacher= (the teacher view), kept in the session
    checkpoint.send_pending()  # answers the class store could not take yet
    lesson.read_link()  # ?lesson=: Next / Back through a teacher's lesson
    slots = sidebar.sidebar()
    if teacher.asked():
        teacher.view()  # ?class=CODE&teacher=TOKEN: the class's answers, live (refused without the token)
    else:
        lesson.bar(nav.url_path)
        nav.run()
    sidebar.share_link(slots)  # last: the page's own widgets have put their values in the URL by now
    cellpick.link_settled()  # the address this run leaves: what a fragment rerun compares with
