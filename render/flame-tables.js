// SPDX-License-Identifier: MIT
// flame-tables.js: the functions table, sort order, the sandwich view.
// One part of the page script: render/build.mk joins flame-*.js in
// order into one function scope (see flame-data.js).
	// ---- the functions table ------------------------------------------
	// Every function, in a scrolling table that draws only the rows in
	// sight (a big profile has tens of thousands); the search box filters
	// it; a header sorts by its column, a second click reverses. A diff
	// (or a timeline's growth) also has each function's change.
	var topSort = "", topDesc = true, topUser = false, topRows = null, topView = null, topTop = 0, TRH = 18, TROWS = 14;
	function hasChange() {
		return !!D.diff;
	}
	function computeTop() {
		var t = wc(), sf = self[state.col], L = names.length, ts = new Float64Array(L), ss = new Float64Array(L);
		var dc = hasChange(), tn = dc ? new Float64Array(L) : null, tb = dc ? new Float64Array(L) : null, TN = tot[dN], TB = tot[dB];
		var on = new Int32Array(L), st = new Int32Array(n + 1), sp = 0, j;
		for (j = 0; j < n; j++) {
			// Leave the frames whose subtree ended.
			while (sp && end[st[sp - 1]] <= j)
				on[nm[st[--sp]]]--;
			var k = nm[j];
			ss[k] += sf[j];
			// A function's total counts each stack once, however often
			// it recurs on it.
			if (!on[k]) {
				ts[k] += t[j];
				if (dc) {
					tn[k] += TN[j];
					tb[k] += TB[j];
				}
			}
			on[k]++;
			st[sp++] = j;
		}
		var rows = [], bn = dc ? bnorm() : 1;
		for (j = 0; j < L; j++)
			if ((ss[j] > 0 || ts[j] > 0) && (j !== nm[0] || ss[j] > 0))   // the root "all" is not a function
				rows.push({ k: j, self: ss[j], total: ts[j], change: dc ? tn[j] - tb[j] * bn : 0, base: dc ? tb[j] * bn : 0 });
		return rows;
	}
	function sortTop() {
		if (!topSort || topSort === "change" && !hasChange())
			topSort = hasChange() ? "change" : "self";
		var dir = topDesc ? 1 : -1;
		topRows.sort(function (a, b) {
			if (topSort === "name")
				return dir * (names[a.k] < names[b.k] ? 1 : names[a.k] > names[b.k] ? -1 : 0) || a.k - b.k;
			return dir * (b[topSort] - a[topSort]) || b.total - a.total || a.k - b.k;
		});
	}
	function topCols() {
		var c = [["self", "Self"], ["total", "Total"]];
		if (hasChange())
			c.push(["change", "Change"]);
		c.push(["name", "Function"]);
		return c;
	}
	function signed(v) {
		return (v > 0 ? "+" : v < 0 ? "\u2212" : "") + fmt(Math.abs(v));
	}
	var topN = null, topScroll = null, topPadA = null, topPadB = null, topBody = null;
	function drawTable() {
		tdiv.textContent = "";
		topBody = null;
		if (!state.table)
			return;
		if (!topRows) {
			topRows = computeTop();
			sortTop();
		}
		topN = html("div", { id: "topn" }, tdiv, "");
		topScroll = html("div", { id: "topscroll", tabindex: -1 }, tdiv);
		// Its height is that of the whole list (at most TROWS rows), so
		// that filtering never moves the graph.
		topScroll.style.height = (Math.min(TROWS, Math.max(1, topRows.length)) + 1) * TRH + 2 + "px";
		topPadA = html("div", {}, topScroll);
		var tb = html("table", { id: "top" }, topScroll), hr = html("tr", {}, html("thead", {}, tb));
		topPadB = html("div", {}, topScroll);
		topCols().forEach(function (c) {
			var on = topSort === c[0], asc = on && !topDesc;
			var th = html("th", { "data-sort": c[0], role: "columnheader", tabindex: 0, class: c[0] === "name" ? "" : "v",
				"aria-sort": on ? (asc ? "ascending" : "descending") : "none" }, hr, c[1] + (on ? (asc ? " \u25b4" : " \u25be") : ""));
			function sortBy() {
				// Numbers open largest first, names in order; again reverses.
				if (topSort === c[0])
					topDesc = !topDesc;
				else
					topDesc = c[0] !== "name";
				topSort = c[0];
				topUser = true;
				sortTop();
				drawTable();
				saveHash();
			}
			th.addEventListener("click", sortBy);
			th.addEventListener("keydown", function (ev) {
				if (ev.key === "Enter" || ev.key === " ") {
					ev.preventDefault();
					sortBy();
					var e = tdiv.querySelector('th[data-sort="' + c[0] + '"]');
					if (e)
						e.focus();
				}
			});
		});
		topBody = html("tbody", {}, tb);
		topScroll.addEventListener("scroll", function () {
			topTop = topScroll.scrollTop;
			drawTableBody(true);
		});
		topScroll.scrollTop = topTop;
		drawTableBody();
		topScroll.scrollTop = topTop;
	}
	// The rows in sight; keep: the same list, scrolled.
	function drawTableBody(keep) {
		if (!topBody)
			return;
		if (!keep || !topView) {
			var filt = state.query && hit !== null;
			topView = filt ? topRows.filter(function (r) {
				return hit[r.k] === 1;
			}) : topRows;
			topN.textContent = filt ? topView.length + " of " + topRows.length + " functions match the search" :
				topRows.length + " functions" + (topRows.length > TROWS ? " (scroll for all)" : "") +
				"; the button opens a function's callers and callees";
		}
		var V = topView, first = Math.max(0, Math.min(Math.floor(topScroll.scrollTop / TRH) - 4, V.length - TROWS - 4)),
			last = Math.min(V.length, first + TROWS + 10), t0 = wc()[0], dc = hasChange(), j;
		topPadA.style.height = first * TRH + "px";
		topPadB.style.height = (V.length - last) * TRH + "px";
		topBody.textContent = "";
		for (j = first; j < last; j++)
			topRow(V[j], t0, dc);
	}
	function topRow(r, t0, dc) {
		var tr = html("tr", { "data-k": r.k, tabindex: 0, class: r.k === state.fn ? "on" : "" }, topBody);
		html("td", { class: "v" }, tr, fmt(r.self) + " " + pct(r.self, t0));
		html("td", { class: "v" }, tr, fmt(r.total) + " " + pct(r.total, t0));
		if (dc)
			html("td", { class: "v" }, tr, signed(r.change) + (r.base > 0 ? " " + (r.change >= 0 ? "+" : "\u2212") + pct(Math.abs(r.change), r.base) :
				r.change > 0 ? " new" : ""));
		var td = html("td", { class: "fn", title: names[r.k] }, tr);
		var sb = html("button", { type: "button", class: "swb", title: "callers and callees of this function" }, td, "sandwich");
		td.appendChild(document.createTextNode(" " + names[r.k]));
		sb.addEventListener("click", function (ev) {
			ev.stopPropagation();
			openSandwich(r.k);
		});
		tr.addEventListener("click", function () {
			pickFunction(r.k);
		});
		tr.addEventListener("keydown", function (ev) {
			if (ev.key === "Enter" && ev.target === tr) {
				ev.preventDefault();
				pickFunction(r.k);
			} else if (ev.key === "s" && ev.target === tr) {
				ev.preventDefault();
				ev.stopPropagation();
				openSandwich(r.k);
			}
		});
	}
	// Highlights every frame of function k (the search box is cleared).
	function pickFunction(k) {
		state.fn = state.fn === k ? -1 : k;
		q.value = state.query = "";
		drawTable();
		draw();
		search(false);
		if (state.fn >= 0)
			showDetails([nametype + " " + names[k], "highlighted: " + nmatch + " frames, " + pct(sumAll, wc()[0]) + " of total"]);
	}
	function toggleTable() {
		state.table = !state.table;
		tableBtn.setAttribute("aria-pressed", String(state.table));
		drawTable();
		draw();
		saveHash();
	}

	// ---- sort order ---------------------------------------------------
	// The table comes in render-flame's order (--sort); "by weight" puts
	// every frame's heaviest child first. Reordering rebuilds the preorder
	// arrays; the zoomed and selected frames follow.
	var orig = null, atOrig = null;
	function reorder(weight) {
		if (!orig)
			orig = { n: n, depth: depth, parent: parent, nm: nm, end: end, self: self, tot: tot };
		var O = orig, t = O.tot[state.col], order = new Int32Array(n), st = new Int32Array(n + 1), sp = 0, k = 0, j, c;
		st[sp++] = 0;
		while (sp) {
			j = st[--sp];
			order[k++] = j;
			var kids = [];
			for (c = j + 1; c < O.end[j]; c = O.end[c])
				kids.push(c);
			if (weight)
				kids.sort(function (a, b) {
					return t[b] - t[a] || a - b;
				});
			for (c = kids.length - 1; c >= 0; c--)
				st[sp++] = kids[c];
		}
		var pos = new Int32Array(n), old = atOrig;
		for (j = 0; j < n; j++)
			pos[order[j]] = j;
		function map(i2) {
			return i2 < 0 ? i2 : pos[old ? old[i2] : i2];
		}
		var zo = map(state.zoom), so = map(state.sel), fo = state.ra >= 0;
		depth = new Int32Array(n);
		parent = new Int32Array(n);
		nm = new Int32Array(n);
		end = new Int32Array(n);
		for (j = 0; j < n; j++) {
			var o = order[j];
			depth[j] = O.depth[o];
			nm[j] = O.nm[o];
			parent[j] = O.parent[o] >= 0 ? pos[O.parent[o]] : -1;
			end[j] = j + O.end[o] - o;
		}
		self = O.self.map(function (a) {
			var b = new Float64Array(n);
			for (j = 0; j < n; j++)
				b[j] = a[order[j]];
			return b;
		});
		tot = O.tot.map(function (a) {
			var b = new Float64Array(n);
			for (j = 0; j < n; j++)
				b[j] = a[order[j]];
			return b;
		});
		atOrig = order;
		state.weight = weight;
		state.sel = so;
		state.ra = state.rb = -1;
		setZoom(fo ? zo : zo, -1, -1, false);
		runSearch();
		showCount();
		search(false);
	}

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
		var minv = sum > 0 ? sum * MINPX / (Wpx - 2 * XPAD) : 1;
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
			var chars = Math.floor((f[2] - 6) / CHW);
			if (chars >= 3) {
				var tx = el(NS, "text", { x: (f[1] + 3).toFixed(1), y: (y + FH / 2 + FS / 3).toFixed(1) }, g);
				tx.textContent = cut(names[T.nm[f[0]]], chars);
			}
			g.addEventListener("mousemove", function () {
				showDetails(swDescribe(T, f[0], dir));
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
		var v = T.v[j], V = swCols(T, j), lines = [nametype + " " + names[T.nm[j]]], c;
		lines.push(fmt(v) + " \u2014 " + pct(v, wc()[0]) + " of total" + (j === 0 ? ", the function itself (each stack once)" :
			dir < 0 ? ", through this caller" : ", in this callee"));
		if (D.diff) {
			var nv = V[dN], bv = V[dB], b = bv * bnorm(), dd = nv - b;
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
		var S = swLast = sandwich(state.sw), full = Wpx - 2 * XPAD, tv = S.down.v[0] > S.up.v[0] ? S.down.v[0] : S.up.v[0];
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
		var y0 = HH + TH + 24 + probe * FH;
		var lab = el(NS, "text", { x: XPAD, y: HH + TH + 16, class: "swl" }, swg);
		lab.textContent = "Callers of " + names[state.sw] + " (above) and its callees (below); Esc or Reset zoom to go back";
		drawHalf(S.up, y0, -1, sc);
		var rows = drawHalf(S.down, y0, 1, sc);
		H = Math.max(H, y0 + rows * FH + 16);
		svg.setAttribute("height", H);
	}
	function openSandwich(k) {
		state.sw = k;
		window.scrollTo(0, 0);
		draw();
		saveHash();
	}
	function closeSandwich() {
		state.sw = -1;
		draw();
		saveHash();
	}
	// The sandwich button: the selected frame's function, else the
	// current (or heaviest) match's, else the highlighted function's.
	function sandwichHere() {
		var k = -1;
		if (state.sel >= 0)
			k = nm[state.sel];
		else if (nmatch)
			k = nm[matchOrder()[Math.max(0, state.mpos)]];
		else if (state.fn >= 0)
			k = state.fn;
		if (k >= 0)
			openSandwich(k);
		else
			showDetails(["Nothing to open a sandwich for: select a frame (arrow keys or a click), search, or use a row of Functions."]);
	}
