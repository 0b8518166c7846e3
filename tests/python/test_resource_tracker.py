"""gputracker.ResourceTracker against resource_tracker's documented
interface (its documentation of ResourceTracker, v0.5): parameters
and errors, live reads while tracking, the tables, stats, recommendations
(the Keeper API faked on 127.0.0.1), snapshots in its own format both
ways, reports, the %%track magic, and the CLI's --snapshot-format."""
import gzip
import http.server
import json
import multiprocessing
import os
import subprocess
import sys
import threading
import time

import pytest

import gputracker
from gputracker import MetricsTable, ResourceTracker, StatSpec, aggregate_stats
from gputracker import _resource_tracker

PROCESS_COLUMNS = ['timestamp', 'pid', 'children', 'utime', 'stime', 'cpu_usage', 'memory', 'read_bytes',
                   'write_bytes', 'gpu_usage', 'gpu_vram', 'gpu_utilized']


def test_lists_come_from_the_library():
    """The columns, unit names and GPU brands the Python side checks against
    are the library's own tables, not copies: resource_tracker's columns in
    its order, gpu_tracker's units, and the options' bounds."""
    from gputracker import _metrics, _native, _tracker
    assert _metrics.PROCESS_COLUMNS is _native.PROCESS_COLUMNS
    assert list(_native.PROCESS_COLUMNS) == PROCESS_COLUMNS
    assert _native.SYSTEM_COLUMNS[:5] == ('timestamp', 'processes', 'utime', 'stime', 'cpu_usage')
    assert _native.SYSTEM_COLUMNS[-1] == 'gpu_utilized' and len(_native.SYSTEM_COLUMNS) == 21
    assert _tracker._RAM_UNITS == ('bytes', 'kilobytes', 'megabytes', 'gigabytes', 'terabytes')
    assert _tracker._TIME_UNITS == ('seconds', 'minutes', 'hours', 'days')
    assert _tracker._GPU_BRANDS == ('nvidia', 'amd', 'intel', 'drm')
    assert _native.STOP_TIMEOUT_MAX == 3600.0 and _native.START_ALIGNED == -1.0
    with pytest.raises(ValueError, match='Valid values are bytes, gigabytes, kilobytes, megabytes, terabytes'):
        gputracker.Tracker(ram_unit='mebibytes')


def quiet(**kwargs):
    """A tracker that asks no cloud service (tests talk to 127.0.0.1 only)."""
    kwargs.setdefault('discover_cloud', False)
    kwargs.setdefault('interval', 0.05)
    return ResourceTracker(**kwargs)


def test_parameters_and_errors():
    t = quiet(autostart=False)
    assert t.pid == os.getpid() and t.children is True and t.interval == 0.05
    assert t.trackers == ['process_tracker', 'system_tracker'] and not t.running
    assert t.server_info is None and t.cloud_info is None
    for bad in (0, -1, 'x', 1e6, True):
        with pytest.raises(ValueError, match='invalid interval'):
            ResourceTracker(interval=bad, autostart=False)
    with pytest.raises(ValueError, match='invalid pid'):
        ResourceTracker(pid=-3, autostart=False)
    with pytest.raises(ValueError, match='invalid method'):
        ResourceTracker(method='thread', autostart=False)
    with pytest.raises(ProcessLookupError, match='no process with PID'):
        quiet(pid=2 ** 22 + 1)
    with pytest.raises(RuntimeError, match='not running'):
        t.stop()
    with pytest.raises(RuntimeError, match='No metrics collected'):
        t.stats()
    t.start()
    with pytest.raises(RuntimeError, match='already running'):
        t.start()
    t.stop()
    with pytest.raises(RuntimeError, match='already stopped'):
        t.start()
    with pytest.raises(RuntimeError, match='already stopped'):
        t.stop()


def test_live_reads_and_wait():
    t = quiet()
    assert t.running and t.start_time is not None
    # resource_tracker's schedule: a start on a multiple of the interval.
    assert abs(t.start_time / 0.05 - round(t.start_time / 0.05)) < 1e-6
    t.wait_for_samples(2, timeout=30)
    first = t.process_metrics
    assert len(first) >= 2 and first.columns == PROCESS_COLUMNS
    t.wait_for_samples(len(first) + 2, timeout=30)
    later = t.process_metrics
    assert len(later) >= len(first) + 2
    assert later[:len(first)] == first  # rows already read do not change
    stamps = later['timestamp']
    # on the schedule: a deadline already past when a slow sample ends is
    # skipped (a busy machine), so each gap is a whole number of intervals
    gaps = [(b - a) / 0.05 for a, b in zip(stamps, stamps[1:])]
    assert all(g > 0.5 and abs(g - round(g)) < 1e-4 for g in gaps), gaps
    assert abs(stamps[0] - (t.start_time + 0.05)) < 1e-6  # rows count from the start
    assert t.system_metrics['processes'][0] > 1
    assert t.n_samples >= 4
    with pytest.raises(RuntimeError, match='Timed out waiting for resource tracker to collect 100000'):
        t.wait_for_samples(100000, timeout=0.2)
    t.stop()
    n = t.n_samples
    t.wait_for_samples(n)
    with pytest.raises(RuntimeError, match=f'already stopped with {n} sample'):
        t.wait_for_samples(n + 1)


def test_tables():
    table = MetricsTable([{'a': 1, 'b': 'x'}, {'a': 2, 'b': 'y'}, {'a': 3, 'b': 'z'}])
    assert len(table) == 3 and table['a'] == [1, 2, 3] and table[1] == {'a': 2, 'b': 'y'}
    assert table[1:].to_dict() == [{'a': 2, 'b': 'y'}, {'a': 3, 'b': 'z'}]
    assert table[['b']].columns == ['b']
    assert table.to_csv() == '"a","b"\r\n1,"x"\r\n2,"y"\r\n3,"z"\r\n'
    assert table.rename({'a': 'A'}).columns == ['A', 'b']
    table['c'] = [0.5, 1.5, 2.5]
    assert table.stats([StatSpec('c', max), StatSpec('a', sum, agg_name='total')]) == \
        {'c': {'max': 2.5}, 'a': {'total': 6}}
    with pytest.raises(KeyError, match="no column 'd'"):
        table['d']
    with pytest.raises(ValueError, match='2 values for a table of 3 rows'):
        table['d'] = [1, 2]
    assert MetricsTable({'x': [1, 2]}) == MetricsTable([{'x': 1}, {'x': 2}])


def test_to_csv_file_and_pandas(tmp_path):
    t = quiet()
    t.wait_for_samples(2, timeout=30)
    t.stop()
    path = tmp_path / 'p.csv'
    text = t.process_metrics.to_csv(str(path))
    assert path.read_bytes().decode() == text and text.startswith('"timestamp","pid","children"')
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match='needs pandas'):
            t.process_metrics.to_pandas()
        pytest.skip('pandas is not installed (Debian: python3-pandas); to_pandas() raised as it should')
    frame = t.system_metrics.to_pandas()
    assert list(frame.columns)[:3] == ['timestamp', 'processes', 'utime'] and len(frame) == t.n_samples


def test_combined_metrics_stats_and_recommendation():
    t = quiet()
    block = bytearray(150 * 2 ** 20)  # touched: 150 MiB resident while it runs
    for i in range(0, len(block), 4096):
        block[i] = 1
    t.wait_for_samples(3, timeout=30)
    t.stop()
    del block
    combined = t.get_combined_metrics()
    assert combined.columns[0] == 'timestamp' and 'system_cpu_usage' in combined.columns
    assert 'process_memory' in combined.columns and len(combined) == t.n_samples
    human = t.get_combined_metrics(bytes=True, human_names=True)
    assert 'Process memory usage' in human.columns and 'System used memory' in human.columns
    assert human['Process memory usage'][0] == combined['process_memory'][0] * 1024
    custom = t.get_combined_metrics(system_prefix='S.', process_prefix='P.')
    assert 'P.memory' in custom.columns and 'S.memory_used' in custom.columns
    stats = t.stats()
    assert set(stats) == {'process_cpu_usage', 'process_memory', 'process_gpu_usage', 'process_gpu_vram',
                          'process_gpu_utilized', 'system_disk_space_used_gb', 'system_net_recv_bytes',
                          'system_net_sent_bytes', 'timestamp'}
    assert stats['process_memory']['max'] >= 150 * 1024  # kB of PSS: the block is seen
    span = combined['timestamp'][-1] - combined['timestamp'][0]
    assert stats['timestamp']['duration'] == pytest.approx(span + 0.05)
    # The default statistics are the library's (gt_tracker_stats); the same
    # specs applied here in Python, as resource_tracker does, give the same
    # dictionary, each value of the same type (an int where its max(),
    # sum() or statistics.mean() gives one).
    by_specs = t.stats(list(_resource_tracker.DEFAULT_STATS_SPECS))
    assert stats == by_specs
    assert {c: {a: type(v) for a, v in d.items()} for c, d in stats.items()} == \
        {c: {a: type(v) for a, v in d.items()} for c, d in by_specs.items()}
    assert type(stats['process_memory']['max']) is int and type(stats['system_net_recv_bytes']['sum']) is int
    assert list(stats) == list(by_specs) and all(list(stats[c]) == list(by_specs[c]) for c in stats)
    assert t.stats([StatSpec('process_memory', min, round=1)]) == \
        {'process_memory': {'min': round(min(combined['process_memory']), 1)}}
    rec = t.recommend_resources()
    assert rec['cpu'] >= 1 and rec['memory'] >= 256 and rec['gpu'] == 0 and rec['vram'] == 0
    # With history: a run that needed 3 cores and 5000 MiB more than doubles it.
    history = {**stats, 'process_cpu_usage': {'mean': 3.0, 'max': 3.5},
               'process_memory': {'mean': 1.0, 'max': 5000 * 1024}}
    rec2 = t.recommend_resources(historical_stats=[history])
    assert rec2['memory'] == 6 * 1024  # max(5000 MiB * 1.2) rounded up to whole GiB
    assert rec2['cpu'] == round((stats['process_cpu_usage']['mean'] + 3.0) / 2) or rec2['cpu'] >= 1
    assert aggregate_stats([{'c': {'mean': 1, 'max': 2}}, {'c': {'mean': 3, 'max': 1}}]) == \
        {'c': {'mean': 2.0, 'max': 2}}
    # The library's rule (gt_stats_combine_json): an int stays one, the
    # averaged keys follow the others (mean, then duration); a value that
    # is not a number is refused, naming it.
    out = aggregate_stats([{'c': {'duration': 1.0, 'sum': 5, 'mean': 1}},
                           {'c': {'sum': 7, 'duration': 2.5, 'mean': 2}}])
    assert out == {'c': {'sum': 7, 'mean': 1.5, 'duration': 1.75}}
    assert list(out['c']) == ['sum', 'mean', 'duration'] and type(out['c']['sum']) is int
    assert aggregate_stats([stats]) == stats  # one run: itself
    with pytest.raises(ValueError, match="run 0's 'c' 'max' is not a number"):
        aggregate_stats([{'c': {'max': 'x'}}])


class Keeper(http.server.BaseHTTPRequestHandler):
    paths = []

    def do_GET(self):
        Keeper.paths.append(self.path)
        body = json.dumps([{'api_reference': 'c7g.large', 'vendor_id': 'aws', 'vcpus': 2,
                            'min_price_ondemand': 0.07}]).encode()
        self.send_response(200)
        self.send_header('Content-Type', 'application/json')
        self.send_header('Content-Length', str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


@pytest.fixture
def keeper(monkeypatch):
    server = http.server.HTTPServer(('127.0.0.1', 0), Keeper)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    monkeypatch.setenv('GPU_TRACKER_KEEPER_URL', f'http://127.0.0.1:{server.server_port}')
    yield Keeper
    server.shutdown()
    thread.join()
    server.server_close()


def test_recommend_server_and_report(keeper, tmp_path, monkeypatch):
    t = quiet()
    t.wait_for_samples(2, timeout=30)
    live = t.report()  # while tracking
    assert '<html' in live._repr_html_().lower()
    t.stop()
    server = t.recommend_server()
    assert server['api_reference'] == 'c7g.large'
    assert keeper.paths[-1].startswith('/servers?vcpus_min=1&memory_min=')
    with pytest.raises(ValueError, match='unsupported filters vendor_id'):
        t.recommend_server(vendor_id='aws')
    report = t.report(server=True)
    assert 'c7g.large' in report.html and str(report) == report.html
    # what resource_tracker's users look for in it by name
    assert '>Process CPU usage<' in report and '>System CPU usage<' in report
    assert '>Recommended<' in report
    assert 'No server recommendation: not asked for (report(server=True) asks the Spare Cores Keeper API)' \
        in t.report()
    path = tmp_path / 'r.html'
    report.save(str(path))
    assert path.read_text(encoding='utf-8') == report.html
    import webbrowser
    opened = []
    monkeypatch.setattr(webbrowser, 'open', lambda url: opened.append(url))  # nothing opens
    assert report.browse() is report  # for chaining, as resource_tracker's
    path_opened = opened[0][len('file://'):]
    with open(path_opened, encoding='utf-8') as f:
        assert f.read() == report.html
    os.unlink(path_opened)
    with pytest.raises(ValueError, match='invalid integration'):
        t.report(integration='airflow')
    # resource_tracker's Report is a str (report.py: class Report(str)): ``in``,
    # concatenation and writing work; its status badge says how the run ended
    # (Pending while tracking, Finished, Failed with status_failed).
    assert isinstance(report, str) and 'c7g.large' in report
    assert '<span class="badge ok">Finished</span>' in report
    assert '<span class="badge bad">Failed</span>' in t.report(status_failed=True)
    assert '<span class="badge unk">Pending</span>' in live
    assert report.save(str(path)) is report
    # Offline: the error says where it could not go; the report says why it
    # has no server, and is made all the same.
    monkeypatch.setenv('GPU_TRACKER_KEEPER_URL', 'http://127.0.0.1:9')
    with pytest.raises(OSError, match='cannot reach the Keeper API'):
        t.recommend_server()
    offline = t.report(server=True)
    assert 'No server recommendation: the Spare Cores Keeper API could not be asked: cannot reach the ' \
        'Keeper API' in offline


def test_report_duration_from_start_to_stop():
    """resource_tracker's report counts the run from start() to stop(); the
    first row of an aligned schedule comes up to an interval later, so the
    rows alone would say less."""
    import re
    t = ResourceTracker(interval=1, autostart=False, discover_server=False, discover_cloud=False)
    t.start()
    time.sleep(2.6)  # a row at least: the first comes one interval after the aligned start
    t.stop()
    shown = re.search(r'Duration</div><div class="v">([0-9.]+) s</div>', t.report())
    assert shown, 'no Duration card'
    assert abs(float(shown.group(1)) - (t.stop_time - t._started)) <= 0.06


def test_server_and_cloud_info(monkeypatch):
    t = quiet(autostart=False)
    assert t.server_info is None
    # Cloud metadata asked on 127.0.0.1, where nothing answers: "unknown".
    monkeypatch.setenv('GPU_TRACKER_METADATA_URL', 'http://127.0.0.1:9')
    t = ResourceTracker(interval=0.05, discover_cloud=True)
    t.wait_for_samples(1, timeout=30)
    info = t.server_info
    assert info['vcpus'] == os.cpu_count() and info['memory_mb'] > 0 and info['os'] == 'Linux'
    assert info['allocation'] in ('dedicated', 'shared')
    deadline = time.time() + 30
    while t.cloud_info is None and time.time() < deadline:
        time.sleep(0.05)
    assert t.cloud_info['vendor'] == 'unknown' and t.cloud_info['discovery_time'] >= 0
    t.stop()
    assert quiet(discover_server=False).server_info is None


def test_children_false_leaves_descendants_out():
    # The child says when its 80 MiB are resident: a fixed sleep lost the
    # race on a busy machine (47 of the 80 MiB touched).
    code = ('import time; x = bytearray(80 * 2**20); x[::4096] = b"1" * len(x[::4096]); '
            'print("ready", flush=True); time.sleep(30)')
    child = subprocess.Popen([sys.executable, '-c', code], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == 'ready'
        with_children = quiet()
        alone = quiet(children=False)
        with_children.wait_for_samples(2, timeout=30)
        alone.wait_for_samples(2, timeout=30)
        with_children.stop()
        alone.stop()
    finally:
        child.kill()
        child.wait()
        child.stdout.close()
    assert max(with_children.process_metrics['children']) >= 1
    assert set(alone.process_metrics['children']) == {0}
    assert max(with_children.process_metrics['memory']) - max(alone.process_metrics['memory']) > 60 * 1024


def test_child_of_another_thread_counted():
    # A child started by a thread other than the main one is listed in that
    # thread's children file while the thread lives (then the kernel hands
    # it to another thread): the walk reads every thread's file but the
    # library's own (which never fork).
    code = ('import sys; x = bytearray(80 * 2**20); x[::4096] = b"1" * len(x[::4096]); '
            'print("ready", flush=True); sys.stdin.read()')
    t = quiet()
    started, launched, done = [], threading.Event(), threading.Event()

    def start_child_and_stay():
        try:
            started.append(subprocess.Popen([sys.executable, '-c', code], stdin=subprocess.PIPE,
                                            stdout=subprocess.PIPE))
        finally:
            launched.set()
        done.wait(60)

    starter = threading.Thread(target=start_child_and_stay)
    starter.start()
    try:
        assert launched.wait(60) and started, 'the child did not start'
        assert started[0].stdout.readline() == b'ready\n'
        t.wait_for_samples(len(t.process_metrics) + 3, timeout=30)
        rows = t.process_metrics  # read while the starting thread still lives
    finally:
        done.set()
        starter.join()
        for child in started:
            child.stdin.close()
            child.wait()
        t.stop()
    assert max(rows['children']) == 1
    assert max(rows['memory']) > 80 * 1024  # kB: the child's 80 MiB with ours


def _square(x):
    return x * x


def test_multiprocessing_pool_counted():
    t = quiet()
    with multiprocessing.get_context('fork').Pool(2) as pool:
        assert pool.map(_square, range(4)) == [0, 1, 4, 9]
        t.wait_for_samples(t.n_samples + 2, timeout=30)
        t.stop()
    assert max(t.process_metrics['children']) >= 2


def rt_document(shape):
    """A snapshot as resource_tracker writes it (its documented format):
    0.4's columns in kB, or 0.5's in MiB."""
    if shape == '0.4':
        prow = {'timestamp': 1700000001.0, 'pid': 42, 'children': None, 'utime': 0.5, 'stime': 0.25,
                'cpu_usage': 0.75, 'memory': 204800, 'read_bytes': 0, 'write_bytes': 4096, 'gpu_usage': 0.0,
                'gpu_vram': 0.0, 'gpu_utilized': 0}
        mem = {f'memory_{k}': 1000 for k in ('free', 'used', 'buffers', 'cached', 'active', 'inactive')}
        extra = {'gpu_vram': 0.0}
        server = {'os': 'Linux', 'vcpus': 8, 'memory_mb': 32000.0, 'gpu_count': 0, 'gpu_names': [],
                  'gpu_name': '', 'gpu_memory_mb': 0, 'allocation': 'dedicated'}
    else:
        prow = {'timestamp': 1700000001.0, 'pid': 42, 'children': 2, 'utime': 0.5, 'stime': 0.25,
                'cpu_usage': 0.75, 'memory_mib': 200.0, 'disk_read_bytes': 0, 'disk_write_bytes': 4096,
                'gpu_usage': 0.0, 'gpu_vram_mib': 0.0, 'gpu_utilized': 0}
        mem = {f'memory_{k}_mib': 1.0 for k in ('free', 'used', 'buffers', 'cached', 'active', 'inactive')}
        extra = {'gpu_vram_mib': 0.0}
        server = {'os': 'Linux', 'vcpus': 8, 'memory_mib': 32000.0, 'gpu_count': 0, 'gpu_names': [],
                  'gpu_name': '', 'gpu_memory_mib': 0, 'allocation': 'dedicated'}
    srow = {'timestamp': 1700000001.0, 'processes': 300, 'utime': 1.0, 'stime': 0.5, 'cpu_usage': 1.5, **mem,
            'disk_read_bytes': 0, 'disk_write_bytes': 0, 'disk_space_total_gb': 100.0,
            'disk_space_used_gb': 50.0, 'disk_space_free_gb': 50.0, 'net_recv_bytes': 7, 'net_sent_bytes': 8,
            'gpu_usage': 0.0, **extra, 'gpu_utilized': 0}
    rows = []
    for i in range(3):
        rows.append(({**prow, 'timestamp': 1700000001.0 + i}, {**srow, 'timestamp': 1700000001.0 + i}))
    return {
        'metadata': {'version': 1, 'resource_tracker': {'version': '0.4.2' if shape == '0.4' else '0.5.0',
                                                        'implementation': 'procfs'},
                     'pid': 42, 'children': shape != '0.4', 'interval': 1, 'method': None, 'autostart': True,
                     'track_processes': True, 'track_system': True, 'discover_server': True,
                     'discover_cloud': False, 'start_time': 1700000000.0, 'stop_time': 1700000003.0,
                     'duration': 4.0},
        'server_info': server, 'cloud_info': None,
        'process_metrics': [p for p, _ in rows], 'system_metrics': [s for _, s in rows],
    }


@pytest.mark.parametrize('shape', ['0.4', '0.5'])
@pytest.mark.parametrize('gzipped', [True, False])
def test_load_resource_tracker_files(tmp_path, shape, gzipped):
    doc = json.dumps(rt_document(shape)).encode()
    path = tmp_path / ('theirs.json.gz' if gzipped else 'theirs.json')
    path.write_bytes(gzip.compress(doc) if gzipped else doc)
    t = ResourceTracker.load(str(path))
    assert not t.running and t.pid == 42 and t.interval == 1 and t.n_samples == 3
    assert t.children is (shape != '0.4')
    assert t.process_metrics['memory'] == [204800] * 3  # kB, whichever shape it came in
    assert t.process_metrics['write_bytes'] == [4096] * 3
    assert t.server_info['vcpus'] == 8 and t.server_info['allocation'] == 'dedicated'
    assert t.cloud_info is None
    stats = t.stats()
    assert stats['process_memory']['max'] == 204800 and stats['system_net_sent_bytes']['sum'] == 24
    assert stats['timestamp']['duration'] == 3
    assert t.recommend_resources() == {'cpu': 1, 'memory': 256, 'gpu': 0, 'vram': 0}
    assert 'Statistics' in t.report().html
    # What we write back is what resource_tracker's from_snapshot() reads:
    # its metadata keys, its row dicts, its server_info names.
    back = t.snapshot()
    assert back['metadata']['pid'] == 42 and back['metadata']['start_time'] == 1700000000.0
    assert back['process_metrics'][0]['memory'] == 204800
    assert set(back['process_metrics'][0]) == set(PROCESS_COLUMNS)
    assert back['server_info']['memory_mb'] == 32000.0
    assert ResourceTracker.from_snapshot(back).process_metrics == t.process_metrics


def test_snapshot_round_trips(tmp_path):
    t = quiet(children=False)
    t.wait_for_samples(2, timeout=30)
    live = t.snapshot()  # while tracking
    assert live['metadata']['stop_time'] >= live['metadata']['start_time']
    t.stop()
    snap = t.snapshot()
    assert set(snap) == {'metadata', 'server_info', 'cloud_info', 'process_metrics', 'system_metrics'}
    assert snap['metadata']['children'] is False and snap['metadata']['interval'] == 0.05
    assert snap['metadata']['duration'] == round(t.stop_time - t.start_time + 0.05, 2)
    assert len(snap['process_metrics']) == t.n_samples
    again = ResourceTracker.from_snapshot(snap)
    assert again.process_metrics == t.process_metrics and again.system_metrics == t.system_metrics
    assert again.children is False and again.stats() == t.stats()
    assert ResourceTracker.loads(t.dumps()).process_metrics == t.process_metrics
    path = tmp_path / 'run.json.gz'
    t.dump(str(path))
    with gzip.open(path) as f:
        assert json.load(f)['metadata']['pid'] == os.getpid()
    assert ResourceTracker.load(str(path)).system_metrics == t.system_metrics
    # Refused with the problem named.
    with pytest.raises(ValueError, match='missing key "process_metrics\\[0\\].pid"'):
        bad = dict(snap, process_metrics=[{'timestamp': 1.0}])
        ResourceTracker.from_snapshot(bad)
    (tmp_path / 'bad.json.gz').write_bytes(b'\x1f\x8b\x08\x00garbage')
    with pytest.raises(ValueError, match='gzip data is'):
        ResourceTracker.load(str(tmp_path / 'bad.json.gz'))
    # Read as the command reads files: a regular file, its size bounded.
    with pytest.raises(OSError, match='cannot read'):
        ResourceTracker.load(str(tmp_path / 'missing.json.gz'))
    with pytest.raises(OSError, match='it is a directory'):
        ResourceTracker.load(str(tmp_path))


def test_load_of_many_rows_keeps_columns(tmp_path):
    # The attack: load() of a snapshot of a million rows took 2.35 GB and
    # 45 s (every row became JSON text, then a dict, then a tuple), and
    # report() then failed. The library reads the file; Python keeps each
    # column as an array of 8-byte values, and the report is made from what
    # was read. Here 50 000 rows a series: Python's own allocations stay
    # near 8 bytes a value (13 MB), where the rows as dicts took ten times
    # that.
    import tracemalloc
    n = 50000
    doc = rt_document('0.4')
    doc['process_metrics'] = [dict(doc['process_metrics'][0], timestamp=1700000001.0 + i,
                                   memory=204800 + i % 7) for i in range(n)]
    doc['system_metrics'] = [dict(doc['system_metrics'][0], timestamp=1700000001.0 + i) for i in range(n)]
    doc['metadata']['stop_time'] = 1700000001.0 + n
    path = tmp_path / 'many.json.gz'
    path.write_bytes(gzip.compress(json.dumps(doc, separators=(',', ':')).encode()))
    del doc
    tracemalloc.start()
    t = ResourceTracker.load(str(path))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert t.n_samples == n
    assert peak < 30 * 2 ** 20, f'load() allocated {peak / 2 ** 20:.1f} MiB in Python for {n} rows'
    assert t.process_metrics['memory'][:8] == [204800 + i % 7 for i in range(8)]
    assert t.process_metrics[n - 1]['timestamp'] == 1700000001.0 + n - 1
    assert isinstance(t.process_metrics['pid'][0], int) and isinstance(t.process_metrics['utime'][0], float)
    assert t.stats()['process_memory']['max'] == 204806
    html = t.report().html
    assert 'Statistics' in html and '</html>' in html
    back = t.snapshot()
    assert len(back['process_metrics']) == n and back['process_metrics'][3]['memory'] == 204803
    # A bound on the rows, as `stats --max-rows`.
    with pytest.raises(ValueError, match='has 50000 rows; at most 1000 are read'):
        ResourceTracker.load(str(path), max_rows=1000)


def test_cli_snapshot_format_read_by_load(tmp_path):
    gpu_tracker = os.path.join(os.path.dirname(sys.executable), 'gpu-tracker')
    for fmt, key in (('resource_tracker', 'memory'), ('resource_tracker-0.5', 'memory_mib')):
        path = tmp_path / f'{fmt}.json.gz'
        run = subprocess.run([gpu_tracker, '--st', '0.05', '--disable-logs', '--snapshot', str(path),
                              '--snapshot-format', fmt, '--', 'sleep', '0.3'], capture_output=True, text=True)
        assert run.returncode == 0, run.stderr
        with gzip.open(path) as f:
            assert key in json.load(f)['process_metrics'][0]
        t = ResourceTracker.load(str(path))
        assert t.n_samples >= 3 and t.process_metrics['memory'][0] > 0
    run = subprocess.run([gpu_tracker, '--snapshot-format', 'parquet', '--', 'true'], capture_output=True,
                         text=True)
    assert run.returncode == 2 and "unknown snapshot format 'parquet'" in run.stderr


MAGIC_SCRIPT = """
import contextlib, io
from IPython.testing.globalipapp import start_ipython
import gputracker
shell = start_ipython()
shell.run_line_magic('load_ext', 'gputracker')
out = io.StringIO()
with contextlib.redirect_stdout(out):
    shell.run_cell_magic('track', '--ru megabytes', 'x = bytearray(50 * 2**20)\\nx[::4096] = b"1" * 12800')
print(out.getvalue())
try:
    gputracker._magic.track('--nope', 'pass', shell)
except ValueError as e:
    print('refused:', e)
"""


def test_jupyter_magic():
    # In a process of its own: IPython leaves threads running, which the
    # other tests' self-tracking would count.
    pytest.importorskip('IPython', reason='IPython is not installed (Debian: python3-ipython)')
    run = subprocess.run([sys.executable, '-c', MAGIC_SCRIPT], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert 'Max RAM:' in run.stdout and 'Unit: megabytes' in run.stdout
    # said once: no argparse usage on stderr besides the ValueError
    assert 'refused: %%track: unrecognized arguments: --nope; valid: --st SECONDS' in run.stdout
    assert 'usage:' not in run.stderr and 'error:' not in run.stderr, run.stderr
