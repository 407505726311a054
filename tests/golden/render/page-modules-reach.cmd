# A module that calls another's function by name, not through m, and one
# that uses an export the other does not list, are refused.
for f in data lifetimes draw search tables sandwich invert timeline events; do
	cp render/flame-$f.js "$T/"
done
sed -i 's/return lines.concat(m.lifetimes.lines(j));/return lines.concat(lifeLines(j));/' "$T/flame-search.js"
sed -i 's/m.search.showDetails(\[\]);/m.search.details([]);/' "$T/flame-invert.js"
cd "$T" && "$OLDPWD/scripts/check-page-modules" flame-data.js flame-lifetimes.js flame-draw.js flame-search.js \
	flame-tables.js flame-sandwich.js flame-invert.js flame-timeline.js flame-events.js
