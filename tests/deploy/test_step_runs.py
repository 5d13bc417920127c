"""A step move is ONE run of the page's step fragment (issue 24), on a real `streamlit run`
driven over Streamlit's websocket as a browser's page drives it (bench/stclient.py, browser=True).

Pages 1, 3, 4 and 7 draw their step fragment in parts around sections the step does not drive
(ui/widgets.StepParts). A fragment called twice would be two call sites: the move reruns the one
that drew the slider, and the other only after a second run was asked for, which cuts the first
short (a run the server begins, then ends early: 35-95 ms of a move in Chromium). Here every move
begins exactly one run, and that run draws the new step in every part and nothing of the page's
other sections; a control inside the last part (page 1's learning rate) reruns that part alone.
Pages 2 and 3 carry their step parts in the page run (ui/stepped.py): a move's run draws the
slider alone, and the page run's stepped blocks hold step 3's words. So does page 8: its step
slider sits in a part of its own inside its step fragment (widgets.inner_part), whose move draws
the slider alone, not the gates over the sentence beside it in the fragment nor the cell's
formulas above it (the step written out is carried by the fragment's stepped blocks)."""
from __future__ import annotations

from pathlib import Path

import pytest

from bench.appserver import app_server
from bench.stclient import Session
from tests.deploy.test_replicas import run_in_own_thread

pytestmark = pytest.mark.deploy
ROOT = Path(__file__).resolve().parents[2]
TEXT = "Arrive Taipei on November 2nd and leave Boston"

# page, step slider, words the move to step 3 must draw (one per part, top to bottom)
PARTS = {
    "embedding": ("emb_step", ["**Lookup.** Step t = 3 reads “Taipei”", "**The same row as one-hot × E.** Write “Taipei”",
                               "would add its two contributions"]),
    "output": ("out_step", ["Step 3: input “Taipei”, target “on”.", "The gradient of L_3 reaches"]),  # stepped
    "bptt": ("bptt_step", ["At step 3 (“Taipei”)", "Here $\\|J_{3}\\|_2$ = "]),  # the first: stepped
    "hidden": ("hid_step", ["Step 3 of 9: the token “Taipei”."]),  # stepped: the words without markdown
    "gates": ("gates_step", ['Step t = 3, input "Taipei".']),  # stepped: the words without markdown
    # page 7's centre word (its own step fragment: the slider, the window, one pair's SGD step)
    "origins": ("origins_centre", ["around “on”", "**The pair (c, o) = (“on”"]),
}
# pages whose step parts follow the slider in the browser (ui/stepped.py): the page run carries
# every step of a window in its stepped blocks, and a move's run draws the slider's fragment alone
STEPPED = {"hidden", "output", "gates"}
STEPPED_FIRST = {"bptt": 1}  # page 4: where ∂L/∂h_t comes from follows the slider; J_t is the run's
# page, words of sections inside the step fragment that the step does not drive: the full run
# draws them, the move does not (page 8's gates over the sentence and the cell's formulas and
# shapes follow the LSTM/GRU choice only)
NOT_REDRAWN = {"gates": ("Each band is one gate over the whole sentence", "At every step the LSTM computes",
                         "f &= \\sigma(A_f)")}


def _index(markdown: list[str], words: str) -> int:
    return next((i for i, m in enumerate(markdown) if words in m), -1)


async def moves(url: str) -> dict:
    s = Session(url, timeout=120, browser=True)
    await s.connect()
    await s.rerun("")
    s.set_widget("text", TEXT)
    await s.rerun("")
    seen = {}
    for page, (key, words) in PARTS.items():
        full = await s.rerun(page)
        s.set_widget(key, [3])
        moved = await s.rerun()
        drawn = full.stepped_text(3) if page in STEPPED else moved.markdown  # step 3's words
        n = STEPPED_FIRST.get(page, 0)  # the first n words: in the page run's stepped blocks
        found = [_index(full.stepped_text(3), w) for w in words[:n]]
        found += [len(found) + _index(drawn, w) if _index(drawn, w) >= 0 else -1 for w in words[n:]]
        seen[page] = (full, moved, found)
        if page == "embedding":  # a control inside the last part: that part alone
            s.set_widget("emb_lr", [0.2])
            seen["embedding lr"] = (moved, await s.rerun(), [])
    await s.close()
    return seen


def test_a_step_move_is_one_run_that_draws_every_part():
    with app_server(ROOT, "test-step-runs.log") as (url, _proc):
        seen = {}

        async def go():
            seen.update(await moves(url))
        run_in_own_thread(go())
    moved, lr, _ = seen.pop("embedding lr")
    assert lr.starts == 1
    assert any("lr = 0.2" in m for m in lr.markdown), lr.markdown
    assert _index(lr.markdown, PARTS["embedding"][1][0]) == -1  # the step's first part: not redrawn
    assert 0 < len(lr.markdown) < len(moved.markdown)
    for page, (full, moved, found) in seen.items():
        assert full.starts == 1, (page, full.starts)
        assert moved.starts == 1, f"{page}: the step move began {moved.starts} runs"
        assert all(i >= 0 for i in found), (page, found, moved.markdown)
        assert found == sorted(found), (page, found)  # the parts drawn in order, top to bottom
        if page in STEPPED:  # the move's run: the slider alone, no step part sent again
            assert not moved.stepped and not moved.markdown and full.stepped, page
            continue
        assert 0 < len(moved.markdown) < len(full.markdown), page  # the fragment alone
        for words in NOT_REDRAWN.get(page, ()):
            assert _index(full.markdown, words) >= 0, (page, words)
            assert _index(moved.markdown, words) == -1, (page, words, moved.markdown)


async def _choices(url: str, page: str, changes: list, query: str) -> list:
    """A session as a browser's page drives it opens `page` (after the overview, as a browser
    opening the link does), then makes each (widget key, value) change in turn: [(the full run,
    the link), then (each change's run, the link after it)]."""
    s = Session(url, timeout=120, browser=True, query=query)
    await s.connect()
    await s.rerun("")
    runs = [(await s.rerun(page), s.query)]
    for key, value in changes:
        s.set_widget(key, value)
        runs.append((await s.rerun(), s.query))
    await s.close()
    return runs


def served_choices(page: str, changes: list, query: str = "model=default") -> list:
    """_choices on a fresh `streamlit run` of this checkout."""
    with app_server(ROOT, "test-step-runs.log") as (url, _proc):
        seen = []

        async def go():
            seen.extend(await _choices(url, page, changes, query))
        run_in_own_thread(go())
    return seen


def test_page2_cell_kind_redraws_its_own_section_alone():
    """Page 2's Elman / Jordan / bidirectional section, open, is a fragment of its own
    (widgets.named_part): choosing Jordan is one run that draws the Jordan equations and
    heatmap, writes hid_cell=jordan into the link, and draws nothing of the step view above."""
    (full, _), (chosen, link) = served_choices("hidden", [("hid_cell", "Jordan")],
                                               "model=default&hid_variants=true")
    assert full.starts == 1 and chosen.starts == 1
    assert not chosen.exceptions
    assert _index(full.stepped_text(2), "Step 2 of ") >= 0  # the full run drew the step view
    assert not chosen.stepped and _index(chosen.markdown, "Step 2 of ") == -1  # the choice did not
    assert _index(chosen.markdown, "Jordan") >= 0, chosen.markdown
    assert 0 < len(chosen.markdown) < len(full.markdown)
    assert "hid_cell=jordan" in link


def test_page2_order_numbers_redraw_their_own_section_alone():
    """Page 2's "why order matters" is a fragment of its own (widgets.named_part): a new w_x is
    one run that draws the two orders' numbers for it and nothing of the step view above it
    (before, it reran the whole page: 75 ms of server time). Its URL parameter is the browser's
    to write (bind="query-params"), as for the step sliders."""
    (full, _), (chosen, _) = served_choices("hidden", [("hid_wx", 3.0)])
    assert full.starts == 1 and chosen.starts == 1
    assert not chosen.exceptions
    order = "**Why order matters, by hand.**"
    assert _index(full.stepped_text(2), "Step 2 of ") >= 0 and _index(full.markdown, order) >= 0
    assert not chosen.stepped and _index(chosen.markdown, "Step 2 of ") == -1, chosen.markdown
    assert "end in\n7 and 5." in full.markdown[_index(full.markdown, order)]  # w_x = 2, inputs 1 and 3
    assert "end in\n10.5 and 7.5." in chosen.markdown[_index(chosen.markdown, order)]  # w_x = 3
    assert 0 < len(chosen.markdown) < len(full.markdown)


def test_page7_merge_k_redraws_the_bpe_sections_alone():
    """Page 7's BPE merges and the word split at merge k are one fragment (widgets.named_part):
    a new k is one run that draws those two sections at k = 50, and neither the Word2Vec half
    above them nor the tokenizers compared below (before, it reran the whole page: 0.086-0.092 s
    of server time at p50)."""
    (full, _), (chosen, _) = served_choices("origins", [("origins_merge", [50])])
    assert full.starts == 1 and chosen.starts == 1
    assert not chosen.exceptions
    for words in ("BPE starts from single characters", "Each tokenizer was fitted on", "At merge k = 100"):
        assert _index(full.markdown, words) >= 0, words
    assert _index(chosen.markdown, "At merge\nk = 50 the tokenizer has") >= 0, chosen.markdown
    assert _index(chosen.markdown, "At merge k = 50 your text becomes") >= 0, chosen.markdown
    assert _index(chosen.markdown, "Each tokenizer was fitted on") == -1
    assert 0 < len(chosen.markdown) < len(full.markdown)


REACH = "**How far each tag can see.**"  # page 5's reach prose, a part of its sentence fragment


def test_page5_sentence_and_confusion_choices_redraw_only_what_they_drive():
    """Page 5's sections that show the chosen sentence are one fragment in parts (ui/widgets.
    StepParts): another sentence is one run that draws the grid, the reach and Jordan's forced tag
    for it, and none of the held-out sections between them. The confusion matrix's tagger is a
    fragment of its own (widgets.named_part): choosing Jordan draws that matrix alone."""
    (full, _), (sentence, link), (matrix, _) = served_choices(
        "slots", [("slot_source", "Notes: Leave Taipei on November 2nd"), ("slot_cm_tagger", "Jordan RNN")])
    assert full.starts == sentence.starts == matrix.starts == 1
    assert not (full.exceptions or sentence.exceptions or matrix.exceptions)
    held_out = "**On the "  # the held-out section's prose, between the sentence's parts
    found = [_index(sentence.markdown, w) for w in ("**Your sentence, tagged by all four.**", REACH,
                                                     "**Jordan's risk: a wrong tag travels on.**")]
    assert _index(full.markdown, held_out) >= 0
    assert _index(sentence.markdown, held_out) == -1, sentence.markdown
    assert all(i >= 0 for i in found) and found == sorted(found), (found, sentence.markdown)
    assert 0 < len(sentence.markdown) < len(full.markdown)
    assert "slot_source=leave" in link
    assert _index(matrix.markdown, held_out) == -1 and _index(matrix.markdown, REACH) == -1, matrix.markdown


def test_page3_sum_or_mean_redraws_the_padded_batch_alone():
    """Page 3's padded batch is a fragment of its own (widgets.named_part): choosing the mean is
    one run that draws that section, writes out_batch_red=mean into the link, and draws nothing
    of the step view above it."""
    (full, _), (chosen, link) = served_choices("output", [("out_batch_red", "mean")])
    assert full.starts == chosen.starts == 1 and not chosen.exceptions
    step, batch = "Step 2: input ", "**A padded batch.**"  # the step view: stepped (ui/stepped.py)
    assert _index(full.stepped_text(2), step) >= 0 and _index(full.markdown, batch) >= 0
    assert not chosen.stepped and _index(chosen.markdown, step) == -1, chosen.markdown
    assert _index(chosen.markdown, batch) >= 0
    assert 0 < len(chosen.markdown) < len(full.markdown)
    assert "out_batch_red=mean" in link
