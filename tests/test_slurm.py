#!/usr/bin/python3
"""gpu-tracker under a real Slurm: a one-node cluster (Debian's slurmctld,
slurmd and munge) started here with a configuration written into a
temporary directory, daemons in the foreground, loopback only, stopped at
the end. `srun -n 2 gpu-tracker --snapshot run-%j-%t.json.gz -- WORKLOAD`
must write one snapshot per task carrying the job id and rank; they must
merge into one job snapshot, and give a per-task report; a snapshot of
another job must be refused by merge, naming the file.

usage: test_slurm.py GPU_TRACKER WORKLOAD
Exit 77 (skipped, with the reason) where Slurm is not installed, we are not
root (slurmd must be), or a daemon cannot start here."""

import glob
import gzip
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from realtest import HANG_GUARD, check, failures, free_port, skip


def tail(path, n=600):
    try:
        return open(path, errors="replace").read()[-n:]
    except OSError:
        return "(no log)"


class Cluster:
    """A one-node cluster in tmp; extra_conf: more slurm.conf lines; select:
    SelectTypeParameters (CR_Core_Memory: memory is a resource, --mem given
    to the job)."""

    def __init__(self, tmp, extra_conf="", select="CR_Core"):
        self.tmp = tmp
        self.extra_conf = extra_conf
        self.select = select
        self.procs = []
        self.node = socket.gethostname().split(".")[0]
        self.conf = os.path.join(tmp, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        for k in list(self.env):
            if k.startswith("SLURM_") and k != "SLURM_CONF":
                del self.env[k]  # a test run inside a Slurm job must not leak its ids

    def start(self):
        t = self.tmp
        for d in ("state", "spool"):
            os.mkdir(os.path.join(t, d))
        key = os.path.join(t, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o600)
        sock = os.path.join(t, "munge.sock")
        self.spawn("munged", ["munged", "--foreground", "--force", "--socket=" + sock,
                              "--key-file=" + key, "--pid-file=" + os.path.join(t, "munged.pid"),
                              "--log-file=" + os.path.join(t, "munged.log"),
                              "--seed-file=" + os.path.join(t, "munge.seed")])
        self.wait_for("munged's socket", lambda: os.path.exists(sock), "munged.log")
        cpus = os.cpu_count() or 1
        with open(self.conf, "w") as f:
            f.write(f"""ClusterName=gttest
SlurmctldHost={self.node}(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={sock}
StateSaveLocation={t}/state
SlurmdSpoolDir={t}/spool
SlurmctldPidFile={t}/slurmctld.pid
SlurmdPidFile={t}/slurmd.pid
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters={self.select}
ReturnToService=2
MpiDefault=none
SlurmctldLogFile={t}/slurmctld.log
SlurmdLogFile={t}/slurmd.log
NodeName={self.node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory=100 State=UNKNOWN
PartitionName=debug Nodes={self.node} Default=YES MaxTime=INFINITE State=UP
{self.extra_conf}""")
        self.spawn("slurmctld", ["slurmctld", "-D", "-f", self.conf])
        self.spawn("slurmd", ["slurmd", "-D", "-f", self.conf])

        def idle():
            r = subprocess.run(["sinfo", "-h", "-o", "%t"], env=self.env, capture_output=True,
                               text=True)
            return r.returncode == 0 and r.stdout.strip() in ("idle", "mix", "alloc")
        self.wait_for("the node to be idle", idle, "slurmd.log")

    def spawn(self, name, argv):
        log = open(os.path.join(self.tmp, name + ".out"), "w")
        self.procs.append((name, subprocess.Popen(argv, stdout=log, stderr=log, env=self.env)))

    def wait_for(self, what, predicate, log):
        deadline = time.monotonic() + HANG_GUARD
        while time.monotonic() < deadline:
            for name, p in self.procs:
                if p.poll() is not None:
                    skip("%s cannot run here (exit %s): %s %s" % (
                        name, p.returncode, tail(os.path.join(self.tmp, name + ".out")),
                        tail(os.path.join(self.tmp, name + ".log"))))
            if predicate():
                return
            time.sleep(0.2)
        skip("gave up waiting for %s: %s" % (what, tail(os.path.join(self.tmp, log))))

    def stop(self):
        for name, p in reversed(self.procs):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
        for name, p in self.procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()

    def srun(self, args):
        return subprocess.run(["srun"] + args, env=self.env, cwd=self.tmp, capture_output=True,
                              text=True, timeout=HANG_GUARD)


def metadata(path):
    with gzip.open(path, "rt") as f:
        return json.load(f)["metadata"]


def main():
    gt, workload = sys.argv[1], sys.argv[2]
    for tool in ("slurmctld", "slurmd", "munged", "srun", "sinfo"):
        if not shutil.which(tool) and not os.path.exists("/usr/sbin/" + tool):
            skip("%s is not installed (Debian packages slurmctld, slurmd, slurm-client, munge; "
                 "make check installs them as root)" % tool)
    if os.geteuid() != 0:
        skip("slurmd must run as root, and this test is not root")
    os.environ["PATH"] = os.environ.get("PATH", "") + ":/usr/sbin"
    tmp = tempfile.mkdtemp(prefix="gt-slurm-")
    os.chmod(tmp, 0o755)
    cluster = Cluster(tmp)
    try:
        cluster.start()
        # Two tasks of one step, each tracked into its own file.
        r = cluster.srun(["-n", "2", gt, "--st", "0.1", "--no-backup", "-q", "--snapshot",
                          "run-%j-%t.json.gz", "-f", "json", "-o", "sum-%j-%t.json", "--",
                          workload, "burn", "1"])
        check(r.returncode == 0, "srun -n 2 gpu-tracker: %d %s" % (r.returncode, r.stderr))
        files = sorted(glob.glob(os.path.join(tmp, "run-*-*.json.gz")))
        check(len(files) == 2, "two task snapshots: %s" % files)
        if len(files) != 2:
            return 1
        job = os.path.basename(files[0]).split("-")[1]
        for rank, path in enumerate(files):
            m = metadata(path)
            j = m.get("job") or {}
            check(os.path.basename(path) == "run-%s-%d.json.gz" % (job, rank), path)
            check(j.get("scheduler") == "slurm" and j.get("job_id") == job and
                  j.get("task_rank") == str(rank) and j.get("ntasks") == 2 and
                  j.get("step_id") == "0" and j.get("node") == cluster.node,
                  "task %d's metadata.job: %s" % (rank, j))
            check(os.path.exists(os.path.join(tmp, "sum-%s-%d.json" % (job, rank))),
                  "task %d's summary" % rank)

        # One job snapshot, its per-task statistics and report.
        out = os.path.join(tmp, "job.json.gz")
        r = subprocess.run([gt, "merge"] + files + ["-o", out], capture_output=True, text=True)
        check(r.returncode == 0 and r.stdout == "merged 2 tasks of job %s into %s\n" % (job, out),
              "merge: %d %s %s" % (r.returncode, r.stdout, r.stderr))
        r = subprocess.run([gt, "stats", "-f", "json", out], capture_output=True, text=True)
        stats = json.loads(r.stdout) if r.returncode == 0 else {}
        tasks = stats.get("tasks", [])
        check([t.get("task_rank") for t in tasks] == ["0", "1"] and
              all(t.get("stats") and t["stats"]["process_cpu_usage"]["mean"] > 0 for t in tasks),
              "stats of the merged job: %s %s" % (r.stdout[:2000], r.stderr))
        check(stats.get("slurm", {}).get("ntasks") == 2 and
              stats["slurm"].get("cpus_per_task", 0) >= 1, "the Slurm request: %s" % stats.get("slurm"))
        report = os.path.join(tmp, "job.html")
        r = subprocess.run([gt, "report", out, "-o", report], capture_output=True, text=True)
        html = open(report).read() if r.returncode == 0 else ""
        check("<h2>Job</h2>" in html and html.count("<tr><td>") >= 2 and
              "--ntasks=2 --cpus-per-task=" in html,
              "the report's per-task table: %d %s" % (r.returncode, r.stderr))

        # A snapshot of another job: merge names it.
        r = cluster.srun(["-n", "1", gt, "--st", "0.1", "--no-backup", "-q", "--snapshot",
                          "other-%j-%t.json.gz", "-o", "/dev/null", "--", workload, "burn", "0.1"])
        other = glob.glob(os.path.join(tmp, "other-*-0.json.gz"))
        check(r.returncode == 0 and len(other) == 1, "the second job: %s" % r.stderr)
        if other:
            other_job = os.path.basename(other[0]).split("-")[1]
            r = subprocess.run([gt, "merge", files[0], other[0], "-o",
                                os.path.join(tmp, "bad.json.gz")], capture_output=True, text=True)
            check(r.returncode == 1 and r.stderr == (
                "gpu-tracker: '%s' is of job %s, not of job %s as '%s' is: merge joins the "
                "snapshots of one job\n" % (other[0], other_job, job, files[0])),
                "merge of two jobs: %d %s" % (r.returncode, r.stderr))
            check(not os.path.exists(os.path.join(tmp, "bad.json.gz")), "nothing written")
        print("test_slurm: job %s: 2 task snapshots, merged, per-task stats and report" % job)
    finally:
        cluster.stop()
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("test_slurm: %d failed" % len(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
