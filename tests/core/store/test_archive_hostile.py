"""The corpus of hostile model files (tests/hostile_archives.py), each loaded by the app's own
load_bundle in a separate process: every one is refused with a clear message, and the
process's peak resident memory grows by less than 100 MB (issue 22, R1). Legitimate bundles,
every built-in one and one the app saves, still load with identical weights."""
from __future__ import annotations

import io
import json
import subprocess
import sys
import tomllib
import zipfile

import pytest
import torch

from rnnviz import limits
from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.errors import InputError
from rnnviz.store import archive
from rnnviz.store.bundle import load_bundle, save_bundle
from rnnviz.text.tokenize import Vocab
from tests.conftest import ROOT
from tests.hostile_archives import CASES, build, good_bundle, small_model

GROWTH_LIMIT_KB = 100 * 1024
PRETRAINED = ROOT / "rnnviz" / "pretrained"


@pytest.fixture(scope="module")
def measured(tmp_path_factory):
    paths = build(tmp_path_factory.mktemp("hostile"))
    run = subprocess.run([sys.executable, "-m", "tests.hostile_archives", "--measure",
                          *map(str, paths.values())], cwd=ROOT, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    lines = [json.loads(x) for x in run.stdout.splitlines() if x.startswith("{")]
    by_file = {r["file"]: r for r in lines}
    return {name: by_file.get(str(path)) for name, path in paths.items()}


@pytest.mark.parametrize("name", list(CASES))
def test_each_hostile_archive_is_refused_with_memory_flat(measured, name):
    r = measured[name]
    assert r is not None, f"{name}: the measuring child crashed"
    print(f"{name}: {r['bytes']:,} bytes, peak RSS growth {r['growth_kb']:,} kB: "
          f"{r['message'][:120]}")
    assert r["refused"], r["message"]
    assert CASES[name][1] in r["message"], r["message"]
    assert len(r["message"]) < 1_000
    assert r["growth_kb"] < GROWTH_LIMIT_KB, r


def test_the_two_directory_file_fools_zipfile_but_not_the_reader():
    """The control: Python's zipfile sees a harmless stored directory (what the old check
    read), while the end record's offset field points at the deflated bomb's directory."""
    data = CASES["two_directories"][0]()
    infos = zipfile.ZipFile(io.BytesIO(data)).infolist()
    assert all(i.compress_type == zipfile.ZIP_STORED and i.file_size == i.compress_size
               for i in infos)
    with pytest.raises(InputError, match="central directory is not where"):
        archive.read_entries(data)


def _same_weights(a: dict, b: dict) -> None:
    assert a.keys() == b.keys()
    for k in a:
        assert a[k].dtype == b[k].dtype and torch.equal(a[k], b[k]), k


@pytest.mark.parametrize("path", sorted(PRETRAINED.glob("*.pt")) +
                         [PRETRAINED / "taggers" / f"{k}.pt" for k in ("bi", "elman", "jordan")],
                         ids=lambda p: p.stem)
def test_every_built_in_bundle_loads_with_identical_weights(path):
    data = path.read_bytes()
    assert len(data) < limits.MAX_MODEL_FILE_BYTES
    direct = torch.load(io.BytesIO(data), weights_only=True, map_location="cpu")
    model, vocab, meta = load_bundle(data)
    _same_weights(model.state_dict(), direct["state"])
    assert list(vocab.itos) == direct["vocab"] and meta == dict(direct.get("meta") or {})
    # the rewritten archive holds exactly the bytes of the original's entries
    z = zipfile.ZipFile(io.BytesIO(data))
    assert [(n, bytes(b)) for n, b in archive.read_entries(data)] == \
        [(i.filename, z.read(i)) for i in z.infolist()]


def test_a_bundle_the_app_saves_loads_with_identical_weights():
    model, vocab, meta = load_bundle(good_bundle())
    _same_weights(model.state_dict(), small_model().state_dict())
    assert meta == {"level": "word"}


def test_the_largest_bundle_the_app_can_save_fits_the_upload_limit():
    """V, d and H at their limits, LSTM, both directions: what server.maxUploadSize must hold."""
    torch.manual_seed(0)
    cfg = RNNConfig(vocab_size=limits.MAX_VOCAB, embed_dim=limits.MAX_EMBED,
                    hidden_size=limits.MAX_HIDDEN, cell="lstm", bidirectional=True)
    m = RNNModel(cfg)
    vocab = Vocab(("<pad>", "<unk>", "<bos>", "<eos>") +
                  tuple(f"w{i}" for i in range(limits.MAX_VOCAB - 4)))
    data = save_bundle(m, vocab, {"level": "word"})
    print(f"largest bundle: {len(data):,} bytes")
    assert len(data) <= limits.MAX_MODEL_FILE_BYTES
    with open(ROOT / ".streamlit" / "config.toml", "rb") as f:
        upload_mb = tomllib.load(f)["server"]["maxUploadSize"]
    assert upload_mb == limits.MAX_MODEL_FILE_BYTES // 1_000_000 == 10
    loaded, _, _ = load_bundle(data)
    _same_weights(loaded.state_dict(), m.state_dict())
