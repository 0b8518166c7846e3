"""resource_tracker's ResourceTracker over libgputracker: the same
parameters, methods and snapshot files; the rows come from the library's
sampling thread in this process (no sub-processes, no temporary CSV files)
and can be read while it runs."""
from __future__ import annotations

import contextlib
import copy
import json
import logging
import os
import threading
import time
from statistics import mean
from typing import Any, Dict, List, Optional

from . import _native
from ._metrics import (BYTE_MAPPING, HUMAN_NAMES_MAPPING, PROCESS_COLUMNS, SYSTEM_COLUMNS, MetricsTable,
                       StatSpec, aggregate_stats)

log = logging.getLogger(__name__)

_PROCESS, _SYSTEM = 0, 1
_SNAPSHOT_RESOURCE_TRACKER = _native.SNAPSHOT_RESOURCE_TRACKER  # its 0.4 shape, our columns
_REPORT = -1
_START_ALIGNED = _native.START_ALIGNED  # resource_tracker's schedule, kept by the library
_INTERVAL_MIN, _INTERVAL_MAX = 0.0001, 86400.0  # GT_SLEEP_TIME_MIN/MAX
_METHODS = (None, 'fork', 'spawn', 'forkserver')

DEFAULT_STATS_SPECS = [
    StatSpec(column='process_cpu_usage', agg=mean, round=2),
    StatSpec(column='process_cpu_usage', agg=max, round=2),
    StatSpec(column='process_memory', agg=mean, round=2),
    StatSpec(column='process_memory', agg=max, round=2),
    StatSpec(column='process_gpu_usage', agg=mean, round=2),
    StatSpec(column='process_gpu_usage', agg=max, round=2),
    StatSpec(column='process_gpu_vram', agg=mean, round=2),
    StatSpec(column='process_gpu_vram', agg=max, round=2),
    StatSpec(column='process_gpu_utilized', agg=mean, round=2),
    StatSpec(column='process_gpu_utilized', agg=max, round=2),
    StatSpec(column='system_disk_space_used_gb', agg=max, round=2),
    StatSpec(column='system_net_recv_bytes', agg=sum),
    StatSpec(column='system_net_sent_bytes', agg=sum),
    StatSpec(column='timestamp', agg=lambda x: max(x) - min(x), agg_name='duration'),
]


class Report(str):
    """An HTML report, as resource_tracker's: a str (``'CPU' in report``
    works, it can be written anywhere text goes) shown inline by Jupyter,
    saved with save(), opened in a browser with browse(); both return the
    report, for chaining."""

    @property
    def html(self) -> str:
        """The report as a plain str."""
        return str.__str__(self)

    def _repr_html_(self) -> str:
        return self.html

    def save(self, path: str) -> 'Report':
        """Writes the report to path."""
        with open(path, 'w', encoding='utf-8') as f:
            f.write(self.html)
        return self

    def browse(self) -> 'Report':
        """Opens the report in the default browser, from a temporary file
        (left for the browser to read)."""
        import tempfile  # here, as webbrowser: only browse() needs them
        import webbrowser
        fd, path = tempfile.mkstemp(prefix='gputracker-report-', suffix='.html')
        with os.fdopen(fd, 'w', encoding='utf-8') as f:
            f.write(self.html)
        webbrowser.open('file://' + path)
        return self


def _with_status(html: str, status: str) -> str:
    """The report with resource_tracker's run status badge (Pending while
    tracking, Finished, Failed) beside the exit status in its header."""
    css = {'Finished': 'ok', 'Failed': 'bad', 'Pending': 'unk'}[status]
    anchor = '<div class="meta">'
    at = html.find(anchor)
    if at < 0:
        return html
    at += len(anchor)
    return f'{html[:at]}<span class="status"><span class="badge {css}">{status}</span></span>{html[at:]}'


class ResourceTracker:
    """Tracks the resource usage of a process (the calling one by default)
    and its descendants, and of the whole system, every interval seconds,
    without blocking: resource_tracker's ResourceTracker.

    Its metrics (process_metrics, system_metrics) can be read at any time,
    while tracking too. Where it differs from resource_tracker on purpose:
    the sampling runs in libgputracker's thread in this process, not in
    forked processes (method is accepted and ignored), and n_samples counts
    the series that are tracked."""

    # What differs between the versions of resource_tracker this class
    # speaks: 0.4 here (the reference docs), 0.5.0 in
    # gputracker.resource_tracker, which sets these.
    _snapshot_format = _SNAPSHOT_RESOURCE_TRACKER
    _byte_mapping = BYTE_MAPPING
    _human_names = HUMAN_NAMES_MAPPING
    _default_stats_specs = DEFAULT_STATS_SPECS
    _memory_stat, _vram_stat = 'process_memory', 'process_gpu_vram'
    _memory_stat_kb = 1  # kB in one unit of _memory_stat (the library takes kB)
    _table_class = MetricsTable  # what the metrics come as (0.5.0's: TinyDataFrame)

    def __init__(self, pid: Optional[int] = None, children: bool = True, interval: float = 1,
                 method: Optional[str] = None, autostart: bool = True, track_processes: bool = True,
                 track_system: bool = True, discover_server: bool = True, discover_cloud: bool = True):
        if isinstance(interval, bool) or not isinstance(interval, (int, float)) or \
                not _INTERVAL_MIN <= interval <= _INTERVAL_MAX:
            raise ValueError(f'invalid interval {interval!r}: it must be a number of seconds from '
                             f'{_INTERVAL_MIN} to {_INTERVAL_MAX:g}')
        if pid is not None and (isinstance(pid, bool) or not isinstance(pid, int) or pid <= 0):
            raise ValueError(f'invalid pid {pid!r}: a process ID is a positive integer')
        if method not in _METHODS:
            raise ValueError(f'invalid method {method!r}; valid: None, "fork", "spawn", "forkserver"')
        self.pid = os.getpid() if pid is None else pid
        self.children = bool(children)
        self.interval = interval
        self.method = method
        self.autostart = autostart
        self.trackers = []
        if track_processes:
            self.trackers.append('process_tracker')
        if track_system:
            self.trackers.append('system_tracker')
        self.discover_server = discover_server
        self.discover_cloud = discover_cloud
        self.start_time: Optional[float] = None
        self._native = None
        self._loaded: Optional[Dict[str, Any]] = None  # a snapshot's parts, for from_snapshot()
        self._rows: Dict[int, list] = {_PROCESS: [], _SYSTEM: []}
        # the rows are read on from the library by whichever thread asks
        # (the user's, a 0.5.0 tracker's streaming thread): one at a time,
        # or two would both append the same new rows
        self._rows_lock = threading.Lock()
        if autostart:
            self.start()

    # ---- running ----------------------------------------------------------

    def start(self) -> None:
        """Starts tracking: the first row comes one interval after the next
        whole multiple of interval (at least 50 ms away)."""
        if self.running:
            raise RuntimeError('Resource tracker already running, cannot start again.')
        if hasattr(self, 'stop_time'):
            raise RuntimeError(
                'Resource tracker already stopped. Create a new instance instead of trying to restart it.')
        series = (1 if 'process_tracker' in self.trackers else 0) | (2 if 'system_tracker' in self.trackers else 0)
        self._started = time.time()  # the report's duration runs from here, as resource_tracker's
        self._native = _native.Tracker(
            sleep_time=float(self.interval), process_id=0 if self.pid == os.getpid() else self.pid,
            resource_usage_file='', series=series, main_only=not self.children, start_at=_START_ALIGNED,
            discover_cloud=bool(self.discover_cloud), metadata_url=os.environ.get('GPU_TRACKER_METADATA_URL'))
        self._native.start()
        self.start_time = self._native.start_epoch()
        self.stop_time = None
        self._log_warnings()

    def stop(self) -> None:
        """Stops tracking; the metrics stay readable."""
        if not self.running:
            raise RuntimeError('Resource tracker is not running: start() it first'
                               if not hasattr(self, 'stop_time') else 'Resource tracker already stopped.')
        self.stop_time = time.time()
        self._native.stop()
        self._log_warnings()
        log.debug('Resource tracker stopped after %s seconds, logging %d process-level and %d system-wide records',
                  self.stop_time - self.start_time, len(self.process_metrics), len(self.system_metrics))

    def cleanup(self) -> None:
        """Stops tracking if it still runs, never raising (resource_tracker
        0.4.2 and later: its temporary files and background processes go
        too). There is nothing else to clean here: the rows are kept in the
        library's unlinked file, freed with the tracker, and no process was
        started; the metrics stay readable."""
        with contextlib.suppress(Exception):
            if self.running:
                self.stop()

    def _log_warnings(self) -> None:
        for message in self._native.take_warnings():
            log.warning(message)

    @property
    def running(self) -> bool:
        """True between start() and stop()."""
        return hasattr(self, 'stop_time') and self.stop_time is None

    def __enter__(self):
        if not self.running:
            self.start()
        return self

    def __exit__(self, *exc):
        if self.running:
            self.stop()

    # ---- metrics ----------------------------------------------------------

    def _table(self, kind: int) -> MetricsTable:
        columns = PROCESS_COLUMNS if kind == _PROCESS else SYSTEM_COLUMNS
        if self._loaded is not None:  # a snapshot's rows: a column of 8-byte values each
            return self._table_class._from_columns(columns, self._loaded['columns'][kind])
        rows = self._rows[kind]
        if self._native is not None:
            with self._rows_lock:
                rows.extend(self._native.rows(kind, len(rows)))
        return self._table_class._from_rows(columns, rows)

    @property
    def process_metrics(self) -> MetricsTable:
        """The process tree's rows so far (readable while tracking)."""
        if 'process_tracker' not in self.trackers:
            return self._table_class(data=[])
        return self._table(_PROCESS)

    @property
    def system_metrics(self) -> MetricsTable:
        """The system's rows so far (readable while tracking)."""
        if 'system_tracker' not in self.trackers:
            return self._table_class(data=[])
        return self._table(_SYSTEM)

    @property
    def n_samples(self) -> int:
        """Rows collected (of the tracked series: the fewer of the two)."""
        counts = []
        if 'process_tracker' in self.trackers:
            counts.append(len(self.process_metrics))
        if 'system_tracker' in self.trackers:
            counts.append(len(self.system_metrics))
        return min(counts) if counts else 0

    def wait_for_samples(self, n: int = 1, timeout: float = 5) -> None:
        """Waits until at least n rows are collected, at most timeout
        seconds; RuntimeError when they do not come."""
        if self.running:
            if self.n_samples >= n:
                return
            deadline = time.time() + timeout
            while self.n_samples < n:
                left = deadline - time.time()
                if left <= 0:
                    raise RuntimeError(f'Timed out waiting for resource tracker to collect {n} samples')
                self._native.wait_rows(n, min(left, 1.0))  # without the GIL
        elif self.n_samples < n:
            raise RuntimeError(
                f'Resource tracker has been already stopped with {self.n_samples} sample(s), '
                f'cannot wait to collect the requested {n} sample(s).')

    def get_combined_metrics(self, bytes: bool = False, human_names: bool = False,
                             system_prefix: Optional[str] = None,
                             process_prefix: Optional[str] = None) -> MetricsTable:
        """Both series bound side by side by row (cut to the shorter), the
        columns prefixed (and renamed for people with human_names, or
        converted to bytes with bytes)."""
        process = self.process_metrics
        system = self.system_metrics
        n = min(len(process), len(system))
        if n == 0:
            return self._table_class(data=[])
        if len(process) != n:
            process = process[:n]
        if len(system) != n:
            system = system[:n]
        if bytes:
            for table in (system, process):
                for col, factor in self._byte_mapping.items():
                    if col in table.columns:
                        table[col] = [v * factor for v in table[col]]
        if system_prefix is None:
            system_prefix = 'System ' if human_names else 'system_'
        if process_prefix is None:
            process_prefix = 'Process ' if human_names else 'process_'

        def name(col):
            return self._human_names.get(col, col) if human_names else col

        # The columns themselves, not copies: a loaded snapshot's are arrays
        # of 8-byte values, which a list of Python numbers would make 4
        # times larger (a million rows: 1 GB).
        columns = [(system_prefix if col != 'timestamp' else '') + name(col) for col in system.columns]
        columns += [process_prefix + name(col) for col in process.columns[1:]]
        return self._table_class._from_columns(columns, system._raw_columns() + process._raw_columns()[1:])

    def stats(self, specs: Optional[List[StatSpec]] = None) -> dict:
        """Statistics of the combined metrics ({column: {agg: value}}); the
        duration counts one interval more than the rows span (the
        baseline's), as resource_tracker's. specs: resource_tracker's
        default ones when None."""
        if specs is None:
            specs = self._default_stats_specs
        if self.n_samples == 0:
            raise RuntimeError('No metrics collected (yet)')
        if specs is DEFAULT_STATS_SPECS and self._default_stats_specs is DEFAULT_STATS_SPECS and \
                {'process_tracker', 'system_tracker'} <= set(self.trackers):
            # resource_tracker's own statistics are the library's (those of
            # `gpu-tracker stats` and the report), from the rows where they
            # are, duration included; specs of a user's are applied here.
            if self._loaded is not None:
                return _native.snapshot_stats(self._loaded['snapshot'])
            return self._native.stats()
        stats = self.get_combined_metrics().stats(specs)
        if 'duration' in stats.get('timestamp', {}):
            stats['timestamp']['duration'] += self.interval
        return stats

    def recommend_resources(self, historical_stats: List[dict] = []) -> dict:
        """What to ask for next time: {'cpu', 'memory' (MiB), 'gpu', 'vram'
        (MiB)}, by resource_tracker's rules (mean CPU, peak memory + 20 %,
        ...), computed by the library as `gpu-tracker recommend` does."""
        self.wait_for_samples(n=1, timeout=self.interval * 5)
        stats = self.stats()
        if historical_stats:
            stats = aggregate_stats([stats] + list(historical_stats))
        return _native.recommend(stats['process_cpu_usage']['mean'],
                                 stats[self._memory_stat]['max'] * self._memory_stat_kb,
                                 stats['process_gpu_usage']['mean'], stats['process_gpu_usage']['max'],
                                 stats[self._vram_stat]['max'])

    def recommend_server(self, **kwargs) -> dict:
        """The cheapest cloud server with the recommended resources, from
        the Spare Cores Keeper API (GPU_TRACKER_KEEPER_URL to ask another
        address). OSError when it cannot be reached."""
        historical_stats = kwargs.pop('historical_stats', [])
        if kwargs:
            raise ValueError(f'unsupported filters {", ".join(sorted(kwargs))}: this tracker asks the Keeper '
                             'API by resources only (historical_stats is the one keyword taken)')
        rec = self.recommend_resources(historical_stats=historical_stats)
        answer = _native.recommend_server(rec['cpu'], rec['memory'], rec['gpu'], rec['vram'],
                                          os.environ.get('GPU_TRACKER_KEEPER_URL'))
        return json.loads(answer)

    _integrations = ('standalone', 'metaflow')  # resource_tracker 0.4's Literal

    def report(self, integration: str = 'standalone', historical_stats: List[dict] = [],
               status_failed: bool = False, server: bool = False) -> Report:
        """The run's HTML report (a str, self-contained: inline in Jupyter,
        save(), browse()) with resource_tracker's status badge: Pending
        while tracking, Finished once stopped, Failed with status_failed.
        Its "Process CPU usage" and "System CPU usage" charts, the
        recommended resources and the cheapest matching cloud server with
        server (from the Keeper API; where it cannot be asked, or server is
        False, the section says why not); its duration runs from start() to
        stop(). integration is taken as resource_tracker takes it;
        historical_stats shape the recommendation only through
        recommend_resources()."""
        if integration not in self._integrations:
            raise ValueError(f'invalid integration {integration!r}; valid: '
                             + ', '.join(f'"{name}"' for name in self._integrations))
        self.wait_for_samples(n=1, timeout=self.interval * 5)
        # The cheapest-server section is always there: the server, or why not.
        if not server:
            server_doc = {'unavailable': 'not asked for (report(server=True) asks the Spare Cores Keeper API)'}
        else:
            try:
                server_doc = self.recommend_server(historical_stats=historical_stats)
            except OSError as error:
                server_doc = {'unavailable': f'the Spare Cores Keeper API could not be asked: {error}'}
        server_json = json.dumps(server_doc)
        if self._native is not None:
            # from start() to stop() (or to now), not over the rows alone
            end = self.stop_time if self.stop_time is not None else time.time()
            html = self._native.snapshot_text(_REPORT, server_json, max(end - self._started, 0.0))
        else:
            # From the snapshot the library read: nothing is read or built again.
            html = _native.snapshot_report(self._loaded['snapshot'], server_json)
        status = 'Failed' if status_failed else 'Pending' if self.running else 'Finished'
        return Report(_with_status(html, status))

    # ---- what ran where -----------------------------------------------------

    @property
    def server_info(self) -> Optional[dict]:
        """The machine (resource_tracker's keys, its 0.4 names, and ours),
        with "allocation": dedicated or shared, judged from the rows."""
        if self._loaded is not None:
            return self._loaded['server_info']
        if not self.discover_server or self._native is None:
            return None
        info = self._native.server_info()
        names = info['gpu_names']
        # resource_tracker's gpu_name: the most common name ("" without GPUs)
        info['gpu_name'] = max(names, key=names.count) if names else ''
        return info

    @property
    def cloud_info(self) -> Optional[dict]:
        """The cloud instance (vendor, instance_type, region,
        discovery_time), or None while it is being discovered (or when
        discover_cloud is off)."""
        if self._loaded is not None:
            return self._loaded['cloud_info']
        if self._native is None:
            return None
        return self._native.cloud_info(0.0)

    # ---- snapshots ----------------------------------------------------------

    def snapshot(self) -> dict:
        """The tracker as a dict in resource_tracker's snapshot format (its
        0.4 shape: memory in kB), which its ResourceTracker.from_snapshot()
        loads."""
        if self._native is None and self._loaded is None:
            raise RuntimeError('No snapshot: the tracker has not been started')
        if self._native is not None:
            snap = json.loads(self._native.snapshot_text(self._snapshot_format, None))
            snap['server_info'] = self.server_info
            snap['cloud_info'] = self.cloud_info
            if 'process_tracker' not in self.trackers:
                snap['process_metrics'] = []
            if 'system_tracker' not in self.trackers:
                snap['system_metrics'] = []
        else:
            snap = copy.deepcopy(self._loaded['document'])
            snap['process_metrics'] = self._table(_PROCESS).to_dict()
            snap['system_metrics'] = self._table(_SYSTEM).to_dict()
        stop = self.stop_time or time.time()
        snap['metadata'].update({
            'pid': self.pid, 'children': self.children, 'interval': self.interval, 'method': self.method,
            'autostart': self.autostart, 'track_processes': 'process_tracker' in self.trackers,
            'track_system': 'system_tracker' in self.trackers, 'discover_server': self.discover_server,
            'discover_cloud': self.discover_cloud, 'start_time': self.start_time, 'stop_time': stop,
            'duration': round(stop - self.start_time + self.interval, 2)})
        return snap

    @classmethod
    def from_snapshot(cls, snapshot: dict, max_rows: int = 0) -> 'ResourceTracker':
        """A stopped tracker holding a snapshot's data: resource_tracker's
        (its 0.4 or 0.5 shape) or gpu-tracker's own. ValueError naming the
        first problem when it is not one. max_rows: as for load()."""
        return cls._from_bytes(json.dumps(snapshot).encode(), snapshot.get('metadata'), max_rows)

    @classmethod
    def _from_bytes(cls, data, metadata: Optional[dict] = None, max_rows: int = 0) -> 'ResourceTracker':
        # data: the document's bytes, or a file's path (str). The library
        # reads and checks it (bounded, every value in range) and gives back
        # its metadata in one shape, resource_tracker 0.4's, and its rows as
        # columns of 8-byte values: no row becomes JSON or a Python object
        # (a snapshot of a million rows took 2.35 GB and 45 s that way). How
        # the original tracker was set up (method, autostart, track_*,
        # discover_*) comes from the caller's dict when there is one
        # (from_snapshot); a file is never parsed a second time, here
        # without bounds.
        from array import array
        text, process, system, snapshot = _native.snapshot_load(data, max_rows)
        doc = json.loads(text)

        def columns(pairs):
            # Each column's bytes are let go once copied: at most one column
            # is held twice.
            out = []
            pairs.reverse()
            while pairs:
                typecode, raw = pairs.pop()
                column = array(typecode)
                column.frombytes(raw)
                del raw
                out.append(column)
            return out
        got = doc['metadata']
        meta = metadata if isinstance(metadata, dict) else {}
        tracker = cls(pid=got['pid'] or None, children=got['children'],
                      interval=got['interval'], method=meta.get('method') if meta.get('method') in _METHODS else None,
                      autostart=False, track_processes=meta.get('track_processes', True) is not False,
                      track_system=meta.get('track_system', True) is not False,
                      discover_server=meta.get('discover_server', True) is not False,
                      discover_cloud=meta.get('discover_cloud', got['discover_cloud']) is not False)
        tracker.start_time = got['start_time']
        tracker.stop_time = got['stop_time']
        kept = {_PROCESS: columns(process), _SYSTEM: columns(system)}
        tracker._loaded = {'document': doc, 'server_info': doc['server_info'], 'cloud_info': doc['cloud_info'],
                           'snapshot': snapshot, 'columns': kept}
        return tracker

    def dumps(self) -> str:
        """snapshot() as JSON text."""
        return json.dumps(self.snapshot())

    @classmethod
    def loads(cls, s: str, max_rows: int = 0) -> 'ResourceTracker':
        """from_snapshot() of JSON text."""
        return cls._from_bytes(s.encode(), None, max_rows)

    def dump(self, file: str) -> None:
        """snapshot() as gzipped JSON in file (what resource_tracker's load() reads)."""
        import gzip
        with gzip.open(file, 'wb') as f:
            f.write(self.dumps().encode())

    @classmethod
    def load(cls, file: str, max_rows: int = 0) -> 'ResourceTracker':
        """A tracker from a snapshot file: resource_tracker's dump() (gzipped
        or not, 0.4 or 0.5) or gpu-tracker's --snapshot. Read by the library
        as `gpu-tracker stats` reads one (a regular file, its size bounded,
        at most max_rows rows a series: 0, the default, is a million, as
        `stats`): OSError when it cannot be, ValueError naming the first
        problem. Its rows are kept as columns of 8-byte values: a million
        rows of both series take about 260 MB."""
        return cls._from_bytes(os.fspath(file), None, max_rows)
