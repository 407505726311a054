// SPDX-License-Identifier: MIT
// Shared helpers for the browser tests: launch Debian's chromium through
// playwright-core with the flags the machine needs, a fresh profile each
// time, and TAP output.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const { chromium } = require("playwright-core");

let n = 0, failed = 0;
const tmpdirs = [];
function ok(cond, what, why) {
	n++;
	if (cond) console.log(`ok ${n} - ${what}`);
	else {
		failed++;
		console.log(`not ok ${n} - ${what}${why !== undefined ? ": " + why : ""}`);
	}
	return cond;
}

// Runs fn; an exception fails one check naming what did not run to the
// end (the first three lines of its stack), so the checks after it still run.
async function step(what, fn) {
	try {
		await fn();
	} catch (e) {
		ok(false, what + " ran to the end", String(e && e.stack || e).split("\n").slice(0, 3).join(" | "));
	}
}

// opts: extra context options (viewport, javaScriptEnabled).
async function launch(opts) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fk-chromium-"));
	const ctx = await chromium.launchPersistentContext(dir, {
		executablePath: process.env.FK_CHROMIUM || "/usr/bin/chromium",
		headless: true,
		args: ["--headless", "--no-sandbox", "--disable-gpu",
		       "--disable-background-networking", "--disable-component-update",
		       "--disable-sync", "--no-first-run", "--disable-quic"],
		viewport: { width: 1280, height: 800 },
		...(opts || {}),
	});
	const close = async () => {
		await ctx.close();
		fs.rmSync(dir, { recursive: true, force: true });
	};
	return { ctx, close };
}

// Opens file (with the URL fragment hash, at viewport vp { width,
// height } if given) in a new page of ctx and waits for its script;
// errors collects the page's uncaught exceptions.
async function openPage(ctx, file, hash, vp) {
	const page = await ctx.newPage();
	if (vp)
		await page.setViewportSize(vp);
	const errors = [];
	page.on("pageerror", (e) => errors.push(String(e)));
	await page.goto("file://" + file + (hash || ""));
	await page.waitForFunction(() => window.fk, null, { timeout: 60000 });
	return { page, errors };
}

// Renders folded text with render-flame (from $B or PATH) into a temp SVG.
function render(folded, args, name) {
	const { execFileSync } = require("child_process");
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "fk-svg-"));
	tmpdirs.push(dir);
	const inp = path.join(dir, "in.folded"), out = path.join(dir, (name || "g") + ".svg");
	fs.writeFileSync(inp, folded);
	const bin = process.env.B ? path.join(process.env.B, "render-flame") : "render-flame";
	execFileSync(bin, [...(args || []), "-o", out, inp]);
	return out;
}

// Exact shares from folded text, for checking the page against its input:
// for each stack line, its frames and value.
function parseFolded(text) {
	const lines = [];
	for (const l of text.split("\n")) {
		const m = /^(.*\S)\s+(\d+)\s*$/.exec(l);
		if (m)
			lines.push({ frames: m[1].split(";"), value: +m[2] });
	}
	return lines;
}

// WCAG 2 contrast of two CSS colours "rgb(r, g, b)" / "#rrggbb".
function contrast(a, b) {
	const lum = (c) => {
		let v;
		if (c[0] === "#") v = [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16));
		else v = c.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number);
		const l = v.map((x) => { x /= 255; return x <= 0.04045 ? x / 12.92 : Math.pow((x + 0.055) / 1.055, 2.4); });
		return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
	};
	const x = lum(a), y = lum(b);
	return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
}

// Runs fn({ ctx, dir }) with a browser (launch's) and a scratch folder
// named from prefix; an exception fails the one check "the browser test
// ran to the end". Then closes both and ends the test (done).
async function session(prefix, fn) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
	const { ctx, close } = await launch();
	try {
		await fn({ ctx, dir });
	} catch (e) {
		ok(false, "the browser test ran to the end", String(e && e.stack || e));
	} finally {
		await close();
		fs.rmSync(dir, { recursive: true, force: true });
	}
	done();
}

function done() {
	console.log(`# ${n - failed} of ${n} browser checks passed`);
	if (!process.env.FK_KEEP)
		for (const d of tmpdirs)
			fs.rmSync(d, { recursive: true, force: true });
	process.exit(failed ? 1 : 0);
}

// The timeline page's selection, and a mouse drag on its chart from
// snapshot a to snapshot b (through window.fk.timeline).
const tlSelection = (page) => page.evaluate(() => window.fk.timeline.selection());
async function tlDrag(page, a, b) {
	const xa = await page.evaluate((k) => window.fk.timeline.x(k), a);
	const xb = await page.evaluate((k) => window.fk.timeline.x(k), b);
	const y = await page.evaluate(() => window.fk.timeline.y());
	await page.mouse.move(xa, y);
	await page.mouse.down();
	await page.mouse.move((xa + xb) / 2, y, { steps: 3 });
	await page.mouse.move(xb, y, { steps: 3 });
	await page.mouse.up();
}

module.exports = { ok, step, launch, session, openPage, render, done, parseFolded, contrast, tlSelection, tlDrag };
