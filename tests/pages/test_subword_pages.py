"""Every page runs on the subword model with "the cat sat on the mat": no exception, and the
overview's tokens are the BPE tokens rnnviz computes, with no <unk> anywhere in the tables."""
import pytest

from rnnviz.store.catalog import load_builtin
from rnnviz.text.tokenize import prepare
from tests.apptest_helpers import no_exception

PAGES = ["pages/home.py", "pages/embedding.py", "pages/hidden.py", "pages/output.py",
         "pages/bptt.py", "pages/slots.py", "pages/train.py"]
TEXT = "the cat sat on the mat"


@pytest.mark.parametrize("page", PAGES)
def test_page_runs_on_the_subword_model(app, page):
    at = app(page, {"model": "subword", "text": TEXT})
    no_exception(at)
    assert at.sidebar.selectbox(key="model").value == "subword"
    assert not [w.value for w in at.warning if "vocabulary" in w.value]


def test_overview_shows_the_bpe_tokens_without_unk(app):
    at = app(None, {"model": "subword", "text": TEXT})
    no_exception(at)
    _, vocab, _ = load_builtin("subword")
    df = at.dataframe[0].value
    assert list(df["token"]) == ["<bos>"] + vocab.decode(prepare(TEXT, vocab).ids)
    assert "<unk>" not in list(df["token"])
