#!/usr/bin/env python3
"""The PML send wrappers leave by a jump, never by a call (pml_monitoring_module.cpp).

Optimised x86-64 builds forward a send to the PML (or to our slow or event path) through
a pointer typed with the six register arguments only: correct only when the compiler
makes that call a jump that leaves our caller's stack as it was (the callee then reads
its stack arguments where our caller put them). GCC does so whenever it optimises; this
test checks the built plugin, so that a compiler that does not fails here rather than in
an application. The only call a wrapper may make is the nonblocking-collective
attribution (NbcTracker::attribute_send), which returns before the forward.

    send_wrappers_jump.py PLUGIN.so
"""
import re
import subprocess
import sys

WRAPPER = re.compile(r"mpimon::pml::\(anonymous namespace\)::(monitored|filtered|attributing)_(i?send)<")
ALLOWED_CALL = "mpimon::NbcTracker::attribute_send"


def main(argv):
    if len(argv) != 2:
        print("usage: send_wrappers_jump.py PLUGIN.so", file=sys.stderr)
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

    families = {}
    bad = []
    name = None
    for line in listing.splitlines():
        header = re.match(r"^[0-9a-f]+ <(.*)>:$", line)
        if header:
            name = header.group(1) if WRAPPER.search(header.group(1)) else None
            if name:
                family = WRAPPER.search(name).group(1, 2)
                families[family] = families.get(family, 0) + 1
            continue
        if name and re.search(r"\tcall", line) and ALLOWED_CALL not in line:
            bad.append(f"{name}:\n    {line.strip()}")

    expected = {(kind, op) for kind in ("monitored", "filtered", "attributing") for op in ("isend", "send")}
    missing = sorted(expected - families.keys())
    if missing:
        print(f"{argv[1]}: no send wrapper named {', '.join(k + '_' + o for k, o in missing)} "
              "(renamed? update this test)", file=sys.stderr)
        return 1
    if bad:
        print("send wrappers that call instead of jumping (their forward would read the stack arguments "
              "from the wrong place):\n" + "\n".join(bad), file=sys.stderr)
        return 1
    print(f"{sum(families.values())} send wrappers, each leaving by a jump "
          f"({', '.join(f'{k}_{o}: {n}' for (k, o), n in sorted(families.items()))})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
