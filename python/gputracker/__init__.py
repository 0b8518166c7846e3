"""gputracker: what a job really used (RAM, GPU RAM, CPU and GPU utilization,
threads, time), measured by libgputracker in its own thread.

``gputracker.Tracker`` is gpu_tracker's ``Tracker`` (with gpu_tracker 5's
``SubTracker`` and ``sub_track`` to mark code blocks) and
``gputracker.ResourceTracker`` resource_tracker's ``ResourceTracker``: change
the import line and keep the rest. In IPython, ``%load_ext gputracker`` adds
the ``%%track`` cell magic."""
from ._native import version as _version
from ._sub_tracker import SubTracker, sub_track
from ._tracker import Tracker
from ._usage import (ComputeTime, CPUUtilization, GPUUtilization, MaxGPURAM, MaxRAM, ProcessingUnitPercentages,
                     ResourceUsage, RSSValues)

__version__ = _version()

__all__ = ['Tracker', 'SubTracker', 'sub_track', 'ResourceUsage', 'MaxRAM', 'MaxGPURAM', 'RSSValues', 'CPUUtilization', 'GPUUtilization',
           'ProcessingUnitPercentages', 'ComputeTime', 'ResourceTracker', 'MetricsTable', 'StatSpec', 'Report',
           'aggregate_stats', 'load_ipython_extension', 'SubTrackingAnalyzer', 'TrackingComparison',
           'SubTrackingResults', 'CodeBlockResults', 'ComparisonResults']

# resource_tracker's side (and what it imports: statistics, csv, typing, ...)
# loads when first named, so that `import gputracker` for a Tracker costs a
# script little (the benchmark's Python table measures it).
_LAZY = {'ResourceTracker': '_resource_tracker', 'Report': '_resource_tracker', 'MetricsTable': '_metrics',
         'StatSpec': '_metrics', 'aggregate_stats': '_metrics', 'SubTrackingAnalyzer': '_sub_tracking_analysis',
         'TrackingComparison': '_sub_tracking_analysis', 'SubTrackingResults': '_sub_tracking_analysis',
         'CodeBlockResults': '_sub_tracking_analysis', 'ComparisonResults': '_sub_tracking_analysis'}


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f'module {__name__!r} has no attribute {name!r}')
    import importlib
    value = getattr(importlib.import_module('.' + module, __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))


def load_ipython_extension(ipython) -> None:
    """Registers the %%track cell magic (called by `%load_ext gputracker`)."""
    from ._magic import load_ipython_extension as load
    load(ipython)
