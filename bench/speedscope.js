// SPDX-License-Identifier: MIT
// speedscope side by side with render-flame's page: opens speedscope's
// release page from its npm package, gives it the same folded file through
// its file input, and times file chosen -> profile shown (title set, first
// frame drawn), then the render-flame page of the same file, load until
// usable, in the same browser. speedscope is not a dependency of the
// tests: install it once into a scratch directory with
//   npm install --prefix DIR speedscope@1.25.0
// Usage: FK_SPEEDSCOPE=DIR/node_modules/speedscope B=build node bench/speedscope.js FOLDED [RUNS]
"use strict";
const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");
const top = path.resolve(__dirname, "..");
const { launch } = require(path.join(top, "tests/browser/lib.js"));
const inp = process.argv[2], runs = +(process.argv[3] || 1);
const ss = process.env.FK_SPEEDSCOPE || "/tmp/ss/node_modules/speedscope";
const B = process.env.B || path.join(top, "build");
if (!inp || !fs.existsSync(path.join(ss, "dist/release/index.html"))) {
	console.error("usage: FK_SPEEDSCOPE=DIR/node_modules/speedscope node bench/speedscope.js FOLDED [RUNS]");
	process.exit(2);
}
const svg = inp.replace(/(\.folded)?$/, ".svg");
execFileSync(path.join(B, "render-flame"), ["-o", svg, inp]);

(async () => {
	const { ctx, close } = await launch();
	for (let r = 0; r < runs; r++) {
		let page = await ctx.newPage();
		await page.goto("file://" + path.join(ss, "dist/release/index.html"));
		await page.waitForSelector("input[type=file]", { state: "attached", timeout: 30000 });
		const t0 = Date.now();
		await page.setInputFiles("input[type=file]", inp);
		await page.waitForFunction(() => / - speedscope$/.test(document.title), null, { timeout: 600000, polling: 50 });
		await page.waitForFunction(() => document.querySelectorAll("canvas").length > 0, null, { timeout: 60000, polling: 50 });
		await page.evaluate(() => new Promise((res) => requestAnimationFrame(() => requestAnimationFrame(res))));
		const tss = Date.now() - t0;
		await page.close();
		page = await ctx.newPage();
		const t1 = Date.now();
		await page.goto("file://" + svg);
		await page.waitForFunction(() => window.fk && document.querySelectorAll("#view > *").length > 0, null, { timeout: 120000, polling: 20 });
		const tfk = Date.now() - t1;
		await page.close();
		console.log(`run ${r + 1}: speedscope 1.25.0 file to profile shown ${tss} ms; render-flame page load until usable ${tfk} ms` +
			` (load average ${fs.readFileSync("/proc/loadavg", "utf8").split(" ")[0]})`);
	}
	await close();
})();
