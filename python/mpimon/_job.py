"""Job files and .prof dumps: :func:`read_job`, :func:`read_prof` and what they return."""
from __future__ import annotations

import os
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from . import _matrix
from ._frames import table, rows_table
from ._mpimon import CATEGORIES, HISTOGRAM_BUCKETS, job_records, open_dumps, prof_records

PathLike = Union[str, "os.PathLike[str]"]

#: The histogram columns of :attr:`Traffic.records`: ``h0`` holds 0-byte messages, ``h<k>``
#: (k = 1..64) messages of [2^(k-1), 2^k) bytes; ``h65`` is never used (Open MPI's .prof
#: prints 66 values).
HISTOGRAM_COLUMNS: List[str] = [f"h{k}" for k in range(HISTOGRAM_BUCKETS)]

_IO_COLUMNS = ["file", "rank", "io", "fcoll"] + [
    f"{d}_{what}" for d in ("read", "write")
    for what in ("asked_calls", "asked_bytes", "reached_operations", "reached_bytes", "failed_operations",
                 "failed_bytes", "seconds")] + ["shuffle_messages", "shuffle_bytes"]


def _paths(paths: Union[PathLike, Sequence[PathLike]]) -> List[str]:
    if isinstance(paths, (str, os.PathLike)):
        return [os.fspath(paths)]
    return [os.fspath(p) for p in paths]


class Traffic:
    """Who sent how much to whom, read as ``mpimon matrix`` reads the same inputs.

    Made by :func:`read_job` and :func:`read_prof`. Matrices are oriented by data flow
    (row: the process the data left, column: the one it reached; one-sided gets are
    transposed, as docs/formats.md says), and every cell equals ``mpimon matrix``'s.
    """

    def __init__(self, inputs: List[str], records: Dict[str, Any]) -> None:
        self._dumps = open_dumps(inputs, True)
        self._records = records
        self.inputs: List[str] = inputs

    # --- what the inputs are
    @property
    def files(self) -> List[str]:
        """The dump files read, in order (a prefix or folder expanded as the tools do)."""
        return list(self._dumps.files)

    @property
    def ranks(self) -> int:
        """Processes in the job: the job file's world size, else the highest rank seen + 1."""
        return int(self._dumps.ranks)

    @property
    def header(self) -> Dict[str, Any]:
        """The job file's header (world_size, enable_level, open_mpi, start, end); {} for .prof."""
        return dict(self._dumps.header) if self._dumps.has_header else {}

    @property
    def notes(self) -> List[str]:
        """What the tools would print on standard error (a job that did not finish, skipped lines)."""
        return list(self._dumps.notes)

    def categories(self) -> List[str]:
        """The categories with traffic: external, internal, coll, osc_sent, osc_recv, io_shuffle."""
        return list(self._dumps.categories())

    # --- matrices
    def cells(self, category: str = "all") -> Any:
        """The non-zero cells of a category or sum (``all``, ``communication``, ``osc``, or
        a category's name), as a table: sender, receiver, messages, bytes."""
        return table(self._cells(category))

    def _cells(self, category: str) -> Dict[str, np.ndarray]:
        return dict(self._dumps.cells(category))

    def matrix(self, category: str = "all", metric: str = "bytes", sparse: Optional[bool] = None) -> Any:
        """The ranks x ranks matrix of ``category`` (E/I/C/S/R/F letters or names, ``all``,
        ``communication``, ``osc``) in ``metric`` (``bytes``, ``messages``, ``average``).

        A numpy array up to :data:`mpimon.DENSE_RANKS` ranks, a scipy.sparse CSR matrix
        beyond (memory grows with the non-zeros); ``sparse`` forces either.
        """
        return _matrix.build(self._cells(_category_name(category)), self.ranks, metric, sparse)

    # --- every record as written
    @property
    def records(self) -> Any:
        """Every record as the files hold it: file, category, rank (the process that
        recorded it), peer, sender, receiver (data flow), messages, bytes, h0..h65."""
        r = self._records
        category = np.array(CATEGORIES, dtype=object)[r["category"]] if len(r["category"]) else np.array([], object)
        gets = r["category"] == CATEGORIES.index("osc_recv")
        columns: Dict[str, Any] = {
            "file": r["file"],
            "category": category,
            "rank": r["rank"],
            "peer": r["peer"],
            "sender": np.where(gets, r["peer"], r["rank"]),
            "receiver": np.where(gets, r["rank"], r["peer"]),
            "messages": r["messages"],
            "bytes": r["bytes"],
        }
        histogram = r["histogram"]
        for k, name in enumerate(HISTOGRAM_COLUMNS):
            columns[name] = histogram[:, k]
        return table(columns)

    # --- the other records of the dumps
    @property
    def collectives(self) -> Any:
        """Per rank and communicator, calls and bytes of each collective class
        (one_to_all, all_to_one, all_to_all)."""
        return table(dict(self._dumps.collectives()))

    @property
    def window_syncs(self) -> Any:
        """Per rank, window and synchronisation kind: calls and seconds (one-sided)."""
        return table(dict(self._dumps.window_syncs()))

    @property
    def wait_states(self) -> Any:
        """RMA wait states (job files of runs with osc_monitoring_wait_states 1): waiter,
        window, pattern, culprit, count, seconds."""
        return table(dict(self._dumps.wait_states()))

    @property
    def nbc_overlap(self) -> Any:
        """Nonblocking collectives' overlap per (rank, communicator, kind), from the job
        files' ``nbc_overlap`` lines (``coll_monitoring_nbc_overlap``), summed by the tools'
        own summary: rank, communicator (its name), kind (iallreduce, ...), followed (False:
        a ``not followed`` line, no figure), calls, waited, duration and blocked (seconds),
        bytes, bytes_before_wait, measured (calls with an overlap), mean_overlap,
        byte_weighted_overlap (NaN when nothing was measured), o0..o9 (per-call overlaps in
        [0, 0.1), ..., [0.9, 1]). Empty for .prof dumps and jobs without such calls."""
        return _nbc_table(self._dumps.nbc_overlap(True), per_rank=True)

    @property
    def nbc_summary(self) -> Any:
        """The overlap summed over the ranks per (communicator, kind), the table ``mpimon
        show`` prints under "Nonblocking collectives": communicator, kind, ranks (with
        followed calls), not_followed_ranks, calls, waited, duration, blocked, bytes,
        bytes_before_wait, measured, mean_overlap, byte_weighted_overlap, lowest_rank (the
        rank with the lowest mean overlap), o0..o9. :attr:`nbc_samplings` says how the
        calls were sampled."""
        return _nbc_table(self._dumps.nbc_overlap(False), per_rank=False)

    @property
    def nbc_samplings(self) -> List[str]:
        """The sampling schedules of ranks that followed only some calls (``nbc_sampling``
        lines), as the tools print them: ``"128 after the first 64"``; [] when every call
        was followed."""
        return list(self._dumps.nbc_samplings())

    @property
    def io(self) -> Any:
        """MPI-IO per (file, rank): asked (calls, bytes), reached the file system
        (operations, bytes), failed there, seconds, per direction; the shuffle sent."""
        return rows_table(self._dumps.io(), _IO_COLUMNS)

    @property
    def annotations(self) -> Any:
        """Every other annotation line of the job files as written: keyword, line, fields
        (a list of strings): NBC overlap, communicator names, wait-state window lines, ..."""
        rows = self._dumps.annotations()
        return table({"keyword": [k for k, _, _ in rows], "line": [n for _, n, _ in rows],
                      "fields": np.array([f for _, _, f in rows] + [None], dtype=object)[:-1]})

    def __repr__(self) -> str:
        return f"<mpimon.Traffic {self.ranks} ranks, {', '.join(self.categories()) or 'no traffic'}; {self.inputs}>"


_LETTERS = {"E": "external", "I": "internal", "C": "coll", "S": "osc_sent", "R": "osc_recv", "F": "io_shuffle"}


def _category_name(category: str) -> str:
    return _LETTERS.get(category, category)


def read_job(path: PathLike) -> Traffic:
    """Read a job file (``pml_monitoring_job_file``), as ``mpimon matrix <path>`` reads it.

    A running or dead job's name reads its time series summed up to its last snapshot, as
    the tools do (:attr:`Traffic.notes` then says the job did not finish). Raises
    :class:`mpimon.FormatError` with the tools' message for a cut-short, damaged or
    foreign file.

    >>> j = read_job("mpimon-job.txt")            # doctest: +SKIP
    >>> j.matrix("E", "bytes")                    # doctest: +SKIP
    """
    path = os.fspath(path)
    traffic = Traffic([path], {})
    if traffic._dumps.files == [path]:
        records = job_records(path)
    else:  # a series summed in memory: its records are the sums
        records = _empty_records()
    traffic._records = records
    return traffic


def read_prof(prefix: Union[PathLike, Sequence[PathLike]]) -> Traffic:
    """Read .prof dumps (ours and Open MPI's own component's) as ``mpimon matrix`` does:
    a prefix ``P`` (``P.<rank>.prof``, or every phase ``P_<phase>.<rank>.prof``), a
    folder, a file, or a list of them. :attr:`Traffic.records` holds every line with its
    histogram (zeros for Open MPI's files, which have none)."""
    inputs = _paths(prefix)
    records = prof_records(inputs)
    return Traffic(inputs, records)


#: The overlap histogram's columns of :attr:`Traffic.nbc_overlap`: ``o<k>`` counts the calls
#: whose overlap is in [k/10, (k+1)/10) (``o9``: [0.9, 1]).
NBC_HISTOGRAM_COLUMNS: List[str] = [f"o{k}" for k in range(10)]


def _nbc_table(columns: Dict[str, Any], per_rank: bool) -> Any:
    columns = dict(columns)
    histogram = np.asarray(columns.pop("histogram")).reshape(-1, len(NBC_HISTOGRAM_COLUMNS))
    if per_rank:
        columns["followed"] = np.asarray(columns["followed"]).astype(bool)
    for k, name in enumerate(NBC_HISTOGRAM_COLUMNS):
        columns[name] = histogram[:, k]
    return table(columns)


def _empty_records() -> Dict[str, Any]:
    return {"rank": np.zeros(0, np.int32), "peer": np.zeros(0, np.int32), "category": np.zeros(0, np.uint8),
            "messages": np.zeros(0, np.uint64), "bytes": np.zeros(0, np.uint64),
            "histogram": np.zeros((0, HISTOGRAM_BUCKETS), np.uint64), "file": []}
