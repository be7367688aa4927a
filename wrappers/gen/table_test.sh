#!/bin/sh
# table_test.sh — TAP: the type table is checked complete when the generator
# starts: a type without a language's column, or a column without a field a
# direction needs, stops it with a message naming type and language (not a
# KeyError halfway through an output).  And the golden sample uses every type
# in every direction the table gives it.
: "${top_srcdir:=$(dirname "$0")/../..}"
exec "${PYTHON:-python3}" -B - "$top_srcdir/wrappers/gen" <<'PY'
import io, os, sys, tempfile
from contextlib import redirect_stderr

gen = sys.argv[1]
sys.path.insert(0, gen)
from mqgen import cli, parse, types  # noqa: E402

sample = os.path.join(gen, "golden", "sample.api")
results = []


def run_with(mutate, want):
    """Run the generator on the sample with the table mutated; expect
    exit status 1 and a message containing every string in want."""
    saved = {name: (t.cols.copy(), {l: c.__dict__.copy() for l, c in t.cols.items()})
             for name, t in types.TYPES.items()}
    mutate()
    err = io.StringIO()
    with tempfile.TemporaryDirectory() as d, redirect_stderr(err):
        try:
            rc = cli.main(["mqgen.py", sample, "cxx", os.path.join(d, "out")])
        except Exception as e:  # noqa: BLE001 - the failure this test is about
            rc = "%s: %s" % (type(e).__name__, e)
    for name, (cols, fields) in saved.items():
        types.TYPES[name].cols = cols
        for l, c in cols.items():
            c.__dict__.clear()
            c.__dict__.update(fields[l])
    ok = rc == 1 and all(w in err.getvalue() for w in want)
    return ok, "exit status %s, stderr: %s" % (rc, err.getvalue().strip())


def case(text, ok, why=""):
    results.append((ok, text, why))


try:
    types.check_complete()
    case("the table as it is is complete", True)
except Exception as e:  # noqa: BLE001 - report whatever it raises
    case("the table as it is is complete", False, str(e))

for lang in types.LANGS:
    ok, why = run_with(lambda: types.TYPES["BIN"].cols.pop(lang), ["BIN", lang])
    case("BIN without a %s column stops the generator naming both" % lang, ok, why)

ok, why = run_with(lambda: types.TYPES["SIZE"].cols["python"].__dict__.pop("build"),
                   ["SIZE", "python", "build"])
case("SIZE without python's build stops the generator naming them", ok, why)
ok, why = run_with(lambda: types.TYPES["ARGV"].cols["python"].__dict__.pop("release"),
                   ["ARGV", "python", "release"])
case("a temporary input without python's release stops the generator", ok, why)

api = parse.parse(sample)
used = set()
for f in api.all_funcs():
    for p in f.params:
        if not p.is_self:
            used.add((p.type, types.OUT if p.out else types.IN))
    if f.ret in types.TYPES:
        used.add((f.ret, types.RET))
for name, t in sorted(types.TYPES.items()):
    missing = sorted(d for d in t.dirs if (name, d) not in used)
    case("golden/sample.api uses %s in every direction it takes" % name, not missing,
         "not as: " + ", ".join(missing) if missing else "")

print("1..%d" % len(results))
for i, (ok, text, why) in enumerate(results, 1):
    print("%s %d - %s" % ("ok" if ok else "not ok", i, text))
    if not ok and why:
        print("#   " + why)
PY
