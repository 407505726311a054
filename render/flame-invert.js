// SPDX-License-Identifier: MIT
// flame-invert.js: callers first (bottom-up), in the page: the tree turned
// over, the functions that hold memory at the root and their callers
// under them, built once from the page's own data for every column.
// One module of the page script (see flame-data.js).
// exports: setInvert, rebuild
// needs: data, draw, search, tables, timeline, transform
	function fkInvert(m) {
		var { names, state } = m.data;
		// ---- invert ---------------------------------------------------------
		// plain: the tree as render-flame wrote it, after the transforms
		// (flame-transform.js); inverted: made from it on the first
		// switch. Each stack's self value goes to the end of its
		// reversed path, so a frame's total is what the stacks through that
		// (leaf-first) path hold, in every column at once.
		var invTree = null, invOf = null, NBASE = m.data.tree().self.length;
		// The nodes are found by (caller node, name) in an open-addressing
		// table of typed arrays, children put in name order by one counting
		// sort over the names' ranks: a Map and a sort of each child list
		// took 6.4 s on the 1.55M-frame bench page.
		// Built depth first: the stacks (one a frame with a self value) are a
		// range of perm, split in place by the name of each one's next caller
		// (a counting split over a table a name), children in name order, so
		// the nodes come out in preorder and nothing is hashed or sorted per
		// node: a Map of (node, name) and a sort of each child list took 6.4 s
		// on the 1.55M-frame bench page.
		function buildInverted(P) {
			// The columns the profile holds (a timeline's growth columns
			// are refilled after); a compared profile's are its own.
			var N = P.n, C = P.ncol || NBASE, L = names.length, j, c, S = 0;
			// The names' ranks: the built-in sort of strings, without a
			// comparator, is 5 times quicker than with one (60k names: 300 ms).
			var sorted = names.slice().sort(), rk = new Map(), rank = new Int32Array(L);
			for (j = 0; j < L; j++)
				if (!rk.has(sorted[j]))
					rk.set(sorted[j], j);
			for (j = 0; j < L; j++)
				rank[j] = rk.get(names[j]);
			sorted = rk = null;
			var sf = new Int32Array(N);
			for (j = 1; j < N; j++)
				for (c = 0; c < C; c++)
					if (P.self[c][j] !== 0) {
						sf[S++] = j;
						break;
					}
			var perm = new Int32Array(S), anc = new Int32Array(S), tmp = new Int32Array(S), term = new Int32Array(S);
			for (j = 0; j < S; j++) {
				perm[j] = j;
				anc[j] = sf[j];
			}
			var cap = Math.max(1024, N + (N >> 1)), M = 1, Pp = P.parent, Pn = P.nm;
			var tp = new Int32Array(cap), tn = new Int32Array(cap), td = new Int32Array(cap), slot = new Int32Array(L).fill(-1);
			tp[0] = -1;
			tn[0] = Pn[0];
			function node(par, name, d) {
				if (M === cap) {
					cap *= 2;
					var a1 = new Int32Array(cap), a2 = new Int32Array(cap), a3 = new Int32Array(cap);
					a1.set(tp);
					a2.set(tn);
					a3.set(td);
					tp = a1;
					tn = a2;
					td = a3;
				}
				tp[M] = par;
				tn[M] = name;
				td[M] = d;
				return M++;
			}
			(function split(x, lo, hi, d) {
				var i2, s2, a, b;
				// While every stack goes on to the same caller: one node, no
				// split.
				for (;;) {
					if (hi - lo === 1)
						break;
					a = anc[perm[lo]];
					if (a <= 0)
						break;
					var same = Pn[a];
					for (i2 = lo + 1; i2 < hi; i2++) {
						a = anc[perm[i2]];
						if (a <= 0 || Pn[a] !== same)
							break;
					}
					if (i2 < hi)
						break;
					for (i2 = lo; i2 < hi; i2++)
						anc[perm[i2]] = Pp[anc[perm[i2]]];
					x = node(x, same, ++d);
				}
				if (hi - lo === 1) {
					// One stack: its path, no grouping.
					s2 = perm[lo];
					for (a = anc[s2]; a > 0; a = Pp[a])
						x = node(x, Pn[a], ++d);
					term[s2] = x;
					return;
				}
				var keys = [], cnt = [];
				for (i2 = lo; i2 < hi; i2++) {
					s2 = perm[i2];
					a = anc[s2];
					if (a <= 0) {
						term[s2] = x;
						continue;
					}
					b = slot[Pn[a]];
					if (b < 0) {
						b = slot[Pn[a]] = keys.length;
						keys.push(Pn[a]);
						cnt.push(0);
					}
					cnt[b]++;
				}
				if (!keys.length)
					return;
				var ord = keys.map(function (k2, i3) {
					return i3;
				});
				if (ord.length > 1)
					ord.sort(function (p1, p2) {
						return rank[keys[p1]] - rank[keys[p2]];
					});
				var start = new Array(keys.length), pos2 = lo, fill = new Array(keys.length);
				for (b = 0; b < ord.length; b++) {
					start[ord[b]] = fill[ord[b]] = pos2;
					pos2 += cnt[ord[b]];
				}
				for (i2 = lo; i2 < hi; i2++) {
					s2 = perm[i2];
					a = anc[s2];
					if (a <= 0)
						tmp[pos2++] = s2;
					else
						tmp[fill[slot[Pn[a]]]++] = s2;
				}
				perm.set(tmp.subarray(lo, hi), lo);
				for (b = 0; b < keys.length; b++)
					slot[keys[b]] = -1;
				for (b = 0; b < ord.length; b++) {
					var kb = ord[b], s0 = start[kb], s1 = s0 + cnt[kb];
					for (i2 = s0; i2 < s1; i2++)
						anc[perm[i2]] = Pp[anc[perm[i2]]];
					split(node(x, keys[kb], d + 1), s0, s1, d + 1);
				}
			})(0, 0, S, 0);
			var T = { n: M, depth: td.slice(0, M), parent: tp.slice(0, M), nm: tn.slice(0, M), end: new Int32Array(M), self: [], tot: [] };
			for (j = M - 1; j >= 0; j--) {
				if (!T.end[j])
					T.end[j] = j + 1;
				if (j && T.end[T.parent[j]] < T.end[j])
					T.end[T.parent[j]] = T.end[j];
			}
			// Each column: a stack's self value at the end of its reversed path.
			for (c = 0; c < P.self.length; c++) {
				var sv = new Float64Array(M), tv, src = P.self[c];
				if (c < C)
					for (j = 0; j < S; j++)
						sv[term[j]] += src[sf[j]];
				tv = Float64Array.from(sv);
				for (j = M - 1; j > 0; j--)
					tv[T.parent[j]] += tv[j];
				T.self.push(sv);
				T.tot.push(tv);
			}
			return T;
		}
		// Puts tree T in place of the page's; zoom, selection and range go
		// (their frames are not in T), the search and the function stay.
		function installTree(T) {
			m.data.setTree(T);
			m.tables.newTree();
			m.draw.newTree();
			// The matches are frames of the old tree: until the next search, none.
			m.search.forget();
			state.zoom = 0;
			state.ra = state.rb = -1;
			state.sel = -1;
			state.mpos = -1;
		}
		function setInvert(on, quiet) {
			if (!!on !== state.inv)
				rebuild(on, quiet);
		}
		// Puts the tree of the transforms in place, inverted or not.
		function rebuild(on, quiet) {
			var P = m.transform.plain();
			if (on && invOf !== P) {
				invTree = buildInverted(P);
				invOf = P;
			}
			installTree(on ? invTree : P);
			state.inv = !!on;
			m.draw.drawLegend();
			m.timeline.afterTree();
			if (state.weight) {
				m.tables.reorder(true);
			} else if (!quiet) {
				m.search.runSearch();
				m.tables.drawTable();
				m.search.setZoom(0, -1, -1, false);
				m.search.search(false);
			}
			if (!quiet)
				m.search.showDetails([]);
		}
		return { setInvert: setInvert, rebuild: rebuild };
	}
