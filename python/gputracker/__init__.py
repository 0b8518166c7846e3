"""gputracker: what a job really used (RAM, GPU RAM, CPU and GPU utilization,
threads, time), measured by libgputracker in its own thread.

``gputracker.Tracker`` is gpu_tracker's ``Tracker`` and
``gputracker.ResourceTracker`` resource_tracker's ``ResourceTracker``: change
the import line and keep the rest. In IPython, ``%load_ext gputracker`` adds
the ``%%track`` cell magic."""
from ._magic import load_ipython_extension
from ._metrics import MetricsTable, StatSpec, aggregate_stats
from ._native import version as _version
from ._resource_tracker import Report, ResourceTracker
from ._tracker import Tracker
from ._usage import (ComputeTime, CPUUtilization, GPUUtilization, MaxGPURAM, MaxRAM, ProcessingUnitPercentages,
                     ResourceUsage, RSSValues)

__version__ = _version()

__all__ = ['Tracker', 'ResourceUsage', 'MaxRAM', 'MaxGPURAM', 'RSSValues', 'CPUUtilization', 'GPUUtilization',
           'ProcessingUnitPercentages', 'ComputeTime', 'ResourceTracker', 'MetricsTable', 'StatSpec', 'Report',
           'aggregate_stats', 'load_ipython_extension']
