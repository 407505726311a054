// flame.js: the interactive part of render-flame's SVG page, embedded at
// build time. The SVG carries every frame of the profile as data (the
// #fktable code, the #fknames table); this script lays the graph out at the
// window's real width with a fixed font size and draws only the frames wide
// enough to see. Search, zoom, counts and tables read the full data, so
// they are exact at any size; "(N more)" is only a drawing of narrow
// neighbours and zooms into them. Without script the page shows the
// drawing render-flame made. Text from the input is only ever set with
// textContent or setAttribute.
(function () {
	"use strict";
	var NS = "http://www.w3.org/2000/svg", XNS = "http://www.w3.org/1999/xhtml";
	var svg = document.documentElement;
	var D = JSON.parse(document.getElementById("fkdata").textContent);
	var meta = document.getElementById("fknames");
	var names = meta.textContent.replace(/^\n/, "").split("\n");
	var countname = meta.getAttribute("data-countname") || "";
	var nametype = meta.getAttribute("data-nametype") || "";
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
			for (c = 0; c < ncol; c++)
				self[c][k] = num();
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

	// A heap profile opens on memory in use, as pprof does.
	var state = { zoom: 0, ra: -1, rb: -1, query: "", icase: true, regex: false, col: Math.max(0, colNames.indexOf("inuse_space")),
		up: !D.inverted, sel: -1, fn: -1, mpos: -1, normalize: !!D.normalize, table: false, sw: -1 };
	function wc() {
		return tot[state.col];
	}

	// ---- formatting ---------------------------------------------------
	function commas(v) {
		return String(Math.round(v)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
	}
	function fmt(v) {
		var unit = colUnits[state.col];
		if (unit !== "bytes")
			return commas(v) + (unit ? " " + unit : "");
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
	// end of a long C++ name are what tell frames apart.
	function cut(s, chars) {
		var a = Array.from(s);
		if (a.length <= chars)
			return s;
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
	function bnorm() {
		return state.normalize && tot[1][0] > 0 && tot[0][0] > 0 ? tot[0][0] / tot[1][0] : 1;
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
			return shade(j);
		var st = diffStep(tot[0][j], tot[1][j] * bnorm());
		if (!st)
			return "d0";
		return ((st > 0) !== !!D.negate ? "r" : "b") + Math.abs(st);
	}

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
	var tdiv = html("div", { id: "toptable", role: "region", "aria-label": "top functions" }, tfo);
	var hfo = el(NS, "foreignObject", { id: "hdr", x: 0, y: 0, width: 10, height: 10, class: "fkui" }, svg);
	var hdr = html("div", { class: "hdr" }, hfo);
	var r1 = html("div", { class: "row" }, hdr);
	html("span", { id: "ttl" }, r1, titleText);
	if (subText)
		html("span", { id: "sub" }, r1, subText);
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
	var matched = html("span", { id: "matched", role: "status", "aria-live": "polite" }, bar, "");
	var colSel = null;
	if (self.length > 1) {
		colSel = html("select", { id: "col", "aria-label": "value shown" }, bar);
		colNames.forEach(function (c, k) {
			html("option", { value: k }, colSel, c);
		});
	}
	var normBox = D.diff ? check("norm", "normalize", "scale the base to the new total before comparing") : null;
	var sortBtn = html("button", { id: "sort", type: "button", title: "children by name or heaviest first" }, bar, "");
	var orientBtn = html("button", { id: "orient", type: "button", title: "root at the top (icicle) or at the bottom (flame)" }, bar, "");
	var tableBtn = html("button", { id: "tablebtn", type: "button", "aria-pressed": "false",
		title: "functions by self and total value" }, bar, "Top functions");
	var copyBtn = html("button", { id: "copy", type: "button", title: "copy the selected frame's stack (c)" }, bar, "Copy stack");
	var legend = html("div", { class: "row", id: "legend" }, hdr);
	var details = html("div", { id: "details", class: "det", role: "status", "aria-live": "polite" }, hdr, "");
	function drawLegend() {
		legend.textContent = "";
		if (!D.diff) {
			legend.appendChild(document.createTextNode("Width: " + colNames[state.col] + " of each frame and its callees. Colour: by name only, not a scale."));
			return;
		}
		legend.appendChild(document.createTextNode("Colour: change of each frame's total, " +
			(state.normalize ? "base scaled to the new total: " : "base \u2192 new: ")));
		var steps = D.negate ? ["r5", "r3", "r1", "d0", "b1", "b3", "b5"] : ["b5", "b3", "b1", "d0", "r1", "r3", "r5"];
		var labs = ["gone or \u00f74.6", "\u00f71.5-2.3", "\u00f71.04-1.2", "same", "\u00d71.04-1.2", "\u00d71.5-2.3", "new or \u00d74.6"];
		steps.forEach(function (c, k) {
			var s = html("span", { class: "sw " + c }, legend, labs[k]);
			s.setAttribute("data-step", c);
		});
	}

	// ---- layout and drawing ------------------------------------------
	var Wpx = 0, HH = 0, TH = 0, H = 0;
	var X = new Float64Array(n), Wd = new Float64Array(n), po = new Float64Array(n);
	var drawn = new Int32Array(n), gen = 0, drawnList = [], merged = [], maxD = 0;
	var hlName = null, hlPrefix = null;

	function viewRange() {
		var z = state.zoom;
		if (state.ra >= 0)
			return { z: z, a: state.ra, b: state.rb };
		return { z: z, a: z + 1, b: end[z] };
	}
	function viewValue() {
		var r = viewRange(), t = wc(), s = 0, j;
		if (state.ra < 0)
			return t[r.z];
		for (j = r.a; j < r.b; j = end[j])
			s += t[j];
		return s;
	}
	function rowY(d) {
		return state.up ? H - 8 - (d + 1) * FH : HH + TH + 6 + d * FH;
	}
	function layout() {
		var r = viewRange(), t = wc(), full = Wpx - 2 * XPAD, vv = viewValue();
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
	function frameEl(k, kind) {
		var m = kind === 3 ? merged[-k - 1] : null;
		var xx = m ? m.x : X[k], ww = m ? m.w : Wd[k], d = m ? m.d : depth[k];
		var chars = Math.floor((ww - 6) / CHW);
		(rows[d] = rows[d] || []).push(k, xx, xx + ww);
		if (chars < 3) {
			thin.push(k, kind);
			return null;
		}
		var rr = document.createElementNS(NS, "rect"), g = document.createElementNS(NS, "g");
		var c = m ? "m" : cls(k);
		if (kind === 1)
			c += " anc";
		if (!m && hlOn(k))
			c += " hl";
		if (m && hlRange(m.first, end[m.last]))
			c += " hl";
		g.setAttribute("class", c);
		if (m)
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
			tx.textContent = cut(m ? "(" + m.count + " more)" : names[nm[k]], chars);
			tx.setAttribute("x", (xx + 3).toFixed(1));
			tx.setAttribute("y", (rowY(d) + FH / 2 + FS / 3).toFixed(1));
			g.appendChild(tx);
		}
		return g;
	}
	function measure() {
		Wpx = Math.max(200, Math.floor(window.innerWidth || 1200));
		hfo.setAttribute("width", Wpx);
		hdr.style.width = Wpx + "px";
		HH = Math.ceil(hdr.getBoundingClientRect().height || 96) + 4;
		hfo.setAttribute("height", HH);
		tfo.setAttribute("width", Wpx);
		tfo.setAttribute("y", HH);
		TH = state.table ? Math.ceil(tdiv.getBoundingClientRect().height) + 8 : 0;
		tfo.setAttribute("height", TH);
		tfo.setAttribute("display", state.table ? "inline" : "none");
	}
	function draw() {
		measure();
		layout();
		H = HH + TH + 6 + (maxD + 1) * FH + 8;
		svg.setAttribute("width", Wpx);
		svg.setAttribute("height", H);
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
		orientBtn.textContent = state.up ? "Root at bottom" : "Root at top";
		sortBtn.textContent = state.weight ? "Sort by name" : "Sort by weight";
		reset.disabled = reset.disabled && state.sw < 0;
		drawSel();
		drawSandwich();
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
			var m = thin[j + 1] === 3 ? merged[-k - 1] : null;
			var xx = m ? m.x : X[k], ww = m ? m.w : Wd[k], d = m ? m.d : depth[k];
			key = m ? "m" : cls(k);
			if (thin[j + 1] === 1)
				key += " anc";
			if (m ? hlRange(m.first, end[m.last]) : hlOn(k))
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
		var d = state.up ? Math.floor((H - 8 - y) / FH) : Math.floor((y - (HH + TH + 6)) / FH), r = rows[d];
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
		hfo.setAttribute("y", Math.max(0, Math.min(window.scrollY || 0, Math.max(0, H - HH))));
	}
	window.addEventListener("scroll", stick);
	function shown(j) {
		return j >= 0 && j < n && drawn[j] === gen;
	}

	// ---- search and highlights ---------------------------------------
	var hit = null, mlist = new Int32Array(0), nmatch = 0, cum = null, sumAll = 0, sumView = 0;
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
		var test = compile(), t = wc(), j, covered = -1, any = 0;
		hit = null;
		cum = null;
		sumAll = sumView = 0;
		nmatch = 0;
		if (test) {
			hit = new Uint8Array(names.length);
			var lit = !state.regex && state.query && state.fn < 0, key = state.icase ? "i" : "c";
			if (lit && state.icase && !lowNames)
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
				sumAll += t[j];
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
		var r = viewRange(), t = wc(), j, va = state.ra >= 0 ? r.a : r.z, vb = r.b;
		sumView = 0;
		if (!cum)
			return;
		for (j = parent[r.z]; j >= 0; j = parent[j])
			if (hit[nm[j]]) {
				sumView = viewValue();
				return;
			}
		if (state.ra >= 0 && hit[nm[r.z]]) {
			sumView = viewValue();
			return;
		}
		for (j = va; j < vb;) {
			if (cum[end[j]] === cum[j]) {
				j = end[j];
			} else if (hit[nm[j]] && t[j] > 0) {
				sumView += t[j];
				j = end[j];
			} else {
				j++;
			}
		}
	}
	function showCount() {
		if (hit === null) {
			matched.textContent = "";
			return;
		}
		var k = state.mpos >= 0 ? state.mpos + 1 : 0;
		matched.textContent = k + " of " + nmatch + " \u00b7 " + pct(sumAll, wc()[0]) + " of total \u00b7 " +
			pct(sumView, viewValue()) + " of view";
	}
	function search(keep) {
		runSearch();
		if (!keep)
			state.mpos = -1;
		showCount();
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
				var m = merged[+e.getAttribute("data-m")];
				on = hlRange(m.first, end[m.last]);
			}
			e.classList.toggle("hl", on);
		}
		saveHash();
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
	function step(dir) {
		if (!nmatch)
			return;
		state.mpos = (state.mpos + dir + nmatch) % nmatch;
		var m = mlist[state.mpos];
		reveal(m);
		select(m);
		showCount();
	}
	function inView(j) {
		var r = viewRange();
		if (state.ra >= 0)
			return j >= r.a && j < r.b;
		return j >= r.z && j < end[r.z];
	}
	function reveal(m) {
		if (!inView(m) || !shown(m)) {
			if (!shown(m)) {
				var z = m, t = wc();
				// The deepest ancestor in which m is wide enough to draw.
				while (parent[z] >= 0 && t[m] * (Wpx - 2 * XPAD) / t[parent[z]] < MINPX)
					z = parent[z];
				z = parent[z] >= 0 ? parent[z] : z;
				if (t[m] * (Wpx - 2 * XPAD) / t[z] < MINPX)
					z = m;
				setZoom(z, -1, -1, true);
			}
		}
		scrollTo(m);
	}
	function scrollTo(j) {
		if (!shown(j))
			return;
		var y = rowY(depth[j]), top = window.scrollY || 0;
		if (y < top + HH || y + FH > top + (window.innerHeight || 800))
			window.scrollTo(0, Math.max(0, y - HH - 3 * FH));
		stick();
	}

	// ---- details, selection, zoom ------------------------------------
	function describe(j) {
		var t = wc(), v = t[j], lines = [];
		lines.push(nametype + " " + names[nm[j]]);
		var s = fmt(v) + " \u2014 " + pct(v, t[0]) + " of total, " + pct(inView(j) ? v : 0, viewValue()) + " of view; self " +
			fmt(self[state.col][j]);
		if (D.diff) {
			var nv = tot[0][j], bv = tot[1][j], b = bv * bnorm(), dd = nv - b;
			if (nv === 0 && bv > 0)
				s += "; vanished: base " + fmt(bv) + " \u2192 0 (\u2212100.00%)";
			else if (bv === 0 && nv > 0)
				s += "; new: base 0 \u2192 " + fmt(nv);
			else
				s += "; base " + fmt(b) + " \u2192 " + fmt(nv) + " (" + (dd >= 0 ? "+" : "") + fmt(dd) +
					(b > 0 ? ", " + (dd >= 0 ? "+" : "") + pct(dd, b) : "") + ")";
		}
		lines.push(s);
		return lines;
	}
	function showDetails(lines) {
		details.textContent = "";
		lines.forEach(function (l, k) {
			html("div", { class: k ? "num" : "name" }, details, l);
		});
	}
	function drawSel() {
		var j = state.sel;
		if (!shown(j)) {
			selr.setAttribute("display", "none");
			return;
		}
		selr.setAttribute("display", "inline");
		selr.setAttribute("x", X[j].toFixed(1));
		selr.setAttribute("y", rowY(depth[j]).toFixed(1));
		selr.setAttribute("width", Wd[j].toFixed(1));
		selr.setAttribute("height", FH > 1 ? FH - 1 : FH);
	}
	function select(j) {
		state.sel = j;
		drawSel();
		if (j >= 0)
			showDetails(describe(j));
		else
			showDetails([]);
	}
	function setZoom(z, a, b, keepSearch) {
		state.zoom = z;
		state.ra = a;
		state.rb = b;
		viewSum();
		draw();
		if (!keepSearch)
			state.mpos = -1;
		showCount();
		saveHash();
	}
	function zoom(j) {
		setZoom(j, -1, -1, false);
	}
	function zoomMerged(m) {
		setZoom(m.p, m.first, end[m.last], false);
	}

	// ---- the top-functions table -------------------------------------
	var topSort = "self", topRows = null;
	function computeTop() {
		var t = wc(), sf = self[state.col], ts = new Float64Array(names.length), ss = new Float64Array(names.length);
		var on = new Int32Array(names.length), st = new Int32Array(n + 1), sp = 0, j;
		for (j = 0; j < n; j++) {
			// Leave the frames whose subtree ended.
			while (sp && end[st[sp - 1]] <= j)
				on[nm[st[--sp]]]--;
			var k = nm[j];
			ss[k] += sf[j];
			// A function's total counts each stack once, however often
			// it recurs on it.
			if (!on[k])
				ts[k] += t[j];
			on[k]++;
			st[sp++] = j;
		}
		var rows = [];
		for (j = 0; j < names.length; j++)
			if (ss[j] > 0 || ts[j] > 0)
				rows.push({ k: j, self: ss[j], total: ts[j] });
		// The root "all" is not a function.
		rows = rows.filter(function (r) {
			return r.k !== nm[0] || r.self > 0;
		});
		return rows;
	}
	function sortTop() {
		topRows.sort(function (a, b) {
			if (topSort === "name")
				return names[a.k] < names[b.k] ? -1 : names[a.k] > names[b.k] ? 1 : 0;
			return b[topSort] - a[topSort] || a.k - b.k;
		});
	}
	function drawTable() {
		tdiv.textContent = "";
		if (!state.table)
			return;
		if (!topRows) {
			topRows = computeTop();
			sortTop();
		}
		var tb = html("table", { id: "top" }, tdiv), hr = html("tr", {}, html("thead", {}, tb));
		[["self", "Self"], ["total", "Total"], ["name", "Function"]].forEach(function (c) {
			var th = html("th", { "data-sort": c[0], role: "columnheader", tabindex: 0,
				"aria-sort": topSort === c[0] ? (c[0] === "name" ? "ascending" : "descending") : "none" }, hr, c[1] + (topSort === c[0] ? " \u25be" : ""));
			function sortBy() {
				topSort = c[0];
				sortTop();
				drawTable();
				draw();
			}
			th.addEventListener("click", sortBy);
			th.addEventListener("keydown", function (ev) {
				if (ev.key === "Enter" || ev.key === " ") {
					ev.preventDefault();
					sortBy();
				}
			});
		});
		var body = html("tbody", {}, tb), t0 = wc()[0];
		topRows.slice(0, 30).forEach(function (r) {
			var tr = html("tr", { "data-k": r.k, tabindex: 0, class: r.k === state.fn ? "on" : "" }, body);
			html("td", { class: "v" }, tr, fmt(r.self) + " " + pct(r.self, t0));
			html("td", { class: "v" }, tr, fmt(r.total) + " " + pct(r.total, t0));
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
				}
			});
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
	}

	// ---- sort order ---------------------------------------------------
	// The table comes in render-flame's order (--sort); "by weight" puts
	// every frame's heaviest child first. Reordering rebuilds the preorder
	// arrays; the zoomed and selected frames follow.
	var orig = null, atOrig = null;
	function reorder(weight) {
		if (!orig)
			orig = { depth: depth, parent: parent, nm: nm, end: end, self: self, tot: tot };
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
	function sandwich(k) {
		var t = wc(), j, outer = [], on = 0, stk = [];
		// The outermost frames of k: those without a k among their callers.
		for (j = 0; j < n; j++) {
			while (stk.length && end[stk[stk.length - 1]] <= j)
				if (nm[stk.pop()] === k)
					on--;
			if (nm[j] === k && t[j] > 0 && !on)
				outer.push(j);
			if (nm[j] === k)
				on++;
			stk.push(j);
		}
		var sum = 0;
		outer.forEach(function (f) {
			sum += t[f];
		});
		var minv = sum > 0 ? sum * MINPX / (Wpx - 2 * XPAD) : 1;
		function tree() {
			return { nm: [k], p: [-1], v: [sum], kids: [[]] };
		}
		function add(T, p, name, v) {
			var c = T.nm.length;
			T.nm.push(name);
			T.p.push(p);
			T.v.push(v);
			T.kids.push([]);
			T.kids[p].push(c);
			return c;
		}
		// Callers: each group holds the stacks' current ancestors.
		var up = tree(), down = tree();
		(function callers(node, cur, w) {
			var by = new Map(), i2;
			for (i2 = 0; i2 < cur.length; i2++) {
				var a = cur[i2];
				if (a < 0)
					continue;
				var g = by.get(nm[a]);
				if (!g)
					by.set(nm[a], g = { a: [], w: [], v: 0 });
				g.a.push(parent[a]);
				g.w.push(w[i2]);
				g.v += w[i2];
			}
			// Groups too narrow to draw are left out.
			by.forEach(function (g, name) {
				if (g.v >= minv)
					callers(add(up, node, name, g.v), g.a, g.w);
			});
		})(0, outer.map(function (f) {
			return parent[f];
		}), outer.map(function (f) {
			return t[f];
		}));
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
					callees(add(down, node, name, g.v), g.f);
			});
		})(0, outer);
		return { up: up, down: down };
	}
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
				showDetails([nametype + " " + names[T.nm[f[0]]], fmt(T.v[f[0]]) + " — " + pct(T.v[f[0]], wc()[0]) + " of total" +
					(dir < 0 ? ", through this caller" : ", in this callee")]);
			});
		});
		return rows + 1;
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
		var S = sandwich(state.sw), full = Wpx - 2 * XPAD, tv = S.down.v[0] > S.up.v[0] ? S.down.v[0] : S.up.v[0];
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
		draw();
	}

	// ---- URL state ----------------------------------------------------
	function saveHash() {
		var h = [];
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
		if (state.col)
			h.push("v=" + state.col);
		if (state.weight)
			h.push("o=w");
		var s = h.length ? "#" + h.join("&") : "";
		if (location.hash !== s && history.replaceState)
			history.replaceState(null, "", s || location.pathname + location.search);
	}
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
			else if (kv[0] === "v" && /^\d$/.test(v) && +v < self.length)
				state.col = +v;
			else if (kv[0] === "o")
				state.weight = v === "w";
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
	function firstChild(j) {
		var t = wc(), k;
		for (k = j + 1; k < end[j]; k = end[k])
			if (t[k] > 0)
				return k;
		return -1;
	}
	function copyPath(j) {
		if (j < 0)
			return;
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
			return { m: merged[+e.getAttribute("data-m")] };
		return { i: +e.getAttribute("data-i") };
	}
	function outline(f) {
		if (!f || !(f.m || shown(f.i))) {
			hov.setAttribute("display", "none");
			return;
		}
		var x = f.m ? f.m.x : X[f.i], w = f.m ? f.m.w : Wd[f.i], d = f.m ? f.m.d : depth[f.i];
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
	copyBtn.addEventListener("click", function () {
		copyPath(state.sel);
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
	});
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
			topRows = null;
			runSearch();
			drawTable();
			setZoom(state.zoom, -1, -1, false);
		});
	if (normBox)
		normBox.addEventListener("change", function () {
			state.normalize = normBox.checked;
			drawLegend();
			draw();
		});
	q.addEventListener("keydown", function (ev) {
		if (ev.key === "Enter") {
			clearTimeout(qTimer);
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
			if (ev.key === "F3" && nmatch) {
				step(ev.shiftKey ? -1 : 1);
				return;
			}
			q.focus();
			q.select();
			return;
		}
		if (ev.key === "Escape") {
			if (state.sw >= 0) {
				state.sw = -1;
				draw();
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
		if (inInput || (ev.target && ev.target.tagName && /^(INPUT|SELECT|BUTTON|TH|TR)$/i.test(ev.target.tagName) && ev.key === "Enter"))
			return;
		var s = state.sel, t = -1;
		if (s < 0 && /^Arrow/.test(ev.key)) {
			select(state.zoom);
			ev.preventDefault();
			return;
		}
		var deeper = state.up ? "ArrowUp" : "ArrowDown", shallower = state.up ? "ArrowDown" : "ArrowUp";
		if (ev.key === deeper)
			t = firstChild(s);
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
		} else if (ev.key === "c" && s >= 0) {
			copyPath(s);
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

	// ---- start --------------------------------------------------------
	// Indices in the URL are those of its sort order: reorder first.
	var hash0 = location.hash;
	if (/(^#|&)o=w(&|$)/.test(hash0))
		reorder(true);
	loadHash(hash0);
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
	search(false);
	if (!(tot[0][0] > 0) && !(D.diff && tot[1][0] > 0))
		showDetails(["No stack has a value."]);
	window.fk = {
		state: state, n: n, names: names,
		zoom: zoom,
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
			return { x: X[j], w: Wd[j], y: rowY(depth[j]), shown: shown(j) };
		},
		merged: function () {
			return merged.map(function (m) {
				return { p: m.p, first: m.first, last: m.last, count: m.count, x: m.x, w: m.w, y: rowY(m.d) };
			});
		},
		drawnCount: function () {
			return drawnList.length / 2;
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
			return topRows.slice(0, 50).map(function (r) {
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
			S = sandwich(k);
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
			topRows = null;
			runSearch();
			drawTable();
			setZoom(state.zoom, -1, -1, false);
		}
	};
})();
