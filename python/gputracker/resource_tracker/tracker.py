"""resource_tracker 0.5.0's ``resource_tracker.tracker``: its
ResourceTracker, on the same library as gputracker.ResourceTracker (0.4),
with 0.5.0's defaults, names and units and its snapshot shape."""
from __future__ import annotations

import contextlib
import csv
import io
import logging
import os
import sys
import tempfile
import time
import warnings
from array import array
from typing import Any, Dict, List, Optional, Tuple

from .. import _native
from .._metrics import PROCESS_COLUMNS, SYSTEM_COLUMNS, MetricsTable
from .._resource_tracker import DEFAULT_STATS_SPECS as _DEFAULT_STATS_SPECS_04
from .._resource_tracker import _PROCESS, _SYSTEM, Report, ResourceTracker as _ResourceTracker04
from .column_maps import BYTE_MAPPING, HUMAN_NAMES_MAPPING
from .helpers import render_csv_row
from .sentinel_api import RunStatus
from .tiny_data_frame import StatSpec, TinyDataFrame

_log = logging.getLogger(__name__)
_SNAPSHOT_RESOURCE_TRACKER_05 = 2  # GT_SNAPSHOT_RESOURCE_TRACKER_05
_GIB_IN_GB = 1024 ** 3 / 1e9

# 0.4's column -> (0.5's name, factor from 0.4's unit to 0.5's): memory in
# MiB instead of kB, the process's I/O named as the disks', disk space in
# decimal GB instead of GiB (resource_tracker 0.5.0's tracker_procfs.py).
_PROCESS_05: Dict[str, Tuple[str, float]] = {
    'memory': ('memory_mib', 1 / 1024), 'read_bytes': ('disk_read_bytes', 1),
    'write_bytes': ('disk_write_bytes', 1), 'gpu_vram': ('gpu_vram_mib', 1),
}
_SYSTEM_05: Dict[str, Tuple[str, float]] = {
    **{name: (name + '_mib', 1 / 1024) for name in ('memory_free', 'memory_used', 'memory_buffers',
                                                      'memory_cached', 'memory_active', 'memory_inactive')},
    **{name: (name, _GIB_IN_GB) for name in ('disk_space_total_gb', 'disk_space_used_gb', 'disk_space_free_gb')},
    'gpu_vram': ('gpu_vram_mib', 1),
}

# 0.4's default specs under 0.5.0's column names (its tracker.py stats()).
_STATS_05 = {'process_memory': 'process_memory_mib', 'process_gpu_vram': 'process_gpu_vram_mib'}
DEFAULT_STATS_SPECS = [StatSpec(column=_STATS_05.get(spec.column, spec.column), agg=spec.agg,
                                agg_name=spec.agg_name, round=spec.round)
                       for spec in _DEFAULT_STATS_SPECS_04]


def _convert(table: MetricsTable, mapping: Dict[str, Tuple[str, float]]) -> TinyDataFrame:
    """table with 0.5's column names and units (a new table; a loaded
    snapshot's columns stay arrays of 8-byte values)."""
    columns, data = [], []
    for name, values in zip(table.columns, table._raw_columns()):
        new, factor = mapping.get(name, (name, 1))
        columns.append(new)
        if factor != 1:
            values = array('d', (v * factor for v in values)) if not isinstance(values, list) \
                else [v * factor for v in values]
        data.append(values)
    return TinyDataFrame._from_columns(columns, data)


class ResourceTracker(_ResourceTracker04):
    """resource_tracker 0.5.0's ResourceTracker: created stopped
    (autostart=False; start() or a with block starts it), its rows, stats
    and server_info in 0.5.0's names and units, its snapshot in 0.5's shape.

    With a Sentinel API token (sentinel_token, else SENTINEL_API_TOKEN),
    start() registers the run and streams the combined metrics in batches
    every upload_interval seconds (streaming.StreamingManager, with
    streaming_metadata as the run's metadata), and stop() finishes the run
    with its exit_code and run_status; sentinel_result is the API's answer.
    A streaming failure is logged and never stops tracking.

    Where it differs from resource_tracker 0.5.0 on purpose: the sampling
    runs in libgputracker's thread (method is accepted and ignored);
    recommend_resources() takes the memory peak in MiB as it is (0.5.0
    divides the MiB column by 1024 once more, asking for its 128 MiB floor
    for any job under about 100 GiB)."""

    _snapshot_format = _SNAPSHOT_RESOURCE_TRACKER_05
    _byte_mapping = BYTE_MAPPING
    _human_names = HUMAN_NAMES_MAPPING
    _default_stats_specs = DEFAULT_STATS_SPECS
    _memory_stat, _vram_stat = 'process_memory_mib', 'process_gpu_vram_mib'
    _memory_stat_kb = 1024
    _table_class = TinyDataFrame

    def __init__(self, pid: Optional[int] = None, children: bool = True, interval: float = 1,
                 method: Optional[str] = None, autostart: bool = False, track_processes: bool = True,
                 track_system: bool = True, discover_server: bool = True, discover_cloud: bool = True,
                 sentinel_token: Optional[str] = None, upload_interval: int = 60,
                 streaming_metadata: Optional[dict] = None):
        self._sentinel_token = sentinel_token or os.environ.get('SENTINEL_API_TOKEN')
        self._upload_interval = upload_interval
        self._streaming_metadata = streaming_metadata
        self._sentinel_result: Optional[dict] = None
        self._streaming = None
        self._combined_csv_rows_written = 0
        super().__init__(pid=pid, children=children, interval=interval, method=method, autostart=autostart,
                         track_processes=track_processes, track_system=track_system,
                         discover_server=discover_server, discover_cloud=discover_cloud)

    _integrations = ('standalone', 'Metaflow', 'R')  # 0.5.0's Literal

    def report(self, integration: str = 'standalone', historical_stats: List[dict] = [],
               status_failed: bool = False, integration_version: Optional[str] = None,
               server: bool = False) -> Report:
        """0.5.0's report(): a Report (a str) with the status badge
        (Pending, Finished, Failed); integration "standalone", "Metaflow"
        or "R" (integration_version is taken). 0.5.0 always asks the Keeper
        API for a server; here only with server=True (no network unasked)."""
        return super().report(integration=integration, historical_stats=historical_stats,
                              status_failed=status_failed, server=server)

    def __enter__(self):
        # 0.5.0: a with block starts the tracker (one already started raises
        # "already running", as there)
        self.autostart = True
        self.start()
        return self

    def get_combined_metrics(self, bytes: bool = False, human_names: bool = False,
                             system_prefix: Optional[str] = None, process_prefix: Optional[str] = None,
                             offset: Optional[int] = None) -> TinyDataFrame:
        """Both series side by side, as 0.4's; offset (0.5.0): only the rows
        after the first offset, for reading a running tracker incrementally."""
        combined = super().get_combined_metrics(bytes=bytes, human_names=human_names,
                                                system_prefix=system_prefix, process_prefix=process_prefix)
        if offset is not None and offset > 0:
            combined = combined[offset:]
        return combined

    def start(self) -> None:
        """Starts tracking and, with a token, the streaming to the Sentinel
        API (a run that cannot be registered is logged, and tracking goes
        on without it)."""
        super().start()
        if self._sentinel_token:
            self._start_streaming()

    def _start_streaming(self) -> None:
        from .streaming import StreamingManager
        # The combined CSV: a private file (0600, O_EXCL) in the temporary
        # directory, removed at stop() and cleanup().
        fd, self._combined_csv_filepath = tempfile.mkstemp(prefix='gpu-tracker-sentinel-', suffix='.csv')
        os.close(fd)
        self._combined_csv_rows_written = 0
        self._streaming = StreamingManager(token=self._sentinel_token, csv_path=self._combined_csv_filepath,
                                           upload_interval=self._upload_interval,
                                           metadata=self._streaming_metadata,
                                           csv_update_fn=self._update_combined_csv)
        try:
            self._streaming.start()
        except Exception as error:  # noqa: BLE001 - streaming never stops tracking
            _log.warning('Failed to start streaming to the Sentinel API: %s', error)
            self._streaming = None
            self._remove_combined_csv()

    def _update_combined_csv(self) -> None:
        """Appends the combined rows not yet written to the streaming CSV
        (the header line first; strings quoted, numbers as they are, as
        0.5.0 writes it)."""
        try:
            new = self.get_combined_metrics(offset=self._combined_csv_rows_written)
            if not len(new):
                return
            text = io.StringIO(newline='')
            writer = csv.writer(text, quoting=csv.QUOTE_NONNUMERIC)
            if self._combined_csv_rows_written == 0:
                writer.writerow(new.columns)
            columns = [new[column] for column in new.columns]
            for i in range(len(new)):
                writer.writerow([column[i] for column in columns])
            with open(self._combined_csv_filepath, 'ab') as file:
                file.write(text.getvalue().encode('utf-8'))
            self._combined_csv_rows_written += len(new)
        except Exception as error:  # noqa: BLE001
            _log.debug('Combined CSV update: %s', error)

    def _remove_combined_csv(self) -> None:
        path = getattr(self, '_combined_csv_filepath', None)
        if path:
            with contextlib.suppress(OSError):
                os.unlink(path)

    def stop(self, exit_code: int = 0, run_status: RunStatus = RunStatus.finished) -> None:
        """Stops tracking; with streaming, uploads the rows left and
        finishes the run with exit_code and run_status (RunStatus or its
        value), its answer in sentinel_result (None when it failed, which
        is logged)."""
        super().stop()
        if self._streaming is not None:
            try:
                self._sentinel_result = self._streaming.stop(exit_code=exit_code, run_status=run_status)
            except Exception as error:  # noqa: BLE001
                _log.warning('Finishing the run at the Sentinel API failed: %s', error)
            self._streaming = None
            self._remove_combined_csv()

    def cleanup(self) -> None:
        super().cleanup()
        self._remove_combined_csv()

    def __exit__(self, exc_type, exc_value, traceback) -> bool:
        """0.5.0: a with block that raised stops with exit_code 1 and
        "failed"; exceptions are never suppressed."""
        if self.running:
            if exc_type is not None:
                self.stop(exit_code=1, run_status=RunStatus.failed)
            else:
                self.stop()
        return False

    def _table(self, kind: int) -> TinyDataFrame:
        return _convert(super()._table(kind), _PROCESS_05 if kind == _PROCESS else _SYSTEM_05)

    @property
    def server_info(self) -> Optional[dict]:
        """The machine with 0.5.0's keys (memory_mib, gpu_memory_mib; ours
        besides), and "allocation": dedicated or shared."""
        info = super().server_info
        if info is None:
            return None
        info = dict(info)
        for old, new in (('memory_mb', 'memory_mib'), ('gpu_memory_mb', 'gpu_memory_mib')):
            if old in info:
                info[new] = info.pop(old)
        return info

    @property
    def sentinel_result(self) -> Optional[dict]:
        """The Sentinel API's answer to the run's finish (its statistics);
        None before stop(), without a token or when it failed."""
        return self._sentinel_result


# ---- the two trackers ResourceTracker runs (0.5.0: in sub-processes) --------

class _SeriesTracker:
    """What ProcessTracker and SystemTracker share: a library tracker of one
    series, whose rows come every interval from start_time on, read one by
    one by diff_stats() in 0.5.0's names and units."""

    _kind = _PROCESS
    _columns: Tuple[str, ...] = PROCESS_COLUMNS
    _mapping: Dict[str, Tuple[str, float]] = _PROCESS_05

    def _open(self, pid: int, children: bool, start_time: float, interval: float) -> None:
        self.status = 'running'
        self.interval = interval
        self.start_time = start_time
        self.cycle = 0
        self._next = 0
        names = [self._mapping.get(c, (c, 1)) for c in self._columns]
        self._names = [n for n, _ in names]
        self._factors = [f for _, f in names]
        self._native = _native.Tracker(
            sleep_time=float(interval), process_id=0 if pid == os.getpid() else pid,
            resource_usage_file='', series=1 if self._kind == _PROCESS else 2, main_only=not children,
            start_at=float(start_time) if start_time > time.time() else 0.0)
        self._native.start()

    def __call__(self):
        """0.5.0's dummy: the class is callable."""

    def _alive(self) -> bool:
        return True

    def diff_stats(self) -> Optional[Dict[str, Any]]:
        """The next row (what happened over the interval it closes), waiting
        for it up to two intervals; None when none came (the process has
        ended)."""
        while not self._native.wait_rows(self._next + 1, max(2.0 * self.interval, 0.1)):
            if not self._alive():
                return None
        row = self._native.rows(self._kind, self._next)[0]
        self._next += 1
        self.cycle += 1
        return {name: value * factor if factor != 1 else value
                for name, value, factor in zip(self._names, row, self._factors)}

    def start_tracking(self, output_file: Optional[str] = None, print_header: bool = True) -> None:
        """Writes a CSV line every interval (the header first) to stdout or
        output_file, until the tracked process ends (ProcessTracker) or for
        ever (SystemTracker: stop it with a signal)."""
        handle = open(output_file, 'wb') if output_file else sys.stdout.buffer
        try:
            if print_header:
                handle.write(render_csv_row(self._names))
            while True:
                row = self.diff_stats()
                if row is None:
                    self.status = 'exited'
                    break
                handle.write(render_csv_row(row.values()))
                if output_file:
                    handle.flush()
        finally:
            if output_file:
                handle.close()
            self._native.stop()


class ProcessTracker(_SeriesTracker):
    """resource_tracker 0.5.0's ProcessTracker: a process's (and its
    children's) row every interval, in 0.5.0's columns (timestamp, pid,
    children, utime, stime, cpu_usage, memory_mib, disk_read_bytes,
    disk_write_bytes, gpu_usage, gpu_vram_mib, gpu_utilized), written as
    CSV to stdout or output_file until the process ends (autostart: at
    once, from start_time), or read one by one with diff_stats(). The
    library samples; children is None in the rows when children=False, as
    0.5.0 writes it."""

    def __init__(self, pid: Optional[int] = None, start_time: Optional[float] = None, interval: float = 1,
                 children: bool = True, autostart: bool = True, output_file: Optional[str] = None):
        self.pid = os.getpid() if pid is None else pid
        self.children = children
        self._open(self.pid, children, time.time() if start_time is None else start_time, interval)
        if autostart:
            self.start_tracking(output_file)

    def _alive(self) -> bool:
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return False
        except PermissionError:
            pass
        return True

    def diff_stats(self) -> Optional[Dict[str, Any]]:
        row = super().diff_stats()
        # 0.5.0's rule for the end: a row with no memory (the process is
        # gone, or a zombie its parent has not reaped yet)
        if row is None or row['memory_mib'] == 0 or not self._alive():
            return None
        if not self.children:
            row['children'] = None
        return row


class PidTracker(ProcessTracker):
    """0.5.0's old name for ProcessTracker (deprecated there too)."""

    def __init__(self, *args, **kwargs):
        warnings.warn('PidTracker is deprecated and will be removed in a future release. '
                      'Please use ProcessTracker instead.', DeprecationWarning, stacklevel=2)
        super().__init__(*args, **kwargs)


class SystemTracker(_SeriesTracker):
    """resource_tracker 0.5.0's SystemTracker: the machine's row every
    interval in 0.5.0's columns (memory in MiB, disk space in decimal GB),
    written as CSV to stdout or output_file for ever (autostart: at once),
    or read one by one with diff_stats()."""

    _kind = _SYSTEM
    _columns = SYSTEM_COLUMNS
    _mapping = _SYSTEM_05

    def __init__(self, start_time: Optional[float] = None, interval: float = 1, autostart: bool = True,
                 output_file: Optional[str] = None):
        self._open(os.getpid(), True, time.time() if start_time is None else start_time, interval)
        if autostart:
            self.start_tracking(output_file)
