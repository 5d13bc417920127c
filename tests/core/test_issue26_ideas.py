"""Issue 26: the half-taught ideas made live, each number against its oracle and each text in
both languages (pages 1, 3 and 4)."""
import pytest
import torch

from rnnviz.conventions import IGNORE
from rnnviz.engine.trace import trace
from rnnviz.explain import bptt as chains
from rnnviz.explain import embedding as emb
from rnnviz.explain import output as out
from rnnviz.explain.notes.errata import NotesRNNCell, note003_gradient_check
from rnnviz.store.catalog import load_builtin
from rnnviz.store.prose import sections
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare
from tests.oracles import notes_float64_trace as notes_trace  # the notes' model, float64

LANGS = ("en", "zh")


# ---- page 1 -----------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_x_times_g_e_needs_the_transpose(lang):
    V, d = 5, 3
    x, g = torch.zeros(1, V), torch.ones(1, d)
    x[0, 2] = 1
    with pytest.raises(RuntimeError):
        x @ g  # (1 x 5)(1 x 3) does not conform
    assert (x.T @ g).shape == (V, d)
    text = sections("embedding", lang)["outer-transpose"]
    assert "(1 × {V})(1 × {d})" in text and "({V} × 1)(1 × {d})" in text


@pytest.mark.parametrize("lang", LANGS)
def test_subtracting_a_negative_gradient_raises_an_entry(lang):
    p = emb.PRESETS["notes"]
    i = p.ids[p.focus]
    G = emb.typed_gradient(len(p.ids), len(p.g), p.focus, p.g)
    new = emb.sgd_step(p.E, emb.embedding_gradient(p.ids, G, len(p.itos)), p.lr)
    assert float(p.E[i][1]) == pytest.approx(0.8) and float(p.g[1]) == -1
    assert float(new[i][1]) == pytest.approx(0.8 - 0.1 * -1) == pytest.approx(0.9)
    assert "{old2} − {lr} · ({g2}) = {new2}" in sections("embedding", lang)["notes-example"]


@pytest.mark.parametrize("lang", LANGS)
def test_memory_at_real_sizes(lang):
    assert emb.REAL_SIZES == (256, 512) and emb.NOTES_V == 50_000
    for d in emb.REAL_SIZES:
        onehot, _, dense = emb.memory_table(emb.NOTES_V, d, 1000)
        assert onehot["numbers per word"] == 50_000 and dense["numbers per word"] == d
        assert onehot["first layer to d dims (numbers)"] == 50_000 * d
        assert onehot["first layer (MB)"] == pytest.approx(50_000 * d * 4 / 1e6)
    assert "50,000" in sections("embedding", lang)["memory-sizes"]


# ---- page 3 -----------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_targets_are_ids_of_a_v_way_classification(lang):
    model, vocab, tr = notes_trace("I like cats you")
    rows = out.context_rows(list(tr.tokens) if hasattr(tr, "tokens") else vocab.decode(tr.ids),
                            out.target_tokens(vocab, tr.targets), tr.targets.tolist())
    for r, i in zip(rows, tr.targets.tolist()):
        assert r["target id"] == ("–" if i == IGNORE else i)
        if i != IGNORE:
            assert vocab.itos[r["target id"]] == r["target (next token)"]
    assert tr.p.shape[-1] == len(vocab)  # V classes at every step
    text = sections("output", lang)["labels"]
    assert {"en": "V-way classification", "zh": "V 分类"}[lang] in text


# ---- page 4 -----------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_double_counting_is_off_from_autograd(lang):
    model, vocab, tr = notes_trace()
    dc = chains.double_counted(model, tr)
    assert dc["off_right"] < 1e-12 and dc["off_wrong"] > 1e-3 and dc["rel"] > 0.01
    text = sections("bptt", lang)["double-count"]
    assert "{wrong}" in text and "{right}" in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_notes_isfinite_assert(lang):
    r = note003_gradient_check(corrected=True)
    cell = NotesRNNCell(8, 16, 3, torch.Generator().manual_seed(0))
    assert r["finite"] and r["entries"] == sum(p.numel() for p in cell.parameters()) == 451
    assert not note003_gradient_check(corrected=False)["finite"]  # the printed block never gets there
    assert "isfinite" in sections("bptt", lang)["notes-gradcheck"]


# ---- page 2 -----------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_bounded_state_is_not_a_stable_gradient(lang):
    from rnnviz.engine.jacobians import jacobian_norms

    model, vocab, _ = load_builtin("notes")
    m3 = chains.scaled_model(model.double(), chains.SCALE_PRESETS["explode"])
    ids, targets = lm_pair(list(prepare("I like cats", vocab, "word").ids), vocab)
    tr3 = trace(m3, ids, targets)
    assert float(tr3.h.abs().max()) < 1  # the states stay in (-1, 1) ...
    v = chains.growth_verdict(jacobian_norms(m3, tr3, 2))
    P = torch.eye(4, dtype=torch.float64)  # ... while the product from the last step to the first grows
    for t in range(tr3.T - 1, 0, -1):
        P = P @ (torch.diag(1 - tr3.h[t] ** 2) @ m3.W_h.detach())
    assert v["kind"] == "grows" and v["factor"] == pytest.approx(float(torch.linalg.matrix_norm(P, 2)), rel=1e-9)
    text = sections("hidden", lang)["bounded-gradient"]
    assert "{verdict}" in text and "{hmax}" in text and "(-1, 1)" in text
