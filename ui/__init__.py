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

# Imported here, by the import every run passes first (app.py, and a page a fresh server runs on
# its own), under the import lock, so no thread sees them half done: plotly's to_json takes
# PIL.Image (and orjson) from sys.modules as they are, and two sessions' first charts at once met
# PIL.Image half imported ("partially initialized module 'PIL.Image'", a fresh replica in CI).
import PIL.Image  # noqa: F401

try:  # plotly's JSON writer takes orjson when it is installed
    import orjson  # noqa: F401
except ImportError:
    pass

