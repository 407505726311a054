// flame.js: the interactive part of render-flame's SVG page, embedded at
// build time. The page draws without it; this adds tooltips, zoom, search,
// keyboard navigation, URL state and the differential view switch.
// Text from the input is only ever set with textContent or setAttribute.
(function () {
	"use strict";
	var NS = "http://www.w3.org/2000/svg", XNS = "http://www.w3.org/1999/xhtml";
	var svg = document.documentElement;
	var D = JSON.parse(document.getElementById("fkdata").textContent);
	var meta = document.getElementById("fknames");
	var names = meta.textContent.replace(/^\n/, "").split("\n");
	var countname = meta.getAttribute("data-countname") || "";
	var nametype = meta.getAttribute("data-nametype") || "";
	var framesEl = document.getElementById("frames");
	var els = framesEl.children;
	var stride = D.diff ? 7 : 4, n = D.f.length / stride;
	var depth = new Int32Array(n), nm = new Int32Array(n), parent = new Int32Array(n);
	var val = new Float64Array(n), self = new Float64Array(n);
	var bval, bself, vis, isMore = new Uint8Array(n);
	var i, k;

	if (D.diff) {
		bval = new Float64Array(n);
		bself = new Float64Array(n);
		vis = new Float64Array(n);
	}
	var stack = [];
	for (i = 0; i < n; i++) {
		k = i * stride;
		depth[i] = D.f[k];
		nm[i] = D.f[k + 1];
		val[i] = D.f[k + 2];
		self[i] = D.f[k + 3];
		if (D.diff) {
			bval[i] = D.f[k + 4];
			bself[i] = D.f[k + 5];
			vis[i] = D.f[k + 6];
		}
		stack.length = depth[i];
		parent[i] = depth[i] ? stack[depth[i] - 1] : -1;
		stack.push(i);
	}
	for (i = 0; i < D.more.length; i++)
		isMore[D.more[i]] = 1;
	// end[i]: one past the last frame of i's subtree (preorder).
	var end = new Int32Array(n);
	for (i = n - 1; i >= 0; i--) {
		if (!end[i])
			end[i] = i + 1;
		if (parent[i] >= 0 && end[parent[i]] < end[i])
			end[parent[i]] = end[i];
	}

	var hlOn = new Uint8Array(n), ancOf = new Uint8Array(n);
	var X0 = new Float64Array(n), W0 = new Float64Array(n);
	var state = { zoom: 0, query: "", icase: true, vanished: false, sel: -1, matches: [], mpos: -1 };
	var X = new Float64Array(n), W = new Float64Array(n);

	// ---- formatting -------------------------------------------------
	function commas(v) {
		return String(Math.round(v)).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
	}
	function fmt(v) {
		if (countname !== "bytes")
			return commas(v) + (countname ? " " + countname : "");
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
	function cur(i) {
		return state.vanished ? vis[i] : val[i];
	}
	function pathOf(i) {
		var p = [];
		for (; i > 0; i = parent[i])
			p.push(names[nm[i]]);
		return p.reverse().join(";");
	}

	// ---- layout -----------------------------------------------------
	function frameY(d) {
		return D.inverted ? D.ypad1 + d * D.frameheight : D.height - D.ypad2 - (d + 1) * D.frameheight;
	}
	function label(g, i) {
		var w = W[i], chars = Math.floor(w / (D.fontsize * D.fontwidth));
		if (chars < 3)
			return;
		var t = document.createElementNS(NS, "text");
		var s = names[nm[i]], a = Array.from(s);
		if (a.length > chars)
			s = a.slice(0, chars - 2).join("") + "..";
		t.textContent = s;
		t.setAttribute("x", (X[i] + 3).toFixed(1));
		t.setAttribute("y", (frameY(depth[i]) + D.frameheight / 2 + D.fontsize / 3).toFixed(1));
		g.appendChild(t);
	}
	// The page's own frames are never changed (restyling 100k elements
	// costs seconds): a zoomed or switched view is drawn over them in a
	// group of its own, holding only the frames it shows.
	var view = svg.insertBefore(document.createElementNS(NS, "g"), framesEl.nextSibling);
	view.setAttribute("id", "view");
	var shown = [], inView = new Int32Array(n).fill(-1);
	function elOf(j) {
		return inView[j] >= 0 ? view.children[inView[j] + 1] : els[j];
	}
	// A view frame takes the class of the page's frame (its colour), read
	// only for the frames shown: the page's own elements are never touched.
	function classes(e, j) {
		var c = els[j].getAttribute("class") || "";
		e.setAttribute("class", ancOf[j] ? c + " anc" : c);
	}
	function show(j, x, w, anc) {
		X[j] = x;
		W[j] = w;
		var g = document.createElementNS(NS, "g"), r = document.createElementNS(NS, "rect");
		ancOf[j] = anc ? 1 : 0;
		g.setAttribute("data-i", j);
		view.appendChild(g);
		classes(g, j);
		r.setAttribute("x", x.toFixed(1));
		r.setAttribute("y", frameY(depth[j]).toFixed(1));
		r.setAttribute("width", w.toFixed(1));
		r.setAttribute("height", D.frameheight > 1 ? D.frameheight - 1 : D.frameheight);
		g.appendChild(r);
		label(g, j);
		inView[j] = shown.length;
		shown.push(j);
	}
	function layout() {
		var z = state.zoom, full = D.width - 2 * D.xpad, j, a;
		var scale = cur(z) > 0 ? full / cur(z) : 0;
		for (j = 0; j < shown.length; j++) {
			inView[shown[j]] = -1;
			X[shown[j]] = X0[shown[j]];
			W[shown[j]] = W0[shown[j]];
		}
		shown = [];
		view.textContent = "";
		if (z === 0 && !state.vanished)
			return;
		var bg = document.createElementNS(NS, "rect");
		bg.setAttribute("class", "bg");
		bg.setAttribute("x", 0);
		bg.setAttribute("y", D.ypad1 - 2);
		bg.setAttribute("width", D.width);
		bg.setAttribute("height", D.height - D.ypad1 - D.ypad2 + 4);
		view.appendChild(bg);
		var anc = [];
		for (a = parent[z]; a >= 0; a = parent[a])
			anc.push(a);
		for (j = anc.length - 1; j >= 0; j--)
			show(anc[j], D.xpad, full, true);
		var off = new Float64Array(n);
		for (j = z; j < end[z]; j++) {
			if (j === z) {
				show(j, D.xpad, full, false);
			} else {
				var p = parent[j], w = cur(j) * scale;
				if (w > 0 || !D.diff)
					show(j, X[p] + off[p], w, false);
				else
					X[j] = W[j] = 0;
				off[p] += w;
			}
		}
	}
	function inZoom(i) {
		var z = state.zoom;
		return i >= z && i < end[z];
	}

	// ---- UI ---------------------------------------------------------
	function el(ns, tag, attrs, parentEl) {
		var e = document.createElementNS(ns, tag);
		for (var a in attrs)
			e.setAttribute(a, attrs[a]);
		if (parentEl)
			parentEl.appendChild(e);
		return e;
	}
	var fo = el(NS, "foreignObject", { x: 8, y: 0, width: 470, height: 26, class: "fkui" }, null);
	svg.insertBefore(fo, document.getElementById("frames"));
	var bar = el(XNS, "div", {}, fo);
	var reset = el(XNS, "button", { id: "reset", type: "button" }, bar);
	reset.textContent = "Reset zoom";
	var q = el(XNS, "input", { id: "q", type: "search", placeholder: "Search (regex), Ctrl-F", spellcheck: "false" }, bar);
	var caseLab = el(XNS, "label", { title: "case sensitive" }, bar);
	var caseBox = el(XNS, "input", { id: "case", type: "checkbox" }, caseLab);
	caseLab.appendChild(document.createTextNode("Aa"));
	var copyBtn = el(XNS, "button", { id: "copy", type: "button", title: "copy the selected frame's stack (c)" }, bar);
	copyBtn.textContent = "Copy stack";
	var vanBox = null;
	if (D.diff) {
		var vl = el(XNS, "label", { title: "show stacks gone from the new profile at their base size" }, bar);
		vanBox = el(XNS, "input", { id: "vanished", type: "checkbox" }, vl);
		vl.appendChild(document.createTextNode("vanished"));
	}
	var details = document.getElementById("details");
	var matched = document.getElementById("matched");
	var tip = el(NS, "g", { class: "tip", display: "none" }, svg);
	var tipRect = el(NS, "rect", { rx: 3 }, tip);
	var tipLines = [];
	for (i = 0; i < 5; i++)
		tipLines.push(el(NS, "text", {}, tip));

	function describe(i) {
		var lines = [names[nm[i]]], v = val[i], z = state.zoom;
		if (lines[0].length > 120)
			lines[0] = lines[0].slice(0, 118) + "..";
		lines.push(fmt(v) + " \u2014 " + pct(v, val[0]) + " of total, " + pct(cur(i), cur(z)) + " of zoom");
		lines.push("self: " + fmt(self[i]));
		if (D.diff) {
			var d = v - bval[i];
			lines.push("base " + fmt(bval[i]) + " \u2192 " + fmt(v) + " (" + (d >= 0 ? "+" : "") + fmt(d) +
				   (bval[i] > 0 ? ", " + (d >= 0 ? "+" : "") + pct(d, bval[i]) : "") + ")");
			lines.push("base self " + fmt(bself[i]));
		}
		return lines;
	}
	function toUser(ev) {
		var m = svg.getScreenCTM(), p = svg.createSVGPoint();
		p.x = ev.clientX;
		p.y = ev.clientY;
		return m ? p.matrixTransform(m.inverse()) : p;
	}
	function showTip(i, pt) {
		var lines = describe(i), w = 0, lh = 14, j;
		tip.setAttribute("display", "inline");
		for (j = 0; j < tipLines.length; j++) {
			tipLines[j].textContent = j < lines.length ? lines[j] : "";
			w = Math.max(w, j < lines.length ? lines[j].length * 6.2 : 0);
		}
		w = Math.min(w + 12, D.width - 20);
		var h = lines.length * lh + 8;
		var x = Math.min(pt.x + 12, D.width - w - 4), y = pt.y + 16;
		if (y + h > D.height)
			y = Math.max(0, pt.y - h - 8);
		tipRect.setAttribute("x", x);
		tipRect.setAttribute("y", y);
		tipRect.setAttribute("width", w);
		tipRect.setAttribute("height", h);
		for (j = 0; j < tipLines.length; j++) {
			tipLines[j].setAttribute("x", x + 6);
			tipLines[j].setAttribute("y", y + 4 + lh * (j + 1) - 3);
		}
		details.textContent = nametype + " " + names[nm[i]] + " (" + fmt(val[i]) + ", " + pct(val[i], val[0]) + ")";
	}
	function hideTip() {
		tip.setAttribute("display", "none");
		details.textContent = " ";
	}
	// The frame under an event: a view frame says which it is; a page
	// frame is found from the point (row, then binary search on x), so no
	// script object is ever made for the page's 100k elements.
	function indexOf(e, pt) {
		while (e && e.parentNode !== framesEl && e.parentNode !== view)
			e = e.parentNode;
		if (!e || (e.parentNode === view && !e.hasAttribute("data-i")))
			return -1;
		if (e.parentNode === view)
			return +e.getAttribute("data-i");
		var d = Math.floor(D.inverted ? (pt.y - D.ypad1) / D.frameheight : (D.height - D.ypad2 - pt.y) / D.frameheight);
		var row = byDepth[d], lo = 0, hi = row ? row.length - 1 : -1, k = -1;
		while (lo <= hi) {
			var mid = (lo + hi) >> 1;
			if (X0[row[mid]] <= pt.x + 0.05) {
				k = mid;
				lo = mid + 1;
			} else {
				hi = mid - 1;
			}
		}
		return k >= 0 && pt.x <= X0[row[k]] + W0[row[k]] + 0.05 ? row[k] : -1;
	}

	// ---- state ------------------------------------------------------
	function saveHash() {
		var h = [];
		if (state.zoom)
			h.push("z=" + state.zoom);
		if (state.query)
			h.push("s=" + encodeURIComponent(state.query));
		if (state.query && !state.icase)
			h.push("c=1");
		if (state.vanished)
			h.push("v=1");
		var s = h.length ? "#" + h.join("&") : "";
		if (location.hash !== s && history.replaceState)
			history.replaceState(null, "", s || location.pathname + location.search);
	}
	function loadHash() {
		var h = location.hash.replace(/^#/, "").split("&");
		for (var j = 0; j < h.length; j++) {
			var kv = h[j].split("="), v = kv.slice(1).join("=");
			try {
				v = decodeURIComponent(v);
			} catch (e) {
				continue;
			}
			if (kv[0] === "z" && /^\d+$/.test(v) && +v < n)
				state.zoom = +v;
			else if (kv[0] === "s")
				state.query = v;
			else if (kv[0] === "c")
				state.icase = v !== "1";
			else if (kv[0] === "v" && D.diff)
				state.vanished = v === "1";
		}
	}
	var selr = el(NS, "rect", { id: "selr", display: "none" }, null);
	svg.insertBefore(selr, tip);
	function drawSel() {
		var i = state.sel;
		if (i < 0 || !visible(i)) {
			selr.setAttribute("display", "none");
			return;
		}
		selr.setAttribute("display", "inline");
		selr.setAttribute("x", X[i].toFixed(1));
		selr.setAttribute("y", frameY(depth[i]).toFixed(1));
		selr.setAttribute("width", W[i].toFixed(1));
		selr.setAttribute("height", D.frameheight > 1 ? D.frameheight - 1 : D.frameheight);
	}
	function select(i) {
		state.sel = i;
		drawSel();
		if (i >= 0)
			showTip(i, { x: X[i] + 4, y: frameY(depth[i]) + D.frameheight / 2 });
	}
	function zoom(i) {
		hideTip();
		state.zoom = i;
		layout();
		reset.disabled = i === 0;
		search(false);
		drawSel();
		saveHash();
	}

	// ---- search -----------------------------------------------------
	// Matches are painted in a layer of their own, one path a row (adjacent
	// narrow matches merged), so a search creates a few elements instead of
	// touching every matching frame; labels of matches are drawn on top.
	var hlv = svg.insertBefore(document.createElementNS(NS, "g"), view.nextSibling);
	hlv.setAttribute("id", "hlv");
	function paintMatches() {
		var rows = [], runX0 = [], runX1 = [], j, d, k, m = state.matches;
		var all = state.zoom === 0 && !state.vanished, h = (D.frameheight > 1 ? D.frameheight - 1 : D.frameheight).toFixed(1);
		hlv.textContent = "";
		var ys = [];
		for (d = 0; d < byDepth.length; d++)
			ys.push(frameY(d));
		function flush(dd, seam) {
			if (runX1[dd] === undefined || runX1[dd] <= runX0[dd])
				return;
			var w = Math.round((runX1[dd] - runX0[dd] - (seam && runX1[dd] - runX0[dd] > 2 ? 0.5 : 0)) * 10) / 10;
			(rows[dd] = rows[dd] || []).push("M", Math.round(runX0[dd] * 10) / 10, ",", ys[dd], "h", w, "v", h, "h", -w, "z");
			runX1[dd] = undefined;
		}
		var ancestors = [];
		for (j = parent[state.zoom]; j >= 0; j = parent[j])
			if (hlOn[j])
				ancestors.push(j);
		m = ancestors.concat(m);
		for (k = 0; k < m.length; k++) {
			j = m[k];
			if (!(all || inView[j] >= 0) || W[j] <= 0)
				continue;
			d = depth[j];
			if (W[j] < 3 && runX1[d] !== undefined && X[j] <= runX1[d] + 0.05) {
				runX1[d] = Math.max(runX1[d], X[j] + W[j]);
			} else {
				// A wide frame keeps a seam at its right edge.
				flush(d, true);
				runX0[d] = X[j];
				runX1[d] = X[j] + W[j];
				if (W[j] >= 3)
					flush(d, true);
			}
		}
		for (d = 0; d < runX1.length; d++)
			flush(d, false);
		for (d = 0; d < rows.length; d++) {
			if (!rows[d])
				continue;
			var p = document.createElementNS(NS, "path");
			p.setAttribute("d", rows[d].join(""));
			hlv.appendChild(p);
		}
		for (k = 0; k < m.length; k++)
			if ((all || inView[m[k]] >= 0) && W[m[k]] > 0)
				label(hlv, m[k]);
	}
	function search(move) {
		var re = null, j;
		q.classList.remove("bad");
		if (state.query) {
			try {
				re = new RegExp(state.query, state.icase ? "i" : "");
			} catch (e) {
				q.classList.add("bad");
			}
		}
		var hit = new Int8Array(names.length), m = [], sum = 0, z = state.zoom, covered = -1;
		if (re)
			for (j = 0; j < names.length; j++)
				hit[j] = re.test(names[j]) ? 1 : 0;
		for (j = 0; j < n; j++) {
			var on = re && !isMore[j] && hit[nm[j]] ? 1 : 0;
			hlOn[j] = on;
			if (on && inZoom(j)) {
				m.push(j);
				// Count a match once: not again for matches inside it.
				if (j >= covered) {
					sum += cur(j);
					covered = end[j];
				}
			}
		}
		state.matches = m;
		if (!move)
			state.mpos = -1;
		paintMatches();
		matched.textContent = re ? "Matched: " + pct(sum, cur(z)) + " (" + m.length + " frames)" : " ";
		saveHash();
	}
	function step(dir) {
		var m = state.matches;
		if (!m.length)
			return;
		state.mpos = (state.mpos + dir + m.length) % m.length;
		select(m[state.mpos]);
	}

	// ---- navigation -------------------------------------------------
	function visible(j) {
		return (state.zoom === 0 && !state.vanished || inView[j] >= 0) && W[j] > 0;
	}
	function neighbour(i, dir) {
		// Nearest visible frame at the same depth to the left or right.
		var best = -1, bx = dir > 0 ? Infinity : -Infinity;
		for (var j = state.zoom; j < end[state.zoom]; j++) {
			if (depth[j] !== depth[i] || j === i || !visible(j))
				continue;
			if (dir > 0 && X[j] > X[i] && X[j] < bx) {
				bx = X[j];
				best = j;
			}
			if (dir < 0 && X[j] < X[i] && X[j] > bx) {
				bx = X[j];
				best = j;
			}
		}
		return best;
	}
	function firstChild(i) {
		for (var j = i + 1; j < end[i]; j++)
			if (parent[j] === i && visible(j))
				return j;
		return -1;
	}
	function copyPath(i) {
		if (i < 0)
			return;
		var s = pathOf(i);
		function done() {
			details.textContent = "Copied the stack of " + names[nm[i]];
		}
		if (navigator.clipboard && navigator.clipboard.writeText)
			navigator.clipboard.writeText(s).then(done, function () {
				details.textContent = s;
			});
		else
			details.textContent = s;
		window.fkLastCopied = s;
	}

	// ---- events -----------------------------------------------------
	svg.addEventListener("mousemove", function (ev) {
		var pt = toUser(ev), i = indexOf(ev.target, pt);
		if (i >= 0)
			showTip(i, pt);
		else if (tip.getAttribute("display") !== "none" && state.sel < 0)
			hideTip();
	});
	svg.addEventListener("click", function (ev) {
		var i = indexOf(ev.target, toUser(ev));
		if (i >= 0) {
			select(i);
			zoom(i);
		}
	});
	reset.addEventListener("click", function () {
		zoom(0);
	});
	copyBtn.addEventListener("click", function () {
		copyPath(state.sel);
	});
	q.addEventListener("input", function () {
		state.query = q.value;
		search(false);
	});
	caseBox.addEventListener("change", function () {
		state.icase = !caseBox.checked;
		search(false);
	});
	if (vanBox)
		vanBox.addEventListener("change", function () {
			state.vanished = vanBox.checked;
			layout();
			search(false);
		});
	q.addEventListener("keydown", function (ev) {
		if (ev.key === "Enter") {
			step(ev.shiftKey ? -1 : 1);
			ev.preventDefault();
		}
	});
	document.addEventListener("keydown", function (ev) {
		var inInput = ev.target === q;
		if ((ev.ctrlKey || ev.metaKey) && ev.key === "f" || ev.key === "F3") {
			ev.preventDefault();
			if (ev.key === "F3" && state.matches.length && document.activeElement === q) {
				step(ev.shiftKey ? -1 : 1);
				return;
			}
			q.focus();
			q.select();
			return;
		}
		if (ev.key === "Escape") {
			if (state.sel >= 0)
				select(-1);
			if (state.query) {
				q.value = state.query = "";
				search(false);
			} else if (state.zoom) {
				zoom(0);
			}
			q.blur();
			hideTip();
			return;
		}
		if (inInput)
			return;
		var s = state.sel, t = -1;
		if (s < 0 && /^Arrow/.test(ev.key)) {
			select(state.zoom);
			ev.preventDefault();
			return;
		}
		var up = D.inverted ? -1 : 1;
		if (ev.key === "ArrowUp")
			t = up > 0 ? firstChild(s) : parent[s];
		else if (ev.key === "ArrowDown")
			t = up > 0 ? parent[s] : firstChild(s);
		else if (ev.key === "ArrowLeft")
			t = neighbour(s, -1);
		else if (ev.key === "ArrowRight")
			t = neighbour(s, 1);
		else if (ev.key === "Enter" && s >= 0) {
			zoom(s);
			ev.preventDefault();
			return;
		} else if (ev.key === "c" && s >= 0) {
			copyPath(s);
			return;
		} else {
			return;
		}
		ev.preventDefault();
		if (t >= 0 && (inZoom(t) || t === parent[state.zoom]))
			select(t);
	});
	function fit() {
		if (!D.fitpage)
			return;
		var w = svg.getBoundingClientRect().width || window.innerWidth;
		svg.setAttribute("height", Math.ceil(w * D.height / D.width));
	}
	window.addEventListener("resize", fit);

	// ---- start ------------------------------------------------------
	// The page's own geometry, computed as render-flame drew it.
	var byDepth = [], off0 = new Float64Array(n), sc0 = val[0] > 0 ? (D.width - 2 * D.xpad) / val[0] : 0;
	for (i = 0; i < n; i++) {
		if (i === 0) {
			X0[i] = D.xpad;
		} else {
			X0[i] = X0[parent[i]] + off0[parent[i]];
			off0[parent[i]] += val[i] * sc0;
		}
		W0[i] = val[i] * sc0;
		X[i] = X0[i];
		W[i] = W0[i];
		(byDepth[depth[i]] = byDepth[depth[i]] || []).push(i);
	}
	loadHash();
	q.value = state.query;
	caseBox.checked = !state.icase;
	if (vanBox)
		vanBox.checked = state.vanished;
	fit();
	if (state.zoom || state.vanished)
		layout();
	reset.disabled = state.zoom === 0;
	search(false);
	window.fk = { state: state, zoom: zoom, names: names, n: n, el: elOf,
		geom: function (i) {
			return { x: X[i], w: W[i], shown: visible(i) };
		}, search: function (s, cs) {
		q.value = state.query = s;
		state.icase = !cs;
		caseBox.checked = !!cs;
		search(false);
		return matched.textContent;
	} };
})();
