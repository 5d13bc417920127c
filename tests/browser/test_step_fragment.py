"""Page 2's step is a fragment (issue 24), in a real browser: a step move redraws the step view
and the share link, and a folded section below that shows the step too (the φ section's
linear expansion), when open, follows the slider (the move then redraws the page)."""
from __future__ import annotations

import pytest

from tests.browser.conftest import exceptions_on, page_at, wait_ready
from tests.browser.test_links import share_link

TEXT = "Arrive+Taipei+on+November+2nd+and+leave+Boston"


def _main_has(pg, text: str) -> None:
    pg.wait_for_function("(t) => document.querySelector('[data-testid=\"stMain\"]')?.innerText.includes(t)",
                         arg=text, timeout=120_000)


def _link_has(pg, words: str) -> None:
    """Wait until the sidebar's open share box shows a link holding `words`."""
    pg.wait_for_function("(w) => document.querySelector('[data-testid=\"stSidebar\"] "
                         "[data-testid=\"stCode\"] code')?.innerText.includes(w)", arg=words, timeout=60_000)


def _move_with_the_box_open(pg, key: str, at_3: list[str], at_4: list[str]) -> None:
    """The page at step 3 shows each of at_3; open the share box (its link at step 3), move the
    step right, then the page shows each of at_4 and the open box's link step 4."""
    for words in at_3:
        _main_has(pg, words)
    assert f"{key}=3" in share_link(pg)  # opens the box
    step_right(pg, key)
    for words in at_4:
        _main_has(pg, words)
    _link_has(pg, f"{key}=4")


def _choose(pg, key: str, option: str | None = None) -> None:
    """Another value in the widget `key`, as a learner picks it: in a select box, the option
    holding `option`; in a radio, the label holding `option` (none: its first one not chosen)."""
    box = pg.locator(f'.st-key-{key} input[role="combobox"]')
    if box.count():
        box.first.scroll_into_view_if_needed()
        box.first.click()
        pg.locator('[role="option"]', has_text=option).first.click()
        return
    shown = f':has-text("{option}")' if option else ":has(input:not(:checked))"
    label = pg.locator(f".st-key-{key} label{shown}").first
    label.scroll_into_view_if_needed()
    label.click()


def step_right(pg, key: str = "hid_step", arrow: str = "ArrowRight") -> None:
    """The step slider one step right, from the keyboard (as a learner without a mouse does)."""
    thumb = pg.locator(f'.st-key-{key} input[type="range"]').first
    thumb.scroll_into_view_if_needed()
    thumb.focus()
    pg.keyboard.press(arrow)
    pg.wait_for_timeout(500)
    wait_ready(pg)


def step_left(pg, key: str = "hid_step") -> None:
    """The step slider one step left, from the keyboard."""
    step_right(pg, key, "ArrowLeft")


@pytest.mark.parametrize("folded_open", [True, False])
def test_page2_step_move_reaches_the_step_view_the_link_and_an_open_section(server, browser, folded_open):
    phi = "&hid_phi=true" if folded_open else ""
    with page_at(browser, f"{server}/hidden?model=default&text={TEXT}&hid_step=2{phi}") as pg:
        _main_has(pg, "Step 2 of ")  # the step view's own words
        if folded_open:
            _main_has(pg, "Step 2, the step slider's step.")
        step_right(pg)
        _main_has(pg, "Step 3 of ")
        if folded_open:  # the open section below the fragment drew the new step too
            _main_has(pg, "Step 3, the step slider's step.")
        else:  # closed: the expansion was never computed
            assert "the step slider's step" not in pg.locator('[data-testid="stMain"]').inner_text()
        assert "hid_step=3" in share_link(pg)
        assert not exceptions_on(pg)


def test_a_control_inside_a_step_fragment_reaches_the_share_link(server, browser):
    """Page 1's update-rule radio sits in the page's step fragment: its change reruns that
    fragment alone and writes the URL, not the sidebar's link. Opening the share box computes the
    link then, so the learner shares the rule they chose (emb_rule=wd), not the one before."""
    with page_at(browser, f"{server}/embedding?model=default&text={TEXT}") as pg:
        rule = pg.locator('.st-key-emb_rule label:has-text("SGD + weight decay")').first
        rule.scroll_into_view_if_needed()
        rule.click()
        pg.wait_for_function("() => location.search.includes('emb_rule=wd')", timeout=60_000)
        wait_ready(pg)
        assert "emb_rule=wd" in share_link(pg)
        assert not exceptions_on(pg)


@pytest.mark.parametrize(("page", "key", "option", "words"), [
    ("embedding", "emb_rule", "SGD + weight decay", "emb_rule=wd"),  # page 1: the update part
    ("bptt", "bptt_ord", "Frobenius", "bptt_ord=fro"),  # page 4: the W_h-scale part
])
def test_an_open_share_box_follows_a_control_in_a_step_fragments_part(server, browser, page, key, option, words):
    """A control in the last part of a page's step fragment (widgets.FOLLOW) reruns its part, and
    with the share box open the box too: the link shows the choice at once, box still open."""
    with page_at(browser, f"{server}/{page}?model=default&text={TEXT}") as pg:
        assert words not in share_link(pg)  # opens the box
        _choose(pg, key, option)
        _link_has(pg, words)
        box = pg.locator('[data-testid="stSidebar"] [data-testid="stExpander"]', has_text="Share this view").first
        assert box.locator("details[open]").count() == 1
        assert not exceptions_on(pg)


def test_an_open_share_box_follows_page_nines_row(server, browser):
    """Page 9's chosen row is a fragment of its own (widgets.named_part): a move of its slider
    redraws the row's words and the open share box's link (widgets.follow_part)."""
    with page_at(browser, f"{server}/attention?model=default&text={TEXT}") as pg:
        assert "attention_row=" not in share_link(pg)  # the last row, the default; opens the box
        step_right(pg, "attention_row", "ArrowLeft")
        _link_has(pg, "attention_row=")
        assert not exceptions_on(pg)


def test_an_open_share_box_follows_a_step_move(server, browser):
    """A step move reruns the share link only while its box is open (widgets.share_step; a closed
    box computes the link when opened, as above): open, the link follows the move, box still open."""
    with page_at(browser, f"{server}/output?model=default&text={TEXT}&out_step=3") as pg:
        _move_with_the_box_open(pg, "out_step", ["pₜ(on) = "], ["pₜ(November) = "])
        box = pg.locator('[data-testid="stSidebar"] [data-testid="stExpander"]', has_text="Share this view").first
        assert box.locator("details[open]").count() == 1
        assert not exceptions_on(pg)


def test_page7_centre_word_moves_its_parts_and_an_open_share_box(server, browser):
    """Page 7's centre word is a step fragment of its own (the slider, its window, one pair's SGD
    step): a move redraws those parts, and the open share box follows it (widgets.follow_share)."""
    with page_at(browser, f"{server}/origins?model=default&text={TEXT}&origins_centre=3") as pg:
        _move_with_the_box_open(pg, "origins_centre", ["around “on”", "The pair (c, o) = (“on”"],
                                ["around “November”",  # the window part
                                 "The pair (c, o) = (“November”"])  # the last part: one pair's SGD step
        assert not exceptions_on(pg)


def test_page8_step_in_its_inner_part_moves_an_open_share_box(server, browser):
    """Page 8's step slider sits in a fragment inside the step fragment (widgets.inner_part): with
    the share box open, a move still reaches the link, and the step written out follows it."""
    with page_at(browser, f"{server}/gates?model=default&text={TEXT}&gates_step=3") as pg:
        _move_with_the_box_open(pg, "gates_step", ['Step t = 3, input "Taipei"'], ['Step t = 4, input "on"'])
        _main_has(pg, "forget gate near 1")  # the gates over the sentence still drawn
        assert not exceptions_on(pg)


def test_page2_cell_kind_redraws_its_section_and_an_open_share_box(server, browser):
    """Page 2's Elman / Jordan / bidirectional section, open, is a fragment of its own
    (widgets.named_part): choosing Jordan redraws it with Jordan's words, and the open share box
    follows (widgets.follow_part), box still open."""
    with page_at(browser, f"{server}/hidden?model=default&text={TEXT}&hid_variants=true") as pg:
        _main_has(pg, "Step 2 of ")
        assert "hid_variants=true" in share_link(pg)  # opens the box
        _choose(pg, "hid_cell", "Jordan")
        _main_has(pg, "the state fed back is the previous output")
        _link_has(pg, "hid_cell=jordan")
        pg.wait_for_function("() => location.search.includes('hid_cell=jordan')", timeout=60_000)
        box = pg.locator('[data-testid="stSidebar"] [data-testid="stExpander"]', has_text="Share this view").first
        assert box.locator("details[open]").count() == 1
        assert not exceptions_on(pg)


def test_page5_sentence_choice_redraws_its_parts_and_an_open_share_box(server, browser):
    """Page 5's sentence sections are one fragment in parts (widgets.StepParts): choosing another
    sentence redraws the grid's words and Jordan's forced step for it, and the open share box
    follows (widgets.follow_share)."""
    with page_at(browser, f"{server}/slots?model=default") as pg:
        _main_has(pg, "Arrive Taipei on November 2nd")
        assert "slot_source" not in share_link(pg)  # opens the box
        _choose(pg, "slot_source", "Leave Taipei")
        _main_has(pg, '("Leave")')  # Jordan's forced step names the new sentence's first word
        _link_has(pg, "slot_source=leave")
        assert not exceptions_on(pg)


def test_page3_sum_or_mean_redraws_the_batch_and_an_open_share_box(server, browser):
    """Page 3's padded batch is a fragment of its own (widgets.named_part): choosing the mean
    redraws it, and the open share box follows (widgets.follow_part)."""
    with page_at(browser, f"{server}/output?model=default&text={TEXT}") as pg:
        _main_has(pg, "A padded batch.")
        assert "out_batch_red" not in share_link(pg)  # opens the box
        _choose(pg, "out_batch_red")
        _link_has(pg, "out_batch_red=mean")
        pg.wait_for_function("() => location.search.includes('out_batch_red=mean')", timeout=60_000)
        assert not exceptions_on(pg)
