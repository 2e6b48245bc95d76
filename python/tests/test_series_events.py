"""read_series and read_events on real jobs' files, against the tools and the job file."""
from __future__ import annotations

from pathlib import Path

import numpy as np

import mpimon
from conftest import tool_cells


def test_series_sums_to_the_job_file_and_to_mpimon_matrix(example_job: Path) -> None:
    folder = example_job / "job.txt.series"
    series = mpimon.read_series(folder)
    assert series.world_size == 4 and series.finished
    job = mpimon.read_job(example_job / "job.txt")
    for category in ("external", "internal", "coll"):
        whole = series.matrix(category, "bytes")
        assert np.array_equal(whole, job.matrix(category, "bytes")), category
        expected = tool_cells([str(folder)], category, "messages")
        m = series.matrix(category, "messages")
        assert {(int(i), int(j)): float(m[i, j]) for i, j in zip(*np.nonzero(m))} == expected


def test_series_has_one_row_per_snapshot(example_job: Path) -> None:
    series = mpimon.read_series(example_job / "job.txt.series")
    snapshots = series.snapshots
    assert len(snapshots) >= 4  # at least every rank's final frame
    ranks = np.asarray(snapshots["rank"])
    assert sorted(set(ranks.tolist())) == [0, 1, 2, 3]
    assert int(np.asarray(snapshots["external_bytes"]).sum()) == int(
        mpimon.read_job(example_job / "job.txt").matrix("external", "bytes").sum())
    if mpimon.HAVE_PANDAS:
        assert snapshots.index.name == "time"
        assert (snapshots.index >= 0).all()


def test_events_match_the_statistics_and_the_job_file(events_job: Path) -> None:
    events = mpimon.read_events(events_job / "events")
    assert len(events.files) == 4
    table = events.events
    names = set(np.asarray(table["event"]).tolist())
    assert {"mpimon_pml_send_posted", "mpimon_coll_begin", "mpimon_coll_end"} <= names
    sent = events.matrix("bytes")
    # The logger's own statistics (sent lines) are the same sums.
    t = events.traffic
    stats = np.zeros_like(sent)
    for r, d, p, b in zip(np.asarray(t["rank"]), np.asarray(t["direction"]), np.asarray(t["peer"]),
                          np.asarray(t["bytes"])):
        if d == "sent":
            stats[r, p] += b
    assert np.array_equal(sent, stats)
    # Every send the PML posts is in the job file's E + I (docs/event-logger.md).
    job = mpimon.read_job(events_job / "job.txt")
    assert np.array_equal(sent, job.matrix("external", "bytes") + job.matrix("internal", "bytes"))
    assert np.array_equal(events.matrix("messages"),
                          job.matrix("external", "messages") + job.matrix("internal", "messages"))
