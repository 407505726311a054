// SPDX-License-Identifier: MIT
// flame-data.js: the first part of the interactive script of render-flame's
// SVG page, embedded at build time: render/build.mk joins flame-data.js,
// flame-lifetimes.js, flame-draw.js, flame-search.js, flame-tables.js, flame-sandwich.js,
// flame-invert.js, flame-transform.js, flame-compare.js, flame-export.js, flame-timeline.js and flame-events.js, in that order,
// into the one function this file opens and flame-events.js closes. Each
// file is one module: a function fkNAME(m) that returns its exports; m
// holds the modules made before it (m.data, m.draw, ...), and a module
// uses another's exports only as m.NAME.EXPORT, those its header lists
// ("exports:", "needs:"); it takes them at its start with one
// "var { EXPORT, ... } = m.NAME;" a module, and its copies of the tree's
// arrays with one "({ n, ... } = t);" in m.data.onTree's function.
// flame-events.js makes them in order and starts
// the page; scripts/check-page-modules (tests/golden/render/modules.cmd)
// checks that no module reaches another's names.
// The SVG carries every frame of the profile as data (the
// #fktable code, the #fknames table); this script lays the graph out at the
// window's real width with a fixed font size and draws only the frames wide
// enough to see. Search, zoom, counts and tables read the full data, so
// they are exact at any size; "(N more)" is only a drawing of narrow
// neighbours and zooms into them. Without script the page shows the
// drawing render-flame made. Text from the input is only ever set with
// textContent or setAttribute.
// This module: the data, formatting and colours.
// exports: D, names, nametype, info, loc, fnOf, hasLines, addName, NS, XNS, svg, FH, FS, CHW, XPAD, MINPX, colNames, colUnits,
//   state, DC, wc, nc, nt, fmt, fmtIn, fmtBytes, BANDS, pct, pathOf, cut, fnv, cls, bnorm, tree, setTree, onTree
// needs: lifetimes
(function () {
	"use strict";
	function fkData(m) {
		var NS = "http://www.w3.org/2000/svg", XNS = "http://www.w3.org/1999/xhtml";
		var svg = document.documentElement;
		var D = JSON.parse(document.getElementById("fkdata").textContent);
		var meta = document.getElementById("fknames");
		var names = meta.textContent.replace(/^\n/, "").split("\n");
		var countname = meta.getAttribute("data-countname") || "";
		var nametype = meta.getAttribute("data-nametype") || "";
		// The origin's KEY=VALUE lines (render/pageinfo.c), the last of a
		// key winning.
		var info = {};
		(function () {
			var e = document.getElementById("fkinfo");
			(e ? e.textContent : "").split("\n").forEach(function (l) {
				var k = l.indexOf("=");
				if (k > 0)
					info[l.slice(0, k)] = l.slice(k + 1);
			});
		})();
		// A frame a source line (to-folded --lines): "NAME (FILE:LINE)".
		// loc[k]: name k's "FILE:LINE" ("" for none); fnOf[k]: the index
		// of its function's bare name, added to names when no frame has
		// it (flame-transform.js merges the lines by it). addName gives a
		// name's index, adding it (a compared profile's, flame-compare.js).
		var loc = [], fnOf = [], hasLines = false, nameAt = new Map(), NL = names.length;
		function place(k) {
			var r = / \(([^()]*:\d+)\)$/.exec(names[k]);
			loc[k] = r ? r[1] : "";
			fnOf[k] = k;
			if (r) {
				hasLines = true;
				fnOf[k] = addName(names[k].slice(0, r.index));
			}
		}
		function addName(s) {
			var k = nameAt.get(s);
			if (k === undefined) {
				nameAt.set(s, k = names.length);
				names.push(s);
				place(k);
			}
			return k;
		}
		for (i = 0; i < NL; i++)
			if (!nameAt.has(names[i]))
				nameAt.set(names[i], i);
		for (i = 0; i < NL; i++)
			place(i);
		var FH = D.frameheight, FS = D.fontsize, CHW = FS * D.fontwidth, XPAD = D.xpad;
		var MINPX = 1;                 // narrower frames are drawn merged or not at all
		var i;

		// ---- the data: one tree, preorder, N value columns ----------------
		var n = D.n, ncol = D.cols;
		var depth = new Int32Array(n), parent = new Int32Array(n), nm = new Int32Array(n);
		var end = new Int32Array(n), self = [], tot = [];
		(function decode() {
			var s = document.getElementById("fktable").textContent, pos = 0, c, k, v, d, dig;
			var dec = new Int8Array(128).fill(-1), fin = "0123456789ABCDEFGHIJKLMNOPQRSTUV",
				more = "WXYZabcdefghijklmnopqrstuvwxyz-_";
			for (k = 0; k < 32; k++) {
				dec[fin.charCodeAt(k)] = k;
				dec[more.charCodeAt(k)] = 32 + k;
			}
			function num() {
				var x = 0;
				for (;;) {
					dig = dec[s.charCodeAt(pos++)];
					if (dig < 32)
						return x * 32 + dig;
					x = x * 32 + dig - 32;
				}
			}
			for (c = 0; c < ncol; c++)
				self.push(new Float64Array(n));
			var stack = new Int32Array(n + 1), prev = -1;
			for (k = 0; k < n; k++) {
				d = prev + 1 - num();
				depth[k] = d;
				stack[d] = k;
				parent[k] = d ? stack[d - 1] : -1;
				nm[k] = num();
				// The first column's value, then each other column's as its
				// change from the one before (zigzagged), or ".N": the same
				// value in the next N columns (svgdata.c's enc_rest).
				v = num();
				self[0][k] = v;
				for (c = 1; c < ncol;) {
					if (s.charCodeAt(pos) === 46) {
						pos++;
						for (var r = num(); r > 0; r--)
							self[c++][k] = v;
						continue;
					}
					var z = num();
					v += z % 2 ? -(z + 1) / 2 : z / 2;
					self[c++][k] = v;
				}
				prev = d;
			}
			if (D.diff) {
				// The "vanished" column: a frame gone from the new profile
				// keeps its base value.
				var vs = new Float64Array(n);
				for (k = 0; k < n; k++)
					vs[k] = self[0][k] || self[1][k];
				self.push(vs);
			}
			for (c = 0; c < self.length; c++) {
				var t = Float64Array.from(self[c]);
				for (k = n - 1; k > 0; k--)
					t[parent[k]] += t[k];
				tot.push(t);
			}
			for (k = n - 1; k >= 0; k--) {
				if (!end[k])
					end[k] = k + 1;
				v = parent[k];
				if (v >= 0 && end[v] < end[k])
					end[v] = end[k];
			}
		})();
		// Column names "name/unit" from a multi-column input's header.
		var colsEl = document.getElementById("fkcols");
		var colSpec = D.diff ? ["new", "base", "new + vanished"] : colsEl ? colsEl.textContent.split(" ") : [countname || "value"];
		var colNames = colSpec.map(function (c) {
			return c.split("/")[0];
		});
		var colUnits = colSpec.map(function (c) {
			var u = c.split("/");
			return u.length > 1 ? u.slice(1).join("/") : countname;
		});

		// A heap profile opens on memory in use, as pprof does; a diff on
		// "new + vanished", so that what vanished is there to search.
		var state = { zoom: 0, ra: -1, rb: -1, query: "", icase: true, regex: false,
			col: D.diff ? 2 : Math.max(0, colNames.indexOf("inuse_space")),
			up: !D.inverted, sel: -1, fn: -1, mpos: -1, normalize: !!D.normalize, table: false, sw: -1, inv: false, reErr: "" };
		function wc() {
			return tot[state.col];
		}
		// The column the numbers are of: a diff's widths come from "new +
		// vanished" (DC.v), which no profile holds, its numbers from the
		// new profile (DC.n); otherwise the column shown.
		function nc() {
			return D.diff && state.col === DC.v ? DC.n : state.col;
		}
		function nt() {
			return tot[nc()];
		}

		// ---- formatting ---------------------------------------------------
		function commas(v) {
			return String(Math.round(v)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
		}
		function fmt(v) {
			return fmtIn(state.col, v);
		}
		// A value in column c's unit.
		function fmtIn(c, v) {
			var unit = colUnits[c];
			if (unit !== "bytes")
				return commas(v) + (unit ? " " + unit : "");
			return fmtBytes(v);
		}
		function fmtBytes(v) {
			var u = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"], a = Math.abs(v), j = 0;
			while (a >= 1024 && j < u.length - 1) {
				a /= 1024;
				j++;
			}
			return (v < 0 ? "-" : "") + (j ? a.toFixed(a < 10 ? 2 : 1) : String(Math.round(a))) + " " + u[j];
		}
		function pct(a, b) {
			return b > 0 ? (100 * a / b).toFixed(2) + "%" : "-";
		}
		function pathOf(i) {
			var p = [];
			for (; i > 0; i = parent[i])
				p.push(names[nm[i]]);
			return p.reverse().join(";");
		}
		// Cuts s to at most chars characters in the middle: the start and the
		// end of a long C++ name are what tell frames apart. Under 10 it
		// keeps the start ("flu2\u2026", not "f\u2026l"), and under 4 it is
		// "": fewer than 3 of a name's characters tell nothing.
		function cut(s, chars) {
			var a = Array.from(s);
			if (a.length <= chars)
				return s;
			if (chars < 4)
				return "";
			if (chars < 10)
				return a.slice(0, chars - 1).join("") + "\u2026";
			var head = Math.ceil((chars - 1) / 2), tail = chars - 1 - head;
			return a.slice(0, head).join("") + "\u2026" + (tail ? a.slice(a.length - tail).join("") : "");
		}

		// ---- colours (the same as render-flame's, see svg.c) ---------------
		var nameHash = new Float64Array(names.length).fill(-1);
		function fnv(k) {
			if (nameHash[k] >= 0)
				return nameHash[k];
			var s = names[k], h = 2166136261, b = 0, j, c;
			function byte(x) {
				if (b++ < 64)
					h = Math.imul(h ^ x, 16777619) >>> 0;
			}
			for (j = 0; j < s.length && b < 64; j++) {
				c = s.codePointAt(j);
				if (c > 0xffff)
					j++;
				if (c < 0x80) {
					byte(c);
				} else if (c < 0x800) {
					byte(0xc0 | c >> 6);
					byte(0x80 | c & 63);
				} else if (c < 0x10000) {
					byte(0xe0 | c >> 12);
					byte(0x80 | c >> 6 & 63);
					byte(0x80 | c & 63);
				} else {
					byte(0xf0 | c >> 18);
					byte(0x80 | c >> 12 & 63);
					byte(0x80 | c >> 6 & 63);
					byte(0x80 | c & 63);
				}
			}
			return (nameHash[k] = h);
		}
		function shade(j) {
			var h = fnv(nm[j]);
			if (!D.hash)
				h = (h ^ Math.imul(depth[j], 0x9e3779b9)) >>> 0;
			h ^= h >>> 16;
			h = Math.imul(h, 0x85ebca6b) >>> 0;
			h ^= h >>> 13;
			h = Math.imul(h, 0xc2b2ae35) >>> 0;
			h ^= h >>> 16;
			return "c" + (h >>> 0) % 16;
		}
		var BANDS = [0.05, 0.25, 0.6, 1.2, 2.2];
		// The columns a differential view compares: new (DC.n) and base
		// (DC.b), and the widths' column where vanished frames keep their
		// base value (DC.v); a timeline (flame-timeline.js) points them at
		// the growth it computes.
		var DC = { n: 0, b: 1, v: D.diff ? 2 : -1 };
		function bnorm() {
			return state.normalize && tot[DC.b][0] > 0 && tot[DC.n][0] > 0 ? tot[DC.n][0] / tot[DC.b][0] : 1;
		}
		// log2(new / base) in bands, as svg.c's diff_step.
		function diffStep(v, b) {
			if (v === b)
				return 0;
			if (b <= 0)
				return 5;
			if (v <= 0)
				return -5;
			var r = Math.log2(v / b), k;
			for (k = 0; k < 5; k++)
				if (Math.abs(r) < BANDS[k])
					break;
			return r < 0 ? -k : k;
		}
		function cls(j) {
			if (!D.diff)
				return m.lifetimes.cls(j) || shade(j);
			var st = diffStep(tot[DC.n][j], tot[DC.b][j] * bnorm());
			if (!st)
				return "d0";
			return ((st > 0) !== !!D.negate ? "r" : "b") + Math.abs(st);
		}
		// ---- the tree now ------------------------------------------------
		// Sorting (flame-tables.js) and inverting (flame-invert.js) put
		// another tree in place: setTree gives it to every module that
		// asked with onTree (each keeps the arrays as its own variables,
		// so that its loops read them as quickly as before).
		var cur = { n: n, depth: depth, parent: parent, nm: nm, end: end, self: self, tot: tot }, treeFns = [];
		function setTree(t) {
			cur = t;
			({ n, depth, parent, nm, end, self, tot } = t);
			treeFns.forEach(function (f) {
				f(t);
			});
		}
		function onTree(f) {
			treeFns.push(f);
			f(cur);
		}
		return { D: D, names: names, nametype: nametype, info: info, loc: loc, fnOf: fnOf, hasLines: hasLines, addName: addName, NS: NS, XNS: XNS, svg: svg, FH: FH, FS: FS, CHW: CHW,
			XPAD: XPAD, MINPX: MINPX, colNames: colNames, colUnits: colUnits, state: state, DC: DC, wc: wc, nc: nc, nt: nt, fmt: fmt,
			fmtIn: fmtIn, fmtBytes: fmtBytes, BANDS: BANDS, pct: pct, pathOf: pathOf, cut: cut, fnv: fnv, cls: cls, bnorm: bnorm,
			tree: function () {
				return cur;
			}, setTree: setTree, onTree: onTree };
	}
