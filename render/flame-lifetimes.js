// SPDX-License-Identifier: MIT
// flame-lifetimes.js: the lifetimes page (heap-lifetimes --format columns,
// the hook's /internal/heap/lifetimes?format=flame): its columns are
// "all" and one per lifetime bucket (core/life.c's names), and the
// details of a selected frame end with its histogram over them, bytes by
// how long they lived, as a bar a bucket. Other pages are left as they
// are.
// exports: lines
// needs: data
	function fkLifetimes(m) {
		var { colNames, fmtIn, pct } = m.data;
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
		// The histogram of frame j as lines of the details box.
		function lifeLines(j) {
			if (!lifeCols.length || j < 0)
				return [];
			var max = 0, lines = ["lifetime of its bytes (each bucket up to its bound; live: not freed yet)"];
			lifeCols.forEach(function (c) {
				max = Math.max(max, tot[c][j]);
			});
			lifeCols.forEach(function (c) {
				var v = tot[c][j], w = max > 0 ? Math.round(24 * v / max) : 0;
				lines.push((colNames[c] + "            ").slice(0, 12) + " " + "\u2588".repeat(w) +
					(v > 0 && !w ? "\u258f" : "") + " " + fmtIn(c, v) + " (" + pct(v, tot[0][j]) + ")");
			});
			return lines;
		}
		return { lines: lifeLines };
	}
