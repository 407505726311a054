# SPDX-License-Identifier: MIT
# Checks of heap-check's reports with real parsers, for tests/check/*.t:
#   checklib.py junit FILE TESTS FAILURES [NAME...]   JUnit XML: the counts,
#       one testcase per check, a failure in each named test case (and no
#       other) whose text names a site
#   checklib.py markdown FILE ROWS                    the first table has a
#       header, a delimiter row and ROWS rows, every row as many cells
#   checklib.py plain FILE                            the report is UTF-8 and
#       holds no control character (C0, DEL, C1) but the newline, so a
#       terminal or a CI log shows it as written
# Prints nothing and exits 0 when the report is right, else one line.
import sys
import xml.etree.ElementTree as ET


def junit(path, tests, failures, names):
    root = ET.parse(path).getroot()
    if root.tag != "testsuites":
        return "root is <%s>, not <testsuites>" % root.tag
    suites = root.findall("testsuite")
    if len(suites) != 1:
        return "%d testsuite elements" % len(suites)
    s = suites[0]
    cases = s.findall("testcase")
    if s.get("tests") != tests or root.get("tests") != tests or len(cases) != int(tests):
        return "tests=%s, %d testcase elements, want %s" % (s.get("tests"), len(cases), tests)
    failed = [c for c in cases if c.find("failure") is not None]
    if s.get("failures") != failures or len(failed) != int(failures):
        return "failures=%s, %d failed cases, want %s" % (s.get("failures"), len(failed), failures)
    got = sorted(c.get("name") for c in failed)
    if names and got != sorted(names):
        return "failed cases %r, want %r" % (got, sorted(names))
    for c in failed:
        f = c.find("failure")
        if not f.get("message") or " < " not in (f.text or ""):
            return "failure of %r names no site: %r" % (c.get("name"), f.text)
    return None


def cells(line):
    # Split a row on the pipes that are not backslash-escaped.
    out, cur, esc = [], "", False
    for ch in line.strip()[1:-1] if line.strip().endswith("|") else line.strip()[1:]:
        if esc:
            cur += ch
            esc = False
        elif ch == "\\":
            cur += ch
            esc = True
        elif ch == "|":
            out.append(cur)
            cur = ""
        else:
            cur += ch
    out.append(cur)
    return out


def markdown(path, rows):
    lines = open(path, encoding="utf-8").read().split("\n")
    start = next((i for i, l in enumerate(lines) if l.startswith("|")), None)
    if start is None:
        return "no table"
    table = []
    for l in lines[start:]:
        if not l.startswith("|"):
            break
        table.append(l)
    head, delim, body = cells(table[0]), cells(table[1]), table[2:]
    if not all(set(c.strip()) <= set(":-") and "-" in c for c in delim):
        return "no delimiter row: %r" % table[1]
    if len(delim) != len(head):
        return "%d header cells, %d delimiter cells" % (len(head), len(delim))
    if len(body) != int(rows):
        return "%d rows, want %s" % (len(body), rows)
    for r in body:
        if len(cells(r)) != len(head):
            return "row %r has %d cells, want %d" % (r, len(cells(r)), len(head))
    return None


def plain(path):
    text = open(path, "rb").read().decode("utf-8")
    for n, line in enumerate(text.split("\n"), 1):
        bad = [c for c in line if ord(c) < 0x20 or 0x7f <= ord(c) < 0xa0]
        if bad:
            return "line %d holds %r: %r" % (n, "".join(bad), line)
    return None


def main():
    kind, path = sys.argv[1], sys.argv[2]
    try:
        if kind == "junit":
            msg = junit(path, sys.argv[3], sys.argv[4], sys.argv[5:])
        elif kind == "plain":
            msg = plain(path)
        else:
            msg = markdown(path, sys.argv[3])
    except Exception as e:  # a parse error is the finding
        msg = "%s: %s" % (type(e).__name__, e)
    if msg:
        print(msg)
        sys.exit(1)


main()
