#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Browser tests of the views issue 36 lists as missed beside speedscope
// and pprof, one section an item: (1) focus on a function, hide one (its
// callees go to its caller), merge a function's instances, collapse its
// recursion (direct and indirect) and every function's direct recursion:
// each computed on the full tree (exact values), undone by Back or by its
// chip, kept in the URL, and composed with invert.
"use strict";
const path = require("path");
const { ok, step, launch, render, done } = require("./lib.js");

// all 20: a recursing 4 (a;a;a directly), x;a;y;a 2 (a indirectly), bar
// under foo 3 and under baz 5, qux 6.
const rec = "main;a;a;a;b 4\nmain;x;a;y;a;c 2\nmain;foo;bar 3\nmain;foo;baz;bar 5\nmain;qux 6\n";

async function open(ctx, file, hash, vp) {
	const page = await ctx.newPage();
	if (vp)
		await page.setViewportSize(vp);
	const errors = [];
	page.on("pageerror", (e) => errors.push(String(e)));
	await page.goto("file://" + file + (hash || ""));
	await page.waitForFunction(() => window.fk, null, { timeout: 60000 });
	return { page, errors };
}
const text = (page, sel) => page.evaluate((s) => { const e = document.querySelector(s); return e ? e.textContent : null; }, sel);
// The tree as "path value" lines (total values), in preorder.
const paths = (page) => page.evaluate(() => { const f = window.fk, out = [];
	for (let j = 1; j < f.n; j++) { const p = []; for (let i = j; i > 0; i = f.parent(i)) p.unshift(f.name(i)); out.push(p.join(";") + " " + f.value(j)); }
	return out; });
const has = (lines, l) => lines.includes(l);
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
	await close();
	done();
})();
