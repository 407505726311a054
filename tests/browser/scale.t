#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// The page on a graph of real size, checked against its input: the
// 100k-line synthetic heap profile of bench/gen-synth.py (86 MB, about
// 1.3M frames) at default options. Search % equals the exact share of the
// stacks that hold a matching frame, to 0.01 %, for several names
// (a pasted C++ name with parentheses among them); a merged "(N more)" box
// zooms into frames of the input; the root row is in the viewport on load
// at 1280x800 and 480x800; the label font size is the same at 480 and
// 2560 px; the top table's first row is the heaviest self function of the
// input; x3 and /3 changes get different non-neutral colours; no label has
// contrast under 4.5:1 on its fill.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { execFileSync } = require("child_process");
const { ok, launch, render, done, parseFolded, contrast } = require("./lib.js");

const top = path.resolve(__dirname, "../..");
const B = process.env.B || path.join(top, "build");
const work = fs.mkdtempSync(path.join(os.tmpdir(), "fk-scale-"));
const inp = path.join(work, "synth.folded"), svg = path.join(work, "synth.svg");
fs.writeFileSync(inp, execFileSync("python3", [path.join(top, "bench/gen-synth.py"), "100000"], { maxBuffer: 1 << 30 }));
execFileSync(path.join(B, "render-flame"), ["-o", svg, inp]);
const lines = parseFolded(fs.readFileSync(inp, "utf8"));
const total = lines.reduce((a, l) => a + l.value, 0);
// The exact share of the stacks holding a frame that contains s.
const share = (s) => 100 * lines.reduce((a, l) => a + (l.frames.some((f) => f.toLowerCase().includes(s.toLowerCase())) ? l.value : 0), 0) / total;

async function open(ctx, file, vp) {
	const page = await ctx.newPage();
	const errors = [];
	page.on("pageerror", (e) => errors.push(String(e)));
	if (vp)
		await page.setViewportSize(vp);
	await page.goto("file://" + file);
	await page.waitForFunction(() => window.fk, null, { timeout: 120000 });
	return { page, errors };
}
// Every drawn label with its text and rect fills.
const pairs = (page) => page.evaluate(() => Array.from(document.querySelectorAll("#view > g")).filter((g) => g.querySelector("text")).map((g) =>
	[getComputedStyle(g.querySelector("text")).fill, getComputedStyle(g.querySelector("rect")).fill, g.getAttribute("class")]));

(async () => {
	const { ctx, close } = await launch();
	try {
		const { page, errors } = await open(ctx, svg);
		const n = await page.evaluate(() => window.fk.n);
		ok(n > 1000000, "the page holds every frame of the input", n);
		ok(errors.length === 0, "page loads without script errors", errors.join("; "));

		// Exact search.
		for (const s of ["operator new(unsigned long)", "merge_alloc_0", "db::Page", "Span<const unsigned char>", "std::shared_ptr<db::Node>)"]) {
			const m = await page.evaluate((x) => window.fk.search(x), s);
			const got = +(/ ([0-9.]+)% of total/.exec(m) || [0, -1])[1], want = share(s);
			ok(Math.abs(got - want) < 0.006, `search '${s}' gives the exact share of the input`, `${got} vs ${want.toFixed(4)}`);
		}
		await page.evaluate(() => window.fk.search(""));

		// The root row in view.
		const root = async (p) => p.evaluate(() => window.fk.rect(0).getBoundingClientRect().toJSON());
		let r = await root(page);
		ok(r.top >= 0 && r.bottom <= 800 && r.width > 1000, "root row in the viewport on load at 1280x800", JSON.stringify(r));

		// A merged box zooms into real frames.
		const mg = await page.evaluate(() => window.fk.merged().filter((m) => m.w >= 3).sort((a, b) => b.w - a.w));
		ok(mg.length > 0, "narrow frames are drawn merged", mg.length);
		const m0 = mg[0];
		await page.evaluate((y) => window.scrollTo(0, Math.max(0, y - 300)), m0.y);
		const sy = await page.evaluate(() => window.scrollY);
		await page.mouse.click(m0.x + m0.w / 2, m0.y - sy + 5);
		const after = await page.evaluate(([a, b]) => {
			const out = [];
			for (let i = a; i <= b; i++)
				if (window.fk.geom(i).shown && window.fk.parent(i) === window.fk.state.zoom)
					out.push([window.fk.name(i), window.fk.geom(i).w]);
			return out;
		}, [m0.first, m0.last]);
		const inputNames = new Set();
		for (const l of lines)
			for (const f of l.frames)
				inputNames.add(f);
		ok(after.length >= 2 && after.every((x) => inputNames.has(x[0]) && x[1] >= 1),
		   "clicking the widest merged box zooms into its real frames, named as in the input", JSON.stringify(after.slice(0, 5)) + " of " + m0.count);

		// Top functions: the heaviest self function of the input.
		const self = new Map();
		for (const l of lines)
			self.set(l.frames[l.frames.length - 1], (self.get(l.frames[l.frames.length - 1]) || 0) + l.value);
		const heaviest = [...self.entries()].sort((a, b) => b[1] - a[1])[0];
		const t = await page.evaluate(() => window.fk.top()[0]);
		ok(t.name === heaviest[0] && t.self === heaviest[1], "the top table's first row is the input's heaviest self function", JSON.stringify([t, heaviest]));

		// Contrast of every drawn label, plain and highlighted.
		await page.evaluate(() => window.fk.zoom(0));
		await page.evaluate(() => window.fk.search("a"));
		let ps = await pairs(page);
		let bad = ps.filter((p) => contrast(p[0], p[1]) < 4.5);
		// 39 labels at 1280 px since names cut to 2 characters have none
		// (sizes.t item 7); 53 before.
		ok(ps.length > 30 && bad.length === 0, "every label has contrast >= 4.5:1 (mem palette, search highlights)", ps.length + " labels; " + JSON.stringify(bad.slice(0, 3)));
		await page.close();

		// Other window sizes: root in view, the same font size.
		const small = await open(ctx, svg, { width: 480, height: 800 });
		r = await root(small.page);
		ok(r.top >= 0 && r.bottom <= 800 && r.width > 400, "root row in the viewport on load at 480x800", JSON.stringify(r));
		const fs480 = await small.page.evaluate(() => { const t = document.querySelector("#view text"); return [getComputedStyle(t).fontSize, t.getBoundingClientRect().height]; });
		await small.page.setViewportSize({ width: 2560, height: 800 });
		await small.page.waitForFunction(() => +document.documentElement.getAttribute("width") === 2560);
		const fs2560 = await small.page.evaluate(() => { const t = document.querySelector("#view text"); return [getComputedStyle(t).fontSize, t.getBoundingClientRect().height]; });
		ok(fs480[0] === "12px" && fs480[0] === fs2560[0] && Math.abs(fs480[1] - fs2560[1]) < 0.5,
		   "label font size is the same at 480 and 2560 px, re-laid out on resize", JSON.stringify([fs480, fs2560]));
		ok(small.errors.length === 0, "no script errors", small.errors.join("; "));
		await small.page.close();

		// Diff colours: x3 and /3 differ, neither neutral; contrast.
		const base = path.join(work, "base.folded");
		fs.writeFileSync(base, "main;up 100\nmain;down 300\nmain;same 200\nmain;gone 50\n");
		const dsvg = render("main;up 300\nmain;down 100\nmain;same 200\nmain;new 50\n", ["--diff", base], "diff");
		const d = await open(ctx, dsvg);
		const fill = (s) => d.page.evaluate((x) => getComputedStyle(window.fk.rect(window.fk.find(x))).fill, s);
		const f3 = await fill("up"), f13 = await fill("down"), f1 = await fill("same");
		ok(f3 !== f13 && f3 !== f1 && f13 !== f1, "a x3 and a /3 change get different, non-neutral colours", JSON.stringify([f3, f13, f1]));
		await d.page.selectOption("#col", "2");
		ps = await pairs(d.page);
		bad = ps.filter((p) => contrast(p[0], p[1]) < 4.5);
		ok(ps.length >= 5 && bad.length === 0, "every diff label has contrast >= 4.5:1", JSON.stringify(ps));
		const lg = await d.page.evaluate(() => Array.from(document.querySelectorAll("#legend .sw")).map((s) => [getComputedStyle(s).color, getComputedStyle(s).backgroundColor]));
		ok(lg.length === 11 && lg.every((p) => contrast(p[0], p[1]) >= 4.5), "the legend's swatches are readable", JSON.stringify(lg));
		await d.page.close();

		// Every palette's labels.
		for (const pal of ["hot", "io", "red", "green", "blue", "aqua", "yellow", "purple", "orange"]) {
			const p = await open(ctx, render("main;a 1\nmain;b 2\nmain;c;d 3\nmain;e;f;g 4\nmain;h 5\nmain;i 6\nx;y 7\n", ["--colors", pal], pal));
			ps = await pairs(p.page);
			bad = ps.filter((q) => contrast(q[0], q[1]) < 4.5);
			ok(ps.length >= 10 && bad.length === 0, `palette ${pal}: every label has contrast >= 4.5:1`, JSON.stringify(bad));
			await p.page.close();
		}
	} catch (e) {
		ok(false, "browser session", e.stack);
	} finally {
		await close();
		if (!process.env.FK_KEEP)
			fs.rmSync(work, { recursive: true, force: true });
	}
	done();
})();
