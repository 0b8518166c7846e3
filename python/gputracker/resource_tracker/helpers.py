"""resource_tracker 0.5.0's helpers: the public functions of its helpers.py,
with its behaviour. ``get_tracker_implementation()`` returns the readers of
``tracker_psutil`` where psutil is installed and of ``tracker_procfs``
otherwise, as 0.5.0 chooses; both read through libgputracker here
(docs/python.md says where their figures differ from 0.5.0's)."""
import os
from contextlib import suppress
from csv import QUOTE_NONNUMERIC
from csv import writer as _csv_writer
from functools import cache
from importlib.util import find_spec
from io import StringIO
from typing import Callable, Iterable, List, Tuple, Union

from .._metrics import aggregate_stats
from .disks import get_zfs_pools_space, is_partition

__all__ = ['is_partition', 'is_psutil_available', 'is_procfs_available', 'get_tracker_implementation',
           'get_zfs_pools_space', 'cleanup_files', 'cleanup_processes', 'aggregate_stats', 'render_csv_row']


@cache
def is_psutil_available() -> bool:
    """Whether psutil can be imported (tracker_psutil needs it)."""
    try:
        return find_spec('psutil') is not None
    except ImportError:
        return False


@cache
def is_procfs_available() -> bool:
    """Whether /proc is there and readable."""
    return os.path.isdir('/proc') and os.access('/proc', os.R_OK)


def get_tracker_implementation() -> Tuple[Callable, Callable]:
    """(get_process_stats, get_system_stats) of ``tracker_psutil`` where
    psutil is installed, else of ``tracker_procfs`` where /proc can be
    read; ImportError where neither can (0.5.0's choice)."""
    if is_psutil_available():
        from .tracker_psutil import get_process_stats, get_system_stats
    elif is_procfs_available():
        from .tracker_procfs import get_process_stats, get_system_stats
    else:
        raise ImportError('No tracker implementation available - install psutil or use a Linux '
                          'system with procfs.')
    return get_process_stats, get_system_stats


def cleanup_files(files: List[str]):
    """Removes each file, ignoring any error."""
    for f in files:
        with suppress(Exception):
            os.unlink(f)


def cleanup_processes(processes: list):
    """Terminates each multiprocessing.Process (then kills it after 1 s) and
    closes it, ignoring errors."""
    for process in processes:
        for stop in ('terminate', 'kill'):
            with suppress(Exception):
                if process.is_alive():
                    getattr(process, stop)()
                    process.join(timeout=1.0)
        with suppress(Exception):
            process.close()


def render_csv_row(row: Iterable[Union[str, float, int, None]], quoting: int = QUOTE_NONNUMERIC) -> bytes:
    """One CSV line (with its newline) as UTF-8 bytes, strings quoted and
    numbers not by default."""
    buffer = StringIO(newline='')
    _csv_writer(buffer, quoting=quoting, lineterminator='\n').writerow(row)
    return buffer.getvalue().encode('utf-8')
