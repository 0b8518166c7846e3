"""The validation run on real NVIDIA hardware (tests/gpu_validation.sh runs
it; docs/gpu-validation.md keeps each run's table).

    python3 tests/gpu_validation.py GPU_TRACKER BUILD_DIR SOURCE_DIR [PYTHON]

Each check runs a real CUDA job (tests/gpu_workload.py) under the built
gpu-tracker, compares a figure with what it should be, and prints one
Markdown row: check, what was measured, what it was held against, pass or
FAIL (or "skipped: why"). PYTHON is an interpreter that can import
gputracker (the package built by scripts/python-venv.sh) for the allocator
check; without it that check is skipped. Exit 0 when every check that ran
passed, 1 otherwise; the caller has made sure a driver and PyTorch with
CUDA are there."""
import ctypes
import datetime
import json
import os
import re
import subprocess
import sys
import tempfile

MIB = 2**20
GT, BUILD, SRC = sys.argv[1], sys.argv[2], sys.argv[3]
PYTHON = sys.argv[4] if len(sys.argv) > 4 else ''
WORKLOAD = os.path.join(SRC, 'tests', 'gpu_workload.py')
rows = []


def row(check, measured, against, ok):
    verdict = ok if isinstance(ok, str) else ('pass' if ok else 'FAIL')
    rows.append((check, measured, against, verdict))
    print(f'| {check} | {measured} | {against} | {verdict} |', flush=True)


def tracked(*args, st='0.2'):
    """gpu-tracker's JSON summary of a run of gpu_workload.py ARGS, and the job's output."""
    with tempfile.NamedTemporaryFile(suffix='.json') as out:
        run = subprocess.run([GT, '-q', '--st', st, '--gru', 'bytes', '--tu', 'seconds', '-f', 'json',
                              '-o', out.name, '--', sys.executable, WORKLOAD, *args],
                             capture_output=True, text=True, timeout=300)
        if run.returncode != 0:
            raise RuntimeError(f'gpu-tracker exited {run.returncode}: {run.stderr.strip()[-400:]}')
        with open(out.name) as f:
            return json.load(f), run.stdout


def job_figure(stdout, key):
    m = re.search(rf'^{key} (\d+)', stdout, re.M)
    return int(m.group(1)) if m else None


class Nvml:
    """The driver's own counters through libnvidia-ml.so.1, read directly."""

    def __init__(self):
        self.lib = ctypes.CDLL('libnvidia-ml.so.1')
        assert self.lib.nvmlInit_v2() == 0
        self.handle = ctypes.c_void_p()
        assert self.lib.nvmlDeviceGetHandleByIndex_v2(0, ctypes.byref(self.handle)) == 0

    def text(self, fn, of_device=False):
        """A string the driver gives: of the system, or of GPU 0 ("unknown"
        where the library lacks the call)."""
        buf = ctypes.create_string_buffer(96)
        call = getattr(self.lib, fn, None)
        if call is None or call(*([self.handle] if of_device else []), buf, 96) != 0:
            return 'unknown'
        return buf.value.decode()

    def energy_mj(self):
        e = ctypes.c_ulonglong()
        rc = self.lib.nvmlDeviceGetTotalEnergyConsumption(self.handle, ctypes.byref(e))
        return e.value if rc == 0 else None


def check_tensors(context):
    d, out = tracked('1024', '3')
    ours = d['max_gpu_ram']['main']
    reserved = job_figure(out, 'reserved')
    want = reserved + context
    slack = max(128 * MIB, 0.1 * want)
    row('a job of 1 GiB of tensors: its GPU memory (main peak)', f'{ours / MIB:.0f} MiB',
        f'memory_reserved {reserved / MIB:.0f} MiB + context {context / MIB:.0f} MiB, '
        f'within {slack / MIB:.0f} MiB', abs(ours - want) <= slack)


def check_pair(context):
    d, _ = tracked('pair', '512', '768', '3')
    ours = d['max_gpu_ram']['descendants']
    low = (512 + 768) * MIB
    row('two processes on one GPU: the descendants\' peak', f'{ours / MIB:.0f} MiB',
        f'at least 1280 MiB (512 + 768), at most that + 2 contexts ({2 * context / MIB:.0f} MiB) + 256 MiB',
        low <= ours <= low + 2 * context + 256 * MIB)


def check_short_child():
    # --st 30: no sample can fall in the child's life (0.5 s after the start,
    # CUDA up and 0.3 s of work, ended 0.5 s before the command).
    d, _ = tracked('spawn', '1024', '0.3', st='30')
    acc = d['gpu_run']['accounting']
    desc = d['max_gpu_ram']['descendants']
    source = d['measurement']['sources']['max_gpu_ram']
    if acc['available']:
        row('a child on the GPU 0.3 s between samples, accounting on',
            f'{desc / MIB:.0f} MiB from its record ({acc["ended_unseen"]} unseen)',
            'at least 1024 MiB', desc >= 1024 * MIB and acc['ended_unseen'] >= 1)
    else:
        row('a child on the GPU 0.3 s between samples, accounting off',
            f'{desc / MIB:.0f} MiB; sources: "{source[:60]}..."',
            'said missed (not a zero taken as exact)', 'missed' in source and desc < 1024 * MIB)


def check_idle():
    d, _ = tracked('idle', '256', '4')
    idle = d.get('gpu_idle') or {}
    gpus = idle.get('gpus') or [{}]
    row('a process holding 256 MiB idle for 4 s', f'idle_gpus {idle.get("idle_gpus")}, GPU 0 idle '
        f'{gpus[0].get("idle_percent", 0):.0f}% of its samples', 'named idle (1)',
        idle.get('idle_gpus') == 1)


def check_energy(nvml):
    before = nvml.energy_mj()
    if before is None:
        row('GPU energy against the driver\'s counter', '-', '-',
            'skipped: the GPU has no energy counter')
        return
    d, _ = tracked('1024', '6')
    after = nvml.energy_mj()
    direct = (after - before) / 1000
    ours = d['energy']['gpu']['joules'] if d['energy']['gpu']['available'] else None
    row('GPU energy of a 6 s busy job against the counter read directly around the run',
        f'{ours:.0f} J' if ours is not None else 'not available',
        f'{direct:.0f} J (ours between 80 % and 100 % of it: the tracker reads inside the run)',
        ours is not None and 0.8 * direct <= ours <= direct * 1.01)


def check_sample_cost():
    calls = subprocess.run([os.path.join(BUILD, 'bench', 'gt-bench-gpu-calls'), '200'],
                           capture_output=True, text=True, timeout=300).stdout
    floor = 0.0
    for name in ('nvmlDeviceGetMemoryInfo', 'nvmlDeviceGetUtilizationRates',
                 'nvmlDeviceGetComputeRunningProcesses_v3'):
        m = re.search(rf'^{name}\s+every sample\s+([\d.]+)', calls, re.M)
        if not m:
            row('a GPU sample\'s CPU against the three NVML calls', '-', '-',
                f'skipped: {name} not measured')
            return
        floor += float(m.group(1))
    readers = subprocess.run([os.path.join(BUILD, 'bench', 'gt-bench-readers')],
                             capture_output=True, text=True, timeout=400).stdout
    m = re.search(r'^GPU sample, summary tier\s+every sample\s+([\d.]+)', readers, re.M)
    if not m:
        why = re.search(r'^GPU sample, summary tier.*not measured: (.*)$', readers, re.M)
        row('a GPU sample\'s CPU against the three NVML calls', '-', f'floor {floor:.1f} us',
            f'skipped: {why.group(1).strip()}' if why else 'FAIL: no GPU sample row')
        return
    sample = float(m.group(1))
    row('a GPU sample\'s CPU (summary tier) against the three NVML calls it cannot do without',
        f'{sample:.1f} us CPU', f'{floor:.1f} us (memory, utilization, processes); at most 2x',
        sample <= 2 * floor)


def check_input_bound():
    d, out = tracked('loader', '15')
    w = (d.get('gpu_idle') or {}).get('waiting') or {}
    row('a training loop with a slow DataLoader (2 workers, 30 ms of CPU a sample)',
        f'verdict {w.get("verdict")}, workers {w.get("workers", {}).get("command")} '
        f'{100 * w.get("workers", {}).get("seconds", 0) / max(w.get("gpu_seconds", 0), 1e-9):.0f}% '
        f'of the GPU time, GPU {w.get("waiting_busy_percent", 0):.0f}% busy; {out.strip()}',
        '"workers" (storage may join it on a machine whose disks were busy)',
        'workers' in (w.get('verdict') or []))
    d, _ = tracked('1024', '6')
    w = (d.get('gpu_idle') or {}).get('waiting') or {}
    row('the converse: a GPU-bound loop', f'verdict {w.get("verdict")}, waiting '
        f'{w.get("waiting_seconds", 0):.1f} of {w.get("gpu_seconds", 0):.1f} s', 'none',
        w.get('verdict') == [])


def activity(d):
    """The job's activity counters, {name: mean percent}, and the verdict."""
    act = (d.get('gpu_run') or {}).get('activity') or {}
    means = {k: v['mean_percent'] for k, v in (act.get('counters') or {}).items()}
    verdict = ((d.get('gpu_idle') or {}).get('waiting') or {}).get('verdict') or []
    return means, verdict, act.get('reason', '')


def check_activity():
    runs = {}
    for mode in ('bf16', 'sleep', 'copy'):
        d, _ = tracked(mode, '6')
        runs[mode] = activity(d)
    means, _, why = runs['bf16']
    if 'sm' not in means:
        for name in ('bf16 matmul: SM and tensor activity', 'torch.cuda._sleep: busy but the SMs idle',
                     'device-to-device copies: DRAM bandwidth'):
            row(name, '-', '-', f'skipped: no GPM counters here ({why})')
        return
    row('a bf16 matmul loop: SM and tensor activity', f'SM {means["sm"]:.0f}%, tensor '
        f'{means.get("tensor", 0):.0f}%', 'SM at least 80 %, tensor above 0',
        means['sm'] >= 80 and means.get('tensor', 0) > 0)
    means, verdict, _ = runs['sleep']
    row('torch.cuda._sleep in a loop: busy but the SMs idle', f'SM {means.get("sm", 0):.1f}%, '
        f'verdict {verdict}', '"sms_idle" (utilization >= 90 % with SM activity <= 10 %)',
        'sms_idle' in verdict)
    dram = {m: runs[m][0].get('dram', 0) for m in runs}
    row('device-to-device copies: DRAM bandwidth', ', '.join(f'{m} {v:.0f}%' for m, v in dram.items()),
        'the copy loop\'s the largest of the three', dram['copy'] > max(dram['bf16'], dram['sleep']))


def check_share():
    """Two processes on one GPU at different loads: the tracked one's share and
    the other's, each against its kernels' measured time."""
    other = subprocess.Popen([sys.executable, WORKLOAD, 'duty', '0.25', '9'], stdout=subprocess.PIPE,
                             text=True)
    try:
        d, out = tracked('duty', '0.6', '6')
    finally:
        other_out, _ = other.communicate(timeout=120)
    m, o = re.search(r'kernel_share ([\d.]+)', out), re.search(r'kernel_share ([\d.]+)', other_out)
    share = ((d.get('gpu_run') or {}).get('activity') or {}).get('share') or {}
    if not share.get('available'):
        row('two processes sharing a GPU: each one\'s share', '-', '-',
            f'skipped: {share.get("reason", "no share")}')
        return
    job, others = 100 * share['job_sm_share'], 100 * share['others_sm_share']
    want_job, want_other = 100 * float(m.group(1)), 100 * float(o.group(1))
    row('two processes sharing a GPU (kernels 60 % and 25 % of the time): each one\'s share',
        f'job {job:.0f}%, other {others:.0f}%', f'kernel time {want_job:.0f}% and {want_other:.0f}%, '
        'each within 15 points', abs(job - want_job) <= 15 and abs(others - want_other) <= 15)


ALLOCATOR_JOB = r'''
import json, time, torch, gputracker
with gputracker.Tracker(sleep_time=0.2, disable_logs=True) as t:
    x = torch.empty(512 * 2**20, dtype=torch.uint8, device="cuda")
    time.sleep(1)
    del x
    time.sleep(0.5)
print(json.dumps(t.gpu_memory))
'''


def check_allocator():
    if not PYTHON:
        row('the Python Tracker reading PyTorch\'s allocator', '-', '-',
            'skipped: no interpreter with gputracker built (scripts/python-venv.sh)')
        return
    run = subprocess.run([PYTHON, '-c', ALLOCATOR_JOB], capture_output=True, text=True, timeout=300)
    if run.returncode != 0:
        row('the Python Tracker reading PyTorch\'s allocator', '-', '-',
            f'FAIL: {run.stderr.strip()[-300:]}')
        return
    g = json.loads(run.stdout.splitlines()[-1]) or {}
    p = g.get('at_peak', {})
    row('the Python Tracker reading PyTorch\'s allocator (512 MiB of tensors)',
        f'allocated {p.get("allocated_bytes", 0) / MIB:.0f} MiB of reserved '
        f'{p.get("reserved_bytes", 0) / MIB:.0f} MiB; driver {(g.get("driver_peak_bytes") or 0) / MIB:.0f} MiB, '
        f'other {(g.get("other_bytes") or 0) / MIB:.0f} MiB', 'allocated 512 MiB at the peak',
        p.get('allocated_bytes', 0) >= 512 * MIB)


def main():
    nvml = Nvml()
    driver = nvml.text('nvmlSystemGetDriverVersion')
    gpu = nvml.text('nvmlDeviceGetName', True)
    import torch
    print(f'Run of {datetime.date.today()}: driver {driver}, {gpu}, PyTorch {torch.__version__} '
          f'(CUDA {torch.version.cuda}), {GT}\n', flush=True)
    print('| check | measured | against | result |\n|---|---|---|---|', flush=True)
    d, out = tracked('context', '2')
    context = d['max_gpu_ram']['main'] - (job_figure(out, 'reserved') or 0)
    row('a process\'s CUDA context (one small tensor)', f'{context / MIB:.0f} MiB', '(measured, '
        'for the checks below)', 'pass')
    checks = [('tensors', lambda: check_tensors(context)), ('pair', lambda: check_pair(context)),
              ('short child', check_short_child), ('idle holder', check_idle),
              ('energy', lambda: check_energy(nvml)), ('sample cost', check_sample_cost),
              ('input-bound', check_input_bound), ('activity', check_activity),
              ('share', check_share), ('allocator', check_allocator)]
    # GT_VALIDATION_SKIP: checks left out by name, comma-separated (the run
    # against the fakes leaves out the cost, a timing of the fake library).
    skip = {n.strip() for n in os.environ.get('GT_VALIDATION_SKIP', '').split(',') if n.strip()}
    for name, check in checks:
        if name in skip:
            row(name, '-', '-', 'skipped: left out (GT_VALIDATION_SKIP)')
            continue
        try:
            check()
        except Exception as e:  # one check's failure does not hide the others'
            row(name, '-', '-', f'FAIL: {type(e).__name__}: {e}')
    return 0 if all(r[3] == 'pass' or r[3].startswith('skipped') for r in rows) else 1


if __name__ == '__main__':
    sys.exit(main())
