// SPDX-License-Identifier: MIT
// flame-tables.js: the functions table and the sort order of the tree.
// One module of the page script (see flame-data.js).
// exports: drawTable, drawTableBody, pickFunction, toggleTable, reorder, forget, newTree,
//   sortHash, loadSort, rows
// needs: data, draw, search, sandwich, timeline, events
	function fkTables(m) {
		var { D, names, nametype, loc, fnOf, state, nc, nt, fmt, pct, bnorm, DC } = m.data;
		var { html, tdiv, tableBtn, q } = m.draw;
		var n, depth, parent, nm, end, self, tot;
		m.data.onTree(function (t) {
			({ n, depth, parent, nm, end, self, tot } = t);
		});
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
			var t = nt(), sf = self[nc()], L = names.length, ts = new Float64Array(L), ss = new Float64Array(L);
			var dc = hasChange(), tn = dc ? new Float64Array(L) : null, tb = dc ? new Float64Array(L) : null, TN = tot[DC.n], TB = tot[DC.b];
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
				if ((ss[j] > 0 || ts[j] > 0 || dc && tb[j] > 0) && (j !== nm[0] || ss[j] > 0))   // the root "all" is not a function
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
			var tb = html("table", { id: "top", class: hasChange() ? "dc" : "" }, topScroll), hr = html("tr", {}, html("thead", {}, tb));
			topPadB = html("div", {}, topScroll);
			topCols().forEach(function (c) {
				var on = topSort === c[0], asc = on && !topDesc;
				var th = html("th", { "data-sort": c[0], role: "columnheader", tabindex: 0, class: c[0] === "name" ? "" : c[0] === "change" ? "v ch" : "v",
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
					m.events.saveHash();
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
			// A new tree (invert) forgot the rows: the table is made again.
			if (!topRows)
				return drawTable();
			if (!keep || !topView) {
				var hit = m.search.hit(), filt = state.query && hit !== null;
				topView = filt ? topRows.filter(function (r) {
					return hit[r.k] === 1;
				}) : topRows;
				topN.textContent = filt ? topView.length + " of " + topRows.length + " functions match the search" :
					topRows.length + " functions" + (topRows.length > TROWS ? " (scroll for all)" : "") +
					"; the button opens a function's callers and callees";
			}
			var V = topView, first = Math.max(0, Math.min(Math.floor(topScroll.scrollTop / TRH) - 4, V.length - TROWS - 4)),
				last = Math.min(V.length, first + TROWS + 10), t0 = nt()[0], dc = hasChange(), j;
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
			// A source line's function, then its file and line apart.
			td.appendChild(document.createTextNode(" "));
			html("span", { class: "fnn" }, td, names[fnOf[r.k]]);
			if (loc[r.k])
				html("span", { class: "loc" }, td, loc[r.k]);
			sb.addEventListener("click", function (ev) {
				ev.stopPropagation();
				m.sandwich.openSandwich(r.k);
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
					m.sandwich.openSandwich(r.k);
				}
			});
		}
		// Highlights every frame of function k (the search box is cleared).
		function pickFunction(k) {
			state.fn = state.fn === k ? -1 : k;
			q.value = state.query = "";
			drawTable();
			m.draw.draw();
			m.search.search(false);
			if (state.fn >= 0)
				m.search.showDetails([nametype + " " + names[k], "highlighted: " + m.search.count() + " frames, " +
					pct(m.search.sumAll(), nt()[0]) + " of total"]);
		}
		function toggleTable() {
			state.table = !state.table;
			tableBtn.setAttribute("aria-pressed", String(state.table));
			drawTable();
			m.draw.draw();
			m.events.saveHash();
		}

		// ---- sort order ---------------------------------------------------
		// The table comes in render-flame's order (--sort); "by weight" puts
		// every frame's heaviest child first. Reordering rebuilds the preorder
		// arrays; the zoomed and selected frames follow.
		var orig = null, atOrig = null;
		function reorder(weight) {
			if (!orig)
				orig = m.data.tree();
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
			var nd = new Int32Array(n), np = new Int32Array(n), nn = new Int32Array(n), ne = new Int32Array(n);
			for (j = 0; j < n; j++) {
				var o = order[j];
				nd[j] = O.depth[o];
				nn[j] = O.nm[o];
				np[j] = O.parent[o] >= 0 ? pos[O.parent[o]] : -1;
				ne[j] = j + O.end[o] - o;
			}
			var ns = O.self.map(function (a) {
				var b = new Float64Array(n);
				for (j = 0; j < n; j++)
					b[j] = a[order[j]];
				return b;
			});
			var nt = O.tot.map(function (a) {
				var b = new Float64Array(n);
				for (j = 0; j < n; j++)
					b[j] = a[order[j]];
				return b;
			});
			m.data.setTree({ n: n, depth: nd, parent: np, nm: nn, end: ne, self: ns, tot: nt });
			atOrig = order;
			state.weight = weight;
			state.sel = so;
			state.ra = state.rb = -1;
			m.search.setZoom(fo ? zo : zo, -1, -1, false);
			m.search.runSearch();
			m.search.showCount();
			m.search.search(false);
			// A timeline refills its growth columns in the new order.
			m.timeline.afterReorder();
		}
		// A new tree (flame-invert.js) has its own functions and order.
		function newTree() {
			orig = atOrig = null;
			topRows = null;
		}
		return { drawTable: drawTable, drawTableBody: drawTableBody, pickFunction: pickFunction, toggleTable: toggleTable,
			reorder: reorder,
			// The rows are made again when next drawn (a new column, or
			// normalizing).
			forget: function () {
				topRows = null;
			},
			newTree: newTree,
			// The table's sort in the URL (ts=KEY, ts=KEY-a ascending),
			// once a person chose one.
			sortHash: function () {
				return topSort && topUser ? "ts=" + topSort + (topDesc ? "" : "-a") : "";
			},
			loadSort: function (v) {
				topSort = v.replace(/-a$/, "");
				topDesc = !/-a$/.test(v);
				topUser = true;
			},
			rows: function () {
				if (!topRows) {
					topRows = computeTop();
					sortTop();
				}
				return topRows;
			} };
	}
