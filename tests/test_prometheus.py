#!/usr/bin/python3
"""The exporter against the real thing: a Prometheus server (Debian's
`prometheus`) on loopback scrapes a tracked job's --metrics-listen port, and
its query API must give the job's peak RSS and CPU counter with the right
values and labels; promtool (same package) checks the --metrics-textfile
output.

usage: test_prometheus.py GPU_TRACKER WORKLOAD
Exit 77 (skipped, with the reason) where Prometheus is not installed or its
server cannot start here. Everything listens on 127.0.0.1 only."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile

from realtest import HANG_GUARD, check, failures, get, query, skip, start_prometheus, wait_for


def start_tracked_job(gt, workload, tmp, extra):
    """gpu-tracker running `workload hold 64 0.3` with the exporter options
    extra; returns the process and the held workload's own CPU seconds."""
    fifo = os.path.join(tmp, "stdin")
    if os.path.exists(fifo):
        os.unlink(fifo)
    os.mkfifo(fifo)
    env = dict(os.environ, SLURM_JOB_ID="4242", SLURM_PROCID="1", SLURM_NTASKS="2",
               SLURMD_NODENAME="node07")
    out = open(os.path.join(tmp, "job.out"), "w+")
    err = open(os.path.join(tmp, "job.err"), "w+")
    # The workload waits for EOF on its stdin: a FIFO we hold open.
    proc = subprocess.Popen(["sh", "-c", 'exec "$@" < "$0"', fifo, gt, "--st", "0.1",
                             "--no-backup", "-f", "json", "--ru", "bytes", "-o",
                             os.path.join(tmp, "summary.json")] + extra +
                            ["--", workload, "hold", "64", "0.3"],
                            stdout=out, stderr=err, env=env)
    writer = open(fifo, "wb")
    held = wait_for("the workload to hold its memory",
                    lambda: [l for l in open(out.name).read().splitlines()
                             if l.startswith("held cpu ")])
    return proc, writer, float(held[0].split()[2]), err


def finish_job(proc, writer):
    writer.close()  # EOF: the workload exits
    try:
        return proc.wait(timeout=HANG_GUARD)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise SystemExit("test_prometheus: the tracked job did not end")


def test_scrape(gt, workload, tmp):
    prometheus = shutil.which("prometheus")
    proc, writer, cpu, err = start_tracked_job(gt, workload, tmp, ["--metrics-listen", "0"])
    line = wait_for("the metrics address", lambda: [
        l for l in open(err.name).read().splitlines() if "serving metrics at http://" in l])
    target = line[0].split("http://")[1].split("/")[0]

    server, base = start_prometheus(
        prometheus, "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
        "scrape_configs:\n  - job_name: gpu-tracker\n"
        "    static_configs:\n      - targets: ['%s']\n" % target, tmp)
    if server is None:
        finish_job(proc, writer)
        skip("the Prometheus server cannot start here: " + base)
    try:
        # A scrape after the workload held its memory and burnt its CPU.
        labels = 'job_id="4242",task_rank="1",command="gt-workload"'
        counter = wait_for("a scrape with the burnt CPU", lambda: [
            r for r in query(base, 'gpu_tracker_cpu_seconds_total{part="main",job_id="4242"}')
            if float(r["value"][1]) >= cpu - 0.05])
        peak = query(base, 'gpu_tracker_memory_peak_rss_bytes{part="combined",%s}' % labels)
        targets = json.loads(get(base + "/api/v1/targets")[1])["data"]["activeTargets"]
    finally:
        status = finish_job(proc, writer)
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=HANG_GUARD)
    check(status == 0, "gpu-tracker exit status %s" % status)
    check(len(targets) == 1 and targets[0]["health"] == "up",
          "the target is scraped: %s" % targets)
    summary = json.load(open(os.path.join(tmp, "summary.json")))
    final_peak = summary["max_ram"]["combined"]["total_rss"]
    check(len(peak) == 1, "one peak series: %s" % peak)
    if peak:
        got = float(peak[0]["value"][1])
        m = peak[0]["metric"]
        # The workload held 64 MiB and allocated nothing after: the peak
        # Prometheus saw is the run's final peak.
        check(got >= 64 * 2**20, "peak %d below the 64 MiB held" % got)
        check(abs(got - final_peak) <= 2**20,
              "peak scraped %d, the run's summary %d" % (got, final_peak))
        check(m.get("host") == socket.gethostname().split(".")[0] or
              m.get("host") == socket.gethostname(), "host label %s" % m)
        check(m.get("job_id") == "4242" and m.get("task_rank") == "1" and
              m.get("command") == "gt-workload" and m.get("job") == "gpu-tracker",
              "labels %s" % m)
    # The counter: the kernel's own count of the workload's CPU (whole
    # clock ticks apart at most, as /proc reports it).
    got_cpu = float(counter[0]["value"][1])
    check(abs(got_cpu - cpu) <= 0.05, "CPU counter %g, the workload's own %g" % (got_cpu, cpu))
    print("test_prometheus: Prometheus has peak RSS %s B (the run's summary: %s B), CPU %s s "
          "(the workload's own count: %.3f s), labels %s" % (
              peak[0]["value"][1] if peak else "?", final_peak, got_cpu, cpu,
              peak[0]["metric"] if peak else "?"))


def test_textfile(gt, workload, tmp):
    promtool = shutil.which("promtool")
    textdir = os.path.join(tmp, "textfile")
    os.mkdir(textdir)
    proc, writer, cpu, err = start_tracked_job(gt, workload, tmp,
                                               ["--metrics-textfile", textdir])
    files = wait_for("the textfile", lambda: [f for f in os.listdir(textdir)
                                              if f.endswith(".prom")])
    check(len(files) == 1 and files[0].startswith("gpu-tracker-"), "files %s" % files)
    # A textfile written after the burn (at most a second apart).
    path = os.path.join(textdir, files[0])
    text = wait_for("a textfile after the burn", lambda: (
        lambda t: t if 'gpu_tracker_cpu_seconds_total' in t and any(
            float(l.split()[-1]) >= cpu - 0.05 for l in t.splitlines()
            if l.startswith("gpu_tracker_cpu_seconds_total") and 'part="main"' in l) else None)(
        open(path).read() if os.path.exists(path) else ""))
    r = subprocess.run([promtool, "check", "metrics"], input=text, capture_output=True, text=True)
    check(r.returncode == 0 and r.stdout == "" and r.stderr == "",
          "promtool check metrics: %d %s %s" % (r.returncode, r.stdout, r.stderr))
    check('job_id="4242"' in text and 'command="gt-workload"' in text, "labels in the textfile")
    status = finish_job(proc, writer)
    check(status == 0, "gpu-tracker exit status %s" % status)
    check(os.listdir(textdir) == [], "the textfile is removed at the end: %s" % os.listdir(textdir))


def main():
    gt, workload = sys.argv[1], sys.argv[2]
    if not shutil.which("prometheus") or not shutil.which("promtool"):
        skip("Prometheus is not installed (Debian package prometheus; make check installs it "
             "as root)")
    tmp = tempfile.mkdtemp(prefix="gt-prometheus-")
    try:
        test_textfile(gt, workload, tmp)
        test_scrape(gt, workload, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("test_prometheus: %d failed" % len(failures))
        return 1
    print("test_prometheus: a real Prometheus scraped the job; promtool took the textfile")
    return 0


if __name__ == "__main__":
    sys.exit(main())
