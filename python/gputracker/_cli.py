"""The gpu-tracker console script: the C command, compiled into the package.

`sub-track analyze -f pickle`, and `sub-track compare` of pickled results,
are done here, in Python, as gpu_tracker does them: a pickle is a Python
object. A results file is a pickle when its name does not end in .json (its
contents are never sniffed), and is read by an unpickler that refuses every
global but our result classes and pandas/numpy data (_safe_pickle).
Everything else (and every usage error) is the C command's."""
from __future__ import annotations

import argparse
import sys

from . import _native


class _Unparsed(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # leave the message to the C command
        raise _Unparsed(message)


def _options(action: str, args: list):
    parser = _Parser(add_help=False, allow_abbrev=False)
    parser.add_argument('-o', '--output')
    parser.add_argument('-f', '--format', default='text')
    if action == 'analyze':
        parser.add_argument('--tf')
        parser.add_argument('--stf')
    else:
        parser.add_argument('-m', action='append', default=[])
        parser.add_argument('--cconfig')
        parser.add_argument('--stat')
    return parser.parse_args(args)


def _session_map(options) -> dict:
    import json
    paths = {}
    statistic = None
    if options.cconfig:
        from ._safe_pickle import read_regular
        config = json.loads(read_regular(options.cconfig, 1 << 20))
        paths.update(config.get('file_path_map', {}))
        statistic = config.get('statistic')
    for mapping in options.m:
        name, _, path = mapping.partition('=')
        paths[name] = path
    if not all(isinstance(v, str) for v in paths.values()):
        raise ValueError('a file path is not a string')
    return paths, options.stat or statistic or 'mean'


def _write(output: str | None, data) -> None:
    if output is None:
        if isinstance(data, bytes):
            sys.stdout.flush()
            sys.stdout.buffer.write(data)
        else:
            print(data)
    else:
        with open(output, 'wb' if isinstance(data, bytes) else 'w') as file:
            file.write(data)


def _sub_track(action: str, args: list):
    """The exit status when Python does the work, None for the C command."""
    try:
        options = _options(action, args)
    except _Unparsed:
        return None
    if options.format not in ('text', 'json', 'pickle'):
        return None
    if action == 'analyze':
        if options.format != 'pickle' or not options.tf or not options.stf:
            return None
        from ._sub_tracking_analysis import SubTrackingAnalyzer
        try:
            results = SubTrackingAnalyzer(options.tf, options.stf).sub_tracking_results()
        except (OSError, ValueError) as error:
            print(f'gpu-tracker: sub-track: {_native.text_escape(str(error))}', file=sys.stderr)
            return 1
        _write(options.output, results.to_gpu_tracker_pickle())
        return 0
    try:
        paths, statistic = _session_map(options)
    except (OSError, ValueError, AttributeError):
        return None  # the C command says what is wrong with the config
    from ._sub_tracking_analysis import results_format
    # The names choose the format, never the contents: a .json file is the
    # C command's, any other name a pickle, read here (safely).
    if options.format != 'pickle' and all(results_format(p) == 'json' for p in paths.values()):
        return None
    import json
    import pickle
    from ._sub_tracking_analysis import TrackingComparison
    try:
        results = TrackingComparison(paths).compare(statistic)
    except (OSError, ValueError, pickle.UnpicklingError) as error:
        print(f'gpu-tracker: sub-track: {_native.text_escape(str(error))}', file=sys.stderr)
        return 1
    if options.format == 'pickle':
        _write(options.output, results.to_gpu_tracker_pickle())
    elif options.format == 'json':
        _write(options.output, json.dumps(results.to_json(), indent=1))
    else:
        _write(options.output, str(_names_escaped(results)))
    return 0


def _names_escaped(results):
    """The comparison with its untrusted text (code block and session names,
    from the compared files) through the one escaper, as the C command
    prints them: for the text layout, which a terminal shows."""
    from ._sub_tracking_analysis import ComparisonResults
    escape = _native.text_escape

    def series(values):
        return values.rename(index=lambda name: escape(str(name)))
    return ComparisonResults(
        overall_resource_usage={m: series(v) for m, v in results.overall_resource_usage.items()},
        code_block_resource_usage={m: {escape(str(b)): series(v) for b, v in blocks.items()}
                                   for m, blocks in results.code_block_resource_usage.items()},
        code_block_compute_time={escape(str(b)): series(v) for b, v in results.code_block_compute_time.items()})


def main():
    argv = sys.argv
    if len(argv) > 2 and argv[1] == 'sub-track' and argv[2] in ('analyze', 'compare'):
        status = _sub_track(argv[2], argv[3:])
        if status is not None:
            sys.exit(status)
    sys.exit(_native.cli_main(argv))
