"""What the tests against real components (test_prometheus.py,
test_slurm.py) share: checks that go on after a failure, skipping with the
reason (exit 77, which CTest reports as skipped), and a free loopback
port."""

import os
import socket
import sys

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
