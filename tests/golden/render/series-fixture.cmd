# The series fixture: a valid page whose data carries the four snapshots,
# titled for a timeline.
render-flame fixtures/folded/series.folded >"$T/s.svg"
xmllint --noout "$T/s.svg"
grep -Ec '^\{"id":"[1-4]","time":1[0-4]\.[05]00000000,"allocated":[0-9]*,"active":[0-9]*,"resident":[0-9]*,"mapped":[0-9]*,"retained":[0-9]*,"metadata":[0-9]*,"rss":[0-9]*,"hook":(null|[0-9]+),"sampling":(null|[0-9]+)(,"[a-z_]+":(null|[0-9]+)){9}\}' "$T/s.svg"
grep -o '<title>[^<]*</title>' "$T/s.svg"
