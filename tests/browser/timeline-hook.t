#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// The hook's own timeline page (GET /internal/heap/timeline) in headless
// Chromium, on a live run of series-prog under the hook with a snapshot
// after each step (tests/hook/timeline-run.sh): a point a snapshot, a
// click shows that snapshot's flame graph, the peak button selects the
// spike (top function spike_alloc), a drag from the first to the last
// snapshot shows the growth with grow_cache on top and spike_alloc not
// among the sites that grew, and "Where is my RSS" adds up to the RSS the
// hook recorded, through jemalloc's figures and RSS's parts (the waste
// line drawn, the panel listing the parts). Both the timeline and the
// live heap's page (?format=flame) say where they come from on the first
// screen (the program, its pid, the sample period); the live page links to
// the process's waste page from its header, has the
// four heap sample types, allocated space holding the freed spike that
// in-use space does not, and turns over (callers first) in any of them.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { execFileSync } = require("child_process");
const { ok, session, tlSelection, tlDrag } = require("./lib.js");

const top = path.resolve(__dirname, "../..");
const B = path.resolve(top, process.env.B || "build");

const sel = tlSelection, drag = tlDrag;

session("fk-tlhook-", async ({ ctx, dir }) => {
	execFileSync(path.join(top, "tests/hook/timeline-run.sh"), [B, dir]);
	const J = JSON.parse(fs.readFileSync(path.join(dir, "timeline.json"), "utf8"));
	const snaps = J.snapshots, nc = snaps.length;
	ok(nc >= 8, "the hook kept a snapshot a step", nc);
	const page = await ctx.newPage();
	const errors = [];
	page.on("pageerror", (e) => errors.push(String(e)));
	await page.goto("file://" + path.join(dir, "timeline.svg"));
	await page.waitForFunction(() => window.fk && window.fk.timeline, null, { timeout: 60000 });
	ok(errors.length === 0, "the hook's timeline page loads without script errors", errors.join("; "));
	const chart = await page.evaluate(() => ({
		pts: document.querySelectorAll("#timeline circle.tlpt").length,
		lines: Array.from(document.querySelectorAll("#timeline path.tlline")).map((p) => p.getAttribute("data-key")).sort(),
		// Every figure the data carries, and the sampled heap.
		// (RSS's parts past the live objects are the panel's, their sum the
		// waste line.)
		keys: Array.from(new Set(["heap"].concat(...JSON.parse(document.getElementById("fkseries").textContent).map((m) =>
			Object.keys(m).filter((k) => k !== "id" && k !== "time" && typeof m[k] === "number" &&
				!["tcache", "slab_holes", "slab_tails", "large_pad", "dirty", "muzzy", "metadata_resident", "files"].includes(k)))))).sort() }));
	ok(chart.pts === nc, "a point a snapshot", chart.pts + " of " + nc);
	ok(["active", "allocated", "heap", "mapped", "resident", "rss", "waste"].every((k) => chart.lines.includes(k)) &&
	   JSON.stringify(chart.lines) === JSON.stringify(chart.keys),
	   "the sampled heap and every figure the data carries (jemalloc's, the RSS, the waste) as lines", chart.lines.join() + " vs " + chart.keys.join());

	// A click: that snapshot's graph, whose total is its sampled heap.
	const k = 2;
	await page.mouse.click(await page.evaluate((j) => window.fk.timeline.x(j), k),
			       await page.evaluate(() => window.fk.timeline.y()));
	let s = await sel(page);
	const rootv = await page.evaluate(() => window.fk.value(0));
	ok(s.b === k && s.a === -1 && !s.diff, "a click selects that snapshot", JSON.stringify(s));
	ok(Math.abs(rootv - snaps[k].sampled_bytes) <= 2, "and shows its flame graph (its sampled heap)", rootv + " vs " + snaps[k].sampled_bytes);

	// Peak: the spike.
	await page.click("#tlpeak");
	s = await sel(page);
	const pk = s.b, hp = snaps.findIndex((x) => x.id === J.peak);
	ok(snaps[pk].sampled_bytes === Math.max(...snaps.map((x) => x.sampled_bytes)) &&
	   snaps[pk].sampled_bytes === snaps[hp].sampled_bytes,
	   "the peak button selects the highest sampled heap, the hook's peak", JSON.stringify(s) + " hook's peak " + hp);
	const topf = await page.evaluate(() => window.fk.top()[0]);
	ok(topf.name === "spike_alloc", "its top function is spike_alloc", JSON.stringify(topf));
	await page.click("#tablebtn");

	// "Where is my RSS" at the peak: the hook's own figures, adding up.
	const b = await page.evaluate(() => window.fk.timeline.breakdown());
	const sum = b.gaps.reduce((a, x) => a + x.bytes, 0) + b.levels[b.levels.length - 1].bytes;
	ok(b.levels[0].key === "rss" && b.levels[0].bytes === snaps[pk].rss && sum === snaps[pk].rss,
	   "the RSS breakdown adds up to the RSS the hook recorded", JSON.stringify(b.levels) + " " + snaps[pk].rss);
	ok(b.levels.map((l) => l.key).join() === "rss,resident,active,allocated,heap", "through resident, active and allocated to the sampled heap",
	   b.levels.map((l) => l.key).join());
	// RSS's parts: from the live objects through jemalloc's waste, the
	// hook's arena and files to the rest, adding up to RSS (less what
	// jemalloc counts past it, said in a note); the panel lists them,
	// each saying what releases it.
	const P = b.parts || [], psum = P.reduce((a, x) => a + x.bytes, 0);
	ok(P.map((x) => x.key).join() === "live,tcache,slab_holes,slab_tails,large_pad,dirty,muzzy,metadata_resident,hook,files,other" &&
	   psum - b.over === snaps[pk].rss && (b.over === 0 || b.notes.some((t) => /^The parts exceed the process's RSS/.test(t))),
	   "RSS's parts, live through the rest, add up to the RSS the hook recorded", JSON.stringify(P) + " over " + b.over + " " + snaps[pk].rss);
	ok(P.length && P[0].bytes === snaps[pk].allocated - snaps[pk].tcache && P[2].bytes === snaps[pk].slab_holes,
	   "live is allocated less the thread caches, the slab holes the hook's figure", JSON.stringify(P.slice(0, 3)));
	const rssp = await page.evaluate(() => Array.from(document.querySelectorAll("#tlrss tbody tr")).map((r) =>
		({ cls: r.getAttribute("class"), name: r.cells[0].textContent.trim(), why: r.getAttribute("title") || "" })));
	const shownp = rssp.filter((r) => r.cls === "part");
	ok(rssp[0].name === "rss" && shownp.map((r) => r.name).join() === P.map((x) => x.name).join() &&
	   shownp.every((r) => r.why.length > 20) && /dirty_decay_ms/.test(shownp[5].why),
	   "the panel lists the parts under RSS, each saying what releases it", JSON.stringify(rssp));
	const psent = await page.evaluate(() => document.getElementById("tlsentence").textContent);
	ok(/^Live objects are [0-9.]+% of RSS and jemalloc's waste .* The biggest part past the live objects is /.test(psent),
	   "the sentence gives the live share, the waste and the biggest part", psent);

	// A drag from the first to the last snapshot: the growth.
	await drag(page, 0, nc - 1);
	s = await sel(page);
	ok(s.a === 0 && s.b === nc - 1 && s.diff, "a drag selects the range and the growth view", JSON.stringify(s));
	const grew = await page.evaluate(() => Array.from(document.querySelectorAll("#tlgrowth tbody tr td.fn")).map((t) => t.textContent));
	ok(grew[0] === "grow_cache", "grew most: grow_cache on top", grew.join());
	ok(!grew.includes("spike_alloc"), "and not spike_alloc, freed", grew.join());
	const pid = fs.readFileSync(path.join(dir, "pid"), "utf8").trim(), prog = path.join(B, "series-prog");
	const tlo = await page.evaluate(() => { const o = document.getElementById("origin"); return o ? o.textContent : ""; });
	ok(tlo.includes(prog) && tlo.includes("pid " + pid) && tlo.includes("sample type inuse_space") &&
	   tlo.includes("one sample every 4 KiB allocated"),
	   "the timeline says its program, pid, sample type and period", tlo);
	await page.close();

	// The live heap's page.
	const hp2 = await ctx.newPage();
	const herr = [];
	hp2.on("pageerror", (e) => herr.push(String(e)));
	await hp2.goto("file://" + path.join(dir, "heap.svg"));
	await hp2.waitForFunction(() => window.fk, null, { timeout: 60000 });
	ok(herr.length === 0, "the live heap's page loads without script errors", herr.join("; "));
	const first = await hp2.evaluate(() => {
		const o = document.getElementById("origin"), r = o && o.getBoundingClientRect();
		return { text: o ? o.textContent : "", shown: !!r && r.width > 0 && r.top >= 0 && r.bottom <= window.innerHeight,
			 cols: Array.from(document.querySelectorAll("#col option")).map((x) => x.textContent) };
	});
	ok(first.shown && first.text.startsWith(prog + " \u00b7 pid " + pid + " \u00b7 on ") &&
	   first.text.includes("one sample every 4 KiB allocated"),
	   "its first screen says the program, pid, host, time and sample period", first.text);
	const wl = await hp2.evaluate(() => { const a = document.getElementById("wastelink"), r = a && a.getBoundingClientRect();
		return { href: a ? a.getAttribute("href") : "", text: a ? a.textContent : "", shown: !!r && r.width > 0 && r.bottom <= window.innerHeight }; });
	ok(wl.href === "/internal/heap/waste?format=flame&pid=" + pid && wl.shown && !first.text.includes("/internal/heap/waste"),
	   "its header links to the process's waste page (the origin line says no more)", JSON.stringify(wl));
	ok(first.cols.join() === "inuse_space,inuse_objects,alloc_space,alloc_objects",
	   "its columns are the four heap sample types", first.cols.join());
	const last = snaps[nc - 1].sampled_bytes, col = async (k) => {
		await hp2.selectOption("#col", String(k));
		return hp2.evaluate(() => ({ root: window.fk.value(0), total: document.getElementById("total").textContent,
			spike: window.fk.find("spike_alloc") >= 0 ? window.fk.value(window.fk.find("spike_alloc")) : 0 }));
	};
	const iu = await col(0), io = await col(1), as = await col(2), ao = await col(3);
	ok(Math.abs(iu.root - last) <= 2 && iu.spike === 0, "in-use space: the last snapshot's heap, no spike",
	   JSON.stringify(iu) + " vs " + last);
	ok(io.root > 0 && io.root < iu.root && /inuse_objects/.test(io.total), "in-use objects: a count, the total names it", JSON.stringify(io));
	ok(as.root >= iu.root + 5e6 && as.spike >= 5e6 && /alloc_space/.test(as.total),
	   "allocated space: the freed 6 MiB spike too", JSON.stringify(as));
	ok(ao.root >= io.root && ao.spike > 0, "allocated objects: the spike's too", JSON.stringify(ao));
	await hp2.selectOption("#col", "2");
	await hp2.click("#invert");
	const inv = await hp2.evaluate(() => { const j = window.fk.find("spike_alloc");
		return { pressed: document.getElementById("invert").getAttribute("aria-pressed"), parent: j >= 0 ? window.fk.parent(j) : -2,
			 v: j >= 0 ? window.fk.value(j) : 0 }; });
	ok(inv.pressed === "true" && inv.parent === 0 && inv.v === as.spike,
	   "callers first in allocated space: spike_alloc at the root with its bytes", JSON.stringify(inv) + " vs " + as.spike);
	await hp2.close();
});
