"""Writes `rust/core/src/random/sobol_directions.bin`: the Joe–Kuo direction numbers (search criterion D(6),
the table torch's SobolEngine carries) that ferrograd's `SobolEngine` reads, packed to a few bits each.

The source is scipy's copy of the table (`scipy/stats/_sobol_direction_numbers.npz`: `poly` and `vinit`),
so run it with an interpreter that has scipy (the torch venv):

    /work/torchvenv/bin/python tools/pack_sobol_directions.py

Only the dimensions whose primitive polynomial has degree <= 16 are kept (the first 5715 of 21201): the
whole table packs to ~360 KB of incompressible bits, which is a tenth of the wheel; this prefix to ~82 KB.

Format (little-endian): u32 count N of dimensions kept (dimension 0, torch's all-ones row, included);
then for dimensions 1..N a u16 `poly >> 1` (the polynomial without its constant term, which is always 1);
then one bit stream, least significant bit first, holding for each dimension 1..N of degree s its initial
direction numbers m_1..m_s, m_i as `m_i >> 1` in i - 1 bits (m_i is odd and below 2^i).
"""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import scipy

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "rust" / "core" / "src" / "random" / "sobol_directions.bin"
MAX_DEGREE = 16


def main() -> None:
    table = np.load(Path(scipy.__file__).parent / "stats" / "_sobol_direction_numbers.npz")
    poly, vinit = table["poly"], table["vinit"]
    degrees = [int(p).bit_length() - 1 for p in poly]
    count = sum(1 for s in degrees if s <= MAX_DEGREE)
    assert all(s <= MAX_DEGREE for s in degrees[:count]), "degrees must not decrease along the table"
    header = struct.pack("<I", count) + b"".join(struct.pack("<H", int(p) >> 1) for p in poly[1:count])
    acc, nbits, stream = 0, 0, bytearray()
    for d in range(1, count):
        for i in range(1, degrees[d] + 1):
            m = int(vinit[d, i - 1])
            assert m & 1 and m < 1 << i, (d, i, m)
            acc |= (m >> 1) << nbits
            nbits += i - 1
            while nbits >= 8:
                stream.append(acc & 0xFF)
                acc >>= 8
                nbits -= 8
    if nbits:
        stream.append(acc)
    OUT.write_bytes(header + bytes(stream))
    print(f"{OUT.relative_to(ROOT)}: {count} dimensions, {len(header) + len(stream)} bytes")


if __name__ == "__main__":
    main()
