"""resource_tracker 0.5.0's one-shot readers: tracker_procfs and
tracker_psutil's get_process_stats() and get_system_stats(), and
helpers.get_tracker_implementation() choosing between them as 0.5.0 does.
The figures are checked against the kernel's own files read here."""
import os
import subprocess
import sys
import time

import pytest

from gputracker.resource_tracker import helpers, tracker_procfs

PROCESS_KEYS = {'timestamp', 'pid', 'children', 'utime', 'stime', 'memory_mib', 'disk_read_bytes',
                'disk_write_bytes', 'gpu_usage', 'gpu_vram_mib', 'gpu_utilized', 'gpu_utilized_indexes'}
SYSTEM_KEYS = {'timestamp', 'processes', 'utime', 'stime', 'memory_free_mib', 'memory_used_mib',
               'memory_buffers_mib', 'memory_cached_mib', 'memory_active_mib', 'memory_inactive_mib',
               'disk_stats', 'disk_spaces', 'net_recv_bytes', 'net_sent_bytes', 'gpu_usage', 'gpu_vram_mib',
               'gpu_utilized'}
TICK = os.sysconf('SC_CLK_TCK')


def stat_seconds(pid):
    """(utime + cutime, stime + cstime) of pid in seconds, from its stat file."""
    with open(f'/proc/{pid}/stat') as f:
        fields = f.read().rsplit(')', 1)[1].split()
    return (int(fields[11]) + int(fields[13])) / TICK, (int(fields[12]) + int(fields[14])) / TICK


def meminfo():
    with open('/proc/meminfo') as f:
        return {line.split(':')[0]: int(line.split()[1]) for line in f}


@pytest.fixture
def busy_child():
    """A child that has used some CPU and now sleeps: its counters stand still."""
    code = ('import time\nend = time.process_time() + 0.2\nwhile time.process_time() < end: pass\n'
            'print("done", flush=True)\ntime.sleep(60)\n')
    child = subprocess.Popen([sys.executable, '-c', code], stdout=subprocess.PIPE, text=True)
    assert child.stdout.readline() == 'done\n'
    yield child
    child.kill()
    child.wait()


def test_process_stats_of_a_tree(busy_child):
    before_user, before_system = stat_seconds(os.getpid())
    child_user, child_system = stat_seconds(busy_child.pid)
    stats = tracker_procfs.get_process_stats(os.getpid())
    assert set(stats) == PROCESS_KEYS
    assert stats['pid'] == os.getpid() and stats['children'] >= 1
    assert abs(stats['timestamp'] - time.time()) < 60
    # our own CPU (still running: at least what it was) plus the sleeping child's,
    # compared in clock ticks (15.71 + 0.06 is above 15.77 in floating point)
    assert round(stats['utime'] * TICK) >= round((before_user + child_user) * TICK)
    assert round(stats['stime'] * TICK) >= round((before_system + child_system) * TICK)
    with open(f'/proc/{os.getpid()}/io') as f:
        own_io = {line.split(':')[0]: int(line.split()[1]) for line in f}
    assert stats['disk_read_bytes'] >= own_io['read_bytes']
    assert stats['disk_write_bytes'] >= own_io['write_bytes']
    assert stats['gpu_utilized'] == len(stats['gpu_utilized_indexes'])

    # The child alone, without descendants: its own figures, children None.
    alone = tracker_procfs.get_process_stats(busy_child.pid, children=False)
    assert alone['children'] is None and alone['pid'] == busy_child.pid
    assert alone['utime'] == pytest.approx(child_user, abs=1 / TICK)
    assert 0 < alone['memory_mib'] < stats['memory_mib']


def test_process_memory_follows_an_allocation():
    """0.5.0's own check: 50 MB touched shows as at least 40 MiB more PSS."""
    before = tracker_procfs.get_process_stats(os.getpid())['memory_mib']
    block = bytearray(50 * 1024 * 1024)
    after = tracker_procfs.get_process_stats(os.getpid())['memory_mib']
    assert after >= before + 40
    del block


def test_process_errors():
    with subprocess.Popen(['true']) as gone:
        gone.wait()
    with pytest.raises(ProcessLookupError, match=str(gone.pid)):
        tracker_procfs.get_process_stats(gone.pid)
    with pytest.raises(ValueError, match='positive'):
        tracker_procfs.get_process_stats(0)


def test_system_stats():
    stats = tracker_procfs.get_system_stats()
    info = meminfo()
    assert set(stats) == SYSTEM_KEYS
    # 0.5.0's definitions: used is MemTotal - MemAvailable, cached takes SReclaimable in
    assert stats['memory_used_mib'] == pytest.approx((info['MemTotal'] - info['MemAvailable']) / 1024, abs=50)
    assert stats['memory_cached_mib'] == pytest.approx((info['Cached'] + info.get('SReclaimable', 0)) / 1024,
                                                       abs=50)
    assert stats['memory_free_mib'] > 0 and stats['memory_active_mib'] > 0
    with open('/proc/stat') as f:
        cpu = [int(v) for v in f.readline().split()[1:]]
    assert stats['utime'] <= (cpu[0] + cpu[1]) / TICK and stats['utime'] > 0
    assert stats['stime'] <= cpu[2] / TICK
    processes = sum(name.isdigit() for name in os.listdir('/proc'))
    assert abs(stats['processes'] - processes) <= 5
    for disk, counters in stats['disk_stats'].items():
        assert os.path.isdir(f'/sys/block/{disk}') and not helpers.is_partition(disk)
        assert set(counters) == {'read_bytes', 'write_bytes'}
    for mount, space in stats['disk_spaces'].items():
        assert os.path.isdir(mount)
        assert space['used'] <= space['total'] and space['free'] <= space['total']
    assert stats['net_recv_bytes'] >= 0 and stats['net_sent_bytes'] >= 0


def test_psutil_readers_agree_with_procfs():
    psutil = pytest.importorskip('psutil', reason='psutil is not installed (make check installs python3-psutil)')
    from gputracker.resource_tracker import tracker_psutil
    ours = tracker_procfs.get_process_stats(os.getpid())
    theirs = tracker_psutil.get_process_stats(os.getpid())
    assert set(theirs) == PROCESS_KEYS
    assert theirs['memory_mib'] == pytest.approx(ours['memory_mib'], abs=50)
    assert theirs['utime'] == pytest.approx(ours['utime'], abs=0.5)
    assert theirs['children'] == ours['children']
    system = tracker_psutil.get_system_stats()
    assert set(system) == SYSTEM_KEYS
    mine = tracker_procfs.get_system_stats()
    for key in ('memory_used_mib', 'memory_free_mib', 'memory_active_mib'):
        assert system[key] == pytest.approx(mine[key], abs=50), key
    assert abs(system['processes'] - mine['processes']) <= 5
    with pytest.raises(psutil.NoSuchProcess):
        with subprocess.Popen(['true']) as gone:
            gone.wait()
        tracker_psutil.get_process_stats(gone.pid)


def test_get_tracker_implementation(monkeypatch):
    pytest.importorskip('psutil', reason='psutil is not installed (make check installs python3-psutil)')
    process, system = helpers.get_tracker_implementation()
    assert process.__module__.endswith('tracker_psutil') and system.__module__.endswith('tracker_psutil')
    monkeypatch.setattr(helpers, 'is_psutil_available', lambda: False)
    assert helpers.get_tracker_implementation() == (tracker_procfs.get_process_stats,
                                                    tracker_procfs.get_system_stats)
    monkeypatch.setattr(helpers, 'is_procfs_available', lambda: False)
    with pytest.raises(ImportError, match='install psutil'):
        helpers.get_tracker_implementation()


def _status_kb(pid, key):
    with open(f'/proc/{pid}/status') as file:
        for line in file:
            if line.startswith(key + ':'):
                return int(line.split()[1])


def test_process_helpers_on_a_launcher_tree(tmp_path):
    """0.5.0's tracker_procfs helpers, on the shape a real job has: a shell
    script whose child (a Python with a thread) starts the worker; the
    worker is the child of the thread, which 0.5.0's main-thread read
    misses."""
    ready = tmp_path / 'ready'
    worker = ('import os, subprocess, sys, threading, time\n'
              'def spawn():\n'
              '    subprocess.Popen(["sleep", "60"])\n'
              f'    open({str(ready)!r}, "w").close()\n'
              '    time.sleep(60)\n'
              'threading.Thread(target=spawn, daemon=True).start()\n'
              'time.sleep(60)\n')
    (tmp_path / 'worker.py').write_text(worker)
    script = tmp_path / 'job.sh'
    script.write_text(f'#!/bin/sh\n"{sys.executable}" "{tmp_path / "worker.py"}"\n')
    script.chmod(0o755)
    launcher = subprocess.Popen([str(script)])
    try:
        deadline = time.time() + 30
        while not ready.exists() and time.time() < deadline:
            time.sleep(0.05)
        assert ready.exists()
        kids = tracker_procfs.get_process_children(launcher.pid)
        assert len(kids) == 2, kids  # the Python, and the sleep its thread started
        names = {open(f'/proc/{k}/comm').read().strip() for k in kids}
        assert 'sleep' in names
        me = os.getpid()
        rss = tracker_procfs.get_process_rss(me)
        assert abs(rss - _status_kb(me, 'VmRSS')) < 16 * 1024
        assert 0 < tracker_procfs.get_process_pss_rollup(me) <= rss + 16 * 1024
        times = tracker_procfs.get_process_proc_times(me)
        assert set(times) == {'utime', 'stime'} and times['utime'] > 0
        def stat():
            with open(f'/proc/{me}/stat') as file:
                return [int(v) for v in file.read().rsplit(')', 1)[1].split()[11:15]]
        before = stat()
        own = tracker_procfs.get_process_proc_times(me, children=False)
        after = stat()
        assert before[0] <= own['utime'] <= after[0] and before[1] <= own['stime'] <= after[1]
        both = tracker_procfs.get_process_proc_times(me)
        assert both['utime'] - before[2] >= own['utime']  # with cutime, the children waited for
        assert both['utime'] - after[2] <= stat()[0]
        io = tracker_procfs.get_process_proc_io(me)
        assert set(io) == {'read_bytes', 'write_bytes'} and all(type(v) is int for v in io.values())
    finally:
        subprocess.run(['pkill', '-P', str(launcher.pid)], check=False)
        for k in tracker_procfs.get_process_children(launcher.pid):
            try:
                os.kill(k, 9)
            except ProcessLookupError:
                pass
        launcher.kill()
        launcher.wait()
    # A process that is not there: zeros, as 0.5.0's
    gone = launcher.pid
    assert tracker_procfs.get_process_children(gone) == set()
    assert tracker_procfs.get_process_rss(gone) == 0 and tracker_procfs.get_process_pss_rollup(gone) == 0
    assert tracker_procfs.get_process_proc_times(gone) == {'utime': 0, 'stime': 0}
    assert tracker_procfs.get_process_proc_io(gone) == {'read_bytes': 0, 'write_bytes': 0}


def test_sector_sizes():
    sizes = tracker_procfs.get_sector_sizes()
    disks = [name for name, _, _ in __import__('gputracker')._native.read_counters(os.getpid(), False)['disks']]
    assert sorted(sizes) == sorted(disks)
    assert all(size in (512, 1024, 2048, 4096, 8192, 16384, 32768, 65536) for size in sizes.values())
