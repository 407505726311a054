#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// Hostile frame names and options never execute in the page: every payload
// calls alert() or sets window.__pwned if it ever runs. Names are shown as
// text, in labels, the details panel, search, the tables and copy.
"use strict";
const fs = require("fs");
const path = require("path");
const { ok, launch, render, done } = require("./lib.js");

const top = path.resolve(__dirname, "../..");
const payloads = [
	"<script>alert(1)</script>",
	"\"]alert(1)//",
	"</style><script>alert(2)</script>",
	"]]><script>alert(3)</script>",
	"<img src=x onerror=\"window.__pwned=1\">",
	"<svg onload=\"window.__pwned=2\"/>",
	"</metadata><script>window.__pwned=3</script>",
	"</text><script>window.__pwned=4</script><text>",
	"--><script>window.__pwned=5</script><!--",
	"<![CDATA[ ]]><script>window.__pwned=6</script>",
	"javascript:window.__pwned=7",
	"\\u003cscript\\u003ewindow.__pwned=8\\u003c/script\\u003e",
	"${window.__pwned=9}",
];
const folded = fs.readFileSync(path.join(top, "fixtures/folded/hostile.folded"), "latin1") +
	payloads.map((p, i) => `main;${p};leaf${i} ${10 + i}\n`).join("");
const opt = "<script>alert(10)</script>\"];alert(11)//</style><script>window.__pwned=12</script>]]>";
const svg = render(Buffer.from(folded, "latin1"), ["--title", opt, "--subtitle", opt, "--notes", opt,
	"--countname", opt, "--nametype", opt, "--fonttype", opt], "xss");

(async () => {
	const { ctx, close } = await launch();
	try {
		const page = await ctx.newPage();
		const dialogs = [], errors = [];
		page.on("dialog", (d) => { dialogs.push(d.message()); d.dismiss().catch(() => {}); });
		page.on("pageerror", (e) => errors.push(String(e)));
		await page.goto("file://" + svg);
		await page.waitForFunction(() => window.fk);
		ok(errors.length === 0, "hostile page loads without script errors", errors.join("; "));
		const title = await page.textContent("#ttl");
		ok(title === opt, "a hostile --title is shown as text", title);
		ok(await page.title() === opt, "and as the document title", await page.title());
		const names = await page.evaluate(() => window.fk.names);
		ok(payloads.every((p) => names.includes(p)), "hostile names survive as text in the name table",
		   payloads.filter((p) => !names.includes(p)).join(" | "));
		// Hover every frame, search for each payload, open the tables,
		// copy a stack.
		const n = await page.locator("#view > *").count();
		for (let i = 0; i < n; i++) {
			const b = await page.locator("#view > *").nth(i).boundingBox();
			if (b && b.width > 1)
				await page.mouse.move(b.x + 1, b.y + b.height / 2);
		}
		const det = await page.evaluate(() => document.getElementById("details").textContent);
		ok(typeof det === "string" && det.length > 0, "the details panel renders hostile names");
		for (const p of payloads)
			await page.evaluate((s) => window.fk.search(s), p);
		const m = await page.evaluate((s) => window.fk.search(s, { cs: true, re: true }), "^<script>alert\\(1\\)</script>$");
		ok(/^1 match \u00b7 [1-9][0-9.]*% of total/.test(m), "a hostile name is found by search", m);
		const lit = await page.evaluate((s) => window.fk.search(s), "]]><script>alert(3)</script>");
		ok(/^1 match \u00b7/.test(lit), "a hostile name is found literally", lit);
		const t = await page.evaluate(() => window.fk.top().map((r) => r.name));
		ok(payloads.every((p) => t.includes(p) || t.length === 50), "the top table lists hostile names as text");
		for (const p of payloads.slice(0, 4))
			await page.evaluate((s) => window.fk.sandwich(s), p);
		await page.keyboard.press("Escape");
		// Restore a hostile search from the URL.
		await page.goto("file://" + svg + "#s=" + encodeURIComponent("<script>alert(13)</script>") + "&z=999999");
		await page.waitForFunction(() => window.fk);
		await page.keyboard.press("ArrowUp");
		await page.keyboard.press("ArrowUp");
		await page.keyboard.press("c");
		await page.waitForTimeout(200);
		const pw = await page.evaluate(() => window.__pwned);
		ok(pw === undefined, "no payload ran", String(pw));
		ok(dialogs.length === 0, "no alert() was ever called", dialogs.join(" | "));
		const scripts = await page.evaluate(() => document.querySelectorAll("script").length);
		ok(scripts === 2, "the page holds only its own two script elements", scripts);
		const tbl = await page.evaluate(() => /^[0-9A-Za-z_.-]*$/.test(document.getElementById("fktable").textContent));
		ok(tbl, "the frame table holds only its code's characters");
		ok(errors.length === 0, "no script errors", errors.join("; "));
	} catch (e) {
		ok(false, "browser session", e.stack);
	} finally {
		await close();
	}
	done();
})();
