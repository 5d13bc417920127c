"""The bytes that were checked are the bytes that load (issue 22, R1).

A model file is a zip archive (torch.save writes one, stored, never compressed). Two readers
can disagree about a zip: Python's zipfile takes the central directory that ends at the end
record, miniz (torch.load) the one at the end record's offset field, so a file can show one
harmless directory to a checker and a bomb to the loader. Here the archive is read once, by one
strict reader, and a fresh stored archive is written from the entries it read; torch.load only
ever sees that fresh copy.

The reader accepts the layout torch.save and zipfile write and nothing looser:
- the first entry starts at byte 0 and every entry follows the previous one (no prepended data,
  no gaps), each local header agreeing with its central record (name, flags, method, sizes);
- a data descriptor (flag bit 3) sits right after the entry's data and repeats its CRC and sizes;
- exactly one central directory, right after the last entry, ending where the (zip64) end
  records begin; the end record is the file's last 22 bytes (no comment, no trailing bytes);
- stored entries only, compressed size equal to size, CRC-32 checked, totals within `limits`;
- the pickle's operations counted before torch.load unpickles it (`limits.MAX_FILE_PICKLE_OPS`).
"""
from __future__ import annotations

import io
import pickletools
import struct
import zipfile
import zlib

from rnnviz import limits
from rnnviz.errors import InputError
from rnnviz.safe_text import quote

UNREADABLE = "This is not a model file saved by RNN Explorer (it could not be read safely: {})."
EOCD = struct.Struct("<IHHHHIIH")               # end of central directory, 22 bytes
Z64_LOCATOR = struct.Struct("<IIQI")            # zip64 end locator, 20 bytes
Z64_EOCD = struct.Struct("<IQHHIIQQQQ")         # zip64 end record, 56 bytes
CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")   # central directory header, 46 bytes
LOCAL = struct.Struct("<IHHHHHIIIHH")           # local file header, 30 bytes
FF2, FF4 = 0xFFFF, 0xFFFFFFFF
ALLOWED_FLAGS = 0x0008 | 0x0800                 # data descriptor, UTF-8 names


def _bad(why: str) -> InputError:
    return InputError(UNREADABLE.format(why))


def _agree(short: int, full: int, sentinel: int) -> bool:
    return short == full or short == sentinel


def _end(data: bytes) -> tuple[int, int, int, int]:
    """-> (entries, directory size, directory offset, where the directory must end)."""
    n = len(data)
    if n < EOCD.size:
        raise _bad("not a zip archive as torch.save writes")
    sig, disk, cd_disk, here, total, cd_size, cd_off, comment = EOCD.unpack_from(data, n - 22)
    if sig != 0x06054B50 or comment:
        raise _bad("the archive does not end with its end record")
    if disk or cd_disk or here != total:
        raise _bad("a multi-part archive")
    end = n - EOCD.size
    at = end - Z64_LOCATOR.size
    if at >= 0 and data[at:at + 4] == b"PK\x06\x07":
        lsig, ldisk, z64_off, disks = Z64_LOCATOR.unpack_from(data, at)
        z64_at = at - Z64_EOCD.size
        if ldisk or disks != 1 or z64_off != z64_at or z64_at < 0:
            raise _bad("a zip64 end record that is not where it says")
        (zsig, rec_size, _made, _need, zdisk, zcd_disk, zhere, ztotal, zcd_size,
         zcd_off) = Z64_EOCD.unpack_from(data, z64_at)
        if zsig != 0x06064B50 or rec_size != Z64_EOCD.size - 12 or zdisk or zcd_disk \
                or zhere != ztotal:
            raise _bad("an unusual zip64 end record")
        if not (_agree(total, ztotal, FF2) and _agree(cd_size, zcd_size, FF4)
                and _agree(cd_off, zcd_off, FF4)):
            raise _bad("two end records that disagree")
        total, cd_size, cd_off, end = ztotal, zcd_size, zcd_off, z64_at
    elif FF2 == total or FF4 in (cd_size, cd_off):
        raise _bad("a zip64 mark without its zip64 record")
    if cd_off + cd_size != end:
        raise _bad("the central directory is not where the end record says "
                   "(a second directory, or data before or after the archive)")
    return total, cd_size, cd_off, end


def _zip64_extra(extra: bytes, size: int, csize: int, offset: int) -> tuple[int, int, int]:
    """Resolve 0xFFFFFFFF fields from the zip64 extra field (0x0001), in the order of the spec."""
    i = 0
    while i + 4 <= len(extra):
        tag, ln = struct.unpack_from("<HH", extra, i)
        body = extra[i + 4:i + 4 + ln]
        if tag == 1:
            vals, j = [], 0
            for v in (size, csize, offset):
                if v == FF4:
                    if j + 8 > len(body):
                        raise _bad("a truncated zip64 field")
                    v = struct.unpack_from("<Q", body, j)[0]
                    j += 8
                vals.append(v)
            return vals[0], vals[1], vals[2]
        i += 4 + ln
    if FF4 in (size, csize, offset):
        raise _bad("a zip64 mark without its zip64 field")
    return size, csize, offset


def _central(data: bytes, total: int, cd_off: int, end: int) -> list[dict]:
    if not total or total > limits.MAX_MODEL_ZIP_ENTRIES:
        raise InputError(f"The model file holds {total:,} entries; a model holds "
                         f"1 to {limits.MAX_MODEL_ZIP_ENTRIES}.")
    out, at, names = [], cd_off, set()
    for _ in range(total):
        if at + CENTRAL.size > end:
            raise _bad("a central directory shorter than it says")
        (sig, _made, _need, flags, method, _t, _d, crc, csize, size, nlen, xlen, clen, disk,
         _ia, _ea, offset) = CENTRAL.unpack_from(data, at)
        if sig != 0x02014B50 or disk:
            raise _bad("a damaged central directory")
        raw_name = data[at + 46:at + 46 + nlen]
        extra = data[at + 46 + nlen:at + 46 + nlen + xlen]
        at += CENTRAL.size + nlen + xlen + clen
        name = raw_name.decode("utf-8" if flags & 0x800 else "cp437", "replace")
        _check_name(name)
        if name in names:
            raise _bad(f"the entry “{quote(name)}” appears twice")
        names.add(name)
        if flags & ~ALLOWED_FLAGS:
            raise _bad("an encrypted or unusual entry")
        size, csize, offset = _zip64_extra(extra, size, csize, offset)
        if method != zipfile.ZIP_STORED:
            raise InputError(f"The model file has a compressed entry (“{quote(name)}”): "
                             "torch.save never compresses, so this file was not written by it. "
                             "Compressed entries are refused because they can unpack to far "
                             "more memory than the file's size.")
        if size != csize or offset + csize > len(data):
            raise InputError(f"The model file's entry “{quote(name)}” declares "
                             f"{size:,} bytes but the file does not hold them.")
        out.append({"name": name, "raw": raw_name, "flags": flags, "crc": crc, "size": size,
                    "offset": offset})
    if at != end:
        raise _bad("a central directory longer than its entries")
    return out


def _check_name(name: str) -> None:
    if len(name) > limits.MAX_ZIP_NAME_CHARS or ".." in name.split("/") or name.startswith("/") \
            or not name:
        raise InputError(f"The model file has an entry with an unusable name "
                         f"(“{quote(name)}”).")


def _local(data: bytes, e: dict, at: int) -> tuple[memoryview, int]:
    """The entry's data, read at `at` (where the previous entry ended) -> (data, next position)."""
    if e["offset"] != at or at + LOCAL.size > len(data):
        raise _bad("entries that are not one after another (prepended data or a gap)")
    (sig, _need, flags, method, _t, _d, crc, csize, size, nlen, xlen) = LOCAL.unpack_from(data, at)
    if sig != 0x04034B50 or flags != e["flags"] or data[at + 30:at + 30 + nlen] != e["raw"]:
        raise _bad(f"a local header that disagrees with the directory (“{quote(e['name'])}”)")
    if method != zipfile.ZIP_STORED:
        raise _bad(f"a local header that says compressed (“{quote(e['name'])}”)")
    start = at + LOCAL.size + nlen + xlen
    stop = start + e["size"]
    if stop > len(data):
        raise _bad("an entry that runs past the end of the file")
    if flags & 0x8:
        if (crc, csize, size) != (0, 0, 0) and (crc, csize, size) != (e["crc"], e["size"],
                                                                      e["size"]):
            raise _bad(f"a local header that disagrees with the directory (“{quote(e['name'])}”)")
        desc = data[stop:stop + 16]
        if len(desc) < 16 or desc[:4] != b"PK\x07\x08" or \
                struct.unpack_from("<III", desc, 4) != (e["crc"], e["size"], e["size"]):
            raise _bad(f"a data descriptor that disagrees with the directory "
                       f"(“{quote(e['name'])}”)")
        nxt = stop + 16
    else:
        extra = data[at + 30 + nlen:start]
        size, csize, _ = _zip64_extra(extra, size, csize, 0)
        if (crc, csize, size) != (e["crc"], e["size"], e["size"]):
            raise _bad(f"a local header that disagrees with the directory (“{quote(e['name'])}”)")
        nxt = stop
    body = memoryview(data)[start:stop]
    if zlib.crc32(body) != e["crc"]:
        raise _bad(f"the entry “{quote(e['name'])}” fails its checksum")
    return body, nxt


def read_entries(data: bytes) -> list[tuple[str, memoryview]]:
    """Every entry of a strict stored archive, in order; an InputError for anything else."""
    total, _cd_size, cd_off, end = _end(data)
    entries = _central(data, total, cd_off, end)
    unpacked = sum(e["size"] for e in entries)
    if unpacked > limits.MAX_MODEL_UNPACKED_BYTES:
        raise InputError(f"The model file would unpack to {unpacked:,} bytes; the limit is "
                         f"{limits.MAX_MODEL_UNPACKED_BYTES:,}.")
    out, at = [], 0
    for e in sorted(entries, key=lambda e: e["offset"]):
        body, at = _local(data, e, at)
        out.append((e["name"], body))
    if at != cd_off:
        raise _bad("bytes between the last entry and the central directory")
    return out


def write_stored(entries: list[tuple[str, memoryview]]) -> bytes:
    """A fresh stored zip of exactly these entries (what torch.load is given)."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_STORED) as z:
        for name, body in entries:
            z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), body)
    return buf.getvalue()


def check_pickle(body: memoryview) -> None:
    """Count the pickle's operations before anything is unpickled: a few bytes per operation can
    build millions of small objects (a 1,000,000-token vocabulary fits in 10 MB and costs about
    100 MB of memory once unpickled). The scan stops at the limit and allocates nothing big."""
    ops = 0
    try:
        for _ in pickletools.genops(bytes(body)):
            ops += 1
            if ops > limits.MAX_FILE_PICKLE_OPS:
                raise InputError(f"The model file holds more than "
                                 f"{limits.MAX_FILE_PICKLE_OPS:,} stored values; a model "
                                 f"file holds far fewer.")
    except InputError:
        raise
    except Exception as err:  # noqa: BLE001 - any damage in the pickle stream
        raise _bad(f"a damaged data record ({type(err).__name__})") from None


def checked_copy(data: bytes) -> bytes:
    """Read `data` strictly and return a fresh stored archive of the entries that were checked
    (the pickle's operations counted first)."""
    entries = read_entries(data)
    for name, body in entries:
        if name.endswith("/data.pkl") or name == "data.pkl":
            check_pickle(body)
    return write_stored(entries)
