"""The status line in a real terminal emulator (tmux): a command that prints
a line every tenth of a second runs under gpu-tracker in a tmux pane, and
what the pane shows (capture-pane, the screen and the scrollback) is
checked: the command's lines are whole and in order, the status line is
on the last row and nowhere else, at 60 and at 200 columns, after a
resize, after Ctrl-Z and fg, and after Ctrl-C; when tracking ends the
line is gone and the whole terminal scrolls again.

Usage: test_terminal.py GPU_TRACKER"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from realtest import HANG_GUARD, check, failures, skip  # noqa: E402

GT = os.path.abspath(sys.argv[1])
TMUX = shutil.which("tmux")
if not TMUX:
    skip("tmux is not installed (make check installs it as root)")

work = tempfile.mkdtemp(prefix="gt-terminal-")
# The commands typed are short whatever the checkout's path: the shell
# starts in work, where ./gt names the program. (A command longer than the
# pane wraps, and after a resize tmux joins it with the next line.)
os.symlink(GT, os.path.join(work, "gt"))
socket_path = None  # a server of its own for each scenario
go = os.path.join(work, "go")
printer = os.path.join(work, "printer.sh")
with open(printer, "w") as f:
    f.write("""#!/bin/sh
i=1
while [ $i -le 30 ]; do echo "epoch $i loss=0.$i"; i=$((i+1)); sleep 0.1; done
while [ ! -e '%s' ]; do sleep 0.1; done
rm -f '%s'
echo printer-done
""" % (go, go))
os.chmod(printer, 0o755)

EPOCH = re.compile(r"^epoch (\d+) loss=0\.(\d+)$")


def tmux(*args):
    return subprocess.run([TMUX, "-S", socket_path, "-f", "/dev/null"] + list(args),
                          capture_output=True, text=True, check=False).stdout


def screen():
    """The visible rows, one string each (trailing blanks cut)."""
    return tmux("capture-pane", "-p", "-t", "t").split("\n")[:-1]


def history():
    """The scrollback and the screen."""
    return tmux("capture-pane", "-p", "-S", "-", "-t", "t").split("\n")


def pane_size():
    out = tmux("display-message", "-p", "-t", "t", "#{pane_width} #{pane_height} #{cursor_y}")
    v = [int(x) for x in out.split()]
    return tuple(v) if len(v) == 3 else (0, 0, 0)


def wait_for(what, cond):
    """Polls until cond() holds; a deadline only to fail instead of hanging."""
    deadline = time.time() + HANG_GUARD
    while time.time() < deadline:
        if cond():
            return True
        time.sleep(0.1)
    check(False, "waited for %s; the screen: %r" % (what, screen()))
    return False


def status_on_last_row(needle=" | CPU "):
    rows = screen()
    _, h, _ = pane_size()
    return len(rows) == h and rows[-1].startswith("gpu-tracker ") and needle in rows[-1]


def check_clean(stage, status_expected):
    """The command's lines whole and in order; the status line on the last
    row only (status_expected) or nowhere."""
    rows = history()
    epochs = []
    for r in rows:
        if "epoch" in r:
            m = EPOCH.match(r)
            check(m is not None, "%s: a line of the command's was changed: %r" % (stage, r))
            if m:
                epochs.append(int(m.group(1)))
    check(epochs == sorted(set(epochs)), "%s: lines out of order or twice: %r" % (stage, epochs))
    status_rows = [i for i, r in enumerate(rows) if "gpu-tracker 0:" in r]
    if status_expected:
        vis = screen()
        check(vis and vis[-1].startswith("gpu-tracker 0:"),
              "%s: no status line on the last row: %r" % (stage, vis[-3:]))
        check(len(status_rows) == 1, "%s: %d status lines in the terminal (stale copies): %r"
              % (stage, len(status_rows), [rows[i] for i in status_rows]))
    else:
        check(not status_rows, "%s: a status line was left behind: %r"
              % (stage, [rows[i] for i in status_rows]))


def whole_terminal_scrolls(stage):
    """After tracking, output reaches the last row: the region was given back."""
    tmux("send-keys", "-t", "t", "seq 1 40; echo end-of-seq", "Enter")
    wait_for("the seq after tracking", lambda: any(r == "end-of-seq" for r in screen()))
    _, h, y = pane_size()
    rows = screen()
    check(y == h - 1, "%s: the cursor stops at row %d of %d: the scroll region is still set: %r"
          % (stage, y, h, rows[-4:]))
    check(all("gpu-tracker 0:" not in r for r in rows), "%s: status line left: %r" % (stage, rows))


def summary_fits(stage, width):
    """The -f human summary, with the rows tmux wrapped joined again (-J):
    every line within the terminal's width, so none was broken mid-word."""
    joined = tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "t").split("\n")
    start = [i for i, r in enumerate(joined) if r.startswith("Wall time")]
    end = [i for i, r in enumerate(joined) if r.startswith("Samples")]
    check(start and end, "%s: no summary: %r" % (stage, joined[-20:]))
    if start and end:
        wide = [r for r in joined[start[-1]:end[-1] + 1] if len(r.rstrip()) > width]
        check(not wide, "%s: summary lines wider than %d: %r" % (stage, width, wide))


def ended_clean(stage, what="the summary"):
    """Tracking has ended: the summary is there, no status line is left
    anywhere, and the whole terminal scrolls again."""
    wait_for(what, lambda: any(r.startswith("Samples") for r in history()))
    check_clean(stage, False)
    whole_terminal_scrolls(stage)


def start(width, height):
    global socket_path
    if socket_path:
        tmux("kill-server")
    start.count = getattr(start, "count", 0) + 1
    socket_path = os.path.join(work, "tmux-%d.sock" % start.count)
    env_cmd = "env -i PATH=/usr/bin:/bin HOME=%s TERM=tmux-256color PS1='$ ' " \
              "bash --norc --noprofile -i" % work
    tmux("new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height), "-c", work,
         env_cmd)
    tmux("set-option", "-t", "t", "history-limit", "5000")
    wait_for("the shell's prompt", lambda: any(r.startswith("$") for r in screen()))


def run_tracker():
    tmux("send-keys", "-t", "t", "./gt --no-backup --st 0.2 -f human -- ./printer.sh", "Enter")


try:
    # 60 columns, then 200 after a resize, then the end.
    start(60, 12)
    run_tracker()
    if wait_for("all 30 lines and the status line",
                lambda: any(r == "epoch 30 loss=0.30" for r in history()) and status_on_last_row()):
        check(len(screen()[-1]) <= 59, "60 columns: the line is wider than 59: %r" % screen()[-1])
        check_clean("60 columns", True)
    tmux("resize-window", "-t", "t", "-x", "200", "-y", "20")
    if wait_for("the line redrawn at 200 columns", lambda: status_on_last_row(" samples")):
        check_clean("resized to 200 columns", True)
    tmux("resize-window", "-t", "t", "-x", "80", "-y", "10")
    if wait_for("the line redrawn after shrinking", lambda: status_on_last_row()
                and pane_size()[1] == 10):
        check_clean("shrunk to 80x10", True)
    open(go, "w").close()
    ended_clean("after tracking")
    summary_fits("the summary at 80 columns", 80)

    # Ctrl-Z gives the shell the whole terminal; fg brings the line back.
    start(100, 14)
    run_tracker()
    if wait_for("the status line", status_on_last_row):
        tmux("send-keys", "-t", "t", "C-z")
        wait_for("the job stopped", lambda: any("Stopped" in r for r in screen()))
        check_clean("stopped (Ctrl-Z)", False)
        whole_terminal_scrolls("stopped (Ctrl-Z)")
        tmux("send-keys", "-t", "t", "fg", "Enter")
        if wait_for("the line back after fg", status_on_last_row):
            check_clean("after fg", True)
        open(go, "w").close()
        ended_clean("after Ctrl-Z, fg and the end")

    # A command that resets the scroll region itself (ESC[r, its cursor
    # kept) and prints on: the next redraw sets the region again, so at most
    # one line is spoiled (a copy of the status line, or the command's line
    # printed over it), not one at every redraw.
    resetter = os.path.join(work, "resetter.sh")
    with open(resetter, "w") as f:
        f.write("""#!/bin/sh
i=1
while [ $i -le 60 ]; do
  [ $i -eq 20 ] && printf '\0337\033[r\0338'
  echo "epoch $i loss=0.$i"; i=$((i+1)); sleep 0.1
done
while [ ! -e '%s' ]; do sleep 0.1; done
rm -f '%s'
""" % (go, go))
    os.chmod(resetter, 0o755)
    start(80, 12)
    tmux("send-keys", "-t", "t", "./gt --no-backup --st 0.2 -f human -- ./resetter.sh", "Enter")
    if wait_for("all 60 lines and the status line",
                lambda: any(r == "epoch 60 loss=0.60" for r in history()) and status_on_last_row()):
        time.sleep(1.5)  # a redraw or two more: none may leave a copy
        rows = history()
        vis = screen()
        spoiled = [r for r in rows[:len(rows) - 1]
                   if ("gpu-tracker 0:" in r or "epoch" in r) and not EPOCH.match(r)
                   and r != vis[-1]]
        check(len(spoiled) <= 1, "a reset region spoiled %d lines: %r" % (len(spoiled), spoiled))
        check(status_on_last_row(), "after the reset: no status line on the last row: %r" % vis[-3:])
        open(go, "w").close()
        wait_for("the summary", lambda: any(r.startswith("Samples") for r in history()))
        rows = history()
        left = [r for r in rows if "gpu-tracker 0:" in r or ("epoch" in r and not EPOCH.match(r))]
        check(len(left) <= 1, "after the end: %d spoiled lines: %r" % (len(left), left))
        whole_terminal_scrolls("after a command reset the region")

    # Ctrl-C: the command ends, the summary is written, the terminal whole.
    start(100, 14)
    run_tracker()
    if wait_for("the status line", status_on_last_row):
        tmux("send-keys", "-t", "t", "C-c")
        ended_clean("after Ctrl-C", "the summary after Ctrl-C")
finally:
    tmux("kill-server")
    shutil.rmtree(work, ignore_errors=True)

if failures:
    print("%d check(s) failed" % len(failures), file=sys.stderr)
    sys.exit(1)
print("terminal: all checks passed")
