// SPDX-License-Identifier: MIT
// Decodes a gzipped pprof file with the npm package pprof-format (an
// independent decoder) and prints a JSON summary for pprof-format.t; with a
// second argument, also writes the profile re-encoded by pprof-format there.
import { readFileSync, writeFileSync } from 'node:fs'
import { gunzipSync } from 'node:zlib'
import { Profile } from 'pprof-format'

const [file, reencoded] = process.argv.slice(2)
let data = readFileSync(file)
if (data[0] === 0x1f && data[1] === 0x8b) data = gunzipSync(data)
const p = Profile.decode(new Uint8Array(data))
const str = (i) => p.stringTable.strings[Number(i)]
const totals = p.sampleType.map(() => 0n)
for (const s of p.sample) {
  s.value.forEach((v, i) => { totals[i] += BigInt(v) })
}
const locIds = new Set(p.location.map((l) => String(l.id)))
const funIds = new Set(p.function.map((f) => String(f.id)))
let dangling = 0
for (const s of p.sample) for (const id of s.locationId) if (!locIds.has(String(id))) dangling++
for (const l of p.location) for (const ln of l.line) if (!funIds.has(String(ln.functionId))) dangling++
console.log(JSON.stringify({
  string0: str(0),
  sampleTypes: p.sampleType.map((t) => `${str(t.type)}/${str(t.unit)}`),
  defaultSampleType: str(p.defaultSampleType),
  periodType: p.periodType ? `${str(p.periodType.type)}/${str(p.periodType.unit)}` : null,
  period: String(p.period),
  samples: p.sample.length,
  locations: p.location.length,
  functions: p.function.length,
  mappings: p.mapping.length,
  totals: totals.map(String),
  dangling,
  mappingRanges: p.mapping.map((m) => [String(m.memoryStart), String(m.memoryLimit),
    String(m.fileOffset), str(m.filename)]),
  mappingFlags: p.mapping.map((m) => !!(m.hasFunctions || m.hasFilenames || m.hasLineNumbers || m.hasInlineFrames)),
  functionNames: p.function.map((f) => str(f.name)).sort()
}))
if (reencoded) writeFileSync(reencoded, p.encode())
