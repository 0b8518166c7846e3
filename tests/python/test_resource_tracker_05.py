"""gputracker.resource_tracker against resource_tracker 0.5.0 as its source
says (SpareCores/resource-tracker, tag v0.5.0, src/resource_tracker/):
created stopped, 0.5.0's column names and units, stats keys, server_info
keys, and a dump() that a reader written from 0.5.0's from_snapshot(),
stats() and recommend_resources() loads and uses. The top-level
gputracker.ResourceTracker stays 0.4 (the reference docs)."""
import gzip
import json
import os
from statistics import mean

import pytest

import gputracker
import gputracker.resource_tracker as resource_tracker
from gputracker.resource_tracker.tracker import ResourceTracker as TrackerModuleClass

# tracker.py ProcessTracker.diff_stats() and SystemTracker.diff_stats(), 0.5.0
PROCESS_05 = ['timestamp', 'pid', 'children', 'utime', 'stime', 'cpu_usage', 'memory_mib', 'disk_read_bytes',
              'disk_write_bytes', 'gpu_usage', 'gpu_vram_mib', 'gpu_utilized']
SYSTEM_05 = ['timestamp', 'processes', 'utime', 'stime', 'cpu_usage', 'memory_free_mib', 'memory_used_mib',
             'memory_buffers_mib', 'memory_cached_mib', 'memory_active_mib', 'memory_inactive_mib',
             'disk_read_bytes', 'disk_write_bytes', 'disk_space_total_gb', 'disk_space_used_gb',
             'disk_space_free_gb', 'net_recv_bytes', 'net_sent_bytes', 'gpu_usage', 'gpu_vram_mib',
             'gpu_utilized']
# tracker.py ResourceTracker.stats() default specs, 0.5.0
STATS_05 = {'process_cpu_usage': {'mean', 'max'}, 'process_memory_mib': {'mean', 'max'},
            'process_gpu_usage': {'mean', 'max'}, 'process_gpu_vram_mib': {'mean', 'max'},
            'process_gpu_utilized': {'mean', 'max'}, 'system_disk_space_used_gb': {'max'},
            'system_net_recv_bytes': {'sum'}, 'system_net_sent_bytes': {'sum'}, 'timestamp': {'duration'}}


def tracked(**kwargs):
    """A started 0.5 tracker with two rows of 8 MiB held (no cloud asked:
    tests talk to 127.0.0.1 only)."""
    kwargs.setdefault('discover_cloud', False)
    kwargs.setdefault('interval', 0.05)
    t = resource_tracker.ResourceTracker(**kwargs)
    t.start()
    hold = bytearray(8 * 2 ** 20)
    hold[::4096] = b'\x01' * len(hold[::4096])
    t.wait_for_samples(2)
    t.stop()
    return t


def test_created_stopped_as_0_5_0():
    # 0.5.0: autostart defaults to False; start() then works (0.4's started
    # on construction, and start() raised "already running").
    t = resource_tracker.ResourceTracker(discover_cloud=False, interval=0.05)
    assert t.autostart is False and not t.running
    t.start()
    assert t.running
    t.stop()
    assert TrackerModuleClass is resource_tracker.ResourceTracker
    # a with block starts it (0.5.0's __enter__), one already running raises
    with resource_tracker.ResourceTracker(discover_cloud=False, interval=0.05) as w:
        assert w.running and w.autostart
    assert not w.running
    started = resource_tracker.ResourceTracker(discover_cloud=False, interval=0.05)
    started.start()
    with pytest.raises(RuntimeError, match='already running'):
        with started:
            pass
    started.stop(exit_code=1, run_status='failed')  # 0.5.0's stop() signature
    assert not started.running
    # 0.5.0's streaming keywords are taken; no streaming here
    s = resource_tracker.ResourceTracker(discover_cloud=False, sentinel_token='t', upload_interval=5,
                                         streaming_metadata={'job_name': 'x'})
    assert s.sentinel_result is None
    # the 0.4 surface is unchanged at the top level
    top = gputracker.ResourceTracker(discover_cloud=False, interval=0.05)
    assert top.running and 'memory' in top.process_metrics.columns or not top.process_metrics.columns
    top.stop()


def test_names_and_units_as_0_5_0():
    t = tracked()
    process, system = t.process_metrics, t.system_metrics
    assert process.columns == PROCESS_05
    assert system.columns == SYSTEM_05
    row = process[0]
    assert isinstance(row['memory_mib'], float) and row['memory_mib'] >= 8  # MiB, not kB
    # the same rows as the 0.4 names, in 0.5's units
    assert system[0]['memory_used_mib'] > 0 and system[0]['disk_space_total_gb'] > 0
    combined = t.get_combined_metrics()
    assert 'process_memory_mib' in combined.columns and 'system_gpu_vram_mib' in combined.columns
    # 0.5.0's offset: the rows after the first offset (incremental reads)
    assert len(t.get_combined_metrics(offset=1)) == len(combined) - 1
    assert t.get_combined_metrics(offset=1)[0] == combined[1]
    human = t.get_combined_metrics(human_names=True)
    assert 'Process memory usage' in human.columns and 'System used memory' in human.columns
    in_bytes = t.get_combined_metrics(bytes=True)
    assert in_bytes['process_memory_mib'][0] == pytest.approx(combined['process_memory_mib'][0] * 2 ** 20)
    stats = t.stats()
    assert {k: set(v) for k, v in stats.items()} == STATS_05
    assert stats['process_memory_mib']['max'] >= 8
    info = t.server_info
    assert 'memory_mib' in info and 'gpu_memory_mib' in info and 'memory_mb' not in info
    rec = t.recommend_resources()
    assert set(rec) == {'cpu', 'memory', 'gpu', 'vram'} and rec['memory'] >= 128


def read_like_0_5_0(path):
    """What resource_tracker 0.5.0 does with a dump(): load() ->
    from_snapshot() (the metadata keys it indexes, server_info, cloud_info,
    the rows), then stats() over the combined rows with its default specs
    and recommend_resources() from them."""
    with gzip.open(path, 'rb') as f:
        snapshot = json.loads(f.read().decode())
    meta = snapshot['metadata']
    for key in ('pid', 'children', 'interval', 'method', 'track_processes', 'track_system',
                'discover_server', 'discover_cloud', 'start_time', 'stop_time'):
        assert key in meta, key
    server, cloud = snapshot['server_info'], snapshot['cloud_info']
    process, system = snapshot['process_metrics'], snapshot['system_metrics']
    n = min(len(process), len(system))
    combined = {'timestamp': [r['timestamp'] for r in system[:n]]}
    for prefix, rows in (('system_', system[:n]), ('process_', process[:n])):
        for col in rows[0]:
            if col != 'timestamp':
                combined[prefix + col] = [r[col] for r in rows]
    stats = {
        'process_cpu_usage': {'mean': round(mean(combined['process_cpu_usage']), 2)},
        'process_memory_mib': {'max': round(max(combined['process_memory_mib']), 2)},
        'process_gpu_usage': {'mean': round(mean(combined['process_gpu_usage']), 2),
                              'max': round(max(combined['process_gpu_usage']), 2)},
        'process_gpu_vram_mib': {'max': round(max(combined['process_gpu_vram_mib']), 2)},
        'timestamp': {'duration': max(combined['timestamp']) - min(combined['timestamp']) + meta['interval']},
    }
    return meta, server, cloud, stats


def test_dump_is_0_5_shape(tmp_path):
    t = tracked()
    path = str(tmp_path / 'run.json.gz')
    t.dump(path)
    meta, server, cloud, stats = read_like_0_5_0(path)
    assert meta['resource_tracker']['version'].startswith('0.5')
    assert meta['autostart'] is False and meta['interval'] == 0.05
    assert 'memory_mib' in server and 'gpu_memory_mib' in server
    assert stats['process_memory_mib']['max'] >= 8  # 0.4's shape lost this (KeyError: 'max')
    snap = t.snapshot()
    assert list(snap['process_metrics'][0]) == PROCESS_05
    assert list(snap['system_metrics'][0]) == SYSTEM_05
    # and it loads back, in 0.5.0's names
    back = resource_tracker.ResourceTracker.load(path)
    assert back.process_metrics.columns == PROCESS_05
    assert back.stats()['process_memory_mib']['max'] == pytest.approx(t.stats()['process_memory_mib']['max'],
                                                                       abs=0.01)
    assert os.path.getsize(path) > 0


def test_report_as_0_5_0():
    # report.py 0.5.0: class Report(str), save()/browse() return self;
    # tracker.py report(): integration Literal["standalone", "Metaflow", "R"],
    # integration_version taken, status_failed makes the run "Failed".
    t = tracked()
    for integration in ('standalone', 'Metaflow', 'R'):
        report = t.report(integration=integration, integration_version='2.15')
        assert isinstance(report, str) and '<html' in report.lower()
        assert '<span class="badge ok">Finished</span>' in report
    assert '<span class="badge bad">Failed</span>' in t.report(status_failed=True)
    with pytest.raises(ValueError, match='invalid integration'):
        t.report(integration='metaflow')  # 0.4's spelling is not 0.5.0's
    assert type(report).__name__ == 'Report' and resource_tracker.Report is type(report)


def test_tiny_data_frame_as_0_5_0(tmp_path, caplog):
    # tiny_data_frame.py 0.5.0
    from gputracker.resource_tracker.tiny_data_frame import StatSpec, TinyDataFrame
    path = tmp_path / 'cars.csv'
    path.write_text('"name","hp","wt"\n"Datsun 710",93,2.32\n"Hornet 4 Drive",110,3.215\n')
    df = TinyDataFrame(csv_file_path=str(path))
    assert df.columns == ['name', 'hp', 'wt'] and df['hp'] == [93, 110] and df['wt'] == [2.32, 3.215]
    assert repr(df) == ("TinyDataFrame with 2 rows and 3 columns. First row as a dict: "
                        "{'name': 'Datsun 710', 'hp': 93, 'wt': 2.32}")
    assert str(df) == ('TinyDataFrame with 2 rows and 3 columns:\n'
                       'name           | hp  | wt   \n'
                       '---------------+-----+------\n'
                       'Datsun 710     |  93 |  2.32\n'
                       'Hornet 4 Drive | 110 | 3.215')
    assert isinstance(df[0:1], TinyDataFrame) and isinstance(df[['hp']], TinyDataFrame)
    with pytest.raises(KeyError, match="Column 'mpg' not found"):
        df['mpg']
    with pytest.raises(TypeError, match='Invalid key type'):
        df[1.5]
    with pytest.raises(TypeError, match='Column name must be a string'):
        df[3] = [1, 2]
    with pytest.raises(ValueError, match=r'Length of values \(1\) must match dataframe length \(2\)'):
        df['x'] = [1]
    assert df.rename({'hp': 'horsepower'}) is df and df.columns == ['name', 'horsepower', 'wt']  # in place
    with pytest.raises(KeyError, match="Column 'hp' not found in dataframe"):
        df.rename({'hp': 'x'})
    # a failing aggregation is logged and left out; StatSpec's third field is agg_name
    with caplog.at_level('ERROR'):
        stats = df.stats([StatSpec('horsepower', max, 'peak'), StatSpec('name', sum), StatSpec('nope', max)])
    assert dict(stats) == {'horsepower': {'peak': 110}}
    assert 'Error collecting statistic on name' in caplog.text
    with pytest.raises(AssertionError):
        TinyDataFrame()
    with pytest.raises(RuntimeError, match='Failed to read CSV file after 1 attempts'):
        TinyDataFrame(csv_file_path=str(tmp_path / 'missing.csv'))
    assert df.to_csv(str(tmp_path / 'out.csv')) is None
    assert (tmp_path / 'out.csv').read_text().startswith('"name","horsepower","wt"')
    # the tracker's tables are TinyDataFrames
    t = tracked()
    assert isinstance(t.process_metrics, TinyDataFrame) and isinstance(t.get_combined_metrics(), TinyDataFrame)


def test_tiny_data_frame_reads_through_its_module_names(tmp_path, monkeypatch):
    # 0.5.0's tests patch DictReader, sleep and urlopen in tiny_data_frame:
    # a patch there reaches the reading (a retry after a failing reader, a URL)
    from gputracker.resource_tracker import tiny_data_frame
    path = tmp_path / 'words.csv'
    path.write_text('"col"\n"hello"\n"world"\n')
    real, calls, pauses = tiny_data_frame.DictReader, [], []

    def flaky(source, *args, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            raise OSError('File temporarily locked')
        return real(source, *args, **kwargs)
    monkeypatch.setattr(tiny_data_frame, 'DictReader', flaky)
    monkeypatch.setattr(tiny_data_frame, 'sleep', pauses.append)
    df = tiny_data_frame.TinyDataFrame(csv_file_path=str(path), retries=2, retry_delay=0.25)
    assert len(calls) == 2 and pauses == [0.25] and df['col'] == ['hello', 'world']

    class Response:
        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

        def read(self):
            return b'"name","count"\n"Alice",10\n'
    opened = []
    monkeypatch.setattr(tiny_data_frame, 'urlopen', lambda url, **kw: opened.append(url) or Response(),
                        raising=False)
    df = tiny_data_frame.TinyDataFrame(csv_file_path='https://example.invalid/data.csv')
    assert opened == ['https://example.invalid/data.csv'] and df['count'] == [10]
    monkeypatch.undo()
    assert callable(tiny_data_frame.urlopen)  # urllib's, imported when first asked for
    with pytest.raises(AttributeError):
        tiny_data_frame.no_such_name  # noqa: B018


def test_aggregate_stats_as_0_5_0():
    # helpers.py 0.5.0: mean and duration averaged, max and sum the largest,
    # anything else ValueError; averaged keys come after the others.
    a = {'cpu_usage': {'mean': 1.5, 'max': 2.0}, 'memory': {'mean': 100, 'max': 150}}
    b = {'cpu_usage': {'mean': 2.5, 'max': 3.0}, 'memory': {'mean': 200, 'max': 250}}
    out = resource_tracker.aggregate_stats([a, b])
    assert out == {'cpu_usage': {'max': 3.0, 'mean': 2.0}, 'memory': {'max': 250, 'mean': 150.0}}
    assert list(out['cpu_usage']) == ['max', 'mean']
    with pytest.raises(ValueError, match='Unsupported aggregation type: min'):
        resource_tracker.aggregate_stats([{'cpu_usage': {'min': 1}}])
    assert gputracker.aggregate_stats([]) == {}


def test_server_and_cloud_info_functions(monkeypatch):
    # server_info.py 0.5.0: get_server_info()'s keys; cloud_info.py 0.5.0:
    # get_cloud_info() gives "unknown" off the clouds, with discovery_time.
    info = resource_tracker.get_server_info()
    assert list(info) == ['os', 'vcpus', 'memory_mib', 'gpu_count', 'gpu_names', 'gpu_name', 'gpu_memory_mib']
    assert info['os'] == 'Linux' and info['vcpus'] == os.cpu_count() and info['memory_mib'] > 0
    assert (info['gpu_name'] == '') == (info['gpu_names'] == [])
    monkeypatch.setenv('GPU_TRACKER_METADATA_URL', 'http://127.0.0.1:9')  # nothing answers there
    cloud = resource_tracker.get_cloud_info()
    assert {k: cloud[k] for k in ('vendor', 'instance_type', 'region')} == \
        {'vendor': 'unknown', 'instance_type': 'unknown', 'region': 'unknown'}
    assert cloud['discovery_time'] >= 0
    from gputracker.resource_tracker.server_info import get_server_info
    from gputracker.resource_tracker.cloud_info import get_cloud_info
    assert get_server_info is resource_tracker.get_server_info and get_cloud_info is resource_tracker.get_cloud_info


def test_process_and_system_trackers_as_0_5_0(tmp_path):
    # tracker.py 0.5.0: ProcessTracker and SystemTracker write a CSV header
    # and a row every interval (to stdout or output_file), the process one
    # until the process ends; diff_stats() gives a row as a dict; children
    # is None with children=False; PidTracker warns that it is deprecated.
    import subprocess
    import sys
    import warnings
    child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(1.0)'])
    out = tmp_path / 'process.csv'
    t = resource_tracker.ProcessTracker(pid=child.pid, interval=0.1, output_file=str(out))  # blocks
    child.wait()
    assert t.status == 'exited'
    lines = out.read_text().splitlines()
    assert lines[0] == ','.join(f'"{c}"' for c in PROCESS_05)
    assert len(lines) >= 3 and lines[1].split(',')[1] == str(child.pid)
    quiet = resource_tracker.ProcessTracker(interval=0.05, autostart=False, children=False)
    row = quiet.diff_stats()
    assert list(row) == PROCESS_05 and row['pid'] == os.getpid() and row['children'] is None
    assert row['memory_mib'] > 1  # this Python process, in MiB
    system = resource_tracker.SystemTracker(interval=0.05, autostart=False)
    row = system.diff_stats()
    assert list(row) == SYSTEM_05 and row['memory_used_mib'] > 0 and row['disk_space_total_gb'] > 0
    assert callable(system) and system() is None
    from gputracker.resource_tracker.tracker import PidTracker
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        PidTracker(interval=0.05, autostart=False)
    assert any(issubclass(w.category, DeprecationWarning) and 'ProcessTracker' in str(w.message) for w in caught)
