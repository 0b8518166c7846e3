"""resource_tracker 0.5.0's column_maps: the names and units of its columns
(values as its column_maps.py gives them; the tracker reads them from here)."""

# Column name -> the name shown in tables and charts.
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

# Column name -> the factor that makes its values bytes (MiB; disk space in
# decimal GB).
BYTE_MAPPING = {
    **{name: 1024 * 1024 for name in ('memory_mib', 'memory_free_mib', 'memory_used_mib', 'memory_buffers_mib',
                                      'memory_cached_mib', 'memory_active_mib', 'memory_inactive_mib',
                                      'gpu_vram_mib')},
    **{name: 1000 ** 3 for name in ('disk_space_total_gb', 'disk_space_used_gb', 'disk_space_free_gb')},
}

# When the server counts as the tracked processes' own: the process column
# within `percent` times, or `absolute` of, the system column.
SERVER_ALLOCATION_CHECKS = [
    {'process_column': 'cpu_usage', 'system_column': 'cpu_usage', 'percent': 1.25, 'absolute': 0.25},
    {'process_column': 'memory_mib', 'system_column': 'memory_used_mib', 'percent': 1.5,
     'absolute': 512 * 1024},
    {'process_column': 'gpu_usage', 'system_column': 'gpu_usage', 'percent': 1.25, 'absolute': 0.2},
    {'process_column': 'gpu_vram_mib', 'system_column': 'gpu_vram_mib', 'percent': 1.25, 'absolute': 512},
]

# The columns of each chart of the HTML report.
REPORT_CSV_MAPPING = {
    'cpu': ['Timestamp', 'Process CPU usage', 'System CPU usage'],
    'mem': ['Timestamp', 'Process memory usage', 'System used memory'],
    'disk': ['Timestamp', 'Process disk read', 'System disk read', 'Process disk write', 'System disk write'],
    'disk_space': ['Timestamp', 'System disk space used'],
    'net': ['Timestamp', 'System inbound network traffic', 'System outbound network traffic'],
    'gpu_usage': ['Timestamp', 'Process GPU usage', 'System GPU usage'],
    'gpu_utilized': ['Timestamp', 'Process GPUs in use', 'System GPUs in use'],
    'gpu_vram_mib': ['Timestamp', 'Process VRAM used', 'System VRAM used'],
}
