"""The command line; wrappers/gen/mqgen.py is its entry point.

    mqgen.py API OUTPUT FILE         write one generated file
    mqgen.py --check API HEADER...   TAP: every public C function is described
    mqgen.py --list-outputs          the registered outputs, one per line
    mqgen.py --update-golden         rewrite golden/sample.OUTPUT for every output

A description error is reported as FILE:LINE: message, exit status 1.
"""
import os
import sys

from . import check, parse, plan, registry, types
from .model import ApiError

GOLDEN = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "golden")
USAGE = ("usage: mqgen.py API {%s} FILE | --check API HEADER... | --list-outputs"
         " | --update-golden\n")


def source_name(path):
    """The description's name as printed in banners: relative to the source tree."""
    norm = path.replace(os.sep, "/")
    i = norm.rfind("wrappers/")
    return norm[i:] if i >= 0 else os.path.basename(norm)


def load(path):
    """Parse and lower a description (the type table is checked first)."""
    types.check_complete()
    return plan.lower_api(parse.parse(path, source_name(path)))


def write(path, text):
    """text into path (its folder made when missing: a fresh checkout has no
    wrappers/ruby/gen/ for gem build's glue), replaced at once."""
    tmp = path + ".tmp"
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        fh.write(text)
    os.replace(tmp, path)


def run_check(api_path, headers):
    try:
        api = load(api_path)
    except ApiError as e:
        sys.stdout.write("1..1\nnot ok 1 - the description parses\n#   %s\n" % e)
        return 1
    ok, text = check.check(api, headers)
    sys.stdout.write(text)
    return 0 if ok else 1


def update_golden():
    api = load(os.path.join(GOLDEN, "sample.api"))
    for o in registry.OUTPUTS:
        write(os.path.join(GOLDEN, "sample." + o.name), o.emit(api))
        sys.stdout.write("wrote golden/sample.%s\n" % o.name)
    return 0


def main(argv):
    args = argv[1:]
    try:
        if args[:1] == ["--check"] and len(args) >= 2:
            return run_check(args[1], args[2:])
        if args == ["--list-outputs"]:
            sys.stdout.write("".join(o.name + "\n" for o in registry.OUTPUTS))
            return 0
        if args == ["--update-golden"]:
            return update_golden()
        if len(args) != 3 or args[1] not in registry.BY_NAME:
            sys.stderr.write(USAGE % ",".join(o.name for o in registry.OUTPUTS))
            return 2
        api = load(args[0])
        write(args[2], registry.BY_NAME[args[1]].emit(api))
        return 0
    except ApiError as e:
        sys.stderr.write("%s\n" % e)
        return 1
