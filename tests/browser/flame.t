#!/usr/bin/env node
// Browser tests of render-flame's page in headless Chromium: tooltip, zoom,
// reset, search and matched %, case toggle, next/previous match, Ctrl-F and
// Esc, URL state restore, keyboard navigation, copy stack, the differential
// vanished switch, and a screenshot that is not blank.
"use strict";
const fs = require("fs");
const path = require("path");
const { ok, launch, render, done } = require("./lib.js");
const { pngStats } = require("./png.js");

const top = path.resolve(__dirname, "../..");
const fx = (f) => fs.readFileSync(path.join(top, "fixtures/folded", f), "utf8");
const sample = "main;foo 5\nmain;foo::bar 3\nmain;foo;baz 2\nmain;other;deep;deeper 4\n";

(async () => {
	const { ctx, close } = await launch();
	try {
		const svg = render(sample, [], "sample");
		const url = "file://" + svg;
		const page = await ctx.newPage();
		const errors = [];
		page.on("pageerror", (e) => errors.push(String(e)));
		await page.goto(url);
		await page.waitForFunction(() => window.fk);
		ok(errors.length === 0, "page loads without script errors", errors.join("; "));

		const frame = (name) => page.evaluate((nm) => {
			const names = window.fk.names, els = document.getElementById("frames").children;
			const meta = JSON.parse(document.getElementById("fkdata").textContent);
			for (let i = 0; i < els.length; i++)
				if (names[meta.f[i * 4 + 1]] === nm) {
					const e = window.fk.el(i), r = e.tagName === "rect" ? e : e.firstChild;
					const g = window.fk.geom(i);
					return { i, x: +r.getAttribute("x"), w: +r.getAttribute("width"),
						 cls: e.getAttribute("class"), shown: g.shown };
				}
			return null;
		}, name);
		const box = async (name) => {
			const f = await frame(name);
			const h = await page.evaluateHandle((i) => { const e = window.fk.el(i); return e.tagName === "rect" ? e : e.firstChild; }, f.i);
			return h.asElement().boundingBox();
		};

		// Hover tooltip.
		let b = await box("foo");
		await page.mouse.move(b.x + 5, b.y + b.height / 2);
		const tip = await page.evaluate(() => Array.from(document.querySelectorAll(".tip text")).map((t) => t.textContent));
		ok(tip[0] === "foo", "tooltip names the frame", JSON.stringify(tip));
		ok(/^7 B .*50\.00% of total, 50\.00% of zoom/.test(tip[1]), "tooltip shows value with unit, % of total and of zoom", tip[1]);
		ok(tip[2] === "self: 5 B", "tooltip shows self value", tip[2]);
		const det = await page.textContent("#details");
		ok(det === "Function: foo (7 B, 50.00%)", "details line", det);

		// Click to zoom, then reset.
		const before = await frame("foo");
		await page.mouse.click(b.x + 5, b.y + b.height / 2);
		let f = await frame("foo"), other = await frame("other");
		ok(Math.abs(f.w - 1180) < 0.2 && f.x === 10, "click zooms the frame to full width", JSON.stringify(f));
		ok(!other.shown && await page.evaluate(() => document.querySelectorAll("#view > g").length) === 4,
		   "zoom shows only the zoomed frame, its ancestors and children", JSON.stringify(other));
		ok(/anc/.test((await frame("main")).cls), "zoom keeps ancestors, faded", (await frame("main")).cls);
		ok(/#z=\d+/.test(page.url()), "zoom is kept in the URL", page.url());
		const baz = await frame("baz");
		ok(Math.abs(baz.w - 1180 * 2 / 7) < 0.2, "children rescale with the zoom", JSON.stringify(baz));
		await page.click("#reset");
		f = await frame("foo");
		ok(Math.abs(f.w - before.w) < 0.2 && Math.abs(f.x - before.x) < 0.2, "reset zoom restores the layout", JSON.stringify([f, before]));
		ok(!/#z=/.test(page.url()), "reset clears the URL state", page.url());

		// Zoom here, then there, then to an ancestor, then reset: every
		// frame back where the page drew it.
		const geom = () => page.evaluate(() => Array.from({ length: window.fk.n }, (_, i) => JSON.stringify(window.fk.geom(i)))
			.concat([document.querySelectorAll("#view > *").length]));
		const geo0 = await geom();
		const idx = { foo: (await frame("foo")).i, deep: (await frame("deep")).i, main: (await frame("main")).i };
		await page.evaluate((ix) => { window.fk.zoom(ix.foo); window.fk.zoom(ix.deep); window.fk.zoom(ix.main); }, idx);
		const gm = await page.evaluate((i) => window.fk.geom(i).w, idx.foo);
		ok(Math.abs(gm - 1180 * 7 / 14) < 0.2, "zoom to an ancestor after a deeper zoom", gm);
		await page.evaluate(() => window.fk.zoom(0));
		const geo1 = await geom();
		ok(JSON.stringify(geo0) === JSON.stringify(geo1),
		   "after several zooms, reset restores every frame", JSON.stringify([geo0, geo1]));

		// Search.
		await page.fill("#q", "foo");
		let m = await page.textContent("#matched");
		ok(m === "Matched: 71.43% (2 frames)", "regex search reports matched % and count", m);
		const hl = await page.evaluate(() => Array.from(document.querySelectorAll("#hlv path")).map((p) => p.getAttribute("d")));
		const foox = (await frame("foo")).x, barx = (await frame("foo::bar")).x;
		const starts = hl.length === 1 ? Array.from(hl[0].matchAll(/M([0-9.]+),/g)).map((x) => +x[1]) : [];
		ok(starts.length === 2 && Math.abs(starts[0] - foox) < 0.1 && Math.abs(starts[1] - barx) < 0.1,
		   "matching frames are highlighted, one path a row", JSON.stringify([hl, foox, barx]));
		const hlt = await page.evaluate(() => Array.from(document.querySelectorAll("#hlv text")).map((t) => t.textContent));
		ok(hlt.join(",") === "foo,foo::bar", "labels of matches stay readable", hlt.join(","));
		await page.fill("#q", "^ba");
		m = await page.textContent("#matched");
		ok(m === "Matched: 14.29% (1 frames)", "search matches names only, anchored regex", m);
		await page.fill("#q", "FOO$");
		m = await page.textContent("#matched");
		ok(m === "Matched: 50.00% (1 frames)", "search ignores case by default", m);
		await page.check("#case");
		m = await page.textContent("#matched");
		ok(m === "Matched: 0.00% (0 frames)", "case toggle makes search case sensitive", m);
		await page.uncheck("#case");
		await page.fill("#q", "e");
		m = await page.textContent("#matched");
		ok(m === "Matched: 28.57% (3 frames)", "nested matches are counted once in matched %", m);
		await page.fill("#q", "(");
		ok(await page.evaluate(() => document.getElementById("q").classList.contains("bad")), "a bad regex is flagged, no error");
		await page.fill("#q", "^ba|deep");
		await page.focus("#q");
		await page.keyboard.press("Enter");
		const sel = () => page.evaluate(() => window.fk.names[JSON.parse(document.getElementById("fkdata").textContent).f[window.fk.state.sel * 4 + 1]]);
		const s1 = await sel();
		await page.keyboard.press("Enter");
		const s2 = await sel();
		await page.keyboard.press("Shift+Enter");
		const s3 = await sel();
		ok(s1 === "baz" && s2 === "deep" && s3 === "baz", "Enter / Shift+Enter walk the matches", [s1, s2, s3].join(","));
		ok(/s=%5Eba%7Cdeep/.test(page.url()), "search is kept in the URL", page.url());

		// Esc clears the search, Ctrl-F focuses it, F3 steps.
		await page.keyboard.press("Escape");
		ok((await page.evaluate(() => document.getElementById("q").value)) === "" && (await page.textContent("#matched")) === " ", "Esc clears the search");
		await page.click("#title");
		await page.keyboard.press("Control+f");
		ok(await page.evaluate(() => document.activeElement && document.activeElement.id === "q"), "Ctrl-F focuses the search box");
		await page.keyboard.type("deep");
		await page.keyboard.press("F3");
		ok((await sel()) === "deep", "F3 goes to the next match", await sel());

		// URL state restored on load.
		const p2 = await ctx.newPage();
		const z = (await frame("other")).i;
		await p2.goto(url + "#z=" + z + "&s=de&c=1");
		await p2.waitForFunction(() => window.fk);
		const st = await p2.evaluate(() => ({ zoom: window.fk.state.zoom, q: document.getElementById("q").value,
			cs: document.getElementById("case").checked, m: document.getElementById("matched").textContent,
			w: window.fk.geom(window.fk.state.zoom).w }));
		ok(st.zoom === z && Math.abs(st.w - 1180) < 0.2, "zoom restored from the URL", JSON.stringify(st));
		ok(st.q === "de" && st.cs && st.m === "Matched: 100.00% (2 frames)", "search and case restored from the URL", JSON.stringify(st));
		await p2.close();

		// Keyboard navigation.
		await page.keyboard.press("Escape");
		await page.keyboard.press("Escape");
		await page.click("#title");
		await page.evaluate(() => window.fk.zoom(0));
		await page.keyboard.press("ArrowUp");       // selects the root first
		await page.keyboard.press("ArrowUp");       // all -> main
		await page.keyboard.press("ArrowUp");       // main -> foo (first child)
		const k1 = await sel();
		await page.keyboard.press("ArrowRight");    // foo -> foo::bar
		const k2 = await sel();
		await page.keyboard.press("ArrowUp");       // foo::bar has no child: stays
		await page.keyboard.press("ArrowLeft");     // back to foo
		await page.keyboard.press("ArrowDown");     // foo -> main
		const k3 = await sel();
		ok(k1 === "foo" && k2 === "foo::bar" && k3 === "main", "arrow keys move between frames", [k1, k2, k3].join(","));
		await page.keyboard.press("ArrowUp");
		await page.keyboard.press("ArrowRight");
		await page.keyboard.press("ArrowRight");
		await page.keyboard.press("Enter");
		const zs = await page.evaluate(() => window.fk.state.zoom);
		ok(zs === (await frame("other")).i, "Enter zooms the selected frame", zs);
		await page.keyboard.press("ArrowUp");
		await page.keyboard.press("ArrowUp");
		await page.keyboard.press("c");
		const copied = await page.evaluate(() => window.fkLastCopied);
		ok(copied === "main;other;deep;deeper", "c copies the selected frame's stack path", copied);

		// Screenshot not blank.
		await page.evaluate(() => window.fk.zoom(0));
		const shot = path.join(process.env.FK_SHOT_DIR || path.dirname(svg), "flame.png");
		await page.screenshot({ path: shot });
		const ps = pngStats(fs.readFileSync(shot));
		ok(ps.colours >= 6 && ps.nonWhite > 0.05, "screenshot is not blank", JSON.stringify(ps));
		console.log("# screenshot: " + shot + (process.env.FK_SHOT_DIR || process.env.FK_KEEP ? "" : " (removed at exit; set FK_SHOT_DIR to keep it)"));
		ok(errors.length === 0, "no script errors during the session", errors.join("; "));

		// Icicle: hover finds frames by row from the top; Up goes to the parent.
		const isvg = render(sample, ["--inverted", "--width", "1000"], "icicle");
		const p4 = await ctx.newPage();
		await p4.goto("file://" + isvg);
		await p4.waitForFunction(() => window.fk);
		const ib = await p4.evaluate(() => {
			const D = JSON.parse(document.getElementById("fkdata").textContent);
			for (let i = 0; i < window.fk.n; i++)
				if (window.fk.names[D.f[i * 4 + 1]] === "baz")
					return window.fk.el(i).getBoundingClientRect().toJSON();
			return null;
		});
		await p4.mouse.move(ib.x + 3, ib.y + ib.height / 2);
		const itip = await p4.evaluate(() => document.querySelector(".tip text").textContent);
		ok(itip === "baz", "icicle: hover names the frame under the mouse", itip);
		await p4.mouse.click(ib.x + 3, ib.y + ib.height / 2);
		await p4.keyboard.press("ArrowUp");
		const isel = await p4.evaluate(() => window.fk.names[JSON.parse(document.getElementById("fkdata").textContent).f[window.fk.state.sel * 4 + 1]]);
		ok(isel === "foo", "icicle: Up moves to the parent", isel);
		await p4.close();

		// Differential graph: vanished stacks appear with the switch.
		const dsvg = render(fx("diff-new.folded"), ["--diff", path.join(top, "fixtures/folded/diff-base.folded")], "diff");
		const p3 = await ctx.newPage();
		await p3.goto("file://" + dsvg);
		await p3.waitForFunction(() => window.fk);
		const gone = () => p3.evaluate(() => {
			const D = JSON.parse(document.getElementById("fkdata").textContent), els = document.getElementById("frames").children;
			for (let i = 0; i < els.length; i++)
				if (window.fk.names[D.f[i * 7 + 1]] === "gone")
					return window.fk.geom(i).shown ? window.fk.geom(i).w : 0;
			return -1;
		});
		const g0 = await gone();
		await p3.check("#vanished");
		const g1 = await gone();
		ok(g0 === 0 && g1 > 100, "vanished stacks show with the switch", g0 + " -> " + g1);
		ok(/#v=1|&v=1/.test(p3.url()), "vanished switch is kept in the URL", p3.url());
		await p3.mouse.move(0, 0);
		await p3.uncheck("#vanished");
		const cbox = await p3.locator("#frames > *").nth(4).boundingBox();
		await p3.mouse.move(cbox.x + 3, cbox.y + 5);
		const dt = await p3.evaluate(() => Array.from(document.querySelectorAll(".tip text")).map((t) => t.textContent));
		ok(dt[0] === "c" && /base 4 B \u2192 9 B \(\+5 B, \+125\.00%\)/.test(dt[3]), "diff tooltip shows both values and the change", JSON.stringify(dt));
	} catch (e) {
		ok(false, "browser session", e.stack);
	} finally {
		await close();
	}
	done();
})();
