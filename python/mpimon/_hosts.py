"""Hosts of a job from mpirun's hostfile, and the traffic that crosses them."""
from __future__ import annotations

import os
from typing import Any, List, Optional, Sequence

import numpy as np

from ._mpimon import read_hostfile as _read_hostfile


def read_hostfile(path: "os.PathLike[str] | str") -> List[dict]:
    """mpirun's hostfile, read by the tools' own reader (``mpimon place --hostfile``):
    one dict per host (name, slots — None when the file gives none —, max_slots, line).
    A malformed file raises :class:`mpimon.FormatError` ("<file>:<line>: expected ...")."""
    return [{"name": n, "slots": s, "max_slots": m, "line": line}
            for n, s, m, line in _read_hostfile(os.fspath(path))]


def hosts_by_slot(path: "os.PathLike[str] | str", ranks: int) -> List[str]:
    """The host of each rank when mpirun fills the hostfile's hosts slot by slot, in
    order (its default mapping, ``--map-by slot``), without oversubscription. A host
    without ``slots=`` has as many as its cores, which only mpirun knows there: give them."""
    order: List[str] = []
    for host in read_hostfile(path):
        if host["slots"] is None:
            raise ValueError(f"{os.fspath(path)}:{host['line']}: host {host['name']} has no slots= "
                             "(its core count is known only on that host): give slots= to map ranks here")
        order += [host["name"]] * int(host["slots"])
    if len(order) < ranks:
        raise ValueError(f"{os.fspath(path)}: {len(order)} slots for {ranks} ranks")
    return order[:ranks]


def crossing(matrix: Any, hosts: Sequence[str]) -> int:
    """The sum of a matrix's cells whose sender and receiver are on different hosts
    (``hosts[rank]``); dense or scipy.sparse."""
    h = np.asarray(hosts, dtype=object)
    if hasattr(matrix, "tocoo"):
        coo = matrix.tocoo()
        pick = h[coo.row] != h[coo.col]
        return int(np.asarray(coo.data)[pick].sum())
    rows, cols = np.nonzero(matrix)
    pick = h[rows] != h[cols]
    return int(np.asarray(matrix)[rows[pick], cols[pick]].sum())
