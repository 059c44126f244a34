#!/usr/bin/env python3
"""Writes the zip-bomb fixtures of Tests/ENTestSupport/Fixtures/export/generated/.

Both are built from the real ENS example export (export.bin + export.sig) so that everything except the
one defect is valid:

- bomb-inflated.zip: export.bin is followed by 64 MiB of zeros (compressing to about 64 KiB), while the
  central directory and local header declare the original, small size. A reader that trusts the
  declared size but inflates without counting would allocate 64 MiB.
- bomb-declared.zip: the central directory declares a 4 GiB - 1 uncompressed size for export.bin. A
  reader must refuse it before inflating anything.

Run from the repository root: python3 Scripts/make-bad-export-fixtures.py
"""
import struct
import zipfile
import zlib
from pathlib import Path

root = Path(__file__).resolve().parent.parent
fixtures = root / "Tests/ENTestSupport/Fixtures/export"
source = fixtures / "ens-example/testExport-2-records-1-of-1.zip"
out = fixtures / "generated"
out.mkdir(exist_ok=True)

with zipfile.ZipFile(source) as z:
    binary = z.read("export.bin")
    signature = z.read("export.sig")


def entry(name, data, declared_size=None, payload=None):
    """Local header + deflated payload; returns (local bytes, central-directory record factory)."""
    payload = payload if payload is not None else data
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    compressed = compressor.compress(payload) + compressor.flush()
    size = len(data) if declared_size is None else declared_size
    crc = zlib.crc32(data) & 0xFFFFFFFF
    name_bytes = name.encode()
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc, len(compressed), size,
                        len(name_bytes), 0) + name_bytes + compressed

    def central(offset):
        return struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0x21, crc, len(compressed), size,
                           len(name_bytes), 0, 0, 0, 0, 0, offset) + name_bytes

    return local, central


def write(path, entries):
    body = b""
    centrals = b""
    for local, central in entries:
        centrals += central(len(body))
        body += local
    eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(centrals), len(body), 0)
    path.write_bytes(body + centrals + eocd)


write(out / "bomb-inflated.zip", [
    entry("export.bin", binary, payload=binary + bytes(64 << 20)),
    entry("export.sig", signature),
])
write(out / "bomb-declared.zip", [
    entry("export.bin", binary, declared_size=0xFFFFFFFF),
    entry("export.sig", signature),
])
print("wrote", sorted(p.name for p in out.iterdir()))
