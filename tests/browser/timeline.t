#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Browser tests of the timeline page render-flame draws for a series
// input, in headless Chromium: on a real run of series-prog (interval
// dumps through heap-series) the chart is there with a point a snapshot,
// a click shows that snapshot's flame graph, the peak button selects the
// spike (top function spike_alloc), a drag from the first to the last
// snapshot shows the growth graph with grow_cache on top of the grew-most
// table; on a hand-written series with jemalloc's figures, the lines are
// drawn, a vanished frame stays visible in the growth view, and "Where is
// my RSS" adds up to RSS and names the biggest gap.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { execFileSync } = require("child_process");
const { ok, session, openPage, render, tlSelection, tlDrag } = require("./lib.js");

const top = path.resolve(__dirname, "../..");
const B = path.resolve(top, process.env.B || "build");

const open = openPage;
// Column totals and per-column self values by leaf frame, from the folded text.
function columns(text) {
	const lines = text.split("\n"), nc = lines[0].split(" ").length - 2, tot = new Array(nc).fill(0), leaf = [];
	for (let c = 0; c < nc; c++)
		leaf.push({});
	for (const l of lines) {
		if (!l || l[0] === "#")
			continue;
		const f = l.split(" "), fr = f[0].split(";"), name = fr[fr.length - 1];
		for (let c = 0; c < nc; c++) {
			const v = +f[f.length - nc + c];
			tot[c] += v;
			leaf[c][name] = (leaf[c][name] || 0) + v;
		}
	}
	return { nc, tot, leaf };
}
const sel = tlSelection, drag = tlDrag;

session("fk-tl-", async ({ ctx, dir }) => {
	execFileSync(path.join(top, "tests/hook/series-run.sh"), [B, path.join(dir, "d")]);
	const dumps = fs.readdirSync(path.join(dir, "d")).filter((f) => f.endsWith(".heap")).map((f) => path.join(dir, "d", f));
	const folded = execFileSync(path.join(B, "heap-series"), dumps).toString();
	const C = columns(folded);
	ok(C.nc === dumps.length && C.nc >= 8, "heap-series made a column a dump", C.nc);
	const svg = render(folded, [], "series");
	let { page, errors } = await open(ctx, svg);
	ok(errors.length === 0, "the timeline page loads without script errors", errors.join("; "));
	ok(await page.title() === "Heap over time", "its title says what it is", await page.title());
	const chart = await page.evaluate(() => ({
		pts: document.querySelectorAll("#timeline circle.tlpt").length,
		lines: Array.from(document.querySelectorAll("#timeline path.tlline")).map((p) => p.getAttribute("data-key")),
		axis: Array.from(document.querySelectorAll("#timeline text")).map((t) => t.textContent).join("|"),
		top: document.getElementById("timeline").getBoundingClientRect().top,
		root: window.fk.geom(0).y }));
	ok(chart.pts === C.nc, "the chart has a point a snapshot", JSON.stringify(chart.pts));
	ok(chart.lines.length === 1 && chart.lines[0] === "heap", "dumps alone give the sampled heap line only", chart.lines.join());
	ok(/sequence number/.test(chart.axis), "the axis says it counts snapshots when dumps carry no time", chart.axis.slice(-80));
	ok(chart.root > chart.top, "the flame graph is below the chart", JSON.stringify(chart));
	let s = await sel(page);
	ok(s.b === C.nc - 1 && s.a === -1, "the page opens on the last snapshot", JSON.stringify(s));
	// Every column, as the page decodes its table (runs of equal values
	// and changes from column to column), totals what the input says.
	const heaps = await page.evaluate(() => Array.from({ length: window.fk.timeline.count }, (_, j) => window.fk.timeline.heap(j)));
	ok(JSON.stringify(heaps) === JSON.stringify(C.tot), "each snapshot's sampled heap equals its column's total in the input", heaps.join() + " vs " + C.tot.join());

	// A click on a point shows that snapshot's graph.
	const k = 2, x = await page.evaluate((j) => window.fk.timeline.x(j), k), y = await page.evaluate(() => window.fk.timeline.y());
	await page.mouse.click(x, y);
	s = await sel(page);
	const rootv = await page.evaluate(() => window.fk.value(0));
	ok(s.b === k && s.a === -1 && !s.diff, "a click selects that snapshot", JSON.stringify(s));
	ok(rootv === C.tot[k], "and the flame graph shows its column", rootv + " vs " + C.tot[k]);

	// The peak button: the spike.
	let peak = 0;
	for (let c = 1; c < C.nc; c++)
		if (C.tot[c] > C.tot[peak])
			peak = c;
	await page.click("#tlpeak");
	s = await sel(page);
	ok(s.b === peak && !s.diff, "the peak button selects the highest snapshot", JSON.stringify(s) + " peak " + peak);
	let topf = await page.evaluate(() => window.fk.top()[0]);
	ok(topf.name === "spike_alloc", "the peak snapshot's top function is spike_alloc", JSON.stringify(topf));
	ok(await page.evaluate(() => window.fk.value(0)) === C.tot[peak], "and the graph shows the peak's total", "");
	await page.evaluate(() => window.fk.top());   // close the table again below
	await page.click("#tablebtn");

	// A drag from the first to the last snapshot: the growth graph.
	await drag(page, 0, C.nc - 1);
	s = await sel(page);
	ok(s.a === 0 && s.b === C.nc - 1 && s.diff, "a drag selects the range and the growth view", JSON.stringify(s));
	const grew = await page.evaluate(() => Array.from(document.querySelectorAll("#tlgrowth tbody tr td.fn")).map((t) => t.textContent));
	ok(grew[0] === "grow_cache", "grew most: grow_cache on top", grew.join());
	ok(!grew.includes("spike_alloc"), "and spike_alloc is not among the sites that grew", grew.join());
	const g = await page.evaluate(() => { const j = window.fk.find("grow_cache"); return { v: window.fk.value(j), cls: window.fk.el(j).getAttribute("class") }; });
	ok(/(^| )r[1-5]( |$)/.test(g.cls), "grow_cache is drawn in a grew colour", JSON.stringify(g));
	const legend = await page.evaluate(() => document.getElementById("legend").textContent);
	ok(/change of each frame/.test(legend), "the legend explains the differential colours", legend);
	const br = await page.evaluate(() => window.fk.timeline.breakdown());
	ok(br.levels.length === 1 && /no memory figures/.test(br.sentence), "an offline dump's breakdown says it has only the sampled heap", JSON.stringify(br));
	await page.close();

	// A hand-written series with jemalloc's figures.
	const hand = "# columns: 1/bytes 2/bytes 3/bytes\n" +
		"# series: 1 time=10 allocated=3000 active=4000 resident=6000 mapped=9000 rss=10000\n" +
		"# series: 2 time=11 allocated=5000 active=6000 resident=8000 mapped=9000 rss=12000\n" +
		"# series: 3 time=13 allocated=6000 active=8000 resident=12000 mapped=16000 rss=18500\n" +
		"main;grow_cache 1000 2000 4000\nmain;spike_alloc 0 3000 0\nmain;gone;leaf 500 200 0\n";
	({ page, errors } = await open(ctx, render(hand, [], "hand")));
	ok(errors.length === 0, "the hand-written series loads without script errors", errors.join("; "));
	const lines = await page.evaluate(() => Array.from(document.querySelectorAll("#timeline path.tlline")).map((p) => p.getAttribute("data-key")).sort());
	ok(JSON.stringify(lines) === JSON.stringify(["active", "allocated", "heap", "mapped", "resident", "rss"]), "the chart draws every figure as a line", lines.join());
	const units = await page.evaluate(() => Array.from(document.querySelectorAll("#timeline text.tlax")).map((t) => t.textContent).join("|"));
	ok(/KiB/.test(units) && /bytes/.test(units) && /time \(s/.test(units), "with units and a time axis", units);
	const b = await page.evaluate(() => window.fk.timeline.breakdown());
	const sum = b.gaps.reduce((a, x) => a + x.bytes, 0) + b.levels[b.levels.length - 1].bytes;
	ok(b.levels[0].key === "rss" && b.levels[0].bytes === 18500 && sum === 18500, "the RSS breakdown adds up to RSS", JSON.stringify(b));
	ok(b.levels.map((l) => l.key).join() === "rss,resident,active,allocated,heap", "from RSS through resident, active, allocated to the sampled heap", b.levels.map((l) => l.key).join());
	const shown = await page.evaluate(() => Array.from(document.querySelectorAll("#tlrss tbody tr")).map((r) => Array.from(r.cells).map((c) => c.textContent)));
	ok(shown.length === 10 && shown[0][2] === "100.00%" && shown[1][1] === "6.35 KiB" && /^mapped/.test(shown[9][0]),
	   "the panel shows each level and gap with bytes and share, and mapped on a line of its own", JSON.stringify(shown));
	const sent = await page.evaluate(() => document.getElementById("tlsentence").textContent);
	ok(/biggest gap is rss \u2212 resident/.test(sent), "a sentence names the biggest gap", sent);
	await drag(page, 0, 2);
	const gone = await page.evaluate(() => { const j = window.fk.find("leaf"); return { v: window.fk.value(j), cls: window.fk.el(j) && window.fk.el(j).getAttribute("class") }; });
	ok(gone.v === 500 && /(^| )b5( |$)/.test(gone.cls), "a vanished frame stays visible in the growth view, deepest blue", JSON.stringify(gone));
	const sp = await page.evaluate(() => window.fk.find("spike_alloc"));
	ok(await page.evaluate((j) => window.fk.value(j), sp) === 0, "the spike, absent at both ends, has no width in the growth", "");
	await page.click("#tlpeak");
	s = await sel(page);
	ok(s.b === 1, "peak selects the spike's snapshot", JSON.stringify(s));
	const pb = await page.evaluate(() => window.fk.timeline.breakdown());
	ok(pb.levels[0].bytes === 12000, "the breakdown follows the selected point", JSON.stringify(pb.levels[0]));
	await page.focus("#timeline");
	await page.keyboard.press("ArrowRight");
	s = await sel(page);
	ok(s.b === 2 && s.a === -1, "the right arrow selects the next snapshot", JSON.stringify(s));
	await page.keyboard.press("Shift+ArrowLeft");
	await page.keyboard.press("Shift+ArrowLeft");
	s = await sel(page);
	ok(s.a === 2 && s.b === 0 || s.a === 0 && s.b === 2, "Shift+arrows select a range", JSON.stringify(s));
	await page.close();

	// A series with RSS's parts (as the hook writes them): the waste
	// line, and the panel's parts adding up to RSS; past RSS (jemalloc's
	// counts are upper bounds), the rest is 0 and a note says by how much.
	const parts = " hook=500 tcache=100 slab_holes=700 slab_tails=0 large_pad=200 dirty=1500 muzzy=0 metadata_resident=400 files=2000 waste=2900\n";
	const wasteSeries = "# columns: 1/bytes 2/bytes\n" +
		"# series: 1 time=10 allocated=3000 active=4000 resident=6000 rss=10000" + parts +
		"# series: 2 time=11 allocated=3000 active=4000 resident=6000 rss=8000" + parts +
		"main;grow_cache 1000 2000\n";
	({ page, errors } = await open(ctx, render(wasteSeries, [], "waste")));
	ok(errors.length === 0, "a series with RSS's parts loads without script errors", errors.join("; "));
	const wl = await page.evaluate(() => Array.from(document.querySelectorAll("#timeline path.tlline")).map((p) => p.getAttribute("data-key")));
	ok(wl.includes("waste") && !wl.includes("slab_holes"), "the waste line is drawn (the parts are the panel's)", wl.join());
	const wb = await page.evaluate(() => window.fk.timeline.breakdown());
	ok(wb.over === 300 && wb.parts[wb.parts.length - 1].bytes === 0 && wb.notes.some((t) => /exceed the process's RSS .* by 300 B/.test(t)),
	   "past RSS: the rest is 0 and a note says by how much", JSON.stringify(wb));
	await page.focus("#timeline");
	await page.keyboard.press("ArrowLeft");
	const wb0 = await page.evaluate(() => window.fk.timeline.breakdown());
	ok(wb0.over === 0 && wb0.parts.reduce((a, x) => a + x.bytes, 0) === 10000 && wb0.parts[0].bytes === 2900 &&
	   wb0.parts[wb0.parts.length - 1].bytes === 1700, "the parts add up to RSS: live (allocated less tcache) through the rest",
	   JSON.stringify(wb0.parts.map((x) => x.key + "=" + x.bytes)));
	const wrows = await page.evaluate(() => Array.from(document.querySelectorAll("#tlrss tbody tr.part")).map((r) =>
		[r.cells[0].textContent.trim(), r.cells[1].textContent, r.getAttribute("title")]));
	ok(wrows.length === 11 && wrows[2][0] === "slab holes" && wrows[2][1] === "700 B" && /muzzy_decay_ms/.test(wrows[6][2]),
	   "the panel lists each part with its bytes and what releases it", JSON.stringify(wrows));
	const wsent = await page.evaluate(() => document.getElementById("tlsentence").textContent);
	ok(/^Live objects are 29\.00% of RSS and jemalloc's waste 2\.83 KiB \(29\.00%\)\. The biggest part past the live objects is file-backed/.test(wsent),
	   "the sentence: the live share, the waste, the biggest part and what releases it", wsent);
	await page.close();

	// At 480 px: the legend wraps inside the window and below the
	// header (whose height changes after the first draw), and no two
	// x labels touch, though two snapshots lie 0.1 s apart.
	const close2 = hand.replace("time=11 ", "time=10.1 ");
	const narrow = await ctx.newPage();
	await narrow.setViewportSize({ width: 480, height: 800 });
	await narrow.goto("file://" + render(close2, [], "narrow"));
	await narrow.waitForFunction(() => window.fk, null, { timeout: 60000 });
	const geo = await narrow.evaluate(() => {
		const hb = document.querySelector("#hdr > div").getBoundingClientRect().bottom;
		const texts = Array.from(document.querySelectorAll("#timeline text.tlax")).map((t) => ({ s: t.textContent, r: t.getBoundingClientRect() }));
		const legend = texts.filter((t) => /\(bytes\)$/.test(t.s));
		const xl = texts.filter((t) => /^\d+(\.\d+)?$/.test(t.s)).map((t) => t.r).sort((a, b) => a.left - b.left);
		let touch = 0;
		for (let k = 1; k < xl.length; k++)
			if (xl[k].left < xl[k - 1].right + 2)
				touch++;
		return { hb, n: legend.length, top: Math.min(...legend.map((t) => t.r.top)), right: Math.max(...legend.map((t) => t.r.right)),
			xl: xl.length, touch, w: window.innerWidth };
	});
	ok(geo.n === 6 && geo.top >= geo.hb && geo.right <= geo.w, "at 480 px the legend is whole, inside the window and below the header", JSON.stringify(geo));
	ok(geo.xl >= 2 && geo.touch === 0, "and no two x-axis labels touch", JSON.stringify(geo));
	await narrow.close();

	// Hostile frame names reach the tables as text only.
	const evil = "<img src=x onerror=window.__x=1>", evil2 = "\"]</script><script>window.__x=2</script>";
	const hostile = "# columns: 1/bytes 2/bytes\n# series: 1\n# series: 2\n" +
		"main;" + evil + " 1 50\nmain;" + evil2 + " 0 20\n";
	({ page, errors } = await open(ctx, render(hostile, [], "hostile")));
	await drag(page, 0, 1);
	const hx = await page.evaluate(() => ({ x: window.__x, rows: Array.from(document.querySelectorAll("#tlgrowth tbody td.fn")).map((t) => t.textContent),
		imgs: document.querySelectorAll("img").length }));
	ok(errors.length === 0 && hx.x === undefined && hx.imgs === 0, "hostile names run nothing", JSON.stringify(hx) + errors.join("; "));
	ok(hx.rows[0] === evil && hx.rows[1] === evil2, "and show as the text they are", JSON.stringify(hx.rows));
	await page.close();
});
