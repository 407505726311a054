// SPDX-License-Identifier: MIT
// flame-export.js: the current view saved as a file: the zoomed subtree
// (or range) as folded text, its stacks whole from the root, with the
// transforms, invert and column of the page; the drawing as SVG (the
// frames drawn, the page's style sheets, no script, no HTML) and as PNG
// (that SVG drawn on a canvas). The files are made in the page and given
// to the browser's download; nothing leaves the machine.
// One module of the page script (see flame-data.js).
// exports: foldedView, drawingSvg
// needs: data, draw, search, compare
	function fkExport(m) {
		var { NS, XNS, svg, state, nc, pathOf } = m.data;
		var { view, lay, viewRange, fileSel } = m.draw;
		var { showDetails } = m.search;
		var self, end;
		m.data.onTree(function (t) {
			({ self, end } = t);
		});
		// Each frame of the view with a self value in the numbers' column
		// (a diff's new profile), a line "root;...;frame VALUE".
		function foldedView() {
			var r = viewRange(), s = self[nc()], out = [], j, lo = state.ra >= 0 ? r.a : r.z, hi = state.ra >= 0 ? r.b : end[r.z];
			for (j = lo; j < hi; j++)
				if (j > 0 && s[j] !== 0)
					out.push(pathOf(j) + " " + Math.round(s[j]) + "\n");
			return out.join("");
		}
		// The graph's part of the page as a standalone SVG: its drawn frames
		// (the view group, the page's own coordinates under a viewBox that
		// starts at the graph) and the page's style elements.
		function drawingSvg() {
			var y0 = lay.HH + lay.TH, h = Math.max(1, lay.H - y0), W = lay.Wpx;
			var root = document.createElementNS(NS, "svg");
			root.setAttribute("xmlns", NS);
			root.setAttribute("width", W);
			root.setAttribute("height", h);
			root.setAttribute("viewBox", "0 " + y0 + " " + W + " " + h);
			// The page's font and its class, which the style sheets name.
			["font-family", "font-size", "class"].forEach(function (a) {
				if (svg.getAttribute(a))
					root.setAttribute(a, svg.getAttribute(a).replace(/ live$/, ""));
			});
			Array.prototype.forEach.call(document.querySelectorAll("style"), function (st) {
				var c = document.createElementNS(NS, "style");
				c.textContent = st.textContent;
				root.appendChild(c);
			});
			var bg = document.createElementNS(NS, "rect");
			bg.setAttribute("class", "bg");
			bg.setAttribute("x", 0);
			bg.setAttribute("y", y0);
			bg.setAttribute("width", W);
			bg.setAttribute("height", h);
			root.appendChild(bg);
			root.appendChild(view.cloneNode(true));
			return new window.XMLSerializer().serializeToString(root);
		}
		// Gives data to the browser's download as file name.
		function save(name, type, data) {
			var url = window.URL.createObjectURL(data instanceof window.Blob ? data : new window.Blob([data], { type: type }));
			var a = document.createElementNS(XNS, "a");
			a.setAttribute("href", url);
			a.setAttribute("download", name);
			svg.appendChild(a);
			a.click();
			svg.removeChild(a);
			setTimeout(function () {
				window.URL.revokeObjectURL(url);
			}, 60000);
		}
		function png() {
			var text = drawingSvg(), img = new window.Image(), W = lay.Wpx, h = Math.max(1, lay.H - lay.HH - lay.TH);
			var url = window.URL.createObjectURL(new window.Blob([text], { type: "image/svg+xml" }));
			img.onload = function () {
				var c = document.createElementNS(XNS, "canvas");
				c.width = W;
				c.height = h;
				c.getContext("2d").drawImage(img, 0, 0, W, h);
				window.URL.revokeObjectURL(url);
				c.toBlob(function (b) {
					if (b)
						save("flame-view.png", "image/png", b);
					else
						showDetails(["Export: the browser made no PNG of this drawing."]);
				}, "image/png");
			};
			img.onerror = function () {
				window.URL.revokeObjectURL(url);
				showDetails(["Export: the browser could not draw the SVG for a PNG."]);
			};
			img.src = url;
		}
		fileSel.addEventListener("change", function () {
			var v = fileSel.value;
			fileSel.value = "";
			if (v === "compare") {
				m.compare.choose();
			} else if (v === "folded") {
				var t = foldedView();
				if (!t)
					showDetails(["Export: no frame of the view has a value of its own."]);
				else
					save("flame-view.folded", "text/plain", t);
			} else if (v === "svg") {
				save("flame-view.svg", "image/svg+xml", drawingSvg());
			} else if (v === "png") {
				png();
			}
		});
		return { foldedView: foldedView, drawingSvg: drawingSvg };
	}
