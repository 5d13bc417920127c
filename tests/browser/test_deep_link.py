"""A deep link as a fresh server's very first request still goes through app.py.

Streamlit treats an app with a pages/ folder as an old-style multipage app until the first
st.navigation call, so the very first request for /hidden would run pages/hidden.py alone (no
sidebar, no navigation) unless ui.links.page_runs_alone repairs it. Needs its own fresh server.
"""
from tests.browser.conftest import (
    exceptions_on,
    require_browser,
    running_app,
    screenshot,
    wait_ready,
    watch,
)


def test_first_request_to_a_page_url_has_the_sidebar_and_the_linked_view(chromium):
    require_browser()
    with running_app("streamlit-deep-link.log") as url:
        pg = watch(chromium.new_page(viewport={"width": 1400, "height": 1000}))
        try:
            pg.goto(f"{url}/hidden?model=notes&text=I+like+dogs")
            wait_ready(pg)
            # the first run may be the page alone; it reruns through app.py, which draws the sidebar
            pg.wait_for_function("""() => { const t = document.querySelector('textarea[aria-label="Sentence"]');
                                           return t && t.value === "I like dogs"; }""", timeout=60_000)
            wait_ready(pg)
            assert not exceptions_on(pg)
            assert "2 · Hidden states" in pg.inner_text('[data-testid="stSidebarNav"]')
            # the step's text is a stepped part (ui/stepped.py): drawn by its own code once that has
            # loaded, which on a busy machine can come after the run has finished (CI, 2026-12-07)
            pg.wait_for_function("""() => { const m = document.querySelector('[data-testid="stMain"]');
                                           return m && m.innerText.includes("Step 1 of 3"); }""", timeout=30_000)
            main = pg.inner_text('[data-testid="stMain"]')
            assert "Notes example" in main and "Step 1 of 3" in main
            screenshot(pg, "deep-link-hidden")
        finally:
            pg.close()
