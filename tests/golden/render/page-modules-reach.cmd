# Two small modules that break each rule scripts/check-page-modules
# enforces: a name of another module's, an export not listed (also as a
# name of "var { ... } = m.b"), a module not needed, one read at start
# before it is made, a hidden m, a return that is not the exports line.
cat >"$T/flame-a.js" <<'JS'
// exports: x, y
// needs: b
(function () {
	"use strict";
	function fkA(m) {
		var early = m.b.f;
		function x() {
			var { f, h: hh } = m.b;
			return m.b.f() + m.b.g + f() + hh;
		}
		function y(m) {
			return m;
		}
		return { x: x, z: y };
	}
JS
cat >"$T/flame-b.js" <<'JS'
// exports: f
// needs: nothing
	function fkB(m) {
		function f() {
			return y() + m.a.x() + m.c.q + Math.max(1, 2);
		}
		return { f: f };
	}
	var m = {};
	m.a = fkA(m);
	m.b = fkB(m);
})();
JS
cd "$T"
"$OLDPWD/scripts/check-page-modules" flame-a.js flame-b.js
