// SPDX-License-Identifier: MIT
// flame-timeline.js: a series input's timeline (the #fkseries data that
// render-flame writes for "# series:" lines, man/render-flame.1): a chart
// of memory over time above the flame graph, the sampled heap of each
// snapshot (its column's total) and jemalloc's and the process's figures
// as lines. A click on the chart shows that snapshot's column; a drag
// shows the growth between the ends of the range with the page's
// differential colours (vanished frames kept visible); "Peak" selects the
// highest snapshot. Below the chart: the sites that grew most over the
// selection and "Where is my RSS" for its (last) snapshot.
// One module of the page script (see flame-data.js).
// exports: present, count, measure, hash, unhash, restore, afterTree, afterReorder, api
// needs: data, draw, search, tables
	function fkTimeline(m) {
		var { D, names, state, colNames, colUnits, NS, svg, fmt, pct, DC, wc } = m.data;
		var { el, html, tfo, colSel, lay } = m.draw;
		var n, parent, nm, self, tot;
		m.data.onTree(function (t) {
			({ n, parent, nm, self, tot } = t);
		});
		// ---- the timeline --------------------------------------------------
		var tlEl = document.getElementById("fkseries"), TL = null;
		if (tlEl) {
			try {
				TL = JSON.parse(tlEl.textContent);
			} catch (e) {
				TL = null;
			}
			if (!Array.isArray(TL) || TL.length !== self.length || !TL.length)
				TL = null;
		}
		var tl = { a: -1, b: 0 }, tlg = null, tlfo = null, tlDiv = null, tlHeap = [], tlN = TL ? TL.length : 0;
		// The chart: its height (the legend's rows, the plot, the x axis) and
		// margins; tlChart sets the top margin and TLCH from the legend.
		var TLPH = 146, TLM = { l: 78, r: 16, t: 24, b: 30 }, TLCH = TLM.t + TLPH + TLM.b;
		// The lines drawn, every figure the data carries: key, label, colour
		// (the sampled heap last, with a point a snapshot).
		var TLLINES = [["rss", "RSS", "#c0392b"], ["mapped", "mapped", "#8d6e63"], ["retained", "retained", "#a1887f"],
			["resident", "resident", "#7b3fa0"], ["metadata", "metadata", "#5c6bc0"], ["active", "active", "#e67e22"],
			["allocated", "allocated", "#2e8b3e"], ["hook", "profiler (hook)", "#00897b"], ["sampling", "sampling's cost", "#d81b60"],
			["waste", "waste", "#f9a825"], ["heap", "sampled heap", "#1f5fa8"]];
		var tlDrag = null, tlKeyEnd = -1, TLGROWMAX = 200, tlMax = { w: 0, h: 0 };

		function tlValue(k, key) {
			if (key === "heap")
				return tlHeap[k];
			var v = TL[k][key];
			return typeof v === "number" && v >= 0 ? v : null;
		}
		function tlHas(key) {
			for (var k = 0; k < tlN; k++)
				if (tlValue(k, key) !== null)
					return true;
			return false;
		}
		var tlTimed = false;
		if (TL) {
			tlTimed = TL.every(function (s) {
				return typeof s.time === "number";
			});
			TL.forEach(function (s, k) {
				tlHeap.push(tot[k][0]);
				colNames[k] = "snapshot " + s.id;
			});
			// The growth view's columns: new, base, new + vanished (as a
			// differential graph's), filled in by tlRange.
			for (var c3 = 0; c3 < 3; c3++) {
				self.push(new Float64Array(n));
				tot.push(new Float64Array(n));
				colUnits.push(colUnits[0]);
			}
			colNames.push("growth: end", "growth: start", "growth");
			DC.n = tlN;
			DC.b = tlN + 1;
			if (colSel) {
				Array.prototype.forEach.call(colSel.options, function (o, k) {
					o.textContent = colNames[k];
				});
				// Its width fixed: a range's longer name never wraps the
				// toolbar onto another row and moves the graph.
				colSel.style.width = "16em";
			}
			tl.b = tlN - 1;
			state.col = tl.b;
		}
		// Seconds since the first snapshot, to the precision the series'
		// span needs (the hook's 0.2 s of snapshots read "0.0 s" to "0.2 s").
		function tlSecs(k) {
			var T = TL[tlN - 1].time - TL[0].time, d = T >= 100 ? 0 : T >= 10 ? 1 : T >= 1 ? 2 : 3;
			return (TL[k].time - TL[0].time).toFixed(d);
		}
		function tlLabel(k) {
			var s = "snapshot " + TL[k].id;
			if (tlTimed)
				s += " (" + tlSecs(k) + " s)";
			return s;
		}
		function tlX(k) {
			var w = lay.Wpx - TLM.l - TLM.r;
			if (tlN < 2)
				return TLM.l + w / 2;
			if (tlTimed) {
				var t0 = TL[0].time, t1 = TL[tlN - 1].time;
				if (t1 > t0)
					return TLM.l + w * (TL[k].time - t0) / (t1 - t0);
			}
			return TLM.l + w * k / (tlN - 1);
		}
		function tlNearest(x) {
			var best = 0, bd = Infinity;
			for (var k = 0; k < tlN; k++) {
				var d = Math.abs(tlX(k) - x);
				if (d < bd) {
					bd = d;
					best = k;
				}
			}
			return best;
		}
		// Byte figures keep their unit whatever column the graph shows.
		function tlFmt(v) {
			var c = state.col;
			state.col = 0;
			var s = fmt(v);
			state.col = c;
			return s;
		}

		// Fills the growth columns from snapshot a to snapshot b, in the
		// graph's current order (reorder keeps the columns' order).
		function tlFill() {
			if (tl.a < 0)
				return;
			var sb = self[tl.b], sa = self[tl.a], tb = tot[tl.b], ta = tot[tl.a], k;
			self[tlN].set(sb);
			self[tlN + 1].set(sa);
			tot[tlN].set(tb);
			tot[tlN + 1].set(ta);
			var vs = self[tlN + 2], vt = tot[tlN + 2];
			for (k = 0; k < n; k++)
				vs[k] = sb[k] || sa[k];
			vt.set(vs);
			for (k = n - 1; k > 0; k--)
				vt[parent[k]] += vt[k];
		}
		// The menu names snapshots, and the growth while one is shown.
		var tlGrowOpt = null;
		function tlMenu() {
			if (!colSel)
				return;
			if (state.col >= tlN && tl.a >= 0) {
				if (!tlGrowOpt)
					tlGrowOpt = html("option", { value: "" }, colSel);
				tlGrowOpt.textContent = "growth: " + tlLabel(tl.a) + " \u2192 " + tlLabel(tl.b);
				colSel.value = "";
			} else {
				if (tlGrowOpt)
					colSel.removeChild(tlGrowOpt);
				tlGrowOpt = null;
				colSel.value = state.col;
			}
		}
		function tlRefresh() {
			tlMenu();
			if (wc()[state.zoom] <= 0)
				state.zoom = 0;
			m.tables.forget();
			m.draw.drawLegend();
			m.search.runSearch();
			m.tables.drawTable();
			m.search.setZoom(state.zoom, -1, -1, false);
		}
		// Shows snapshot k's flame graph.
		function tlPoint(k) {
			tl.a = -1;
			tl.b = k;
			D.diff = 0;
			state.col = k;
			tlRefresh();
		}
		// Shows the growth from snapshot a to snapshot b.
		function tlRange(a, b) {
			if (a > b) {
				var x = a;
				a = b;
				b = x;
			}
			if (a === b)
				return tlPoint(b);
			tl.a = a;
			tl.b = b;
			tlFill();
			D.diff = 1;
			state.col = tlN + 2;
			tlRefresh();
		}
		function tlPeak() {
			var best = 0;
			for (var k = 1; k < tlN; k++)
				if (tlHeap[k] > tlHeap[best])
					best = k;
			tlPoint(best);
			return best;
		}
		// Sorting rebuilds the columns from their first order: refill
		// (flame-tables.js calls this last).
		function afterReorder() {
			if (TL && tl.a >= 0) {
				tlFill();
				m.draw.draw();
			}
		}

		// The sites (functions by self value) that grew most from a to b.
		function tlGrowth(a, b, max) {
			var gs = new Float64Array(names.length), sa = new Float64Array(names.length), sb = new Float64Array(names.length), k, out = [];
			for (k = 0; k < n; k++) {
				sa[nm[k]] += self[a][k];
				sb[nm[k]] += self[b][k];
			}
			for (k = 0; k < names.length; k++) {
				gs[k] = sb[k] - sa[k];
				if (gs[k] > 0)
					out.push(k);
			}
			out.sort(function (x, y) {
				return gs[y] - gs[x] || x - y;
			});
			return out.slice(0, max || 10).map(function (x) {
				return { k: x, name: names[x], start: sa[x], end: sb[x], growth: gs[x] };
			});
		}
		// "Where is my RSS" for snapshot k: the levels from RSS down to the
		// sampled heap that the snapshot carries, the gap between each and the
		// next, and inside a gap the parts the data names (the profiler's own
		// arena under RSS, jemalloc's metadata in resident, sampling's cost in
		// allocated); figures outside that chain (mapped, retained) as lines
		// of their own. A level above the one before it (jemalloc's resident
		// over the process's RSS: its count of pages is an upper bound) is
		// shown at that level and said, so that no gap and no share is
		// negative. The sentence names the biggest single cause.
		var TLGAPS = {
			rss: "not in jemalloc's resident pages: other allocators, thread stacks, code, mapped files",
			resident: "resident but not active: dirty pages jemalloc keeps to reuse",
			active: "active but not allocated: fragmentation inside jemalloc's pages",
			allocated: "allocated but not in the sampled heap: sampling's estimate and allocations made before profiling"
		};
		var TLPARTS = {
			rss: ["hook", "the profiler's own arena (hook)", "the profiler's own bytes, in an arena of its own and left out of jemalloc's figures"],
			resident: ["metadata", "jemalloc's metadata", "jemalloc's own bookkeeping"],
			heap: ["sampling", "sampling's own cost", "what sampling itself costs: jemalloc gives each sampled small object an extent " +
				"of its own (a larger lg_prof_sample costs less)"]
		};
		var TLINFO = {
			mapped: "mapped (jemalloc's address space, not all resident)",
			retained: "retained (unmapped, kept for reuse; not resident)",
			hook: "the profiler's own arena (hook), outside jemalloc's figures",
			metadata: "jemalloc's metadata",
			sampling: "sampling's own cost (inside allocated)"
		};
		// RSS's parts, where the snapshot carries them (the hook's, from
		// jemalloc's statistics: man/heap-waste.1): key, name, what holds
		// the bytes and what releases them. live is allocated less the
		// thread caches, other what is left of RSS; together they add up
		// to RSS, and the parts from tcache to metadata_resident are the
		// "waste" line.
		var TLWASTE = [
			["live", "live objects", "in use by the program (allocated less the thread caches); released when the program frees them"],
			["tcache", "thread caches (tcache)", "freed regions each thread keeps to reuse; released by mallctl thread.tcache.flush " +
				"in that thread or at its exit, bounded by tcache_max"],
			["slab_holes", "slab holes", "free regions in small-object slabs that still hold live objects (fragmentation); a slab " +
				"is released only when its last object is freed: /internal/heap/waste names the sites"],
			["slab_tails", "slab tails", "slab bytes no region fits in; released with their slabs"],
			["large_pad", "large padding", "large allocations rounded up to their size class; released with them"],
			["dirty", "dirty pages", "freed pages jemalloc keeps to reuse; purged after dirty_decay_ms, or at once by mallctl arena.<i>.purge"],
			["muzzy", "muzzy pages", "pages purged lazily (MADV_FREE): in RSS until the kernel takes them back under memory " +
				"pressure or muzzy_decay_ms purges them"],
			["metadata_resident", "jemalloc's metadata", "jemalloc's own bookkeeping, resident; released with the arenas and extents it describes"],
			["hook", "the profiler's own arena (hook)", "the profiler's own bytes, in an arena of its own; released when sampling stops and its caches empty"],
			["files", "file-backed and shared pages", "code, libraries, mapped files and shared memory; clean pages the kernel drops under pressure"],
			["other", "the rest", "neither jemalloc's nor a file's: thread stacks, other allocators, anonymous maps"]
		];
		function tlParts(k, rss, notes) {
			if (rss === null || tlValue(k, "waste") === null || tlValue(k, "allocated") === null)
				return null;
			var parts = [], sum = 0;
			TLWASTE.forEach(function (P) {
				var v = P[0] === "live" ? Math.max(0, tlValue(k, "allocated") - (tlValue(k, "tcache") || 0)) :
					P[0] === "other" ? null : tlValue(k, P[0]);
				if (P[0] === "other") {
					// jemalloc's page counts are upper bounds (its metadata
					// blocks, extents' untouched pages): past RSS, said.
					v = rss - sum;
					parts.over = Math.max(0, -v);
					if (v < 0)
						notes.push("The parts exceed the process's RSS (" + tlFmt(rss) + ") by " + tlFmt(-v) +
							" here: jemalloc counts pages the kernel does not hold (metadata blocks, extents' untouched " +
							"pages); the rest is shown as 0.");
					v = Math.max(0, v);
				}
				if (v === null)
					return;
				sum += v;
				parts.push({ key: P[0], name: P[1], bytes: v, why: P[2] });
			});
			return parts;
		}
		function tlBreakdown(k) {
			var keys = ["rss", "resident", "active", "allocated", "heap"], levels = [], gaps = [], notes = [], info = [], used = {}, j;
			keys.forEach(function (key) {
				var v = tlValue(k, key);
				if (v === null)
					return;
				var L = { key: key, name: key === "heap" ? "sampled heap" : key, raw: v, bytes: v };
				// The level above holds at least its gap's known part (the
				// hook's arena is in RSS and never in resident).
				var up = levels.length ? levels[levels.length - 1] : null, P = up && key !== "heap" ? TLPARTS[up.key] : null;
				var pv = P ? tlValue(k, P[0]) : null, cap = up ? Math.max(0, up.bytes - (pv !== null ? Math.min(pv, up.bytes) : 0)) : 0;
				if (up && v > cap) {
					L.bytes = cap;
					notes.push(key === "heap" ? "The sampled heap (" + tlFmt(v) + ", an estimate) exceeds " + up.name + " (" + tlFmt(up.bytes) +
						") here; it is shown as " + up.name + "." :
						"jemalloc's " + key + " (" + tlFmt(v) + ") exceeds " + (up.key === "rss" ? "the process's RSS" : up.name) + " (" + tlFmt(up.bytes) +
						")" + (pv ? " less " + P[1] + " (" + tlFmt(pv) + ")" : "") + " here: " + key +
						" is an upper bound there (jemalloc counts pages the kernel may not hold), shown as " + tlFmt(cap) + ".");
				}
				levels.push(L);
			});
			var topv = levels.length ? levels[0].bytes : 0, causes = [];
			for (j = 0; j + 1 < levels.length; j++) {
				var G = { key: levels[j].key, name: levels[j].name + " \u2212 " + levels[j + 1].name,
					bytes: levels[j].bytes - levels[j + 1].bytes, why: TLGAPS[levels[j].key] || "", parts: [],
					// A level reported above the one before: by how much.
					over: Math.max(0, levels[j + 1].raw - levels[j].bytes) };
				// The parts the data names, each at most what is left of the gap.
				var left = G.bytes;
				[TLPARTS[levels[j].key], j + 2 === levels.length ? TLPARTS.heap : null].forEach(function (P) {
					var v = P ? tlValue(k, P[0]) : null;
					if (v === null || (P[0] === "hook" && levels[j].key !== "rss"))
						return;
					used[P[0]] = true;
					var b = Math.min(v, left);
					left -= b;
					G.parts.push({ key: P[0], name: P[1], bytes: b, raw: v, why: P[2] });
					if (b < v)
						notes.push(P[1] + " (" + tlFmt(v) + ") is more than the gap " + G.name + " it lies in; shown as " + tlFmt(b) + ".");
					causes.push({ name: P[1], bytes: b, why: P[2] });
				});
				if (G.parts.length) {
					G.parts.push({ key: "rest", name: "the rest", bytes: left, why: G.why });
					causes.push({ name: G.name + " (the rest)", bytes: left, why: G.why });
				} else {
					causes.push({ name: G.name, bytes: G.bytes, why: G.why });
				}
				gaps.push(G);
			}
			["mapped", "retained", "hook", "metadata", "sampling"].forEach(function (key) {
				var v = tlValue(k, key);
				if (v !== null && !used[key])
					info.push({ key: key, name: TLINFO[key], bytes: v });
			});
			var big = -1;
			causes.forEach(function (c, i2) {
				if (big < 0 || c.bytes > causes[big].bytes)
					big = i2;
			});
			var parts = tlParts(k, levels.length && levels[0].key === "rss" ? levels[0].raw : null, notes);
			var sentence = "";
			if (parts) {
				// The parts are the explanation: the biggest past the live
				// objects, and what releases it.
				var pb = null, w = tlValue(k, "waste");
				parts.forEach(function (P) {
					if (P.key !== "live" && (!pb || P.bytes > pb.bytes))
						pb = P;
				});
				topv = levels[0].raw;
				sentence = "Live objects are " + pct(parts[0].bytes, topv) + " of RSS and jemalloc's waste " + tlFmt(w) + " (" +
					pct(w, topv) + "). The biggest part past the live objects is " + pb.name + ", " + tlFmt(pb.bytes) + " (" +
					pct(pb.bytes, topv) + "): " + pb.why + ".";
			} else if (levels.length < 2)
				sentence = "This snapshot carries no memory figures beyond the sampled heap (an offline dump has only that).";
			else if (big >= 0)
				sentence = "The biggest gap is " + causes[big].name + ", " + tlFmt(causes[big].bytes) + " (" + pct(causes[big].bytes, topv) +
					" of " + levels[0].name + "): " + causes[big].why + ".";
			return { levels: levels, gaps: gaps, parts: parts, over: parts ? parts.over : 0, info: info, notes: notes, top: topv,
				sentence: sentence };
		}

		// ---- drawing --------------------------------------------------------
		function tlBuild() {
			tlg = el(NS, "g", { id: "timeline", role: "group", tabindex: 0,
				"aria-label": "memory over time: arrow keys select a snapshot, with Shift a range" }, null);
			svg.insertBefore(tlg, tfo);
			tlfo = el(NS, "foreignObject", { id: "tlfo", x: 0, y: 0, width: 10, height: 10, class: "fkui" }, null);
			svg.insertBefore(tlfo, tfo);
			tlDiv = html("div", { id: "tlpanel", class: "tlp", role: "region", "aria-label": "timeline selection" }, tlfo);
			// The keyboard: left and right move the point; with Shift they
			// move the range's end, its start staying where it was.
			tlg.addEventListener("keydown", function (ev) {
				var d = ev.key === "ArrowLeft" ? -1 : ev.key === "ArrowRight" ? 1 : 0;
				if (!d)
					return;
				ev.preventDefault();
				ev.stopPropagation();
				// The end that moves is the one the keys moved last.
				if (tl.a < 0 || (tlKeyEnd !== tl.a && tlKeyEnd !== tl.b))
					tlKeyEnd = tl.b;
				var fixed = tl.a < 0 ? tl.b : tlKeyEnd === tl.b ? tl.a : tl.b;
				var to = Math.max(0, Math.min(tlN - 1, tlKeyEnd + d));
				tlKeyEnd = to;
				if (ev.shiftKey)
					tlRange(fixed, to);
				else
					tlPoint(to);
				tlg.focus();
			});
			tlg.addEventListener("mousedown", function (ev) {
				if (ev.button !== 0)
					return;
				ev.preventDefault();
				tlDrag = { x0: tlEvX(ev), x1: tlEvX(ev) };
			});
			window.addEventListener("mousemove", function (ev) {
				if (!tlDrag)
					return;
				tlDrag.x1 = tlEvX(ev);
				tlDrawBand(Math.min(tlDrag.x0, tlDrag.x1), Math.max(tlDrag.x0, tlDrag.x1));
			});
			window.addEventListener("mouseup", function () {
				if (!tlDrag)
					return;
				var d = tlDrag;
				tlDrag = null;
				if (Math.abs(d.x1 - d.x0) < 4)
					tlPoint(tlNearest(d.x0));
				else
					tlRange(tlNearest(d.x0), tlNearest(d.x1));
			});
		}
		function tlEvX(ev) {
			var r = tlg.getBoundingClientRect();
			return ev.clientX - r.left;
		}
		var tlBand = null;
		function tlDrawBand(x0, x1) {
			if (!tlBand)
				return;
			tlBand.setAttribute("x", x0.toFixed(1));
			tlBand.setAttribute("width", Math.max(1, x1 - x0).toFixed(1));
			tlBand.setAttribute("display", "inline");
		}
		function tlChart() {
			var lines = TLLINES.filter(function (L) {
				return tlHas(L[0]);
			}), maxv = 0, k;
			tlg.textContent = "";
			var bg = el(NS, "rect", { class: "tlbg", x: 0, y: 0, width: lay.Wpx, height: TLCH }, tlg);
			// The legend, with units, in as many rows as the width needs; the
			// plot keeps its height below them.
			var lx = TLM.l, ly = 14;
			lines.forEach(function (L) {
				var sw = el(NS, "rect", { x: lx, y: ly - 7, width: 12, height: 4, fill: L[2] }, tlg);
				var tx = el(NS, "text", { class: "tlax", x: lx + 16, y: ly }, tlg);
				tx.textContent = L[1] + " (bytes)";
				var w = 16 + (tx.getComputedTextLength ? tx.getComputedTextLength() : 7.2 * (L[1].length + 8)) + 14;
				if (lx > TLM.l && lx + w > lay.Wpx - TLM.r) {
					lx = TLM.l;
					ly += 15;
					sw.setAttribute("x", lx);
					sw.setAttribute("y", ly - 7);
					tx.setAttribute("x", lx + 16);
					tx.setAttribute("y", ly);
				}
				lx += w;
			});
			TLM.t = ly + 10;
			TLCH = TLM.t + TLPH + TLM.b;
			bg.setAttribute("height", TLCH);
			var y0 = TLM.t, ph = TLPH;
			lines.forEach(function (L) {
				for (k = 0; k < tlN; k++) {
					var v = tlValue(k, L[0]);
					if (v !== null && v > maxv)
						maxv = v;
				}
			});
			if (!(maxv > 0))
				maxv = 1;
			// A round top: 1, 2 or 5 times a power of 1024 or 10 steps.
			var step = Math.pow(2, Math.ceil(Math.log2(maxv / 4)));
			var ymax = Math.ceil(maxv / step) * step;
			function Y(v) {
				return y0 + ph - ph * v / ymax;
			}
			for (var t = 0; t <= ymax + 0.5; t += step) {
				el(NS, "line", { class: "tlgrid", x1: TLM.l, x2: lay.Wpx - TLM.r, y1: Y(t).toFixed(1), y2: Y(t).toFixed(1) }, tlg);
				el(NS, "text", { class: "tlax", x: TLM.l - 6, y: (Y(t) + 4).toFixed(1), "text-anchor": "end" }, tlg).textContent = tlFmt(t);
			}
			// The x axis: seconds when every snapshot has a time, else the
			// snapshots' ids in their order.
			// A label is left out where it would touch the one before (close
			// snapshots on a time axis, many of them on a narrow one).
			// Times get round ticks (1, 2 or 5 times a power of ten, about
			// one each 70 px) with the decimals their step needs: a label a
			// snapshot read "0.0 0.0 0.0 0.2 0.2 0.2" on the hook's 0.2 s.
			var pw = lay.Wpx - TLM.l - TLM.r, lastEnd = -1e9, ticks = [];
			var T = tlTimed ? TL[tlN - 1].time - TL[0].time : 0;
			if (T > 0) {
				var raw = T / Math.max(2, Math.floor(pw / 70)), mag = Math.pow(10, Math.floor(Math.log10(raw)));
				var tstep = [1, 2, 5, 10].map(function (f) {
					return f * mag;
				}).filter(function (v) {
					return v >= raw * 0.999;
				})[0], dec = Math.max(0, -Math.floor(Math.log10(tstep) + 1e-9));
				for (var tt = 0; tt <= T * (1 + 1e-9); tt += tstep)
					ticks.push([TLM.l + pw * tt / T, tt.toFixed(dec)]);
			} else {
				var every = Math.max(1, Math.ceil(tlN / Math.max(1, pw / 60)));
				for (k = 0; k < tlN; k += every)
					ticks.push([tlX(k), String(TL[k].id)]);
				// The last snapshot (the one the page opens on) is labelled,
				// in place of the label before it if they would touch.
				if ((tlN - 1) % every)
					ticks.push([tlX(tlN - 1), String(TL[tlN - 1].id), true]);
			}
			var prev = null;
			ticks.forEach(function (tk) {
				var lab = el(NS, "text", { class: "tlax", x: tk[0].toFixed(1), y: TLCH - TLM.b + 14, "text-anchor": "middle" }, tlg);
				lab.textContent = tk[1];
				var half = (lab.getComputedTextLength ? lab.getComputedTextLength() : 7 * lab.textContent.length) / 2;
				if (tk[0] - half < lastEnd + 6 && tk[2] && prev) {
					tlg.removeChild(prev);
					lastEnd = tk[0] + half;
				} else if (tk[0] - half < lastEnd + 6) {
					tlg.removeChild(lab);
				} else {
					lastEnd = tk[0] + half;
					prev = lab;
				}
			});
			el(NS, "text", { class: "tlax", x: lay.Wpx - TLM.r, y: TLCH - 4, "text-anchor": "end" }, tlg).textContent =
				tlTimed ? "time (s since the first snapshot)" : "snapshot (sequence number; the dumps carry no time)";
			// The selection: a band for a range, a line for a point.
			var sx0 = tlX(tl.a >= 0 ? tl.a : tl.b), sx1 = tlX(tl.b);
			el(NS, "rect", { id: "tlsel", class: tl.a >= 0 ? "tlrange" : "tlpoint", x: (sx0 - (tl.a >= 0 ? 0 : 1.5)).toFixed(1), y: y0,
				width: Math.max(3, sx1 - sx0).toFixed(1), height: ph }, tlg);
			lines.forEach(function (L) {
				var d = "", pen = "M";
				for (k = 0; k < tlN; k++) {
					var v = tlValue(k, L[0]);
					if (v === null) {
						pen = "M";
						continue;
					}
					d += pen + tlX(k).toFixed(1) + " " + Y(v).toFixed(1);
					pen = "L";
				}
				el(NS, "path", { class: "tlline", d: d, stroke: L[2], "data-key": L[0] }, tlg);
			});
			for (k = 0; k < tlN; k++)
				el(NS, "circle", { class: "tlpt", cx: tlX(k).toFixed(1), cy: Y(tlHeap[k]).toFixed(1), r: 3, "data-k": k,
					fill: TLLINES[TLLINES.length - 1][2] }, tlg);
			tlBand = el(NS, "rect", { class: "tlrange", id: "tlband", x: 0, y: y0, width: 1, height: ph, display: "none" }, tlg);
			// The area that takes clicks and drags.
			el(NS, "rect", { id: "tlhit", x: TLM.l - 8, y: y0, width: lay.Wpx - TLM.l - TLM.r + 16, height: ph + 8, fill: "transparent" }, tlg);
		}
		function tlTable(parentEl, head, rows) {
			var t = html("table", { class: "tlt" }, parentEl), tr = html("tr", {}, html("thead", {}, t)), b = html("tbody", {}, t);
			head.forEach(function (h) {
				html("th", {}, tr, h);
			});
			rows.forEach(function (r) {
				var row = html("tr", {}, b);
				r.forEach(function (c, j) {
					html("td", { class: j ? "num" : "fn" }, row, c);
				});
			});
			return t;
		}
		function tlPanel() {
			tlDiv.textContent = "";
			tlDiv.style.width = lay.Wpx + "px";
			var row = html("div", { class: "tlrow" }, tlDiv);
			var pk = html("button", { id: "tlpeak", type: "button", title: "select the snapshot with the largest sampled heap" }, row, "Peak");
			pk.addEventListener("click", tlPeak);
			var a = tl.a >= 0 ? tl.a : 0, b = tl.b;
			html("span", { id: "tlsum" }, row, tl.a >= 0 ?
				"Growth from " + tlLabel(tl.a) + " to " + tlLabel(tl.b) + ": sampled heap " + tlFmt(tlHeap[tl.a]) + " \u2192 " +
					tlFmt(tlHeap[tl.b]) + " (" + (tlHeap[tl.b] >= tlHeap[tl.a] ? "+" : "\u2212") + tlFmt(Math.abs(tlHeap[tl.b] - tlHeap[tl.a])) + ")" :
				tlLabel(b) + ": sampled heap " + tlFmt(tlHeap[b]) + ". Click the chart for a snapshot, drag for the growth between two.");
			var cols = html("div", { class: "tlcols" }, tlDiv);
			var g = html("div", { id: "tlgrowth", class: "tlbox" }, cols);
			html("div", { class: "tlh" }, g, tl.a >= 0 || b > 0 ? "Grew most, " + tlLabel(a) + " \u2192 " + tlLabel(b) : "Grew most (select a later snapshot or a range)");
			// Every site that grew, in a box that scrolls (the first
			// TLGROWMAX; the functions table, sorted by change, has them all).
			var gr = a < b ? tlGrowth(a, b, Infinity) : [], ng = gr.length;
			if (ng > TLGROWMAX)
				gr = gr.slice(0, TLGROWMAX);
			var gs = html("div", { class: "tlscroll" }, g);
			var gt = tlTable(gs, ["function (self)", "start", "end", "growth"], gr.map(function (r) {
				return [r.name, tlFmt(r.start), tlFmt(r.end), "+" + tlFmt(r.growth)];
			}));
			// The note's line is kept when empty: a selection never moves
			// the graph below.
			html("div", { class: "tlnote" }, g, a >= b ? "" : ng > TLGROWMAX ? ng + " sites grew; the first " + TLGROWMAX +
				" here, all of them in Functions (sorted by change)" : ng + (ng === 1 ? " site grew" : " sites grew"));
			Array.prototype.forEach.call(gt.tBodies[0].rows, function (tr, j) {
				tr.addEventListener("click", function () {
					m.tables.pickFunction(gr[j].k);
				});
			});
			var w = html("div", { id: "tlrss", class: "tlbox" }, cols);
			var B = tlBreakdown(b);
			html("div", { class: "tlh" }, w, "Where is my RSS, " + tlLabel(b));
			var rows = [], kinds = [], whys = [];
			function addRow(kind, name, bytes, share) {
				rows.push([name, tlFmt(bytes), share ? pct(bytes, B.top) : ""]);
				kinds.push(kind);
			}
			// Why a figure is capped comes first: the table's rows read
			// right after it.
			B.notes.forEach(function (t) {
				html("div", { class: "tlnote" }, w, t);
			});
			if (B.parts) {
				// RSS, its parts (each saying what releases it), then the
				// figures jemalloc and the profile give, for reference.
				addRow("level", "rss", B.top, true);
				B.parts.forEach(function (P) {
					addRow("part", "\u2003" + P.name, P.bytes, true);
					whys[rows.length - 1] = P.why;
				});
				B.levels.slice(1).concat(B.info).forEach(function (L) {
					addRow("info", L.name, L.raw !== undefined ? L.raw : L.bytes, false);
				});
			}
			(B.parts ? [] : B.levels).forEach(function (L, j) {
				addRow("level", L.name + (L.raw !== L.bytes ? " (" + tlFmt(L.raw) + " reported)" : ""), L.bytes, true);
				if (j < B.gaps.length && B.gaps[j].over > 0) {
					// No gap to show: the level below was reported above this one.
					rows.push(["\u2003" + B.gaps[j].name + ": none (" + B.levels[j + 1].name + " over by " + tlFmt(B.gaps[j].over) + ")",
						"\u2014", ""]);
					kinds.push("gap");
				} else if (j < B.gaps.length) {
					addRow("gap", "\u2003" + B.gaps[j].name, B.gaps[j].bytes, true);
					B.gaps[j].parts.forEach(function (P) {
						addRow("part", "\u2003\u2003of which " + P.name, P.bytes, true);
					});
				}
			});
			(B.parts ? [] : B.info).forEach(function (I) {
				addRow("info", I.name, I.bytes, false);
			});
			var bt = tlTable(w, ["", "bytes", "share"], rows);
			Array.prototype.forEach.call(bt.tBodies[0].rows, function (tr, j) {
				tr.setAttribute("class", kinds[j]);
				if (whys[j])
					tr.setAttribute("title", whys[j]);
			});
			html("div", { id: "tlsentence" }, w, B.sentence);
		}
		// Lays the timeline out at y (called by measure() on every draw);
		// returns its height, 0 without a series.
		function tlMeasure(y) {
			if (!TL)
				return 0;
			if (!tlg)
				tlBuild();
			// The column shown may come from the URL or the column menu.
			if (tl.a < 0 && state.col < tlN)
				tl.b = state.col;
			tlMenu();
			tlg.setAttribute("transform", "translate(0," + y + ")");
			tlChart();
			tlPanel();
			tlfo.setAttribute("width", lay.Wpx);
			tlfo.setAttribute("y", y + TLCH);
			// The panel never shrinks at one width: a snapshot with fewer
			// notes, or a shorter selection, leaves the graph where it was.
			var ph = Math.ceil(tlDiv.getBoundingClientRect().height || 120) + 4;
			if (tlMax.w === lay.Wpx && tlMax.h > ph)
				ph = tlMax.h;
			tlMax = { w: lay.Wpx, h: ph };
			tlDiv.style.minHeight = ph - 4 + "px";
			tlfo.setAttribute("height", ph);
			return TLCH + ph;
		}
		// The selection in the URL, by snapshot id: p=ID (a point other
		// than the last), g=ID,ID (a range).
		function tlHash(h) {
			if (tl.a >= 0)
				h.push("g=" + encodeURIComponent(TL[tl.a].id) + "," + encodeURIComponent(TL[tl.b].id));
			else if (tl.b !== tlN - 1)
				h.push("p=" + encodeURIComponent(TL[tl.b].id));
		}
		var tlPend = null;
		function tlIndex(id) {
			for (var k = 0; k < tlN; k++)
				if (String(TL[k].id) === id)
					return k;
			return -1;
		}
		function tlUnhash(key, v) {
			var ids = v.split(","), a = tlIndex(ids[0]), b = ids.length > 1 ? tlIndex(ids[1]) : -1;
			if (key === "p" && a >= 0)
				tlPend = { a: -1, b: a };
			else if (key === "g" && a >= 0 && b >= 0 && a !== b)
				tlPend = { a: Math.min(a, b), b: Math.max(a, b) };
		}
		// At start, before the first draw.
		function tlRestore() {
			if (!tlPend && state.col < tlN)
				tlPend = { a: -1, b: state.col };
			if (!tlPend)
				return;
			tl.a = tlPend.a;
			tl.b = tlPend.b;
			tlPend = null;
			if (tl.a >= 0) {
				tlFill();
				D.diff = 1;
				state.col = tlN + 2;
			} else {
				D.diff = 0;
				state.col = tl.b;
			}
			tlMenu();
		}
		// A new tree (flame-invert.js): the growth columns again.
		function afterTree() {
			if (TL && tl.a >= 0)
				tlFill();
		}
		if (TL && colSel)
			colSel.addEventListener("change", function () {
				// Before the page's own handler, which redraws.
				tl.a = -1;
				tl.b = +colSel.value;
				D.diff = 0;
			});
		// For tests and scripting (window.fk.timeline); null without a series.
		var tlApi = !TL ? null : {
			count: tlN,
			selection: function () {
				return { a: tl.a, b: tl.b, col: state.col, diff: !!D.diff };
			},
			point: tlPoint,
			range: tlRange,
			peak: tlPeak,
			heap: function (k) {
				return tlHeap[k];
			},
			growth: function (max) {
				return tlGrowth(tl.a >= 0 ? tl.a : 0, tl.b, max).map(function (r) {
					return { name: r.name, start: r.start, end: r.end, growth: r.growth };
				});
			},
			breakdown: function () {
				return tlBreakdown(tl.b);
			},
			// The chart's x of snapshot k, in the page's pixels.
			x: function (k) {
				var r = tlg.getBoundingClientRect();
				return r.left + tlX(k);
			},
			y: function () {
				var r = tlg.getBoundingClientRect();
				return r.top + TLM.t + TLPH / 2;
			}
		};
		return { present: !!TL, count: tlN, measure: tlMeasure, hash: tlHash, unhash: tlUnhash, restore: tlRestore,
			afterTree: afterTree, afterReorder: afterReorder, api: tlApi };
	}
