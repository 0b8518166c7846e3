"""resource_tracker 0.5.0 over libgputracker: ``import
gputracker.resource_tracker as resource_tracker`` in code written for
resource_tracker 0.5.0 (the version pip installs today) and the rest stays:
``ResourceTracker`` does not start until ``start()`` (autostart=False), its
rows have 0.5's names and units (``memory_mib``, ``gpu_vram_mib``,
``disk_read_bytes``, system ``memory_used_mib``; disk space in decimal GB),
``stats()`` and ``server_info`` use them, and ``dump()``/``snapshot()``
write 0.5's shape, which resource_tracker 0.5 loads.

``gputracker.ResourceTracker`` stays resource_tracker 0.4 as the reference
docs describe it (README, "Python", says which import gives which)."""
from .._metrics import aggregate_stats
from .._resource_tracker import Report
from .cloud_info import get_cloud_info
from .server_info import get_server_info
from .tiny_data_frame import StatSpec, TinyDataFrame
from .tracker import ProcessTracker, ResourceTracker, SystemTracker

__all__ = ['ProcessTracker', 'SystemTracker', 'ResourceTracker', 'get_cloud_info', 'get_server_info', 'Report', 'TinyDataFrame', 'StatSpec',
           'aggregate_stats']
