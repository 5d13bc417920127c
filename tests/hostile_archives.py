"""A corpus of hostile model files (issue 22, R1), built in memory in about a second.

`python -m tests.hostile_archives DIR` writes them to DIR; `python -m tests.hostile_archives
--measure FILE...` loads each file with the app's own load_bundle in a forked child and prints
its peak memory growth (tests/core/store/test_archive_hostile.py runs both).

Each case returns (bytes, what the refusal message must contain). The zip fields are patched
by hand where no library would write such a file (that is the point).
"""
from __future__ import annotations

import functools
import io
import pickletools
import struct
import sys
import zipfile
import zlib
from pathlib import Path

import torch

from rnnviz.engine.model import RNNConfig, RNNModel
from rnnviz.store.bundle import FORMAT, save_bundle
from rnnviz.text.tokenize import Vocab

VOCAB = Vocab(("<pad>", "<unk>", "<bos>", "<eos>", "a", "b"))
UNREADABLE = "could not be read safely"
BOMB_BYTES = 1 << 30                      # what the bombs declare (1 GiB of zeros)


def small_model() -> RNNModel:
    torch.manual_seed(0)
    return RNNModel(RNNConfig(vocab_size=6, embed_dim=2, hidden_size=3))


def good_bundle() -> bytes:
    return save_bundle(small_model(), VOCAB, {"level": "word"})


def entries_of(data: bytes) -> list[tuple[str, bytes]]:
    z = zipfile.ZipFile(io.BytesIO(data))
    return [(i.filename, z.read(i)) for i in z.infolist()]


def zipped(entries, compress: int = zipfile.ZIP_STORED) -> bytes:
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=compress) as z:
        for name, body in entries:
            z.writestr(name, body)
    return out.getvalue()


def weight_name(data: bytes) -> str:
    return next(n for n, _ in entries_of(data) if n.endswith("data/0"))


def raw_zip(entries) -> bytes:
    """A plain zip of (name, method, crc, size, payload) written by hand (no library would
    write a bomb without first deflating the gigabyte)."""
    body, cd = bytearray(), bytearray()
    for name, method, crc, size, payload in entries:
        raw = name.encode()
        head = struct.pack("<HHHHHIIIHH", 20, 0, method, 0, 0x21, crc, len(payload), size,
                           len(raw), 0)
        cd += b"PK\x01\x02" + struct.pack("<H", 20) + head + struct.pack("<HHHII", 0, 0, 0, 0,
                                                                         len(body)) + raw
        body += b"PK\x03\x04" + head + raw + payload
    eocd = b"PK\x05\x06" + struct.pack("<HHHHIIH", 0, 0, len(entries), len(entries), len(cd),
                                        len(body), 0)
    return bytes(body + cd + eocd)


@functools.lru_cache(maxsize=2)
def deflated_zeros(size: int) -> tuple[bytes, int]:
    """(raw deflate stream of `size` zero bytes, its CRC-32), in a fraction of a second: after a
    full flush every 1 MiB block of zeros compresses to the same bytes."""
    co = zlib.compressobj(9, zlib.DEFLATED, -15)
    chunk = bytes(1 << 20)
    block = co.compress(chunk) + co.flush(zlib.Z_FULL_FLUSH)
    crc = 0
    for _ in range(size >> 20):
        crc = zlib.crc32(chunk, crc)
    return block * (size >> 20) + co.flush(), crc


def deflated_bomb_zip(size: int = BOMB_BYTES) -> bytes:
    """The good bundle with its first weight replaced by `size` deflated zero bytes."""
    good = good_bundle()
    name = weight_name(good)
    out = []
    for n, body in entries_of(good):
        if n == name:
            stream, crc = deflated_zeros(size)
            out.append((n, zipfile.ZIP_DEFLATED, crc, size, stream))
        else:
            out.append((n, zipfile.ZIP_STORED, zlib.crc32(body), len(body), body))
    return raw_zip(out)


def _eocd(data: bytes) -> tuple[int, int, int]:
    """(position of the end record, directory size, directory offset) of a plain zip."""
    at = len(data) - 22
    assert data[at:at + 4] == b"PK\x05\x06"
    cd_size, cd_off = struct.unpack_from("<II", data, at + 12)
    return at, cd_size, cd_off


def _central_records(cd: bytes):
    at = 0
    while at < len(cd):
        assert cd[at:at + 4] == b"PK\x01\x02"
        n, x, c = struct.unpack_from("<HHH", cd, at + 28)
        yield at
        at += 46 + n + x + c


def two_directories(size: int = BOMB_BYTES) -> bytes:
    """miniz (torch.load) reads the deflated bomb's directory at the end record's offset;
    zipfile reads a harmless-looking stored directory that ends at the end record."""
    bomb = deflated_bomb_zip(size)
    eocd_at, cd_size, cd_off = _eocd(bomb)
    cd1 = bomb[cd_off:cd_off + cd_size]
    cd2 = bytearray(cd1)
    for at in _central_records(cd2):          # every entry "stored", size = compressed size
        struct.pack_into("<H", cd2, at + 10, 0)
        csize = struct.unpack_from("<I", cd2, at + 20)[0]
        struct.pack_into("<I", cd2, at + 24, csize)
        off = struct.unpack_from("<I", cd2, at + 42)[0]   # zipfile adds len(cd1) back
        struct.pack_into("<I", cd2, at + 42, max(0, off - len(cd1)))
    eocd = bytearray(bomb[eocd_at:])
    struct.pack_into("<II", eocd, 12, len(cd2), cd_off)
    return bomb[:eocd_at] + bytes(cd2) + bytes(eocd)


def _patch_central(data: bytes, name: str, fmt: str, at_field: int, *values) -> bytes:
    raw = bytearray(data)
    at = raw.find(b"PK\x01\x02")
    while at != -1:
        n = struct.unpack_from("<H", raw, at + 28)[0]
        if raw[at + 46:at + 46 + n].decode() == name:
            struct.pack_into(fmt, raw, at + at_field, *values)
            return bytes(raw)
        at = raw.find(b"PK\x01\x02", at + 4)
    raise AssertionError(name)


def zip64_declaring_a_terabyte() -> bytes:
    """A stored entry whose zip64 field (sizes 0xFFFFFFFF in its record) declares 1 TiB."""
    good = zipped(entries_of(good_bundle()))
    name = weight_name(good)
    eocd_at, cd_size, cd_off = _eocd(good)
    cd = bytearray(good[cd_off:eocd_at])
    for at in _central_records(bytes(cd)):
        n, x = struct.unpack_from("<HH", cd, at + 28)
        if cd[at + 46:at + 46 + n].decode() == name:
            assert x == 0
            struct.pack_into("<IIH", cd, at + 20, 0xFFFFFFFF, 0xFFFFFFFF, n)
            struct.pack_into("<H", cd, at + 30, 20)
            cd[at + 46 + n:at + 46 + n] = struct.pack("<HHQQ", 1, 16, 1 << 40, 1 << 40)
            break
    eocd = bytearray(good[eocd_at:])
    struct.pack_into("<I", eocd, 12, len(cd))
    return good[:cd_off] + bytes(cd) + bytes(eocd)


def zip64_records_disagree() -> bytes:
    """torch.save's own zip64 end record, pointing at a directory the plain record does not."""
    data = bytearray(good_bundle())
    z64 = data.rfind(b"PK\x06\x06")
    cd_off = struct.unpack_from("<Q", data, z64 + 48)[0]
    struct.pack_into("<Q", data, z64 + 48, cd_off + 1)
    return bytes(data)


def descriptor_lies() -> bytes:
    """torch.save writes data descriptors; this one declares another size than the directory."""
    data = bytearray(good_bundle())
    at = data.find(b"PK\x07\x08")
    struct.pack_into("<II", data, at + 8, 1 << 30, 1 << 30)
    return bytes(data)


def local_header_says_deflated() -> bytes:
    """The directory says stored; the entry's own header says deflated."""
    data = bytearray(zipped(entries_of(good_bundle())))
    struct.pack_into("<H", data, 8, zipfile.ZIP_DEFLATED)
    return bytes(data)


def stored_entry_declaring_a_gigabyte() -> bytes:
    good = zipped(entries_of(good_bundle()))
    return _patch_central(good, weight_name(good), "<I", 24, BOMB_BYTES)


def _patched_pickle(old: bytes, new: bytes, shape=(61, 67)) -> bytes:
    """A torch.save file of one (61, 67) weight whose pickle has `old` replaced by `new`."""
    m = small_model()
    state = dict(m.state_dict())
    state["E"] = torch.zeros(shape)
    obj = {"format": FORMAT, "config": m.cfg.to_dict(), "vocab": list(VOCAB.itos), "meta": {},
           "state": state}
    buf = io.BytesIO()
    torch.save(obj, buf)
    entries = entries_of(buf.getvalue())
    out = []
    for name, body in entries:
        if name.endswith("data.pkl"):
            assert body.count(old) == 1, (old, body.count(old))
            body = body.replace(old, new)
        out.append((name, body))
    return zipped(out)


def huge_declared_shape() -> bytes:
    """A weight declaring shape (2^30, 2^30) over a 16 KB storage."""
    big = b"J" + struct.pack("<i", 1 << 30)
    return _patched_pickle(b"K=KC\x86", big + big + b"\x86")


def huge_declared_storage() -> bytes:
    """A storage declaring 2^30 elements (4 GiB) over a 16 KB record."""
    return _patched_pickle(b"M\xf7\x0f", b"J" + struct.pack("<i", 1 << 30))


def million_entry_vocabulary() -> bytes:
    """1,000,000 distinct tokens in an 8 MB file (pickletools.optimize drops the memo puts)."""
    m = small_model()
    vocab = [f"{i:x}" for i in range(1_000_000)]
    obj = {"format": FORMAT, "config": m.cfg.to_dict(), "vocab": vocab, "meta": {},
           "state": dict(m.state_dict())}
    buf = io.BytesIO()
    torch.save(obj, buf)
    return zipped([(n, pickletools.optimize(b) if n.endswith("data.pkl") else b)
                   for n, b in entries_of(buf.getvalue())])


def empty_lists() -> bytes:
    """2,000,000 empty lists in the meta table: two pickle bytes each, 64 bytes of memory each."""
    good = good_bundle()
    out = []
    for name, body in entries_of(good):
        if name.endswith("data.pkl"):
            assert body.endswith(b"u.")              # SETITEMS, STOP of the top dictionary
            lists = b"X\x04\x00\x00\x00junk(" + b"]" * 2_000_000 + b"l"
            body = body[:-2] + lists + b"u."
        out.append((name, body))
    return zipped(out)


# name -> (builder, what the refusal must say)
CASES = {
    "two_directories": (two_directories, "central directory is not where"),
    "prepended_data": (lambda: b"\0" * 4096 + good_bundle(), UNREADABLE),
    "trailing_junk": (lambda: good_bundle() + b"junk" * 100, UNREADABLE),
    "zip64_declaring_a_terabyte": (zip64_declaring_a_terabyte, "declares 1,099,511,627,776"),
    "zip64_records_disagree": (zip64_records_disagree, UNREADABLE),
    "data_descriptor_lies": (descriptor_lies, "data descriptor"),
    "stored_vs_deflated": (local_header_says_deflated, "says compressed"),
    "deflate_bomb": (deflated_bomb_zip, "compressed entry"),
    "stored_declaring_a_gigabyte": (stored_entry_declaring_a_gigabyte, "declares 1,073,741,824"),
    "huge_declared_shape": (huge_declared_shape, UNREADABLE),
    "huge_declared_storage": (huge_declared_storage, UNREADABLE),
    "million_entry_vocabulary": (million_entry_vocabulary, "stored values"),
    "two_million_empty_lists": (empty_lists, "stored values"),
}


def build(directory: Path) -> dict[str, Path]:
    directory.mkdir(parents=True, exist_ok=True)
    out = {}
    for name, (make, _) in CASES.items():
        path = directory / f"{name}.pt"
        path.write_bytes(make())
        out[name] = path
    return out


def measure(paths: list[str]) -> None:
    """One JSON line per file: loaded with the app's own load_bundle in a forked child of this
    process (torch already imported), its peak resident memory before and after
    (getrusage ru_maxrss, kB on Linux: the child's starts at its resident size at the fork)."""
    import json
    import os
    import resource

    from rnnviz.errors import InputError
    from rnnviz.store.bundle import load_bundle

    for path in paths:
        data = Path(path).read_bytes()
        r, w = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            try:
                load_bundle(data)
                result = {"refused": False, "message": ""}
            except InputError as err:
                result = {"refused": True, "message": str(err)}
            except BaseException as err:  # noqa: BLE001 - reported, the test fails on it
                result = {"refused": False, "message": f"{type(err).__name__}: {err}"[:500]}
            after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
            result.update(file=path, bytes=len(data), growth_kb=after - before)
            os.write(w, json.dumps(result).encode())
            os._exit(0)
        os.close(w)
        out = b""
        while chunk := os.read(r, 65536):
            out += chunk
        os.close(r)
        os.waitpid(pid, 0)
        print(out.decode() or json.dumps({"file": path, "refused": False, "message": "crashed"}),
              flush=True)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--measure"]:
        measure(sys.argv[2:])
    else:
        for name, path in build(Path(sys.argv[1] if len(sys.argv) > 1 else "hostile")).items():
            print(f"{path.stat().st_size:>10,}  {name}")
