#!/usr/bin/python3
"""The SPANK plugin under a real Slurm (one node on loopback: slurmctld,
slurmd, munge, as test_slurm.py starts them) loading spank_gputracker.so
from plugstack.conf:

* a job submitted by an ordinary user (nobody) with `srun --gpu-track -n 2`
  on a workload of known peak: one snapshot per task, written as that user
  (owner nobody, mode 0600, in a directory of theirs with mode 0700), with
  the task's identity and a peak within the usual bounds; `gpu-tracker job`
  naming both tasks and what was asked against what was used; each task's
  last push found in the Pushgateway and, through it, in Prometheus;
* a job whose environment forges its ids (SLURM_ARRAY_JOB_ID,
  SLURMD_NODENAME, SLURM_CPUS_PER_TASK) has Slurm's ids in its snapshot,
  its pushed labels and `gpu-tracker job`, and its GPUs given said to be
  the job's own word;
* a job whose own process stops the plugin's opener (SIGSTOP, as its user
  may) ends: slurmstepd gives the opener up after its deadline and says so;
* a Pushgateway that accepts and never answers costs each task's exit one
  timeout, said once a task;
* a job the plugin cannot serve (an output directory that cannot be made, a
  Pushgateway that is down) succeeds all the same with its own exit status,
  and slurmd's log says why.

usage: test_slurm_spank.py GPU_TRACKER WORKLOAD PLUGIN
Exit 77 (skipped, with the reason) where Slurm or the Pushgateway is not
installed, we are not root, or a daemon cannot start here."""

import glob
import gzip
import json
import os
import pwd
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading

from realtest import (HANG_GUARD, check, finish, free_port, get, prometheus_on_pushgateway, query,
                      skip, start_pushgateway, stop_server, wait_for)
from test_slurm import Cluster

PEAK_MIB = 96  # what each task allocates and touches


def plugstack(tmp, args):
    with open(os.path.join(tmp, "plugstack.conf"), "w") as f:
        f.write("optional %s %s\n" % (os.path.join(tmp, "spank_gputracker.so"), " ".join(args)))


def as_user(cluster, user, argv):
    """argv run as user with the cluster's environment (runuser keeps it)."""
    return subprocess.run(["runuser", "-u", user, "--"] + argv, env=cluster.env, cwd=cluster.tmp,
                          capture_output=True, text=True, timeout=HANG_GUARD)


def main():
    gt, workload, plugin = sys.argv[1], sys.argv[2], sys.argv[3]
    for tool in ("slurmctld", "slurmd", "munged", "srun", "sinfo", "runuser"):
        if not shutil.which(tool) and not os.path.exists("/usr/sbin/" + tool):
            skip("%s is not installed (Debian packages slurmctld, slurmd, slurm-client, munge, "
                 "util-linux; make check installs them as root)" % tool)
    if not os.path.exists(plugin):
        skip("the plugin was not built: Slurm's spank.h is missing (Debian package "
             "libslurm-dev; make check installs it as root)")
    for tool in ("prometheus-pushgateway", "prometheus", "promtool"):
        if not shutil.which(tool):
            skip("%s is not installed (make check installs it as root)" % tool)
    if os.geteuid() != 0:
        skip("slurmd must run as root, and this test is not root")
    try:
        nobody = pwd.getpwnam("nobody")
    except KeyError:
        skip("there is no user 'nobody' to submit the job as")
    os.environ["PATH"] = os.environ.get("PATH", "") + ":/usr/sbin"
    tmp = tempfile.mkdtemp(prefix="gt-spank-")
    os.chmod(tmp, 0o755)
    # What the job's user runs and what slurmstepd loads, where both may read.
    shutil.copy(workload, os.path.join(tmp, "gt-workload"))
    shutil.copy(plugin, os.path.join(tmp, "spank_gputracker.so"))
    spool = os.path.join(tmp, "spool-gt")  # the site's directory: made by the plugin, root's
    gateway_proc = None
    cluster = Cluster(tmp, "PlugStackConfig=%s\nSlurmdDebug=verbose\n" % os.path.join(tmp, "plugstack.conf"),
                      select="CR_Core_Memory")
    try:
        gateway_proc, gateway = start_pushgateway(tmp)
        plugstack(tmp, ["default=off", "sleep_time=0.1", "push=" + gateway,
                        "output=%s/%%u/%%j/%%s-%%t.json.gz" % spool])
        cluster.start()
        os.chmod(cluster.conf, 0o644)

        # Without --gpu-track (default=off) nothing is tracked.
        r = as_user(cluster, "nobody", ["srun", "-n", "1", os.path.join(tmp, "gt-workload"),
                                        "alloc", "8"])
        check(r.returncode == 0, "a job without --gpu-track: %d %s" % (r.returncode, r.stderr))
        check(not os.path.exists(os.path.join(spool, "nobody")), "nothing tracked without it")

        # srun --gpu-track -n 2, as nobody.
        r = as_user(cluster, "nobody", ["srun", "--gpu-track", "-n", "2", "--mem=100M",
                                        "--input=none", os.path.join(tmp, "gt-workload"), "hold", str(PEAK_MIB), "0.5"])
        check(r.returncode == 0 and r.stderr == "",
              "srun --gpu-track -n 2 as nobody: %d %r" % (r.returncode, r.stderr))
        files = sorted(glob.glob(os.path.join(spool, "nobody", "*", "0-*.json.gz")))
        check(len(files) == 2, "a snapshot per task: %s; slurmd.log: %s" % (
            files, open(os.path.join(tmp, "slurmd.log"), errors="replace").read()[-1500:]))
        job = os.path.basename(os.path.dirname(files[0])) if files else "?"
        user_dir, job_dir = os.path.join(spool, "nobody"), os.path.join(spool, "nobody", job)
        for d in (user_dir, job_dir):
            st = os.stat(d) if os.path.exists(d) else None
            check(st and st.st_uid == nobody.pw_uid and stat.S_IMODE(st.st_mode) == 0o700,
                  "%s: owner nobody, mode 0700: %r" % (d, st))
        st = os.stat(spool)
        check(st.st_uid == 0 and stat.S_IMODE(st.st_mode) == 0o711, "the site's directory: %r" % (st,))
        peaks = {}
        for rank, path in enumerate(files):
            st = os.stat(path)
            check(st.st_uid == nobody.pw_uid and stat.S_IMODE(st.st_mode) == 0o600,
                  "%s: owner nobody, mode 0600: uid %d mode %o" % (path, st.st_uid, st.st_mode))
            check(os.path.basename(path) == "0-%d.json.gz" % rank, path)
            with gzip.open(path, "rt") as f:
                snap = json.load(f)
            j = snap["metadata"].get("job") or {}
            check(j.get("job_id") == job and j.get("task_rank") == str(rank) and
                  j.get("step_id") == "0" and j.get("ntasks") == 2,
                  "task %d's identity: %s" % (rank, j))
            peak = snap["summary"]["max_ram"]["combined"]["total_rss"]
            unit = snap["summary"]["max_ram"]["unit"]
            factor = {"bytes": 1, "kilobytes": 1e3, "megabytes": 1e6, "gigabytes": 1e9}[unit]
            peaks[rank] = peak * factor
            # the workload touched PEAK_MIB: at least that, and not twice it
            check(PEAK_MIB * 2**20 <= peaks[rank] <= 2 * PEAK_MIB * 2**20,
                  "task %d's peak %d B for %d MiB touched" % (rank, peaks[rank], PEAK_MIB))
            check(snap["metadata"].get("exit_status") == 0,
                  "task %d's exit status: %s" % (rank, snap["metadata"].get("exit_status")))

        # gpu-tracker job: both tasks, and what was asked against what was used.
        r = subprocess.run([gt, "job", job_dir], capture_output=True, text=True)
        check(r.returncode == 0, "gpu-tracker job: %d %s" % (r.returncode, r.stderr))
        for want in ("Job ID: %s" % job, "task 0 of step 0", "task 1 of step 0",
                     "CPUs: 2 requested", "Memory: 100.0 MiB requested", "--mem-per-cpu="):
            check(want in r.stdout, "gpu-tracker job says %r: %s" % (want, r.stdout))
        # by its id, found where plugstack.conf says the plugin leaves snapshots
        r2 = subprocess.run([gt, "job", job, "--plugstack", os.path.join(tmp, "plugstack.conf"),
                             "--user", "nobody", "-f", "human"], capture_output=True, text=True)
        check(r2.returncode == 0 and "Job %s" % job in r2.stdout and "task 1 of step 0" in r2.stdout
              and "MiB" in r2.stdout, "gpu-tracker job JOBID: %d %s %s" % (
                  r2.returncode, r2.stdout, r2.stderr))
        r2 = subprocess.run([gt, "job", "999999", "--plugstack", os.path.join(tmp, "plugstack.conf"),
                             "--user", "nobody"], capture_output=True, text=True)
        check(r2.returncode == 1 and r2.stderr.startswith("gpu-tracker: no snapshot of job 999999 of "
                                                          "user nobody where the plugin leaves them"),
              "a job without snapshots: %d %r" % (r2.returncode, r2.stderr))
        r = subprocess.run([gt, "job", job_dir, "-f", "json"], capture_output=True, text=True)
        doc = json.loads(r.stdout) if r.returncode == 0 else {}
        check([t.get("task_rank") for t in doc.get("tasks", [])] == ["0", "1"],
              "the JSON's tasks: %s %s" % (r.stdout[:1500], r.stderr))
        check(doc.get("requested", {}).get("cpus") == 2 and
              doc.get("requested", {}).get("memory_mib") == 100 and
              doc.get("used", {}).get("memory_peak_mib", 0) >= 2 * PEAK_MIB and
              all(t.get("memory_peak_held_by") for t in doc.get("tasks", [])),
              "the JSON's request against use: %s" % {k: doc.get(k) for k in ("requested", "used")})

        # The last push of each task, in the Pushgateway and, through it, Prometheus.
        pushed = get(gateway + "/metrics")[1]
        for rank in (0, 1):
            line = [l for l in pushed.splitlines()
                    if l.startswith("gpu_tracker_memory_peak_rss_bytes{") and 'part="combined"' in l
                    and 'job_id="%s"' % job in l and 'task_rank="%d"' % rank in l]
            check(len(line) == 1 and abs(float(line[0].rsplit(" ", 1)[1]) - peaks.get(rank, 0))
                  <= 2**20, "task %d's pushed peak %s, its snapshot's %s" % (rank, line, peaks.get(rank)))
        server, base = prometheus_on_pushgateway(gateway, tmp)
        try:
            q = 'gpu_tracker_memory_peak_rss_bytes{part="combined",job_id="%s"}' % job
            got = wait_for("Prometheus to have both tasks", lambda: len(query(base, q)) == 2 and
                           query(base, q))
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(timeout=HANG_GUARD)
        check(sorted(g["metric"]["task_rank"] for g in got) == ["0", "1"],
              "Prometheus has both tasks: %s" % got)

        # The job's environment cannot forge who it is: the ids come from
        # Slurm's items and the host, and the GPUs given (which only the
        # job's environment says) are said to be the job's word.
        r = as_user(cluster, "nobody", ["env", "SLURM_ARRAY_JOB_ID=777", "SLURM_ARRAY_TASK_ID=3",
                                        "SLURMD_NODENAME=othernode", "SLURM_CPUS_PER_TASK=64",
                                        "CUDA_VISIBLE_DEVICES=0,1", "srun", "--gpu-track",
                                        "-n", "1", os.path.join(tmp, "gt-workload"), "alloc", "8"])
        check(r.returncode == 0, "a job with forged ids: %d %s" % (r.returncode, r.stderr))
        forged_dirs = [d for d in glob.glob(os.path.join(spool, "nobody", "*")) if d != job_dir]
        forged = glob.glob(os.path.join(forged_dirs[0], "0-0.json.gz")) if len(forged_dirs) == 1 else []
        check(len(forged) == 1, "the forged job's snapshot: %s" % forged_dirs)
        if forged:
            with gzip.open(forged[0], "rt") as f:
                snap = json.load(f)
            j = snap["metadata"].get("job") or {}
            check(j.get("array_job_id") is None and j.get("array_task_id") is None and
                  j.get("node") == cluster.node and j.get("job_id") == os.path.basename(forged_dirs[0])
                  and j.get("cpus_per_task") == 1,
                  "the job's environment forged its identity: %s (node %s)" % (j, cluster.node))
            idle = snap["metadata"].get("gpu_idle") or {}
            check(idle.get("requested") == 2 and
                  idle.get("requested_by") == "the job's CUDA_VISIBLE_DEVICES",
                  "the GPUs given, as the job's own word: %s" % idle)
            pushed = get(gateway + "/metrics")[1]
            check("othernode" not in pushed and 'job_id="%s"' % j.get("job_id") in pushed,
                  "the pushed labels carry Slurm's ids, not the job's")
            r = subprocess.run([gt, "job", forged_dirs[0]], capture_output=True, text=True)
            check(r.returncode == 0 and "Job ID: %s" % j.get("job_id") in r.stdout and
                  "777" not in r.stdout, "gpu-tracker job's ids: %s %s" % (r.stdout, r.stderr))

        # A job whose own process stops the plugin's opener (it runs with the
        # job's uid): slurmstepd gives it up after its deadline and the job
        # ends; without a deadline it would never end. The stopper watches
        # for slurmstepd's new children and stops one the moment it takes
        # the job's uid; that race is the kernel's, so up to three jobs.
        caught = 0
        for attempt in range(3):
            log_before = len(open(os.path.join(tmp, "slurmd.log"), errors="replace").read())
            try:
                r = subprocess.run(["runuser", "-u", "nobody", "--", "srun", "--gpu-track", "-n",
                                    "1", os.path.join(tmp, "gt-workload"), "stop-helpers", "4"],
                                   env=cluster.env, cwd=cluster.tmp, capture_output=True,
                                   text=True, timeout=90)
            except subprocess.TimeoutExpired:
                check(False, "a job that stops the plugin's opener hung slurmstepd")
                break
            check(r.returncode == 0, "a job that stops the opener: %d %r" % (r.returncode, r.stderr))
            log = open(os.path.join(tmp, "slurmd.log"), errors="replace").read()[log_before:]
            # stopped before its answer: given up, said; after it: written
            if "did not answer within 2000 ms" in log:
                check("the snapshot given up" in log and "stopped " in r.stderr,
                      "slurmd's log says the opener was given up: %s" % log[-1500:])
                caught += 1
                break
        print("test_slurm_spank: the stopper caught the opener in %d of %d jobs" % (
            caught, attempt + 1))

        # A Pushgateway that accepts and never answers, pushed to while the
        # task runs and at its end: each task's exit waits for it once.
        silent = socket.socket()
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        held = []
        stop_accepting = threading.Event()

        def accept():
            silent.settimeout(0.2)
            while not stop_accepting.is_set():
                try:
                    held.append(silent.accept()[0])  # read nothing, answer nothing
                except OSError:
                    pass
        acceptor = threading.Thread(target=accept)
        acceptor.start()
        try:
            plugstack(tmp, ["default=on", "sleep_time=0.1", "push_interval=0.2",
                            "push=http://127.0.0.1:%d" % silent.getsockname()[1]])
            log_before = len(open(os.path.join(tmp, "slurmd.log"), errors="replace").read())
            r = as_user(cluster, "nobody", ["srun", "-n", "2", os.path.join(tmp, "gt-workload"),
                                            "hold", "8", "1"])
        finally:
            stop_accepting.set()
            acceptor.join()
            for c in held:
                c.close()
            silent.close()
        check(r.returncode == 0, "a job pushing to a silent Pushgateway: %d %r" % (
            r.returncode, r.stderr))
        log = open(os.path.join(tmp, "slurmd.log"), errors="replace").read()[log_before:]
        timed_out = [l for l in log.splitlines() if "cannot push metrics" in l]
        check(len(timed_out) == 2 and all("imed out" in l or "imeout" in l for l in timed_out),
              "one timeout a task, said in slurmd's log: %s" % timed_out)

        # A plugin that cannot do its work: the job is not touched.
        plugstack(tmp, ["default=on", "push=http://127.0.0.1:%d" % free_port(),
                        "output=/proc/gt-nowhere/%j/%t.json.gz"])
        r = as_user(cluster, "nobody", ["srun", "-n", "1", os.path.join(tmp, "gt-workload"), "exit", "3"])
        check(r.returncode == 3, "a job the plugin fails: exit %d (want the task's 3) %r" % (
            r.returncode, r.stderr))
        log = open(os.path.join(tmp, "slurmd.log"), errors="replace").read()
        check("spank_gputracker: job" in log and "no snapshot" in log and
              "cannot push metrics" in log, "slurmd's log says why: %s" % log[-1500:])
        print("test_slurm_spank: job %s as nobody: 2 snapshots (0600, nobody's), peaks %s B, "
              "pushed and in Prometheus; a failing plugin left the job's exit status 3" % (
                  job, [int(peaks[k]) for k in sorted(peaks)]))
    finally:
        cluster.stop()
        stop_server(gateway_proc)
        shutil.rmtree(tmp, ignore_errors=True)
    return finish("test_slurm_spank")


if __name__ == "__main__":
    sys.exit(main())
