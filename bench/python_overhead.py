"""What tracking costs from Python, against the gpu-tracker command (figures,
not tests: `make bench` runs it in the package's virtual environment).

    python bench/python_overhead.py GT_BENCH GPU_TRACKER [SECONDS [REPEATS]]

The job is an idle Python process (asleep for SECONDS, default 20) tracked
at the default sleep time (1 s), each way REPEATS times (default 3, the
ways alternating); the median is shown.

* The command: `gpu-tracker --pid P` on such a process P, which has
  imported gputracker so that its memory map (which a sample reads) is the
  Python case's; the bench ends P after SECONDS. CPU time and peak RSS are
  gpu-tracker's own, from its rusage (wait4, by `gt-bench --rusage`): the
  whole process, from exec to exit.
* Python: a fresh interpreter runs `import gputracker`, then
  `with gputracker.Tracker(disable_logs=True): time.sleep(SECONDS)` (logs
  off both ways: on a machine without a GPU each would warn, and Python's
  first warning loads the logging module). CPU: the process's CPU time
  (every thread, the library's sampling thread included) from just before
  the tracker is made to just after stop() has built the results; memory:
  the peak RSS (VmHWM) less the RSS before, what tracking added to the
  interpreter. Then the same with the import of gputracker counted, and
  with the standard modules that import loads (dataclasses, json, ...:
  found beforehand, loaded first) counted too; a program that has loaded
  them already does not pay for them again.
* The same for ResourceTracker(discover_cloud=False) (both series, kept
  in the library's row store) against `gpu-tracker --pid P --process-csv F
  --system-csv F`.
"""
import os
import statistics
import subprocess
import sys
import tempfile
import time

# Runs in the measured interpreter: the standard modules that importing
# gputracker loads (argv[3], found beforehand), then gputracker, then the
# tracking; prints the CPU time and memory after each. Nothing before the
# first mark imports more than sys, time and importlib.
PYTHON_CASE = r'''
import importlib, sys, time
def status(key):
    with open('/proc/self/status') as f:
        for line in f:
            if line.startswith(key + ':'):
                return int(line.split()[1])
seconds, which, standard = float(sys.argv[1]), sys.argv[2], sys.argv[3].split(',')
marks = [(time.process_time(), status('VmRSS'))]
for name in standard:
    importlib.import_module(name)
marks.append((time.process_time(), status('VmRSS')))
import gputracker
if which == 'resource_tracker':
    gputracker.ResourceTracker  # its module loads when first named
marks.append((time.process_time(), status('VmRSS')))
if which == 'tracker':
    with gputracker.Tracker(disable_logs=True):
        time.sleep(seconds)
else:
    rt = gputracker.ResourceTracker(discover_cloud=False)
    time.sleep(seconds)
    rt.stop()
marks.append((time.process_time(), status('VmHWM')))
print(' '.join(f'{cpu} {kib}' for cpu, kib in marks))
'''

# The standard modules a case's import loads, in the order it loads them.
FIND_STANDARD = r'''
import sys
before = set(sys.modules)
import gputracker
if sys.argv[1] == 'resource_tracker':
    gputracker.ResourceTracker
print(','.join(m for m in sys.modules if m not in before and not m.startswith('gputracker')))
'''

# The process the command tracks: the same interpreter with gputracker
# imported, idle until its standard input closes.
IDLE_PYTHON = 'import sys, gputracker; print("ready", flush=True); sys.stdin.read()'


def run_command(gt_bench, gpu_tracker, seconds, series, work):
    """gpu-tracker --pid on an idle Python process for seconds: (CPU s, peak RSS MiB)."""
    idle = subprocess.Popen([sys.executable, '-c', IDLE_PYTHON], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, cwd=work)
    if idle.stdout.readline().strip() != b'ready':
        raise SystemExit('python_overhead: the idle process did not start')
    args = [gpu_tracker, '--pid', str(idle.pid), '--disable-logs', '-o', os.path.join(work, 'out.txt')]
    if series:
        args += ['--process-csv', os.path.join(work, 'process.csv'),
                 '--system-csv', os.path.join(work, 'system.csv')]
    # Through gt-bench --rusage: a child of ours would report our peak RSS
    # as its own (see bench.c).
    figures = os.path.join(work, 'rusage')
    tracker = subprocess.Popen([gt_bench, '--rusage', figures] + args, cwd=work,
                               stdout=subprocess.DEVNULL)
    time.sleep(seconds)
    idle.stdin.close()  # the idle process exits; gpu-tracker follows
    idle.wait()
    if tracker.wait() != 0:
        raise SystemExit('python_overhead: gt-bench --rusage failed')
    with open(figures) as f:
        cpu, maxrss_kib, status = f.read().split()
    if status != '0':
        raise SystemExit(f'python_overhead: {" ".join(args)} exited {status}')
    return float(cpu), int(maxrss_kib) / 1024


def standard_modules(which):
    """The standard modules that importing gputracker (and naming
    ResourceTracker, for that case) loads into a fresh interpreter."""
    run = subprocess.run([sys.executable, '-c', FIND_STANDARD, which], capture_output=True, text=True,
                         check=True)
    return run.stdout.strip()


def run_python(seconds, which, standard, work):
    """The Python case: CPU s and memory MiB of the tracking alone, with the
    package's import, and with the standard modules that import loads."""
    run = subprocess.run([sys.executable, '-c', PYTHON_CASE, str(seconds), which, standard], cwd=work,
                         capture_output=True, text=True)
    if run.returncode != 0:
        raise SystemExit(f'python_overhead: the {which} case failed: {run.stderr.strip()}')
    v = [float(x) for x in run.stdout.split()]
    (cpu0, rss0), (cpu1, rss1), (cpu2, rss2), (cpu3, hwm) = zip(v[0::2], v[1::2])
    return {'tracking': (cpu3 - cpu2, (hwm - rss2) / 1024),
            'package': (cpu3 - cpu1, (hwm - rss1) / 1024),
            'standard': (cpu3 - cpu0, (hwm - rss0) / 1024)}


def main():
    if len(sys.argv) < 3:
        raise SystemExit('usage: python_overhead.py GT_BENCH GPU_TRACKER [SECONDS [REPEATS]]')
    gt_bench, gpu_tracker = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 20.0
    repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    cases = [('tracker', 'gpu-tracker --pid P', 'gputracker.Tracker(): tracking', False),
             ('resource_tracker', 'the same + both CSVs', 'gputracker.ResourceTracker(): tracking', True)]
    print(f'Python: an idle Python process (asleep {seconds:g} s) tracked at --st 1; median of {repeats}.')
    print('The command: its whole process (rusage). Python: what tracking added to the interpreter')
    print('(CPU time of every thread; peak RSS less RSS before), then with the import of gputracker,')
    print('then with the standard modules that import loads (dataclasses, json, ...).')
    print(f'{"tracker":<42} {"CPU ms":>8} {"x command":>10} {"memory MiB":>11} {"x command":>10}')
    for which, command_name, python_name, series in cases:
        standard = standard_modules(which)
        command, python = [], []
        for _ in range(repeats):
            with tempfile.TemporaryDirectory(prefix='gt-bench-python-') as work:
                command.append(run_command(gt_bench, gpu_tracker, seconds, series, work))
                python.append(run_python(seconds, which, standard, work))
        cpu = statistics.median(c for c, _ in command)
        rss = statistics.median(r for _, r in command)
        print(f'{command_name:<42} {cpu * 1e3:8.1f} {"":>10} {rss:11.2f}')
        for part, name in (('tracking', python_name), ('package', '  + import gputracker'),
                           ('standard', f'  + the {len(standard.split(","))} standard modules it loads')):
            py_cpu = statistics.median(p[part][0] for p in python)
            py_mem = statistics.median(p[part][1] for p in python)
            print(f'{name:<42} {py_cpu * 1e3:8.1f} {py_cpu / cpu:10.2f} {py_mem:11.2f} {py_mem / rss:10.2f}')

LOAD_SCRIPT = """
import resource, sys, time
from gputracker import ResourceTracker
t0 = time.perf_counter()
t = ResourceTracker.load(sys.argv[1])
t1 = time.perf_counter()
t.stats()
t2 = time.perf_counter()
t.report()
t3 = time.perf_counter()
print(t1 - t0, t2 - t1, t3 - t2, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def write_rt_snapshot(path, n):
    """A resource_tracker 0.4 snapshot of n rows a series (compact JSON, gzipped)."""
    import gzip
    import json
    meta = {'version': 1, 'resource_tracker': {'version': '0.4.2', 'implementation': 'procfs'}, 'pid': 42,
            'children': True, 'interval': 1, 'method': None, 'autostart': True, 'track_processes': True,
            'track_system': True, 'discover_server': True, 'discover_cloud': False,
            'start_time': 1.7e9, 'stop_time': 1.7e9 + n, 'duration': n + 1.0}
    server = {'os': 'Linux', 'vcpus': 8, 'memory_mb': 32000.0, 'gpu_count': 0, 'gpu_names': [], 'gpu_name': '',
              'gpu_memory_mb': 0, 'allocation': 'dedicated'}
    with gzip.open(path, 'wt') as f:
        f.write('{"metadata":%s,"server_info":%s,"cloud_info":null,"process_metrics":['
                % (json.dumps(meta), json.dumps(server)))
        for i in range(n):
            f.write(('' if i == 0 else ',') + '{"timestamp":%.1f,"pid":42,"children":2,"utime":0.5,"stime":0.25,'
                    '"cpu_usage":0.75,"memory":%d,"read_bytes":0,"write_bytes":4096,"gpu_usage":0.0,'
                    '"gpu_vram":0.0,"gpu_utilized":0}' % (1.7e9 + i + 1, 204800 + i % 100))
        f.write('],"system_metrics":[')
        for i in range(n):
            f.write(('' if i == 0 else ',') + '{"timestamp":%.1f,"processes":300,"utime":1.0,"stime":0.5,'
                    '"cpu_usage":1.5,"memory_free":1000,"memory_used":1000,"memory_buffers":1000,'
                    '"memory_cached":1000,"memory_active":1000,"memory_inactive":1000,"disk_read_bytes":0,'
                    '"disk_write_bytes":0,"disk_space_total_gb":100.0,"disk_space_used_gb":50.0,'
                    '"disk_space_free_gb":50.0,"net_recv_bytes":7,"net_sent_bytes":8,"gpu_usage":0.0,'
                    '"gpu_vram":0.0,"gpu_utilized":0}' % (1.7e9 + i + 1))
        f.write(']}')


def snapshot_loading(gpu_tracker, rows=200000):
    """ResourceTracker.load() of a big snapshot, then stats() and report(),
    against `gpu-tracker stats` of the same file: the rows are read by the
    library and kept as columns of 8-byte values."""
    print(f'\nPython: ResourceTracker.load() of a resource_tracker snapshot of {rows} rows a series, then '
          f'stats() and report(); the command reads it for `stats`.')
    with tempfile.TemporaryDirectory(prefix='gt-bench-load-') as work:
        path = os.path.join(work, 'big.json.gz')
        write_rt_snapshot(path, rows)
        out = subprocess.run([sys.executable, '-c', LOAD_SCRIPT, path], capture_output=True, text=True,
                             check=True).stdout.split()
        load, stats, report, kib = float(out[0]), float(out[1]), float(out[2]), int(out[3])
        start = time.perf_counter()
        child = subprocess.Popen([gpu_tracker, 'stats', path], stdout=subprocess.DEVNULL)
        _, status, usage = os.wait4(child.pid, 0)
        command_s = time.perf_counter() - start
    print(f'{"":<42} {"load s":>8} {"stats s":>8} {"report s":>9} {"peak RSS MiB":>13}')
    print(f'{"gputracker.ResourceTracker.load()":<42} {load:8.2f} {stats:8.2f} {report:9.2f} {kib / 1024:13.1f}')
    print(f'{"gpu-tracker stats":<42} {command_s:8.2f} {"":>8} {"":>9} {usage.ru_maxrss / 1024:13.1f}')


# Times one AllocatorWatch.sample() (the torch allocator's reading at each
# sample of a Tracker) without torch, and with a stand-in torch whose
# memory_stats() returns a dict of the size PyTorch 2's has (about 90 keys),
# on one device; prints microseconds per call, median of 5 rounds of 2000.
ALLOCATOR_SCRIPT = r'''
import statistics, sys, time, types
from gputracker._torch_memory import AllocatorWatch
def per_call(watch):
    rounds = []
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(2000):
            watch.sample()
        rounds.append((time.perf_counter() - t0) / 2000 * 1e6)
    return statistics.median(rounds)
absent = per_call(AllocatorWatch(1.0))
stats = {f'key.{i}': i for i in range(84)}
stats.update({'allocated_bytes.all.current': 1, 'allocated_bytes.all.peak': 2,
              'reserved_bytes.all.current': 3, 'reserved_bytes.all.peak': 4,
              'num_alloc_retries': 0, 'num_ooms': 0})
cuda = types.SimpleNamespace(is_initialized=lambda: True, device_count=lambda: 1,
                             memory_stats=lambda device: dict(stats))
sys.modules['torch'] = types.SimpleNamespace(cuda=cuda)
print(absent, per_call(AllocatorWatch(1.0)))
'''


def allocator_reading():
    """What the Python Tracker's reading of PyTorch's allocator costs a
    sample: the sys.modules lookup alone (no torch), and a stand-in
    memory_stats() of PyTorch's size (the real call adds the C++ side's copy
    of its counters; measured on a GPU machine by tests/gpu_validation.sh)."""
    out = subprocess.run([sys.executable, '-c', ALLOCATOR_SCRIPT], capture_output=True, text=True,
                         check=True).stdout.split()
    print('\nPython: the torch allocator reading at each sample (AllocatorWatch.sample), us per call')
    print(f'{"torch not imported (sys.modules lookup)":<42} {float(out[0]):8.2f}')
    print(f'{"stand-in memory_stats(), 90 keys, 1 GPU":<42} {float(out[1]):8.2f}')


if __name__ == '__main__':
    main()
    snapshot_loading(os.path.abspath(sys.argv[2]))
    allocator_reading()
