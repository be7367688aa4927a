"""The header coverage test (api_test.sh): every public function declared in
the headers is described (or listed as runtime) with the C arity the header
declares, and a method is flagged `query` exactly when the header's object
parameter is const (Ruby's glue keeps a stream's or list's view across a
query, which must not change its object).  The description's arity is its
plan's C arguments, so the check sees the same lowering the emitters
render."""
import os
import re

DECL = re.compile(r"^[A-Za-z_][\w \*]*?\b((?:Mk|Mq)\w+)\s*\(([^;{]*)\)\s*(?:__attribute__.*)?;",
                  re.S)


def header_functions(path):
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
    text = re.sub(r"__attribute__\s*\(\((?:[^()]|\([^()]*\))*\)\)", " ", text)
    out = {}
    for stmt in text.split(";"):
        stmt = " ".join(stmt.split()) + ";"
        if stmt.startswith(("typedef", "enum", "struct", "}", "extern")):
            stmt = re.sub(r'^extern "C" \{ ', "", stmt)
            if stmt.startswith(("typedef", "enum", "struct", "}")):
                continue
        m = DECL.match(stmt)
        if m:
            args = m.group(2).strip()
            n = 0 if args in ("", "void") else len([a for a in args.split(",")])
            out[m.group(1)] = (n, "..." in args, args.startswith("const "))
    return out


def check(api, headers):
    described = {f.cfunc: f for f in api.all_funcs()}
    results = []
    seen = set()
    for h in headers:
        for name, (n, variadic, const_first) in sorted(header_functions(h).items()):
            seen.add(name)
            if name in api.runtime:
                results.append((True, "%s: hand-written in each runtime (%s)" % (name, api.runtime[name]), ""))
                continue
            f = described.get(name)
            if not f:
                results.append((False, "%s (%s) is described in %s" % (name, os.path.basename(h), api.source),
                                "add it to the description, or list it as runtime with a reason"))
                continue
            want = n - (1 if variadic else 0)
            ok = f.plan.c_arity() == want
            results.append((ok, "%s: description has the C arity %d of the header" % (name, want),
                            "" if ok else "description stands for %d C arguments" % f.plan.c_arity()))
            if f.kind == "method":
                ok = f.plan.query == const_first
                results.append((ok, "%s: query flag %s, its object in the header %s" % (
                    name, "set" if const_first else "unset", "const" if const_first else "not const"),
                    "" if ok else "flag it query exactly when the header's object is const"))
    for name in sorted(set(described) | set(api.runtime)):
        if name not in seen:
            results.append((False, "%s of the description is declared in a header" % name,
                            "remove it or fix its name"))
    lines = ["1..%d" % len(results)]
    for i, (ok, text, why) in enumerate(results, 1):
        lines.append("%s %d - %s" % ("ok" if ok else "not ok", i, text))
        if why:
            lines.append("#   " + why)
    return all(r[0] for r in results), "\n".join(lines) + "\n"
