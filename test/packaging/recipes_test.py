#!/usr/bin/env python3
"""The Spack package and the EasyBuild easyconfig of mpimon (packaging/) checked without
Spack or EasyBuild: the CMake options they build with are the ones CI builds with against
source-built Open MPIs (scripts/ompi-builds/test-inside.sh), every mpimon option they set
is one the project declares, and the Open MPI releases they take are ones CI tests
(scripts/ompi-builds/*.conf).

    recipes_test.py <repository root>      exit 0 when all holds, else 1 with what does not
"""
import ast
import pathlib
import re
import sys

ROOT = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
SPACK = ROOT / "packaging/spack/packages/mpimon/package.py"
EASYCONFIG = ROOT / "packaging/easybuild/mpimon-main-gompi-2025a.eb"
CI_SCRIPT = ROOT / "scripts/ompi-builds/test-inside.sh"
# What building against a cluster's Open MPI needs (docs/install.md, "Your cluster's Open MPI").
REQUIRED = {"MPIMON_OMPI_PREFIX", "MPIMON_OMPI_SOURCE"}
failures = []


def fail(message):
    failures.append(message)


def constant_text(node):
    """The literal text of a string expression (concatenations, % formatting with literal
    arguments); names and calls become '{?}'."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return constant_text(node.left) + constant_text(node.right)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Mod):
        return constant_text(node.left).replace("%s", "{?}")
    return "{?}"


def spack_defines(tree):
    """Names given to self.define*/define_from_variant in cmake_args."""
    names = set()
    for function in ast.walk(tree):
        if isinstance(function, ast.FunctionDef) and function.name == "cmake_args":
            for call in ast.walk(function):
                if (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute)
                        and call.func.attr in ("define", "define_from_variant") and call.args
                        and isinstance(call.args[0], ast.Constant)):
                    names.add(call.args[0].value)
    return names


def spack_openmpi_range(tree):
    for call in ast.walk(tree):
        if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id == "depends_on"
                and call.args and isinstance(call.args[0], ast.Constant)
                and call.args[0].value.startswith("openmpi@")):
            match = re.match(r"openmpi@(\d+)\.(\d+):(\d+)\.(\d+)", call.args[0].value)
            if match:
                a, b, c, d = map(int, match.groups())
                return (a, b), (c, d)
    return None


def easyconfig_values(tree):
    """The easyconfig's top-level assignments: configopts (all += pieces joined) and
    the literal ones (local_ompi_version, toolchain, ...)."""
    configopts, values = "", {}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name):
            name = statement.targets[0].id
            if name == "configopts":
                configopts = constant_text(statement.value)
            else:
                try:
                    values[name] = ast.literal_eval(statement.value)
                except ValueError:
                    pass
        elif (isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name)
              and statement.target.id == "configopts"):
            configopts += constant_text(statement.value)
    return configopts, values


def ci_defines():
    """-D names of the cmake configure command (with its continuation lines) in the CI pass."""
    lines = CI_SCRIPT.read_text().splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("cmake -S ")), None)
    if start is None:
        fail(f"{CI_SCRIPT}: no `cmake -S` configure command found")
        return set()
    command = [lines[start]]
    while command[-1].rstrip().endswith("\\") and start + len(command) < len(lines):
        command.append(lines[start + len(command)])
    return set(re.findall(r"-D([A-Z][A-Z0-9_]*)=", " ".join(command)))


def easyconfig_source_files(tree, version):
    """The file names of the easyconfig's sources, with local_ompi_version filled in."""
    names = []
    for statement in tree.body:
        if (isinstance(statement, ast.Assign) and isinstance(statement.targets[0], ast.Name)
                and statement.targets[0].id == "sources" and isinstance(statement.value, ast.List)):
            for item in statement.value.elts:
                if isinstance(item, ast.Dict):
                    for key, value in zip(item.keys, item.values):
                        if isinstance(key, ast.Constant) and key.value == "filename":
                            names.append(constant_text(value).replace("{?}", str(version)))
                else:
                    names.append(constant_text(item))
    return names


def declared_by_project(name):
    """An option()/cache variable, or a variable the CMake code reads, of the project."""
    for path in [ROOT / "CMakeLists.txt", *ROOT.glob("cmake/*.cmake"), *ROOT.glob("**/CMakeLists.txt")]:
        if "build" in path.relative_to(ROOT).parts[0]:
            continue
        if re.search(rf"\b{name}\b", path.read_text(errors="replace")):
            return True
    return False


def ci_releases():
    releases = {}
    for conf in sorted((ROOT / "scripts/ompi-builds").glob("*.conf")):
        match = re.search(r"^release=(\S+)", conf.read_text(), re.M)
        if match:
            releases[conf.stem] = match.group(1)
    return releases


spack_tree = ast.parse(SPACK.read_text(), str(SPACK))
eb_tree = ast.parse(EASYCONFIG.read_text(), str(EASYCONFIG))
spack_names = spack_defines(spack_tree)
configopts, eb = easyconfig_values(eb_tree)
eb_names = set(re.findall(r"-D([A-Z][A-Z0-9_]*)=", configopts))
ci_names = ci_defines()

for what, names in (("Spack package", spack_names), ("easyconfig", eb_names), ("CI pass", ci_names)):
    missing = REQUIRED - names
    if missing:
        fail(f"{what}: does not pass {', '.join(sorted(missing))} (has {', '.join(sorted(names)) or 'nothing'})")
for what, names in (("Spack package", spack_names), ("easyconfig", eb_names)):
    for name in sorted(n for n in names if n.startswith("MPIMON_")):
        if not declared_by_project(name):
            fail(f"{what}: sets {name}, which no CMake file of the project reads")
    extra = {n for n in names & REQUIRED} ^ {n for n in ci_names & REQUIRED}
    if extra:
        fail(f"{what} and the CI pass differ on {', '.join(sorted(extra))}")
if "$EBROOTOPENMPI" not in configopts:
    fail("easyconfig: MPIMON_OMPI_PREFIX is not the toolchain's OpenMPI ($EBROOTOPENMPI)")

releases = ci_releases()
if not releases:
    fail("no recipe in scripts/ompi-builds/*.conf")
versions = spack_openmpi_range(spack_tree)
if not versions:
    fail("Spack package: no depends_on('openmpi@X.Y:X.Y') range")
else:
    low, high = versions
    for recipe, release in releases.items():
        major_minor = tuple(map(int, release.split(".")[:2]))
        if not low <= major_minor <= high:
            fail(f"Spack package: openmpi@{low[0]}.{low[1]}:{high[0]}.{high[1]} excludes {release}, which CI tests ({recipe})")
ompi_version = eb.get("local_ompi_version")
if ompi_version not in releases.values():
    fail(f"easyconfig: OpenMPI {ompi_version} is not a release CI builds and tests ({', '.join(releases.values())})")
tarball = f"openmpi-{ompi_version}.tar.bz2"
if tarball not in easyconfig_source_files(eb_tree, ompi_version):
    fail(f"easyconfig: {tarball} (the OpenMPI source tree) is not among its sources")
if "-DMPIMON_OMPI_SOURCE=%(builddir)s/openmpi-" not in configopts:
    fail("easyconfig: MPIMON_OMPI_SOURCE is not the OpenMPI tree unpacked in the build folder")

if failures:
    for message in failures:
        print("recipes_test:", message)
    sys.exit(1)
print(f"recipes_test: Spack package, easyconfig and CI pass agree ({', '.join(sorted(REQUIRED))}); "
      f"CI releases {', '.join(releases.values())} within both recipes")
