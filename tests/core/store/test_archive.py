"""rnnviz/store/archive.py, the one strict zip reader (issue 22, R1): what torch.save and zipfile
write is read back exactly; anything two zip readers could read differently is refused."""
from __future__ import annotations

import io
import struct
import zipfile

import pytest

from rnnviz.errors import InputError
from rnnviz.store import archive
from rnnviz.store.bundle import load_bundle
from tests.hostile_archives import VOCAB, entries_of, good_bundle, zipped


def test_zipfile_archives_with_zip64_fields_load():
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, body in entries_of(good_bundle()):
            with z.open(zipfile.ZipInfo(name), "w", force_zip64=True) as f:
                f.write(body)
    assert load_bundle(out.getvalue())[1] == VOCAB


def test_the_fresh_copy_holds_exactly_the_checked_entries():
    data = good_bundle()
    copy = archive.checked_copy(data)
    assert entries_of(copy) == entries_of(data)
    assert [(n, bytes(b)) for n, b in archive.read_entries(copy)] == entries_of(data)


@pytest.mark.filterwarnings("ignore:Duplicate name")
def test_duplicate_names_are_refused():
    entries = entries_of(good_bundle())
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        for name, body in entries + entries[:1]:
            z.writestr(name, body)
    with pytest.raises(InputError, match="appears twice"):
        archive.read_entries(out.getvalue())


def test_an_archive_comment_is_refused():
    out = io.BytesIO(zipped(entries_of(good_bundle())))
    with zipfile.ZipFile(out, "a") as z:
        z.comment = b"hello"
    with pytest.raises(InputError, match="does not end with its end record"):
        archive.read_entries(out.getvalue())


def test_encrypted_entries_and_bad_checksums_are_refused():
    data = bytearray(zipped(entries_of(good_bundle())))
    cd = data.find(b"PK\x01\x02")
    enc = bytearray(data)
    struct.pack_into("<H", enc, cd + 8, 1)
    with pytest.raises(InputError, match="encrypted"):
        archive.read_entries(bytes(enc))
    bad = bytearray(data)
    bad[30 + len("archive/data.pkl") + 3] ^= 0xFF  # one byte of the first entry's data
    with pytest.raises(InputError, match="checksum"):
        archive.read_entries(bytes(bad))


def test_a_gap_between_entries_is_refused():
    data = zipped(entries_of(good_bundle()))
    eocd = len(data) - 22
    cd_size, cd_off = struct.unpack_from("<II", data, eocd + 12)
    gapped = bytearray(data[:cd_off] + b"\0" * 16 + data[cd_off:])
    struct.pack_into("<I", gapped, len(gapped) - 22 + 16, cd_off + 16)
    with pytest.raises(InputError, match="bytes between the last entry"):
        archive.read_entries(bytes(gapped))
