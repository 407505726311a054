// SPDX-License-Identifier: MIT
// Does the page behave the same with two builds' render-flame? For a
// refactoring of the page script (render/flame-*.js): renders a plain, a
// differential and a series input with each build, replays the same clicks,
// keys, searches, sorts, inverts, sandwiches, table sorts and timeline
// selections (window.fk and real input events) on both pages, and after
// every step compares the drawn DOM (graph, sandwich, table, timeline,
// header), the URL's hash and the page's state. Prints a line a case; exits
// 1 at the first step that differs, printing what differs.
// Usage: node bench/page-same.js OLD_BUILD_DIR NEW_BUILD_DIR  (from the top of the tree)
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { execFileSync } = require("child_process");
const top = path.resolve(__dirname, "..");
const { launch } = require(path.join(top, "tests/browser/lib.js"));
const builds = process.argv.slice(2);
if (builds.length !== 2) {
	process.stderr.write("usage: node bench/page-same.js OLD_BUILD_DIR NEW_BUILD_DIR\n");
	process.exit(2);
}
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fk-same-"));

// The inputs, from a fixed seed.
let seed = 7;
const rnd = (n) => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) % n;
const fns = ["alloc", "grow_cache", "parse", "std::vector<int>::push_back", "operator new(unsigned long)", "leaf", "handler", "json::decode"];
const stack = (d, names) => ["main"].concat(Array.from({ length: d }, () => {
	const f = fns[rnd(fns.length)];
	return f === "leaf" ? f + rnd(names) : f;
})).join(";");
let plain = "", base = "", series = "# columns: " + [1, 2, 3, 4, 5, 6].map((i) => i + "/bytes").join(" ") + "\n";
for (let k = 0; k < 3000; k++) {
	const s = stack(2 + rnd(13), 300), v = 1 + rnd(100000);
	plain += s + " " + v + "\n";
	if (k % 7)
		base += s + " " + (k % 3 ? v : 2 * v) + "\n";
}
for (let i = 0; i < 6; i++)
	series += "# series: " + (i + 1) + " time=" + (1.5 * i).toFixed(1) + " rss=" + 100000 * (i + 2) + " allocated=" + 50000 * (i + 1) + "\n";
for (let k = 0; k < 300; k++)
	series += stack(2 + rnd(7), 30) + " " + [0, 1, 2, 3, 4, 5].map((i) => Math.max(0, rnd(1200) - 200 + k * i)).join(" ") + "\n";
for (const [n, t] of [["plain", plain], ["base", base], ["series", series]])
	fs.writeFileSync(path.join(dir, n + ".folded"), t);
const pages = builds.map((B, b) => {
	const out = (n) => path.join(dir, n + "-" + b + ".svg"), r = (args) => execFileSync(path.join(B, "render-flame"), args);
	r(["-o", out("plain"), path.join(dir, "plain.folded")]);
	r(["--diff", path.join(dir, "base.folded"), "-o", out("diff"), path.join(dir, "plain.folded")]);
	r(["-o", out("series"), path.join(dir, "series.folded")]);
	return out;
});

// What a step is compared by.
const snap = () => {
	const q = (s) => { const e = document.querySelector(s); return e ? e.outerHTML : null; };
	return JSON.stringify({ hash: location.hash, view: q("#view"), sandwich: q("#sandwich"), table: q("#toptable"),
		timeline: q("#timeline"), panel: q("#tlpanel"), header: q("#hdr"), selected: q("#selr"),
		height: document.documentElement.getAttribute("height"), state: window.fk && JSON.stringify(window.fk.state),
		series: window.fk && window.fk.timeline && JSON.stringify(window.fk.timeline.selection()) });
};
async function replay(ctx, file, hash, steps) {
	const page = await ctx.newPage();
	await page.setViewportSize({ width: 1100, height: 800 });
	const errors = [], out = [];
	page.on("pageerror", (e) => errors.push(String(e)));
	await page.goto("file://" + file + hash);
	await page.waitForFunction(() => window.fk, null, { timeout: 60000 });
	out.push(await page.evaluate(snap));
	for (const s of steps) {
		let err = "";
		try {
			if (typeof s === "string")
				await page.evaluate(s);
			else
				await s(page);
		} catch (e) {
			err = String(e.message).split("\n")[0];
		}
		// Past the search box's debounce and the resize timer.
		await page.waitForTimeout(120);
		out.push("error: " + err, await page.evaluate(snap));
	}
	await page.close();
	return { out, errors };
}
const key = (k) => (p) => p.keyboard.press(k), click = (s) => (p) => p.click(s);
const common = ["fk.search('alloc')", "fk.step(1)", "fk.step(1)", "fk.step(-1)", key("ArrowDown"), key("ArrowRight"), key("Enter"),
	"fk.sort(true)", "fk.top()", "fk.pick(fk.names.indexOf(fk.top()[1].name))", "fk.invert(true)", "fk.search('leaf')", "fk.step(1)",
	"fk.sandwich('alloc')", key("Escape"), "fk.invert(false)", "fk.sort(false)", (p) => p.mouse.move(300, 400),
	(p) => p.mouse.click(300, 400), key("c"), key("s"), key("Escape"), key("Escape"), click("#orient"), click("#tablebtn"),
	click("th[data-sort=name]"), (p) => p.fill("#q", "pars"), key("Enter"), "fk.search('^std', { re: 1, cs: 1 })", "fk.col(0)"];
const tl = ["fk.timeline.range(1, 4)", "fk.sort(true)", "fk.invert(true)", "fk.timeline.point(2)", "fk.timeline.peak()",
	"fk.timeline.range(0, 5)", "fk.invert(false)", "fk.sort(false)", "fk.col(1)", "fk.timeline.range(2, 3)",
	(p) => p.focus("#timeline"), key("Shift+ArrowLeft"), key("ArrowRight")];
const cases = [["plain", "", common], ["plain", "#z=3&s=alloc&o=w&t=1&ts=name-a&k=5", common],
	["diff", "", common.concat([click("#norm")])], ["series", "", tl.concat(common)], ["series", "#g=2,5&o=w&i=1", tl]];

(async () => {
	const { ctx, close } = await launch();
	let bad = 0;
	for (const [name, hash, steps] of cases) {
		const [a, b] = [await replay(ctx, pages[0](name), hash, steps), await replay(ctx, pages[1](name), hash, steps)];
		const at = a.out.findIndex((s, i) => s !== b.out[i]);
		const same = at < 0 && a.errors.join() === b.errors.join().split(pages[1](name)).join(pages[0](name));
		console.log(`${name} ${hash || "(no hash)"}: ${steps.length} steps, ${same ? "the same" : "DIFFERENT at step " + Math.ceil(at / 2)}`);
		if (!same) {
			bad++;
			if (at >= 0 && a.out[at][0] === "{") {
				const x = JSON.parse(a.out[at]), y = JSON.parse(b.out[at]);
				for (const k in x)
					if (x[k] !== y[k]) {
						// From a little before the first character that differs.
						const u = String(x[k]), v = String(y[k]);
						let c = 0;
						while (c < u.length && u[c] === v[c])
							c++;
						c = Math.max(0, c - 100);
						console.log(`  ${k}:\n    ${u.slice(c, c + 300)}\n    ${v.slice(c, c + 300)}`);
					}
			} else {
				console.log("  " + (at >= 0 ? a.out[at] + " / " + b.out[at] : a.errors.join("; ") + " / " + b.errors.join("; ")));
			}
		}
	}
	await close();
	fs.rmSync(dir, { recursive: true, force: true });
	process.exit(bad ? 1 : 0);
})();
