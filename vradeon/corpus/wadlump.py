#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""wadlump.py WAD LUMP OUT: writes lump LUMP of the Doom WAD file WAD to OUT.

dsda-doom plays demos from files only (not from a WAD's DEMOn lumps). A WAD is a 12-byte
header ("IWAD" or "PWAD", the lump count, the directory's offset) and a directory of 16-byte
entries (offset, size, an 8-byte name padded with NULs)."""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.realpath(__file__)), "..", "..", "harness", "python"))
import vramlab_safe_write as safe  # noqa: E402  (harness/python: outputs written whole)

if len(sys.argv) != 4:
    sys.exit(__doc__)
wad, name, out = sys.argv[1], sys.argv[2].upper(), sys.argv[3]
data = open(wad, "rb").read()
magic, count, table = struct.unpack_from("<4sii", data, 0)
if magic not in (b"IWAD", b"PWAD"):
    sys.exit(f"wadlump.py: {wad} is not a WAD file")
for i in range(count):
    offset, size, raw = struct.unpack_from("<ii8s", data, table + 16 * i)
    if raw.rstrip(b"\0").decode("ascii", "replace").upper() == name:
        try:
            safe.write_bytes(out, data[offset:offset + size])
        except OSError as e:
            sys.exit(f"wadlump.py: {e}")
        break
else:
    sys.exit(f"wadlump.py: no lump {name} in {wad}")
