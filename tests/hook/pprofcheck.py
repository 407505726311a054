#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Replays what the ingesters check on a pprof body (tests/hook/scrape.t):
reads a gzipped profile.proto with a wire-format reader of its own (no
protobuf library: an independent reading) and prints one JSON object:
sample types, default type, period type, duration/time, sample count,
uncompressed size, totals per type, and Pyroscope's refusals: strings that
are not valid UTF-8, location or function id 0, more than 16 000 samples or
4 MiB uncompressed. Usage: pprofcheck.py FILE"""
import gzip
import json
import sys


def varint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << s
        s += 7
        if c < 0x80:
            return v, i


def fields(b):
    """(field number, wire type, value) of a message: ints or bytes."""
    i = 0
    while i < len(b):
        k, i = varint(b, i)
        f, w = k >> 3, k & 7
        if w == 0:
            v, i = varint(b, i)
        elif w == 2:
            n, i = varint(b, i)
            v = b[i:i + n]
            i += n
        elif w == 1:
            v = int.from_bytes(b[i:i + 8], 'little')
            i += 8
        elif w == 5:
            v = int.from_bytes(b[i:i + 4], 'little')
            i += 4
        else:
            raise ValueError('wire type %d' % w)
        yield f, w, v


def packed(w, v):
    if w == 0:
        return [v]
    out, i = [], 0
    while i < len(v):
        x, i = varint(v, i)
        out.append(x)
    return out


def signed(x):
    return x - (1 << 64) if x >= 1 << 63 else x


def main():
    raw = open(sys.argv[1], 'rb').read()
    plain = gzip.decompress(raw) if raw[:2] == b'\x1f\x8b' else raw
    strs, stypes, samples, bad_ids = [], [], [], 0
    period_type = default = None
    duration = time = 0
    comments = []
    for f, w, v in fields(plain):
        if f == 1:
            t = dict((g, x) for g, _, x in fields(v))
            stypes.append((t.get(1, 0), t.get(2, 0)))
        elif f == 2:
            vals, locs = [], []
            for g, ww, x in fields(v):
                if g == 1:
                    locs += packed(ww, x)
                elif g == 2:
                    vals += [signed(y) for y in packed(ww, x)]
            samples.append((locs, vals))
            bad_ids += sum(1 for x in locs if x == 0)
        elif f in (4, 5):          # Location, Function: id is field 1
            ident = 0
            for g, ww, x in fields(v):
                if g == 1:
                    ident = x
                if f == 4 and g == 4:  # Line: function_id is field 1
                    for h, _, y in fields(x):
                        if h == 1 and y == 0:
                            bad_ids += 1
            bad_ids += ident == 0
        elif f == 6:
            strs.append(v)
        elif f == 9:
            time = signed(v)
        elif f == 10:
            duration = signed(v)
        elif f == 11:
            t = dict((g, x) for g, _, x in fields(v))
            period_type = (t.get(1, 0), t.get(2, 0))
        elif f == 13:
            comments += packed(w, v)
        elif f == 14:
            default = v
    bad_utf8 = 0
    for s in strs:
        try:
            s.decode('utf-8', 'strict')
        except UnicodeDecodeError:
            bad_utf8 += 1
    text = [s.decode('utf-8', 'replace') for s in strs]
    name = lambda t: '%s/%s' % (text[t[0]], text[t[1]])
    totals = [sum(s[1][k] for s in samples if k < len(s[1])) for k in range(len(stypes))]
    out = {
        'sample_types': [name(t) for t in stypes],
        'default': text[default] if default else '',
        'period_type': name(period_type) if period_type else '',
        'duration_nanos': duration,
        'time_nanos': time,
        'samples': len(samples),
        'uncompressed': len(plain),
        'totals': dict(zip([name(t) for t in stypes], totals)),
        'comments': [text[c] for c in comments],
        'string0_empty': bool(strs) and strs[0] == b'',
        'bad_utf8': bad_utf8,
        'zero_ids': bad_ids,
        'pyroscope_ok': bad_utf8 == 0 and bad_ids == 0 and len(samples) <= 16000 and
                        len(plain) <= 4 << 20,
    }
    print(json.dumps(out))


main()
