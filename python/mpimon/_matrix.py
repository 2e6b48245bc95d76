"""Matrices from non-zero cells: numpy arrays, or scipy.sparse above a size.

Dense up to :data:`DENSE_RANKS` ranks: a 1024 x 1024 matrix of 64-bit values is 8 MiB,
cheap beside the Python process itself; beyond, N x N grows quadratically (80 GB at 100 000
ranks) while a job's traffic has far fewer non-zeros (a 2-D halo: 4 per rank), so the
matrix is a ``scipy.sparse.csr_array`` (``csr_matrix`` on older scipy) whose memory grows
with the non-zeros, as the tools' own matrices do. ``sparse=True``/``False`` overrides.
"""
from __future__ import annotations

from typing import Any, Mapping, Optional

import numpy as np

DENSE_RANKS: int = 1024
METRICS = ("bytes", "messages", "average")


def values_of(cells: Mapping[str, np.ndarray], metric: str) -> np.ndarray:
    """The cells' values of a metric: bytes or messages (uint64), average (bytes per message)."""
    if metric == "bytes":
        return cells["bytes"]
    if metric == "messages":
        return cells["messages"]
    if metric == "average":
        messages = cells["messages"].astype(np.float64)
        return np.divide(cells["bytes"].astype(np.float64), messages, out=np.zeros_like(messages),
                         where=messages > 0)
    raise ValueError(f"metric '{metric}': expected one of {', '.join(METRICS)}")


def build(cells: Mapping[str, np.ndarray], ranks: int, metric: str, sparse: Optional[bool] = None) -> Any:
    """A ranks x ranks matrix (row: sender, column: receiver) of the cells' ``metric``."""
    values = values_of(cells, metric)
    rows = np.asarray(cells["sender"], dtype=np.int64)
    cols = np.asarray(cells["receiver"], dtype=np.int64)
    if sparse is None:
        sparse = ranks > DENSE_RANKS
    if not sparse:
        dense = np.zeros((ranks, ranks), dtype=values.dtype)
        dense[rows, cols] = values
        return dense
    try:
        import scipy.sparse as sp
    except ImportError as e:  # pragma: no cover - depends on the machine
        raise ImportError(f"a {ranks}-rank matrix is sparse (above {DENSE_RANKS} ranks): install python3-scipy, "
                          "or ask for sparse=False") from e
    make = getattr(sp, "csr_array", None) or sp.csr_matrix
    return make((values, (rows, cols)), shape=(ranks, ranks))
