// SPDX-License-Identifier: MIT
// flame-lifetimes.js: the lifetimes page (heap-lifetimes --format columns,
// the hook's /internal/heap/lifetimes?format=flame): its columns are
// "all" and one per lifetime bucket (core/life.c's names), and the
// details of a selected frame end with its histogram over them, bytes by
// how long they lived, as a bar a bucket; with nothing selected the
// details show every recorded byte's. A bucket finer than the clock's
// tick (the "# info: clock_ms=" line: jemalloc's coarse clock ticks every
// 4 ms) says what it means at that tick. Each frame's colour is the
// bucket its bytes' median lifetime falls in (cls, legend), so the first
// screen shows what lives long and what dies young. Other pages are left
// as they are.
// exports: lines, overview, cls, legend
// needs: data
	function fkLifetimes(m) {
		var { colNames, fmtIn, pct, info } = m.data;
		var tot;
		m.data.onTree(function (t) {
			tot = t.tot;
		});
		var LIFE = ["under-1ms", "under-10ms", "under-100ms", "under-1s", "under-10s",
			"under-1min", "over-1min", "live"];
		var lifeCols = (function () {
			var cs = [];
			if (colNames[0] !== "all")
				return cs;
			LIFE.forEach(function (b) {
				var c = colNames.indexOf(b);
				if (c > 0)
					cs.push(c);
			});
			return cs.length === LIFE.length ? cs : [];
		})();
		// Each bucket's bound in ms (live: none).
		var BOUND = [1, 10, 100, 1000, 10000, 60000, Infinity, -1], tick = +info.clock_ms > 0 ? +info.clock_ms : 0;
		// The histogram of frame j as lines of the details box.
		function lifeLines(j) {
			if (!lifeCols.length || j < 0)
				return [];
			var max = 0, lines = ["lifetime of its bytes (each bucket up to its bound; live: not freed yet)"];
			lifeCols.forEach(function (c) {
				max = Math.max(max, tot[c][j]);
			});
			lifeCols.forEach(function (c, k) {
				var v = tot[c][j], w = max > 0 ? Math.round(24 * v / max) : 0;
				lines.push((colNames[c] + "            ").slice(0, 12) + " " + "\u2588".repeat(w) +
					(v > 0 && !w ? "\u258f" : "") + " " + fmtIn(c, v) + " (" + pct(v, tot[0][j]) + ")" +
					(BOUND[k] > 0 && BOUND[k] <= tick ? " \u2014 " + tick + " ms clock: freed in the same tick, under " + tick + " ms" : ""));
			});
			return lines;
		}
		// The details with nothing selected: every recorded byte's
		// histogram (the root's), on the first screen.
		function overview() {
			return lifeCols.length ? ["Every recorded allocation (point at a frame for its own):"].concat(lifeLines(0)) : [];
		}
		// Class lK: the bucket where half of frame j's bytes are counted,
		// shortest first ("live" last); "" on other pages or for a frame
		// with none.
		function cls(j) {
			if (!lifeCols.length)
				return "";
			var s = 0, h = 0, k;
			for (k = 0; k < lifeCols.length; k++)
				s += tot[lifeCols[k]][j];
			if (!(s > 0))
				return "";
			for (k = 0; k < lifeCols.length; k++)
				if ((h += tot[lifeCols[k]][j]) * 2 >= s)
					break;
			return "l" + k;
		}
		// The legend's swatches, [class, bucket] shortest first; null on
		// other pages.
		function legend() {
			return lifeCols.length ? lifeCols.map(function (c, k) {
				return ["l" + k, colNames[c]];
			}) : null;
		}
		return { lines: lifeLines, overview: overview, cls: cls, legend: legend };
	}
