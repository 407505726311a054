// SPDX-License-Identifier: MIT
// flame-compare.js: compare inside the page: another profile, folded text
// from a local file, becomes the base of a diff whose new profile is the
// page's (the column shown), as render-flame --diff BASE would draw it:
// columns new, base and "new + vanished", colours by change. The file is
// read by the browser from the person's own choice; nothing is fetched,
// and its names are only ever text. A comparison is not in the URL.
// One module of the page script (see flame-data.js).
// exports: compareWith, choose
// needs: data, draw, search, transform, events
	function fkCompare(m) {
		var { D, names, state, colNames, colUnits, DC, addName } = m.data;
		var { cmpFile, fileSel, colSel, normBox } = m.draw;
		var { showDetails } = m.search;
		var ttl = document.getElementById("ttl");
		var MAXB = 1 << 30;            // a file past 1 GiB is refused, not read

		// Reads folded text: "frame;frame VALUE" lines, or several values
		// under a "# columns:" line (the one named as the page's column, else
		// the first); other "#" lines and blank ones are skipped. Returns
		// { stacks: [[names...], value]..., frames } or { err }.
		function parse(text, want) {
			var lines = text.split("\n"), out = [], frames = 0, ncol = 1, pick = 0, k;
			for (k = 0; k < lines.length; k++) {
				var l = lines[k].replace(/\r$/, "");
				if (/^# columns:/.test(l)) {
					var cs = l.slice(10).trim().split(/\s+/).map(function (c) {
						return c.split("/")[0];
					});
					ncol = cs.length;
					pick = Math.max(0, cs.indexOf(want));
					continue;
				}
				if (/^\s*(#|$)/.test(l))
					continue;
				var rest = l.replace(/\s+$/, ""), vals = [], c;
				for (c = 0; c < ncol; c++) {
					var sp = rest.lastIndexOf(" ");
					vals.unshift(rest.slice(sp + 1));
					rest = sp > 0 ? rest.slice(0, sp).replace(/\s+$/, "") : "";
				}
				if (!rest || !vals.every(function (v) {
					return /^\d+(\.\d+)?$/.test(v);
				}))
					return { err: "line " + (k + 1) + ": not a folded stack ('frame;frame VALUE')" };
				var fs = rest.split(";");
				frames += fs.length;
				out.push([fs, +vals[pick]]);
			}
			if (!out.length)
				return { err: "no stack in it" };
			return { stacks: out, frames: frames };
		}
		// The page's full tree and the file's stacks in one tree of three
		// columns; then the page is a diff.
		function compareWith(text, fname) {
			var c = m.data.nc(), want = colNames[c], unit = colUnits[c], r = parse(text, want);
			if (r.err) {
				showDetails(["Compare: " + fname + ": " + r.err + "; nothing changed."]);
				return false;
			}
			var P = m.transform.base(), N = P.n, B = m.transform.builder(N + r.frames + 1), j, x;
			var map = new Int32Array(N), keep0 = new Uint8Array(N + r.frames + 1);
			map[0] = B.child(-1, P.nm[0]);
			for (j = 1; j < N; j++) {
				map[j] = B.child(map[P.parent[j]], P.nm[j]);
				if (P.tot.every(function (a) {
					return a[j] === 0;
				}))
					keep0[map[j]] = 1;
			}
			var cap = N + r.frames + 1, nw = new Float64Array(cap), bs = new Float64Array(cap), vs = new Float64Array(cap);
			for (j = 0; j < N; j++)
				nw[map[j]] += P.self[c][j];
			r.stacks.forEach(function (st) {
				x = map[0];
				st[0].forEach(function (f) {
					x = B.child(x, addName(f));
				});
				bs[x] += st[1];
			});
			// A frame gone from the new profile keeps its base value.
			for (x = 0; x < B.count(); x++)
				vs[x] = nw[x] || bs[x];
			var T = B.tree([nw, bs, vs], keep0);
			T.ncol = 3;
			D.diff = 1;
			DC.n = 0;
			DC.b = 1;
			DC.v = 2;
			colNames.splice(0, colNames.length, "new", "base", "new + vanished");
			colUnits.splice(0, colUnits.length, unit, unit, unit);
			if (colSel) {
				colSel.textContent = "";
				colNames.forEach(function (n, k) {
					var o = document.createElement("option");
					o.value = k;
					o.textContent = n;
					colSel.appendChild(o);
				});
			}
			state.col = DC.v;
			if (colSel)
				colSel.value = DC.v;
			m.events.setCol0(DC.v);
			if (normBox)
				normBox.checked = state.normalize = false;
			ttl.textContent = ttl.textContent.replace(/ \u2014 compared with .*$/, "") + " \u2014 compared with " + fname + " (base)";
			// One comparison a page: a reload for another.
			fileSel.querySelector('option[value="compare"]').disabled = true;
			m.transform.setBase(T);
			showDetails(["Compared with " + fname + " as the base: widths are new + vanished, numbers the page's profile, colours the change."]);
			return true;
		}
		// Opens the file chooser (the file menu's entry, flame-export.js).
		function choose() {
			cmpFile.value = "";
			cmpFile.click();
		}
		if (cmpFile) {
			cmpFile.addEventListener("change", function () {
				var f = cmpFile.files && cmpFile.files[0];
				if (!f)
					return;
				if (f.size > MAXB) {
					showDetails(["Compare: " + f.name + ": larger than 1 GiB; nothing changed."]);
					return;
				}
				f.text().then(function (t) {
					compareWith(t, f.name);
				}, function (e) {
					showDetails(["Compare: " + f.name + ": " + String(e && e.message || e) + "; nothing changed."]);
				});
			});
		}
		return { compareWith: compareWith, choose: choose };
	}
