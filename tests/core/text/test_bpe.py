"""The subword default model: no <unk> on everyday English (measured beside the word-level
default), its report recomputed, and the core functions (trace, embedding, output, BPTT)
on its BPE vocabulary checked against torch.nn.RNN, float64 autograd and jacobian()."""
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

from rnnviz.engine import generation
from rnnviz.engine.jacobians import jacobian_norms, step_jacobians
from rnnviz.engine.trace import trace
from rnnviz.explain import hidden as hd
from rnnviz.explain import output as out
from rnnviz.explain.embedding import embedding_gradient
from rnnviz.store.catalog import BUILTINS, PRETRAINED, START_MODEL, load_builtin, subword_report
from rnnviz.text.bpe import decode
from rnnviz.text.corpora import (
    CORPORA,
    PATTERNS_FILE,
    english_patterns,
    english_sentences,
    known_examples,
    lm_pair,
)
from rnnviz.text.tokenize import UNK, prepare
from tests.oracles import torch_rnn_like

HELDOUT = Path(__file__).resolve().parents[2] / "data" / "en_heldout_everyday.txt"


def everyday():
    return [ln.strip() for ln in HELDOUT.read_text(encoding="utf-8").splitlines() if ln.strip()]


@pytest.fixture(scope="module")
def bpe():
    return load_builtin("subword")


@pytest.fixture(scope="module")
def word():
    return load_builtin("default")


def test_catalog_keeps_default_word_level_and_adds_subword(bpe, word):
    assert set(BUILTINS) >= {"default", "notes", "subword"} and START_MODEL == "subword"
    assert word[1].tokenizer is None and len(word[1]) == 79  # links with model=default unchanged
    model, vocab, meta = bpe
    assert meta["level"] == "bpe" and vocab.tokenizer == "bpe"
    assert (PRETRAINED / "bpe_lm.pt").stat().st_size < 5_000_000
    assert model.cfg.vocab_size == len(vocab)


def test_heldout_sentences_are_not_in_the_corpus():
    corpus = {s.lower() for s in english_sentences()}
    held = everyday()
    assert len(held) == 50 and len(set(held)) == 50
    assert not corpus & {s.lower() for s in held}


def test_patterns_file_is_the_generator_output():
    assert (CORPORA / PATTERNS_FILE).read_text(encoding="utf-8").splitlines() == english_patterns()


def test_no_unknown_on_the_cat_and_50_everyday_sentences(bpe, word, capsys):
    _, vocab, _ = bpe
    prep = prepare("the cat sat on the mat", vocab)
    assert prep.tokenizer == "bpe" and not prep.unknown and UNK not in vocab.decode(prep.ids)
    assert vocab.decode(prep.ids) == list(prep.tokens)
    n_bpe = unk_bpe = n_word = unk_word = 0
    for s in everyday():
        p = prepare(s, vocab, "word")  # the vocabulary's own tokenizer wins
        assert p.tokenizer == "bpe" and decode(p.tokens) == " ".join(s.split())
        n_bpe, unk_bpe = n_bpe + len(p.tokens), unk_bpe + len(p.unknown)
        q = prepare(s, word[1], "word")
        assert q.tokenizer == "word"
        n_word, unk_word = n_word + len(q.tokens), unk_word + len(q.unknown)
    assert unk_bpe == 0
    assert unk_word > 0  # the reason for the subword model
    report = subword_report()["unknown_everyday50"]
    assert report["bpe"]["unknown"] == 0 and report["bpe"]["tokens"] == n_bpe
    assert (report["word_default"]["unknown"], report["word_default"]["tokens"]) == (unk_word, n_word)
    with capsys.disabled():
        print(f"\nunknown rate on 50 everyday sentences: BPE {unk_bpe}/{n_bpe} = 0, "
              f"word-level default {unk_word}/{n_word} = {unk_word / n_word:.1%}")


def test_report_perplexity_recomputed_with_cross_entropy(bpe):
    model, vocab, meta = bpe
    assert meta["report"] == subword_report()
    ce, n = 0.0, 0
    with torch.no_grad():
        for s in everyday():
            x, y = lm_pair(list(prepare(s, vocab).ids), vocab)
            z = model(torch.tensor([x]))[0].double()  # (T, V)
            ce += float(F.cross_entropy(z, torch.tensor(y), reduction="sum"))
            n += len(y)
    ppl = float(torch.exp(torch.tensor(ce / n)))
    assert ppl == pytest.approx(subword_report()["everyday50_perplexity"], rel=1e-3)
    assert subword_report()["heldout_perplexity"] < subword_report()["uniform_perplexity"] / 10


@pytest.fixture(scope="module")
def cat_trace(bpe):
    model, vocab, _ = bpe
    x, y = lm_pair(list(prepare("the cat sat on the mat", vocab).ids), vocab)
    return x, y, trace(model, torch.tensor(x), torch.tensor(y))


def test_trace_on_subwords_equals_nn_rnn_and_float64_autograd(bpe, cat_trace):
    model, _, _ = bpe
    x, y, tr = cat_trace
    ids = torch.tensor(x)
    emb = model.E.detach().double()[ids]  # (T, d)
    rnn = torch_rnn_like(model).double()
    h, _ = rnn(emb[None])  # (1, T, H)
    assert torch.allclose(tr.h.double(), h[0], atol=1e-5)
    # float64 autograd of the whole loss for the gradients
    params = {n: p.detach().double().requires_grad_() for n, p in model.named_parameters()}
    hs, h_prev = [], torch.zeros(model.cfg.hidden_size, dtype=torch.float64)
    for t in range(len(x)):
        h_prev = torch.tanh(params["W_x"] @ params["E"][x[t]] + params["W_h"] @ h_prev + params["b_h"])
        hs.append(h_prev)
    z = torch.stack(hs) @ params["W_o"].T + params["b_o"]  # (T, V)
    loss = F.cross_entropy(z, torch.tensor(y), reduction="sum")
    loss.backward()
    assert float(tr.loss) == pytest.approx(float(loss.detach()), rel=1e-5)
    for name in ("W_h", "W_x", "W_o", "E"):
        assert torch.allclose(tr.grads[name].double(), params[name].grad, atol=1e-5), name
    # x^T g_e: the embedding gradient from the per-step input gradients
    assert torch.allclose(embedding_gradient(x, tr.grad_x.double(), len(model.E)),
                          params["E"].grad, atol=1e-5)


def test_bptt_jacobians_on_subwords_equal_autograd(bpe, cat_trace):
    model, _, _ = bpe
    x, _, tr = cat_trace
    J = step_jacobians(model, tr)  # (T, H, H)
    t = 3
    W_h, b_h, W_x = (model.W_h.detach().double(), model.b_h.detach().double(), model.W_x.detach().double())
    x_t = model.E.detach().double()[x[t]]
    auto = torch.autograd.functional.jacobian(lambda hp: torch.tanh(W_x @ x_t + W_h @ hp + b_h),
                                              tr.h[t - 1].double())
    assert torch.allclose(J[t].double(), auto, atol=1e-5)
    norms = jacobian_norms(model, tr)
    assert float(norms[t, t - 1]) == pytest.approx(float(torch.linalg.matrix_norm(auto)), rel=1e-4)


def test_output_helpers_read_subword_labels(bpe, cat_trace):
    _, vocab, _ = bpe
    x, y, tr = cat_trace
    tokens = vocab.decode(x)
    rows = out.sentence_rows(tr, vocab, 3, tokens)
    assert [r["input"] for r in rows] == ["<bos>", "▁the", "▁cat", "▁s", "at", "▁on", "▁the", "▁m", "at"]
    assert rows[-1]["target"] == "<eos>"
    ranks = out.target_ranks(tr)
    for t in range(tr.T):
        assert ranks[t] == int((tr.p[t] > tr.p[t, y[t]]).sum()) + 1
    steps = generation.generate(bpe[0], x[:3], generation.Sampling(max_new=5), eos_id=vocab.stoi["<eos>"])
    seq = list(x[:3])
    with torch.no_grad():
        for st in steps:  # greedy: each pick is the argmax of the model run on all so far
            p = torch.softmax(bpe[0](torch.tensor([seq]))[0, -1].double(), -1)  # (V,)
            assert st.chosen == int(p.argmax()) and st.p_model == pytest.approx(float(p.max()), rel=1e-4)
            seq.append(st.chosen)


def test_reversal_keeps_unknown_in_place_and_says_what_is_compared(word, bpe):
    _, vocab, _ = word
    text = "the cat sat on the mat"
    rev, note = hd.default_overlay(["<bos>"] + vocab.decode(prepare(text, vocab).ids), vocab, text=text)
    assert rev == "mat the on sat cat the" and note == ""
    cmp = hd.compared_tokens(text, rev, vocab)
    assert UNK in cmp["tokens_a"] and cmp["tokens_b"] == cmp["tokens_a"][::-1]
    assert cmp["same_bag"] and len(cmp["tokens_a"]) == 6
    assert hd.plain_words(["<bos>", "<unk>", "on", "<eos>"]) == ["<unk>", "on"]
    # the page's old path (tokens only) no longer reverses a sentence with its <unk>s dropped
    rev2, note2 = hd.default_overlay(vocab.decode(prepare(text, vocab).ids), vocab)
    assert rev2 != "on" and "does not know" in note2
    # subwords: reversed by words, then re-tokenized
    _, bvocab, _ = bpe
    cmp = hd.compared_tokens("dog bites man", hd.reversed_text("dog bites man"), bvocab)
    assert cmp["same_bag"] and cmp["tokens_b"] != cmp["tokens_a"] and not cmp["unknown_a"]
    assert ("dog bites man", "man bites dog") in hd.order_presets(bvocab)


def test_known_examples_and_vocabulary_search(word, bpe):
    _, vocab, _ = word
    ex = known_examples(vocab, 5)
    assert len(ex) == 5 and all(not prepare(s, vocab).unknown for s in ex)
    assert ex == sorted(ex, key=lambda s: (len(s), s))
    assert known_examples(bpe[1], 3) and all(not prepare(s, bpe[1]).unknown for s in known_examples(bpe[1], 3))
    hits = vocab.search("arr")
    assert hits[0][1].lower().startswith("arr") and all("arr" in t.lower() for _, t in hits)
    assert vocab.search("zzzz") == [] and len(vocab.search("", 7)) == 7
    assert any(tok == "▁cat" for _, tok in bpe[1].search("cat"))


def test_step_view_on_subwords_equals_cross_entropy_autograd(cat_trace, bpe):
    _, vocab, _ = bpe
    _, _, tr = cat_trace
    for t in range(tr.T):
        v = out.step_view(tr, t, vocab.itos)
        z = tr.z[t].double().clone().requires_grad_(True)  # (V,)
        loss = F.cross_entropy(z[None], tr.targets[t:t + 1])
        (g,) = torch.autograd.grad(loss, z)
        assert v.loss == pytest.approx(float(loss.detach()), abs=1e-5)
        assert torch.allclose(torch.as_tensor(v.p_minus_y).double(), g, atol=1e-6)


def test_neighbour_lists_equal_nearest_row_by_row():
    from rnnviz.explain import embedding as emb
    g = torch.Generator().manual_seed(3)
    E = torch.randint(-2, 3, (40, 3), generator=g).double()  # small integers: many ties
    E[7] = 0.0  # a zero row: NaN cosines, sorted last
    E0 = torch.randn(40, 3, generator=g).double()
    lists = emb.neighbour_lists(E, range(40), 5)
    for i in range(40):
        assert lists[i] == [j for j, _ in emb.nearest(E, i, 5)], i
    drift = emb.neighbour_drift(E, E0, [str(i) for i in range(40)])
    assert drift["kept"] == {i: emb.kept_neighbours(E, E0, i, 5) for i in drift["kept"]}


def test_neighbour_drift_of_the_subword_model_runs(bpe):
    from rnnviz.explain import embedding as emb
    model, vocab, _ = bpe
    E0 = torch.randn(model.E.shape, generator=torch.Generator().manual_seed(0))
    drift = emb.neighbour_drift(model.E, E0, list(vocab.itos))
    assert len(drift["kept"]) == len(vocab) - 4 and drift["best"] in drift["kept"]


def test_prepared_says_which_tokenizer_made_the_tokens(bpe):
    from rnnviz.text.tokenize import Vocab
    v = Vocab(("<unk>", "a", "b", " "))
    assert prepare("a b", v, "char").tokenizer == "char"
    assert prepare("a b", v).tokenizer == "word" and prepare("a b", v, None).tokenizer == "word"
    p = prepare("a b", bpe[1], "char")  # a BPE vocabulary reads with its own table
    assert p.tokenizer == "bpe" and p.tokens == ("▁a", "▁b")


def test_subword_sentence_reverses_by_words_not_by_marked_tokens(bpe, word):
    """The page's default second sentence on the subword model: the typed words reversed, never
    the "▁"-marked subwords joined (the mark was read back as bytes <0xE2> <0x96> <0x81>)."""
    _, bvocab, _ = bpe
    text = "the cat sat on the mat"
    tokens = ["<bos>"] + bvocab.decode(prepare(text, bvocab).ids)
    src = hd.reversal_source("bpe", tokens, text)
    rev, note = hd.default_overlay(tokens, bvocab, "bpe", text=src)
    assert rev == "mat the on sat cat the" and note == ""
    assert "▁" not in rev and not any(t.startswith("<0x") for t in hd.compared_tokens(text, rev, bvocab)["tokens_b"])
    # every level reverses the text as typed, re-tokenized (issue 25: never characters + spaces)
    assert hd.reversal_source("char", ["我", "爱"], "我爱") == "我爱"
    assert hd.reversal_source("word", ["<bos>", UNK, "cat"], "zzq cat") == "zzq cat"


def test_padded_batch_default_is_the_first_half_as_text(bpe):
    """The output page's default second sentence reads back as the sentence's first half:
    no "▁" joined with spaces (re-read as <0xE2> <0x96> <0x81> bytes before)."""
    _, bvocab, _ = bpe
    toks = prepare("the cat sat on the mat", bvocab).tokens
    half = out.first_half_text(toks, "bpe")
    assert half == "the cat sat"
    assert list(prepare(half, bvocab).tokens) == list(toks[: (len(toks) + 1) // 2])
    assert out.first_half_text(["t", "h", "e", " ", "c"], "char") == "the"
    assert out.first_half_text(["dog", "bites", "man"], "word") == "dog bites"
