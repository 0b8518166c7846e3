"""The originals' module trees: code that imports gpu_tracker 5.0.1's or
resource_tracker 0.5.0's submodules runs with only its import line changed
(gpu_tracker: __init__, tracker, sub_tracker, python -m gpu_tracker;
resource_tracker: __init__'s __all__, tracker, tiny_data_frame,
server_info, cloud_info)."""
import subprocess
import sys

import gputracker


def test_gpu_tracker_tree():
    import gputracker.gpu_tracker as gpu_tracker
    from gputracker.gpu_tracker import sub_tracker, tracker
    # gpu_tracker/__init__.py 5.0.1
    for name in ('Tracker', 'SubTracker', 'sub_track', 'SubTrackingAnalyzer', 'TrackingComparison'):
        assert getattr(gpu_tracker, name) is getattr(gputracker, name)
    assert gpu_tracker.__version__ == gputracker.__version__
    # tracker.py 5.0.1's public classes
    for name in ('Tracker', 'RSSValues', 'MaxRAM', 'MaxGPURAM', 'ProcessingUnitPercentages', 'CPUUtilization',
                 'GPUUtilization', 'ComputeTime', 'ResourceUsage'):
        assert getattr(tracker, name) is getattr(gputracker, name)
    # sub_tracker.py 5.0.1's
    for name in ('SubTracker', 'sub_track', 'SubTrackingAnalyzer', 'TrackingComparison', 'CodeBlockResults',
                 'SubTrackingResults', 'ComparisonResults'):
        assert getattr(sub_tracker, name) is getattr(gputracker, name)
    with tracker.Tracker(sleep_time=0.1, disable_logs=True) as t:
        pass
    assert t.resource_usage.max_ram.unit == 'gigabytes'
    run = subprocess.run([sys.executable, '-m', 'gputracker.gpu_tracker', '--version'], capture_output=True,
                         text=True)
    assert run.returncode == 0 and run.stdout.startswith('gpu-tracker '), run.stderr


def test_resource_tracker_tree():
    import gputracker.resource_tracker as resource_tracker
    from gputracker.resource_tracker import cloud_info, server_info, tiny_data_frame, tracker
    # resource_tracker/__init__.py 0.5.0's __all__
    for name in ('ProcessTracker', 'SystemTracker', 'ResourceTracker', 'get_cloud_info', 'get_server_info'):
        assert name in resource_tracker.__all__ and getattr(resource_tracker, name)
    assert tracker.ResourceTracker is resource_tracker.ResourceTracker
    assert tiny_data_frame.TinyDataFrame is resource_tracker.TinyDataFrame
    assert server_info.get_server_info is resource_tracker.get_server_info
    assert cloud_info.get_cloud_info is resource_tracker.get_cloud_info
