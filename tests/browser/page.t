#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Browser tests of what a new user hit on the page beside speedscope and
// pprof (issue 23), one section an item: (1) the functions table never
// lies over the graph, on the flame and the timeline page; (2) every
// function is reachable in a full, sortable, scrolling table the search
// filters, "Grew most" lists every site that grew, and a sandwich opens
// for any function from a frame (key s), the table or a search, with
// exact values in every column and a diff's change; (3) a diff opens on
// "new + vanished" and its table shows and sorts by the change; (4) an
// in-page invert (callers first) for any column; (5) everything a user
// sets is restored from the URL (columns past 9, a range, a sandwich, the
// table, orientation, invert, a timeline range by snapshot ids); (6) the
// legend follows the column and tells the truth about colour, text asks
// for a sans-serif fallback; (7) the timeline's menu after a drag and its
// "Where is my RSS" (every figure's line, the hook's and sampling's, no
// negative share, resident above RSS clamped and said, the real cause);
// (8) dead ends: copy with nothing selected, a bad regex says why, Enter
// goes to the heaviest match, the count before Enter, button labels that
// all name actions, long names whole at 480 px.
"use strict";
const fs = require("fs");
const path = require("path");
const { ok, step, launch, openPage, render, done, tlSelection, tlDrag } = require("./lib.js");

const top = path.resolve(__dirname, "../..");
const fx = (f) => fs.readFileSync(path.join(top, "fixtures/folded", f), "utf8");
const sample = "main;foo 5\nmain;foo::bar 3\nmain;foo;baz 2\nmain;other;deep;deeper 4\nmain;nothing 0\n";

const open = openPage;
const st = (page) => page.evaluate(() => window.fk.state);
const details = (page) => page.evaluate(() => Array.from(document.querySelectorAll("#details .name, #details .num")).map((d) => d.textContent));
const hashOf = (page) => page.evaluate(() => location.hash);
// The names of the drawn children of the root.
const rootKids = (page) => page.evaluate(() => {
	const o = [];
	for (let i = 0; i < window.fk.n; i++)
		if (window.fk.parent(i) === 0 && window.fk.value(i) > 0)
			o.push(window.fk.name(i) + "=" + window.fk.value(i));
	return o.sort();
});

(async () => {
	const { ctx, close } = await launch();
	const svg = render(sample, [], "sample");
	const hand = "# columns: 1/bytes 2/bytes 3/bytes\n" +
		"# series: s1 time=10 allocated=3000 active=4000 resident=6000 mapped=9000 rss=10000\n" +
		"# series: s2 time=11 allocated=5000 active=6000 resident=8000 mapped=9000 rss=12000\n" +
		"# series: s3 time=13 allocated=6000 active=8000 resident=12000 mapped=16000 rss=18500\n" +
		"main;grow_cache 1000 2000 4000\nmain;spike_alloc 0 3000 0\nmain;gone;leaf 500 200 0\n";
	const tsvg = render(hand, [], "hand");

	// 1. The table opens below the graph's top, never over frames.
	await step("item 1", async () => {
		for (const [file, what] of [[svg, "flame"], [tsvg, "timeline"]]) {
			const { page, errors } = await open(ctx, file);
			await page.click("#tablebtn");
			const g = await page.evaluate(() => ({ tb: document.getElementById("toptable").getBoundingClientRect().bottom,
				rows: document.querySelectorAll("#top tbody tr").length, y: window.fk.geom(0).y + document.documentElement.getBoundingClientRect().top }));
			ok(g.rows > 0 && g.y >= g.tb - 1, `1: the first opening of the functions table pushes the ${what} graph below it`, JSON.stringify(g));
			ok(errors.length === 0, `1: no script errors on the ${what} page`, errors.join("; "));
			await page.close();
		}
	});

	// 2. Every function reachable; sandwich from anywhere, every column.
	await step("item 2", async () => {
		let many = "# columns: inuse_space/bytes alloc_space/bytes\n";
		for (let i = 0; i < 60; i++)
			many += `main;mid${i % 3};fn${String(i).padStart(2, "0")} ${100 + i} ${1000 + i}\n`;
		const { page, errors } = await open(ctx, render(many, [], "many"));
		await page.click("#tablebtn");
		const n0 = await page.evaluate(() => document.getElementById("topn").textContent);
		ok(/64 functions/.test(n0), "2: the table says how many functions it holds", n0);
		await page.evaluate(() => { const s = document.getElementById("topscroll"); s.scrollTop = s.scrollHeight; });
		await page.waitForFunction(() => Array.from(document.querySelectorAll("#top tbody td.fn")).some((t) => / fn00$/.test(t.textContent)));
		ok(true, "2: scrolling the table to its end reaches the lightest function (fn00)");
		await page.click("#top th[data-sort=self]");
		await page.evaluate(() => { document.getElementById("topscroll").scrollTop = 0; });
		await page.waitForTimeout(50);
		const firstAsc = await page.evaluate(() => document.querySelector("#top tbody td").textContent);
		ok(/^0 B/.test(firstAsc), "2: a second click on a header reverses the order (lightest self first)", firstAsc);
		await page.evaluate(() => window.fk.search("fn05"));
		const filtered = await page.evaluate(() => Array.from(document.querySelectorAll("#top tbody td.fn")).map((t) => t.textContent.replace(/^sandwich /, "")));
		ok(filtered.length === 1 && filtered[0] === "fn05", "2: the search box filters the table", JSON.stringify(filtered));
		// A sandwich from the search: the button opens the heaviest match's.
		await page.click("#swbtn");
		let s = await st(page);
		ok(s.sw >= 0 && (await page.evaluate((k) => window.fk.names[k], s.sw)) === "fn05", "2: the sandwich button opens the searched function's sandwich", s.sw);
		await page.keyboard.press("Escape");
		await page.evaluate(() => window.fk.search(""));
		// From a frame, by keyboard: select mid1 and press s.
		await page.evaluate(() => window.fk.select(window.fk.find("mid1")));
		await page.keyboard.press("s");
		s = await st(page);
		ok(s.sw >= 0 && (await page.evaluate((k) => window.fk.names[k], s.sw)) === "mid1", "2: key s opens the selected frame's sandwich", s.sw);
		// From a frame by the mouse: a click selects it, the button opens it.
		await page.keyboard.press("Escape");
		const mb = await page.evaluate(() => { const r = window.fk.rect(window.fk.find("mid2")).getBoundingClientRect(); return [r.x + 3, r.y + 4]; });
		await page.mouse.click(mb[0], mb[1]);
		await page.click("#swbtn");
		s = await st(page);
		ok(s.sw >= 0 && (await page.evaluate((k) => window.fk.names[k], s.sw)) === "mid2", "2: a click on a frame, then Sandwich, opens that function's", s.sw);
		await page.evaluate(() => window.fk.sandwich("mid1"));
		// Hovering the sandwich's function row gives every column exactly.
		const r = await page.evaluate(() => { const e = document.querySelector("#sandwich g.swk rect"); const b = e.getBoundingClientRect(); return [b.x + 4, b.y + 4]; });
		await page.mouse.move(r[0], r[1]);
		const det = (await details(page)).join(" | ");
		// mid1: fn01, fn04, ... fn58: 20 functions; inuse 100+i, alloc 1000+i.
		let inu = 0, al = 0;
		for (let i = 1; i < 60; i += 3) {
			inu += 100 + i;
			al += 1000 + i;
		}
		ok(det.includes("inuse_space " + inu + " B") || det.includes("inuse_space " + (inu / 1024).toFixed(2) + " KiB"), "2: the sandwich names every column's value", det);
		ok(det.includes("alloc_space " + (al / 1024).toFixed(1) + " KiB") || det.includes("alloc_space " + (al / 1024).toFixed(2) + " KiB"), "2: including the other column", det + " want " + al);
		// A click on a callee opens its own sandwich.
		const cb = await page.evaluate(() => { const g = Array.from(document.querySelectorAll("#sandwich > g")).find((e) => /^fn/.test(e.textContent));
			const r = g.querySelector("rect").getBoundingClientRect(); return [r.x + 2, r.y + 4, g.textContent]; });
		await page.mouse.click(cb[0], cb[1]);
		ok((await page.evaluate(() => window.fk.names[window.fk.state.sw])) === cb[2], "2: a click on a callee opens its sandwich", cb[2]);
		await page.keyboard.press("Escape");
		// From the table: each row's button.
		await page.click("#top tbody tr:first-child .swb");
		ok((await st(page)).sw >= 0, "2: a table row's button opens its sandwich");
		await page.keyboard.press("Escape");
		ok(errors.length === 0, "2: no script errors", errors.join("; "));
		await page.close();

		// A diff's sandwich shows the change.
		const dsvg = render(fx("diff-new.folded"), ["--diff", path.join(top, "fixtures/folded/diff-base.folded")], "dsw");
		const d = await open(ctx, dsvg);
		await d.page.evaluate(() => window.fk.sandwich("c"));
		const rr = await d.page.evaluate(() => { const e = document.querySelector("#sandwich g.swk rect"); const b = e.getBoundingClientRect(); return [b.x + 4, b.y + 4]; });
		await d.page.mouse.move(rr[0], rr[1]);
		const dd = (await details(d.page)).join(" | ");
		ok(/base 4 B \u2192 9 B \(\+5 B, \+125\.00%\)/.test(dd), "2: a diff's sandwich shows base, new and the change", dd);
		await d.page.close();

		// "Grew most" lists every site that grew, not 8.
		let cols = "# columns: a/bytes b/bytes\n# series: a\n# series: b\n";
		for (let i = 0; i < 20; i++)
			cols += `main;g${String(i).padStart(2, "0")} 10 ${20 + i}\n`;
		const t = await open(ctx, render(cols, [], "grow"));
		await tlDrag(t.page, 0, 1);
		const gr = await t.page.evaluate(() => document.querySelectorAll("#tlgrowth tbody tr").length);
		ok(gr === 20, "2: grew most lists every one of 20 sites that grew", gr);
		await t.page.close();
	});

	// 3. A diff opens on new + vanished; its table shows the change.
	await step("item 3", async () => {
		const dsvg = render(fx("diff-new.folded"), ["--diff", path.join(top, "fixtures/folded/diff-base.folded")], "diff3");
		const { page, errors } = await open(ctx, dsvg);
		ok((await st(page)).col === 2, "3: a diff opens on 'new + vanished'", (await st(page)).col);
		const m = await page.evaluate(() => window.fk.search("gone"));
		ok(/^1 match/.test(m), "3: a vanished function is found at once", m);
		await page.evaluate(() => window.fk.search(""));
		await page.click("#tablebtn");
		const th = await page.evaluate(() => Array.from(document.querySelectorAll("#top th")).map((t) => t.getAttribute("data-sort")));
		ok(th.includes("change"), "3: the diff's table has a change column", th.join());
		const rowsOf = () => page.evaluate(() => Array.from(document.querySelectorAll("#top tbody tr")).map((r) => Array.from(r.cells).map((c) => c.textContent)));
		let rows = await rowsOf();
		const ci = th.indexOf("change");
		ok(rows.length > 1 && /^\+5 B/.test(rows[0][ci]) && rows.some((r) => /^\u2212|^-/.test(r[ci])), "3: sorted by change, growth first, vanished listed", JSON.stringify(rows));
		await page.click("#top th[data-sort=change]");
		rows = await rowsOf();
		ok(/^\u22126 B/.test(rows[0][ci]), "3: and a click puts the biggest loss first", JSON.stringify(rows));
		ok(errors.length === 0, "3: no script errors", errors.join("; "));
		await page.close();
	});

	// 4. Invert in the page: callers first.
	await step("item 4", async () => {
		const { page, errors } = await open(ctx, svg);
		const before = await rootKids(page);
		await page.click("#invert");
		const inv = await rootKids(page);
		ok(JSON.stringify(before) === JSON.stringify(["main=14"]) && JSON.stringify(inv) === JSON.stringify(["baz=2", "deeper=4", "foo::bar=3", "foo=5"]),
		   "4: invert puts the functions that hold memory first, each with its self value", JSON.stringify([before, inv]));
		const baz = await page.evaluate(() => { const j = window.fk.find("baz"); const o = []; for (let i = 0; i < window.fk.n; i++) if (window.fk.parent(i) === j) o.push(window.fk.name(i)); return o; });
		ok(baz.join() === "foo", "4: under a function, its callers", baz.join());
		await page.click("#invert");
		ok(JSON.stringify(await rootKids(page)) === JSON.stringify(before), "4: and back", JSON.stringify(await rootKids(page)));
		// With the functions table open and the graph sorted by weight,
		// inverting made the table's rows again before reading them (a
		// TypeError on null, the table left empty).
		await page.click("#tablebtn");
		await page.click("#sort");
		await page.click("#invert");
		const rows = await page.evaluate(() => document.querySelectorAll("#toptable tbody tr").length);
		ok(errors.length === 0 && rows > 0, "4: invert with the table open and sorted by weight", errors.join("; ") + " rows " + rows);
		await page.click("#invert");
		await page.close();
		const cols = "# columns: inuse_space/bytes alloc_space/bytes\nmain;a;x 1 10\nmain;b;x 2 20\nmain;b 3 30\n";
		const p = await open(ctx, render(cols, [], "inv4"));
		await p.page.selectOption("#col", "1");
		await p.page.click("#invert");
		ok(JSON.stringify(await rootKids(p.page)) === JSON.stringify(["b=30", "x=30"]), "4: invert works in any column", JSON.stringify(await rootKids(p.page)));
		ok(errors.length === 0 && p.errors.length === 0, "4: no script errors", errors.concat(p.errors).join("; "));
		await p.page.close();
		// 300 random stacks (recursion, shared and unshared callers):
		// every leaf-first path of up to 3 frames holds what the input says.
		let seed = 7, rnd = (k) => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) % k, txt = "", want = {};
		for (let i = 0; i < 300; i++) {
			const fr = ["main"];
			for (let d = rnd(6); d >= 0; d--)
				fr.push("f" + rnd(8));
			const v = 1 + rnd(100);
			txt += fr.join(";") + " " + v + "\n";
			const r = fr.slice().reverse();
			for (let l = 1; l <= Math.min(3, r.length); l++)
				want[r.slice(0, l).join(";")] = (want[r.slice(0, l).join(";")] || 0) + v;
		}
		const r3 = await open(ctx, render(txt, [], "inv4r"));
		await r3.page.click("#invert");
		const got = await r3.page.evaluate(() => {
			const o = {};
			for (let i = 1; i < window.fk.n; i++) {
				const p = [];
				for (let j = i; j > 0; j = window.fk.parent(j))
					p.unshift(window.fk.name(j));
				if (p.length <= 3)
					o[p.join(";")] = (o[p.join(";")] || 0) + window.fk.value(i);
			}
			return o;
		});
		const bad = Object.keys(want).filter((k) => got[k] !== want[k]).concat(Object.keys(got).filter((k) => !(k in want)));
		ok(bad.length === 0 && Object.keys(want).length > 50, "4: on 300 random stacks every inverted path up to 3 frames deep holds the input's value",
		   Object.keys(want).length + " paths; " + bad.slice(0, 5).map((k) => k + ": " + got[k] + " vs " + want[k]).join(", "));
		await r3.page.close();
		// A timeline's growth view turned over keeps its values.
		const t4 = await open(ctx, tsvg);
		await tlDrag(t4.page, 0, 2);
		const g0 = await t4.page.evaluate(() => [window.fk.value(0), window.fk.value(window.fk.find("leaf"))]);
		await t4.page.click("#invert");
		const g1 = await t4.page.evaluate(() => [window.fk.value(0), window.fk.value(window.fk.find("leaf")), window.fk.timeline.selection().diff,
			window.fk.parent(window.fk.find("leaf"))]);
		ok(g0[0] === g1[0] && g1[1] === 500 && g1[2] && g1[3] === 0, "4: a timeline's growth, inverted, keeps its totals (the vanished leaf at the root)", JSON.stringify([g0, g1]));
		ok(t4.errors.length === 0, "4: no script errors on the timeline", t4.errors.join("; "));
		await t4.page.close();
	});

	// 5. Everything a user sets comes back from the URL.
	await step("item 5", async () => {
		const names = Array.from({ length: 11 }, (_, i) => "c" + i + "/bytes");
		const cols = "# columns: " + names.join(" ") + "\nmain;a " + names.map((_, i) => i + 1).join(" ") + "\nmain;b " + names.map((_, i) => 20 - i).join(" ") + "\n";
		const f = render(cols, [], "cols11");
		let { page } = await open(ctx, f);
		await page.selectOption("#col", "10");
		await page.click("#orient");
		await page.click("#tablebtn");
		await page.click("#invert");
		const h = await hashOf(page);
		await page.close();
		({ page } = await open(ctx, f, h));
		const s = await st(page);
		ok(s.col === 10, "5: a column index of 10 is restored", h + " -> " + s.col);
		ok(s.table && s.inv && s.up, "5: table, invert and orientation are restored", h + " -> " + JSON.stringify(s));
		await page.close();
		({ page } = await open(ctx, svg));
		await page.evaluate(() => window.fk.sandwich("deep"));
		const h2 = await hashOf(page);
		await page.close();
		({ page } = await open(ctx, svg, h2));
		ok((await st(page)).sw >= 0 && (await page.evaluate(() => window.fk.names[window.fk.state.sw])) === "deep", "5: an open sandwich is restored", h2);
		await page.close();
		// The table's sort, a highlighted function and the selection.
		({ page } = await open(ctx, svg));
		await page.click("#tablebtn");
		await page.click("#top th[data-sort=total]");
		await page.click("#top th[data-sort=total]");
		await page.evaluate(() => { window.fk.pick(window.fk.names.indexOf("baz")); window.fk.select(window.fk.find("deeper")); });
		const h4 = await hashOf(page);
		await page.close();
		({ page } = await open(ctx, svg, h4));
		const r4 = await page.evaluate(() => ({ th: document.querySelector("#top th[data-sort=total]").getAttribute("aria-sort"),
			fn: window.fk.names[window.fk.state.fn], sel: window.fk.name(window.fk.state.sel), det: document.querySelector("#details .name").textContent }));
		ok(r4.th === "ascending" && r4.fn === "baz" && r4.sel === "deeper" && /deeper/.test(r4.det), "5: the table's sort, the highlighted function and the selection are restored",
		   h4 + " -> " + JSON.stringify(r4));
		await page.close();
		({ page } = await open(ctx, tsvg));
		await tlDrag(page, 0, 1);
		const h3 = await hashOf(page);
		await page.close();
		({ page } = await open(ctx, tsvg, h3));
		const sl = await tlSelection(page);
		ok(sl.a === 0 && sl.b === 1 && sl.diff && /s1/.test(h3), "5: a dragged range is restored, by snapshot ids", h3 + " -> " + JSON.stringify(sl));
		await page.close();
	});

	// 6. The legend and the fonts.
	await step("item 6", async () => {
		const cols = "# columns: inuse_space/bytes alloc_space/bytes\nmain;a;a 1 10\nmain;a 2 20\n";
		const { page } = await open(ctx, render(cols, [], "leg"));
		await page.selectOption("#col", "1");
		const lg = await page.textContent("#legend");
		ok(/alloc_space/.test(lg) && !/inuse_space/.test(lg), "6: the legend names the column shown", lg);
		const shades = await page.evaluate(() => { const c = new Set(); for (let i = 0; i < window.fk.n; i++) if (window.fk.name(i) === "a" && window.fk.el(i)) c.add(window.fk.el(i).getAttribute("class")); return c.size; });
		ok(!(shades > 1 && /by name only/.test(lg)), "6: the legend does not say 'by name only' when one name has several shades", shades + " " + lg);
		const ff = await page.evaluate(() => getComputedStyle(document.querySelector("#view text")).fontFamily);
		ok(/sans-serif\s*$/.test(ff), "6: frame labels fall back to a sans-serif font", ff);
		await page.close();
	});

	// 7. The timeline: the menu after a drag, "Where is my RSS".
	await step("item 7", async () => {
		let { page, errors } = await open(ctx, tsvg);
		await tlDrag(page, 0, 2);
		const m = await page.evaluate(() => { const s = document.getElementById("col"); return s.selectedIndex >= 0 ? s.options[s.selectedIndex].textContent : ""; });
		ok(/growth/.test(m), "7: after a drag the column menu names the growth shown", JSON.stringify(m));
		await page.close();
		// The hook's and sampling's own lines; sampling the biggest cause.
		const rs = "# columns: 1/bytes\n# series: 1 time=1 allocated=300000 active=320000 resident=400000 mapped=900000 rss=500000 hook=60000 sampling=200000\n" +
			"main;a 50000\n";
		({ page, errors } = await open(ctx, render(rs, [], "rss7")));
		let rows = await page.evaluate(() => Array.from(document.querySelectorAll("#tlrss tbody tr")).map((r) => Array.from(r.cells).map((c) => c.textContent)));
		const txt = rows.map((r) => r.join(" ")).join(" | ");
		ok(/hook|profiler/i.test(txt) && /sampling/i.test(txt), "7: the hook's own bytes and sampling's cost have their own lines", txt);
		ok(/mapped/.test(txt), "7: every figure the data carries is shown (mapped)", txt);
		ok(rows.every((r) => !/^[\u2212-]/.test(r[2] || "")), "7: no share is negative", txt);
		let sent = await page.textContent("#tlsentence");
		ok(/sampling/i.test(sent), "7: the sentence names sampling when it is the biggest gap", sent);
		const chart = await page.evaluate(() => Array.from(document.querySelectorAll("#timeline path.tlline")).map((p) => p.getAttribute("data-key")).sort().join());
		ok(/hook/.test(chart) && /sampling/.test(chart), "7: the chart draws the hook's and sampling's lines", chart);
		await page.close();
		// jemalloc's resident above the process's RSS.
		const up = "# columns: 1/bytes\n# series: 1 time=1 allocated=300000 active=320000 resident=600000 rss=500000\nmain;a 290000\n";
		({ page, errors } = await open(ctx, render(up, [], "up7")));
		rows = await page.evaluate(() => Array.from(document.querySelectorAll("#tlrss tbody tr")).map((r) => Array.from(r.cells).map((c) => c.textContent)));
		sent = await page.evaluate(() => document.getElementById("tlrss").textContent);
		ok(rows.every((r) => !/[\u2212-]\d/.test(r[1] + r[2])), "7: resident above RSS gives no negative figure", JSON.stringify(rows));
		ok(/upper bound/.test(sent), "7: and says resident is an upper bound there", sent);
		await page.close();
		// With the hook's arena: resident is held below RSS less the arena.
		({ page, errors } = await open(ctx, render(up.replace("rss=500000", "rss=500000 hook=20000"), [], "uph7")));
		const bh = await page.evaluate(() => window.fk.timeline.breakdown());
		const hk = bh.gaps[0].parts.find((p) => p.key === "hook");
		ok(hk && hk.bytes === 20000 && bh.levels[1].bytes === 480000, "7: the hook's arena keeps its line when resident exceeds RSS", JSON.stringify(bh.gaps[0]));
		ok(errors.length === 0, "7: no script errors", errors.join("; "));
		await page.close();
	});

	// 8. Dead ends and small lies.
	await step("item 8", async () => {
		let { page, errors } = await open(ctx, svg);
		await page.click("#copy");
		const c = (await details(page)).join(" ");
		ok(c.length > 0, "8: Copy stack with nothing selected says what to do", JSON.stringify(c));
		await page.evaluate(() => window.fk.search("(", { re: true }));
		const bad = await page.textContent("#matched");
		ok(/regular expression|regex/i.test(bad), "8: a bad regex says why", bad);
		await page.evaluate(() => window.fk.search(""));
		await page.fill("#q", "");
		await page.focus("#q");
		await page.keyboard.type("ba");
		await page.waitForFunction(() => /\d/.test(document.getElementById("matched").textContent));
		const pre = await page.textContent("#matched");
		ok(!/^0 of/.test(pre) && /^\d+ match/.test(pre), "8: before Enter the count says how many match", pre);
		await page.keyboard.press("Enter");
		const s1 = await page.evaluate(() => window.fk.name(window.fk.state.sel));
		ok(s1 === "foo::bar", "8: Enter goes to the heaviest match first (foo::bar 3, not baz 2 first in the tree)", s1);
		await page.keyboard.press("Escape");
		await page.keyboard.press("Escape");
		const labs = await page.evaluate(() => [document.getElementById("orient").textContent, document.getElementById("sort").textContent]);
		// The page opens root on top, sorted by name: each button names what a click does.
		ok(/bottom/i.test(labs[0]) && /weight/i.test(labs[1]), "8: the orientation and sort buttons both name their action", JSON.stringify(labs));
		await page.close();
		const long = "main;" + "std::vector<std::pair<std::basic_string<char>, long>>::_M_realloc_insert_".repeat(6) + "end 10\nmain;x 5\n";
		({ page, errors } = await open(ctx, render(long, [], "long"), "", { width: 480, height: 800 }));
		const y0 = await page.evaluate(() => window.fk.geom(0).y);
		await page.evaluate(() => window.fk.select(window.fk.find(window.fk.names.find((s) => /end$/.test(s)))));
		const nm = await page.evaluate(() => { const e = document.querySelector("#details .name"); const r = e.getBoundingClientRect();
			return { sh: e.scrollHeight, ch: e.clientHeight, bottom: r.bottom, vh: window.innerHeight, y: window.fk.geom(0).y }; });
		ok(nm.sh <= nm.ch + 1 && nm.bottom <= nm.vh, "8: at 480 px a long name is shown whole in the details", JSON.stringify(nm));
		ok(nm.y === y0, "8: and the graph does not move", JSON.stringify([y0, nm.y]));
		ok(errors.length === 0, "8: no script errors", errors.join("; "));
		await page.close();
	});
	await close();
	done();
})();
