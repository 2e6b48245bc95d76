"""mpimon: read mpimon's files from Python (docs/python.md).

Every format is parsed by mpimon's own C++ readers, the ones the ``mpimon`` tools use, so
the numbers and the error messages are the tools':

- :func:`read_job` — a job file (or a running/dead job's series, by the job file's name)
- :func:`read_prof` — .prof dumps, ours and Open MPI's own monitoring component's
- :func:`read_series` — a time series folder, one row per snapshot
- :func:`read_events` — the event logger's logs
- :func:`read_hostfile`, :func:`hosts_by_slot`, :func:`crossing` — bytes crossing hosts

A cut-short, damaged or foreign file raises :class:`FormatError` (a ValueError) whose
message is what ``mpimon matrix`` prints after ``mpimon: ``. numpy is required; pandas is
optional (tables are DataFrames when it is installed, else dicts of numpy columns); scipy
is needed only for matrices above :data:`DENSE_RANKS` ranks.
"""
from ._mpimon import CATEGORIES, FormatError
from ._matrix import DENSE_RANKS
from ._frames import HAVE_PANDAS, Table
from ._job import HISTOGRAM_COLUMNS, NBC_HISTOGRAM_COLUMNS, Traffic, read_job, read_prof
from ._series import Series, read_series
from ._events import Events, read_events
from ._hosts import crossing, hosts_by_slot, read_hostfile

__all__ = ["FormatError", "read_job", "read_prof", "read_series", "read_events", "Traffic", "Series", "Events",
           "Table", "read_hostfile", "hosts_by_slot", "crossing", "CATEGORIES", "HISTOGRAM_COLUMNS",
           "NBC_HISTOGRAM_COLUMNS", "DENSE_RANKS", "HAVE_PANDAS"]
__version__ = "0.1.0"
