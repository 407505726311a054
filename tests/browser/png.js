// SPDX-License-Identifier: MIT
// A minimal PNG reader for screenshot checks: 8-bit RGB/RGBA, not
// interlaced (what Chromium writes). Returns the number of distinct colours
// (capped) and the share of pixels that are not near-white.
"use strict";
const zlib = require("zlib");

function pngStats(buf) {
	let off = 8, w = 0, h = 0, ct = 0;
	const idat = [];
	while (off < buf.length) {
		const len = buf.readUInt32BE(off), type = buf.toString("ascii", off + 4, off + 8);
		const data = buf.subarray(off + 8, off + 8 + len);
		if (type === "IHDR") {
			w = data.readUInt32BE(0);
			h = data.readUInt32BE(4);
			ct = data[9];
			if (data[8] !== 8 || data[12] !== 0) throw new Error("unsupported PNG");
		} else if (type === "IDAT") idat.push(data);
		off += 12 + len;
	}
	const bpp = ct === 6 ? 4 : ct === 2 ? 3 : 0;
	if (!bpp) throw new Error("unsupported PNG colour type " + ct);
	const raw = zlib.inflateSync(Buffer.concat(idat)), stride = w * bpp;
	const prev = Buffer.alloc(stride), cur = Buffer.alloc(stride);
	const colours = new Set();
	let nonWhite = 0;
	for (let y = 0; y < h; y++) {
		const ft = raw[y * (stride + 1)], line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
		for (let x = 0; x < stride; x++) {
			const a = x >= bpp ? cur[x - bpp] : 0, b = prev[x], c = x >= bpp ? prev[x - bpp] : 0;
			let v = line[x];
			if (ft === 1) v += a;
			else if (ft === 2) v += b;
			else if (ft === 3) v += (a + b) >> 1;
			else if (ft === 4) {
				const p = a + b - c, pa = Math.abs(p - a), pb = Math.abs(p - b), pc = Math.abs(p - c);
				v += pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
			}
			cur[x] = v & 255;
		}
		for (let x = 0; x < stride; x += bpp) {
			const r = cur[x], g = cur[x + 1], bl = cur[x + 2];
			if (colours.size < 1000) colours.add((r << 16) | (g << 8) | bl);
			if (r < 235 || g < 235 || bl < 235) nonWhite++;
		}
		cur.copy(prev);
	}
	return { width: w, height: h, colours: colours.size, nonWhite: +(nonWhite / (w * h)).toFixed(3) };
}

module.exports = { pngStats };
