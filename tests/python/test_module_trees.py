"""The originals' module trees: code that imports gpu_tracker 5.0.1's or
resource_tracker 0.5.0's submodules runs with only its import line changed
(gpu_tracker: __init__, tracker, sub_tracker, python -m gpu_tracker;
resource_tracker: __init__'s __all__, tracker, tiny_data_frame,
server_info, cloud_info, helpers, report, column_maps)."""
import subprocess
import sys

import gputracker


def test_gpu_tracker_tree():
    import gputracker.gpu_tracker as gpu_tracker
    from gputracker.gpu_tracker import sub_tracker, tracker
    # gpu_tracker/__init__.py 5.0.1
    for name in ('Tracker', 'SubTracker', 'sub_track', 'SubTrackingAnalyzer', 'TrackingComparison'):
        assert getattr(gpu_tracker, name) is getattr(gputracker, name)
    # the gpu_tracker release it mirrors, as gpu_tracker's users test it; ours apart
    assert gpu_tracker.__version__ == '5.0.1'
    assert gputracker.__version__ != gpu_tracker.__version__
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
    # server_info.py 0.5.0's other two, with its keys and rounding
    with open('/proc/meminfo') as f:
        total_kib = next(int(line.split()[1]) for line in f if line.startswith('MemTotal:'))
    assert server_info.get_total_memory_mib() == round(total_kib / 1024, 2)
    gpus = server_info.get_gpu_info()
    assert set(gpus) == {'count', 'memory_mib', 'gpu_names'} and gpus['count'] == len(gpus['gpu_names'])
    assert gpus['count'] == server_info.get_server_info()['gpu_count']
    # tiny_data_frame.py imports csv's DictReader (0.5.0's tests patch it there)
    import csv
    assert tiny_data_frame.DictReader is csv.DictReader
    # dummy_workloads.py 0.5.0, used in its docstring examples
    from gputracker.resource_tracker import dummy_workloads
    import time
    start = time.time()
    assert dummy_workloads.cpu_single(0.05) is None
    assert time.time() - start >= 0.05  # it runs until then, however fast the machine
    assert dummy_workloads.cpu_multi(0.05, 2) is None


def test_cleanup_on_both_surfaces():
    """ResourceTracker.cleanup() (resource_tracker 0.4.2 on): stops a running
    tracker, never raises, and may be called again."""
    import gputracker.resource_tracker as resource_tracker
    for cls in (gputracker.ResourceTracker, resource_tracker.ResourceTracker):
        tracker = cls(interval=0.1, autostart=True, discover_server=False, discover_cloud=False)
        assert tracker.running
        tracker.cleanup()
        assert not tracker.running
        tracker.cleanup()


def test_resource_tracker_helpers_report_and_column_maps(tmp_path):
    from gputracker.resource_tracker import column_maps, helpers, report, tracker
    import pytest
    # report.py 0.5.0: Report is the report's class; round_memory's docstring
    # examples and its GiB rounding above 2048 MiB.
    assert report.Report is tracker.Report
    assert [report.round_memory(m) for m in (68, 128, 129, 896, 2048, 2049, 3863, 4096)] == \
        [128, 128, 256, 1024, 2048, 3072, 4096, 4096]
    # helpers.py 0.5.0: aggregate_stats' docstring example, its ValueError,
    # render_csv_row's quoting, is_partition on names with no /sys/block parent.
    stats1 = {'cpu_usage': {'mean': 1.5, 'max': 2.0}, 'memory': {'mean': 100, 'max': 150}}
    stats2 = {'cpu_usage': {'mean': 2.5, 'max': 3.0}, 'memory': {'mean': 200, 'max': 250}}
    assert helpers.aggregate_stats([stats1, stats2]) == \
        {'cpu_usage': {'max': 3.0, 'mean': 2.0}, 'memory': {'max': 250, 'mean': 150.0}}
    with pytest.raises(ValueError, match='Unsupported aggregation type: min'):
        helpers.aggregate_stats([{'x': {'min': 1}}])
    assert helpers.render_csv_row(['a', 1, 2.5, None]) == b'"a",1,2.5,""\n'
    assert not helpers.is_partition('notadisk')
    assert not helpers.is_partition('sdzz9')  # no sdzz in /sys/block
    assert helpers.is_procfs_available()
    files = [tmp_path / 'a', tmp_path / 'b']
    files[0].write_text('x')
    helpers.cleanup_files([str(f) for f in files])  # b is missing: no error
    assert not files[0].exists()
    assert isinstance(helpers.get_zfs_pools_space(), dict)
    # get_tracker_implementation(): tests/python/test_resource_tracker_readers.py
    # column_maps.py 0.5.0: the tracker converts with these very maps.
    assert column_maps.BYTE_MAPPING['memory_mib'] == 1024 * 1024
    assert column_maps.BYTE_MAPPING['disk_space_used_gb'] == 1000 ** 3
    assert column_maps.HUMAN_NAMES_MAPPING['gpu_vram_mib'] == 'VRAM used'
    assert tracker.ResourceTracker._byte_mapping is column_maps.BYTE_MAPPING
    assert tracker.ResourceTracker._human_names is column_maps.HUMAN_NAMES_MAPPING
    assert [c['process_column'] for c in column_maps.SERVER_ALLOCATION_CHECKS] == \
        ['cpu_usage', 'memory_mib', 'gpu_usage', 'gpu_vram_mib']
    assert column_maps.REPORT_CSV_MAPPING['mem'] == ['Timestamp', 'Process memory usage', 'System used memory']


def _package_imports():
    """{module: set of the package's modules it imports}, from every import
    statement of the installed package's sources (at load time or inside a
    function alike: a lazy import closes a circle too)."""
    import ast
    import pathlib
    root = pathlib.Path(gputracker.__file__).parent
    graph = {}
    for path in root.rglob('*.py'):
        parts = list(path.relative_to(root.parent).with_suffix('').parts)
        package = parts if parts[-1] == '__init__' else parts[:-1]
        if parts[-1] == '__init__':
            parts, package = parts[:-1], parts[:-1]
        name = '.'.join(parts)
        targets = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = package[:len(package) - node.level + 1]
                stem = base + (node.module.split('.') if node.module else [])
                for alias in node.names:
                    # `from . import _native` names a module (the C
                    # extension, which imports none of ours);
                    # `from .x import name` names module x
                    sub = '.'.join(stem + [alias.name])
                    if not (root.parent / sub.replace('.', '/')).with_suffix('.so').exists() and \
                            alias.name != '_native':
                        py = (root.parent / sub.replace('.', '/')).with_suffix('.py').exists()
                        targets.add(sub if py else '.'.join(stem))
            elif isinstance(node, ast.Import):
                targets.update(a.name for a in node.names if a.name.startswith('gputracker'))
        graph[name] = {t for t in targets if t != name}
    return graph


def test_no_import_circle():
    """No module of the package imports, through others, one that imports it
    (a package importing its own submodules is not a circle)."""
    graph = _package_imports()
    assert 'gputracker.resource_tracker.helpers' in graph

    def reach(start):
        seen, todo = set(), [start]
        while todo:
            for nxt in graph.get(todo.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    todo.append(nxt)
        return seen

    circles = [(a, b) for a in graph for b in graph[a]
               if a in reach(b) and not b.startswith(a + '.') and not a.startswith(b + '.')]
    assert not circles, circles
