// SPDX-License-Identifier: MIT
// flame-sandwich.js: the sandwich view, a function's callers merged above
// it and its callees merged below, with exact values in every column.
// One module of the page script (see flame-data.js).
// exports: drawSandwich, openSandwich, closeSandwich, sandwichHere, last
// needs: data, draw, search, events
	function fkSandwich(m) {
		var { D, names, nametype, state, wc, nc, nt, fmt, fmtIn, pct, bnorm, DC, NS, svg, MINPX, XPAD, FH, FS,
			CHW, cut, fnv, colNames } = m.data;
		var { el, selr, view, lay, colSel } = m.draw;
		var { showDetails } = m.search;
		var n, parent, nm, end, tot;
		m.data.onTree(function (t) {
			({ n, parent, nm, end, tot } = t);
		});
		// ---- the sandwich view ---------------------------------------------
		// For function k: its callers merged above (the stacks that reach k,
		// from k outwards) and its callees merged below (everything under k),
		// each stack counted at its outermost k, so nothing is counted twice.
		// Both halves are merged level by level, and only groups wide enough
		// to draw are split further, so the work follows what is drawn.
		// Each node keeps its frames (f: the outermost k frames of its stacks
		// for a caller, the callee's frames for a callee), so that a node's
		// value in any column is exact: the sum of those frames' totals.
		function sandwich(k) {
			var t = wc(), j, outer = [];
			// The outermost frames of k: those without a k among their
			// callers; a k inside one is skipped with the subtree.
			for (j = 0; j < n;) {
				if (nm[j] === k) {
					if (t[j] > 0)
						outer.push(j);
					j = end[j];
				} else {
					j++;
				}
			}
			var sum = 0;
			outer.forEach(function (f) {
				sum += t[f];
			});
			var minv = sum > 0 ? sum * MINPX / (lay.Wpx - 2 * XPAD) : 1;
			function tree() {
				return { nm: [k], p: [-1], v: [sum], kids: [[]], f: [outer] };
			}
			function add(T, p, name, v, f) {
				var c = T.nm.length;
				T.nm.push(name);
				T.p.push(p);
				T.v.push(v);
				T.kids.push([]);
				T.f.push(f);
				T.kids[p].push(c);
				return c;
			}
			// Callers: the stacks (one an outermost frame) sit in perm; a
			// node's stacks are a range of it, split in place by the name of
			// each stack's next caller (anc), so a range keeps its stacks
			// while its children reorder inside it. Typed arrays and a
			// counting split: a Map a level cost 300 ms on 90k stacks.
			var up = tree(), down = tree(), S = outer.length, perm = new Int32Array(S), anc = new Int32Array(S), tmp = new Int32Array(S);
			var slot = new Int32Array(names.length).fill(-1);
			for (j = 0; j < S; j++) {
				perm[j] = j;
				anc[j] = parent[outer[j]];
			}
			up.perm = perm;
			up.outer = outer;
			up.lo = [0];
			up.hi = [S];
			(function callers(node, lo, hi) {
				var keys = [], cnt = [], val = [], i2, s2, a, b;
				for (i2 = lo; i2 < hi; i2++) {
					a = anc[perm[i2]];
					if (a < 0)
						continue;
					b = slot[nm[a]];
					if (b < 0) {
						b = slot[nm[a]] = keys.length;
						keys.push(nm[a]);
						cnt.push(0);
						val.push(0);
					}
					cnt[b]++;
					val[b] += t[outer[perm[i2]]];
				}
				if (!keys.length)
					return;
				// Bucket starts; the stacks that end here go last.
				var start = [], pos2 = lo;
				for (b = 0; b < keys.length; b++) {
					start.push(pos2);
					pos2 += cnt[b];
				}
				var endPos = pos2, fill = start.slice();
				for (i2 = lo; i2 < hi; i2++) {
					s2 = perm[i2];
					a = anc[s2];
					tmp[a < 0 ? endPos++ : fill[slot[nm[a]]]++] = s2;
				}
				perm.set(tmp.subarray(lo, hi), lo);
				for (b = 0; b < keys.length; b++)
					slot[keys[b]] = -1;
				for (b = 0; b < keys.length; b++) {
					if (val[b] < minv)
						continue;
					for (i2 = start[b]; i2 < start[b] + cnt[b]; i2++)
						anc[perm[i2]] = parent[anc[perm[i2]]];
					var c3 = add(up, node, keys[b], val[b], null);
					up.lo[c3] = start[b];
					up.hi[c3] = start[b] + cnt[b];
					callers(c3, start[b], start[b] + cnt[b]);
				}
			})(0, 0, S);
			// Callees: each group holds frames of the same merged callee.
			(function callees(node, frames) {
				var by = new Map(), i2, c2;
				for (i2 = 0; i2 < frames.length; i2++)
					for (c2 = frames[i2] + 1; c2 < end[frames[i2]]; c2 = end[c2]) {
						if (!(t[c2] > 0))
							continue;
						var g = by.get(nm[c2]);
						if (!g)
							by.set(nm[c2], g = { f: [], v: 0 });
						g.f.push(c2);
						g.v += t[c2];
					}
				by.forEach(function (g, name) {
					if (g.v >= minv)
						callees(add(down, node, name, g.v, g.f), g.f);
				});
			})(0, outer);
			return { up: up, down: down };
		}
		var swLast = null;
		var swg = el(NS, "g", { id: "sandwich", role: "group", "aria-label": "sandwich view" }, null);
		svg.insertBefore(swg, selr);
		function drawHalf(T, y0, dir, sc) {
			var rows = 0, out = [];
			function walk(j, x, d) {
				var w = T.v[j] * sc;
				if (w < MINPX)
					return;
				out.push([j, x, w, d]);
				if (d > rows)
					rows = d;
				var kids = T.kids[j].slice().sort(function (a, b) {
					return T.v[b] - T.v[a] || a - b;
				}), cx = x;
				for (var i2 = 0; i2 < kids.length; i2++) {
					walk(kids[i2], cx, d + 1);
					cx += T.v[kids[i2]] * sc;
				}
			}
			walk(0, XPAD, 0);
			out.forEach(function (f) {
				var g = el(NS, "g", { class: "c" + fnv(T.nm[f[0]]) % 16 + (f[3] === 0 && dir < 0 ? " swk" : "") }, swg);
				var y = y0 + dir * f[3] * FH;
				el(NS, "rect", { x: f[1].toFixed(1), y: y.toFixed(1), width: f[2].toFixed(1), height: FH - 1 }, g);
				var chars = Math.floor((f[2] - 6) / CHW), lab = chars >= 3 ? cut(names[T.nm[f[0]]], chars) : "";
				if (lab) {
					var tx = el(NS, "text", { x: (f[1] + 3).toFixed(1), y: (y + FH / 2 + FS / 3).toFixed(1) }, g);
					tx.textContent = lab;
				}
				g.addEventListener("mousemove", function () {
					showDetails(swDescribe(T, f[0], dir));
				});
				// A click on a caller or a callee opens that function's sandwich.
				if (f[0])
					g.addEventListener("click", function () {
						openSandwich(T.nm[f[0]]);
					});
			});
			return rows + 1;
		}
		// A sandwich node's value in every column, exact (its frames' totals).
		function swCols(T, j) {
			var fr = T.f[j], out = [], c, i2, v;
			if (!fr) {
				fr = [];
				for (i2 = T.lo[j]; i2 < T.hi[j]; i2++)
					fr.push(T.outer[T.perm[i2]]);
			}
			for (c = 0; c < tot.length; c++) {
				v = 0;
				for (i2 = 0; i2 < fr.length; i2++)
					v += tot[c][fr[i2]];
				out.push(v);
			}
			return out;
		}
		function swDescribe(T, j, dir) {
			var V = swCols(T, j), v = V[nc()], lines = [nametype + " " + names[T.nm[j]]], c;
			lines.push(fmt(v) + " \u2014 " + pct(v, nt()[0]) + " of total" + (j === 0 ? ", the function itself (each stack once)" :
				dir < 0 ? ", through this caller" : ", in this callee"));
			if (D.diff) {
				var nv = V[DC.n], bv = V[DC.b], b = bv * bnorm(), dd = nv - b;
				lines.push(nv === 0 && bv > 0 ? "vanished: base " + fmt(bv) + " \u2192 0 (\u2212100.00%)" :
					bv === 0 && nv > 0 ? "new: base 0 \u2192 " + fmt(nv) :
					"base " + fmt(b) + " \u2192 " + fmt(nv) + " (" + (dd >= 0 ? "+" : "") + fmt(dd) +
						(b > 0 ? ", " + (dd >= 0 ? "+" : "") + pct(dd, b) : "") + ")");
			} else if (colSel) {
				var parts = [];
				for (c = 0; c < colSel.options.length; c++)
					if (colSel.options[c].value !== "")
						parts.push(colNames[c] + " " + fmtIn(c, V[c]));
				lines.push(parts.join(" \u00b7 "));
			}
			return lines;
		}
		function drawSandwich() {
			swg.textContent = "";
			if (state.sw < 0) {
				swg.setAttribute("display", "none");
				view.setAttribute("display", "inline");
				return;
			}
			view.setAttribute("display", "none");
			swg.setAttribute("display", "inline");
			var S = swLast = sandwich(state.sw), full = lay.Wpx - 2 * XPAD, tv = S.down.v[0] > S.up.v[0] ? S.down.v[0] : S.up.v[0];
			var sc = tv > 0 ? full / tv : 0;
			// Count the callers' rows first, so the function row sits below them.
			var probe = 0;
			(function depthOf(j, d) {
				if (S.up.v[j] * sc < MINPX)
					return;
				if (d > probe)
					probe = d;
				S.up.kids[j].forEach(function (c) {
					depthOf(c, d + 1);
				});
			})(0, 0);
			var y0 = swRow = lay.HH + lay.TH + 24 + probe * FH;
			var lab = el(NS, "text", { x: XPAD, y: lay.HH + lay.TH + 16, class: "swl" }, swg);
			// The caption fits the window: without its hint first, then with
			// the name cut in the middle (a phone: it ran 860 px past 400).
			var swName = names[state.sw], hint = "; Esc or Reset zoom to go back", len = Array.from(swName).length;
			function caption(k) {
				lab.textContent = "Callers of " + cut(swName, k) + " (above) and its callees (below)" + hint;
				return lab.getComputedTextLength() <= full;
			}
			if (!caption(len)) {
				hint = "";
				while (!caption(len) && len > 8)
					len = Math.max(8, Math.floor(len * 0.8));
			}
			drawHalf(S.up, y0, -1, sc);
			var rows = drawHalf(S.down, y0, 1, sc);
			lay.H = Math.max(lay.H, y0 + rows * FH + 16);
			svg.setAttribute("height", lay.H);
		}
		// The function's row, below its callers (drawSandwich).
		var swRow = 0;
		// Opens on the function's row: deep callers put it below the
		// window (cc1.prof's xcalloc at y 1100 of an 800 px window, the
		// callers' far end in sight). The top, and its caption, stay in
		// sight when the row fits there.
		function openSandwich(k) {
			state.sw = k;
			m.draw.draw();
			var h = window.innerHeight || 800;
			window.scrollTo(0, swRow + 2 * FH > h ? Math.max(0, swRow - lay.HH - 0.4 * (h - lay.HH)) : 0);
			m.draw.stick();
			m.events.saveHash();
		}
		function closeSandwich() {
			state.sw = -1;
			m.draw.draw();
			m.events.saveHash();
		}
		// The sandwich button: the selected frame's function, else the
		// current (or heaviest) match's, else the highlighted function's.
		function sandwichHere() {
			var k = -1;
			if (state.sel >= 0)
				k = nm[state.sel];
			else if (m.search.count())
				k = nm[m.search.matchOrder()[Math.max(0, state.mpos)]];
			else if (state.fn >= 0)
				k = state.fn;
			if (k >= 0)
				openSandwich(k);
			else
				showDetails(["Nothing to open a sandwich for: select a frame (arrow keys or a click), search, or use a row of Functions."]);
		}
		return { drawSandwich: drawSandwich, openSandwich: openSandwich, closeSandwich: closeSandwich,
			sandwichHere: sandwichHere,
			// The sandwich drawn last (its callers' and callees' trees).
			last: function () {
				return swLast;
			} };
	}
