"""gputracker.Tracker against gpu_tracker's documented behaviour
(gpu_tracker 5.0.1's API) and its conformance pairs (tests/data/gpu_tracker)."""
import json
import logging
import multiprocessing
import os
import pickle
import re
import subprocess
import sys
import time

import pytest

import gputracker
from gputracker import ResourceUsage, Tracker


def test_defaults_and_state():
    tracker = Tracker()
    assert tracker.state is Tracker.State.NEW
    assert repr(tracker) == 'State: NEW'
    assert tracker.resource_usage is None
    assert tracker.n_join_attempts == 5 and tracker.join_timeout == 10.0
    assert [s.value for s in Tracker.State] == [0, 1, 2]


@pytest.mark.parametrize('kwargs, message', [
    ({'sleep_time': 0.05}, 'Sleep time of 0.05 is invalid. Must be at least 0.1 seconds.'),
    ({'ram_unit': 'mb'},
     '"mb" is not a valid RAM unit. Valid values are bytes, gigabytes, kilobytes, megabytes, terabytes'),
    ({'gpu_ram_unit': 'GB'},
     '"GB" is not a valid GPU RAM unit. Valid values are bytes, gigabytes, kilobytes, megabytes, terabytes'),
    ({'time_unit': 'weeks'}, '"weeks" is not a valid time unit. Valid values are days, hours, minutes, seconds'),
    ({'gpu_brand': 'matrox'},
     '"matrox" is not a valid GPU brand. Supported values are "nvidia", "amd", "intel" and "drm".'),
    ({'n_join_attempts': 0}, 'n_join_attempts of 0 is invalid. Must be at least 1.'),
    ({'join_timeout': 0}, 'join_timeout of 0 is invalid. Must be more than 0 seconds.'),
])
def test_invalid_arguments(kwargs, message):
    with pytest.raises(ValueError) as error:
        Tracker(**kwargs)
    assert str(error.value) == message


def test_gpu_uuids_as_gpu_tracker_takes_them(caplog):
    """gpu_tracker looks at gpu_uuids only where it finds a GPU: there an
    empty set or an unknown UUID is an error; without a GPU both are
    accepted (and we say they were ignored)."""
    from gputracker._tracker import _gpus_found
    if _gpus_found(None):
        with pytest.raises(ValueError) as error:
            Tracker(gpu_uuids=set())
        assert str(error.value) == \
            'gpu_uuids is not None but the set is empty. Please provide a set of at least one GPU UUID.'
        with pytest.raises(ValueError, match="unknown GPU UUID 'GPU-none'; available GPUs: "):
            Tracker(gpu_uuids={'GPU-none'})
        return
    for uuids in (set(), {'GPU-none'}):
        caplog.clear()
        with caplog.at_level('WARNING'):
            with Tracker(gpu_uuids=uuids, sleep_time=0.1) as tracker:
                pass
        assert tracker.resource_usage.gpu_utilization.n_expected_gpus == 0
        assert f'gpu_uuids ignored: no GPU was found to select from ({len(uuids)} UUID' in caplog.text
    caplog.clear()
    with caplog.at_level('WARNING'):
        Tracker(gpu_uuids={'GPU-none'}, disable_logs=True)
    assert 'gpu_uuids ignored' not in caplog.text


def test_every_gpu_brand_the_error_names_is_taken():
    """The error lists "intel" and "drm" besides gpu_tracker's two: each is
    taken."""
    for brand in ('nvidia', 'amd', 'intel', 'drm'):
        Tracker(gpu_brand=brand, disable_logs=True)


def test_invalid_arguments_the_library_checks():
    with pytest.raises(ValueError, match='expected cores -2: it must be positive'):
        Tracker(n_expected_cores=-2)
    # A process that does not exist (pid_max is at most 2^22).
    with pytest.raises(ProcessLookupError, match='4194305'):
        Tracker(process_id=4194305)


def test_state_errors():
    tracker = Tracker(sleep_time=0.1, disable_logs=True)
    with pytest.raises(RuntimeError, match='^Cannot stop tracking when tracking has not started yet.$'):
        tracker.stop()
    with pytest.raises(RuntimeError, match='before tracking completes'):
        tracker.to_json()
    with pytest.raises(RuntimeError, match='before tracking completes'):
        str(tracker)
    tracker.start()
    assert tracker.state is Tracker.State.STARTED
    with pytest.raises(RuntimeError, match='^Cannot start tracking when tracking has already started.$'):
        tracker.start()
    tracker.stop()
    assert tracker.state is Tracker.State.STOPPED
    with pytest.raises(RuntimeError, match='^Cannot stop tracking when tracking has already stopped.$'):
        tracker.stop()
    with pytest.raises(RuntimeError, match='^Cannot start tracking when tracking has already stopped.$'):
        with tracker:
            pass


def test_self_tracking_sees_a_freed_peak():
    # 200 MiB written (so resident), held past a few samples, freed before stop().
    # The threads this process has before (an earlier test's import may
    # have started some: OpenBLAS's, under pandas).
    threads_before = len(os.listdir('/proc/self/task'))
    with Tracker(sleep_time=0.1, ram_unit='megabytes', time_unit='seconds', disable_logs=True) as tracker:
        block = b'\x01' * (200 * 2 ** 20)
        time.sleep(0.5)
        del block
        time.sleep(0.3)
    usage = tracker.resource_usage
    peak = usage.max_ram.main.total_rss
    assert peak >= 200 * 2 ** 20 / 1e6, peak
    assert usage.max_ram.combined.total_rss >= peak
    assert usage.max_ram.unit == 'megabytes' and usage.compute_time.unit == 'seconds'
    assert usage.compute_time.time >= 0.8
    # The sampling thread is the library's and left out: only the process's own count.
    assert usage.cpu_utilization.main_n_threads == threads_before


def test_short_window_is_never_above_the_machine():
    # The window: a few milliseconds of one thread. In clock ticks it
    # read 200-400 % on two cores in a third of the runs; in the processes'
    # nanosecond run times it is what one thread can do.
    cores = os.cpu_count()
    worst = 0.0
    for _ in range(20):
        with Tracker(sleep_time=0.1, disable_logs=True) as tracker:
            sum(range(300000))
        cpu = tracker.resource_usage.cpu_utilization.combined
        assert cpu.mean_sum_percent <= 100 * cores and cpu.max_sum_percent <= 100 * cores
        worst = max(worst, cpu.mean_sum_percent)
    assert worst < 150, worst


def test_children_the_kernel_reaps_are_a_caveat(caplog):
    # A program that ignores SIGCHLD: the kernel reaps its children, whose
    # peaks no counter keeps. The tracker says so, as -f human does.
    import signal
    previous = signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    try:
        with caplog.at_level(logging.WARNING, logger='gputracker'):
            with Tracker(sleep_time=0.1) as tracker:
                pid = os.fork()
                if pid == 0:
                    os._exit(0)
                time.sleep(0.3)
    finally:
        signal.signal(signal.SIGCHLD, previous)
    reaped = [c for c in tracker.caveats if 'SIGCHLD' in c]
    assert len(reaped) == 1, tracker.caveats
    assert f'process {os.getpid()} (' in reaped[0]
    assert 'ignores SIGCHLD, so the kernel reaps its children itself' in reaped[0]
    logged = [r.getMessage() for r in caplog.records if r.name.startswith('gputracker')]
    assert reaped[0] in logged
    with Tracker(sleep_time=0.1, disable_logs=True) as quiet:
        pass
    assert not any('SIGCHLD' in c for c in quiet.caveats), quiet.caveats


def test_starved_is_a_caveat_only_when_the_job_waited():
    # Twice as many busy processes as cores: a job that sleeps among them
    # never waited for a CPU; one that burns waited about half its time.
    # Each is started by a shell that exits at once: an orphan, outside the
    # tree this process's Tracker tracks.
    spinners = []
    for _ in range(2 * (os.cpu_count() or 1)):
        out = subprocess.run(['/bin/sh', '-c', f'{sys.executable} -c "while True: pass" '
                              '>/dev/null 2>&1 & echo $!'], capture_output=True, text=True)
        spinners.append(int(out.stdout))
    try:
        with Tracker(sleep_time=0.2, disable_logs=True) as sleeper:
            time.sleep(1)
        assert not any(c.startswith('CPU starved') for c in sleeper.caveats), sleeper.caveats
        with Tracker(sleep_time=0.2, disable_logs=True) as burner:
            _burn(0.5)
    finally:
        for pid in spinners:
            os.kill(pid, 9)
    document = json.loads(burner._native.usage_json())
    if 'run_queue' not in document['measurement']:
        pytest.skip('this kernel counts no run-queue delay (schedstat)')
    starved = [c for c in burner.caveats if c.startswith('CPU starved: ')]
    assert starved and "the job's processes waited for a CPU" in starved[0], burner.caveats


def _burn(seconds):
    end = time.process_time() + seconds
    while time.process_time() < end:
        pass
    return os.getpid()


def test_multiprocessing_pool_counts_as_descendants():
    with Tracker(sleep_time=0.1, disable_logs=True) as tracker:
        with multiprocessing.get_context('fork').Pool(2) as pool:
            pids = set(pool.map(_burn, [0.4, 0.4, 0.4, 0.4]))
    usage = tracker.resource_usage
    assert pids and os.getpid() not in pids
    assert usage.cpu_utilization.descendants_n_threads >= 1
    assert usage.max_ram.descendants.total_rss > 0
    assert usage.cpu_utilization.descendants.mean_sum_percent > 0
    assert usage.cpu_utilization.combined.max_sum_percent >= usage.cpu_utilization.main.max_sum_percent


def test_to_json_is_gpu_trackers_dictionary_and_pickles():
    with Tracker(sleep_time=0.1, disable_logs=True) as tracker:
        time.sleep(0.3)
    document = tracker.to_json()
    assert list(document) == ['max_ram', 'max_gpu_ram', 'cpu_utilization', 'gpu_utilization', 'compute_time']
    assert list(document['max_ram']['main']) == ['total_rss', 'private_rss', 'shared_rss']
    assert ResourceUsage.from_dict(document) == tracker.resource_usage
    copy = pickle.loads(pickle.dumps(tracker.resource_usage))
    assert copy == tracker.resource_usage
    assert copy.cpu_utilization.combined.mean_sum_percent == \
        tracker.resource_usage.cpu_utilization.combined.mean_sum_percent


def test_conformance_pairs_through_str(conformance_dir):
    names = sorted(n[:-5] for n in os.listdir(conformance_dir) if n.endswith('.json'))
    assert names
    for name in names:
        with open(os.path.join(conformance_dir, name + '.json')) as file:
            document = json.load(file)
        with open(os.path.join(conformance_dir, name + '.txt')) as file:
            expected = file.read()
        tracker = Tracker()
        tracker.resource_usage = ResourceUsage.from_dict(document)
        assert tracker.to_json() == document, name
        assert str(tracker) == expected, name


def test_warnings_go_to_logging_unless_disabled(caplog, tmp_path):
    # A backup file in a directory that does not exist: the library warns at
    # the first write (start()) on every machine, with or without GPUs.
    backup = str(tmp_path / 'missing-directory' / 'backup.json')
    with caplog.at_level(logging.WARNING, logger='gputracker'):
        with Tracker(sleep_time=0.1, resource_usage_file=backup):
            time.sleep(0.2)
    logged = [r.getMessage() for r in caplog.records if r.name.startswith('gputracker')]
    assert any('backup' in m and 'missing-directory' in m for m in logged), logged
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger='gputracker'):
        with Tracker(sleep_time=0.1, resource_usage_file=backup, disable_logs=True):
            time.sleep(0.2)
    assert not [r for r in caplog.records if r.name.startswith('gputracker')]


def test_no_gpu_notice_as_each_original(caplog):
    """gpu_tracker 5.0.1 logs a warning when it finds no GPU to query and no
    gpu_brand was named (tracker.py, _TrackingProcess.__init__);
    resource_tracker (0.4 and 0.5.0) says nothing. On a machine without
    GPUs, so do ours."""
    import gputracker.resource_tracker as resource_tracker
    from gputracker import ResourceTracker
    probe = ResourceTracker(interval=0.05, discover_cloud=False)
    gpus = probe.server_info['gpu_count']
    probe.stop()
    if gpus > 0:
        pytest.skip('this machine has a GPU: the notice is for machines without one')
    with caplog.at_level(logging.WARNING, logger='gputracker'):
        with Tracker(sleep_time=0.1):
            pass
    logged = [r.getMessage() for r in caplog.records if r.name.startswith('gputracker')]
    assert any('The GPU RAM and GPU utilization values will remain 0.0.' in m for m in logged), logged
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        with Tracker(sleep_time=0.1, disable_logs=True):
            pass
        t = ResourceTracker(interval=0.05, discover_cloud=False)
        t.wait_for_samples(1)
        t.stop()
        t = resource_tracker.ResourceTracker(interval=0.05, discover_cloud=False)
        t.start()
        t.wait_for_samples(1)
        t.stop()
    assert not [r for r in caplog.records if 'GPU' in r.getMessage()], caplog.text


def test_console_script():
    script = os.path.join(os.path.dirname(sys.executable), 'gpu-tracker')
    version = subprocess.run([script, '--version'], capture_output=True, text=True, check=True)
    assert version.stdout.splitlines()[0] == 'gpu-tracker ' + gputracker.__version__
    run = subprocess.run([script, '--st', '0.1', '-f', 'json', '--disable-logs', '--', sys.executable, '-c',
                          'x = bytearray(50 * 2**20); x[::4096] = b"\\x01" * len(x[::4096])'],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    document = json.loads(run.stdout)
    assert document['max_ram']['main']['total_rss'] >= 50 * 2 ** 20 / 1e9
    bad = subprocess.run([script, '--ru', 'mb', '--', 'true'], capture_output=True, text=True)
    assert bad.returncode == 2 and 'mb' in bad.stderr and 'megabytes' in bad.stderr


def test_first_versions_sections_on_the_tracker():
    tracker = Tracker(sleep_time=0.1, disable_logs=True)
    with pytest.raises(AttributeError, match='before tracking completes'):
        tracker.max_ram
    with tracker:
        time.sleep(0.2)
    assert tracker.max_ram is tracker.resource_usage.max_ram
    assert tracker.compute_time is tracker.resource_usage.compute_time
    assert tracker.cpu_utilization.system_core_count == os.cpu_count()


def test_import_is_light():
    # `import gputracker` for a Tracker loads resource_tracker's side, the
    # magic and the modules only they need when first named: a short script
    # pays little for the import (bench/python_overhead.py measures it).
    heavy = ['gputracker._resource_tracker', 'gputracker._metrics', 'gputracker._magic', 'argparse',
             'logging', 'statistics', 'tempfile', 'webbrowser', 'csv']
    code = ('import sys, json; base = set(sys.modules); import gputracker; '
            'loaded = set(sys.modules) - base; '
            'print(json.dumps(sorted(loaded))); '
            'print(gputracker.ResourceTracker.__module__, "MetricsTable" in dir(gputracker)); '
            'from gputracker import *; print(StatSpec.__name__)')
    run = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, check=True)
    lines = run.stdout.splitlines()
    loaded = json.loads(lines[0])
    assert 'gputracker._tracker' in loaded and 'gputracker._native' in loaded
    assert not [m for m in heavy if m in loaded], loaded
    assert lines[1:] == ['gputracker._resource_tracker True', 'StatSpec']
    with pytest.raises(AttributeError, match='no attribute'):
        gputracker.NoSuchThing  # noqa: B018


@pytest.mark.parametrize('suffix', ['.csv', '.sqlite'])
def test_tracking_file_reads_as_gpu_tracker_reads_it(tmp_path, suffix):
    # gpu_tracker 5's tracking_file: static data, then a row per sample, read
    # back the way its analyzer reads them (pandas: read_csv with nrows=1 and
    # skiprows=2; the tables static_data and data of the SQLite file).
    pd = pytest.importorskip('pandas')
    path = str(tmp_path / f'tracking{suffix}')
    with Tracker(sleep_time=0.1, ram_unit='megabytes', time_unit='seconds', disable_logs=True,
                 tracking_file=path) as tracker:
        block = b'\x01' * (100 * 2 ** 20)
        time.sleep(0.3)
    del block  # after stop(): the final sample, a row too, saw it
    if suffix == '.csv':
        static = pd.read_csv(path, header=0, nrows=1).squeeze()
        timepoints = pd.read_csv(path, skiprows=2)
    else:
        import sqlite3
        # the names gpu_tracker's own test helpers take from its private module
        from gputracker.gpu_tracker._helper_classes import _SQLiteDataProxy as proxy
        with sqlite3.connect(path) as con:
            static = pd.read_sql(f'SELECT * FROM {proxy._STATIC_DATA_TABLE}', con).squeeze()
            timepoints = pd.read_sql(f'SELECT * FROM {proxy._DATA_TABLE}', con)
    assert static.ram_unit == 'megabytes' and static.time_unit == 'seconds'
    assert static.system_core_count == os.cpu_count()
    assert list(timepoints.columns)[:4] == ['main_ram', 'descendants_ram', 'combined_ram', 'system_ram']
    assert list(timepoints.columns)[-1] == 'timestamp' and len(timepoints.columns) == 22
    assert len(timepoints) >= 1
    # The 100 MiB block shows in the rows, and no row is above the summary's peak.
    assert timepoints.main_ram.max() >= 100 * 2 ** 20 / 1e6
    assert timepoints.main_ram.max() <= tracker.resource_usage.max_ram.main.total_rss
    assert (timepoints.timestamp.diff().dropna() > 0).all()
    # gpu_tracker's rule: an existing file is an error unless overwrite.
    with pytest.raises(FileExistsError, match='already exists'):
        Tracker(tracking_file=path)
    Tracker(tracking_file=path, overwrite=True, disable_logs=True)
    with pytest.raises(ValueError, match='Valid file extensions are ".csv" and ".sqlite"'):
        Tracker(tracking_file=str(tmp_path / 'tracking.txt'))


def test_sub_tracking_marks_as_gpu_tracker_writes_them(tmp_path, monkeypatch):
    # gpu_tracker 5's SubTracker and @sub_track: default names and file, a
    # row per mark with its columns, one file opened once per path.
    import csv
    import inspect
    monkeypatch.chdir(tmp_path)
    from gputracker import SubTracker, sub_track

    @sub_track()
    def step(x):
        return x * 2

    with SubTracker(code_block_name='load'):
        assert [step(i) for i in range(3)] == [0, 2, 4]
    line = inspect.currentframe().f_lineno + 1
    with SubTracker() as default_named:
        pass
    # gpu_tracker's default name: the caller's file, relative, and the line.
    assert default_named.code_block_name == f'{os.path.relpath(__file__)}:{line}'
    path = tmp_path / f'{os.getpid()}.csv'
    with open(path, newline='') as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0].keys()) == ['process_id', 'code_block_name', 'position', 'timestamp']
    names = [r['code_block_name'] for r in rows]
    step_name = os.path.abspath(__file__) + ':step'
    assert names == ['load'] + [step_name] * 6 + ['load'] + [default_named.code_block_name] * 2
    assert [r['position'] for r in rows[:3]] == ['0', '0', '1']
    assert {r['process_id'] for r in rows} == {str(os.getpid())}
    stamps = [float(r['timestamp']) for r in rows]
    assert stamps == sorted(stamps) and abs(stamps[0] - time.time()) < 600
    # SQLite, and gpu_tracker's errors.
    with SubTracker(code_block_name='a,"b"', sub_tracking_file=str(tmp_path / 'marks.sqlite')):
        pass
    import sqlite3
    with sqlite3.connect(tmp_path / 'marks.sqlite') as con:
        assert con.execute('SELECT code_block_name, position FROM data').fetchall() == [
            ('a,"b"', 0), ('a,"b"', 1)]
    (tmp_path / 'taken.csv').write_text('x\n')
    with pytest.raises(FileExistsError, match='already exists'):
        SubTracker(code_block_name='x', sub_tracking_file=str(tmp_path / 'taken.csv'))
    with pytest.raises(ValueError, match='Valid file extensions'):
        SubTracker(code_block_name='x', sub_tracking_file='marks.txt')


def test_metrics_endpoint(monkeypatch, tmp_path):
    """metrics_listen: the figures so far at /metrics while tracking, with
    the Slurm job's labels; metrics_textfile_dir: the same for node_exporter,
    removed at stop; a port in use is the library's one-line error."""
    import socket
    import urllib.request
    monkeypatch.setenv('SLURM_JOB_ID', '4242')
    monkeypatch.setenv('SLURM_PROCID', '3')
    tracker = Tracker(sleep_time=0.1, disable_logs=True, metrics_listen='127.0.0.1:0',
                      metrics_textfile_dir=str(tmp_path))
    address = tracker.metrics_address
    assert address.startswith('127.0.0.1:') and int(address.split(':')[1]) > 0
    with tracker:
        with urllib.request.urlopen(f'http://{address}/metrics', timeout=10) as answer:
            text = answer.read().decode()
        assert answer.headers['Content-Type'] == 'text/plain; version=0.0.4; charset=utf-8'
        assert f'job_id="4242",task_rank="3",command="python' in text
        assert '\ngpu_tracker_memory_peak_rss_bytes{' in text
        textfile = tmp_path / f'gpu-tracker-{os.getpid()}.prom'
        assert 'gpu_tracker_samples_total{' in textfile.read_text()
    assert tracker.metrics_address is None
    assert list(tmp_path.iterdir()) == []

    with socket.socket() as busy:
        busy.bind(('127.0.0.1', 0))
        busy.listen()
        port = busy.getsockname()[1]
        with pytest.raises(OSError, match=f'cannot serve metrics at 127.0.0.1:{port}: Address already in use'):
            Tracker(metrics_listen=f'127.0.0.1:{port}')
    with pytest.raises(ValueError, match="invalid metrics address 'nope'"):
        Tracker(metrics_listen='nope')


def test_limits_keywords():
    # A limit passed by a subprocess between two samples, in warn mode: the
    # run goes on, the breach is in .limits and in the JSON summary.
    with gputracker.Tracker(sleep_time=0.1, resource_usage_file='', max_ram='50MB', max_time=3600,
                            disable_logs=True) as tracker:
        subprocess.run([sys.executable, '-c', 'x = b"1" * 120_000_000; import time; time.sleep(0.3)'],
                       check=True)
    limits = tracker.limits
    assert limits['on_limit'] == 'warn' and limits['breached'] and not limits['killed']
    ram = limits['checks']['max_ram']
    assert ram['limit'] == 50e6 and ram['peak'] > 120e6 and ram['breached'] and ram['at_seconds'] >= 0
    assert limits['checks']['max_time'] == {'unit': 'seconds', 'limit': 3600.0,
                                            'peak': limits['checks']['max_time']['peak'],
                                            'breached': False, 'at_seconds': None}
    with gputracker.Tracker(sleep_time=0.1, resource_usage_file='') as tracker:
        pass
    assert tracker.limits is None


@pytest.mark.parametrize('kwargs, message', [
    ({'max_ram': '500'}, "invalid size '500': no unit (500 what?)"),
    ({'max_time': 'soon'}, "invalid duration 'soon'"),
    ({'max_cpu_time': -1}, 'invalid limit -1'),
    ({'on_limit': 'stop'}, '"stop" is not a valid on_limit'),
    ({'max_ram': '1GB', 'on_limit': 'kill'},
     "on_limit kill: cannot signal the tracked tree: it is the tracking program's own"),
])
def test_limits_keywords_refused(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        gputracker.Tracker(resource_usage_file='', **kwargs)


def test_energy_keywords():
    with gputracker.Tracker(sleep_time=0.1, resource_usage_file='', carbon_intensity=400, pue=1.2) as tracker:
        pass
    energy = tracker.energy
    assert set(energy) >= {'available', 'gpu', 'cpu'}
    # No counter on a machine without GPU or RAPL: each part says why.
    if not energy['available']:
        assert energy['gpu']['reason'] and energy['cpu']['reason'] and 'co2e' not in energy
    with pytest.raises(ValueError, match='invalid pue 0.5'):
        gputracker.Tracker(resource_usage_file='', pue=0.5)


def test_who_held_it():
    # Two children holding different amounts: the peak names both, the
    # processes group them by command, and nothing is told before stop().
    code = 'import sys, time; b = bytearray(int(sys.argv[1]) << 20); b[::4096] = b"x" * len(b[::4096]); time.sleep(1.0)'
    tracker = gputracker.Tracker(sleep_time=0.1, resource_usage_file='')
    with pytest.raises(RuntimeError, match='No processes to report'):
        tracker.processes
    with tracker:
        children = [subprocess.Popen([sys.executable, '-c', code, str(mib)]) for mib in (40, 80)]
        for child in children:
            child.wait()
    peak = tracker.at_peak['memory']
    held = {p['pid']: p['rss_bytes'] for p in peak['processes']}
    for child, mib in zip(children, (40, 80)):
        assert child.pid in held, peak
        assert mib << 20 <= held[child.pid] < (mib + 40) << 20
    groups = {g['command']: g for g in tracker.processes['groups']}
    name = os.path.basename(sys.executable)[:15]
    assert groups[name]['processes'] >= 3  # this interpreter and its two children
    assert groups[name]['peak_concurrent'] >= 3
    assert tracker.gpu_idle is None  # no GPU held or given
