#!/usr/bin/env node
// SPDX-License-Identifier: MIT
// The page as a user sees it at real window sizes (1280x800, 1920x1080, a
// 400x800 phone), from what looking at screenshots of real profiles found:
// (1) after a click zooms, the hover outline is not left at the frame's
// old place; (2) the selected frame's details follow the zoom ("% of
// view" after Reset); (3) the graph does not move when a search's count
// appears; (4) on a phone the functions table leaves the function name
// room, and a diff's change is whole; (5) the sandwich's caption stays
// inside the window; (6) the legend says what the colours and widths are
// (no "warm" for the default green palette, callers' widths when
// inverted); (7) no label of 2 characters of a name or a cut count;
// (8) the arrow keys go down the heaviest child, a frame too narrow to
// draw is outlined by its "(N more)" box, Enter zooms from a check box;
// (9) a time axis of distinct round ticks, the last snapshot labelled;
// (10) a lifetimes page's histogram leaves the graph in sight, its bars
// aligned; (11) root at the bottom opens with the root in sight; (12) a
// sandwich opens on its function's row; (13) the timeline's "Grew most"
// names whole on a phone. Every wait is on an event or a
// page state, never a sleep.
"use strict";
const path = require("path");
const { execFileSync } = require("child_process");
const { ok, step, launch, render, done } = require("./lib.js");

const long = "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >::_M_construct<char const*>(char const*, char const*)";
const sample = "main;parse_request;read_body 5\nmain;parse_request;decode 3\n" +
	`main;cache_put;${long} 4\nmain;cache_put;copy_value 6\nmain;log_append 2\n`;
const sizes = [[1280, 800], [1920, 1080], [400, 800]];

async function open(ctx, file, vp) {
	const page = await ctx.newPage();
	await page.setViewportSize({ width: vp[0], height: vp[1] });
	const errors = [];
	page.on("pageerror", (e) => errors.push(String(e)));
	await page.goto("file://" + file);
	await page.waitForFunction(() => window.fk, null, { timeout: 60000 });
	return { page, errors };
}
// The frame's box on screen (client coordinates).
const box = (page, name) => page.evaluate((s) => {
	const r = window.fk.rect(window.fk.find(s)).getBoundingClientRect();
	return { x: r.x, y: r.y, w: r.width, h: r.height };
}, name);
const details = (page) => page.evaluate(() => Array.from(document.querySelectorAll("#details .name, #details .num")).map((d) => d.textContent));
// The graph's top: the root's row on screen.
const graphTop = (page) => page.evaluate(() => window.fk.rect(0).getBoundingClientRect().y);

(async () => {
	const { ctx, close } = await launch();
	const svg = render(sample, [], "sizes");
	for (const vp of sizes) {
		const at = vp.join("x");
		await step("sizes at " + at, async () => {
			const { page, errors } = await open(ctx, svg, vp);

			// 1. Click cache_put: the page zooms into it; the outline of the
			// frame under the mouse is that frame's new box, or none.
			let b = await box(page, "cache_put");
			await page.mouse.move(b.x + b.w / 2, b.y + b.h / 2);
			await page.waitForFunction(() => document.getElementById("hov").getAttribute("display") === "inline");
			await page.mouse.click(b.x + b.w / 2, b.y + b.h / 2);
			await page.waitForFunction(() => window.fk.state.zoom === window.fk.find("cache_put"));
			const hv = await page.evaluate(() => {
				const h = document.getElementById("hov"), g = window.fk.geom(window.fk.find("cache_put"));
				return { display: h.getAttribute("display"), x: +h.getAttribute("x"), w: +h.getAttribute("width"), gx: g.x, gw: g.w };
			});
			ok(hv.display === "none" || Math.abs(hv.x - hv.gx) < 0.5 && Math.abs(hv.w - hv.gw) < 0.5,
				`1 ${at}: after a click zooms, the hover outline is on the frame's new box or hidden`, JSON.stringify(hv));

			// 2. Reset zoom: the selected frame's details say its share of
			// the whole view again (14 of 20 bytes... cache_put is 10 of 20).
			let d = await details(page);
			ok(d.some((l) => /100\.00% of view/.test(l)), `2 ${at}: zoomed in, the selection is 100% of the view`, JSON.stringify(d));
			await page.click("#reset");
			await page.waitForFunction(() => window.fk.state.zoom === 0);
			d = await details(page);
			ok(d.some((l) => /50\.00% of total, 50\.00% of view/.test(l)), `2 ${at}: after Reset zoom the selection's details follow the view`, JSON.stringify(d));

			// 3. Typing a search that matches: the graph stays where it was
			// (the count must not push the toolbar onto another row).
			{
				const hh = () => page.evaluate(() => document.querySelector(".hdr").getBoundingClientRect().height);
				const y0 = await graphTop(page), h0 = await hh();
				await page.click("#q");
				await page.keyboard.type("parse", { delay: 5 });
				await page.waitForFunction(() => /match/.test(document.getElementById("matched").textContent));
				await page.waitForFunction(() => window.fk.state.query === "parse");
				// The header's ResizeObserver lays out again on the next frame.
				await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
				const y1 = await graphTop(page), h1 = await hh();
				ok(y1 === y0 && h1 === h0, `3 ${at}: the graph and the header keep their places when the search's count appears`,
					`graph ${y0} -> ${y1}, header ${h0} -> ${h1}`);
				const mr = await page.evaluate(() => document.getElementById("matched").getBoundingClientRect().right);
				ok(mr <= vp[0], `3 ${at}: the count is inside the window`, mr);
				await page.keyboard.press("Escape");
			}

			// 4. The functions table: the name column keeps room for a name.
			await page.click("#tablebtn");
			await page.waitForFunction(() => document.querySelectorAll("#top tbody td.fn").length > 0);
			const tw = await page.evaluate(() => {
				const td = document.querySelector("#top tbody td.fn"), tb = document.getElementById("top");
				const v = Array.from(document.querySelector("#top tbody tr").cells).filter((c) => c.classList.contains("v"))
					.map((c) => [c.scrollWidth, c.clientWidth]);
				// The name's room: the cell less its sandwich button.
				const sw = td.querySelector(".swb").getBoundingClientRect();
				return { fn: td.clientWidth - sw.width, table: tb.clientWidth, right: tb.getBoundingClientRect().right, v };
			});
			ok(tw.fn >= 0.35 * tw.table, `4 ${at}: the function's name has at least 35% of the table`, JSON.stringify(tw));
			ok(tw.v.every((c) => c[0] <= c[1]), `4 ${at}: the value cells are not cut`, JSON.stringify(tw));
			ok(tw.right <= vp[0], `4 ${at}: the table is inside the window`, JSON.stringify(tw));
			await page.click("#tablebtn");

			// 5. The sandwich of the long C++ name: its caption fits the window.
			await page.evaluate((s) => window.fk.sandwich(s), long);
			const cap = await page.evaluate(() => {
				const t = document.querySelector("#sandwich text.swl"), r = t.getBoundingClientRect();
				return { right: r.right, text: t.textContent };
			});
			ok(cap.right <= vp[0] && /^Callers of /.test(cap.text), `5 ${at}: the sandwich's caption is inside the window`, JSON.stringify(cap));
			await page.keyboard.press("Escape");
			await page.waitForFunction(() => window.fk.state.sw < 0);

			// 6. The legend.
			const lg = () => page.evaluate(() => document.getElementById("legend").textContent);
			let l = await lg();
			ok(!/warm/.test(l) && /Width: bytes of each frame and its callees/.test(l), `6 ${at}: the legend does not call the default green palette warm`, l);
			await page.click("#invert");
			await page.waitForFunction(() => window.fk.state.inv);
			l = await lg();
			ok(!/its callees/.test(l) && /callers/.test(l), `6 ${at}: inverted, the legend says what a width is`, l);
			ok(errors.length === 0, `${at}: no script errors`, errors.join("; "));
			await page.close();
		});
	}
	// 4 (diff). A diff's table: the change and its percentage whole, the
	// name with room (at 400 px it had none: three value columns).
	const fsm = require("fs"), os = require("os");
	const dbase = path.join(fsm.mkdtempSync(path.join(os.tmpdir(), "fk-sizes-")), "base.folded");
	fsm.writeFileSync(dbase, "main;grow_cache 51200\nmain;parse 4096\nmain;gone 1000\n");
	const dsvg = render(`main;grow_cache 25216000\nmain;parse 3000\nmain;fresh_${long} 70000\n`, ["--diff", dbase], "diff");
	for (const vp of sizes) {
		const at = vp.join("x");
		await step("diff table at " + at, async () => {
			const { page, errors } = await open(ctx, dsvg, vp);
			await page.click("#tablebtn");
			await page.waitForFunction(() => document.querySelectorAll("#top tbody td.fn").length > 0);
			const tw = await page.evaluate(() => {
				const tb = document.getElementById("top"), rows = Array.from(document.querySelectorAll("#top tbody tr"));
				const cut = [];
				for (const r of rows)
					for (const c of r.cells)
						if (c.classList.contains("v") && c.offsetWidth > 0 && c.scrollWidth > c.clientWidth)
							cut.push(c.textContent);
				const td = rows[0].querySelector("td.fn"), sw = td.querySelector(".swb").getBoundingClientRect().width;
				return { fn: td.clientWidth - sw, table: tb.clientWidth, cut, text: tb.textContent.slice(0, 400) };
			});
			ok(/\+24\.0 MiB \+49150\.00%/.test(tw.text) && tw.cut.length === 0, `4 ${at}: a diff's value cells are whole`, JSON.stringify(tw));
			ok(tw.fn >= 0.25 * tw.table, `4 ${at}: a diff's function name has a quarter of the table`, JSON.stringify(tw));
			ok(errors.length === 0, `4 ${at}: no script errors on the diff`, errors.join("; "));
			await page.close();
		});
	}

	// 11. Root at the bottom (--upward) of a graph deeper than the window:
	// the page opens with the root in sight, and so does the switch.
	let deep = "";
	for (let i = 0; i < 4; i++)
		deep += Array.from({ length: 70 }, (_, d) => `f${i}_${d}`).join(";") + " 10\n";
	const usvg = render(deep, ["--upward"], "up"), dsvg2 = render(deep, [], "down");
	for (const vp of sizes) {
		const at = vp.join("x");
		await step("upward at " + at, async () => {
			const rootIn = (page) => page.evaluate(() => {
				const r = window.fk.rect(0).getBoundingClientRect();
				return { top: r.top, bottom: r.bottom, h: innerHeight, page: document.documentElement.scrollHeight };
			});
			let { page, errors } = await open(ctx, usvg, vp);
			let r = await rootIn(page);
			ok(r.page > vp[1] && r.top >= 0 && r.bottom <= r.h, `11 ${at}: --upward opens with the root in the window`, JSON.stringify(r));
			ok(errors.length === 0, `11 ${at}: no script errors`, errors.join("; "));
			await page.close();
			({ page, errors } = await open(ctx, dsvg2, vp));
			await page.click("#orient");
			await page.waitForFunction(() => window.fk.state.up);
			r = await rootIn(page);
			ok(r.top >= 0 && r.bottom <= r.h, `11 ${at}: "Root at bottom" keeps the root in the window`, JSON.stringify(r));
			await page.close();
		});
	}

	// 9 (ids). A series without times, 40 snapshots: the last one, the
	// one the page opens on, has its label on the axis.
	let ids = "# columns:";
	for (let k = 0; k < 40; k++)
		ids += ` ${k}/bytes`;
	ids += "\n";
	for (let k = 0; k < 40; k++)
		ids += `# series: ${k}\n`;
	ids += "main;grow " + Array.from({ length: 40 }, (_, k) => 1000 + 50 * k).join(" ") + "\n";
	const isvg = render(ids, [], "ids");
	for (const vp of sizes) {
		const at = vp.join("x");
		await step("snapshot axis at " + at, async () => {
			const { page, errors } = await open(ctx, isvg, vp);
			const ax = await page.evaluate(() => Array.from(document.querySelectorAll("#timeline text.tlax[text-anchor=middle]"))
				.map((t) => { const r = t.getBoundingClientRect(); return [t.textContent, r.left, r.right]; }));
			let touch = 0;
			for (let k = 1; k < ax.length; k++)
				if (ax[k][1] < ax[k - 1][2] + 2)
					touch++;
			ok(ax.length >= 3 && ax[ax.length - 1][0] === "39" && touch === 0 && ax[ax.length - 1][2] <= vp[0],
				`9 ${at}: the last snapshot is labelled on the axis, inside the window, no two labels touching`, JSON.stringify(ax));
			ok(errors.length === 0, `9 ${at}: no script errors (ids)`, errors.join("; "));
			await page.close();
		});
	}

	// 12. A sandwich of a function with deep callers opens on the
	// function's row, below the sticky header, inside the window.
	let callers = "";
	for (let i = 0; i < 3; i++)
		callers += Array.from({ length: 60 }, (_, d) => `c${i}_${d}`).join(";") + ";target;leaf 10\n";
	const csvg = render(callers, [], "callers");
	for (const vp of sizes) {
		const at = vp.join("x");
		await step("sandwich at " + at, async () => {
			const { page, errors } = await open(ctx, csvg, vp);
			await page.evaluate(() => window.fk.sandwich("target"));
			const r = await page.evaluate(() => {
				const k = document.querySelector("#sandwich g.swk rect").getBoundingClientRect();
				return { top: k.top, bottom: k.bottom, hdr: document.querySelector(".hdr").getBoundingClientRect().bottom, h: innerHeight };
			});
			ok(r.top >= r.hdr && r.bottom <= r.h, `12 ${at}: the sandwich opens with its function's row in sight`, JSON.stringify(r));
			ok(errors.length === 0, `12 ${at}: no script errors`, errors.join("; "));
			await page.close();
		});
	}

	// 13. The timeline's "Grew most" names every site whole (at 400 px
	// they were cut to "fk-synth+0x4\u2026", all alike).
	let sites = "# columns: a/bytes b/bytes\n# series: a\n# series: b\n";
	for (let i = 0; i < 8; i++)
		sites += `main;libexample-synth.so.1.2.3+0x4a07${i}${i} 395313561 ${790627123 + i}\n`;
	const gsvg = render(sites, [], "sites");
	for (const vp of sizes) {
		const at = vp.join("x");
		await step("grew most at " + at, async () => {
			const { page, errors } = await open(ctx, gsvg, vp);
			const cut = await page.evaluate(() => Array.from(document.querySelectorAll("#tlgrowth td"))
				.map((td) => [td.textContent, td.scrollWidth, td.clientWidth]));
			ok(cut.length === 32 && cut.every((c) => c[1] <= c[2]), `13 ${at}: "Grew most" shows every site's name and figures whole`, JSON.stringify(cut.slice(0, 3)));
			ok(errors.length === 0, `13 ${at}: no script errors`, errors.join("; "));
			await page.close();
		});
	}

	// 7. Labels: a name cut to 2 characters ("P\u2026s") or a merged
	// box's count cut ("(7\u2026e)") is noise: such frames have no label;
	// a short cut keeps the name's start ("PyOb\u2026").
	let narrow = "";
	// 1 of 8150 is 0.15 px at 1280: the frames are 15 to 62 px wide, the
	// 400 tiny ones a merged box of 62 px.
	for (let i = 0; i <= 30; i++)
		narrow += `main;dispatch_${String(i).padStart(3, "0")};PyObject_Call_${i} ${100 + 10 * i}\n`;
	for (let i = 0; i < 400; i++)
		narrow += `main;tiny_${String(i).padStart(3, "0")} 1\n`;
	const nsvg = render(narrow, [], "narrow");
	for (const vp of sizes) {
		const at = vp.join("x");
		await step("labels at " + at, async () => {
			const { page, errors } = await open(ctx, nsvg, vp);
			const L = await page.evaluate(() => Array.from(document.querySelectorAll("#view > g")).map((g) => {
				const t = g.querySelector("text");
				if (g.hasAttribute("data-m"))
					return { m: true, t: t.textContent, count: window.fk.merged()[+g.getAttribute("data-m")].count };
				return { t: t.textContent, name: window.fk.name(+g.getAttribute("data-i")) };
			}));
			// A cut name keeps 3 or more of its characters, its start (and
			// its end when cut in the middle).
			const fine = (l) => {
				if (l.t === l.name)
					return true;
				const [a, b] = l.t.split("\u2026");
				return b !== undefined && Array.from(a + b).length >= 3 && l.name.startsWith(a) && l.name.endsWith(b) && a.length >= 3;
			};
			const bad = L.filter((l) => l.m ? !(l.t === `(${l.count} more)` || l.t === `(${l.count})`) : !fine(l));
			ok(L.length > 0 && (vp[0] < 1280 || L.some((l) => l.m)) && bad.length === 0 && (vp[0] < 1280 || L.some((l) => !l.m && l.t !== l.name)),
				`7 ${at}: every label is a whole name, its start and end (3 or more of its characters), or a merged box's whole count`,
				L.length + " labels, bad: " + JSON.stringify(bad.slice(0, 6)));
			ok(errors.length === 0, `7 ${at}: no script errors`, errors.join("; "));
			await page.close();
		});
	}
	// 8. The arrow keys: down goes to the heaviest child, which is drawn
	// (the first by name was a frame too narrow to see), and a sibling too
	// narrow to draw is outlined by the "(N more)" box it is in.
	let keys = "main;a_small 1\nmain;big 10000\n";
	for (let i = 0; i < 400; i++)
		keys += `main;tiny_${String(i).padStart(3, "0")} 1\n`;
	const ksvg = render(keys, [], "keys");
	for (const vp of sizes) {
		const at = vp.join("x");
		await step("keys at " + at, async () => {
			const { page, errors } = await open(ctx, ksvg, vp);
			const sel = () => page.evaluate(() => {
				const r = document.getElementById("selr"), s = window.fk.state.sel;
				return { name: s >= 0 ? window.fk.name(s) : "", display: r.getAttribute("display"), x: +r.getAttribute("x"), w: +r.getAttribute("width") };
			});
			for (let k = 0; k < 3; k++)
				await page.keyboard.press("ArrowDown");      // all, main, then its heaviest child
			let s = await sel();
			ok(s.name === "big" && s.display === "inline", `8 ${at}: down goes to the heaviest child, outlined`, JSON.stringify(s));
			await page.keyboard.press("ArrowRight");
			s = await sel();
			const mb = await page.evaluate(() => window.fk.merged().filter((b) => b.count === 400)[0] || null);
			ok(s.name === "tiny_000" && s.display === "inline" && mb && Math.abs(s.x - mb.x) < 0.1 && Math.abs(s.w - mb.w) < 0.1,
				`8 ${at}: a sibling too narrow to draw is outlined by its merged box`, JSON.stringify([s, mb]));
			// From a focused check box (Tab), the arrows select and Enter zooms.
			await page.focus("#case");
			await page.keyboard.press("ArrowLeft");
			await page.keyboard.press("Enter");
			const z = await page.evaluate(() => window.fk.state.zoom === window.fk.find("big") && document.activeElement.id);
			ok(z === "case", `8 ${at}: with a check box focused, Enter zooms into the selected frame`, String(z));
			ok(errors.length === 0, `8 ${at}: no script errors`, errors.join("; "));
			await page.close();
		});
	}
	// 9. A timeline of 21 snapshots over 0.2 s (the hook's test run took
	// as long): the time axis has distinct round labels where their times
	// are, and a snapshot's time is told to the millisecond.
	let ser = "# columns:";
	for (let k = 0; k <= 20; k++)
		ser += ` s${k}/bytes`;
	ser += "\n";
	for (let k = 0; k <= 20; k++)
		ser += `# series: s${k} time=${(1000 + k * 0.01).toFixed(2)} rss=${20000 + 100 * k}\n`;
	ser += "main;grow " + Array.from({ length: 21 }, (_, k) => 1000 + 50 * k).join(" ") + "\n";
	const tsvg = render(ser, [], "series");
	for (const vp of sizes) {
		const at = vp.join("x");
		await step("timeline at " + at, async () => {
			const { page, errors } = await open(ctx, tsvg, vp);
			const ax = await page.evaluate(() => {
				const x0 = window.fk.timeline.x(0), x1 = window.fk.timeline.x(20);
				return Array.from(document.querySelectorAll("#timeline text.tlax[text-anchor=middle]"))
					.map((t) => ({ s: t.textContent, x: +t.getAttribute("x"), want: x0 + (x1 - x0) * +t.textContent / 0.2 }));
			});
			const labels = ax.map((a) => a.s);
			ok(ax.length >= 3 && new Set(labels).size === labels.length && ax.every((a) => Math.abs(a.x - a.want) < 1.5),
				`9 ${at}: the time axis has distinct labels, each at its time`, JSON.stringify(ax));
			const p = await page.evaluate(() => document.getElementById("tlpanel") ? document.getElementById("tlpanel").textContent : document.body.textContent);
			ok(/snapshot s20 \(0\.200 s\)/.test(p), `9 ${at}: the last snapshot's time is told to the millisecond`, p.slice(0, 160));
			ok(errors.length === 0, `9 ${at}: no script errors`, errors.join("; "));
			await page.close();
		});
	}
	// 10. The lifetimes page: a selected frame's histogram leaves the
	// graph in sight (it covered all of it), its bars line up.
	const top = path.resolve(__dirname, "../..");
	const bin = (p) => process.env.B ? path.join(process.env.B, p) : p;
	const life = execFileSync(bin("heap-lifetimes"), ["--sysroot", path.join(top, "fixtures/sysroot"),
		"-f", "columns", path.join(top, "fixtures/life/basic.life")], { encoding: "utf8" });
	const lsvg = render(life, [], "life");
	for (const vp of sizes) {
		const at = vp.join("x");
		await step("lifetimes at " + at, async () => {
			const { page, errors } = await open(ctx, lsvg, vp);
			const b = await box(page, "fk_alloc_big");
			await page.mouse.click(b.x + 4, b.y + b.h / 2);
			await page.waitForFunction(() => document.querySelectorAll("#details .num").length >= 9);
			const g = await page.evaluate(() => {
				const d = document.querySelector("#details .box").getBoundingClientRect();
				return { box: d.bottom, root: window.fk.rect(0).getBoundingClientRect().top };
			});
			ok(g.box <= g.root, `10 ${at}: the histogram does not cover the graph`, JSON.stringify(g));
			await page.evaluate(() => window.fk.select(0));
			const xs = await page.evaluate(() => Array.from(document.querySelectorAll("#details .num")).filter((e) => e.textContent.includes("\u2588"))
				.map((e) => {
					const r = document.createRange(), t = e.firstChild, i = t.textContent.indexOf("\u2588");
					r.setStart(t, i);
					r.setEnd(t, i + 1);
					return r.getBoundingClientRect().left;
				}));
			ok(xs.length >= 3 && xs.every((x) => Math.abs(x - xs[0]) < 0.5), `10 ${at}: the bars start at one x`, JSON.stringify(xs));
			ok(errors.length === 0, `10 ${at}: no script errors`, errors.join("; "));
			await page.close();
		});
	}
	await close();
	done();
})();
