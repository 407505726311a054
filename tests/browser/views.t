#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Browser tests of the views issue 36 lists as missed beside speedscope
// and pprof, one section an item: (1) focus on a function, hide one (its
// callees go to its caller), merge a function's instances, collapse its
// recursion (direct and indirect) and every function's direct recursion:
// each computed on the full tree (exact values), undone by Back or by its
// chip, kept in the URL, and composed with invert; (3) a frame's file and
// line, from symbolize | to-folded --lines, on hover and in the functions
// table, and its lines merged again into one frame a function; (6) a
// lifetimes page colours each frame by how long its bytes lived (the
// median bucket), its legend on the first screen, readable; (7) compare
// inside the page: a local folded file as the base of a diff, exact
// numbers, a bad file refused with its line and nothing changed; (8)
// export the view: the zoomed subtree as folded text (transforms
// included), the drawing as a valid, script-free SVG and as a PNG.
"use strict";
const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");
const { ok, step, launch, openPage, render, done, contrast } = require("./lib.js");

// all 20: a recursing 4 (a;a;a directly), x;a;y;a 2 (a indirectly), bar
// under foo 3 and under baz 5, qux 6.
const rec = "main;a;a;a;b 4\nmain;x;a;y;a;c 2\nmain;foo;bar 3\nmain;foo;baz;bar 5\nmain;qux 6\n";

const open = openPage;
const text = (page, sel) => page.evaluate((s) => { const e = document.querySelector(s); return e ? e.textContent : null; }, sel);
// The tree as "path value" lines (total values), in preorder.
const paths = (page) => page.evaluate(() => { const f = window.fk, out = [];
	for (let j = 1; j < f.n; j++) { const p = []; for (let i = j; i > 0; i = f.parent(i)) p.unshift(f.name(i)); out.push(p.join(";") + " " + f.value(j)); }
	return out; });
const has = (lines, l) => lines.includes(l);
const top = path.resolve(__dirname, "../..");
const bin = (p) => process.env.B ? path.join(process.env.B, p) : p;
const dets = (page) => page.evaluate(() => Array.from(document.querySelectorAll("#details .name, #details .num")).map((d) => d.textContent));
// Selects the first frame named s and applies transform op from the
// toolbar's menu.
async function viaMenu(page, s, op) {
	await page.evaluate((x) => window.fk.select(window.fk.find(x)), s);
	await page.selectOption("#xform", op);
}

(async () => {
	const { ctx, close } = await launch();
	const svg = render(rec, [], "rec");

	await step("item 1", async () => {
		const { page, errors } = await open(ctx, svg);
		const h0 = await page.evaluate(() => history.length);
		await viaMenu(page, "bar", "focus");
		let p = await paths(page);
		ok(await page.evaluate(() => window.fk.value(0)) === 8 && !p.some((l) => /qux|;a/.test(l)) &&
			has(p, "main;foo;bar 3") && has(p, "main;foo;baz;bar 5"),
			"1: focus on bar keeps only the stacks through it, whole, with their exact values", JSON.stringify(p));
		const t = await text(page, "#total");
		ok(/20 B/.test(t) && /8 B/.test(t) && /40\.00%/.test(t), "1: the header says what the focus shows of the whole total", t);
		ok(/(^|&)T=f\d+(&|$)/.test(page.url().replace(/^[^#]*#/, "")), "1: the focus is in the URL", page.url());
		ok(await page.evaluate(() => history.length) === h0 + 1, "1: and is a history entry");
		const chip = await text(page, "#ops");
		ok(/focus/i.test(chip || "") && /bar/.test(chip || ""), "1: a chip names it", chip);
		await page.goBack();
		await page.waitForFunction(() => window.fk.value(0) === 20);
		ok(await page.evaluate(() => window.fk.find("qux")) > 0, "1: Back undoes the focus");

		await viaMenu(page, "foo", "hide");
		p = await paths(page);
		ok(!p.some((l) => /foo/.test(l)) && has(p, "main;bar 3") && has(p, "main;baz;bar 5") && has(p, "main 20"),
			"1: hiding foo gives its callees to main, and the total stays", JSON.stringify(p));
		await viaMenu(page, "bar", "merge");
		p = await paths(page);
		ok(has(p, "bar 8") && has(p, "main 12") && await page.evaluate(() => window.fk.value(0)) === 20,
			"1: merging bar (after hiding foo) makes one bar of 8 under the root, main keeps the rest", JSON.stringify(p));
		const url = page.url();
		ok(/T=h\d+,m\d+/.test(url), "1: both transforms in the URL, in order", url);
		ok(!p.some((l) => /foo|baz/.test(l)) && has(p, "main;qux 6"),
			"1: and leaves no empty frame behind (foo, baz: all their stacks went to bar)", JSON.stringify(p));
		// The chip of the second: only the hide is left.
		await page.click("#ops button[data-op='1']");
		p = await paths(page);
		ok(has(p, "main;bar 3") && !has(p, "bar 8"), "1: removing the merge by its chip keeps the hide", JSON.stringify(p));
		// Reloading the URL of both.
		const { page: p2, errors: e2 } = await open(ctx, url.replace(/^file:\/\//, "").replace(/#.*/, ""), url.replace(/^[^#]*/, ""));
		const q = await paths(p2);
		ok(has(q, "bar 8") && has(q, "main 12") && has(q, "main;qux 6") && !q.some((l) => /foo/.test(l)), "1: the URL restores both", JSON.stringify(q));
		ok(e2.length === 0, "1: no script errors on reload", e2.join("; "));
		await p2.close();

		// Recursion, from the keyboard: a selected frame and r.
		await page.click("#ops button[data-op='all']");
		await page.evaluate(() => window.fk.select(window.fk.find("a")));
		await page.keyboard.press("r");
		p = await paths(page);
		ok(has(p, "main;a 4") && has(p, "main;a;b 4") && has(p, "main;x;a;c 2") && !p.some((l) => /;y|a;a/.test(l)),
			"1: r collapses a's direct (a;a;a) and indirect (a;y;a) recursion", JSON.stringify(p));
		await page.click("#ops button[data-op='all']");
		await page.selectOption("#xform", "direct");
		p = await paths(page);
		ok(has(p, "main;a;b 4") && has(p, "main;x;a;y;a;c 2"), "1: collapsing every direct recursion leaves the indirect", JSON.stringify(p));
		// The functions table's totals stay exact: a function's total is
		// each stack once.
		const top = await page.evaluate(() => window.fk.top());
		const a = top.find((r) => r.name === "a");
		ok(a && a.total === 6, "1: a's total in the table is 6 after the collapse", JSON.stringify(a));
		// Composed with invert: the inverted tree of the transformed one.
		await page.click("#ops button[data-op='all']");
		await viaMenu(page, "foo", "hide");
		await page.click("#invert");
		p = await paths(page);
		ok(!p.some((l) => /foo/.test(l)) && has(p, "bar 8") && has(p, "bar;baz 5"), "1: inverted, foo stays hidden", JSON.stringify(p));
		await page.click("#invert");
		p = await paths(page);
		ok(has(p, "main;bar 3"), "1: and back, still hidden", JSON.stringify(p));
		await page.evaluate(() => window.fk.select(-1));
		await page.selectOption("#xform", "focus");
		ok(/select a frame/i.test(await text(page, "#details") || ""), "1: with nothing selected the menu says what to do",
			await text(page, "#details"));
		ok(errors.length === 0, "1: no script errors", errors.join("; "));
		await page.close();
	});
	await step("item 3", async () => {
		const sym = execFileSync(bin("symbolize"), ["--sysroot", path.join(top, "fixtures/sysroot"),
			path.join(top, "fixtures/dumps/fk-inline.prof")], { stdio: ["ignore", "pipe", "ignore"], maxBuffer: 1 << 26 });
		const folded = execFileSync(bin("to-folded"), ["--lines"], { input: sym, encoding: "utf8" });
		const { page, errors } = await open(ctx, render(folded, [], "lines"));
		const leaf = "fk_leaf_alloc (/opt/fk/src/fk-inline.c:17)";
		await page.evaluate((s) => window.fk.select(window.fk.find(s)), leaf);
		let d = await dets(page);
		ok(/ fk_leaf_alloc$/.test(d[0] || "") && !/fk-inline/.test(d[0] || "") && d.some((l) => /^at \/opt\/fk\/src\/fk-inline\.c:17$/.test(l)),
			"3: a selected frame's details give its function and, apart, its file and line", JSON.stringify(d));
		// Hover: the frame of main's call on line 51.
		const j = await page.evaluate(() => window.fk.find("main (/opt/fk/src/fk-inline.c:51)"));
		const r = await page.evaluate((k) => { const b = window.fk.rect(k).getBoundingClientRect(); return [b.x + b.width / 2, b.y + 4]; }, j);
		await page.evaluate(() => window.fk.select(-1));
		await page.mouse.move(r[0], r[1]);
		d = await dets(page);
		ok(/ main$/.test(d[0] || "") && d.includes("at /opt/fk/src/fk-inline.c:51"), "3: and on hover", JSON.stringify(d));
		// The functions table: the name, then its place.
		await page.click("#tablebtn");
		const row = await page.evaluate(() => Array.from(document.querySelectorAll("#top tbody td.fn")).map((t) =>
			[t.querySelector(".fnn") && t.querySelector(".fnn").textContent, t.querySelector(".loc") && t.querySelector(".loc").textContent]));
		ok(row.some((x) => x[0] === "fk_leaf_alloc" && x[1] === "/opt/fk/src/fk-inline.c:17"),
			"3: the functions table shows a function's file and line apart from its name", JSON.stringify(row));
		// Merged again: one main, its three lines' total.
		const before = await page.evaluate(() => { let s = 0, c = 0; for (let k = 0; k < window.fk.n; k++) if (/^main /.test(window.fk.name(k))) { s += window.fk.value(k); c++; } return [c, s]; });
		await page.selectOption("#xform", "lines");
		const after = await page.evaluate(() => { let s = 0, c = 0; for (let k = 0; k < window.fk.n; k++) if (window.fk.name(k) === "main") { s += window.fk.value(k); c++; } return [c, s]; });
		ok(before[0] === 3 && after[0] === 1 && after[1] === before[1], "3: merging lines makes main's three frames one, of their total", JSON.stringify([before, after]));
		ok(/T=L/.test(page.url()), "3: in the URL", page.url());
		ok(errors.length === 0, "3: no script errors", errors.join("; "));
		await page.close();
	});
	await step("item 6", async () => {
		const cols = execFileSync(bin("heap-lifetimes"), ["--sysroot", path.join(top, "fixtures/sysroot"), "-f", "columns",
			path.join(top, "fixtures/life/basic.life")], { encoding: "utf8" });
		const { page, errors } = await open(ctx, render(cols, [], "life"));
		// fk_alloc_big: all live; fk_alloc_small: all under 1 ms; medium: under 10 s.
		const cl = (s) => page.evaluate((x) => { const e = window.fk.el(window.fk.find(x)); return e ? e.getAttribute("class") : null; }, s);
		const big = await cl("fk_alloc_big"), small = await cl("fk_alloc_small"), med = await cl("fk_alloc_medium");
		ok(/(^| )l7( |$)/.test(big || "") && /(^| )l0( |$)/.test(small || "") && /(^| )l4( |$)/.test(med || ""),
			"6: each frame's colour is its bytes' median lifetime (live, under-1ms, under-10s)", JSON.stringify([big, small, med]));
		const lg = await page.evaluate(() => Array.from(document.querySelectorAll("#legend .sw")).map((s) =>
			[s.textContent, getComputedStyle(s).color, getComputedStyle(s).backgroundColor]));
		ok(lg.length === 8 && lg[0][0] === "under-1ms" && lg[7][0] === "live", "6: the legend names the 8 buckets, shortest first", JSON.stringify(lg));
		ok(lg.every((x) => contrast(x[1], x[2]) >= 4.5), "6: its swatches are readable", JSON.stringify(lg));
		const onScreen = await page.evaluate(() => { const r = document.getElementById("legend").getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight && r.height > 0; });
		ok(onScreen && /lived/.test(await text(page, "#legend")), "6: on the first screen, saying what the colour means", await text(page, "#legend"));
		const lab = await page.evaluate(() => { const e = window.fk.el(window.fk.find("fk_alloc_big")), t = e && e.querySelector("text"), r = e && e.querySelector("rect");
			return t ? [getComputedStyle(t).fill, getComputedStyle(r).fill] : null; });
		ok(lab && contrast(lab[0], lab[1]) >= 4.5, "6: a label on the darkest colour is readable", JSON.stringify(lab));
		ok(errors.length === 0, "6: no script errors", errors.join("; "));
		await page.close();
	});
	await step("item 7", async () => {
		const { page, errors } = await open(ctx, render("main;a 5\nmain;b 3\nmain;c 2\n", [], "cmpnew"));
		const dir = fs.mkdtempSync(path.join(require("os").tmpdir(), "fk-cmp-"));
		const bad = path.join(dir, "bad.folded"), good = path.join(dir, "base.folded");
		fs.writeFileSync(bad, "main;a 2\nmain;b three\n");
		fs.writeFileSync(good, "# info: program=old\nmain;a 2\nmain;b 3\nmain;gone 4\n");
		ok(await page.evaluate(() => { const b = document.querySelector('#file option[value="compare"]'), r = document.getElementById("file").getBoundingClientRect();
			return !!b && r.height > 0 && r.bottom <= innerHeight; }), "7: the file menu, on the first screen, compares");
		// The button opens the browser's file chooser.
		// Playwright's setFiles wants an HTML document's "INPUT" (this is
		// an XML one's "input"): the files go in through the DevTools
		// protocol, as the chooser would put them.
		const cdp = await ctx.newCDPSession(page);
		const choose = async (f) => {
			await Promise.all([page.waitForEvent("filechooser"), page.selectOption("#file", "compare")]);
			const { root } = await cdp.send("DOM.getDocument");
			const { nodeId } = await cdp.send("DOM.querySelector", { nodeId: root.nodeId, selector: "#cmpfile" });
			await cdp.send("DOM.setFileInputFiles", { files: [f], nodeId });
		};
		await choose(bad);
		await page.waitForFunction(() => /Compare: bad\.folded/.test(document.getElementById("details").textContent));
		const d0 = await text(page, "#details");
		ok(/line 2/.test(d0) && /nothing changed/.test(d0) && await page.evaluate(() => window.fk.value(0)) === 10,
			"7: a bad file is refused with its line, and the page stays", d0);
		await choose(good);
		await page.waitForFunction(() => /base/.test(document.getElementById("total").textContent));
		const t = await text(page, "#total");
		ok(/10 B/.test(t) && /base 9 B/.test(t) && /\+1 B/.test(t), "7: the header gives the new total, the base's and the change", t);
		const da = await page.evaluate(() => { window.fk.select(window.fk.find("a")); return document.getElementById("details").textContent; });
		ok(/base 2 B \u2192 5 B/.test(da) && /\+150\.00%/.test(da), "7: a frame says base 2 B \u2192 5 B, +150.00%", da);
		const dg = await page.evaluate(() => { window.fk.select(window.fk.find("gone")); return document.getElementById("details").textContent; });
		ok(/vanished/.test(dg) && /4 B/.test(dg), "7: a frame only the base had is there, vanished", dg);
		const cls = await page.evaluate(() => [window.fk.el(window.fk.find("a")).getAttribute("class"), window.fk.el(window.fk.find("b")).getAttribute("class")]);
		ok(/^r\d/.test(cls[0]) && /^d0/.test(cls[1]), "7: coloured by change: a grew, b the same", JSON.stringify(cls));
		const fills = await page.evaluate(() => ["a", "b", "gone"].map((x) => getComputedStyle(window.fk.rect(window.fk.find(x))).fill));
		ok(new Set(fills).size === 3 && !fills.includes("rgb(0, 0, 0)"), "7: the page carries the diff's colours (no black frames)", JSON.stringify(fills));
		ok(await page.evaluate(() => document.querySelectorAll("#legend .sw").length) === 11, "7: the diff's legend");
		ok(/compared with base\.folded/.test(await text(page, "#ttl")), "7: the title names the base", await text(page, "#ttl"));
		// The views work on the comparison: invert, a transform.
		await page.click("#invert");
		const inv = await paths(page);
		ok(has(inv, "gone 4") || inv.some((l) => /^gone /.test(l)), "7: inverted, the vanished frame is kept", JSON.stringify(inv));
		await page.click("#invert");
		await viaMenu(page, "a", "hide");
		const hp = await paths(page);
		ok(has(hp, "main 14") && !hp.some((l) => /;a /.test(l)), "7: and a transform (hide a: widths new + vanished stay 14)", JSON.stringify(hp));
		ok(errors.length === 0, "7: no script errors", errors.join("; "));
		fs.rmSync(dir, { recursive: true, force: true });
		await page.close();
	});
	await step("item 8", async () => {
		const { page, errors } = await open(ctx, svg);
		const save = async (what) => {
			const [dl] = await Promise.all([page.waitForEvent("download"), page.selectOption("#file", what)]);
			return { name: dl.suggestedFilename(), data: fs.readFileSync(await dl.path()) };
		};
		await page.evaluate(() => window.fk.zoom(window.fk.find("foo")));
		let f = await save("folded");
		ok(f.data.toString() === "main;foo;bar 3\nmain;foo;baz;bar 5\n" && /\.folded$/.test(f.name),
			"8: the zoomed subtree as folded text, whole stacks", JSON.stringify([f.name, f.data.toString()]));
		await page.evaluate(() => window.fk.zoom(0));
		await viaMenu(page, "a", "rec");
		f = await save("folded");
		ok(/^main;a;b 4$/m.test(f.data.toString()) && /^main;x;a;c 2$/m.test(f.data.toString()) && !/a;a/.test(f.data.toString()),
			"8: with the transforms applied", f.data.toString());
		const s = await save("svg");
		const dir = fs.mkdtempSync(path.join(require("os").tmpdir(), "fk-exp-")), sp = path.join(dir, "v.svg");
		fs.writeFileSync(sp, s.data);
		let valid = true;
		try {
			execFileSync("xmllint", ["--noout", sp], { stdio: "pipe" });
		} catch (e) {
			valid = false;
		}
		const st = s.data.toString();
		ok(valid && /\.svg$/.test(s.name), "8: the drawing as SVG, valid XML (xmllint)", s.name);
		ok(!/<script|foreignObject|on[a-z]+=/i.test(st) && />qux</.test(st) && />main</.test(st),
			"8: no script, no HTML, the frames and their labels", st.length + " bytes");
		const p = await save("png");
		const sig = p.data.slice(0, 8).toString("hex"), w = p.data.readUInt32BE(16), h = p.data.readUInt32BE(20);
		ok(sig === "89504e470d0a1a0a" && w === 1280 && h > 50 && h < 400 && /\.png$/.test(p.name),
			"8: and as PNG, the page's width, the graph's height", JSON.stringify([sig, w, h, p.name]));
		fs.rmSync(dir, { recursive: true, force: true });
		ok(errors.length === 0, "8: no script errors", errors.join("; "));
		await page.close();
	});
	await close();
	done();
})();
