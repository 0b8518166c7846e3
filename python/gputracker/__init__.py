"""gputracker: what a job really used (RAM, GPU RAM, CPU and GPU utilization,
threads, time), measured by libgputracker in its own thread.

``gputracker.Tracker`` is gpu_tracker's ``Tracker``: change the import line
(``from gputracker import Tracker``) and keep the rest."""
from ._native import version as _version
from ._tracker import Tracker
from ._usage import (ComputeTime, CPUUtilization, GPUUtilization, MaxGPURAM, MaxRAM, ProcessingUnitPercentages,
                     ResourceUsage, RSSValues)

__version__ = _version()

__all__ = ['Tracker', 'ResourceUsage', 'MaxRAM', 'MaxGPURAM', 'RSSValues', 'CPUUtilization', 'GPUUtilization',
           'ProcessingUnitPercentages', 'ComputeTime']
