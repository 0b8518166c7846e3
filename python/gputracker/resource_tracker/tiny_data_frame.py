"""resource_tracker 0.5.0's ``resource_tracker.tiny_data_frame``: its
TinyDataFrame and StatSpec, with their behaviour (read from its source,
tag v0.5.0): a CSV file (or an http(s) URL) as a constructor argument,
``rename()`` in place raising KeyError for an unknown column, ``str()`` a
table of the first 10 rows, TypeError for a key that is not a column name,
a row number, a slice or a list of names, and ``stats()`` leaving out an
aggregation that fails (logged). Built on gputracker's MetricsTable, so a
loaded snapshot's columns stay arrays of 8-byte values."""
from __future__ import annotations

import logging
from collections import defaultdict
# 0.5.0's module names for the reader and the pause between tries (and
# urlopen, below), looked up here at each use: code that patches them in
# this module (0.5.0's own tests do) reaches them.
from csv import DictReader
from time import sleep
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Union

from .._metrics import MetricsTable

logger = logging.getLogger(__name__)

_URL_TIMEOUT = 60.0  # seconds a CSV URL may take to answer each read


class StatSpec(NamedTuple):
    """One statistic: agg applied to column, stored as agg_name (default:
    the function's name), rounded to round digits when given. 0.5.0's field
    order: StatSpec('memory_mib', max, 'peak') names it "peak"."""
    column: str
    agg: Callable
    agg_name: Optional[str] = None
    round: Optional[int] = None


def _number(text: str) -> Union[int, float, str]:
    """A CSV field as 0.5.0 reads it: an int, else a float, else the text."""
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text


def __getattr__(name: str) -> Any:
    """``urlopen``, imported when first asked for (urllib.request takes
    50 ms to import; only a URL needs it)."""
    if name == 'urlopen':
        from urllib.request import urlopen
        return urlopen
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')


def _read_csv(path: str, retries: int, retry_delay: float) -> List[Dict[str, Any]]:
    """The rows of a quoted CSV file with a header (or of an http(s) URL),
    tried retries more times with a delay doubling each time; RuntimeError
    naming the file after the last failure (the cause chained)."""
    last = None
    for attempt in range(retries + 1):
        try:
            if path.startswith(('http://', 'https://')):
                opener = globals().get('urlopen') or __getattr__('urlopen')
                # bounded in time (0.5.0 waits for ever on a server that stalls)
                with opener(path, timeout=_URL_TIMEOUT) as response:
                    lines = response.read().decode('utf-8').splitlines()
                records = list(DictReader(lines))
            else:
                with open(path, newline='') as f:
                    records = list(DictReader(f))
            for record in records:
                if None in record:
                    raise ValueError('Corrupt CSV file with unknown column names.')
                for key, value in record.items():
                    if isinstance(value, str):
                        record[key] = _number(value)
            return records
        except Exception as e:  # 0.5.0 retries whatever went wrong
            last = e
            if attempt < retries:
                sleep(retry_delay)
                retry_delay *= 2
    raise RuntimeError(f'Failed to read CSV file after {retries + 1} attempts: {path}') from last


class TinyDataFrame(MetricsTable):
    """resource_tracker 0.5.0's TinyDataFrame: from a dict of columns, a
    list of row dicts, or csv_file_path (a CSV file or an http(s) URL, with
    retries); one of data and csv_file_path, not both (AssertionError, as
    0.5.0's asserts)."""

    def __init__(self, data: Union[Dict[str, List[Any]], List[Dict[str, Any]], None] = None,
                 csv_file_path: Optional[str] = None, retries: int = 0, retry_delay: float = 0.1, *,
                 columns: Optional[List[str]] = None):
        if columns is not None:  # an empty table of these columns (gputracker's own use)
            super().__init__(columns=columns)
            return
        assert data is not None or csv_file_path is not None, 'either data or csv_file_path must be provided'
        assert data is None or csv_file_path is None, 'only one of data or csv_file_path must be provided'
        assert data is None or isinstance(data, (dict, list)), 'data must be a dictionary or a list'
        assert csv_file_path is None or isinstance(csv_file_path, str), 'csv_file_path must be a string'
        if csv_file_path:
            data = _read_csv(csv_file_path, retries, retry_delay)
        super().__init__(data)

    @classmethod
    def _adopt(cls, table: MetricsTable) -> 'TinyDataFrame':
        """A MetricsTable's columns as a TinyDataFrame (shared, not copied)."""
        return cls._from_columns(table.columns, table._raw_columns())

    def __getitem__(self, key):
        if isinstance(key, str):
            if key not in self.columns:
                raise KeyError(f"Column '{key}' not found")
            return self._column(self.columns.index(key))
        if isinstance(key, list) and all(isinstance(k, str) for k in key):
            for k in key:
                if k not in self.columns:
                    raise KeyError(f"Column '{k}' not found")
            return self._adopt(super().__getitem__(key))
        if isinstance(key, int):
            return super().__getitem__(key)
        if isinstance(key, slice):
            return self._adopt(super().__getitem__(key))
        raise TypeError(f'Invalid key type: {type(key)}')

    def __setitem__(self, key: str, value: List[Any]) -> None:
        if not isinstance(key, str):
            raise TypeError(f'Column name must be a string, got {type(key)}')
        if len(self) > 0 and len(value) != len(self):
            raise ValueError(f'Length of values ({len(value)}) must match dataframe length ({len(self)})')
        super().__setitem__(key, value)

    def head(self, n: int = 5) -> 'TinyDataFrame':
        """The first n rows."""
        return self[slice(0, n)]

    def tail(self, n: int = 5) -> 'TinyDataFrame':
        """The last n rows."""
        return self[slice(-n, None)]

    def __repr__(self) -> str:
        return (f'TinyDataFrame with {len(self)} rows and {len(self.columns)} columns. '
                f'First row as a dict: {self[0]}')

    def __str__(self) -> str:
        """The first 10 rows as a table: names over a rule, numbers right-
        and text left-aligned, "..." when there are more."""
        header = f'TinyDataFrame with {len(self)} rows and {len(self.columns)} columns:\n'
        if len(self) == 0:
            return header + 'Empty dataframe'
        shown = min(10, len(self))
        cells = {col: [str(v) for v in self[col][:shown]] for col in self.columns}
        widths = {col: max([len(str(col))] + [len(c) for c in cells[col]]) for col in self.columns}

        def is_number(text: str) -> bool:
            try:
                float(text)
                return True
            except ValueError:
                return False
        lines = [' | '.join(str(col).ljust(widths[col]) for col in self.columns),
                 '-+-'.join('-' * widths[col] for col in self.columns)]
        for i in range(shown):
            lines.append(' | '.join(cells[col][i].rjust(widths[col]) if is_number(cells[col][i])
                                    else cells[col][i].ljust(widths[col]) for col in self.columns))
        if len(self) > shown:
            lines.append('...' + ' ' * (len(lines[0]) - 3))
        return header + '\n'.join(lines)

    def rename(self, columns: Dict[str, str]) -> 'TinyDataFrame':
        """Renames columns in place (KeyError for a name not in the table);
        returns the table, for chaining."""
        for old in columns:
            if old not in self.columns:
                raise KeyError(f"Column '{old}' not found in dataframe")
        self.columns = [columns.get(col, col) for col in self.columns]
        return self

    def to_csv(self, csv_file_path: Optional[str] = None, quote_strings: bool = True) -> Optional[str]:
        """The table as CSV text, or written to csv_file_path (then None, as
        0.5.0's)."""
        text = super().to_csv(None, quote_strings)
        if not csv_file_path:
            return text
        with open(csv_file_path, 'w', newline='') as f:
            f.write(text)
        return None

    def stats(self, specs: List[StatSpec]) -> Dict[str, Dict[str, Any]]:
        """{column: {agg_name: value}}; a statistic that fails (a column not
        there, an aggregation that raises) is logged and left out."""
        result: Dict[str, Dict[str, Any]] = defaultdict(dict)
        for spec in specs:
            try:
                name = spec.agg_name or spec.agg.__name__
                value = spec.agg(self[spec.column])
                result[spec.column][name] = round(value, spec.round) if spec.round is not None else value
            except Exception as e:
                logger.error(f'Error collecting statistic on {spec.column} with {spec.agg_name}: {e}')
        return result


__all__ = ['TinyDataFrame', 'StatSpec']
