"""resource_tracker 0.5.0's ``resource_tracker.tracker``: its
ResourceTracker, on the same library as gputracker.ResourceTracker (0.4),
with 0.5.0's defaults, names and units and its snapshot shape."""
from __future__ import annotations

from array import array
from statistics import mean
from typing import Dict, List, Optional, Tuple

from .._metrics import MetricsTable
from .._resource_tracker import _PROCESS, Report, ResourceTracker as _ResourceTracker04
from .tiny_data_frame import StatSpec, TinyDataFrame

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

# resource_tracker 0.5.0's column_maps.py.
HUMAN_NAMES_MAPPING = {
    'timestamp': 'Timestamp', 'processes': 'processes', 'utime': 'CPU time (user)',
    'stime': 'CPU time (system)', 'cpu_usage': 'CPU usage', 'memory_free_mib': 'free memory',
    'memory_used_mib': 'used memory', 'memory_buffers_mib': 'memory buffers',
    'memory_cached_mib': 'memory page/file cached', 'memory_active_mib': 'active memory',
    'memory_inactive_mib': 'inactive memory', 'disk_read_bytes': 'disk read', 'disk_write_bytes': 'disk write',
    'disk_space_total_gb': 'disk space total', 'disk_space_used_gb': 'disk space used',
    'disk_space_free_gb': 'disk space free', 'net_recv_bytes': 'inbound network traffic',
    'net_sent_bytes': 'outbound network traffic', 'gpu_usage': 'GPU usage', 'gpu_vram_mib': 'VRAM used',
    'gpu_utilized': 'GPUs in use', 'pid': 'PID', 'children': 'children', 'memory_mib': 'memory usage',
}
BYTE_MAPPING = {
    **{name: 1024 * 1024 for name in ('memory_mib', 'memory_free_mib', 'memory_used_mib', 'memory_buffers_mib',
                                      'memory_cached_mib', 'memory_active_mib', 'memory_inactive_mib',
                                      'gpu_vram_mib')},
    **{name: 1000 ** 3 for name in ('disk_space_total_gb', 'disk_space_used_gb', 'disk_space_free_gb')},
}

DEFAULT_STATS_SPECS = [
    StatSpec(column='process_cpu_usage', agg=mean, round=2),
    StatSpec(column='process_cpu_usage', agg=max, round=2),
    StatSpec(column='process_memory_mib', agg=mean, round=2),
    StatSpec(column='process_memory_mib', agg=max, round=2),
    StatSpec(column='process_gpu_usage', agg=mean, round=2),
    StatSpec(column='process_gpu_usage', agg=max, round=2),
    StatSpec(column='process_gpu_vram_mib', agg=mean, round=2),
    StatSpec(column='process_gpu_vram_mib', agg=max, round=2),
    StatSpec(column='process_gpu_utilized', agg=mean, round=2),
    StatSpec(column='process_gpu_utilized', agg=max, round=2),
    StatSpec(column='system_disk_space_used_gb', agg=max, round=2),
    StatSpec(column='system_net_recv_bytes', agg=sum),
    StatSpec(column='system_net_sent_bytes', agg=sum),
    StatSpec(column='timestamp', agg=lambda x: max(x) - min(x), agg_name='duration'),
]


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

    Where it differs from resource_tracker 0.5.0 on purpose: the sampling
    runs in libgputracker's thread (method is accepted and ignored); the
    Sentinel API streaming (sentinel_token, upload_interval,
    streaming_metadata) is accepted and not done, so sentinel_result stays
    None; recommend_resources() takes the memory peak in MiB as it is
    (0.5.0 divides the MiB column by 1024 once more, asking for its
    128 MiB floor for any job under about 100 GiB)."""

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
        self._sentinel_token = sentinel_token
        self._upload_interval = upload_interval
        self._streaming_metadata = streaming_metadata
        self._sentinel_result: Optional[dict] = None
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
        # 0.5.0: a with block starts a tracker that was not started
        if not self.running:
            self.start()
        self.autostart = True
        return self

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
        """The Sentinel API's answer: None (no streaming here)."""
        return self._sentinel_result
