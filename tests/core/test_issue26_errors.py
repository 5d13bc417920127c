"""Issue 26, errors 1-8: each text checked against the live number it describes (float64
numpy or autograd as the oracle), so the old wording or the old number fails here."""
import tomllib

import numpy as np
import pytest
import torch

from rnnviz import RNNConfig, RNNModel
from rnnviz.engine import gradcheck
from rnnviz.engine.jacobians import jacobian_norms
from rnnviz.engine.trace import trace
from rnnviz.explain import bptt as chains
from rnnviz.explain import word2vec as w2v
from rnnviz.explain.embedding import batch_embeddings
from rnnviz.explain.hidden import scalar_rnn
from rnnviz.explain.notes.errata import note002_eigen_claim, note002_recursion
from rnnviz.explain.output import output_layer_step
from rnnviz.figures.overview import hidden_heatmap
from rnnviz.formatting import num
from rnnviz.store.catalog import default_model, load_builtin
from rnnviz.store.prose import sections
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare
from tests.conftest import ROOT

LANGS = ("en", "zh")
NOTES_TEXT = "I like cats you like dogs"


def _flat(d, prefix=""):
    out = {}
    for k, v in d.items():
        out.update(_flat(v, f"{prefix}{k}.") if isinstance(v, dict) else {prefix + k: v})
    return out


def locale(lang, page):
    return _flat(tomllib.loads((ROOT / "locales" / lang / f"{page}.toml").read_text(encoding="utf-8")))


def notes_trace(text=NOTES_TEXT, scale=1.0):
    model, vocab, meta = load_builtin("notes")
    model = chains.scaled_model(model.double(), scale) if scale != 1.0 else model.double()
    ids, targets = lm_pair(list(prepare(text, vocab, "word").ids), vocab)
    return model, trace(model, ids, targets)


# 1 · the overview's heatmap: steps across, units down, and the text says so -----------------

@pytest.mark.parametrize("lang", LANGS)
def test_overview_text_matches_its_chart(lang):
    model, tr = notes_trace()
    fig = hidden_heatmap(tr.h.numpy(), [str(i) for i in range(tr.T)])
    z = np.asarray(fig.data[0].z)
    assert z.shape == (model.cfg.hidden_size, tr.T)  # rows: units, columns: steps
    text = sections("home", lang)["heatmap"] + sections("home", lang)["look"]
    steps_are = {"en": "Each column is hₜ", "zh": "每一列是读完那个 token 之后的 hₜ"}[lang]
    units_are = {"en": "one row\nper hidden unit", "zh": "每一行是一个隐藏单元"}[lang]
    assert steps_are in text and units_are in text
    assert ("Each row is hₜ" not in text) and ("每一行是读完" not in text)


# 2 · the eigenvalue erratum branches on rho >= 1 and shows ||W_h^n|| beside rho^n ----------

def test_eigen_erratum_on_the_notes_model_is_the_shrinking_branch():
    model, tr = notes_trace("I like cats you")  # 3 steps back: n = 3 as in the issue
    g = note002_eigen_claim(model, tr)
    W = model.W_h.detach().double().numpy()
    rho = max(abs(np.linalg.eigvals(W)))
    assert g["n"] == 3 and not g["above_one"]
    assert g["rho_w"] == pytest.approx(rho, rel=1e-12) and round(rho, 4) == 0.5489
    assert g["norm_w"] == pytest.approx(np.linalg.norm(W, 2), rel=1e-12) and round(g["norm_w"], 3) == 0.932
    assert g["norm_power"] == pytest.approx(np.linalg.norm(np.linalg.matrix_power(W, 3), 2), rel=1e-12)
    assert round(g["norm_power"], 3) == 0.400 and round(g["rho_power"], 3) == 0.165
    assert g["saturated"] == 0  # saturation plays no part: the old text blamed it
    assert g["rho_power"] < g["last"] < 1  # it shrinks, but more slowly than rho^n
    for lang in LANGS:
        s = sections("bptt", lang)["notes-eigen-below"]
        shown = s.format(**{k: num(g[k]) for k in ("rho_w", "rho_power", "peak", "last", "rho_j", "norm_w",
                                                   "norm_power", "slope_thr")},
                         n=g["n"], peak_d=g["peak_d"], saturated=g["saturated"], first=num(g["by_distance"][0]),
                         jacobian="J_t", derivative="1 - h_t^2")
        assert num(g["norm_power"]) in shown and num(g["norm_w"]) in shown
        assert "It does not" not in shown and "实际并非如此" not in shown


def test_eigen_erratum_above_one_on_the_default_model():
    m, vocab, _ = default_model()
    g = note002_eigen_claim(m, trace(m, prepare("Arrive Taipei on November 2nd", vocab).ids))
    assert g["above_one"] and g["last"] < g["rho_power"]  # rho > 1, yet no explosion


def test_saturated_share_counts_flat_slopes_for_relu():
    m = RNNModel(RNNConfig(6, 3, 4, nonlinearity="relu"), seed=0).double()
    with torch.no_grad():
        m.W_h.mul_(3)
    tr = trace(m, [1, 2, 3, 4, 5, 0, 1])
    g = note002_eigen_claim(m, tr)
    dead = float((tr.a <= 0).double().mean())
    assert g["saturated"] == pytest.approx(dead)  # ReLU: the slopes that are 0
    assert dead != pytest.approx(float((tr.h.abs() > 0.95).double().mean()))  # not |h| > 0.95
    for lang in LANGS:
        assert "tanh" not in sections("bptt", lang)["notes-eigen"]


# 3 · one stance on f'(h_t) --------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_one_stance_on_f_prime(lang):
    model, tr = notes_trace()
    r = note002_recursion(model, tr)
    assert r["off_recursion"] < 1e-12  # f'(h_t) = phi'(a_t): the notes' boxed formula is right
    assert r["off_literal"] > 1e-3  # the row form's column transpose is not
    text = sections("bptt", lang)["notes-recursion"]
    assert "{off_recursion}" in text and "{off_literal}" in text
    assert "{off_slope_at_h}" not in text  # no longer calls f'(h_t) a slip
    neither = {"en": "conforms in neither reading", "zh": "怎么读维数都对不上"}[lang]
    assert neither in text and neither.split()[0] in locale(lang, "bptt")["bptt.correction"]


# 4 · the glossary's spectral radius -----------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_glossary_spectral_radius_says_it_of_the_jacobian_products(lang):
    m, vocab, _ = default_model()
    tr = trace(m, prepare("Arrive Taipei on November 2nd", vocab).ids)
    g = note002_eigen_claim(m, tr)
    assert g["rho_w"] > 3 and g["last"] < g["rho_power"] / 10  # rho(W_h) alone does not set the rate
    entry = locale(lang, "glossary")["glossary.def.spectral_radius"]
    assert {"en": "linear RNN", "zh": "线性 RNN"}[lang] in entry and "Jₜ" in entry


# 5 · page 3's gradient step: L_t reaches W_h, W_x, b_h and E ----------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_sgd_on_l_t_reaches_the_recurrent_layer(lang):
    model, tr = notes_trace()
    res = output_layer_step(model, tr, 2, 0.1)
    up = dict(res.upstream)
    assert set(up) == {"E", "W_x", "W_h", "b_h"} and min(up.values()) > 1e-4
    leaves = dict(model.named_parameters())
    loss = torch.nn.functional.cross_entropy(model(tr.ids)[2:3], tr.targets[2:3])
    (gWh,) = torch.autograd.grad(loss, [leaves["W_h"]])
    assert up["W_h"] == pytest.approx(float(gWh.norm()), rel=1e-10)
    text = sections("output", lang)["gradstep"]
    assert "{upstream}" in text and "moves only" not in text and "只改变" not in text


# 6 · page 7's pair loss shows its change ------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_pair_loss_shows_its_change(lang):
    pc = w2v.pair_corpus(w2v.builtin_sentences())
    V, U = w2v.init_vectors(len(pc.vocab), 16, 0)
    ex = w2v.pair_example(V, U, pc.vocab, pc.counts, "Taipei", "Arrive", k=5, lr=0.025, seed=0)
    after = w2v.pair_terms(ex["V_new"][ex["c"]], ex["U_new"][ex["o"]], ex["U_new"][ex["negatives"]])
    assert ex["loss_after"] == pytest.approx(float(after["loss"]), rel=1e-12)
    assert ex["loss_change"] == pytest.approx(ex["loss_after"] - ex["loss"], abs=1e-15) and ex["loss_change"] < 0
    text = sections("origins", lang)["pair_after"]
    assert "{delta}" in text
    shown = text.format(before=num(ex["loss"], 7), after=num(ex["loss_after"], 7), delta=num(ex["loss_change"]),
                        lr="0.025")
    assert num(ex["loss"], 7) != num(ex["loss_after"], 7) and num(ex["loss_change"]) in shown


# 7 · verdict wording --------------------------------------------------------------------------

def test_a_2_5x_shrink_is_not_stays_near():
    for text, scale in (("I like cats you", 1.0), ("I like cats", 1.0), ("I like", 0.5)):
        model, tr = notes_trace(text, scale=scale)
        v = chains.growth_verdict(jacobian_norms(model, tr, 2))
        assert 0.1 < v["factor"] < 0.65 and v["kind"] == "shrinks"  # the old band said "stays near"
    model, tr = notes_trace("I like cats", scale=3.0)
    assert chains.growth_verdict(jacobian_norms(model, tr, 2))["kind"] == "grows"  # x2.6


@pytest.mark.parametrize("lang", LANGS)
def test_clipping_at_scale_one_clips_nothing(lang):
    params, x, y = gradcheck.exploding_setting(1.0)
    demo = gradcheck.clip_demo(gradcheck.autograd_grads(params, x, y), 1.0)
    assert demo["norm before"] < 1.0 and not demo["was_clipped"] and demo["scale"] == 1.0
    params, x, y = gradcheck.exploding_setting(6.0)
    assert gradcheck.clip_demo(gradcheck.autograd_grads(params, x, y), 1.0)["was_clipped"]
    none = sections("bptt", lang)["clipping-none"]
    assert "scales every gradient" not in none and "把所有梯度乘以" not in none


# 8 · leftovers --------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_float_floor_labels_quote_the_note(lang):
    loc = locale(lang, "bptt")
    for key in ("bptt.fig.distance.floor", "bptt.fig.precision.floor"):
        assert "精度地板" in loc[key] and "eps" in loc[key]
        assert "practical" not in loc[key] and "实际下限" not in loc[key]
    floor = sections("bptt", lang)["notes-floor"]
    assert "1.2e-38" in floor and "{tiny}" in floor and "{eps}" in floor
    assert {"en": "clarification, not an error", "zh": "补充说明，不是错误"}[lang] in floor
    assert torch.finfo(torch.float32).eps == pytest.approx(1.1920929e-07)


@pytest.mark.parametrize("lang", LANGS)
def test_order_claim_allows_equal_states(lang):
    ab, ba = scalar_rnn([1, 3], 2.0, 1.0, nonlinearity="linear"), scalar_rnn([3, 1], 2.0, 1.0, nonlinearity="linear")
    assert ab[-1] == ba[-1] == 8  # w_h = 1: both orders end in the same state
    assert scalar_rnn([1, 3], 2.0, 0.5, nonlinearity="linear")[-1] != scalar_rnn([3, 1], 2.0, 0.5, nonlinearity="linear")[-1]
    look = sections("hidden", lang)["look"] if "look" in sections("hidden", lang) else "".join(
        sections("hidden", lang).values())
    assert "w_h = 1" in look.split("(3)")[1].split("\n\n")[0]


def test_batch_docstring_says_what_the_mask_does():
    E = torch.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)
    out = batch_embeddings(E, [[1, 2], [2]], pad_id=0)
    assert float(out["X"][1, 1].abs().sum()) == 0  # the padded row is zeroed ...
    m = RNNModel(RNNConfig(3, 2, 3), seed=0).double()
    h_pad = trace(m, [2, 0]).h  # ... yet a zero input still moves the state (b_h, W_h h)
    assert float(h_pad[1].abs().sum()) > 0
    assert "ignore_index" in batch_embeddings.__doc__ and "carry nothing" not in batch_embeddings.__doc__


# browser-review leftovers that have a core answer ------------------------------------------

def test_neighbour_default_is_a_word_of_the_sentence_in_chinese():
    from rnnviz import RNNConfig as Cfg
    from rnnviz.explain import embedding as emb
    from rnnviz.store.catalog import BUILTINS

    model, vocab, meta = load_builtin("zh")
    E = emb.f64(model.E)
    E0 = emb.f64(RNNModel(Cfg(**model.cfg.to_dict()), seed=emb.training_seed(meta)).E)
    drift = emb.neighbour_drift(E, E0, vocab.itos)
    ids = list(prepare(BUILTINS["zh"].default_sentence, vocab, meta.get("level", "char")).ids)
    assert vocab.itos[drift["best"]] == "糖" and drift["best"] not in ids  # the old default
    pick = emb.sentence_pick(drift, ids, ids[0])
    assert pick in ids and pick == min((i for i in ids if i in drift["kept"]),
                                       key=lambda i: (drift["kept"][i], float(drift["row_cos"][i]), i))


@pytest.mark.parametrize("lang", LANGS)
def test_page3_sections_are_not_numbered_like_pages(lang):
    heads = {k: v for k, v in locale(lang, "output").items() if k.startswith("output.h_")}
    assert len(heads) >= 7 and not any(v[:1].isdigit() for v in heads.values())


def test_a_negative_weight_is_written_in_parentheses():
    ex = next(chains.chain_exercise(s) for s in range(200) if chains.chain_exercise(s)["w"] == -2.0)
    v = chains.check_chain(ex, ex["answer"])
    power = "(−2)" + str(ex["n"]).translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))  # rendered (issue 26)
    assert v.solution.startswith(f"{power} ×") and "-2.0^" not in v.solution
    assert ex["answer"] == pytest.approx((-2.0) ** ex["n"] * float(np.prod(ex["slopes"])))
