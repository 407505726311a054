// SPDX-License-Identifier: MIT
// flame-invert.js: callers first (bottom-up), in the page: the tree turned
// over, the functions that hold memory at the root and their callers
// under them, built once from the page's own data for every column.
// One part of the page script: render/build.mk joins flame-*.js in
// order into one function scope (see flame-data.js).
	// ---- invert ---------------------------------------------------------
	// plain: the tree as render-flame wrote it; inverted: made on the
	// first switch. Each stack's self value goes to the end of its
	// reversed path, so a frame's total is what the stacks through that
	// (leaf-first) path hold, in every column at once.
	var plainTree = null, invTree = null, NBASE = self.length, tlAfterTree = null;
	function treeNow() {
		return orig || { n: n, depth: depth, parent: parent, nm: nm, end: end, self: self, tot: tot };
	}
	function buildInverted(P) {
		var N = P.n, C = NBASE, L = names.length, key = new Map(), ip = [-1], inm = [P.nm[0]], isf = [], c, j, a, node, x;
		for (c = 0; c < C; c++)
			isf.push([0]);
		for (j = 1; j < N; j++) {
			var any = false;
			for (c = 0; c < C; c++)
				if (P.self[c][j] !== 0)
					any = true;
			if (!any)
				continue;
			node = 0;
			for (a = j; a > 0; a = P.parent[a]) {
				var kk = node * L + P.nm[a];
				x = key.get(kk);
				if (x === undefined) {
					x = ip.length;
					key.set(kk, x);
					ip.push(node);
					inm.push(P.nm[a]);
					for (c = 0; c < C; c++)
						isf[c].push(0);
				}
				node = x;
			}
			for (c = 0; c < C; c++)
				isf[c][node] += P.self[c][j];
		}
		// Preorder, children in name order (the names are ranked).
		var M = ip.length, kids = new Array(M), T = { n: M, depth: new Int32Array(M), parent: new Int32Array(M), nm: new Int32Array(M),
			end: new Int32Array(M), self: [], tot: [] }, order = new Int32Array(M), pos = new Int32Array(M), st = [0], k = 0;
		for (j = 1; j < M; j++)
			(kids[ip[j]] = kids[ip[j]] || []).push(j);
		while (st.length) {
			j = st.pop();
			order[k++] = j;
			var ks = kids[j];
			if (ks) {
				ks.sort(function (p1, p2) {
					return names[inm[p1]] < names[inm[p2]] ? -1 : names[inm[p1]] > names[inm[p2]] ? 1 : 0;
				});
				for (a = ks.length - 1; a >= 0; a--)
					st.push(ks[a]);
			}
		}
		for (j = 0; j < M; j++)
			pos[order[j]] = j;
		for (j = 0; j < M; j++) {
			var o = order[j];
			T.nm[j] = inm[o];
			T.parent[j] = ip[o] >= 0 ? pos[ip[o]] : -1;
			T.depth[j] = j ? T.depth[T.parent[j]] + 1 : 0;
		}
		for (j = M - 1; j >= 0; j--) {
			if (!T.end[j])
				T.end[j] = j + 1;
			if (j && T.end[T.parent[j]] < T.end[j])
				T.end[T.parent[j]] = T.end[j];
		}
		for (c = 0; c < P.self.length; c++) {
			var sv = new Float64Array(M), tv;
			if (c < C)
				for (j = 0; j < M; j++)
					sv[j] = isf[c][order[j]];
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
		n = T.n;
		depth = T.depth;
		parent = T.parent;
		nm = T.nm;
		end = T.end;
		self = T.self;
		tot = T.tot;
		orig = atOrig = null;
		X = new Float64Array(n);
		Wd = new Float64Array(n);
		po = new Float64Array(n);
		drawn = new Int32Array(n);
		mbuf = cbuf = null;
		topRows = null;
		state.zoom = 0;
		state.ra = state.rb = -1;
		state.sel = -1;
		state.mpos = -1;
	}
	function setInvert(on, quiet) {
		if (!!on === state.inv)
			return;
		if (!plainTree)
			plainTree = treeNow();
		if (on && !invTree)
			invTree = buildInverted(plainTree);
		installTree(on ? invTree : plainTree);
		state.inv = !!on;
		if (tlAfterTree)
			tlAfterTree();
		if (state.weight) {
			reorder(true);
		} else if (!quiet) {
			runSearch();
			drawTable();
			setZoom(0, -1, -1, false);
			search(false);
		}
		if (!quiet)
			showDetails([]);
	}
