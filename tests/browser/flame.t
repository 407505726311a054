#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Browser tests of render-flame's page in headless Chromium, on small
// graphs whose every number is known: the details panel, zoom and reset,
// merged "(N more)" boxes zooming into their frames, literal and regex
// search with "k of N" and % of total and of the view, next/previous,
// Ctrl-F and Esc, URL state, keyboard navigation that skips zero-width
// frames and selects without zooming, copy stack, orientation and sort
// switches, value columns, the differential view (vanished frames,
// normalising, the legend), the top-functions table and the sandwich
// view, the sticky header, ARIA roles, the document title, the page
// without script, and a screenshot that is not blank.
"use strict";
const fs = require("fs");
const path = require("path");
const { ok, launch, openPage, render, done } = require("./lib.js");
const { pngStats } = require("./png.js");

const top = path.resolve(__dirname, "../..");
const fx = (f) => fs.readFileSync(path.join(top, "fixtures/folded", f), "utf8");
// Total 14; "nothing" has the value 0 (a zero-width frame).
const sample = "main;foo 5\nmain;foo::bar 3\nmain;foo;baz 2\nmain;other;deep;deeper 4\nmain;nothing 0\n";

const open = openPage;
const idx = (page, name) => page.evaluate((s) => window.fk.find(s), name);
const geom = (page, name) => page.evaluate((s) => window.fk.geom(window.fk.find(s)), name);
const sel = (page) => page.evaluate(() => window.fk.state.sel >= 0 ? window.fk.name(window.fk.state.sel) : null);
const details = (page) => page.evaluate(() => Array.from(document.querySelectorAll("#details .name, #details .num")).map((d) => d.textContent));
async function box(page, name) {
	const h = await page.evaluateHandle((s) => { return window.fk.rect(window.fk.find(s)); }, name);
	const el = h.asElement();
	return el ? el.boundingBox() : null;
}

(async () => {
	const { ctx, close } = await launch();
	try {
		const svg = render(sample, [], "sample");
		let { page, errors } = await open(ctx, svg);
		ok(errors.length === 0, "page loads without script errors", errors.join("; "));
		ok(await page.title() === "Flame Graph", "the document has a <title>", await page.title());
		const roles = await page.evaluate(() => ({
			bar: !!document.querySelector("[role=toolbar]"),
			q: document.getElementById("q").getAttribute("aria-label"),
			st: document.getElementById("matched").getAttribute("role"),
			g: document.getElementById("view").getAttribute("role") }));
		ok(roles.bar && roles.q && roles.st === "status" && roles.g === "group", "controls carry ARIA roles and labels", JSON.stringify(roles));

		// Layout: real pixels, root row on top below the header.
		const W = await page.evaluate(() => +document.documentElement.getAttribute("width"));
		let g = await geom(page, "all");
		ok(W === 1280 && Math.abs(g.w - 1260) < 0.2, "the graph is laid out at the window's width", JSON.stringify([W, g]));
		const hdrBottom = await page.evaluate(() => document.querySelector(".hdr").getBoundingClientRect().bottom);
		ok(g.y >= hdrBottom && g.y < 200, "root row on top, right under the header", JSON.stringify([g.y, hdrBottom]));
		ok((await page.evaluate(() => window.fk.find("nothing") >= 0 && !window.fk.geom(window.fk.find("nothing")).shown)),
		   "a zero-width frame is in the data but not drawn");

		// Hover: the details panel.
		let b = await box(page, "foo");
		await page.mouse.move(b.x + 5, b.y + b.height / 2);
		let det = await details(page);
		ok(det[0] === "Function: foo", "details panel names the frame in full", JSON.stringify(det));
		ok(/^7 B \u2014 50\.00% of total, 50\.00% of view; self 5 B$/.test(det[1]), "details show value, % of total and of view, self", det[1]);

		// Click to zoom, then reset.
		const before = await geom(page, "foo");
		await page.mouse.click(b.x + 5, b.y + b.height / 2);
		let f = await geom(page, "foo"), other = await geom(page, "other"), baz = await geom(page, "baz");
		ok(Math.abs(f.w - 1260) < 0.2 && Math.abs(f.x - 10) < 0.01, "click zooms the frame to full width", JSON.stringify(f));
		ok(!other.shown && Math.abs(baz.w - 1260 * 2 / 7) < 0.2, "zoom shows the frame's callees rescaled, not its siblings", JSON.stringify([other, baz]));
		ok(/anc/.test(await page.evaluate(() => window.fk.el(window.fk.find("main")).getAttribute("class"))), "zoom keeps ancestors, faded");
		ok(/#z=\d+/.test(page.url()), "zoom is kept in the URL", page.url());
		ok(await sel(page) === "foo", "the clicked frame is selected", await sel(page));
		await page.click("#reset");
		f = await geom(page, "foo");
		ok(Math.abs(f.w - before.w) < 0.01 && Math.abs(f.x - before.x) < 0.01, "reset restores the layout", JSON.stringify([f, before]));
		ok(!/#z=/.test(page.url()), "reset clears the URL state", page.url());

		// Search: literal by default, case-insensitive, exact counts.
		const find = async (s, o) => page.evaluate(([a, b]) => window.fk.search(a, b), [s, o || {}]);
		ok(await find("foo") === "2 matches \u00b7 71.43% of total \u00b7 71.43% of view", "literal search: N matches, % of total and of view", await find("foo"));
		const hl = await page.evaluate(() => Array.from(document.querySelectorAll("#view > .hl")).map((e) => window.fk.name(+e.getAttribute("data-i"))));
		ok(hl.join(",") === "foo,foo::bar", "matching frames are highlighted", hl.join(","));
		ok(await find("FOO::") === "1 match \u00b7 21.43% of total \u00b7 21.43% of view", "search ignores case by default", await find("FOO::"));
		ok(await find("FOO::", { cs: true }) === "0 matches \u00b7 0.00% of total \u00b7 0.00% of view", "case switch makes it case-sensitive", await find("FOO::", { cs: true }));
		ok(await find("e") === "3 matches \u00b7 28.57% of total \u00b7 28.57% of view", "nested matches are counted once", await find("e"));
		ok(await find("(") === "0 matches \u00b7 0.00% of total \u00b7 0.00% of view" &&
		   !(await page.evaluate(() => document.getElementById("q").classList.contains("bad"))), "a '(' is plain text by default");
		ok(await find("^ba", { re: true }) === "1 match \u00b7 14.29% of total \u00b7 14.29% of view", "regex switch: anchored regex", await find("^ba", { re: true }));
		await find("(", { re: true });
		ok(await page.evaluate(() => document.getElementById("q").classList.contains("bad")), "a bad regex is flagged, no error");
		await page.evaluate((i) => window.fk.zoom(i), await idx(page, "foo"));
		ok(await find("baz") === "1 match \u00b7 14.29% of total \u00b7 28.57% of view", "% of view is of the zoomed frame", await find("baz"));
		await page.evaluate(() => window.fk.zoom(0));
		// Typing is debounced; Enter runs the search at once and steps.
		await page.fill("#q", "");
		await page.focus("#q");
		await page.keyboard.type("deep");
		await page.keyboard.press("Enter");
		const s1 = await sel(page);
		await page.keyboard.press("Enter");
		const s2 = await sel(page);
		await page.keyboard.press("Shift+Enter");
		const s3 = await sel(page);
		ok(s1 === "deep" && s2 === "deeper" && s3 === "deep", "Enter / Shift+Enter walk the matches", [s1, s2, s3].join(","));
		let m = await page.textContent("#matched");
		ok(/^1 of 2 \u00b7/.test(m), "the counter says which match is selected", m);
		await page.click("#next");
		ok(/^2 of 2 \u00b7/.test(await page.textContent("#matched")) && await sel(page) === "deeper", "the next button steps too");
		ok(/s=deep/.test(page.url()), "search is kept in the URL", page.url());
		await page.keyboard.press("Escape");
		await page.keyboard.press("Escape");
		ok((await page.evaluate(() => document.getElementById("q").value)) === "" && (await page.textContent("#matched")) === "", "Esc clears the search");
		await page.mouse.click(600, 700);
		await page.keyboard.press("Control+f");
		ok(await page.evaluate(() => document.activeElement && document.activeElement.id === "q"), "Ctrl-F focuses the search box");
		await page.keyboard.type("deeper");
		await page.waitForFunction(() => /^1 match/.test(document.getElementById("matched").textContent));
		await page.keyboard.press("F3");
		ok(await sel(page) === "deeper", "F3 goes to the next match", await sel(page));

		// URL state restored on load.
		const z = await idx(page, "other");
		const p2 = await open(ctx, svg, "#z=" + z + "&s=De&c=1");
		const st = await p2.page.evaluate(() => ({ zoom: window.fk.state.zoom, q: document.getElementById("q").value,
			cs: document.getElementById("case").checked, m: document.getElementById("matched").textContent,
			w: window.fk.geom(window.fk.state.zoom).w }));
		ok(st.zoom === z && Math.abs(st.w - 1260) < 0.2, "zoom restored from the URL", JSON.stringify(st));
		ok(st.q === "De" && st.cs && /^0 matches/.test(st.m), "search and case restored from the URL", JSON.stringify(st));
		await p2.page.close();

		// Keyboard: zero-width frames are skipped, selection does not zoom.
		await page.keyboard.press("Escape");
		await page.keyboard.press("Escape");
		await page.mouse.click(600, 700);
		await page.evaluate(() => window.fk.zoom(0));
		await page.keyboard.press("ArrowDown");     // selects the root first
		await page.keyboard.press("ArrowDown");     // all -> main
		await page.keyboard.press("ArrowDown");     // main -> foo
		const k1 = await sel(page);
		await page.keyboard.press("ArrowRight");    // foo -> foo::bar
		const k2 = await sel(page);
		await page.keyboard.press("ArrowRight");    // skips "nothing" (0 B)
		const k3 = await sel(page);
		await page.keyboard.press("ArrowLeft");
		await page.keyboard.press("ArrowUp");       // back to main
		const k4 = await sel(page);
		ok(k1 === "foo" && k2 === "foo::bar" && k3 === "other" && k4 === "main", "arrow keys move between frames, skipping zero-width ones", [k1, k2, k3, k4].join(","));
		ok(await page.evaluate(() => window.fk.state.zoom) === 0 && (await details(page))[0] === "Function: main", "keyboard selection describes without zooming");
		const selr = await page.evaluate(() => document.getElementById("selr").getAttribute("display"));
		ok(selr === "inline", "the selection is outlined", selr);
		await page.keyboard.press("ArrowDown");
		await page.keyboard.press("ArrowRight");
		await page.keyboard.press("ArrowRight");
		await page.keyboard.press("Enter");
		ok(await page.evaluate(() => window.fk.state.zoom) === await idx(page, "other"), "Enter zooms the selected frame");
		await page.keyboard.press("ArrowDown");
		await page.keyboard.press("ArrowDown");
		await page.keyboard.press("c");
		ok(await page.evaluate(() => window.fkLastCopied) === "main;other;deep;deeper", "c copies the selected frame's stack", await page.evaluate(() => window.fkLastCopied));

		// Orientation and sort switches.
		await page.evaluate(() => window.fk.zoom(0));
		await page.click("#orient");
		const up = [await geom(page, "all"), await geom(page, "main")];
		ok(up[0].y > up[1].y, "the orientation switch puts the root at the bottom", JSON.stringify(up));
		await page.click("#orient");
		const xs = async () => [(await geom(page, "foo")).x, (await geom(page, "other")).x];
		const byName = await xs();
		await page.click("#sort");
		const byWeight = await xs();
		ok(byName[0] < byName[1] && byWeight[0] < byWeight[1] && (await geom(page, "foo::bar")).x > byWeight[1],
		   "sort by weight puts heavier children first", JSON.stringify([byName, byWeight, await geom(page, "foo::bar")]));
		ok(/o=w/.test(page.url()), "the sort order is kept in the URL", page.url());
		await page.evaluate((i) => window.fk.zoom(i), await idx(page, "other"));
		const zw = page.url();
		const p5 = await open(ctx, svg, zw.slice(zw.indexOf("#")));
		ok(await p5.page.evaluate(() => window.fk.name(window.fk.state.zoom)) === "other", "a zoom under weight order is restored from the URL",
		   await p5.page.evaluate(() => window.fk.name(window.fk.state.zoom)));
		await p5.page.close();
		await page.click("#sort");
		ok(JSON.stringify(await xs()) === JSON.stringify(byName) || (await page.evaluate(() => window.fk.state.zoom)) !== 0, "sort by name again");

		// Top functions and the sandwich view.
		await page.evaluate(() => window.fk.zoom(0));
		const t = await page.evaluate(() => window.fk.top());
		ok(t[0].name === "foo" && t[0].self === 5 && t[0].total === 7, "top table: the heaviest self function first", JSON.stringify(t.slice(0, 3)));
		ok(t.find((r) => r.name === "main").total === 14, "top table: totals count each stack once", JSON.stringify(t));
		await page.click("#top th[data-sort=total]");
		const first = await page.evaluate(() => document.querySelector("#top tbody tr td.fn").textContent);
		ok(/ main$/.test(first), "top table sorts by total", first);
		await page.click("#top tbody tr:nth-child(2)");
		const hl2 = await page.evaluate(() => Array.from(document.querySelectorAll("#view > .hl")).map((e) => window.fk.name(+e.getAttribute("data-i"))));
		ok(hl2.length === 1 && /^[0-9]/.test(await page.textContent("#matched")), "clicking a row highlights that function's frames", hl2.join(","));
		await page.focus("#top tbody tr:nth-child(3)");
		await page.keyboard.press("Enter");
		const kb = await page.evaluate(() => [window.fk.state.fn >= 0 ? window.fk.names[window.fk.state.fn] : null,
			document.querySelector("#top tbody tr:nth-child(3) td.fn").textContent]);
		ok(kb[0] !== null && kb[1].endsWith(" " + kb[0]), "Enter on a focused row picks its function", JSON.stringify(kb));
		await page.focus("#top th[data-sort=self]");
		await page.keyboard.press("Enter");
		ok(/^Self \u25be$/.test(await page.textContent("#top th[data-sort=self]")), "a column header sorts from the keyboard");
		const tb = await page.evaluate(() => document.getElementById("toptable").getBoundingClientRect().bottom);
		ok((await geom(page, "all")).y >= tb - 1, "the graph moves below the table", JSON.stringify([tb, await geom(page, "all")]));
		const sw = await page.evaluate(() => window.fk.sandwich("deep"));
		ok(sw.callers.map((x) => x.name).join(",") === "deep,other,main,all" && sw.callees.map((x) => x.name).join(",") === "deep,deeper" &&
		   sw.callers[3].value === 4 && sw.callees[1].value === 4, "sandwich: callers merged above, callees below", JSON.stringify(sw));
		ok(await page.evaluate(() => document.querySelectorAll("#sandwich rect").length) === 6, "the sandwich view is drawn");
		await page.keyboard.press("Escape");
		ok(await page.evaluate(() => document.getElementById("sandwich").getAttribute("display")) === "none", "Esc leaves the sandwich view");
		await page.click("#tablebtn");

		// Screenshot not blank.
		const shot = path.join(process.env.FK_SHOT_DIR || path.dirname(svg), "flame.png");
		await page.screenshot({ path: shot });
		const ps = pngStats(fs.readFileSync(shot));
		ok(ps.colours >= 6 && ps.nonWhite > 0.05, "screenshot is not blank", JSON.stringify(ps));
		ok(errors.length === 0, "no script errors during the session", errors.join("; "));
		await page.close();

		// Merged boxes zoom into their real frames.
		let many = "main;big 100000\n";
		for (let i = 0; i < 200; i++)
			many += `main;tiny${String(i).padStart(3, "0")} 5\n`;
		({ page, errors } = await open(ctx, render(many, [], "many")));
		const mg = await page.evaluate(() => window.fk.merged());
		ok(mg.length === 1 && mg[0].count === 200, "200 narrow siblings are drawn as one '(200 more)' box", JSON.stringify(mg));
		await page.mouse.click(mg[0].x + mg[0].w / 2, mg[0].y + 5);
		const tiny = await page.evaluate(() => { const o = []; for (let i = 0; i < window.fk.n; i++) if (window.fk.geom(i).shown && /^tiny/.test(window.fk.name(i))) o.push(window.fk.name(i)); return o; });
		ok(tiny.length === 200 && tiny[0] === "tiny000" && tiny[199] === "tiny199", "clicking it zooms into its 200 real frames", tiny.length);
		const m2 = await page.evaluate(() => window.fk.search("tiny0"));
		ok(/^100 matches \u00b7 0\.50% of total \u00b7 50\.00% of view$/.test(m2), "search in a merged zoom counts the view's frames", m2);
		ok(/r=\d+-\d+/.test(page.url()), "the merged zoom is kept in the URL", page.url());
		ok(errors.length === 0, "no script errors", errors.join("; "));
		await page.close();

		// Long title, tall graph: the header stays, never covered.
		const deep = Array.from({ length: 120 }, (_, i) => "f" + i).join(";") + " 10\n";
		({ page, errors } = await open(ctx, render(deep, ["--title", "T".repeat(600)], "tall")));
		const tt = await page.evaluate(() => ({ t: document.getElementById("ttl").getBoundingClientRect().toJSON(),
			q: document.getElementById("q").getBoundingClientRect().toJSON() }));
		ok(tt.t.right <= 1280 && tt.q.top > tt.t.top && tt.q.top < 80, "a long title is cut, the toolbar stays in place", JSON.stringify(tt));
		await page.evaluate(() => window.scrollTo(0, 1200));
		await page.waitForFunction(() => window.scrollY > 1000);
		await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => r())));
		const hq = await page.evaluate(() => document.getElementById("q").getBoundingClientRect().top);
		ok(hq >= 0 && hq < 80, "the header stays at the top when the graph scrolls", hq);
		await page.evaluate(() => { window.scrollTo(0, 0); window.fk.search("f119"); });
		await page.click("#next");
		const deepY = await page.evaluate(() => { return window.fk.rect(window.fk.find("f119")).getBoundingClientRect().toJSON(); });
		const hb = await page.evaluate(() => document.querySelector(".hdr").getBoundingClientRect().bottom);
		ok(deepY.top >= hb && deepY.bottom <= 800, "next scrolls the match into view below the header", JSON.stringify([deepY, hb]));
		await page.close();

		// Value columns.
		const cols = "# columns: inuse_space/bytes inuse_objects/count alloc_space/bytes alloc_objects/count\n" +
			"main;a 100 1 1000 10\nmain;b 300 9 1000 20\n";
		({ page, errors } = await open(ctx, render(cols, [], "cols")));
		const opts = await page.evaluate(() => Array.from(document.querySelectorAll("#col option")).map((o) => o.textContent));
		ok(opts.join(",") === "inuse_space,inuse_objects,alloc_space,alloc_objects", "the column switch lists the input's columns", opts.join(","));
		ok(Math.abs((await geom(page, "b")).w - 1260 * 0.75) < 0.2, "the first column sets the widths", JSON.stringify(await geom(page, "b")));
		await page.selectOption("#col", "1");
		ok(Math.abs((await geom(page, "b")).w - 1260 * 0.9) < 0.2, "switching the column re-lays out the graph", JSON.stringify(await geom(page, "b")));
		b = await box(page, "a");
		await page.mouse.move(b.x + 3, b.y + 5);
		det = await details(page);
		ok(/^1 count \u2014 10\.00% of total/.test(det[1]), "values are shown in the column's unit", det[1]);
		ok(/^1 match \u00b7 10\.00% of total/.test(await page.evaluate(() => window.fk.search("^a$", { re: true }))), "search counts the selected column");
		await page.selectOption("#col", "3");
		ok(/v=3/.test(page.url()), "the column is kept in the URL", page.url());
		ok(errors.length === 0, "no script errors", errors.join("; "));
		await page.close();

		// Differential graph.
		const dsvg = render(fx("diff-new.folded"), ["--diff", path.join(top, "fixtures/folded/diff-base.folded")], "diff");
		({ page, errors } = await open(ctx, dsvg));
		const gone = async () => (await geom(page, "gone")).shown ? (await geom(page, "gone")).w : 0;
		ok(await page.evaluate(() => window.fk.state.col) === 2, "a diff opens on 'new + vanished'");
		await page.selectOption("#col", "0");
		const g0 = await gone();
		await page.selectOption("#col", "2");
		const g1 = await gone();
		ok(g0 === 0 && g1 > 100, "vanished stacks show with the 'new + vanished' column", g0 + " -> " + g1);
		b = await box(page, "gone");
		await page.mouse.move(b.x + 3, b.y + 5);
		det = await details(page);
		ok(/vanished: base 6 B \u2192 0 \(\u2212100\.00%\)/.test(det[1]), "the details of a vanished frame read right", det[1]);
		await page.selectOption("#col", "0");
		b = await box(page, "c");
		await page.mouse.move(b.x + 3, b.y + 5);
		det = await details(page);
		ok(det[0] === "Function: c" && /base 4 B \u2192 9 B \(\+5 B, \+125\.00%\)/.test(det[1]), "diff details show both values and the change", JSON.stringify(det));
		const lg = await page.textContent("#legend");
		ok(/change of each frame's total/.test(lg) && /gone/.test(lg) && /new/.test(lg), "the legend says what colour means", lg);
		ok(errors.length === 0, "no script errors", errors.join("; "));
		await page.close();

		// An empty profile is still a page.
		({ page, errors } = await open(ctx, render("main;a 0\n", [], "zero")));
		ok(errors.length === 0 && (await details(page))[0] === "No stack has a value.", "an all-zero profile loads and says so",
		   JSON.stringify([errors, await details(page)]));
		await page.close();

		// Normalising: the base scaled to the new total (20 -> 40).
		const nb = path.join(path.dirname(dsvg), "nbase.folded");
		fs.writeFileSync(nb, "main;a 10\nmain;b 10\n");
		({ page, errors } = await open(ctx, render("main;a 30\nmain;b 10\n", ["--diff", nb], "norm")));
		const cls = (s) => page.evaluate((x) => window.fk.el(window.fk.find(x)).getAttribute("class"), s);
		const c0 = [await cls("a"), await cls("b")];
		await page.check("#norm");
		const c1 = [await cls("a"), await cls("b")];
		ok(c0.join() === "r4,d0" && c1.join() === "r2,b3", "normalising rescales the base before colouring", JSON.stringify([c0, c1]));
		ok(/base scaled to the new total/.test(await page.textContent("#legend")), "the legend says the base is scaled");
		await page.close();
	} catch (e) {
		ok(false, "browser session", e.stack);
	} finally {
		await close();
	}

	// Without script: render-flame's own drawing, root row first.
	const { ctx: c2, close: close2 } = await launch({ javaScriptEnabled: false });
	try {
		const page = await c2.newPage();
		await page.goto("file://" + render(sample, [], "noscript"));
		const fr = await page.evaluate(() => Array.from(document.querySelectorAll("#frames text")).map((t) => [t.textContent, t.getBoundingClientRect().top]));
		ok(fr.length >= 5 && fr[0][0] === "all" && fr[0][1] < 100 && fr[0][1] > 0, "without script the page shows its drawing, root on top", JSON.stringify(fr));
		ok(await page.title() === "Flame Graph", "the title is there without script");
	} catch (e) {
		ok(false, "no-script session", e.stack);
	} finally {
		await close2();
	}
	done();
})();
