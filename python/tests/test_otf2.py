"""The event logger's OTF2 archive: otf2-print opens it without a warning, and the message
matrix OTF2's own Python reader computes from it equals the job file's (E, and I)."""
from __future__ import annotations

import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

import mpimon

otf2 = pytest.importorskip("otf2", reason="python3-otf2 (OTF2's Python reader) is not installed")


def anchor(folder: Path) -> Path:
    path = folder / "events.otf2" / "traces.otf2"
    assert path.exists(), f"no archive: {sorted(p.name for p in folder.iterdir())}"
    return path


def test_otf2_print_opens_it_without_warnings(otf2_job: Path) -> None:
    tool = shutil.which("otf2-print")
    if tool is None:
        pytest.skip("otf2-print (otf2-tools) is not installed")
    done = subprocess.run([tool, str(anchor(otf2_job))], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "warn" not in (done.stdout + done.stderr).lower(), done.stderr
    assert "MPI_SEND" in done.stdout and "MPI_COLLECTIVE_END" in done.stdout
    definitions = subprocess.run([tool, "-G", str(anchor(otf2_job))], capture_output=True, text=True, timeout=60)
    assert definitions.returncode == 0 and "warn" not in (definitions.stdout + definitions.stderr).lower()
    assert "CLOCK_PROPERTIES" in definitions.stdout and "MPI_Reduce" in definitions.stdout


def rank_of(member) -> int:
    """A group member as python3-otf2 gives it (a Location, or its id) -> the world rank."""
    return int(getattr(member, "_ref", member))


def trace_matrices(path: Path, ranks: int):
    """(E bytes, E messages, I bytes, I messages) from the archive's MpiSend events: user
    tags (>= 0) are E, the negative tags of collectives and protocols I (the PML's rule)."""
    m = {k: np.zeros((ranks, ranks), dtype=np.uint64) for k in ("Eb", "Em", "Ib", "Im")}
    collectives = 0
    with otf2.reader.open(str(path)) as trace:
        locations = list(trace.definitions.locations)
        assert len(locations) == ranks  # one location per rank
        assert trace.definitions.clock_properties.timer_resolution == 1_000_000_000
        for location, event in trace.events:
            if isinstance(event, (otf2.events.MpiCollectiveEnd, otf2.events.NonBlockingCollectiveComplete)):
                collectives += 1
            if not isinstance(event, otf2.events.MpiSend):
                continue
            sender = locations.index(location)
            members = event.communicator.group.members
            receiver = rank_of(members[event.receiver])
            kind = "E" if event.msg_tag < 2**31 else "I"
            m[kind + "b"][sender, receiver] += event.msg_length
            m[kind + "m"][sender, receiver] += 1
    return m, collectives


def test_the_traces_matrix_equals_the_job_files(otf2_job: Path, capfd) -> None:
    job = mpimon.read_job(otf2_job / "job.txt")
    with warnings.catch_warnings(record=True) as said:  # python3-otf2 reads it without a warning
        warnings.simplefilter("always")
        m, collectives = trace_matrices(anchor(otf2_job), job.ranks)
    assert not said, [str(w.message) for w in said]
    printed = capfd.readouterr()  # nor does the OTF2 library under it print one
    assert "warn" not in (printed.out + printed.err).lower() and "error" not in printed.err.lower(), printed.err
    assert np.array_equal(m["Eb"], job.matrix("E", "bytes"))
    assert np.array_equal(m["Em"], job.matrix("E", "messages"))
    assert np.array_equal(m["Ib"], job.matrix("I", "bytes"))
    assert np.array_equal(m["Im"], job.matrix("I", "messages"))
    assert int(m["Em"].sum()) > 0
    # Every collective the text log saw ends in the trace too (blocking: MpiCollectiveEnd,
    # nonblocking: NonBlockingCollectiveComplete).
    events = mpimon.read_events(otf2_job / "events").events
    assert collectives == int((np.asarray(events["event"]) == "mpimon_coll_end").sum())



def test_one_sided_operations_equal_the_job_files_s_and_r(osc_otf2_job: Path) -> None:
    """RmaPut (origin -> target) is S, RmaGet (target -> origin, data flow) is R, in bytes
    and in operations; the text log then holds the statistics only."""
    job = mpimon.read_job(osc_otf2_job / "job.txt")
    n = job.ranks
    m = {k: np.zeros((n, n), dtype=np.uint64) for k in ("Sb", "Sm", "Rb", "Rm")}
    with otf2.reader.open(str(anchor(osc_otf2_job))) as trace:
        locations = list(trace.definitions.locations)
        assert len(list(trace.definitions.rma_wins)) >= 1
        for location, event in trace.events:
            me = locations.index(location)
            if isinstance(event, otf2.events.RmaPut):
                m["Sb"][me, event.remote] += event.bytes
                m["Sm"][me, event.remote] += 1
            elif isinstance(event, otf2.events.RmaGet):
                m["Rb"][event.remote, me] += event.bytes
                m["Rm"][event.remote, me] += 1
    for key, category, metric in (("Sb", "S", "bytes"), ("Sm", "S", "messages"), ("Rb", "R", "bytes"),
                                  ("Rm", "R", "messages")):
        assert np.array_equal(m[key], job.matrix(category, metric)), key
    assert int(m["Sm"].sum()) > 0 and int(m["Rm"].sum()) > 0
    assert len(mpimon.read_events(osc_otf2_job / "events").events) == 0  # MEL_FORMAT=otf2: no event lines


def test_mpi_io_operations_equal_the_job_files_io(io_otf2_job: Path) -> None:
    """Each MPI-IO data access is an IoOperationBegin .. IoOperationComplete pair on a
    handle of its rank: per rank, the operations and bytes asked equal the job file's io
    records (asked calls and bytes), and a collective call is flagged COLLECTIVE."""
    job = mpimon.read_job(io_otf2_job / "job.txt")
    io = job.io
    files = np.asarray(io["file"])
    out = np.array([str(f).endswith("out.dat") for f in files])
    ranks = np.asarray(io["rank"])[out]
    expected = {int(r): (int(c), int(b)) for r, c, b in
                zip(ranks, np.asarray(io["write_asked_calls"])[out], np.asarray(io["write_asked_bytes"])[out])}
    assert len(expected) == 4
    begun = {r: [0, 0] for r in range(job.ranks)}
    completed = {r: 0 for r in range(job.ranks)}
    open_operations = {}
    with otf2.reader.open(str(anchor(io_otf2_job))) as trace:
        locations = list(trace.definitions.locations)
        handles = list(trace.definitions.io_handles)
        assert len(handles) == 4  # one per rank: the logger sees the process's file id, not the name
        for location, event in trace.events:
            me = locations.index(location)
            if isinstance(event, otf2.events.IoOperationBegin):
                assert event.mode == otf2.IoOperationMode.WRITE
                assert event.operation_flags & otf2.IoOperationFlag.COLLECTIVE
                begun[me][0] += 1
                begun[me][1] += event.bytes_request
                open_operations[(me, event.matching_id)] = event.time
            elif isinstance(event, otf2.events.IoOperationComplete):
                start = open_operations.pop((me, event.matching_id))
                assert event.time >= start
                completed[me] += event.bytes_result
    assert not open_operations  # every operation completed
    tool = shutil.which("otf2-print")
    if tool is not None:  # the I/O definitions and events open without a warning
        for flags in ([], ["-G"]):
            done = subprocess.run([tool] + flags + [str(anchor(io_otf2_job))], capture_output=True, text=True,
                                  timeout=60)
            assert done.returncode == 0 and "warn" not in (done.stdout + done.stderr).lower(), done.stderr
            assert "IO_OPERATION_BEGIN" in done.stdout or "IO_HANDLE" in done.stdout
    assert {r: tuple(v) for r, v in begun.items() if v[0]} == expected
    assert {r: b for r, b in completed.items() if b} == {r: b for r, (_, b) in expected.items()}


def test_an_unknown_format_is_said_and_the_text_log_written(tmp_path: Path) -> None:
    from conftest import LOGGER, MONITORING, program, run_job

    output = run_job(tmp_path, 2, MONITORING + ["-x", f"LD_PRELOAD={LOGGER}", "-x", "MEL_OUTPUT=events",
                                                "-x", "MEL_FORMAT=otf3", program("mpimon_example"), "ring"])
    assert "mel: MEL_FORMAT: unknown format otf3 (text, otf2): writing the text log" in output
    assert not (tmp_path / "events.otf2").exists()
    assert len(mpimon.read_events(tmp_path / "events").events) > 0
