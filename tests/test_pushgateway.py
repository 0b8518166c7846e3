#!/usr/bin/python3
"""--metrics-push against the real thing: Debian's prometheus-pushgateway on
loopback takes a tracked Slurm task's pushes (during the run and at its end),
the real Prometheus scrapes the Pushgateway, and `promtool query instant`
reads the task's peak back, equal to the run's own summary. A push that
cannot be made (nothing listening; a server that never answers) is one
warning, and the command's exit status is its command's.

usage: test_pushgateway.py GPU_TRACKER WORKLOAD
Exit 77 (skipped, with the reason) where the Pushgateway or Prometheus is not
installed or cannot start here. Everything listens on 127.0.0.1 only."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading

from realtest import (HANG_GUARD, check, finish, free_port, get, prometheus_on_pushgateway, query,
                      skip, start_pushgateway, stop_server, wait_for)

SLURM_TASK = dict(SLURM_JOB_ID="4242", SLURM_STEP_ID="0", SLURM_PROCID="1", SLURM_NTASKS="2",
                  SLURMD_NODENAME="node07")


def run(argv, env=None):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=HANG_GUARD,
                       env=dict(os.environ, **(env or {})))
    return r.returncode, r.stdout, r.stderr


def test_push(gt, workload, tmp, gateway):
    """A task that holds 64 MiB: a push while it runs (every 0.5 s), the last
    at its end; Prometheus scrapes the Pushgateway; promtool reads it back."""
    fifo = os.path.join(tmp, "stdin")
    os.mkfifo(fifo)
    summary_path = os.path.join(tmp, "summary.json")
    err = open(os.path.join(tmp, "job.err"), "w+")
    proc = subprocess.Popen(["sh", "-c", 'exec "$@" < "$0"', fifo, gt, "--st", "0.1", "--no-backup",
                             "-f", "json", "--ru", "bytes", "-o", summary_path,
                             "--metrics-push", gateway, "--metrics-push-interval", "0.5",
                             "--", workload, "hold", "64", "0.2"],
                            stdout=subprocess.DEVNULL, stderr=err, env=dict(os.environ, **SLURM_TASK))
    writer = open(fifo, "w")
    group = 'job="gpu-tracker",job_id="4242"'
    # A push while the task still runs: its group is there before the end.
    during = wait_for("a push during the run", lambda: [
        line for line in get(gateway + "/metrics")[1].splitlines()
        if line.startswith("gpu_tracker_memory_peak_rss_bytes{") and group in line])
    writer.close()
    status = proc.wait(timeout=HANG_GUARD)
    check(status == 0, "gpu-tracker exit status %s: %s" % (status, open(err.name).read()))
    check("push" not in open(err.name).read(), "no push warning: %r" % open(err.name).read())
    check(len(during) == 3, "one group's three peak series during the run: %s" % during)

    pushed = get(gateway + "/metrics")[1]
    final_peak = json.load(open(summary_path))["max_ram"]["combined"]["total_rss"]
    line = [l for l in pushed.splitlines()
            if l.startswith('gpu_tracker_memory_peak_rss_bytes{') and 'part="combined"' in l]
    check(len(line) == 1, "one combined peak in the Pushgateway: %s" % line)
    for label in ('job="gpu-tracker"', 'job_id="4242"', 'step_id="0"', 'task_rank="1"',
                  'host="%s"' % socket.gethostname(), 'command="gt-workload"'):
        check(line and label in line[0], "label %s in %s" % (label, line))
    # The last push is of the stop's own sample; the summary may still raise
    # its peak from the kernel's high-water mark read after (wait4): within 1 MiB.
    check(line and abs(float(line[0].rsplit(" ", 1)[1]) - final_peak) <= 2**20,
          "the pushed peak %s is the summary's %s" % (line, final_peak))
    check("# HELP gpu_tracker_memory_peak_rss_bytes " in pushed, "the exporter's help text")
    # the last push's sample read the I/O counters (only the samples pushed read them)
    check(any(l.startswith("gpu_tracker_io_read_bytes_total{") and group in l
              for l in pushed.splitlines()), "the I/O counters pushed at the end")

    server, base = prometheus_on_pushgateway(gateway, tmp)
    try:
        q = 'gpu_tracker_memory_peak_rss_bytes{part="combined",job="gpu-tracker",job_id="4242",task_rank="1"}'
        wait_for("Prometheus to have scraped the Pushgateway", lambda: query(base, q))
        r = subprocess.run(["promtool", "query", "instant", "-o", "json", base, q],
                           capture_output=True, text=True, timeout=HANG_GUARD)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=HANG_GUARD)
    check(r.returncode == 0, "promtool query instant: %s %s" % (r.stdout, r.stderr))
    got = json.loads(r.stdout) if r.returncode == 0 else []
    check(len(got) == 1 and line and float(got[0]["value"][1]) == float(line[0].rsplit(" ", 1)[1]),
          "promtool reads %s, the Pushgateway holds %s" % (got, line))
    print("test_pushgateway: Prometheus, through the Pushgateway, has the task's peak RSS %s B "
          "(the run's summary: %s B), labels %s" % (
              got[0]["value"][1] if got else "?", final_peak, got[0]["metric"] if got else "?"))


def test_push_failures(gt, tmp):
    """Nothing at the URL, then a server that takes the connection and never
    answers: one warning each, the command's exit status, no hang."""
    closed = "http://127.0.0.1:%d" % free_port()
    status, out, err = run([gt, "-q", "--no-backup", "--metrics-push", closed, "--metrics-push-interval",
                            "0.2", "--", "sh", "-c", "sleep 0.5; exit 3"], SLURM_TASK)
    check(status == 3, "exit status %s with the Pushgateway down (want the command's 3)" % status)
    warnings = [l for l in err.splitlines() if "cannot push metrics" in l]
    check(len(warnings) == 1 and closed + "/metrics/job/gpu-tracker/job_id/4242/step_id/0/task_rank/1/"
          "host/" in warnings[0], "one warning naming the group's URL: %r" % err)

    silent = socket.socket()
    silent.bind(("127.0.0.1", 0))
    silent.listen(8)
    held = []
    stop = threading.Event()

    def accept():
        silent.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(silent.accept()[0])  # read nothing, answer nothing
            except OSError:
                pass
    t = threading.Thread(target=accept)
    t.start()
    try:
        url = "http://127.0.0.1:%d" % silent.getsockname()[1]
        status, out, err = run([gt, "-q", "--no-backup", "--metrics-push", url, "--", "sh", "-c",
                                "exit 4"])
    finally:
        stop.set()
        t.join()
        for c in held:
            c.close()
        silent.close()
    check(status == 4, "exit status %s with a Pushgateway that never answers" % status)
    check(len([l for l in err.splitlines() if "cannot push metrics" in l and
               ("timed out" in l.lower() or "timeout" in l.lower())]) == 1,
          "one warning saying it timed out: %r" % err)
    check("/metrics/job/gpu-tracker/host/" in err and "/pid/" in err,
          "outside Slurm the group is the host and the PID: %r" % err)


def main():
    gt, workload = sys.argv[1], sys.argv[2]
    for tool in ("prometheus-pushgateway", "prometheus", "promtool"):
        if not shutil.which(tool):
            skip("%s is not installed (Debian packages prometheus-pushgateway and prometheus; "
                 "make check installs them as root)" % tool)
    tmp = tempfile.mkdtemp(prefix="gt-pushgateway-")
    gateway_proc = None
    try:
        gateway_proc, gateway = start_pushgateway(tmp)
        test_push(gt, workload, tmp, gateway)
        test_push_failures(gt, tmp)
    finally:
        stop_server(gateway_proc)
        shutil.rmtree(tmp, ignore_errors=True)
    return finish("test_pushgateway")


if __name__ == "__main__":
    sys.exit(main())
