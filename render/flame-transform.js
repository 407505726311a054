// SPDX-License-Identifier: MIT
// flame-transform.js: focus on a function, hide one, merge its instances,
// collapse recursion: a list of transforms, each applied to the tree the
// one before made, starting from the page's full tree, so every value
// stays exact. The list is in the URL (T=f12,h7: the op and the name's
// index) and each change a history entry; invert and the sort order work
// on the tree it gives.
// One module of the page script (see flame-data.js).
// exports: plain, hash, load, setOps, addOp, note, builder, base, setBase
// needs: data, draw, search, invert, events
	function fkTransform(m) {
		var { names, fnOf, state, fmt, pct } = m.data;
		var { html, hdr, details } = m.draw;
		// The page's tree as render-flame wrote it; the list of transforms
		// ({ t: "f" | "h" | "m" | "r" | "d", k: name }) and the tree they give.
		var base = m.data.tree(), ops = [], plainT = base;
		var WORDS = { f: "Focus on", h: "Hide", m: "Merge", r: "Collapse recursion of", d: "Collapse every direct recursion",
			L: "Merge source lines into functions" };

		// A tree made node by node: child(par, name) finds or makes a node
		// (by its parent and name, in an open-addressing table for at most
		// cap nodes); tree(ns) lays the nodes out in preorder, children in
		// the order they were first made, with ns[c][node] as the self
		// values of column c. A node with no value in any column goes,
		// unless keep0 marks it (a frame that had none: "main;idle 0").
		function builder(cap) {
			var tp = new Int32Array(cap), tn = new Int32Array(cap), M = 0, mask = 1;
			while (mask < 2 * cap)
				mask <<= 1;
			var slot = new Int32Array(mask).fill(-1);
			mask--;
			function child(par, name) {
				var h = (Math.imul(par, 0x9e3779b1) ^ Math.imul(name + 1, 0x85ebca6b)) >>> 0, c;
				for (h = (h ^ h >>> 15) & mask; (c = slot[h]) >= 0; h = (h + 1) & mask)
					if (tp[c] === par && tn[c] === name)
						return c;
				tp[M] = par;
				tn[M] = name;
				return (slot[h] = M++);
			}
			return { child: child, tp: tp, tn: tn,
				count: function () {
					return M;
				},
				tree: function (ns, keep0) {
					return layOut(M, tp, tn, ns, keep0);
				} };
		}
		// One transform of tree P: frame j of P goes to new node map[j], or
		// nowhere with its subtree (-1). The new nodes are made in P's
		// preorder, so a node's children keep the order they are first met.
		function apply1(P, op) {
			var N = P.n, k = op.k, C = P.self.length, j, x, p, y, c;
			var map = new Int32Array(N), kin = new Int32Array(N), B = builder(N), tn = B.tn;
			// The nearest node named k on the way to the root, itself included.
			function child(par, name) {
				var M = B.count(), z = B.child(par, name);
				if (z === M)
					kin[z] = name === k ? z : par >= 0 ? kin[par] : -1;
				return z;
			}
			// Focus: a frame stays when a k is on its path (through) or in
			// its subtree; its self value counts only through a k.
			var through = null;
			if (op.t === "f") {
				var under = new Uint8Array(N);
				through = new Uint8Array(N);
				for (j = N - 1; j >= 0; j--) {
					if (P.nm[j] === k)
						under[j] = 1;
					if (under[j] && j > 0)
						under[P.parent[j]] = 1;
				}
				for (j = 0; j < N; j++)
					through[j] = P.nm[j] === k || j > 0 && through[P.parent[j]] === 1 ? 1 : under[j] ? 2 : 0;
			}
			map[0] = child(-1, P.nm[0]);
			for (j = 1; j < N; j++) {
				p = map[P.parent[j]];
				x = op.t === "L" ? fnOf[P.nm[j]] : P.nm[j];
				if (p < 0 || through && !through[j])
					map[j] = -1;
				else if (op.t === "h" && x === k)
					map[j] = p;
				else if (op.t === "m" && x === k && kin[p] < 0)
					map[j] = child(0, x);
				else if (op.t === "r" && x === k && kin[p] >= 0)
					map[j] = kin[p];
				else if (op.t === "d" && x === tn[p])
					map[j] = p;
				else
					map[j] = child(p, x);
			}
			// Each node's values; one that had none in P stays.
			var ns = [], M = B.count(), keep0 = new Uint8Array(M);
			for (c = 0; c < C; c++) {
				var sv = new Float64Array(M), src = P.self[c];
				for (j = 0; j < N; j++)
					if ((y = map[j]) >= 0 && (!through || through[j] === 1))
						sv[y] += src[j];
				ns.push(sv);
			}
			for (j = 0; j < N; j++)
				if ((y = map[j]) >= 0 && P.tot.every(function (a) {
					return a[j] === 0;
				}))
					keep0[y] = 1;
			var T = B.tree(ns, keep0);
			T.ncol = P.ncol;
			return T;
		}
		// Lays out nodes 0..M (parents tp, names tn; node 0 the root, a
		// parent made before its children) in preorder: each kept node after
		// its parent and the subtrees of the siblings made before it.
		function layOut(M, tp, tn, ns, keep0) {
			var keep = new Uint8Array(M), C = ns.length, c, x, j;
			for (c = 0; c < C; c++) {
				var st = Float64Array.from(ns[c].subarray(0, M));
				for (x = M - 1; x > 0; x--)
					st[tp[x]] += st[x];
				for (x = 0; x < M; x++)
					if (st[x] !== 0 || keep0 && keep0[x])
						keep[x] = 1;
			}
			keep[0] = 1;
			for (x = M - 1; x > 0; x--)
				if (keep[x])
					keep[tp[x]] = 1;
			var size = new Int32Array(M), pos = new Int32Array(M), next = new Int32Array(M), K = 0;
			for (x = M - 1; x >= 0; x--)
				if (keep[x]) {
					size[x]++;
					K++;
					if (x)
						size[tp[x]] += size[x];
				}
			next[0] = 1;
			for (x = 1; x < M; x++)
				if (keep[x]) {
					pos[x] = next[tp[x]];
					next[tp[x]] += size[x];
					next[x] = pos[x] + 1;
				}
			var T = { n: K, depth: new Int32Array(K), parent: new Int32Array(K), nm: new Int32Array(K), end: new Int32Array(K),
				self: [], tot: [] };
			for (x = 0; x < M; x++)
				if (keep[x]) {
					j = pos[x];
					T.parent[j] = x ? pos[tp[x]] : -1;
					T.depth[j] = x ? T.depth[T.parent[j]] + 1 : 0;
					T.nm[j] = tn[x];
					T.end[j] = j + size[x];
				}
			for (c = 0; c < C; c++) {
				var sv = new Float64Array(K);
				for (x = 0; x < M; x++)
					if (keep[x])
						sv[pos[x]] = ns[c][x];
				var t = Float64Array.from(sv);
				for (j = K - 1; j > 0; j--)
					t[T.parent[j]] += t[j];
				T.self.push(sv);
				T.tot.push(t);
			}
			return T;
		}
		// The tree of the transforms, in render-flame's order (invert and
		// the sort order start from it).
		function plain() {
			return plainT;
		}
		// Puts a new list in place (quiet: the caller draws, as at start).
		function setOps(list, quiet) {
			ops = list.slice();
			plainT = ops.reduce(apply1, base);
			m.invert.rebuild(state.inv, quiet);
			chips();
			if (!quiet)
				m.events.saveHash();
		}
		// The function to transform: the selected frame's, or the one the
		// functions table highlights.
		function addOp(t) {
			var k = state.sel >= 0 ? m.data.tree().nm[state.sel] : state.fn;
			if (t !== "d" && t !== "L" && (k < 0 || state.sel === 0)) {
				m.search.showDetails(["Select a frame first (a click zooms and selects, the arrow keys select), then " +
					WORDS[t].toLowerCase() + " its function: f focus, h hide, m merge, r recursion."]);
				return;
			}
			setOps(ops.concat([{ t: t, k: t === "d" || t === "L" ? -1 : k }]));
		}
		// A focus shows part of the profile: how much of the whole.
		function note() {
			if (!ops.some(function (o) {
				return o.t === "f";
			}))
				return "";
			var all = base.tot[m.data.nc()][0], now = m.data.nt()[0];
			return " \u00b7 the focus shows " + fmt(now) + " (" + pct(now, all) + ") of " + fmt(all);
		}
		// The transforms as a row of chips, each one's button removes it.
		var row = html("div", { class: "row", id: "ops", role: "group", "aria-label": "transforms" }, hdr);
		hdr.insertBefore(row, details);
		function chips() {
			row.textContent = "";
			row.style.display = ops.length ? "" : "none";
			ops.forEach(function (o, i) {
				var b = html("button", { type: "button", class: "chip", "data-op": i, title: "remove this transform" }, row,
					WORDS[o.t] + (o.k >= 0 ? " " + names[o.k] : "") + " \u2715");
				b.addEventListener("click", function () {
					setOps(ops.slice(0, i).concat(ops.slice(i + 1)));
				});
			});
			if (ops.length)
				html("button", { type: "button", class: "chip", "data-op": "all", title: "remove every transform" }, row,
					"Remove all").addEventListener("click", function () {
					setOps([]);
				});
		}
		chips();
		// The list for the URL ("f12,h7,d"), and read from it.
		function opKey(o) {
			return o.t + (o.k >= 0 ? o.k : "");
		}
		function hash() {
			return ops.map(opKey).join(",");
		}
		function load(s) {
			var list = s.split(",").map(function (x) {
				var r = /^([fhmr])(\d+)$|^([dL])$/.exec(x);
				return r && (!r[2] || +r[2] < names.length) ? { t: r[1] || r[3], k: r[2] ? +r[2] : -1 } : null;
			}).filter(function (o) {
				return o;
			});
			if (list.map(opKey).join(",") !== hash())
				setOps(list, true);
		}
		return { plain: plain, hash: hash, load: load, setOps: setOps, addOp: addOp, note: note, builder: builder,
			base: function () {
				return base;
			},
			// A new full tree (a comparison, flame-compare.js): the
			// transforms again on it, and the page redrawn.
			setBase: function (T) {
				base = T;
				setOps(ops);
			} };
	}
