#!/usr/bin/env python3
"""Functions that read in one screen (docs/architecture.md, "Rules"): lists every function
of the product code (not test/, not the build folders) whose body is longer than the limit,
and exits 1 if there is one. ctest: Style.FunctionsFitOneScreen.

    check_function_length.py [--limit N] [folder...]   (default: the product folders)
    check_function_length.py --self-test               checks that the check can fail

A function is a brace block opened after ')' (optionally const/noexcept/override/a
trailing return type) at namespace or file level, that is not an if/for/while/switch/catch
or a lambda; comments, strings and raw strings are blanked first. Lines are counted from
the line of its '{' to the line of its '}'. Member functions defined inside a class body
are counted too (a class body counts as a namespace level here).
"""
import os
import re
import sys

PRODUCT_FOLDERS = ["ompi", "opal", "inprocess", "tools", "python", "examples", "bench", "templates"]
LIMIT = 80


def blank_comments_and_strings(src: str) -> str:
    keep_lines = lambda m: "\n" * m.group(0).count("\n")
    src = re.sub(r'R"([^(\s]*)\((.*?)\)\1"', lambda m: '""' + keep_lines(m), src, flags=re.S)
    src = re.sub(r"//[^\n]*", "", src)
    src = re.sub(r"/\*.*?\*/", keep_lines, src, flags=re.S)
    src = re.sub(r'"(\\.|[^"\\\n])*"', '""', src)
    src = re.sub(r"'(\\.|[^'\\\n])*'", "''", src)
    return src


OPENS_SCOPE = re.compile(r"(\bnamespace\b[^;{}]*|extern\s*\"\"\s*|\b(class|struct|union|enum)\b[^;{}()]*)$")
AFTER_PARAMETERS = re.compile(r"\)\s*(const|noexcept|override|final|mutable|->\s*[\w:<>&*, ]+|\s)*$")
CONTROL = re.compile(r"\b(if|for|while|switch|catch)\s*\([^;{}]*\)\s*$")
LAMBDA = re.compile(r"\]\s*\([^{};]*\)[^{};]*$")


def long_functions(path: str, src: str, limit: int):
    text = blank_comments_and_strings(src)
    stack = []  # (kind, line of '{')
    line = 1
    found = []
    for i, ch in enumerate(text):
        if ch == "\n":
            line += 1
        elif ch == "{":
            before = text[max(0, i - 400) : i].rstrip()
            kind = "block"
            if OPENS_SCOPE.search(before):
                kind = "scope"
            elif AFTER_PARAMETERS.search(before) and not CONTROL.search(before) and not LAMBDA.search(before):
                if all(k == "scope" for k, _ in stack):
                    kind = "function"
            stack.append((kind, line))
        elif ch == "}" and stack:
            kind, start = stack.pop()
            if kind == "function" and line - start + 1 > limit:
                found.append((line - start + 1, path, start))
    return found


def source_files(folders):
    for top in folders:
        for root, dirs, files in os.walk(top):
            dirs[:] = sorted(d for d in dirs if not d.startswith("build") and d not in (".git", "test"))
            for name in sorted(files):
                if name.endswith((".c", ".cc", ".cpp", ".h")):
                    yield os.path.join(root, name)


def self_test() -> int:
    body = "".join(f"  x += {i};\n" for i in range(LIMIT))
    too_long = "namespace n {\nint f(int x) {\n" + body + "  return x;\n}\n}\n"
    fits = "int g() {\n  if (true) {\n" + "  ;\n" * 10 + "  }\n  return 0;\n}\n"
    caught = long_functions("too_long.cpp", too_long, LIMIT)
    if len(caught) != 1 or caught[0][0] != LIMIT + 3 or long_functions("fits.cpp", fits, LIMIT):
        print(f"check_function_length: self-test failed: {caught}", file=sys.stderr)
        return 1
    print("check_function_length: self-test passed")
    return 0


def main(argv) -> int:
    limit = LIMIT
    folders = []
    args = list(argv)
    while args:
        a = args.pop(0)
        if a == "--self-test":
            return self_test()
        if a == "--limit":
            limit = int(args.pop(0))
        else:
            folders.append(a)
    if not folders:
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        os.chdir(here)
        folders = [f for f in PRODUCT_FOLDERS if os.path.isdir(f)]
    found = []
    for path in source_files(folders):
        with open(path, encoding="utf-8", errors="replace") as f:
            found += long_functions(path, f.read(), limit)
    for lines, path, start in sorted(found, reverse=True):
        print(f"{path}:{start}: a function of {lines} lines (over {limit}): split it into named steps")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
