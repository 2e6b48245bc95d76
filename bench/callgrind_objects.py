#!/usr/bin/env python3
"""Self cost (instructions) per shared object in a callgrind output file.

    callgrind_objects.py <callgrind.out> [substring ...]

Prints "<Ir>\t<object>" per object; with substrings, only the sum over the objects whose
path contains one of them ("0" if none ran)."""
import re
import sys


def self_costs(path):
    names, costs = {}, {}
    current = None
    skip_next = False
    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("ob=") or line.startswith("cob="):
            # Names are compressed: "(id) name" the first time, "(id)" later, and an id
            # may be named first on a cob= (callee object) line.
            m = re.match(r"c?ob=\((\d+)\)(?: (.*))?", line)
            name = (names.setdefault(m.group(1), m.group(2)) if m.group(2) else names.get(m.group(1))) if m else line.split("=", 1)[1]
            if line.startswith("ob="):
                current = name
            continue
        if line.startswith("calls="):
            skip_next = True  # the next cost line is the callee's inclusive cost
            continue
        if line[:1].isdigit() or line[:1] in "+-*":
            if skip_next:
                skip_next = False
                continue
            fields = line.split()
            if len(fields) >= 2 and current is not None:
                costs[current] = costs.get(current, 0) + int(fields[1])
    return costs


def main():
    costs = self_costs(sys.argv[1])
    wanted = sys.argv[2:]
    if wanted:
        print(sum(c for o, c in costs.items() if any(w in o for w in wanted)))
    else:
        for o, c in sorted(costs.items(), key=lambda x: -x[1]):
            print(f"{c}\t{o}")


main()
