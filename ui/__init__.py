"""The Streamlit layer of RNN Explorer (the only code besides app.py and pages/ that imports
streamlit). See ui/README.md for the API a page or section author uses.

    session     the current model / sentence / language, own models, training lifecycle
    sidebar     the shared sidebar and the share link
    links       URL state in and out, link notices, the pages/-folder workaround
    cache       every st.cache_* wrapper, one keying rule
    widgets     figures, downloads, error guard, step slider, the exercise widget
    i18n        t(key, **values) and prose(page, key, **values)
    navigation  the list of pages
    sections/   one module per page: its sections as functions of explicit arguments
"""
