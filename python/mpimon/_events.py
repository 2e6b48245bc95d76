"""The event logger's logs (``MEL_OUTPUT=<prefix>``: ``<prefix>.<rank>.log``): :func:`read_events`."""
from __future__ import annotations

import os
from typing import Any, Dict, Optional

import numpy as np

from . import _matrix
from ._frames import table
from ._mpimon import read_events as _read_events

SEND_POSTED = "mpimon_pml_send_posted"


class Events:
    """Every event every rank logged, its drops and its statistics."""

    def __init__(self, prefix: str, data: Dict[str, Any]) -> None:
        self.prefix: str = prefix
        self._d = data
        self.files = list(data["files"])
        self.ranks: int = int(data["rank"].max()) + 1 if len(data["rank"]) else 0

    @property
    def events(self) -> Any:
        """One row per event: rank, seconds (since the rank's MPI_Init), event, and one
        column per element name (None where an event type has no such element)."""
        columns: Dict[str, Any] = {"rank": self._d["rank"], "seconds": self._d["seconds"], "event": self._d["event"]}
        for name, values in self._d["elements"].items():
            columns.setdefault(name, values)
        return table(columns)

    @property
    def drops(self) -> Any:
        """Per ``dropped N instances`` line: rank, event, count."""
        rows = self._d["drops"]
        return table({"rank": [r for r, _, _ in rows], "event": [e for _, e, _ in rows],
                      "count": [c for _, _, c in rows]})

    @property
    def statistics(self) -> Any:
        """The statistics lines each rank wrote at MPI_Finalize: rank, line."""
        rows = self._d["statistics"]
        return table({"rank": [r for r, _ in rows], "line": [s for _, s in rows]})

    @property
    def traffic(self) -> Any:
        """The ``statistics: sent|received`` lines: rank, direction, peer, messages, bytes."""
        t = self._d["traffic"]
        return table({"rank": t["rank"], "direction": np.where(t["sent"] == 1, "sent", "received").astype(object),
                      "peer": t["peer"], "messages": t["messages"], "bytes": t["bytes"]})

    def matrix(self, metric: str = "bytes", event: str = SEND_POSTED, sparse: Optional[bool] = None) -> Any:
        """Messages or bytes from the events (row: the logging rank, column: ``peer``):
        by default every posted send (E + I of the .prof matrix, the logger's ``sent``)."""
        d = self._d
        pick = np.array([e == event for e in d["event"]], dtype=bool)
        peer = np.array([p for p, k in zip(d["elements"].get("peer", [None] * len(pick)), pick) if k], dtype=np.int64)
        nbytes = np.array([b for b, k in zip(d["elements"].get("bytes", [None] * len(pick)), pick) if k],
                          dtype=np.uint64)
        rank = d["rank"][pick].astype(np.int64)
        ok = peer >= 0
        n = max(self.ranks, int(peer.max()) + 1 if len(peer) else 0)
        key = rank[ok] * n + peer[ok]
        unique, inverse, counts = np.unique(key, return_inverse=True, return_counts=True)
        total = np.zeros(len(unique), dtype=np.uint64)
        np.add.at(total, inverse, nbytes[ok])
        cells = {"sender": unique // n if n else unique, "receiver": unique % n if n else unique,
                 "messages": counts.astype(np.uint64), "bytes": total}
        return _matrix.build(cells, n, metric, sparse)

    def __repr__(self) -> str:
        return f"<mpimon.Events {self.prefix}: {len(self.files)} logs>"


def read_events(prefix: "os.PathLike[str] | str") -> Events:
    """Read the event logger's logs: ``prefix`` as given to MEL_OUTPUT (every
    ``<prefix>.<rank>.log``) or one log file. A cut-short, damaged or foreign log raises
    :class:`mpimon.FormatError` ("<file>:<line>: expected ...")."""
    prefix = os.fspath(prefix)
    return Events(prefix, _read_events(prefix))
