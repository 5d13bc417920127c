"""catalog.vocab_size: the sidebar names every built-in with its V without loading it (issue 24,
a process's first page); the report it reads must agree with the model it describes."""
import pytest

from rnnviz.store.catalog import BUILTINS, load_builtin, vocab_size

pytestmark = pytest.mark.core


@pytest.mark.parametrize("key", sorted(BUILTINS))
def test_vocab_size_is_the_loaded_models(key):
    model, vocab, _ = load_builtin(key)
    assert vocab_size(key) == len(vocab) == model.cfg.vocab_size
