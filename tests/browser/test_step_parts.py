"""Pages 1, 3 and 4 draw their step fragment in two parts around sections the step does not
drive (issue 24): in a real browser, one step move redraws both parts (the second reads the
step the first drew), keeps the sections between, and writes the step to the URL; on page 4
the W_h scale, in the second part, still answers at the step the first part holds. Page 8's
step slider reruns only the step written out; its LSTM/GRU choice reruns the gates too."""
from __future__ import annotations

import pytest

from tests.browser.conftest import exceptions_on, page_at
from tests.browser.test_step_fragment import TEXT, step_right

MAIN = "document.querySelector('[data-testid=\"stMain\"]')"

# page, slider key, (part 1's words at step 2, at step 3), (part 2's words at step 2, at step 3),
# words of a section between the parts
PAGES = {
    "embedding": ("emb_step", ("Step t = 2 reads “Arrive”", "Step t = 3 reads “Taipei”"),
                  ("(“Arrive”) gets", "(“Taipei”) gets"), "whatever T is"),
    "output": ("out_step", ("pₜ(Taipei) = ", "pₜ(on) = "),
               ("with lr = 0.05. pₜ(Taipei)", "with lr = 0.05. pₜ(on)"), "A padded batch"),
    "bptt": ("bptt_step", ("At step 2 (“Arrive”)", "At step 3 (“Taipei”)"),
             ("Here ∥J2∥2", "Here ∥J3∥2"), "shared parameter"),  # KaTeX's text of ‖J_2‖_2
}


def _has(pg, text: str, timeout: int = 120_000) -> None:
    """`text` anywhere in the main area, figures' SVG text included (textContent)."""
    pg.wait_for_function(f"(t) => {MAIN}?.textContent.includes(t)", arg=text, timeout=timeout)


@pytest.mark.parametrize("page", sorted(PAGES))
def test_one_step_move_redraws_both_parts(server, browser, page):
    key, (first_2, first_3), (second_2, second_3), between = PAGES[page]
    with page_at(browser, f"{server}/{page}?model=default&text={TEXT}&{key}=2") as pg:
        for text in (first_2, second_2, between):
            _has(pg, text)
        step_right(pg, key)
        _has(pg, first_3)
        _has(pg, second_3)
        content = pg.evaluate(f"() => {MAIN}.textContent")
        assert first_2 not in content and second_2 not in content and between in content
        pg.wait_for_function(f"() => location.search.includes('{key}=3')", timeout=60_000)
        assert not exceptions_on(pg)


def test_page8_step_move_keeps_the_gates_over_the_sentence_and_the_cell_choice_redraws_both(server, browser):
    """Page 8's step slider sits in a part of its own inside the step fragment (widgets.inner_part):
    a move redraws the step written out and leaves the gates over the sentence drawn; the LSTM/GRU
    choice, in the fragment around it, redraws both."""
    with page_at(browser, f"{server}/gates?model=default&text={TEXT}&gates_step=2") as pg:
        _has(pg, 'Step t = 2, input "Arrive"')
        _has(pg, "forget gate near 1")  # the LSTM's gates over the sentence
        step_right(pg, "gates_step")
        _has(pg, 'Step t = 3, input "Taipei"')
        content = pg.evaluate(f"() => {MAIN}.textContent")
        assert 'Step t = 2, input "Arrive"' not in content and "forget gate near 1" in content
        assert pg.locator('.js-plotly-plot').count() >= 3  # the maps and both gate charts
        assert pg.locator(".katex-error").count() == 0  # KaTeX read every formula (the cell's block too)
        pg.wait_for_function("() => location.search.includes('gates_step=3')", timeout=60_000)
        pg.locator(".st-key-gates_cell").get_by_text("gru", exact=True).click()
        _has(pg, "the GRU computes three blocks")
        _has(pg, "An update gate")  # the GRU's gates over the sentence
        _has(pg, 'Step t = 3, input "Taipei"')  # the step kept
        assert not exceptions_on(pg)


VALUE_LINES = """() => [...document.querySelector('.st-key-gates_rows table').querySelectorAll('tbody tr')].map(tr => {
  const p = tr.lastElementChild, range = document.createRange();
  range.selectNodeContents(p);
  return [p.textContent, new Set([...range.getClientRects()].map(r => Math.round(r.top))).size]; })"""


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_page8_step_table_shows_each_vector_on_one_line(server, browser, lang):
    """Page 8's step table (11 vectors, their first 8 entries each): on a wide screen each vector
    reads on one line, and its symbol is drawn as math. Streamlit wrapped a table's cell at 400 px,
    which put every vector on two lines beside the table's empty space; the table is now the step's
    stepped table (ui/stepped.py), which keeps a row on one line."""
    with page_at(browser, f"{server}/gates?gates_step=2&lang={lang}") as pg:
        pg.locator(".st-key-gates_rows table").first.scroll_into_view_if_needed()
        pg.wait_for_function("() => document.querySelectorAll('.st-key-gates_rows .katex').length === 11",
                             timeout=30_000)
        rows = pg.evaluate(VALUE_LINES)
        assert len(rows) == 11 and all("…" in text for text, _ in rows), rows
        assert all(lines == 1 for _, lines in rows), rows
        assert not exceptions_on(pg)
