// SPDX-License-Identifier: MIT
// flame-search.js: search and highlights, details, selection and zoom.
// One module of the page script (see flame-data.js).
// exports: hlOn, hlRange, runSearch, showCount, search, searchSoon, cancelSoon, matchOrder,
//   step, scrollTo, describe, showDetails, drawSel, select, setZoom, zoom, zoomMerged,
//   hit, count, sumAll, forget
// needs: data, lifetimes, draw, tables, events
	function fkSearch(m) {
		var { D, names, nametype, loc, fnOf, state, wc, nc, nt, fmt, pct, bnorm, DC, MINPX, XPAD, FH } = m.data;
		var { q, view, matched, details, selr, html, lay, viewRange, viewValue, shown, rowY, stick,
			drawThin } = m.draw;
		var n, depth, parent, nm, end, self, tot;
		m.data.onTree(function (t) {
			({ n, depth, parent, nm, end, self, tot } = t);
		});
		// ---- search and highlights ---------------------------------------
		// morder: the matches heaviest first (made on the first step).
		var hit = null, mlist = new Int32Array(0), morder = null, nmatch = 0, cum = null, sumAll = 0, sumView = 0;
		// Search state kept between keystrokes: names in lower case (made on
		// the first search), the last literal query and the names it hit, so
		// typing one more character tests only those names.
		var lowNames = null, lastQ = null, lastHits = null, mbuf = null, cbuf = null;
		function hlOn(j) {
			return hit !== null && hit[nm[j]] === 1;
		}
		function hlRange(a, b) {
			return cum !== null && cum[b] - cum[a] > 0;
		}
		function compile() {
			var s = state.query;
			q.classList.remove("bad");
			state.reErr = "";
			if (!s && state.fn < 0)
				return null;
			if (!s) {
				var f = state.fn;
				return function (x, k) {
					return k === f;
				};
			}
			if (state.regex) {
				try {
					var re = new RegExp(s, state.icase ? "i" : "");
					return function (x) {
						return re.test(x);
					};
				} catch (e) {
					q.classList.add("bad");
					state.reErr = String(e.message || e).replace(/^Invalid regular expression: /, "");
					return null;
				}
			}
			if (state.icase) {
				var lo = s.toLowerCase();
				return function (x) {
					return x.toLowerCase().indexOf(lo) >= 0;
				};
			}
			return function (x) {
				return x.indexOf(s) >= 0;
			};
		}
		function runSearch() {
			var test = compile(), t = wc(), u = nt(), j, covered = -1, any = 0;
			hit = null;
			cum = null;
			morder = null;
			sumAll = sumView = 0;
			nmatch = 0;
			if (test) {
				hit = new Uint8Array(names.length);
				var lit = !state.regex && state.query && state.fn < 0, key = state.icase ? "i" : "c";
				// Names a compared profile added: the lower-case copy again.
				if (lit && state.icase && (!lowNames || lowNames.length !== names.length))
					lowNames = names.map(function (x) {
						return x.toLowerCase();
					});
				var qs = state.icase ? state.query.toLowerCase() : state.query, src = state.icase ? lowNames : names;
				if (lit && lastQ !== null && lastQ.key === key && qs.indexOf(lastQ.q) >= 0) {
					// A longer query hits a subset of the names the shorter hit.
					var nh = [];
					for (var h = 0; h < lastHits.length; h++)
						if (src[lastHits[h]].indexOf(qs) >= 0) {
							hit[lastHits[h]] = 1;
							nh.push(lastHits[h]);
						}
					any = nh.length > 0;
					lastHits = nh;
				} else if (lit) {
					lastHits = [];
					for (j = 0; j < names.length; j++)
						if (src[j].indexOf(qs) >= 0) {
							hit[j] = 1;
							lastHits.push(j);
						}
					any = lastHits.length > 0;
				} else {
					for (j = 0; j < names.length; j++)
						if (test(names[j], j)) {
							hit[j] = 1;
							any = 1;
						}
				}
				lastQ = lit ? { q: qs, key: key } : null;
			}
			if (!any) {
				if (test)
					hit = hit || new Uint8Array(names.length);
				mlist = new Int32Array(0);
				cum = null;
				return;
			}
			if (!mbuf) {
				mbuf = new Int32Array(n);
				cbuf = new Int32Array(n + 1);
			}
			var buf = mbuf, c = cbuf;
			for (j = 0; j < n; j++) {
				c[j] = nmatch;
				if (!hit[nm[j]] || !(t[j] > 0))
					continue;
				buf[nmatch++] = j;
				// A frame inside a matching frame is counted once.
				if (j >= covered) {
					sumAll += u[j];
					covered = end[j];
				}
			}
			c[n] = nmatch;
			mlist = buf.subarray(0, nmatch);
			cum = c;
			viewSum();
		}
		// The matched share of the view: only the view's frames are read.
		function viewSum() {
			var r = viewRange(), t = wc(), u = nt(), j, va = state.ra >= 0 ? r.a : r.z, vb = r.b;
			sumView = 0;
			if (!cum)
				return;
			for (j = parent[r.z]; j >= 0; j = parent[j])
				if (hit[nm[j]]) {
					sumView = viewValue(u);
					return;
				}
			if (state.ra >= 0 && hit[nm[r.z]]) {
				sumView = viewValue(u);
				return;
			}
			for (j = va; j < vb;) {
				if (cum[end[j]] === cum[j]) {
					j = end[j];
				} else if (hit[nm[j]] && t[j] > 0) {
					sumView += u[j];
					j = end[j];
				} else {
					j++;
				}
			}
		}
		function showCount() {
			if (state.reErr) {
				matched.textContent = "not a regular expression: " + state.reErr;
				return;
			}
			if (hit === null) {
				matched.textContent = "";
				return;
			}
			// "N matches" until Enter goes to one; then "k of N".
			matched.textContent = (state.mpos >= 0 ? state.mpos + 1 + " of " + nmatch : nmatch + (nmatch === 1 ? " match" : " matches")) +
				" \u00b7 " + pct(sumAll, nt()[0]) + " of total \u00b7 " + pct(sumView, viewValue(nt())) + " of view";
		}
		function search(keep) {
			runSearch();
			if (!keep)
				state.mpos = -1;
			showCount();
			m.tables.drawTableBody();
			// Only the drawn frames change class: a few thousand at most.
			var k, g = view.children;
			drawThin();
			for (k = 0; k < g.length; k++) {
				var e = g[k], on;
				if (e.tagName === "path")
					continue;
				if (e.hasAttribute("data-i"))
					on = hlOn(+e.getAttribute("data-i"));
				else {
					var mb = m.draw.merged()[+e.getAttribute("data-m")];
					on = hlRange(mb.first, end[mb.last]);
				}
				e.classList.toggle("hl", on);
			}
			m.events.saveHash();
		}
		var qTimer = 0;
		function searchSoon() {
			clearTimeout(qTimer);
			qTimer = setTimeout(function () {
				state.query = q.value;
				search(false);
			}, 60);
		}
		// Goes to the next or previous match, zooming out or in as needed so
		// that it is drawn, and scrolls it into view.
		// The first is the heaviest match, then lighter ones (ties in tree
		// order): Enter shows what matters, not a 0.00 % frame.
		function matchOrder() {
			if (!morder) {
				var t = wc();
				morder = Int32Array.from(mlist).sort(function (a, b) {
					return t[b] - t[a] || a - b;
				});
			}
			return morder;
		}
		function step(dir) {
			if (!nmatch)
				return;
			if (state.mpos < 0 && dir < 0)
				state.mpos = 0;
			state.mpos = (state.mpos + dir + nmatch) % nmatch;
			var mt = matchOrder()[state.mpos];
			reveal(mt);
			select(mt);
			showCount();
		}
		function inView(j) {
			var r = viewRange();
			if (state.ra >= 0)
				return j >= r.a && j < r.b;
			return j >= r.z && j < end[r.z];
		}
		function reveal(mt) {
			if (!inView(mt) || !shown(mt)) {
				if (!shown(mt)) {
					var z = mt, t = wc();
					// The deepest ancestor in which mt is wide enough to draw.
					while (parent[z] >= 0 && t[mt] * (lay.Wpx - 2 * XPAD) / t[parent[z]] < MINPX)
						z = parent[z];
					z = parent[z] >= 0 ? parent[z] : z;
					if (t[mt] * (lay.Wpx - 2 * XPAD) / t[z] < MINPX)
						z = mt;
					setZoom(z, -1, -1, true);
				}
			}
			scrollTo(mt);
		}
		function scrollTo(j) {
			if (!shown(j))
				return;
			var y = rowY(depth[j]), top = window.scrollY || 0;
			if (y < top + lay.HH || y + FH > top + (window.innerHeight || 800))
				window.scrollTo(0, Math.max(0, y - lay.HH - 3 * FH));
			stick();
		}

		// ---- details, selection, zoom ------------------------------------
		// A frame's value, its share of the total and of the view (the
		// frames above the view hold all of it), and its self value, in
		// the numbers' column (a diff's new profile).
		function describe(j) {
			var t = nt(), v = t[j], lines = [], r = viewRange(), vv = viewValue(t);
			var part = inView(j) ? v : j <= r.z && r.z < end[j] ? vv : 0;
			// A frame of a source line: its function, then where.
			lines.push(nametype + " " + names[fnOf[nm[j]]]);
			if (loc[nm[j]])
				lines.push("at " + loc[nm[j]]);
			var s = fmt(v) + " \u2014 " + pct(v, t[0]) + " of total, " + pct(part, vv) + " of view; self " +
				fmt(self[nc()][j]);
			if (D.diff) {
				var nv = tot[DC.n][j], bv = tot[DC.b][j], b = bv * bnorm(), dd = nv - b;
				if (nv === 0 && bv > 0)
					s += "; vanished: base " + fmt(bv) + " \u2192 0 (\u2212100.00%)";
				else if (bv === 0 && nv > 0)
					s += "; new: base 0 \u2192 " + fmt(nv);
				else
					s += "; base " + fmt(b) + " \u2192 " + fmt(nv) + " (" + (dd >= 0 ? "+" : "") + fmt(dd) +
						(b > 0 ? ", " + (dd >= 0 ? "+" : "") + pct(dd, b) : "") + ")";
			}
			lines.push(s);
			return lines.concat(m.lifetimes.lines(j));
		}
		// A lifetimes page's details hold a histogram of 8 buckets: the
		// box keeps room for it (spilling over, it hid the whole graph of
		// fixtures/life/basic.life), its lines in a fixed-width font so
		// the bars line up.
		if (m.lifetimes.lines(0).length)
			details.classList.add("life");
		function showDetails(lines) {
			if (!lines.length)
				lines = m.lifetimes.overview();
			details.textContent = "";
			var box = html("div", { class: "box" }, details);
			lines.forEach(function (l, k) {
				html("div", { class: k ? "num" : "name" }, box, l);
			});
			if (!lines.length)
				details.textContent = "";
			else if (box.offsetHeight > details.clientHeight + 1)
				box.classList.add("long");
		}
		// The selection's outline; a frame too narrow to draw (the arrow
		// keys reach it) outlines the "(N more)" box it is drawn in.
		function drawSel() {
			var j = state.sel, x, w, d;
			if (shown(j)) {
				x = m.draw.x(j);
				w = m.draw.w(j);
				d = depth[j];
			} else {
				var mb = j > 0 ? m.draw.merged().filter(function (b) {
					return b.p === parent[j] && b.first <= j && j <= b.last;
				})[0] : null;
				if (!mb) {
					selr.setAttribute("display", "none");
					return;
				}
				x = mb.x;
				w = mb.w;
				d = mb.d;
			}
			selr.setAttribute("display", "inline");
			selr.setAttribute("x", x.toFixed(1));
			selr.setAttribute("y", rowY(d).toFixed(1));
			selr.setAttribute("width", w.toFixed(1));
			selr.setAttribute("height", FH > 1 ? FH - 1 : FH);
		}
		function select(j) {
			state.sel = j;
			drawSel();
			if (j >= 0)
				showDetails(describe(j));
			else
				showDetails([]);
			m.events.saveHash();
		}
		function setZoom(z, a, b, keepSearch) {
			state.zoom = z;
			state.ra = a;
			state.rb = b;
			viewSum();
			m.draw.draw();
			if (!keepSearch)
				state.mpos = -1;
			showCount();
			// The selection's share of the view changed with the view.
			if (state.sel >= 0)
				showDetails(describe(state.sel));
			m.events.saveHash();
		}
		function zoom(j) {
			setZoom(j, -1, -1, false);
		}
		function zoomMerged(mb) {
			setZoom(mb.p, mb.first, end[mb.last], false);
		}
		// The matches are frames of the tree searched: a new tree
		// (flame-invert.js) has none until the next search.
		function forget() {
			mbuf = cbuf = null;
			lastQ = null;
			cum = morder = null;
			mlist = new Int32Array(0);
			nmatch = 0;
		}
		return { hlOn: hlOn, hlRange: hlRange, runSearch: runSearch, showCount: showCount, search: search,
			searchSoon: searchSoon,
			cancelSoon: function () {
				clearTimeout(qTimer);
			},
			matchOrder: matchOrder, step: step, scrollTo: scrollTo, describe: describe, showDetails: showDetails,
			drawSel: drawSel, select: select, setZoom: setZoom, zoom: zoom, zoomMerged: zoomMerged,
			hit: function () {
				return hit;
			},
			count: function () {
				return nmatch;
			},
			sumAll: function () {
				return sumAll;
			},
			forget: forget };
	}
