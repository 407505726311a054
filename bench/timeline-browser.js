// SPDX-License-Identifier: MIT
// The timeline page of bench/series.sh's series (100 snapshots of a 10k-stack
// heap by default) in headless Chromium: load until usable (script ready,
// chart and graph drawn), a click on a snapshot, a drag over the whole
// range (the growth view) and the peak button, each timed with the layout
// it causes. Medians of RUNS page loads.
// Usage: B=DIR node bench/timeline-browser.js [RUNS]  (after bench/series.sh)
"use strict";
const fs = require("fs");
const path = require("path");
const top = path.resolve(__dirname, "..");
const { launch } = require(path.join(top, "tests/browser/lib.js"));
const runs = +(process.argv[2] || 5);
const work = process.env.FK_BENCH_DIR || "/tmp/fk-bench-series";
const svg = path.join(work, "series.svg");
const med = (a) => a.slice().sort((x, y) => x - y)[Math.floor(a.length / 2)];

(async () => {
	const { ctx, close } = await launch();
	const load = [], click = [], drag = [], peak = [];
	let info = null;
	for (let r = 0; r < runs; r++) {
		const page = await ctx.newPage();
		const t0 = Date.now();
		await page.goto("file://" + svg);
		await page.waitForFunction(() => window.fk && document.querySelectorAll("#view > *").length > 0 &&
			document.querySelectorAll("#timeline circle").length > 0, null, { timeout: 120000, polling: 20 });
		load.push(Date.now() - t0);
		const t = await page.evaluate(() => {
			const T = window.fk.timeline, out = [];
			for (const f of [() => T.point(Math.floor(T.count / 2)), () => T.range(0, T.count - 1), () => T.peak()]) {
				const a = performance.now();
				f();
				document.documentElement.getBoundingClientRect();
				out.push(performance.now() - a);
			}
			return { t: out, n: window.fk.n, count: T.count };
		});
		click.push(t.t[0]);
		drag.push(t.t[1]);
		peak.push(t.t[2]);
		info = t;
		await page.close();
	}
	await close();
	console.log(`page: ${(fs.statSync(svg).size / 1e6).toFixed(1)} MB, ${info.count} snapshots, ${info.n} frames`);
	console.log(`load to usable: ${med(load)} ms median (${load.join(" ")})`);
	console.log(`click a snapshot: ${med(click).toFixed(0)} ms; drag (growth): ${med(drag).toFixed(0)} ms; peak: ${med(peak).toFixed(0)} ms`);
})();
