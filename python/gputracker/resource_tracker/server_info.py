"""resource_tracker 0.5.0's ``resource_tracker.server_info``:
get_server_info(), read by libgputracker as a tracker reads it."""
from __future__ import annotations

from collections import Counter

from .. import _native


def get_server_info() -> dict:
    """The machine, with 0.5.0's keys: os ("Linux"), vcpus, memory_mib,
    gpu_count, gpu_names, gpu_name (the most common, "" without GPUs),
    gpu_memory_mib. Read through a tracker started for the moment (no
    sample kept, nothing written)."""
    probe = _native.Tracker(sleep_time=86400.0, resource_usage_file='', series=0)
    probe.start()
    try:
        info = probe.server_info()
    finally:
        probe.stop()
    names = list(info.get('gpu_names') or [])
    return {
        'os': info['os'],
        'vcpus': info['vcpus'],
        'memory_mib': info['memory_mb'],
        'gpu_count': info['gpu_count'],
        'gpu_names': names,
        'gpu_name': Counter(names).most_common(1)[0][0] if names else '',
        'gpu_memory_mib': info['gpu_memory_mb'],
    }
