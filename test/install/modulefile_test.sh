#!/usr/bin/env bash
# `module load mpimon` with Debian's Lmod on an installed tree (docs/install.md
# "Modulefile"): plain `mpirun --mca pml_monitoring_enable 2 ./app` then runs mpimon's
# components with no other step, mpimon and pkg-config find the tree, and `module unload`
# gives back the environment exactly as it was.
#   modulefile_test.sh <build dir> <mpirun> <version>
build="$1" mpirun="$2" version="$3"
# shellcheck source=SCRIPTDIR/install_common.sh
. "$(dirname "$0")/install_common.sh"

lmod_init=/usr/share/lmod/lmod/init/bash
if [ ! -f "$lmod_init" ]; then
  echo "SKIP: Lmod is not installed ($lmod_init; Debian package lmod, scripts/setup.sh installs it)"
  exit 77
fi
prefix="$work/prefix"
install_into "$build" "$prefix"

# Lmod's own bookkeeping variables aside, the environment as `env` shows it, sorted.
environment() { env | grep -vE '^(_ModuleTable[^=]*|__LMOD[^=]*|LMOD[^=]*|_LMFILES_|LOADEDMODULES|MODULEPATH|_|PWD|OLDPWD)=' | sort; }

# PATH without repeated folders (Lmod drops repeats the first time it edits PATH: that
# is Lmod's doing, not the module's); a path list set before (unload must keep it).
PATH="$(printf '%s' "$PATH" | tr ':' '\n' | awk 'NF && !seen[$0]++' | paste -sd:)"
unset OMPI_MCA_mca_base_component_path
export PKG_CONFIG_PATH=/nonexistent/before
# shellcheck disable=SC1090
. "$lmod_init"
module use "$prefix/share/modulefiles"
environment >"$work/before"

module load mpimon || fail "module load mpimon failed"
module list 2>&1 | grep -q "mpimon/$version" || fail "module list does not show mpimon/$version: $(module list 2>&1)"
[ "${OMPI_MCA_mca_base_component_path:-}" = "$prefix/lib/mpimon:SYS_DEFAULT:USER_DEFAULT" ] ||
  fail "after module load: OMPI_MCA_mca_base_component_path='${OMPI_MCA_mca_base_component_path:-}'"
[ "$(command -v mpimon)" = "$prefix/bin/mpimon" ] || fail "after module load: mpimon is $(command -v mpimon)"
[ "$(pkg-config --variable=libdir mpimon-reorder)" = "$prefix/lib/pkgconfig/../../lib/mpimon" ] ||
  fail "after module load: pkg-config mpimon-reorder: $(pkg-config --variable=libdir mpimon-reorder 2>&1)"
[[ ":$CPATH:" == *":$prefix/include/mpimon:"* ]] || fail "after module load: CPATH='${CPATH:-}'"

note "plain mpirun after module load mpimon, 4 ranks"
mkdir "$work/job" && cd "$work/job"
"$mpirun" -np 4 --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 \
  --mca pml_monitoring_filename prof "$prefix/libexec/mpimon/mpimon_example" ring >job.log 2>&1 ||
  { cat job.log; fail "mpirun after module load failed"; }
expect_pairs . prof 4 1 1024
expect_job_file mpimon-job.txt 4

module unload mpimon || fail "module unload mpimon failed"
environment >"$work/after"
diff "$work/before" "$work/after" >&2 || fail "module unload did not restore the environment (diff above: before, after)"
[ -z "${OMPI_MCA_mca_base_component_path+x}" ] || fail "after module unload: OMPI_MCA_mca_base_component_path is still set"
echo "modulefile: OK"
