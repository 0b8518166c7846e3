"""What the tests against real components (test_prometheus.py,
test_pushgateway.py, test_slurm.py) share: checks that go on after a
failure, skipping with the reason (exit 77, which CTest reports as
skipped), a free loopback port, polling, and a Prometheus server."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request

SKIP = 77
HANG_GUARD = 120  # seconds: only to fail instead of hanging, never a timing check
failures = []


def check(cond, what):
    """Records a failed check and goes on."""
    if not cond:
        failures.append(what)
        print("FAILED:", what, file=sys.stderr)


def skip(reason):
    """Ends the test as skipped, saying why."""
    print("%s: skipped: %s" % (os.path.basename(sys.argv[0]).rsplit(".", 1)[0], reason))
    sys.exit(SKIP)


def free_port():
    """A port on 127.0.0.1 that was free a moment ago."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url):
    """(status, body) of a GET within 10 s."""
    with urllib.request.urlopen(url, timeout=10) as r:
        return r.status, r.read().decode()


def wait_for(what, predicate):
    """Polls predicate until it returns something true; fails after the
    hang guard (the machine may be slow: the guard is generous)."""
    deadline = time.monotonic() + HANG_GUARD
    while time.monotonic() < deadline:
        got = predicate()
        if got:
            return got
        time.sleep(0.2)
    raise SystemExit("%s: gave up waiting for %s" % (
        os.path.basename(sys.argv[0]).rsplit(".", 1)[0], what))


def own_server_ready(server, log_path, base):
    """"ready" once the server we started listens (its own log says so: a
    free port may be taken by another test's server between our choosing it
    and our server binding it, and that one would answer /-/ready too) and
    answers /-/ready; "exited" when it ended; None meanwhile."""
    if server.poll() is not None:
        return "exited"
    try:
        with open(log_path, errors="replace") as f:
            if 'msg="Listening on"' not in f.read():
                return None
        return get(base + "/-/ready")[0] == 200 and "ready"
    except OSError:
        return None


def start_prometheus(prometheus, config_text, tmp):
    """A Prometheus server on a free loopback port with config_text, its
    data in tmp: (process, base URL), or (None, the end of its log) when it
    cannot start here."""
    config = os.path.join(tmp, "prometheus.yml")
    with open(config, "w") as f:
        f.write(config_text)
    log_path = os.path.join(tmp, "prometheus.log")
    for attempt in range(3):  # another program may take the free port first
        port = free_port()
        log = open(log_path, "w")
        server = subprocess.Popen([prometheus, "--config.file=" + config,
                                   "--storage.tsdb.path=" + os.path.join(tmp, "data"),
                                   "--web.listen-address=127.0.0.1:%d" % port,
                                   "--web.enable-lifecycle"], stdout=log, stderr=log)
        base = "http://127.0.0.1:%d" % port

        if wait_for("Prometheus to be ready", lambda: own_server_ready(server, log_path, base)) == "ready":
            return server, base
    return None, open(log_path).read()[-500:]


def prometheus_on_pushgateway(gateway, tmp):
    """A Prometheus scraping the Pushgateway at gateway every second, the
    pushed labels kept (honor_labels): (process, base URL); skips the test
    when it cannot start."""
    server, base = start_prometheus(
        shutil.which("prometheus"),
        "global:\n  scrape_interval: 1s\n  scrape_timeout: 1s\n"
        "scrape_configs:\n  - job_name: pushgateway\n    honor_labels: true\n"
        "    static_configs:\n      - targets: ['%s']\n" % gateway.split("//")[1], tmp)
    if server is None:
        skip("the Prometheus server cannot start here: " + base)
    return server, base


def query(base, q):
    """The result vector of an instant query through Prometheus's API."""
    status, body = get(base + "/api/v1/query?" + urllib.parse.urlencode({"query": q}))
    return json.loads(body)["data"]["result"]


def start_pushgateway(tmp):
    """Debian's prometheus-pushgateway on a free loopback port: (process,
    base URL); skips the test when it cannot start."""
    for attempt in range(3):
        port = free_port()
        log_path = os.path.join(tmp, "pushgateway.log")
        log = open(log_path, "w")
        # Kept in memory only: Debian's default persists to
        # /var/lib/prometheus/pushgateway.data, which is not the test's.
        server = subprocess.Popen(["prometheus-pushgateway", "--persistence.file=",
                                   "--web.listen-address=127.0.0.1:%d" % port],
                                  stdout=log, stderr=log)
        base = "http://127.0.0.1:%d" % port
        if wait_for("the Pushgateway to be ready",
                    lambda: own_server_ready(server, log_path, base)) == "ready":
            return server, base
    skip("the Pushgateway cannot start here: " +
         open(os.path.join(tmp, "pushgateway.log")).read()[-500:])


def stop_server(proc):
    """Ends a server this test started (None: none was)."""
    if proc:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=HANG_GUARD)


def finish(name):
    """The test's exit status, saying how many checks failed."""
    if failures:
        print("%s: %d failed" % (name, len(failures)))
        return 1
    return 0
