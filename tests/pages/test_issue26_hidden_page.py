"""Issue 26 on page 2, read off the running page (both languages): the column sentence names
this step's id and d, the learned-summary sentence shows the first word's reach computed by
rnnviz (and links to page 8), the affine-fit sentence shows both residuals, and an untouched
hand exercise is not graded."""
from __future__ import annotations

import pytest
import torch

from rnnviz.engine.trace import trace
from rnnviz.explain import hidden as hd
from rnnviz.formatting import num
from rnnviz.store.catalog import load_builtin
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare
from tests.apptest_helpers import no_exception, page_text

PAGE = "pages/hidden.py"


def _markdown(at) -> str:
    return page_text(at)  # the markdown elements and the step's parts (ui/stepped.py)


@pytest.mark.parametrize("lang", ("en", "zh"))
def test_page_two_ideas_with_live_numbers(app, lang):
    at = app(PAGE, query={"model": "notes", "lang": lang, "hid_phi": "true"})  # the folded φ section, open
    no_exception(at)
    model, vocab, _ = load_builtin("notes")
    text = at.session_state["text"]
    ids, targets = lm_pair(list(prepare(text, vocab, "word").ids), vocab)
    tr = trace(model, ids, targets)
    md = _markdown(at)
    t1 = int(at.session_state["hid_step"])
    col = hd.input_column(model, tr, t1 - 1)
    assert f"E[{col['id']}]^\\top" in md and f"{col['d']} × 1" in md and f"1 × {col['V']}" in md
    start = 1 if vocab.has_specials else 0
    reach = hd.first_word_reach(model, tr, start)
    summary = next(m for m in md.split("\n\n") if "(/gates#compare)" in m)
    assert num(reach) in summary
    fit = hd.affine_fit_h2(model, torch.Generator().manual_seed(hd.AFFINE_SEED))
    assert num(fit["rel_phi"]) in md and num(fit["rel_linear"]) in md and fit["rel_phi"] > 1e-3


@pytest.mark.parametrize("lang", ("en", "zh"))
def test_untouched_exercise_is_not_graded(app, lang):
    at = app(PAGE, query={"model": "notes", "lang": lang})
    assert all(at.number_input(key=f"hid_ex_{i}").value is None for i in range(4))  # nothing pre-filled
    at.button(key="hid_ex_check").click().run()
    no_exception(at)
    fill = {"en": "Fill in all four numbers first", "zh": "请先填好全部四个数"}[lang]
    assert any(fill in w.value for w in at.warning) and not at.error and not at.success
    ex = hd.make_exercise(0)
    right = hd.exercise_answers(ex)
    for i, v in enumerate(list(right[0])[:1]):  # one box filled, three empty: still not graded
        at.number_input(key=f"hid_ex_{i}").set_value(round(float(v), 3))
    at.button(key="hid_ex_check").click().run()
    assert any(fill in w.value for w in at.warning) and not at.error


def test_one_wrong_step_is_singular_both_plural():
    ex = hd.make_exercise(0)
    h1, h2 = hd.exercise_answers(ex)
    one = hd.check_exercise_verdict(ex, h1, [9.0, 9.0])
    both = hd.check_exercise_verdict(ex, [9.0, 9.0], [9.0, 9.0])
    assert "h₂ differs" in one.message and one.hint_key == "hidden.hint_not_yet"
    assert "differ from" in both.message and both.hint_key == "hidden.hint_not_yet_both"
    assert hd.check_exercise_verdict(ex, [None, 0.1], h2).ok is None


@pytest.mark.parametrize("lang", ("en", "zh"))
def test_page_three_checker_names_every_slip(app, lang):
    from rnnviz.explain import output as out

    at = app("pages/output.py", query={"model": "notes", "lang": lang})
    ex = out.make_exercise(0)
    L, g = ex.view.loss, ex.view.p_minus_y
    at.text_input(key="out_ex_loss").input(f"{-L:.3f}")
    at.text_input(key="out_ex_grad").input(", ".join(f"{-x:.3f}" for x in g))
    at.button(key="out_ex_check").click().run()
    no_exception(at)
    assert len(at.error) == 2  # the sign of L and the flipped p - y, both named
