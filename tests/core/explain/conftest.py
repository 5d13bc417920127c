"""The fixture the explain tests share: one small Elman model traced on a sentence with a gap."""
import pytest

from rnnviz.engine.trace import trace
from tests.oracles import NUM_IDS, NUM_TARGETS, num_model


@pytest.fixture(scope="module")
def num_mt():
    m = num_model()
    return m, trace(m, NUM_IDS, NUM_TARGETS)
