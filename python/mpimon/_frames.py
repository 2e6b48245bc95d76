"""Tables: a pandas DataFrame when pandas is installed, else a :class:`Table` of numpy columns.

pandas is optional at import time (numpy is not): every reader returns its rows through
:func:`table`, so code written for DataFrames runs wherever python3-pandas is installed, and
the package still imports (and its matrices still work) where it is not.
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence

import numpy as np

try:  # optional
    import pandas as _pandas
except ImportError:  # pragma: no cover - depends on the machine
    _pandas = None

HAVE_PANDAS: bool = _pandas is not None


class Table(dict):
    """A dict of equally long numpy columns: what the readers return without pandas.

    ``table["bytes"]`` is a numpy array; ``len(table)`` is the number of rows.
    """

    def __len__(self) -> int:  # rows, not columns
        for column in self.values():
            return len(column)
        return 0

    @property
    def columns(self) -> List[str]:
        """The column names, as a DataFrame's ``columns`` gives them."""
        return list(self.keys())


def column(values: Any) -> np.ndarray:
    """A numpy column of a list or array (object dtype for strings and mixed values)."""
    if isinstance(values, np.ndarray):
        return values
    values = list(values)
    if values and all(isinstance(v, str) for v in values):
        return np.array(values, dtype=object)
    if values and all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return np.array(values, dtype=np.int64)
    if values and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values):
        return np.array(values, dtype=np.float64)
    return np.array(values, dtype=object)


def table(columns: Mapping[str, Any], index: Optional[str] = None) -> Any:
    """Columns (name -> list or array, equally long) as a DataFrame, or a :class:`Table`.

    ``index``: the column to make the DataFrame's index (pandas only; the Table keeps it as
    a column).
    """
    converted: Dict[str, np.ndarray] = {name: column(values) for name, values in columns.items()}
    if _pandas is None:
        return Table(converted)
    frame = _pandas.DataFrame(converted)
    if index is not None:
        frame = frame.set_index(index)
    return frame


def rows_table(rows: Sequence[Mapping[str, Any]], names: Sequence[str]) -> Any:
    """Rows (dicts) as a table with columns ``names`` (in that order)."""
    return table({name: [row[name] for row in rows] for name in names})
