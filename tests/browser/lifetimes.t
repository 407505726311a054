#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// The lifetimes page (issue 24): heap-lifetimes --format columns of
// fixtures/life/basic.life drawn by render-flame opens on every record's
// bytes, and a selected frame's details end with its lifetime histogram:
// fk_alloc_small all under 1 ms, fk_alloc_medium under 10 s, fk_alloc_big
// live, each bar the widest in its frame's histogram.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { execFileSync } = require("child_process");
const { ok, launch, render, done } = require("./lib.js");

const top = path.resolve(__dirname, "../..");
const bin = (p) => process.env.B ? path.join(process.env.B, p) : p;
const folded = execFileSync(bin("heap-lifetimes"), ["--sysroot", path.join(top, "fixtures/sysroot"),
	"-f", "columns", path.join(top, "fixtures/life/basic.life")], { encoding: "utf8" });

(async () => {
	const { ctx, close } = await launch();
	try {
		const page = await ctx.newPage();
		const errors = [];
		page.on("pageerror", (e) => errors.push(String(e)));
		await page.goto("file://" + render(folded, [], "life"));
		await page.waitForFunction(() => window.fk, null, { timeout: 60000 });
		ok(errors.length === 0, "the page loads without script errors", errors.join("; "));
		const col = await page.evaluate(() => window.fk.state.col);
		ok(col === 0, "it opens on the column of every record", String(col));
		const hist = async (name) => page.evaluate((s) => {
			window.fk.select(window.fk.find(s));
			return Array.from(document.querySelectorAll("#details .name, #details .num")).map((d) => d.textContent);
		}, name);
		for (const [fn, bucket] of [["fk_alloc_small", "under-1ms"], ["fk_alloc_medium", "under-10s"],
					    ["fk_alloc_big", "live"]]) {
			const d = await hist(fn);
			const bars = d.filter((l) => /^(under|over|live)/.test(l));
			ok(bars.length === 8, fn + ": its details hold the 8 buckets", JSON.stringify(d));
			const widest = bars.map((l) => [l.split(" ")[0], (l.match(/\u2588/g) || []).length])
				.sort((a, b) => b[1] - a[1])[0];
			ok(widest && widest[0] === bucket && widest[1] === 24, fn + ": the widest bar is " + bucket,
				JSON.stringify(bars));
			ok(bars.some((l) => l.startsWith(bucket) && /\(100\.00%\)$/.test(l)), fn + ": all its bytes there",
				JSON.stringify(bars));
		}
		// Another page keeps its details as they were.
		const other = await ctx.newPage();
		await other.goto("file://" + render("main;foo 5\nmain;bar 3\n", [], "plain"));
		await other.waitForFunction(() => window.fk, null, { timeout: 60000 });
		const d = await other.evaluate(() => {
			window.fk.select(window.fk.find("foo"));
			return Array.from(document.querySelectorAll("#details .name, #details .num")).map((x) => x.textContent);
		});
		ok(d.length === 2, "a page without lifetime columns shows no histogram", JSON.stringify(d));
	} finally {
		await close();
	}
	done();
})();
