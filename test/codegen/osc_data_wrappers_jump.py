#!/usr/bin/env python3
"""The OSC data wrappers reach their slow twin by a jump, never by a call.

Optimised x86-64 builds forward a put, get, accumulate (and their request forms) that
misses the fast path to its slow twin through a pointer typed with the six register
arguments only (runtime/forward_by_jump.h, osc_monitoring_data.h): correct only when the
compiler makes that call a jump that leaves our caller's stack as it was (the slow twin
then reads the target datatype, the window, ... where our caller put them). GCC does so
whenever it optimises; this test checks the built plugin, so that a compiler that does
not fails here rather than in an application. The wrappers do call the component's own
function on the fast path (with every argument pushed again): that call is allowed.

    osc_data_wrappers_jump.py PLUGIN.so
"""
import re
import subprocess
import sys

WRAPPER = re.compile(r"mpimon::osc::\(anonymous namespace\)::DataWrappers<(\w+), (\w+)>::"
                     r"(put|rput|get|rget|accumulate|raccumulate)\(")
SLOW = re.compile(r"<mpimon::osc::\(anonymous namespace\)::DataWrappers<\w+, \w+>::(\w+)_slow\(")


def main(argv):
    if len(argv) != 2:
        print("usage: osc_data_wrappers_jump.py PLUGIN.so", file=sys.stderr)
        return 2
    try:
        listing = subprocess.run(["objdump", "-d", "-C", "--no-show-raw-insn", argv[1]], check=True,
                                 capture_output=True, text=True).stdout
    except FileNotFoundError:
        print("objdump not found (binutils)", file=sys.stderr)
        return 2
    except subprocess.CalledProcessError as error:
        print(f"objdump {argv[1]} failed: {error.stderr.strip()}", file=sys.stderr)
        return 2

    jumps = {}  # wrapper -> jumps to its slow twin
    bad = []
    name = None
    for line in listing.splitlines():
        header = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if header:
            match = WRAPPER.search(header.group(1))
            name = match.group(0) if match else None
            if name:
                jumps.setdefault(name, 0)
            continue
        if not name:
            continue
        slow = SLOW.search(line)
        if not slow:
            continue
        if slow.group(1) != WRAPPER.search(name).group(3):
            bad.append(f"{name}: reaches another operation's slow twin:\n    {line.strip()}")
        elif re.search(r"\tjmp", line):
            jumps[name] += 1
        else:
            bad.append(f"{name}:\n    {line.strip()}")

    expected = {f"{op}" for op in ("put", "rput", "get", "rget", "accumulate", "raccumulate")}
    found = {WRAPPER.search(n).group(3) for n in jumps}
    if expected - found:
        print(f"{argv[1]}: no data wrapper named {', '.join(sorted(expected - found))} "
              "(renamed? update this test)", file=sys.stderr)
        return 1
    if bad:
        print("data wrappers that call their slow twin instead of jumping (it would read the stack "
              "arguments from the wrong place):\n" + "\n".join(bad), file=sys.stderr)
        return 1
    never = sorted(n for n, count in jumps.items() if count == 0)
    if never:
        # Inlined or reached otherwise: the slow path must still exist and be a jump.
        print("data wrappers without a jump to their slow twin (inlined? update this test):\n  " +
              "\n  ".join(never), file=sys.stderr)
        return 1
    print(f"{len(jumps)} data wrappers, each reaching its slow twin by a jump")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
