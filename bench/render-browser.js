// SPDX-License-Identifier: MIT
// The page on the 120k-line, ~102 MB synthetic heap profile of
// bench/gen-synth.py (about 1.55M frames, all of them in the page's data):
// render-flame's time and the SVG's size per byte of folded input, then in
// headless Chromium what a person waits for: load until usable (script
// ready, graph drawn), search per keystroke (typing a C++ name one
// character at a time, each prefix searched as the debounced input would),
// zoom into frames and "(N more)" boxes and back, the functions table,
// a sandwich view, search with the table open, invert (callers first), and
// the transforms of the searched function (hide it, focus on it, each on
// the full tree). Medians of RUNS page loads.
// Usage: B=DIR node bench/render-browser.js [RUNS [LINES]]  (from the top of the tree)
"use strict";
const fs = require("fs");
const path = require("path");
const { execFileSync } = require("child_process");
const top = path.resolve(__dirname, "..");
const { launch } = require(path.join(top, "tests/browser/lib.js"));
const runs = +(process.argv[2] || 5);
const nlines = +(process.argv[3] || 120000);
const B = process.env.B || path.join(top, "build");
const work = process.env.FK_BENCH_DIR || "/tmp/fk-bench-render";
fs.mkdirSync(work, { recursive: true });

const inp = path.join(work, `synth-${nlines}.folded`), svg = path.join(work, `synth-${nlines}.svg`);
if (!fs.existsSync(inp))
	fs.writeFileSync(inp, execFileSync("python3", [path.join(top, "bench/gen-synth.py"), String(nlines)], { maxBuffer: 1 << 30 }));
const med = (a) => a.slice().sort((x, y) => x - y)[Math.floor(a.length / 2)];
const rt = [];
for (let r = 0; r < 3; r++) {
	const t0 = process.hrtime.bigint();
	execFileSync(path.join(B, "render-flame"), ["-o", svg, inp]);
	rt.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
const inSize = fs.statSync(inp).size, outSize = fs.statSync(svg).size;

(async () => {
	const { ctx, close } = await launch();
	const load = [], key = [], keyMax = [], zoom = [], mzoom = [], table = [], sw = [], inv = [], keyT = [], xf = [];
	let frames = 0, drawn = 0, matched = "";
	const word = "operator new(unsigned long)";
	for (let r = 0; r < runs; r++) {
		const page = await ctx.newPage();
		const t0 = Date.now();
		await page.goto("file://" + svg);
		await page.waitForFunction(() => window.fk && document.querySelectorAll("#view > *").length > 0, null, { timeout: 120000, polling: 20 });
		load.push(Date.now() - t0);
		frames = await page.evaluate(() => window.fk.n);
		drawn = await page.evaluate(() => window.fk.drawnCount());
		const ks = await page.evaluate((w) => {
			const t = [];
			let m = "";
			for (let i = 1; i <= w.length; i++) {
				const a = performance.now();
				m = window.fk.search(w.slice(0, i));
				document.documentElement.getBoundingClientRect();
				t.push(performance.now() - a);
			}
			window.fk.search("");
			return [t, m];
		}, word);
		key.push(med(ks[0]));
		keyMax.push(Math.max(...ks[0]));
		matched = ks[1];
		const z = await page.evaluate(() => {
			// Zoom into the widest frame at depth 3 and back, timed with
			// the layout of what was drawn.
			let best = -1, bw = 0;
			for (let i = 0; i < 20000; i++)
				if (window.fk.geom(i).shown && window.fk.geom(i).w > bw && window.fk.geom(i).y > 0 && window.fk.parent(i) >= 0 &&
				    window.fk.parent(window.fk.parent(i)) >= 0 && window.fk.parent(window.fk.parent(window.fk.parent(i))) === 0) {
					best = i;
					bw = window.fk.geom(i).w;
				}
			const a = performance.now();
			window.fk.zoom(best);
			document.documentElement.getBoundingClientRect();
			const b = performance.now();
			window.fk.zoom(0);
			document.documentElement.getBoundingClientRect();
			const c = performance.now();
			return [b - a, c - b];
		});
		zoom.push(Math.max(z[0], z[1]));
		const mz = await page.evaluate(() => {
			const all = window.fk.merged();
			let k = 0;
			for (let i = 1; i < all.length; i++)
				if (all[i].w > all[k].w)
					k = i;
			const m = all[k];
			window.scrollTo(0, Math.max(0, m.y - 300));
			const cx = m.x + m.w / 2, cy = m.y - window.scrollY + 5;
			const el = document.elementFromPoint(cx, cy);
			const a = performance.now();
			el.dispatchEvent(new MouseEvent("click", { bubbles: true, clientX: cx, clientY: cy }));
			document.documentElement.getBoundingClientRect();
			const t = performance.now() - a;
			const ok = window.fk.state.ra >= 0;
			window.fk.zoom(0);
			window.scrollTo(0, 0);
			return ok ? t : NaN;
		});
		mzoom.push(mz);
		table.push(await page.evaluate(() => {
			const a = performance.now();
			window.fk.top();
			document.documentElement.getBoundingClientRect();
			return performance.now() - a;
		}));
		sw.push(await page.evaluate((w) => {
			const a = performance.now();
			window.fk.sandwich(w);
			document.documentElement.getBoundingClientRect();
			return performance.now() - a;
		}, word));
		// Search with the functions table open (it filters per keystroke).
		keyT.push(await page.evaluate((w) => {
			const t = [];
			for (let i = 1; i <= w.length; i++) {
				const a = performance.now();
				window.fk.search(w.slice(0, i));
				document.documentElement.getBoundingClientRect();
				t.push(performance.now() - a);
			}
			window.fk.search("");
			return Math.max(...t);
		}, word));
		// Invert (callers first) and back; the first build is the cost.
		inv.push(await page.evaluate(() => {
			if (!window.fk.invert)
				return [NaN, NaN, 0];          // a page from before invert
			window.fk.zoom(0);
			const a = performance.now();
			window.fk.invert(true);
			document.documentElement.getBoundingClientRect();
			const b = performance.now(), ni = window.fk.n;
			window.fk.invert(false);
			document.documentElement.getBoundingClientRect();
			return [b - a, performance.now() - b, ni];
		}));
		// Hide, then focus on, the searched function; each a new tree from
		// the full one, laid out and drawn.
		xf.push(await page.evaluate((w) => {
			if (!window.fk.transform)
				return [NaN, NaN];             // a page from before transforms
			const k = window.fk.find(w), out = [];
			for (const t of ["h", "f"]) {
				const a = performance.now();
				window.fk.transform(t, k);
				document.documentElement.getBoundingClientRect();
				out.push(performance.now() - a);
				window.fk.transform("");
			}
			return out;
		}, word));
		await page.close();
	}
	await close();
	console.log(`input: ${inp}, ${nlines} lines, ${inSize} bytes`);
	console.log(`render-flame ms (median of 3): ${med(rt).toFixed(0)}`);
	console.log(`svg: ${outSize} bytes, ${(outSize / inSize).toFixed(3)} bytes per input byte, ${frames} frames in the data, ${drawn} drawn at 1280 px`);
	console.log(`load until usable ms (median of ${runs}): ${med(load)}  (all: ${load.join(" ")})`);
	console.log(`search per keystroke ms (median of per-run medians): ${med(key).toFixed(1)}, slowest keystroke ${Math.max(...keyMax).toFixed(1)}; '${word}' gives ${matched}`);
	console.log(`zoom in or out ms (median of the slower of the two): ${med(zoom).toFixed(1)}`);
	console.log(`zoom into the widest "(N more)" ms (median): ${med(mzoom).toFixed(1)}`);
	console.log(`functions table ms (median): ${med(table).toFixed(1)}; sandwich of '${word}' ms (median): ${med(sw).toFixed(1)}`);
	console.log(`search per keystroke with the functions table open, slowest keystroke ms (median): ${med(keyT).toFixed(1)}`);
	console.log(`invert ms (median): ${med(inv.map((x) => x[0])).toFixed(0)} (${inv[0][2]} frames in the inverted tree), back ${med(inv.map((x) => x[1])).toFixed(0)}`);
	console.log(`hide '${word}' ms (median): ${med(xf.map((x) => x[0])).toFixed(0)}; focus on it ms (median): ${med(xf.map((x) => x[1])).toFixed(0)}`);
	console.log(`load average: ${fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
})();
