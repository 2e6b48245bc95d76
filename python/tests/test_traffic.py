"""read_job / read_prof against `mpimon matrix` on real jobs' files, cell for cell."""
from __future__ import annotations

from pathlib import Path
from typing import List

import numpy as np
import pytest

import mpimon
from conftest import SOURCE, tool_cells

SELECTIONS = ["external", "internal", "coll", "osc_sent", "osc_recv", "io_shuffle", "osc", "communication", "all"]


def assert_equals_tool(traffic: mpimon.Traffic, inputs: List[str]) -> int:
    """Every selection and metric of `traffic` equals `mpimon matrix` on `inputs`; returns
    the number of non-zero cells compared."""
    compared = 0
    for selection in SELECTIONS:
        for metric in ("bytes", "messages"):
            expected = tool_cells(inputs, selection, metric)
            m = traffic.matrix(selection, metric)
            assert isinstance(m, np.ndarray) and m.shape == (traffic.ranks, traffic.ranks)
            got = {(int(i), int(j)): float(m[i, j]) for i, j in zip(*np.nonzero(m))}
            assert got == expected, f"{selection} {metric}"
            compared += len(got)
    return compared


def test_job_file_matrices_equal_mpimon_matrix(example_job: Path) -> None:
    job = mpimon.read_job(example_job / "job.txt")
    assert job.header["world_size"] == 4 and job.header["enable_level"] == 2
    assert job.ranks == 4
    assert assert_equals_tool(job, [str(example_job / "job.txt")]) > 0
    # The ring: each rank sent rank+1 one message of the example's size, in E.
    e = job.matrix("E", "messages")
    for r in range(4):
        assert e[r, (r + 1) % 4] >= 1


def test_prof_dumps_equal_mpimon_matrix_and_the_job_file(example_job: Path) -> None:
    prof = mpimon.read_prof(example_job / "prof")
    assert len(prof.files) == 4
    assert_equals_tool(prof, [str(example_job / "prof")])
    job = mpimon.read_job(example_job / "job.txt")
    for c in ("external", "internal", "coll"):
        assert np.array_equal(prof.matrix(c, "bytes"), job.matrix(c, "bytes")), c


def test_open_mpi_component_dumps(tmp_path: Path) -> None:
    """Open MPI 4.1.4's own monitoring component's .prof files (no histograms)."""
    prefix = SOURCE / "test" / "data" / "distro-4.1.4" / "ring"
    prof = mpimon.read_prof(prefix)
    assert prof.ranks == 4
    assert assert_equals_tool(prof, [str(prefix)]) > 0
    records = prof.records
    assert int(np.asarray(records["h0"]).sum()) == 0  # Open MPI's lines carry no histogram


def test_records_hold_every_line_with_histograms(example_job: Path) -> None:
    job = mpimon.read_job(example_job / "job.txt")
    r = job.records
    assert len(r) > 0
    hist = np.column_stack([np.asarray(r[c]) for c in mpimon.HISTOGRAM_COLUMNS])
    # Every record's histogram counts its messages.
    assert np.array_equal(hist.sum(axis=1), np.asarray(r["messages"]))
    # Summed per (category, sender, receiver) the records are the matrix.
    e = job.matrix("external", "bytes")
    pick = np.asarray(r["category"]) == "external"
    total = np.zeros_like(e)
    np.add.at(total, (np.asarray(r["sender"])[pick], np.asarray(r["receiver"])[pick]), np.asarray(r["bytes"])[pick])
    assert np.array_equal(total, e)


def test_one_sided_job(osc_job: Path) -> None:
    job = mpimon.read_job(osc_job / "job.txt")
    assert {"osc_sent", "osc_recv"} <= set(job.categories())
    assert_equals_tool(job, [str(osc_job / "job.txt")])
    # osc_patterns ops: every rank locks each target, locks all and flushes (passive target).
    syncs = job.window_syncs
    assert set(np.asarray(syncs["kind"]).tolist()) == {"lock", "unlock", "lock_all", "unlock_all", "flush"}
    assert sorted(set(np.asarray(syncs["rank"]).tolist())) == [0, 1, 2, 3]
    assert (np.asarray(syncs["calls"]) > 0).all()


def test_io_job(io_job: Path) -> None:
    job = mpimon.read_job(io_job / "job.txt")
    assert_equals_tool(job, [str(io_job / "job.txt")])
    io = job.io
    files = np.asarray(io["file"])
    out = [i for i, f in enumerate(files) if str(f).endswith("out.dat")]
    assert len(out) == 4  # one row per rank
    # Each rank asked to write 4096 bytes in one call; all 16384 reached the file system.
    assert [int(np.asarray(io["write_asked_bytes"])[i]) for i in out] == [4096] * 4
    assert [int(np.asarray(io["write_asked_calls"])[i]) for i in out] == [1] * 4
    assert sum(int(np.asarray(io["write_reached_bytes"])[i]) for i in out) == 16384
    # The collective-buffering shuffle: every rank sent its 4096 bytes to the aggregator.
    assert int(np.asarray(job.matrix("io_shuffle", "bytes")).sum()) == 16384


def test_collectives_of_the_example(example_job: Path) -> None:
    job = mpimon.read_job(example_job / "job.txt")
    c = job.collectives
    assert len(c) > 0
    assert set(np.asarray(c["class"])) <= {"one_to_all", "all_to_one", "all_to_all"}


def test_sparse_above_the_threshold_and_on_request(example_job: Path) -> None:
    sp = pytest.importorskip("scipy.sparse")
    job = mpimon.read_job(example_job / "job.txt")
    dense = job.matrix("all", "bytes")
    sparse = job.matrix("all", "bytes", sparse=True)
    assert sp.issparse(sparse) and sparse.nnz == np.count_nonzero(dense)
    assert np.array_equal(sparse.toarray(), dense)
    assert mpimon.DENSE_RANKS == 1024


def test_average_and_bad_arguments(example_job: Path) -> None:
    job = mpimon.read_job(example_job / "job.txt")
    avg = job.matrix("E", "average")
    expected = tool_cells([str(example_job / "job.txt")], "external", "average")
    for (i, j), v in expected.items():
        assert avg[i, j] == pytest.approx(v, rel=1e-6)
    with pytest.raises(ValueError):
        job.matrix("E", "seconds")
    with pytest.raises(ValueError):
        job.matrix("nothing", "bytes")


def test_bytes_crossing_hosts(example_job: Path, tmp_path: Path) -> None:
    hostfile = tmp_path / "hosts"
    hostfile.write_text("# two nodes\nnode-a slots=2\nnode-b slots=2\n")
    hosts = mpimon.hosts_by_slot(hostfile, 4)
    assert hosts == ["node-a", "node-a", "node-b", "node-b"]
    e = mpimon.read_job(example_job / "job.txt").matrix("E", "bytes")
    expected = sum(int(e[i, j]) for i in range(4) for j in range(4) if i // 2 != j // 2)
    assert expected > 0 and mpimon.crossing(e, hosts) == expected
    bad = tmp_path / "bad"
    bad.write_text("node-a slots=two\n")
    with pytest.raises(mpimon.FormatError, match=r"bad:1: expected"):
        mpimon.read_hostfile(bad)


def test_a_real_applications_job_file(lammps_job: Path) -> None:
    """LAMMPS melt: every selection equals mpimon matrix, and the .prof dumps agree."""
    job = mpimon.read_job(lammps_job / "job.txt")
    assert job.ranks == 4 and assert_equals_tool(job, [str(lammps_job / "job.txt")]) > 0
    prof = mpimon.read_prof(lammps_job / "prof")
    for c in ("external", "internal", "coll"):
        assert np.array_equal(prof.matrix(c, "messages"), job.matrix(c, "messages")), c
