// Opens a 100k-frame render-flame SVG in headless Chromium and times what a
// person waits for: page load until the script is ready, one regex search
// (with the Matched line), a zoom and a reset. Medians of RUNS.
// Usage: B=DIR node bench/render-browser.js [RUNS]  (from the top of the tree)
"use strict";
const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");
const top = path.resolve(__dirname, "..");
const { launch } = require(path.join(top, "tests/browser/lib.js"));
const runs = +(process.argv[2] || 5);
const B = process.env.B || path.join(top, "build");
const work = process.env.FK_BENCH_DIR || "/tmp/fk-bench-render";
fs.mkdirSync(work, { recursive: true });

// 2000 stacks of depth 51 diverging after "main": 100,002 frames drawn.
const inp = path.join(work, "frames100k.folded"), svg = path.join(work, "frames100k.svg");
let lines = [];
for (let i = 0; i < 2000; i++) {
	const st = ["main"];
	for (let d = 0; d < 50; d++) st.push(`ns${d % 7}::Class${(i * 31 + d) % 97}::method_${d}_${i % 13}(int)`);
	st[1] = `entry${i}`;
	lines.push(st.join(";") + " " + (1000 + (i % 17) * 100));
}
fs.writeFileSync(inp, lines.join("\n") + "\n");
execFileSync(path.join(B, "render-flame"), ["--minwidth", "0", "-o", svg, inp]);
const med = (a) => a.slice().sort((x, y) => x - y)[Math.floor(a.length / 2)];

(async () => {
	const { ctx, close } = await launch();
	const load = [], search = [], zoom = [];
	let frames = 0, matched = "";
	for (let r = 0; r < runs; r++) {
		const page = await ctx.newPage();
		const t0 = Date.now();
		await page.goto("file://" + svg);
		await page.waitForFunction(() => window.fk, null, { timeout: 60000 });
		load.push(Date.now() - t0);
		frames = await page.evaluate(() => window.fk.n);
		const q = ["method_1[0-9]_", "Class4[0-9]::", "^entry1", "ns3::Class7"][r % 4];
		const t = await page.evaluate((s) => {
			const a = performance.now();
			const m = window.fk.search(s, false);
			document.body && document.body.offsetWidth;
			return [performance.now() - a, m];
		}, q);
		search.push(t[0]);
		matched = t[1];
		const z = await page.evaluate(() => {
			const a = performance.now();
			window.fk.zoom(5);
			window.fk.zoom(0);
			return (performance.now() - a) / 2;
		});
		zoom.push(z);
		await page.close();
	}
	await close();
	console.log(`svg: ${fs.statSync(svg).size} bytes, ${frames} frames`);
	console.log(`load until ready ms (median of ${runs}): ${med(load)}`);
	console.log(`one search ms (median): ${med(search).toFixed(1)}  e.g. ${matched}`);
	console.log(`one zoom ms (median): ${med(zoom).toFixed(1)}`);
	console.log(`load average: ${fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
})();
