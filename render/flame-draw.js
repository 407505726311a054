// SPDX-License-Identifier: MIT
// flame-draw.js: the page skeleton, layout at the window's width, drawing the visible frames.
// One module of the page script (see flame-data.js).
// exports: el, html, view, selr, hov, tfo, tdiv, hdr, details, reset, q, caseBox, reBox,
//   prevBtn, nextBtn, matched, colSel, normBox, sortBtn, orientBtn, invBtn, tableBtn, swBtn,
//   copyBtn, xformSel, cmpFile, fileSel, drawLegend, lay, viewRange, viewValue, rowY, draw, drawThin, frameAtPoint,
//   stick, shown, x, w, merged, drawnCount, newTree
// needs: data, lifetimes, search, sandwich, timeline, transform
	function fkDraw(m) {
		var { NS, XNS, svg, D, names, info, hasLines, colNames, state, DC, FH, FS, CHW, XPAD, MINPX, wc, fmt, fmtIn, fmtBytes,
			cls, cut } = m.data;
		var n, depth, parent, nm, end, self;
		m.data.onTree(function (t) {
			({ n, depth, parent, nm, end, self } = t);
		});
		// ---- page skeleton ------------------------------------------------
		function el(ns, tag, attrs, parentEl) {
			var e = document.createElementNS(ns, tag);
			for (var a in attrs)
				e.setAttribute(a, attrs[a]);
			if (parentEl)
				parentEl.appendChild(e);
			return e;
		}
		function html(tag, attrs, parentEl, text) {
			var e = el(XNS, tag, attrs, parentEl);
			if (text !== undefined)
				e.textContent = text;
			return e;
		}
		var titleText = (document.getElementById("title") || {}).textContent || "";
		var subText = (document.getElementById("subtitle") || {}).textContent || "";
		// The drawing made without script goes; the script draws its own.
		["frames", "title", "subtitle", "details", "matched", "legend", "empty"].forEach(function (id) {
			var e = document.getElementById(id);
			if (e)
				e.parentNode.removeChild(e);
		});
		svg.removeAttribute("viewBox");
		svg.setAttribute("class", (svg.getAttribute("class") || "") + " live");
		var view = el(NS, "g", { id: "view", role: "group", "aria-label": "flame graph" }, svg);
		var selr = el(NS, "rect", { id: "selr", display: "none" }, svg);
		var hov = el(NS, "rect", { id: "hov", display: "none" }, svg);
		var tfo = el(NS, "foreignObject", { id: "tablefo", x: 0, y: 0, width: 10, height: 0, class: "fkui" }, svg);
		var tdiv = html("div", { id: "toptable", role: "region", "aria-label": "functions" }, tfo);
		var hfo = el(NS, "foreignObject", { id: "hdr", x: 0, y: 0, width: 10, height: 10, class: "fkui" }, svg);
		var hdr = html("div", { class: "hdr" }, hfo);
		var r1 = html("div", { class: "row" }, hdr);
		html("span", { id: "ttl" }, r1, titleText);
		if (subText)
			html("span", { id: "sub" }, r1, subText);
		// The total and where the profile comes from, on the first screen.
		var r2 = html("div", { class: "row", id: "inforow" }, hdr);
		var totalEl = html("span", { id: "total" }, r2, "");
		var originText = origin();
		if (originText)
			html("span", { id: "origin" }, r2, originText);
		// The hook's live page links to its waste page (an info line
		// "waste=PATH"): a path on the same server only.
		if (/^\/[^\/]/.test(info.waste || ""))
			html("a", { id: "wastelink", href: info.waste, title: "where the rest of RSS goes: slab holes and page waste, by allocation site" },
				r2, "waste by site");
		var bar = html("div", { class: "row", role: "toolbar", "aria-label": "flame graph controls" }, hdr);
		var reset = html("button", { id: "reset", type: "button", title: "show the whole graph (Esc)" }, bar, "Reset zoom");
		var q = html("input", { id: "q", type: "search", placeholder: "Search (Ctrl-F)", spellcheck: "false",
			"aria-label": "search frame names" }, bar);
		function check(id, text, title) {
			var l = html("label", { title: title }, bar);
			var b = html("input", { id: id, type: "checkbox" }, l);
			l.appendChild(document.createTextNode(text));
			return b;
		}
		var caseBox = check("case", "Aa", "case sensitive");
		var reBox = check("re", ".*", "regular expression (default: the text as typed)");
		var prevBtn = html("button", { id: "prev", type: "button", title: "previous match (Shift-Enter)", "aria-label": "previous match" }, bar, "\u2039");
		var nextBtn = html("button", { id: "next", type: "button", title: "next match (Enter)", "aria-label": "next match" }, bar, "\u203a");
		var colSel = null;
		if (self.length > 1) {
			colSel = html("select", { id: "col", "aria-label": "value shown" }, bar);
			colNames.forEach(function (c, k) {
				html("option", { value: k }, colSel, c);
			});
		}
		var normBox = D.diff ? check("norm", "normalize", "scale the base to the new total before comparing") : null;
		// Each switch names what a click does.
		var sortBtn = html("button", { id: "sort", type: "button", title: "children by name or heaviest first" }, bar, "");
		var orientBtn = html("button", { id: "orient", type: "button", title: "root at the top (icicle) or at the bottom (flame)" }, bar, "");
		var invBtn = html("button", { id: "invert", type: "button", "aria-pressed": "false",
			title: "callers first (bottom-up): each function that holds memory at the root, its callers under it" }, bar, "");
		var tableBtn = html("button", { id: "tablebtn", type: "button", "aria-pressed": "false",
			title: "every function by self and total value" }, bar, "Functions");
		var swBtn = html("button", { id: "swbtn", type: "button",
			title: "callers and callees of the selected frame's function, or of the search's heaviest match (s)" }, bar, "Sandwich");
		var copyBtn = html("button", { id: "copy", type: "button", title: "copy the selected frame's stack (c)" }, bar, "Copy stack");
		// Another profile as the base of a diff (flame-compare.js): the
		// file menu's first entry opens the file chooser; not on a diff or
		// a timeline.
		var cmpFile = null;
		if (!D.diff && !document.getElementById("fkseries"))
			cmpFile = html("input", { id: "cmpfile", type: "file", accept: ".folded,.txt,.collapsed,text/plain", hidden: "",
				"aria-label": "profile to compare with" }, bar);
		// Transforms of the selected frame's function (flame-transform.js):
		// a menu, its first entry its name.
		var xformSel = html("select", { id: "xform", "aria-label": "transform the graph",
			title: "focus on the selected frame's function (f), hide it (h), merge its instances (m), collapse its recursion (r)" }, bar);
		[["", "Transform…"], ["focus", "Focus on function (f)"], ["hide", "Hide function (h)"], ["merge", "Merge function (m)"],
		 ["rec", "Collapse recursion (r)"], ["direct", "Collapse all direct recursion"]].concat(hasLines ?
			[["lines", "Merge source lines into functions"]] : []).forEach(function (o) {
			html("option", { value: o[0] }, xformSel, o[1]);
		});
		// Comparing, and the view saved as a file (flame-export.js).
		var fileSel = html("select", { id: "file", "aria-label": "compare or save",
			title: "compare with another profile; save the view's stacks as folded text, the drawing as SVG or PNG" }, bar);
		[["", "File\u2026"]].concat(cmpFile ? [["compare", "Compare with a profile\u2026"]] : [],
			[["folded", "Save the view's stacks (folded)"], ["svg", "Save the drawing (SVG)"], ["png", "Save the drawing (PNG)"]]).forEach(function (o) {
			html("option", { value: o[0] }, fileSel, o[1]);
		});
		// The legend's row also holds the search's count, at its right end:
		// the toolbar keeps its width, so a count appearing never wraps it
		// onto another row and moves the graph (1280 px wide: it did).
		var lrow = html("div", { class: "row lrow" }, hdr);
		var legend = html("div", { id: "legend" }, lrow);
		var matched = html("span", { id: "matched", role: "status", "aria-live": "polite" }, lrow, "");
		// The details panel keeps its height in the header; a long name
		// spills over the graph below (never moving it) and is never cut.
		var details = html("div", { id: "details", class: "det", role: "status", "aria-live": "polite" }, hdr, "");
		// The origin's lines in words, the known keys first in this order
		// (man/render-flame.1, "Origin"), any other as "key value".
		function origin() {
			var out = [], seen = {};
			function bytes(v) {
				return /^\d+$/.test(v) ? fmtBytes(+v).replace(/\.0+ /, " ") : v;
			}
			var known = [["program", function (v) {
				return v;
			}], ["pid", function (v) {
				return "pid " + v;
			}], ["host", function (v) {
				return "on " + v;
			}], ["time", function (v) {
				return /^\d+(\.\d+)?$/.test(v) ? new Date(+v * 1000).toISOString().replace("T", " ").replace(/(\.\d+)?Z$/, " UTC") : v;
			}], ["sample_type", function (v) {
				return "sample type " + v;
			}], ["sample_period", function (v) {
				return "one sample every " + bytes(v) + " allocated";
			}], ["records", function (v) {
				return v + " allocations recorded";
			}], ["span_s", function (v) {
				return "the record covers " + v + " s";
			}], ["clock_ms", function (v) {
				return "jemalloc's clock ticks every " + v + " ms";
			}]];
			seen.waste = 1;    // a link of its own
			known.forEach(function (k) {
				seen[k[0]] = 1;
				if (info[k[0]] !== undefined && info[k[0]] !== "")
					out.push(k[1](info[k[0]]));
			});
			Object.keys(info).forEach(function (k) {
				if (!seen[k])
					out.push(k + " " + info[k]);
			});
			return out.join(" \u00b7 ");
		}
		// The total of the column shown; a diff's of the new profile and
		// the base, never of "new + vanished".
		function drawTotal() {
			var t, c;
			if (D.diff) {
				var a = m.data.tree().tot[DC.n][0], b = m.data.tree().tot[DC.b][0], d = a - b;
				t = "Total " + fmtIn(DC.n, a) + ", base " + fmtIn(DC.b, b) + " (" + (d < 0 ? "\u2212" : "+") + fmtIn(DC.n, Math.abs(d)) + ")";
			} else {
				c = colNames.length > 1 ? " (" + colNames[state.col] + ")" : "";
				t = "Total " + fmt(wc()[0]) + c;
			}
			t += m.transform.note();
			totalEl.textContent = t;
		}
		function drawLegend() {
			legend.textContent = "";
			var life = m.lifetimes.legend();
			if (life && !D.diff) {
				// A lifetimes page: a swatch a bucket (flame-lifetimes.js).
				legend.appendChild(document.createTextNode("Width: " + colNames[state.col] +
					" of each frame and its callees. Colour: how long half of its bytes lived:"));
				life.forEach(function (b) {
					html("span", { class: "sw " + b[0], "data-step": b[0] }, legend, b[1]);
				});
				return;
			}
			if (!D.diff) {
				// Inverted, a frame is its function's own value through
				// the callers on its way to the root's row.
				legend.appendChild(document.createTextNode("Width: " + colNames[state.col] +
					(state.inv ? " the function next to the root holds itself, through this chain of callers. Colour: " :
					 " of each frame and its callees. Colour: ") +
					(D.hash ? "by name (same name, same colour), not a scale." :
					 "a shade from the name and the depth, not a scale (render-flame --hash: one colour a name).")));
				return;
			}
			legend.appendChild(document.createTextNode("Colour: change of each frame's total, " +
				(state.normalize ? "base scaled to the new total: " : "base \u2192 new: ")));
			// A swatch a step, each range starting where the one before
			// ends (the bands of flame-data.js's diffStep).
			var B = m.data.BANDS, f = function (k) {
				return String(+Math.pow(2, B[k]).toPrecision(3));
			}, steps = [], labs = [], k;
			for (k = 5; k >= -5; k--) {
				var a = Math.abs(k), sign = k < 0 ? "\u00f7" : "\u00d7";
				steps.push(!k ? "d0" : ((k > 0) !== !!D.negate ? "r" : "b") + a);
				labs.push(!k ? "same" : a === 5 ? (k > 0 ? "new, " : "gone, ") + sign + f(4) + "+" :
					sign + f(a - 1) + "-" + f(a));
			}
			steps.reverse();
			labs.reverse();
			steps.forEach(function (c, k) {
				var s = html("span", { class: "sw " + c }, legend, labs[k]);
				s.setAttribute("data-step", c);
			});
		}

		// ---- layout and drawing ------------------------------------------
		// The page's geometry: its width, the header's and the tables'
		// heights above the graph, the whole height.
		var lay = { Wpx: 0, HH: 0, TH: 0, H: 0 };
		var X = new Float64Array(n), Wd = new Float64Array(n), po = new Float64Array(n);
		var drawn = new Int32Array(n), gen = 0, drawnList = [], merged = [], maxD = 0;
		var hlName = null, hlPrefix = null;

		function viewRange() {
			var z = state.zoom;
			if (state.ra >= 0)
				return { z: z, a: state.ra, b: state.rb };
			return { z: z, a: z + 1, b: end[z] };
		}
		// The view's value in tree column t (default: the widths').
		function viewValue(tt) {
			var r = viewRange(), t = tt || wc(), s = 0, j;
			if (state.ra < 0)
				return t[r.z];
			for (j = r.a; j < r.b; j = end[j])
				s += t[j];
			return s;
		}
		function rowY(d) {
			return state.up ? lay.H - 8 - (d + 1) * FH : lay.HH + lay.TH + 6 + d * FH;
		}
		function layout() {
			var r = viewRange(), t = wc(), full = lay.Wpx - 2 * XPAD, vv = viewValue();
			var sc = vv > 0 ? full / vv : 0, j, a, d, w, x, p;
			var runD = [], list = [];
			gen++;
			merged = [];
			maxD = depth[r.z];
			function put(k, xx, ww, kind) {
				X[k] = xx;
				Wd[k] = ww;
				drawn[k] = gen;
				list.push(k, kind);
				if (depth[k] > maxD)
					maxD = depth[k];
			}
			function flush(dd) {
				var run = runD[dd];
				if (!run)
					return;
				runD[dd] = null;
				if (run.count >= 2 && run.w >= MINPX) {
					merged.push(run);
					list.push(-merged.length, 3);
					if (dd > maxD)
						maxD = dd;
				}
			}
			for (a = parent[r.z]; a >= 0; a = parent[a])
				put(a, XPAD, full, 1);
			put(r.z, XPAD, full, state.ra >= 0 ? 1 : 0);
			po[r.z] = 0;
			for (j = r.a; j < r.b;) {
				p = parent[j];
				d = depth[j];
				w = t[j] * sc;
				x = X[p] + po[p];
				po[p] += w;
				for (a = runD.length - 1; a > d; a--)
					flush(a);
				runD.length = Math.min(runD.length, d + 1);
				if (w >= MINPX) {
					flush(d);
					put(j, x, w, 0);
					po[j] = 0;
					j++;
					continue;
				}
				if (w > 0) {
					var run = runD[d];
					if (!run)
						run = runD[d] = { p: p, first: j, last: j, x: x, w: 0, count: 0, d: d };
					run.last = j;
					run.w += w;
					run.count++;
				}
				j = end[j];
			}
			for (a = runD.length - 1; a >= 0; a--)
				flush(a);
			drawnList = list;
		}
		// A frame with a label is a <g> of its rect and text. Frames too narrow
		// for a label (most of a big graph) are drawn as one path per colour
		// (drawThin): Chromium's style and layout cost grows with elements,
		// not with path segments. The frame under the mouse is then found by
		// its row and x (rows).
		var thin = [], rows = [], thinEls = [];
		// A merged box's label: "(N more)", or "(N)" where that does not
		// fit; a count cut in the middle ("(7\u2026e)") is none.
		function moreLabel(count, chars) {
			var a = "(" + count + " more)", b = "(" + count + ")";
			return a.length <= chars ? a : b.length <= chars ? b : "";
		}
		function frameEl(k, kind) {
			var mb = kind === 3 ? merged[-k - 1] : null;
			var xx = mb ? mb.x : X[k], ww = mb ? mb.w : Wd[k], d = mb ? mb.d : depth[k];
			var chars = Math.floor((ww - 6) / CHW), label = mb ? moreLabel(mb.count, chars) : cut(names[nm[k]], chars);
			(rows[d] = rows[d] || []).push(k, xx, xx + ww);
			// No label is better than 2 of a name's characters ("P\u2026s",
			// "_\u2026t" on python3.11's deep stacks).
			if (chars < 3 || !label) {
				thin.push(k, kind);
				return null;
			}
			var rr = document.createElementNS(NS, "rect"), g = document.createElementNS(NS, "g");
			var c = mb ? "m" : cls(k);
			if (kind === 1)
				c += " anc";
			if (!mb && m.search.hlOn(k))
				c += " hl";
			if (mb && m.search.hlRange(mb.first, end[mb.last]))
				c += " hl";
			g.setAttribute("class", c);
			if (mb)
				g.setAttribute("data-m", -k - 1);
			else
				g.setAttribute("data-i", k);
			rr.setAttribute("x", xx.toFixed(1));
			rr.setAttribute("y", rowY(d).toFixed(1));
			rr.setAttribute("width", ww.toFixed(1));
			rr.setAttribute("height", FH > 1 ? FH - 1 : FH);
			if (chars >= 3) {
				g.appendChild(rr);
				var tx = document.createElementNS(NS, "text");
				tx.textContent = label;
				tx.setAttribute("x", (xx + 3).toFixed(1));
				tx.setAttribute("y", (rowY(d) + FH / 2 + FS / 3).toFixed(1));
				g.appendChild(tx);
			}
			return g;
		}
		function measure() {
			lay.Wpx = Math.max(200, Math.floor(window.innerWidth || 1200));
			hfo.setAttribute("width", lay.Wpx);
			hdr.style.width = lay.Wpx + "px";
			lay.HH = Math.ceil(hdr.getBoundingClientRect().height || 96) + 4;
			hfo.setAttribute("height", lay.HH);
			tfo.setAttribute("width", lay.Wpx);
			var tlh = m.timeline.measure(lay.HH);       // a timeline's chart, flame-timeline.js
			tfo.setAttribute("y", lay.HH + tlh);
			// Shown before it is measured: a hidden table has no height.
			tfo.setAttribute("display", state.table ? "inline" : "none");
			lay.TH = tlh + (state.table ? Math.ceil(tdiv.getBoundingClientRect().height) + 8 : 0);
			tfo.setAttribute("height", Math.max(0, lay.TH - tlh));
		}
		function draw() {
			drawTotal();
			measure();
			// The hover outline was of the old layout: the next mouse move
			// draws it again.
			hov.setAttribute("display", "none");
			// An open sandwich hides the graph: it is laid out on leaving.
			if (state.sw >= 0) {
				gen++;
				drawnList = [];
				maxD = 0;
			} else {
				layout();
			}
			lay.H = lay.HH + lay.TH + 6 + (maxD + 1) * FH + 8;
			svg.setAttribute("width", lay.Wpx);
			svg.setAttribute("height", lay.H);
			var frag = document.createDocumentFragment(), k;
			thin = [];
			rows = [];
			for (k = 0; k < drawnList.length; k += 2) {
				var e = frameEl(drawnList[k], drawnList[k + 1]);
				if (e)
					frag.appendChild(e);
			}
			view.textContent = "";
			view.appendChild(frag);
			drawThin();
			reset.disabled = state.zoom === 0 && state.ra < 0;
			orientBtn.textContent = state.up ? "Root at top" : "Root at bottom";
			sortBtn.textContent = state.weight ? "Sort by name" : "Sort by weight";
			// A switch: its label names its mode, pressed when on.
			invBtn.textContent = "Callers first";
			invBtn.setAttribute("aria-pressed", String(state.inv));
			reset.disabled = reset.disabled && state.sw < 0;
			m.search.drawSel();
			m.sandwich.drawSandwich();
			stick();
		}
		// The thin frames, one path per class (colour, ancestor, highlight).
		function drawThin() {
			var by = {}, k, j, key, h = FH > 1 ? FH - 1 : FH;
			for (j = 0; j < thinEls.length; j++)
				if (thinEls[j].parentNode)
					thinEls[j].parentNode.removeChild(thinEls[j]);
			thinEls = [];
			for (j = 0; j < thin.length; j += 2) {
				k = thin[j];
				var mb = thin[j + 1] === 3 ? merged[-k - 1] : null;
				var xx = mb ? mb.x : X[k], ww = mb ? mb.w : Wd[k], d = mb ? mb.d : depth[k];
				key = mb ? "m" : cls(k);
				if (thin[j + 1] === 1)
					key += " anc";
				if (mb ? m.search.hlRange(mb.first, end[mb.last]) : m.search.hlOn(k))
					key += " hl";
				(by[key] = by[key] || []).push("M" + xx.toFixed(1) + " " + rowY(d).toFixed(1) + "h" + ww.toFixed(1) + "v" + h + "h" + (-ww).toFixed(1) + "z");
			}
			var first = view.firstChild;
			for (key in by) {
				var p = document.createElementNS(NS, "path");
				p.setAttribute("class", key + " thin");
				p.setAttribute("d", by[key].join(""));
				view.insertBefore(p, first);
				thinEls.push(p);
			}
		}
		// The drawn frame (or merged box) at a point of the graph, or null.
		function frameAtPoint(x, y) {
			var d = state.up ? Math.floor((lay.H - 8 - y) / FH) : Math.floor((y - (lay.HH + lay.TH + 6)) / FH), r = rows[d];
			if (d < 0 || !r)
				return null;
			var lo = 0, hi = r.length / 3 - 1, k = -1;
			while (lo <= hi) {
				var mid = (lo + hi) >> 1;
				if (r[mid * 3 + 1] <= x) {
					k = mid;
					lo = mid + 1;
				} else {
					hi = mid - 1;
				}
			}
			if (k < 0 || x > r[k * 3 + 2])
				return null;
			var id = r[k * 3];
			return id < 0 ? { m: merged[-id - 1] } : { i: id };
		}
		// The header stays at the top of the window while the graph scrolls.
		function stick() {
			hfo.setAttribute("y", Math.max(0, Math.min(window.scrollY || 0, Math.max(0, lay.H - lay.HH))));
		}
		window.addEventListener("scroll", stick);
		function shown(j) {
			return j >= 0 && j < n && drawn[j] === gen;
		}
		// The layout's boxes (x and width of a drawn frame, the merged
		// runs), and new arrays for a new tree (flame-invert.js).
		function newTree() {
			X = new Float64Array(n);
			Wd = new Float64Array(n);
			po = new Float64Array(n);
			drawn = new Int32Array(n);
		}
		return { el: el, html: html, view: view, selr: selr, hov: hov, tfo: tfo, tdiv: tdiv, hdr: hdr, details: details,
			reset: reset, q: q, caseBox: caseBox, reBox: reBox, prevBtn: prevBtn, nextBtn: nextBtn, matched: matched,
			colSel: colSel, normBox: normBox, sortBtn: sortBtn, orientBtn: orientBtn, invBtn: invBtn, tableBtn: tableBtn,
			swBtn: swBtn, copyBtn: copyBtn, xformSel: xformSel, cmpFile: cmpFile, fileSel: fileSel, drawLegend: drawLegend, lay: lay, viewRange: viewRange, viewValue: viewValue,
			rowY: rowY, draw: draw, drawThin: drawThin, frameAtPoint: frameAtPoint, stick: stick, shown: shown,
			x: function (j) {
				return X[j];
			},
			w: function (j) {
				return Wd[j];
			},
			merged: function () {
				return merged;
			},
			drawnCount: function () {
				return drawnList.length / 2;
			},
			newTree: newTree };
	}
