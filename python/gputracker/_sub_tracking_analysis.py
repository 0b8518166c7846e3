"""gpu_tracker 5's SubTrackingAnalyzer and TrackingComparison, with their
results as gpu_tracker gives them (pandas DataFrames and Series in
dataclasses that pickle). The files are read and the statistics computed by
libgputracker (gt_subtrack_analyze, gt_subtrack_compare); this module holds
the results and lays them out as gpu_tracker's text."""
from __future__ import annotations

import dataclasses as dclass
import os
import json
import logging
import pickle

from . import _native, _safe_pickle

_SUMMARY_STATS = ['min', 'max', 'mean', 'std']
_log = logging.getLogger('gputracker')


def _pandas():
    try:
        import pandas
    except ImportError as error:  # pragma: no cover - pandas is there in the tests
        raise ImportError('gputracker: sub-tracking results are pandas DataFrames, as in gpu_tracker; '
                          'install pandas (Debian: python3-pandas), or use the JSON of '
                          '`gpu-tracker sub-track analyze -f json`') from error
    return pandas


def _frame(rows: dict):
    """A DataFrame from gpu_tracker's to_json layout ({index: {column: value}})."""
    pd = _pandas()
    if not rows:
        return pd.DataFrame(columns=_SUMMARY_STATS, dtype=float)
    return pd.DataFrame.from_dict(rows, orient='index').astype(float)


def _frame_to_json(frame) -> dict:
    return {index: row.to_dict() for index, row in frame.iterrows()}


@dclass.dataclass
class CodeBlockResults:
    """Results of one sub-tracked code block (gpu_tracker's CodeBlockResults)."""
    name: str
    num_timepoints: int
    num_calls: int
    num_non_empty_calls: int
    compute_time: object  # pandas.Series: min, max, mean, std, total
    resource_usage: object  # pandas.DataFrame: a row per measurement, min/max/mean/std


@dclass.dataclass
class SubTrackingResults:
    """The results of a tracking session: overall statistics, static data and
    each code block's (gpu_tracker's SubTrackingResults)."""
    overall: object  # pandas.DataFrame
    static_data: object  # pandas.Series
    code_block_results: list

    def to_json(self) -> dict:
        """The results as gpu_tracker's to_json() gives them: plain dicts and lists."""
        return {
            'overall': _frame_to_json(self.overall),
            'static_data': self.static_data.to_dict(),
            'code_block_results': [
                {
                    'name': block.name, 'num_timepoints': block.num_timepoints, 'num_calls': block.num_calls,
                    'num_non_empty_calls': block.num_non_empty_calls,
                    'compute_time': block.compute_time.to_dict(),
                    'resource_usage': _frame_to_json(block.resource_usage),
                } for block in self.code_block_results
            ],
        }

    @classmethod
    def from_json(cls, doc: dict) -> SubTrackingResults:
        """Results from the JSON of ``to_json()`` or ``gpu-tracker sub-track analyze -f json``."""
        pd = _pandas()
        blocks = [
            CodeBlockResults(
                name=block['name'], num_timepoints=block['num_timepoints'], num_calls=block['num_calls'],
                num_non_empty_calls=block['num_non_empty_calls'],
                compute_time=pd.Series(block['compute_time'], dtype=float),
                resource_usage=_frame(block['resource_usage']))
            for block in doc['code_block_results']
        ]
        return cls(overall=_frame(doc['overall']), static_data=pd.Series(doc['static_data'], dtype=object),
                   code_block_results=blocks)

    def __str__(self) -> str:
        return _dict_to_str('', dclass.asdict(self), 0)

    def to_gpu_tracker_pickle(self) -> bytes:
        """The results pickled for gpu_tracker 5: named as its classes
        (``gpu_tracker.sub_tracker.SubTrackingResults``), so that its
        TrackingComparison and ``pickle.load`` read them into its own
        classes; ours reads them too. ``pickle.dumps(results)`` names
        gputracker's classes, which gpu_tracker cannot import. What
        ``sub-track analyze -f pickle`` writes."""
        return _safe_pickle.dumps_for_gpu_tracker(self)


@dclass.dataclass
class ComparisonResults:
    """The comparison of tracking sessions (gpu_tracker's ComparisonResults):
    for each measurement (and code block), the sessions' statistic, sorted."""
    overall_resource_usage: dict
    code_block_resource_usage: dict
    code_block_compute_time: dict

    def to_json(self) -> dict:
        """The comparison as gpu_tracker's to_json() gives it: {measurement: {session: value}}."""
        return {
            'overall_resource_usage': {m: s.to_dict() for m, s in self.overall_resource_usage.items()},
            'code_block_resource_usage': {
                m: {b: s.to_dict() for b, s in blocks.items()} for m, blocks in self.code_block_resource_usage.items()
            },
            'code_block_compute_time': {b: s.to_dict() for b, s in self.code_block_compute_time.items()},
        }

    @classmethod
    def from_json(cls, doc: dict) -> ComparisonResults:
        pd = _pandas()

        def series(values):
            # integers stay integers (a thread count's min or max), as pandas
            # keeps an integer column's: "15", not "15.0"
            whole = bool(values) and all(type(v) is int for v in values.values())
            return pd.Series(values, dtype='int64' if whole else float)
        return cls(
            overall_resource_usage={m: series(v) for m, v in doc['overall_resource_usage'].items()},
            code_block_resource_usage={
                m: {b: series(v) for b, v in blocks.items()} for m, blocks in doc['code_block_resource_usage'].items()
            },
            code_block_compute_time={b: series(v) for b, v in doc['code_block_compute_time'].items()})

    def __str__(self) -> str:
        return _dict_to_str('', dclass.asdict(self), 0, no_title_keys=set(self.code_block_compute_time))

    def to_gpu_tracker_pickle(self) -> bytes:
        """The comparison pickled for gpu_tracker 5, named as its
        ComparisonResults (``gpu_tracker.sub_tracker``); what ``sub-track
        compare -f pickle`` writes. See SubTrackingResults'."""
        return _safe_pickle.dumps_for_gpu_tracker(self)


def _dict_to_str(string: str, results: dict, indent: int, no_title_keys: set | None = None) -> str:
    """gpu_tracker's text layout: titled keys indented by tabs, tables as
    pandas prints them with every row and column and floats to 8 decimals."""
    pd = _pandas()
    tabs = '\t' * indent
    titled = {
        tabs + (key if no_title_keys and key in no_title_keys else key.replace('_', ' ').title()): value
        for key, value in results.items()
    }
    width = max((len(key) for key in titled), default=0)
    for key, value in titled.items():
        if isinstance(value, pd.Series):
            value = value.to_frame().T
            value = value.rename({value.index[0]: ''})
        if isinstance(value, dict):
            string += f'{key}:\n'
            string = _dict_to_str(string, value, indent + 1, no_title_keys)
        elif isinstance(value, pd.DataFrame):
            string += f'{key}:\n'
            with pd.option_context('display.max_rows', None, 'display.max_columns', None, 'display.width', 5000,
                                   'display.float_format', lambda x: f'{float(f"{x:.8f}")}'):
                table = str(value)
            string += '\n'.join(tabs + '\t' + line for line in table.splitlines()) + '\n'
        elif isinstance(value, list):
            string += f'{key}:\n'
            for item in value:
                string = _dict_to_str(string, item, indent + 1, no_title_keys) + '\n'
        else:
            value = f'{value:.8f}' if type(value) is float else value
            string += f'{key}:{" " * (width - len(key))} {value}\n'
    return string


class SubTrackingAnalyzer:
    """Per code block statistics from a tracking file and a sub-tracking file
    (gpu_tracker's SubTrackingAnalyzer; ours or gpu_tracker's files, CSV or
    SQLite)."""

    def __init__(self, tracking_file: str | None, sub_tracking_file: str):
        self.tracking_file = tracking_file
        self.sub_tracking_file = sub_tracking_file

    def sub_tracking_results(self) -> SubTrackingResults:
        """Each code block's calls, their compute time and the min/max/mean/std of every
        measurement over the tracking file's timepoints inside them, and the same over all
        timepoints (gpu_tracker's SubTrackingAnalyzer.sub_tracking_results)."""
        if self.tracking_file is None:
            raise ValueError('a tracking file is needed to analyse the code blocks (tracking_file)')
        text, warnings = _native.sub_track_analyze(self.tracking_file, self.sub_tracking_file, True)
        for line in (warnings or '').splitlines():
            _log.warning(line)
        return SubTrackingResults.from_json(json.loads(text))

    def read_static_data(self):
        """The tracking file's static data (units, capacities, core and GPU counts)."""
        return self.sub_tracking_results().static_data

    def load_timestamp_pairs(self, code_block_name: str) -> list:
        """The (start, stop) of each call of a code block, in process then time
        order, paired by gpu_tracker's rules (a trailing start left out)."""
        calls = json.loads(_native.sub_track_calls(self.sub_tracking_file))
        return [tuple(pair) for pair in calls.get(code_block_name, [])]

    def load_timepoints(self, timestamp_pairs: list):
        """The tracking file's rows inside any of the (start, stop) pairs, both
        ends included (a pandas DataFrame, as gpu_tracker's)."""
        pd = _pandas()
        points = _read_data(self.tracking_file)
        inside = pd.Series(False, index=points.index)
        for start, stop in timestamp_pairs:
            inside |= (points.timestamp >= start) & (points.timestamp <= stop)
        return points[inside]

    def load_code_block_names(self) -> list:
        """The code blocks' names, in the order of the results."""
        return [block.name for block in self.sub_tracking_results().code_block_results]

    def overall_timepoint_results(self):
        """The min/max/mean/std of every measurement over all the tracking file's timepoints."""
        return self.sub_tracking_results().overall

    def combine_sub_tracking_files(self, files: list):
        """Writes the marks of files (all of this analyzer's sub-tracking file's
        format) into its sub-tracking file, which must not exist yet
        (ValueError in gpu_tracker's words otherwise)."""
        target = str(self.sub_tracking_file)
        extension = '.csv' if target.endswith('.csv') else '.sqlite'
        if os.path.exists(target):
            raise ValueError(f'Cannot create sub-tracking file {target}. File already exists.')
        for file in files:
            if not str(file).endswith(extension):
                raise ValueError(f'File {file} does not end with the same extension as {target}. '
                                 f'Must end in "{extension}".')
        _native.sub_track_combine(target, [str(f) for f in files])


# What reading an untrusted SQLite tracking file may cost here, as in the
# library (docs/tracking-file.md): a value or row of 2 MiB, 120 s.
_SQLITE_MAX_LENGTH = 2 << 20
_SQLITE_SECONDS = 120.0


def _read_data(path: str):
    """The timepoints of the tracking file path, as a DataFrame (pandas reads
    it, as gpu_tracker does). Opened once, never through another user's link
    nor waiting on a FIFO, and
    read through that descriptor only after the library has checked it: a
    regular file, and for SQLite plain tables with nothing computed (a
    generated column would run as it is read); the name cannot be swapped in
    between. SQLite reads with its length limit and a deadline."""
    import os
    import sqlite3
    import time
    pd = _pandas()
    # Opened by the library's reader: no link of another user's followed,
    # only a regular file (looked at before it is opened).
    fd = _native.file_open(path, 'tracking file')
    try:
        by_fd = f'/proc/self/fd/{fd}'
        _native.check_file(by_fd, path)
        if path.endswith('.csv'):
            with os.fdopen(os.dup(fd), 'rb') as f:
                return pd.read_csv(f, skiprows=2, float_precision='round_trip')
        con = sqlite3.connect(f'file:{by_fd}?immutable=1', uri=True)
        try:
            if hasattr(con, 'setlimit'):  # Python 3.11
                con.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, _SQLITE_MAX_LENGTH)
            deadline = time.monotonic() + _SQLITE_SECONDS
            con.set_progress_handler(lambda: time.monotonic() > deadline, 10000)
            con.execute('PRAGMA trusted_schema=OFF')
            return pd.read_sql('SELECT * FROM data', con)
        finally:
            con.close()
    finally:
        os.close(fd)


def results_format(path: str) -> str:
    """How a results file is read, from its name alone (never from its
    contents): 'json' for a name ending in .json (``to_json()``, ``sub-track
    analyze -f json``), 'pickle' (gpu_tracker's format) for any other."""
    return 'json' if str(path).lower().endswith('.json') else 'pickle'


def _load_results(path: str) -> SubTrackingResults:
    data = _safe_pickle.read_regular(path)
    if results_format(path) == 'json':
        try:
            doc = json.loads(data)
        except ValueError as error:
            raise ValueError(f'{path} is not JSON ({error}); a results file whose name does not end in .json '
                             f'is read as a pickle') from None
        results = SubTrackingResults.from_json(doc)
    else:
        try:
            results = _safe_pickle.loads(data)
        except pickle.UnpicklingError as error:
            raise ValueError(f'{path}: {error}') from None
        except MemoryError:
            raise
        except Exception as error:  # whatever a malformed pickle makes pandas or numpy raise
            raise ValueError(f'{path} is not a pickle of SubTrackingResults ({type(error).__name__}: {error}); '
                             f'name a JSON results file .json') from None
    if not isinstance(results, SubTrackingResults):
        raise ValueError(f'{path} holds a {type(results).__name__}, not SubTrackingResults')
    _check_fields(results, path)
    return results


def _check_fields(results: SubTrackingResults, path: str) -> None:
    """A pickle sets an object's fields as it likes (gpu_tracker's, or
    anyone's): each one read must have exactly its class's fields."""
    objects = [results] + list(results.code_block_results if isinstance(results.code_block_results, list)
                               else [None])
    for obj in objects:
        if not isinstance(obj, (SubTrackingResults, CodeBlockResults)):
            raise ValueError(f'{path}: code_block_results holds a {type(obj).__name__}, not CodeBlockResults')
        want = [f.name for f in dclass.fields(obj)]
        have = sorted(vars(obj))
        if have != sorted(want):
            raise ValueError(f'{path}: a {type(obj).__name__} with the fields {", ".join(have)}, not '
                             f'{", ".join(want)}: not gpu_tracker\'s or gpu-tracker\'s results')


class TrackingComparison:
    """Compares tracking sessions by their SubTrackingResults (gpu_tracker's
    TrackingComparison): file_path_map maps each session's name to a pickle
    of its results, or their JSON when the name ends in .json (the name
    decides, never the contents). A pickle is read by an unpickler that
    allows only our result classes and pandas/numpy data (_safe_pickle).
    Code blocks are matched by name; names that differ only by a trailing
    line number match in order, with a warning."""

    def __init__(self, file_path_map: dict):
        self.results_map = {name: _load_results(path) for name, path in file_path_map.items()}
        # The blocks must match: the library checks them (gt_subtrack_compare)
        # and says so in gpu_tracker's words, a ValueError now, and a
        # warning for each pair of blocks matched only by their order.
        _, warnings = self._compare('mean')
        for line in (warnings or '').splitlines():
            _log.warning(line)

    def _compare(self, statistic: str):
        sessions = [(name, json.dumps(results.to_json())) for name, results in self.results_map.items()]
        return _native.sub_track_compare(sessions, statistic, True)

    def compare(self, statistic: str = 'mean') -> ComparisonResults:
        """The sessions' statistic ('min', 'max', 'mean' or 'std') of each measurement, overall and per code
        block, and of each block's compute time, sorted from least to most."""
        if statistic not in _SUMMARY_STATS:
            raise ValueError(f"Invalid summary statistic '{statistic}'. Valid values are {' '.join(_SUMMARY_STATS)}.")
        text, _ = self._compare(statistic)
        return ComparisonResults.from_json(json.loads(text))
