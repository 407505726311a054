// SPDX-License-Identifier: MIT
// flame-events.js: URL state, keyboard, events, start.
// One module of the page script (see flame-data.js); after the modules'
// functions, the code that makes them in order and starts the page.
// exports: saveHash, start, setCol0
// needs: data, draw, search, tables, sandwich, invert, transform, timeline
	function fkEvents(m) {
		var { D, names, state, svg, FH, pathOf, wc } = m.data;
		var { view, hov, hdr, reset, q, caseBox, reBox, prevBtn, nextBtn, matched, colSel, normBox,
			sortBtn, orientBtn, invBtn, tableBtn, swBtn, copyBtn, xformSel, drawLegend, lay, rowY, draw,
			frameAtPoint, shown } = m.draw;
		var { select, zoom, zoomMerged, step, search, describe, showDetails, scrollTo, setZoom,
			runSearch, searchSoon } = m.search;
		var { drawTable, toggleTable, reorder, pickFunction } = m.tables;
		var { sandwichHere, closeSandwich, openSandwich } = m.sandwich;
		var { setInvert } = m.invert;
		var { present: TL, count: tlN } = m.timeline;
		var n, depth, parent, nm, end, self, tot;
		m.data.onTree(function (t) {
			({ n, depth, parent, nm, end, self, tot } = t);
		});
		// The column the page opened on, and the state a URL without a key
		// means (start).
		var col0, defaults = null;
		// ---- URL state and history ----------------------------------------
		// What a Back undoes: every change of the view (zoom, range,
		// sandwich, column, order, orientation, invert, table ...) is an
		// entry of its own; a search, a selection, a highlighted function
		// and the table's sort replace the entry they are made in.
		var restoring = false, lastNav = null;
		function navKey(s) {
			return s.replace(/^#/, "").split("&").filter(function (kv) {
				return !/^(s|c|x|k|f|ts)=/.test(kv);
			}).join("&");
		}
		function saveHash() {
			var h = [], ops = m.transform.hash();
			if (ops)
				h.push("T=" + ops);
			if (state.zoom)
				h.push("z=" + state.zoom);
			if (state.ra >= 0)
				h.push("r=" + state.ra + "-" + state.rb);
			if (state.query)
				h.push("s=" + encodeURIComponent(state.query));
			if (state.query && !state.icase)
				h.push("c=1");
			if (state.query && state.regex)
				h.push("x=1");
			if (TL)
				m.timeline.hash(h);             // snapshots by id (flame-timeline.js)
			else if (state.col !== col0)
				h.push("v=" + state.col);
			if (state.weight)
				h.push("o=w");
			if (state.inv)
				h.push("i=1");
			if (state.up !== !D.inverted)
				h.push("u=" + (state.up ? "b" : "t"));
			if (normBox && state.normalize !== !!D.normalize)
				h.push("n=" + (state.normalize ? 1 : 0));
			if (state.table)
				h.push("t=1");
			var ts = m.tables.sortHash();
			if (ts)
				h.push(ts);
			if (state.sw >= 0)
				h.push("w=" + state.sw);
			if (state.fn >= 0)
				h.push("f=" + state.fn);
			if (state.sel >= 0)
				h.push("k=" + state.sel);
			var s = h.length ? "#" + h.join("&") : "";
			if (restoring || location.hash === s || !history.replaceState)
				return;
			if (navKey(s) !== lastNav && lastNav !== null)
				history.pushState(null, "", s || location.pathname + location.search);
			else
				history.replaceState(null, "", s || location.pathname + location.search);
			lastNav = navKey(s);
		}
		window.addEventListener("popstate", function () {
			apply(location.hash);
		});
		function loadHash(hash) {
			var h = hash.replace(/^#/, "").split("&"), j, r = null;
			for (j = 0; j < h.length; j++) {
				var kv = h[j].split("="), v = kv.slice(1).join("=");
				try {
					v = decodeURIComponent(v);
				} catch (e) {
					continue;
				}
				if (kv[0] === "z" && /^\d+$/.test(v) && +v < n)
					state.zoom = +v;
				else if (kv[0] === "r" && /^\d+-\d+$/.test(v))
					r = v.split("-").map(Number);
				else if (kv[0] === "s")
					state.query = v;
				else if (kv[0] === "c")
					state.icase = v !== "1";
				else if (kv[0] === "x")
					state.regex = v === "1";
				else if (kv[0] === "v" && /^\d+$/.test(v) && +v < (TL ? tlN : self.length))
					state.col = +v;
				else if (kv[0] === "o")
					state.weight = v === "w";
				else if (kv[0] === "u")
					state.up = v === "b";
				else if (kv[0] === "n" && normBox)
					state.normalize = v === "1";
				else if (kv[0] === "t")
					state.table = v === "1";
				else if (kv[0] === "ts" && /^(self|total|change|name)(-a)?$/.test(v))
					m.tables.loadSort(v);
				else if (kv[0] === "w" && /^\d+$/.test(v) && +v < names.length)
					state.sw = +v;
				else if (kv[0] === "f" && /^\d+$/.test(v) && +v < names.length)
					state.fn = +v;
				else if (kv[0] === "k" && /^\d+$/.test(v) && +v < n)
					state.sel = +v;
				else if (kv[0] === "T")
					continue;               // read first, by apply()
				else if (TL && (kv[0] === "p" || kv[0] === "g"))
					m.timeline.unhash(kv[0], v);
			}
			// A merged range must be a run of the zoomed frame's children.
			if (r && r[0] > state.zoom && r[0] < r[1] && r[1] <= end[state.zoom] && parent[r[0]] === state.zoom &&
			    (r[1] === end[state.zoom] || parent[r[1]] === state.zoom)) {
				state.ra = r[0];
				state.rb = r[1];
			}
		}

		// ---- keyboard helpers ---------------------------------------------
		// Siblings and children with a value: zero-width frames are skipped.
		function nextSib(j, dir) {
			var p = parent[j], t = wc(), k, best = -1;
			if (p < 0)
				return -1;
			if (dir > 0) {
				for (k = end[j]; k < end[p]; k = end[k])
					if (t[k] > 0)
						return k;
				return -1;
			}
			for (k = p + 1; k < j; k = end[k])
				if (t[k] > 0)
					best = k;
			return best;
		}
		// Down goes to the heaviest child (the first of equals): the first
		// by name was most often too narrow to draw (on cc1.prof, from
		// main down, a 0.01% frame no outline showed).
		function heaviestChild(j) {
			var t = wc(), k, best = -1;
			for (k = j + 1; k < end[j]; k = end[k])
				if (t[k] > 0 && (best < 0 || t[k] > t[best]))
					best = k;
			return best;
		}
		function copyPath(j) {
			// Nothing selected: the zoomed frame's stack, if any.
			if (j < 0 && state.zoom > 0)
				j = state.zoom;
			if (j < 0 || j === 0) {
				showDetails(["Nothing to copy: select a frame under the root (a click or the arrow keys), then Copy stack (c) copies its stack."]);
				return;
			}
			var s = pathOf(j);
			function done() {
				showDetails(["Copied the stack of " + names[nm[j]]]);
			}
			if (navigator.clipboard && navigator.clipboard.writeText)
				navigator.clipboard.writeText(s).then(done, function () {
					showDetails([s]);
				});
			else
				showDetails([s]);
			window.fkLastCopied = s;
		}

		// ---- events -------------------------------------------------------
		function frameAt(e, ev) {
			while (e && e.parentNode !== view)
				e = e.parentNode;
			if (!e)
				return null;
			if (e.tagName === "path") {
				var b = svg.getBoundingClientRect();
				return frameAtPoint(ev.clientX - b.left, ev.clientY - b.top);
			}
			if (e.hasAttribute("data-m"))
				return { m: m.draw.merged()[+e.getAttribute("data-m")] };
			return { i: +e.getAttribute("data-i") };
		}
		function outline(f) {
			if (!f || !(f.m || shown(f.i))) {
				hov.setAttribute("display", "none");
				return;
			}
			var x = f.m ? f.m.x : m.draw.x(f.i), w = f.m ? f.m.w : m.draw.w(f.i), d = f.m ? f.m.d : depth[f.i];
			hov.setAttribute("display", "inline");
			hov.setAttribute("x", x.toFixed(1));
			hov.setAttribute("y", rowY(d).toFixed(1));
			hov.setAttribute("width", w.toFixed(1));
			hov.setAttribute("height", FH > 1 ? FH - 1 : FH);
		}
		view.addEventListener("mousemove", function (ev) {
			var f = frameAt(ev.target, ev);
			outline(f);
			if (f && f.m)
				showDetails(["(" + f.m.count + " more) under " + names[nm[f.m.p]], "frames too narrow to draw one by one: click to zoom into them"]);
			else if (f)
				showDetails(describe(f.i));
		});
		view.addEventListener("mouseleave", function () {
			outline(null);
			if (state.sel >= 0)
				showDetails(describe(state.sel));
		});
		view.addEventListener("click", function (ev) {
			var f = frameAt(ev.target, ev);
			if (f && f.m)
				zoomMerged(f.m);
			else if (f) {
				state.sel = f.i;
				zoom(f.i);
				select(f.i);
			}
		});
		reset.addEventListener("click", function () {
			state.sw = -1;
			zoom(0);
		});
		swBtn.addEventListener("click", sandwichHere);
		invBtn.addEventListener("click", function () {
			setInvert(!state.inv);
		});
		copyBtn.addEventListener("click", function () {
			copyPath(state.sel);
		});
		var XF = { focus: "f", hide: "h", merge: "m", rec: "r", direct: "d", lines: "L" };
		xformSel.addEventListener("change", function () {
			var t = XF[xformSel.value];
			xformSel.value = "";
			if (t)
				m.transform.addOp(t);
		});
		prevBtn.addEventListener("click", function () {
			step(-1);
		});
		nextBtn.addEventListener("click", function () {
			step(1);
		});
		tableBtn.addEventListener("click", toggleTable);
		sortBtn.addEventListener("click", function () {
			reorder(!state.weight);
		});
		orientBtn.addEventListener("click", function () {
			state.up = !state.up;
			draw();
			rootInSight();
			saveHash();
		});
		// Root at the bottom of a graph taller than the window: scroll to
		// it (python3.11-live.prof's 1467 px page opened on the tips of
		// one tower). A timeline keeps its chart, at the top, in sight.
		function rootInSight() {
			if (TL)
				return;
			window.scrollTo(0, state.up ? Math.max(0, lay.H - (window.innerHeight || 800)) : 0);
			m.draw.stick();
		}
		q.addEventListener("input", function () {
			state.fn = -1;
			searchSoon();
		});
		caseBox.addEventListener("change", function () {
			state.icase = !caseBox.checked;
			search(false);
		});
		reBox.addEventListener("change", function () {
			state.regex = reBox.checked;
			search(false);
		});
		if (colSel)
			colSel.addEventListener("change", function () {
				state.col = +colSel.value;
				m.tables.forget();
				drawLegend();
				runSearch();
				drawTable();
				setZoom(state.zoom, -1, -1, false);
			});
		if (normBox)
			normBox.addEventListener("change", function () {
				state.normalize = normBox.checked;
				m.tables.forget();
				drawLegend();
				drawTable();
				draw();
				saveHash();
			});
		q.addEventListener("keydown", function (ev) {
			if (ev.key === "Enter") {
				m.search.cancelSoon();
				if (state.query !== q.value) {
					state.query = q.value;
					search(false);
				}
				step(ev.shiftKey ? -1 : 1);
				ev.preventDefault();
			}
		});
		document.addEventListener("keydown", function (ev) {
			var inInput = ev.target === q;
			if ((ev.ctrlKey || ev.metaKey) && ev.key === "f" || ev.key === "F3") {
				ev.preventDefault();
				if (ev.key === "F3" && m.search.count()) {
					step(ev.shiftKey ? -1 : 1);
					return;
				}
				q.focus();
				q.select();
				return;
			}
			if (ev.key === "Escape") {
				if (state.sw >= 0) {
					closeSandwich();
					return;
				}
				if (state.sel >= 0)
					select(-1);
				if (state.query || state.fn >= 0) {
					q.value = state.query = "";
					state.fn = -1;
					drawTable();
					search(false);
				} else if (state.zoom || state.ra >= 0) {
					zoom(0);
				}
				q.blur();
				return;
			}
			// Enter is a control's own, except on a check box (which has no
			// use for it: after Tab to "Aa", the arrows selected frames and
			// Enter did nothing).
			if (inInput || (ev.target && ev.target.tagName && /^(INPUT|SELECT|BUTTON|TH|TR)$/i.test(ev.target.tagName) &&
			    ev.target.type !== "checkbox" && ev.key === "Enter"))
				return;
			var s = state.sel, t = -1;
			if (s < 0 && /^Arrow/.test(ev.key)) {
				select(state.zoom);
				ev.preventDefault();
				return;
			}
			var deeper = state.up ? "ArrowUp" : "ArrowDown", shallower = state.up ? "ArrowDown" : "ArrowUp";
			if (ev.key === deeper)
				t = heaviestChild(s);
			else if (ev.key === shallower)
				t = parent[s];
			else if (ev.key === "ArrowLeft")
				t = nextSib(s, -1);
			else if (ev.key === "ArrowRight")
				t = nextSib(s, 1);
			else if (ev.key === "Enter" && s >= 0) {
				zoom(s);
				select(s);
				ev.preventDefault();
				return;
			} else if (ev.key === "c") {
				copyPath(s);
				return;
			} else if (/^[fhmr]$/.test(ev.key) && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
				m.transform.addOp(ev.key);
				return;
			} else if (ev.key === "s" && !ev.ctrlKey && !ev.metaKey && !ev.altKey) {
				sandwichHere();
				return;
			} else {
				return;
			}
			ev.preventDefault();
			// Select without zooming; a frame too narrow to draw is still
			// described in the details panel.
			if (t >= 0) {
				select(t);
				scrollTo(t);
			}
		});
		var rsTimer = 0;
		window.addEventListener("resize", function () {
			clearTimeout(rsTimer);
			rsTimer = setTimeout(draw, 50);
		});
		// The header's height can change after a draw (a legend or a column
		// name that wraps, a font that arrives late): lay out again, so that
		// nothing lies under it. The details panel has a fixed height, so
		// hovering never moves the frames.
		if (window.ResizeObserver)
			new ResizeObserver(function () {
				if (lay.Wpx && Math.ceil(hdr.getBoundingClientRect().height) + 4 !== lay.HH) {
					// Root at the bottom: the frames in sight stay in sight.
					var hh = lay.HH;
					draw();
					if (state.up && !TL)
						window.scrollBy(0, lay.HH - hh);
				}
			}).observe(hdr);

		// ---- start --------------------------------------------------------
		// Indices in the URL are those of its tree and sort order: invert
		// and reorder first.
		// Puts the page in the state of a URL's fragment: at start, and
		// when Back or Forward comes to another entry.
		function apply(hash0) {
			restoring = true;
			var inv = /(^#|&)i=1(&|$)/.test(hash0), wt = /(^#|&)o=w(&|$)/.test(hash0);
			var ops = /(?:^#|&)T=([^&]*)/.exec(hash0);
			Object.keys(defaults).forEach(function (k) {
				state[k] = defaults[k];
			});
			m.transform.load(ops ? ops[1] : "");
			if (inv !== state.inv)
				setInvert(inv, true);
			if (wt !== !!state.weight)
				reorder(wt);
			loadHash(hash0);
			tableBtn.setAttribute("aria-pressed", String(state.table));
			m.tables.forget();
			drawTable();
			if (TL)
				m.timeline.restore();
			q.value = state.query;
			caseBox.checked = !state.icase;
			reBox.checked = state.regex;
			if (colSel)
				colSel.value = state.col;
			if (normBox)
				normBox.checked = state.normalize;
			drawLegend();
			runSearch();
			draw();
			rootInSight();
			search(false);
			if (state.sel >= 0)
				select(state.sel);
			else
				showDetails([]);
			if (!(tot[0][0] > 0) && !(D.diff && tot[1][0] > 0))
				showDetails(["No stack has a value."]);
			restoring = false;
			lastNav = navKey(location.hash);
		}
		function start() {
			col0 = state.col;
			defaults = { zoom: 0, ra: -1, rb: -1, query: "", icase: true, regex: false, col: col0, up: state.up, sel: -1,
				fn: -1, mpos: -1, normalize: state.normalize, table: false, sw: -1 };
			apply(location.hash);
			window.fk = {
				state: state, names: names, timeline: m.timeline.api,
				get n() {
					return n;
				},
				zoom: zoom,
				select: select,
				invert: setInvert,
				// Transform t (flame-transform.js's letters) of frame k's
				// function; none: remove every transform.
				transform: function (t, k) {
					if (!t)
						return m.transform.setOps([]);
					state.sel = k;
					m.transform.addOp(t);
				},
				name: function (j) {
					return names[nm[j]];
				},
				value: function (j) {
					return wc()[j];
				},
				parent: function (j) {
					return parent[j];
				},
				// The first frame with this name, in preorder (-1: none).
				find: function (s) {
					for (var j = 0; j < n; j++)
						if (names[nm[j]] === s)
							return j;
					return -1;
				},
				el: function (j) {
					return view.querySelector('[data-i="' + j + '"]');
				},
				rect: function (j) {
					var e = view.querySelector('[data-i="' + j + '"]');
					return e && e.tagName === "g" ? e.firstChild : e;
				},
				geom: function (j) {
					return { x: m.draw.x(j), w: m.draw.w(j), y: rowY(depth[j]), shown: shown(j) };
				},
				merged: function () {
					return m.draw.merged().map(function (mb) {
						return { p: mb.p, first: mb.first, last: mb.last, count: mb.count, x: mb.x, w: mb.w, y: rowY(mb.d) };
					});
				},
				drawnCount: function () {
					return m.draw.drawnCount();
				},
				search: function (s, o) {
					o = o || {};
					q.value = state.query = s;
					state.fn = -1;
					state.icase = !o.cs;
					state.regex = !!o.re;
					caseBox.checked = !!o.cs;
					reBox.checked = !!o.re;
					search(false);
					return matched.textContent;
				},
				top: function () {
					if (!state.table)
						toggleTable();
					return m.tables.rows().slice(0, 50).map(function (r) {
						return { name: names[r.k], self: r.self, total: r.total };
					});
				},
				pick: pickFunction,
				sort: reorder,
				sandwich: function (s) {
					var k = names.indexOf(s), S;
					if (k < 0)
						return null;
					openSandwich(k);
					S = m.sandwich.last();
					function flat(T) {
						return T.nm.map(function (x, j) {
							return { name: names[x], parent: T.p[j], value: T.v[j] };
						});
					}
					return { callers: flat(S.up), callees: flat(S.down) };
				},
				step: step,
				col: function (c) {
					state.col = c;
					if (colSel)
						colSel.value = c;
					m.tables.forget();
					drawLegend();
					runSearch();
					drawTable();
					setZoom(state.zoom, -1, -1, false);
				}
			};
		}
		return { saveHash: saveHash, start: start,
			// The column a URL without v= means (a comparison's, flame-compare.js).
			setCol0: function (c) {
				col0 = defaults.col = c;
			} };
	}
	// The modules, made in the order of their files; then the page starts.
	var m = {};
	m.data = fkData(m);
	m.lifetimes = fkLifetimes(m);
	m.draw = fkDraw(m);
	m.search = fkSearch(m);
	m.tables = fkTables(m);
	m.sandwich = fkSandwich(m);
	m.invert = fkInvert(m);
	m.transform = fkTransform(m);
	m.compare = fkCompare(m);
	m.export = fkExport(m);
	m.timeline = fkTimeline(m);
	m.events = fkEvents(m);
	m.events.start();
})();
