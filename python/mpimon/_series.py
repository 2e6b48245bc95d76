"""Time series (``<job file>.series``): :func:`read_series`."""
from __future__ import annotations

import os
from typing import Any, Dict, List, Optional

import numpy as np

from . import _matrix
from ._frames import table
from ._mpimon import CATEGORIES
from ._mpimon import read_series as _read_series


class Series:
    """A job's time series: what each rank's snapshots added, frame by frame.

    Times are seconds since the job's start (end of MPI_Init on rank 0).
    """

    def __init__(self, folder: str, data: Dict[str, Any]) -> None:
        self.folder: str = folder
        self._d = data
        self.world_size: int = int(data["world_size"])
        self.interval_seconds: float = data["interval_us"] / 1e6
        self.finished: bool = bool(data["finished"])
        self.end: str = data["end"]
        self.notes: List[str] = list(data["notes"])

    def _seconds(self, time_us: np.ndarray) -> np.ndarray:
        return (time_us.astype(np.int64) - int(self._d["job_start_us"])) / 1e6

    @property
    def increases(self) -> Any:
        """One row per (frame, peer, category): time (the index with pandas), rank,
        interval, final, peer, category, messages, bytes: what the counters grew by since
        the rank's previous frame."""
        d = self._d
        category = np.array(CATEGORIES, dtype=object)[d["category"]] if len(d["category"]) else np.array([], object)
        return table({"time": self._seconds(d["time_us"]), "rank": d["rank"], "interval": d["interval"],
                      "final": d["final"].astype(bool), "peer": d["peer"], "category": category,
                      "messages": d["messages"], "bytes": d["bytes"]}, index="time")

    @property
    def snapshots(self) -> Any:
        """One row per snapshot (and final) frame: time (the index with pandas), rank,
        interval, final, and per category ``<category>_messages`` and ``<category>_bytes``
        added in that interval."""
        d, frames = self._d, self._d["frames"]
        n = len(frames["rank"])
        columns: Dict[str, Any] = {"time": self._seconds(frames["time_us"]), "rank": frames["rank"],
                                   "interval": frames["interval"], "final": frames["final"].astype(bool)}
        for c, name in enumerate(CATEGORIES):
            pick = d["category"] == c
            for metric in ("messages", "bytes"):
                columns[f"{name}_{metric}"] = np.bincount(d["frame"][pick].astype(np.int64),
                                                          weights=d[metric][pick].astype(np.float64),
                                                          minlength=n).astype(np.uint64)
        return table(columns, index="time")

    def matrix(self, category: str = "external", metric: str = "bytes", start: float = 0.0,
               end: float = float("inf"), sparse: Optional[bool] = None) -> Any:
        """The matrix of one category's increases in the intervals within (start, end]
        seconds (row: the recording rank, column: its peer; osc_recv transposed to data
        flow). The whole series equals the job file's matrix."""
        d = self._d
        c = CATEGORIES.index({"E": "external", "I": "internal", "C": "coll", "S": "osc_sent", "R": "osc_recv",
                              "F": "io_shuffle"}.get(category, category))
        k = d["interval"].astype(np.float64)
        pick = (d["category"] == c) & (k * self.interval_seconds > start) & ((k - 1) * self.interval_seconds < end)
        rank, peer = d["rank"][pick], d["peer"][pick]
        gets = CATEGORIES[c] == "osc_recv"
        cells = {"sender": peer if gets else rank, "receiver": rank if gets else peer,
                 "messages": d["messages"][pick], "bytes": d["bytes"][pick]}
        return _matrix.build(_summed(cells, self.world_size), self.world_size, metric, sparse)

    def __repr__(self) -> str:
        return f"<mpimon.Series {self.folder}: {self.world_size} ranks, {self.end}>"


def _summed(cells: Dict[str, np.ndarray], ranks: int) -> Dict[str, np.ndarray]:
    """Cells of one (sender, receiver) added up (several frames)."""
    key = cells["sender"].astype(np.int64) * ranks + cells["receiver"].astype(np.int64)
    unique, inverse = np.unique(key, return_inverse=True)
    out = {"sender": (unique // ranks).astype(np.int32), "receiver": (unique % ranks).astype(np.int32)}
    for metric in ("messages", "bytes"):
        total = np.zeros(len(unique), dtype=np.uint64)
        np.add.at(total, inverse, cells[metric])
        out[metric] = total
    return out


def read_series(folder: "os.PathLike[str] | str") -> Series:
    """Read a time series folder (``<job file>.series``: one file per host), finished,
    running or dead. Damaged or torn frames (a process killed while writing) are skipped
    and listed in :attr:`Series.notes`; malformed content raises
    :class:`mpimon.FormatError` ("<file>:<offset>: ...")."""
    folder = os.fspath(folder)
    return Series(folder, _read_series(folder))
