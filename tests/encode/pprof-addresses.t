#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
# to-pprof of address-only (raw) input keeps the dump's exact addresses and
# mappings, so a symbolizing consumer can resolve them: in `go tool pprof
# -raw` (no symbolization), every sample's stack is a dump stack address for
# address, and every location lies in the pprof mapping whose range, offset
# and file are those of the dump's maps line holding the address.
import glob
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from enclib import ok, done, tmp, run, to_pprof, read_dump, parse_maps, pprof_raw  # noqa: E402

dumps = sorted(glob.glob("fixtures/dumps/*.prof")) + sorted(glob.glob("fixtures/good/*.prof"))
for dump in dumps:
    name = os.path.basename(dump)[:-5]
    try:
        pb = to_pprof(dump, tmp(name + ".pb.gz"))
    except RuntimeError as e:
        ok(False, f"{name}: to-pprof", str(e))
        continue
    # The maps as jeprof-raw writes them: gperftools' and pprof's short map
    # lines become /proc lines there, the addresses stay as they are.
    st, raw, err = run(["jeprof-raw", dump])
    if st != 0:
        ok(False, f"{name}: jeprof-raw", err.strip()[:200])
        continue
    with open(tmp(name + ".raw"), "w", encoding="latin-1") as f:
        f.write(raw)
    stacks, _, maps = read_dump(tmp(name + ".raw"))
    maps = parse_maps(maps)
    st, err, out, samples, locs, pmaps = pprof_raw(pb, "-symbolize=none")
    ok(st == 0 and err == "", f"{name}: go tool pprof -raw reads it", err.strip()[:200])

    # Stacks: the multiset of pprof sample stacks equals the dump's stacks
    # that have a non-zero value (empty stacks are not listed by -raw).
    want = sorted(a for a, c in stacks if any(c) and a)
    got = sorted(tuple(locs[i][0] for i in ids) for _, ids in samples if ids)
    ok(want == got, f"{name}: {len(got)} sample stacks equal the dump's, address for address",
       f"{len(want)} dump stacks, {len(got)} samples")

    bad = []
    for lid, (addr, mid) in sorted(locs.items()):
        holder = [m for m in maps if m[0] <= addr < m[1]]
        if not holder or not holder[0][4]:
            # go tool pprof gives a profile with no mapping at all one of
            # its own, 0x0/0x0/0x0 with no file, for its locations.
            fake = pmaps.get(mid, (None,) * 4)
            if mid != 0 and not (not maps and fake[:3] == (0, 0, 0) and not (fake[3] or "").strip()):
                bad.append(f"location {lid} 0x{addr:x} outside file maps has mapping {mid}")
            continue
        start, limit, off, _, path = holder[0]
        pm = pmaps.get(mid)
        if not pm:
            bad.append(f"location {lid} 0x{addr:x}: no mapping {mid}")
        elif (pm[0], pm[1], pm[2]) != (start, limit, off) or not pm[3].startswith(path):
            bad.append(f"location {lid} 0x{addr:x}: mapping {pm} but dump has "
                       f"{start:x}-{limit:x} {off:x} {path}")
    ok(not bad, f"{name}: each of {len(locs)} locations lies in its dump mapping",
       "; ".join(bad[:3]))

    ok(not any("[FN]" in m[3] or "[FL]" in m[3] for m in pmaps.values()),
       f"{name}: no mapping claims symbols it does not carry")

done()
