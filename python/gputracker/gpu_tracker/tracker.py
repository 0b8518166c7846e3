"""gpu_tracker 5.0.1's ``gpu_tracker.tracker``: Tracker and the result
dataclasses (gputracker's, the same objects)."""
from .._tracker import Tracker
from .._usage import (ComputeTime, CPUUtilization, GPUUtilization, MaxGPURAM, MaxRAM, ProcessingUnitPercentages,
                      ResourceUsage, RSSValues)

__all__ = ['Tracker', 'ResourceUsage', 'MaxRAM', 'MaxGPURAM', 'RSSValues', 'CPUUtilization', 'GPUUtilization',
           'ProcessingUnitPercentages', 'ComputeTime']
