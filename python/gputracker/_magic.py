"""IPython's %%track cell magic: `%load_ext gputracker`, then a cell that
starts with `%%track` runs under a Tracker and prints its summary."""
from __future__ import annotations

from ._tracker import Tracker


def _parser():
    import argparse  # here: a script that never loads the magic does not pay for it

    class Parser(argparse.ArgumentParser):
        # argparse prints its usage and message to stderr, then exits: the
        # notebook would show the error twice (that, and our ValueError).
        def error(self, message):
            raise ValueError(f'%%track: {message}; valid: --st SECONDS, --ru UNIT, --gru UNIT, --tu UNIT, '
                             f'-f text|json')
    p = Parser(prog='%%track', add_help=False)
    p.add_argument('--st', '--sleep-time', dest='sleep_time', type=float, default=0.1)
    p.add_argument('--ru', '--ram-unit', dest='ram_unit', default='gigabytes')
    p.add_argument('--gru', '--gpu-ram-unit', dest='gpu_ram_unit', default='gigabytes')
    p.add_argument('--tu', '--time-unit', dest='time_unit', default='hours')
    p.add_argument('-f', '--format', dest='format', choices=('text', 'json'), default='text')
    return p


def track(line: str, cell: str, shell) -> Tracker:
    """Runs cell in shell under a Tracker of this process (sleep time 0.1
    s unless --st says otherwise) and prints the summary; returns the
    tracker. ValueError for options it does not know."""
    import shlex
    args = _parser().parse_args(shlex.split(line))
    tracker = Tracker(sleep_time=args.sleep_time, ram_unit=args.ram_unit, gpu_ram_unit=args.gpu_ram_unit,
                      time_unit=args.time_unit, resource_usage_file='')
    with tracker:
        shell.run_cell(cell)
    if args.format == 'json':
        import json
        print(json.dumps(tracker.to_json(), indent=1))
    else:
        print(tracker)
    return tracker


_TRACK_HELP = """Track the resources this cell uses, and print gpu_tracker's summary.

Usage: %%track [--st SECONDS] [--ru UNIT] [--gru UNIT] [--tu UNIT] [-f text|json]

  --st, --sleep-time SECONDS  seconds between samples (default 0.1)
  --ru, --ram-unit UNIT       bytes, kilobytes, megabytes, gigabytes (default), terabytes
  --gru, --gpu-ram-unit UNIT  the same for GPU RAM
  --tu, --time-unit UNIT      seconds, minutes, hours (default), days
  -f, --format text|json      gpu_tracker's text (default) or its to_json() document

The whole process is tracked (the kernel's memory counts too), from the
cell's first line to its last."""


def load_ipython_extension(ipython) -> None:
    """Registers %%track (called by `%load_ext gputracker`)."""
    def track_magic(line, cell):
        track(line, cell, ipython)
    track_magic.__doc__ = _TRACK_HELP
    ipython.register_magic_function(track_magic, magic_kind='cell', magic_name='track')
