"""Real mpirun jobs for the package's tests, run once per test session in a fresh folder.

The build tree is given by MPIMON_BUILD_DIR (ctest sets it, python/tests/CMakeLists.txt);
the jobs are started through ``mpimon run`` (our components, as a user runs them).
"""
from __future__ import annotations

import csv
import io
import os
import subprocess
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

BUILD = Path(os.environ.get("MPIMON_BUILD_DIR", Path(__file__).resolve().parents[2] / "build"))
SOURCE = Path(__file__).resolve().parents[2]
MPIMON = BUILD / "bin" / "mpimon"
# The event logger: the build tree's, or MPIMON_EVENT_LOGGER (a logger built elsewhere,
# tried against this build's components).
LOGGER = Path(os.environ.get("MPIMON_EVENT_LOGGER", BUILD / "lib" / "mpimon" / "libmpimon_event_logger.so"))


def program(name: str) -> str:
    for folder in ("bin", "libexec/mpimon"):
        if (BUILD / folder / name).exists():
            return str(BUILD / folder / name)
    pytest.skip(f"{name} is not built in {BUILD}")


def job_environment() -> Dict[str, str]:
    env = dict(os.environ)
    env.update(OMPI_MCA_rmaps_base_oversubscribe="1", OMPI_MCA_mpi_yield_when_idle="1",
               PRTE_MCA_rmaps_default_mapping_policy=":oversubscribe")
    if os.getuid() == 0:
        env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    return env


def run_job(folder: Path, ranks: int, arguments: List[str]) -> str:
    """``mpimon run -- -np <ranks> <arguments>`` in ``folder``; fails the test on a non-zero exit."""
    command = [str(MPIMON), "run", "--", "-np", str(ranks)] + arguments
    done = subprocess.run(command, cwd=folder, env=job_environment(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{' '.join(command)} exited {done.returncode}:\n{done.stdout}{done.stderr}"
    return done.stdout + done.stderr


def mpimon(*arguments: str) -> subprocess.CompletedProcess:
    """The ``mpimon`` tool itself (exit status and output kept)."""
    return subprocess.run([str(MPIMON)] + list(arguments), capture_output=True, text=True, timeout=120)


def tool_cells(inputs: List[str], category: str, metric: str) -> Dict[Tuple[int, int], float]:
    """``mpimon matrix --format sparse``: (sender, receiver) -> value, the non-zeros."""
    done = mpimon("matrix", *inputs, "--category", category, "--metric", metric, "--format", "sparse")
    assert done.returncode == 0, done.stderr
    rows = list(csv.reader(io.StringIO(done.stdout)))
    assert rows[0][:2] == ["sender", "receiver"], rows[0]
    return {(int(r[0]), int(r[1])): float(r[2]) for r in rows[1:] if r}


def tool_error(*inputs: str) -> str:
    """What ``mpimon matrix`` says about bad input: its message without the ``mpimon: `` prefix."""
    done = mpimon("matrix", *inputs)
    assert done.returncode == 2, (done.returncode, done.stdout, done.stderr)
    line = done.stderr.strip().splitlines()[-1]
    assert line.startswith("mpimon: "), line
    return line[len("mpimon: "):]


MONITORING = ["--mca", "pml_monitoring_enable", "2", "--mca", "pml_monitoring_enable_output", "3",
              "--mca", "pml_monitoring_filename", "prof", "--mca", "pml_monitoring_job_file", "job.txt"]


@pytest.fixture(scope="session")
def example_job(tmp_path_factory) -> Path:
    """The bundled example on 4 ranks (ring, binary-tree reduce, 2-D halo): job file,
    per-rank .prof dumps and a time series."""
    folder = tmp_path_factory.mktemp("example")
    run_job(folder, 4, MONITORING + ["--mca", "pml_monitoring_snapshot_interval", "1",
                                     "--mca", "coll_tuned_use_dynamic_rules", "1",
                                     "--mca", "coll_tuned_reduce_algorithm", "4",
                                     program("mpimon_example"), "ring", "reduce", "halo"])
    return folder


@pytest.fixture(scope="session")
def osc_job(tmp_path_factory) -> Path:
    """osc_patterns' 13 one-sided operations on 4 ranks (S and R categories, window lines)."""
    folder = tmp_path_factory.mktemp("osc")
    run_job(folder, 4, MONITORING + ["--mca", "osc_monitoring_sync_timing", "1", program("osc_patterns"), "ops"])
    return folder


@pytest.fixture(scope="session")
def io_job(tmp_path_factory) -> Path:
    """io_patterns: 4 ranks x 4096 B of MPI_File_write_at_all (the io records, the shuffle)."""
    folder = tmp_path_factory.mktemp("io")
    run_job(folder, 4, MONITORING + [program("io_patterns"), "write_at_all", "4096"])
    return folder


@pytest.fixture(scope="session")
def events_job(tmp_path_factory) -> Path:
    """The example under the event logger (MEL_OUTPUT=events), with its job file."""
    folder = tmp_path_factory.mktemp("events")
    run_job(folder, 4, MONITORING + ["-x", f"LD_PRELOAD={LOGGER}", "-x", "MEL_OUTPUT=events",
                                     program("mpimon_example"), "ring", "reduce"])
    return folder


@pytest.fixture(scope="session")
def otf2_job(tmp_path_factory) -> Path:
    """The example under the event logger writing both its text log and an OTF2 archive
    (MEL_FORMAT=text,otf2: events.otf2/traces.otf2), with its job file."""
    folder = tmp_path_factory.mktemp("otf2")
    run_job(folder, 4, MONITORING + ["-x", f"LD_PRELOAD={LOGGER}", "-x", "MEL_OUTPUT=events",
                                     "-x", "MEL_FORMAT=text,otf2",
                                     "--mca", "coll_tuned_use_dynamic_rules", "1",
                                     "--mca", "coll_tuned_reduce_algorithm", "4",
                                     program("mpimon_example"), "ring", "reduce", "halo"])
    return folder


@pytest.fixture(scope="session")
def osc_otf2_job(tmp_path_factory) -> Path:
    """osc_patterns' 13 one-sided operations under the logger, OTF2 only."""
    folder = tmp_path_factory.mktemp("osc_otf2")
    run_job(folder, 4, MONITORING + ["-x", f"LD_PRELOAD={LOGGER}", "-x", "MEL_OUTPUT=events",
                                     "-x", "MEL_FORMAT=otf2", program("osc_patterns"), "ops"])
    return folder


LAMMPS_MELT = Path("/usr/share/lammps/examples/melt/in.melt")


@pytest.fixture(scope="session")
def lammps_job(tmp_path_factory) -> Path:
    """A real application: LAMMPS' melt example on 4 ranks (Debian's lammps)."""
    if not (Path("/usr/bin/lmp").exists() and LAMMPS_MELT.exists()):
        pytest.skip("LAMMPS (Debian's lammps, lammps-examples) is not installed")
    folder = tmp_path_factory.mktemp("lammps")
    run_job(folder, 4, MONITORING + ["/usr/bin/lmp", "-in", str(LAMMPS_MELT), "-log", "none", "-screen", "none"])
    return folder


@pytest.fixture(scope="session")
def nbc_job(tmp_path_factory) -> Path:
    """nbc_patterns kinds on 4 ranks: every nonblocking collective kind on MPI_COMM_WORLD, a
    split, a Cartesian ring and an intercommunicator (the job file's nbc_overlap lines)."""
    folder = tmp_path_factory.mktemp("nbc")
    run_job(folder, 4, MONITORING + [program("nbc_patterns"), "kinds"])
    return folder


@pytest.fixture(scope="session")
def waits_job(tmp_path_factory) -> Path:
    """rma_wait_states wait_at_fence on 4 ranks (osc_monitoring_wait_states 1): rank 3 is
    0.2 s late at a fence, ranks 0-2 wait for it (the job file's wait_state lines)."""
    folder = tmp_path_factory.mktemp("waits")
    run_job(folder, 4, MONITORING + ["--mca", "osc_monitoring_wait_states", "1", program("rma_wait_states"),
                                     "wait_at_fence", "0.2"])
    return folder


@pytest.fixture(scope="session")
def io_otf2_job(tmp_path_factory) -> Path:
    """io_patterns under the logger, OTF2 only: 4 ranks x 4096 B of MPI_File_write_at_all,
    then every data-access kind of MPI-IO once on 2 ranks (its own folder, "kinds")."""
    folder = tmp_path_factory.mktemp("io_otf2")
    run_job(folder, 4, MONITORING + ["-x", f"LD_PRELOAD={LOGGER}", "-x", "MEL_OUTPUT=events",
                                     "-x", "MEL_FORMAT=otf2", program("io_patterns"), "write_at_all", "4096"])
    return folder
