"""gpu_tracker 5's SubTracker and sub_track: the start and stop of code
blocks, a row per mark in a sub-tracking file, written by libgputracker
(gt_subtrack_begin/end: a few microseconds a mark)."""
from __future__ import annotations

import functools
import inspect
import os

from . import _native

# One open file per path, as gpu_tracker checks a file for overwrite once
# (its _DataProxy remembers the files it wrote): a decorated function called
# a thousand times opens its file once. A child made by fork() inherits the
# table, as it inherits gpu_tracker's: it appends to a CSV file with its own
# process ID (an SQLite file refuses it, saying to use a file per process).
_open_files: dict[str, _native.SubTrackingFile] = {}
# The files this process has written a mark to: one of them gone is an
# error at the next mark, as gpu_tracker's (it would not be recreated).
_written: set[str] = set()


def _file_for(path: str, overwrite: bool) -> _native.SubTrackingFile:
    key = os.path.abspath(path)
    f = _open_files.get(key)
    if f is None:
        try:
            f = _native.SubTrackingFile(path, overwrite)
        except FileExistsError:
            # gpu_tracker's words (_helper_classes.py, _check_overwrite)
            raise FileExistsError(f'File {path} already exists. Set overwrite to True to overwrite the existing '
                                  f'file.') from None
        _open_files[key] = f
    return f


class SubTracker:
    """Context manager that marks the start (on entry) and the stop (on exit)
    of a code block in a sub-tracking file, as gpu_tracker's SubTracker.

    :param code_block_name: the block's name; default the caller's file path
        (relative) and ``code_block_attribute``, joined by a colon.
    :param code_block_attribute: default the line number of the ``with``.
    :param sub_tracking_file: a ``.csv`` or ``.sqlite`` file; default
        ``<process ID>.csv`` (one file per process).
    :param overwrite: replace a file that existed before this process wrote it.
    """

    def __init__(self, code_block_name: str | None = None, code_block_attribute: str | None = None,
                 sub_tracking_file: str | None = None, overwrite: bool = False):
        if code_block_name is None:
            caller = inspect.stack()[1]
            attribute = caller.lineno if code_block_attribute is None else code_block_attribute
            code_block_name = f'{os.path.relpath(caller.filename)}:{attribute}'
        self.code_block_name = code_block_name
        self.process_id = os.getpid()
        if sub_tracking_file is None:
            sub_tracking_file = f'{self.process_id}.csv'
        if not sub_tracking_file.endswith(('.csv', '.sqlite')):
            raise ValueError(
                f'Invalid file name: "{sub_tracking_file}". Valid file extensions are ".csv" and ".sqlite".')
        self.sub_tracking_file = sub_tracking_file
        self._file = _file_for(sub_tracking_file, overwrite)

    def _mark(self, position: int) -> None:
        key = os.path.abspath(self.sub_tracking_file)
        if key in _written and not os.path.isfile(key):
            # gpu_tracker's words (_helper_classes.py, _DataProxy.write_data)
            raise FileNotFoundError(
                f'The file {self.sub_tracking_file} was removed in the middle of writing data to it.')
        self._file.mark(self.code_block_name, position)
        _written.add(key)

    def __enter__(self) -> SubTracker:
        self._mark(0)
        return self

    def __exit__(self, *_):
        self._mark(1)


def sub_track(code_block_name: str | None = None, code_block_attribute: str | None = None,
              sub_tracking_file: str | None = None, overwrite: bool = False):
    """Decorator that sub-tracks every call of a function (a SubTracker around
    it). The default name is the absolute path of the file defining the
    function and the function's name (or ``code_block_attribute``), joined by
    a colon, as gpu_tracker names it."""

    def decorator(func):
        name = code_block_name
        if name is None:
            caller = inspect.stack()[1]
            attribute = func.__name__ if code_block_attribute is None else code_block_attribute
            name = f'{os.path.abspath(caller.filename)}:{attribute}'

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with SubTracker(code_block_name=name, sub_tracking_file=sub_tracking_file, overwrite=overwrite):
                return func(*args, **kwargs)
        return wrapper
    return decorator
