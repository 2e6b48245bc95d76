"""The tables beside the matrices (nonblocking collectives' overlap, RMA wait states, MPI-IO
per file) against what `mpimon show` and `mpimon waits` print for the same job file."""
from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Dict, List, Tuple

import numpy as np

import mpimon
from conftest import mpimon as tool


def tool_output(*arguments: str) -> List[str]:
    done = tool(*arguments)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def show_nbc_rows(job_file: Path) -> Dict[Tuple[str, str], List[str]]:
    """`mpimon show`'s "Nonblocking collectives" table: (communicator, kind) -> the other
    fields (ranks calls waited blocked byte-weighted mean, or ranks "not followed")."""
    lines = tool_output("show", str(job_file))
    start = lines.index("Nonblocking collectives: overlap (the followed calls, all ranks)")
    header = lines[start + 1]
    kind_at = header.index("kind")
    rows = {}
    for line in lines[start + 2:]:
        if not line.strip() or line.startswith(("Sampled", "#")) or "more rows not shown" in line:
            break
        communicator = line[:kind_at].rstrip()
        kind = line[kind_at:kind_at + 21].rstrip()
        rows[(communicator, kind)] = line[kind_at + 21:].split()
    return rows


def overlap_text(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.3f}"


def test_nbc_overlap_equals_mpimon_show(nbc_job: Path) -> None:
    job = mpimon.read_job(nbc_job / "job.txt")
    summary = job.nbc_summary
    expected = show_nbc_rows(nbc_job / "job.txt")
    assert len(expected) >= 4 and len(summary) == len(expected)
    got = {}
    for i in range(len(summary)):
        key = (str(np.asarray(summary["communicator"])[i]), str(np.asarray(summary["kind"])[i]))
        calls = int(np.asarray(summary["calls"])[i])
        if calls == 0:
            got[key] = [str(int(np.asarray(summary["not_followed_ranks"])[i])), "not", "followed"]
            continue
        got[key] = [str(int(np.asarray(summary["ranks"])[i])), str(calls), str(int(np.asarray(summary["waited"])[i])),
                    f"{float(np.asarray(summary['blocked'])[i]):.6f}",
                    overlap_text(float(np.asarray(summary["byte_weighted_overlap"])[i])),
                    overlap_text(float(np.asarray(summary["mean_overlap"])[i]))]
        if int(np.asarray(summary["not_followed_ranks"])[i]):
            got[key] += ["(not", "followed", "on", str(int(np.asarray(summary["not_followed_ranks"])[i])), "ranks)"]
    assert got == expected
    assert {"iallreduce", "ibcast", "ibarrier"} <= {k for _, k in got}


def test_nbc_overlap_per_rank_sums_to_the_summary(nbc_job: Path) -> None:
    job = mpimon.read_job(nbc_job / "job.txt")
    per_rank, summary = job.nbc_overlap, job.nbc_summary
    assert sorted(set(np.asarray(per_rank["rank"]).tolist())) == [0, 1, 2, 3]
    for i in range(len(summary)):
        c, k = np.asarray(summary["communicator"])[i], np.asarray(summary["kind"])[i]
        rows = (np.asarray(per_rank["communicator"]) == c) & (np.asarray(per_rank["kind"]) == k)
        followed = rows & np.asarray(per_rank["followed"])
        assert int(followed.sum()) == int(np.asarray(summary["ranks"])[i]), (c, k)
        for column in ["calls", "waited", "bytes", "bytes_before_wait", "measured"] + mpimon.NBC_HISTOGRAM_COLUMNS:
            assert int(np.asarray(per_rank[column])[rows].sum()) == int(np.asarray(summary[column])[i]), (c, k, column)
        assert float(np.asarray(per_rank["blocked"])[rows].sum()) == np.float64(np.asarray(summary["blocked"])[i])
    # The histogram counts the measured calls, at most every call.
    hist = np.column_stack([np.asarray(per_rank[c]) for c in mpimon.NBC_HISTOGRAM_COLUMNS])
    assert np.array_equal(hist.sum(axis=1), np.asarray(per_rank["measured"]))
    assert (np.asarray(per_rank["measured"]) <= np.asarray(per_rank["calls"])).all()
    assert job.nbc_samplings == []  # 4 ranks, a few calls each: every call followed


def test_wait_states_equal_mpimon_waits(waits_job: Path) -> None:
    job = mpimon.read_job(waits_job / "job.txt")
    w = job.wait_states
    patterns = np.asarray(w["pattern"])
    # rank 3 was late at the fence: ranks 0-2 waited for it
    late = patterns == "wait_at_fence"
    assert sorted(np.asarray(w["waiter"])[late].tolist()) == [0, 1, 2]
    assert set(np.asarray(w["culprit"])[late].tolist()) == {3}
    compared = 0
    for line in tool_output("waits", str(waits_job / "job.txt")):
        row = re.fullmatch(r"\s*([A-Z][A-Za-z ]*?)\s+(\d+\.\d{3})\s+(\d+\.\d)", line)  # label, seconds, %
        if row is None or row.group(1) in ("Total time", "RMA synchronisation", "RMA communication"):
            continue
        name = row.group(1).lower().replace(" ", "_")
        seconds = float(np.asarray(w["seconds"])[patterns == name].sum())
        assert f"{seconds:.3f}" == row.group(2), (line, seconds)
        compared += 1
    assert compared >= 7


def test_io_equals_mpimon_show(io_job: Path) -> None:
    io = mpimon.read_job(io_job / "job.txt").io
    lines = tool_output("show", str(io_job / "job.txt"))
    header = next(i for i, l in enumerate(lines) if l.startswith("file ") and "written asked" in l)
    row = lines[header + 1].split()
    assert row[0] == "out.dat"
    files = np.asarray(io["file"])
    mine = np.array([str(f).endswith("out.dat") for f in files])
    total = lambda column: int(np.asarray(io[column])[mine].sum())  # noqa: E731
    assert int(row[1]) == int(mine.sum()) == 4  # ranks
    assert [int(row[3]), int(row[4]), int(row[5]), int(row[6]), int(row[7])] == [
        total("read_asked_bytes"), total("read_reached_bytes"), total("write_asked_bytes"),
        total("write_reached_bytes"), total("shuffle_bytes")]


def size_class_bound(label: str) -> int:
    """'<8' -> 8, '<2K' -> 2048, '<1M' -> 2**20: the class's exclusive upper bound."""
    text = label.lstrip("<")
    scale = {"K": 2**10, "M": 2**20, "G": 2**30, "T": 2**40}.get(text[-1], 1)
    return int(text.rstrip("KMGT")) * scale


def test_histograms_equal_mpimon_show_histograms(example_job: Path) -> None:
    """Every rank's message-size histograms per receiver (`mpimon show --histograms R`,
    all categories) from the records' h0..h65."""
    job = mpimon.read_job(example_job / "job.txt")
    r = job.records
    categories = np.asarray(r["category"])
    counted = np.isin(categories, ["external", "internal", "osc_sent", "osc_recv", "io_shuffle"])  # "all": no C
    hist = np.column_stack([np.asarray(r[c]) for c in mpimon.HISTOGRAM_COLUMNS])
    compared = 0
    for sender in range(job.ranks):
        lines = tool_output("show", "--histograms", str(sender), str(example_job / "job.txt"))
        header = next(l for l in lines if l.strip().startswith("to |"))
        bounds = [size_class_bound(label) for label in header.split("|")[1].split()]
        for line in lines[lines.index(header) + 1:]:
            if "|" not in line:
                continue
            peer, values = line.split("|")
            pick = counted & (np.asarray(r["sender"]) == sender)
            if peer.strip() != "all":
                pick &= np.asarray(r["receiver"]) == int(peer)
            per_bucket = hist[pick].sum(axis=0)
            low = 0
            for bound, text in zip(bounds, values.split()):
                k = bound.bit_length() - 1  # [2^(k-1), 2^k) is bucket h_k; the first class also holds h0..
                expected = int(per_bucket[low:k + 1].sum())
                assert text == ("." if expected == 0 and peer.strip() != "all" else str(expected)), (sender, peer, bound)
                low = k + 1
                compared += 1
            assert int(per_bucket[low:].sum()) == 0, (sender, peer)  # the classes shown hold every message
    assert compared > 0
