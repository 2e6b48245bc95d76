#!/usr/bin/env python3
"""Self cost (instructions) per shared object in a callgrind output file.

    callgrind_objects.py <callgrind.out> [selector ...]

Prints "<Ir>\t<object>" per object; with selectors, only the sum over the code they
select ("0" if none ran): a selector "fn:<text>" selects the functions whose name contains
<text> (in any object: code built into libmpi, as Open MPI 5's own monitoring is), any
other selector the objects whose path contains it."""
import re
import sys


def self_costs(path):
    """{(object, function): self cost}"""
    names = {"ob": {}, "fn": {}}
    costs = {}
    current = {"ob": None, "fn": None}
    skip_next = False
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        m = re.match(r"(c?)(ob|fn)=(?:\((\d+)\))?(?: ?(.*))?$", line)
        if m:
            # Names are compressed: "(id) name" the first time, "(id)" later, and an id
            # may be named first on a cob=/cfn= (callee) line.
            callee, kind, ident, text = m.groups()
            table = names[kind]
            if ident is None:
                name = text
            elif text:
                name = table.setdefault(ident, text)
            else:
                name = table.get(ident)
            if not callee:
                current[kind] = name
            continue
        if line.startswith("calls="):
            skip_next = True  # the next cost line is the callee's inclusive cost
            continue
        if line[:1].isdigit() or line[:1] in "+-*":
            if skip_next:
                skip_next = False
                continue
            fields = line.split()
            if len(fields) >= 2 and current["ob"] is not None:
                key = (current["ob"], current["fn"] or "")
                costs[key] = costs.get(key, 0) + int(fields[1])
    return costs


def selected(selectors, obj, fn):
    for s in selectors:
        if s.startswith("fn:"):
            if s[3:] in fn:
                return True
        elif s in obj:
            return True
    return False


def main():
    costs = self_costs(sys.argv[1])
    wanted = sys.argv[2:]
    if wanted:
        print(sum(c for (o, f), c in costs.items() if selected(wanted, o, f)))
    else:
        per_object = {}
        for (o, _), c in costs.items():
            per_object[o] = per_object.get(o, 0) + c
        for o, c in sorted(per_object.items(), key=lambda x: -x[1]):
            print(f"{c}\t{o}")


main()
