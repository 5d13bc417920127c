"""load_bundle against hostile files: zip bombs, absurd archives, huge strings, odd dtypes,
Markdown in the file's own names. Every case is refused with a message, before any memory
is spent, and the message cannot render a link, an image, HTML or LaTeX."""
from __future__ import annotations

import io
import re
import struct
import zipfile

import pytest
import torch

from rnnviz import limits
from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.errors import InputError
from rnnviz.store.bundle import FORMAT, load_bundle, save_bundle
from rnnviz.text.tokenize import Vocab

VOCAB = Vocab(("<pad>", "<unk>", "<bos>", "<eos>", "a", "b"))
HOSTILE = ("![i](https://example.invalid/i.png)", "[Sign in](https://ex.invalid/a)",
           "<img src=x onerror=alert(1)>", "$\\frac{1}{0}$", "`code` **bold** :red[x]",
           "https://ex.invalid/autolink")


def small_model() -> RNNModel:
    torch.manual_seed(0)
    return RNNModel(RNNConfig(vocab_size=6, embed_dim=2, hidden_size=3))


def good_bytes() -> bytes:
    return save_bundle(small_model(), VOCAB, {"level": "word"})


def saved(obj) -> bytes:
    buf = io.BytesIO()
    torch.save(obj, buf)
    return buf.getvalue()


def good_obj() -> dict:
    m = small_model()
    return {"format": FORMAT, "config": m.cfg.to_dict(), "vocab": list(VOCAB.itos), "meta": {},
            "state": dict(m.state_dict())}



def unescaped(msg: str, chars: str = "[]<>$`!*_") -> list[str]:
    """Characters that would start Markdown/HTML/LaTeX: present without a backslash before
    (an underscore between two letters is inert in CommonMark and may stay)."""
    msg = re.sub(r"(?<=[^\W_])_(?=[^\W_])", "", msg)
    pattern = r"(?<!\\)(?:\\\\)*([" + re.escape(chars) + "])"
    return re.findall(pattern, msg)


def assert_inert(msg: str) -> None:
    assert not unescaped(msg), msg
    assert "://" not in msg.replace("\\", ""), msg  # autolinks broken by a word joiner
    assert len(msg) < 1_000, len(msg)


# ---- zip bombs and absurd archives -------------------------------------------------------

def rezip(data: bytes, extra: dict | None = None, compress: int = zipfile.ZIP_STORED,
          big: tuple[str, int] | None = None) -> bytes:
    """A copy of a bundle's archive, entries written with `compress`, plus `extra` entries and
    optionally one entry of `big[1]` zero bytes written in 1 MB chunks (a deflate bomb)."""
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=compress) as dst:
        for info in src.infolist():
            if big and info.filename == big[0]:
                continue
            dst.writestr(info.filename, src.read(info.filename), compress_type=compress)
        for name, payload in (extra or {}).items():
            dst.writestr(name, payload)
        if big:
            chunk = bytes(1 << 20)
            with dst.open(zipfile.ZipInfo(big[0]), "w", force_zip64=True) as f:
                for _ in range(big[1] >> 20):
                    f.write(chunk)
    return out.getvalue()


def deflate_bomb(expanded_bytes: int) -> bytes:
    """A real bundle whose first weight entry is `expanded_bytes` of deflated zeros."""
    src = zipfile.ZipFile(io.BytesIO(good_bytes()))
    name = next(n for n in src.namelist() if n.endswith("data/0"))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            if info.filename != name:
                dst.writestr(info.filename, src.read(info.filename))
        zi = zipfile.ZipInfo(name)
        zi.compress_type = zipfile.ZIP_DEFLATED
        with dst.open(zi, "w", force_zip64=True) as f:
            chunk = bytes(1 << 20)
            for _ in range(expanded_bytes >> 20):
                f.write(chunk)
    return out.getvalue()


def rss_kb() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError("no VmRSS")


@pytest.mark.parametrize("mb", [1, 64, 256])
def test_deflate_bombs_of_several_sizes_are_refused(mb):
    data = deflate_bomb(mb << 20)
    assert len(data) < (mb << 20) // 100 + 40_000  # really a bomb: >100x smaller than it unpacks
    with pytest.raises(InputError, match="compressed entry") as err:
        load_bundle(data)
    assert_inert(str(err.value))


def test_a_gigabyte_bomb_leaves_resident_memory_flat():
    data = deflate_bomb(1200 << 20)  # 1.2 GB of zeros in about 1.2 MB
    assert len(data) < 2_000_000
    before = rss_kb()
    for _ in range(3):
        with pytest.raises(InputError, match="compressed entry"):
            load_bundle(data)
    after = rss_kb()
    print(f"bomb {len(data):,} bytes -> 1,258,291,200 declared; VmRSS {before:,} kB -> {after:,} kB")
    assert after - before < 50_000, (before, after)


def test_every_entry_compressed_is_refused_even_when_small():
    with pytest.raises(InputError, match="compressed entry"):
        load_bundle(rezip(good_bytes(), compress=zipfile.ZIP_DEFLATED))


def _patch_declared_size(data: bytes, name: str, size: int) -> bytes:
    """Rewrite the central directory's uncompressed size of one entry (a lying directory)."""
    raw = bytearray(data)
    at = raw.find(b"PK\x01\x02", 0)
    while at != -1:
        n = struct.unpack_from("<H", raw, at + 28)[0]
        if raw[at + 46: at + 46 + n].decode() == name:
            struct.pack_into("<I", raw, at + 24, size)
            return bytes(raw)
        at = raw.find(b"PK\x01\x02", at + 4)
    raise AssertionError(name)


def test_a_stored_entry_declaring_more_than_it_holds_is_refused():
    data = good_bytes()
    name = next(n for n in zipfile.ZipFile(io.BytesIO(data)).namelist() if n.endswith("data/0"))
    with pytest.raises(InputError, match="declares 4,000,000,000 bytes"):
        load_bundle(_patch_declared_size(data, name, 4_000_000_000))


def test_total_declared_size_over_the_limit_is_refused(monkeypatch):
    data = good_bytes()
    total = sum(e.file_size for e in zipfile.ZipFile(io.BytesIO(data)).infolist())
    monkeypatch.setattr(limits, "MAX_MODEL_UNPACKED_BYTES", total - 1)
    with pytest.raises(InputError, match=f"would unpack to {total:,} bytes"):
        load_bundle(data)
    monkeypatch.setattr(limits, "MAX_MODEL_UNPACKED_BYTES", total)
    assert load_bundle(data)[1] == VOCAB  # the control: the limit is the only reason


def test_absurd_entry_counts_and_names_are_refused():
    many = {f"archive/x/{i}": b"" for i in range(limits.MAX_MODEL_ZIP_ENTRIES)}
    with pytest.raises(InputError, match="entries"):
        load_bundle(rezip(good_bytes(), many))
    for name in ("archive/" + "n" * 300, "archive/../../etc/passwd", "/abs/path",
                 "archive/[x](https://ex.invalid)/" + "y" * 250):
        with pytest.raises(InputError, match="unusable name") as err:
            load_bundle(rezip(good_bytes(), {name: b"1"}))
        assert_inert(str(err.value))


def test_non_zip_files_are_refused_before_torch_load():
    import pickle
    for data in (b"", b"PK\x03\x04garbage", pickle.dumps({"format": FORMAT}), b"\0" * 1000):
        with pytest.raises(InputError, match="could not be read safely"):
            load_bundle(data)


# ---- strings, sizes and types inside the file --------------------------------------------

def test_a_megabyte_token_is_refused_fast_with_a_short_message():
    obj = good_obj()
    obj["vocab"][4] = "=" * 1_000_000
    with pytest.raises(InputError, match="Vocabulary token 5 has 1,000,000 characters") as err:
        load_bundle(saved(obj))
    assert_inert(str(err.value))


def test_long_tokens_at_the_limit_load_and_one_over_does_not():
    obj = good_obj()
    obj["vocab"][4] = "t" * limits.MAX_TOKEN_CHARS
    assert load_bundle(saved(obj))[1].itos[4] == "t" * limits.MAX_TOKEN_CHARS
    obj["vocab"][4] += "t"
    with pytest.raises(InputError, match="Vocabulary token 5"):
        load_bundle(saved(obj))


def test_a_15_mb_config_string_gives_a_short_message():
    obj = good_obj()
    obj["config"]["cell"] = "x" * 15_000_000
    data = saved(obj)
    if len(data) <= limits.MAX_MODEL_FILE_BYTES:
        with pytest.raises(InputError, match="string of 15,000,000 characters") as err:
            load_bundle(data)
        assert_inert(str(err.value))
    obj["config"]["cell"] = "y" * 3_000
    with pytest.raises(InputError, match="string of 3,000") as err:
        load_bundle(saved(obj))
    assert_inert(str(err.value))


def test_too_many_tokens_items_or_levels_are_refused():
    obj = good_obj()
    obj["vocab"] = [f"w{i}" for i in range(limits.MAX_VOCAB + 1)]
    with pytest.raises(InputError, match="5,001 tokens"):
        load_bundle(saved(obj))
    obj = good_obj()
    obj["meta"] = {"junk": list(range(limits.MAX_FILE_ITEMS + 1))}
    with pytest.raises(InputError, match="more than 20,000 items"):
        load_bundle(saved(obj))
    obj = good_obj()
    deep: list = []
    for _ in range(limits.MAX_FILE_DEPTH + 2):
        deep = [deep]
    obj["meta"] = {"deep": deep}
    with pytest.raises(InputError, match="nested deeper"):
        load_bundle(saved(obj))
    obj = good_obj()
    obj["meta"] = {"hidden": torch.zeros(3)}
    with pytest.raises(InputError, match="tensor under"):
        load_bundle(saved(obj))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float64, torch.int64,
                                   torch.bool, torch.complex64])
def test_weights_other_than_float32_are_refused_by_name(dtype):
    obj = good_obj()
    obj["state"]["W_h"] = obj["state"]["W_h"].to(dtype)
    with pytest.raises(InputError, match=re.escape(f"“W_h” is stored as {str(dtype)[6:]}")):
        load_bundle(saved(obj))


def test_markdown_in_config_keys_cell_names_and_state_keys_is_escaped():
    for payload in HOSTILE:
        for change in ("config_key", "cell", "state_key", "nonlinearity"):
            obj = good_obj()
            if change == "config_key":
                obj["config"][payload] = 1
            elif change == "state_key":
                obj["state"][payload] = torch.zeros(1)
            else:
                obj["config"][change] = payload
            with pytest.raises(InputError) as err:
                load_bundle(saved(obj))
            assert_inert(str(err.value))
            flat = str(err.value).replace("\\", "").replace("\u2060", "")
            assert payload.replace("\\", "")[:30] in flat or change == "nonlinearity", flat


def test_the_apps_own_bundles_still_load():
    model, vocab, meta = load_bundle(good_bytes())
    assert vocab == VOCAB and meta == {"level": "word"}
    for a, b in zip(model.parameters(), small_model().parameters()):
        assert torch.equal(a, b)


def test_shared_references_cannot_multiply_the_walk():
    """A 'billion laughs' of shared lists: tiny on disk, 10^12 items if walked naively."""
    level = ["ha"] * 1000
    for _ in range(3):
        level = [level] * 1000
    obj = good_obj()
    obj["meta"] = {"laughs": level}
    data = saved(obj)
    assert len(data) < 200_000
    with pytest.raises(InputError, match="more than 20,000 items"):
        load_bundle(data)
