"""The light table resource_tracker's ResourceTracker returns its metrics in
(its TinyDataFrame): columns by name, rows by position, to_dict(), to_csv(),
to_pandas() when pandas is installed, and stats() with custom aggregations."""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any, Callable, Dict, Iterable, List, Optional, Union

from . import _native

# resource_tracker's columns of the two series, from the library's table.
PROCESS_COLUMNS = _native.PROCESS_COLUMNS
SYSTEM_COLUMNS = _native.SYSTEM_COLUMNS

# resource_tracker 0.4's names for people, and its factors to bytes (kB,
# MiB, GiB), for get_combined_metrics(human_names=..., bytes=...).
HUMAN_NAMES_MAPPING = {
    'timestamp': 'Timestamp', 'processes': 'processes', 'utime': 'CPU time (user)',
    'stime': 'CPU time (system)', 'cpu_usage': 'CPU usage', 'memory_free': 'free memory',
    'memory_used': 'used memory', 'memory_buffers': 'memory buffers', 'memory_cached': 'memory page/file cached',
    'memory_active': 'active memory', 'memory_inactive': 'inactive memory', 'disk_read_bytes': 'disk read',
    'disk_write_bytes': 'disk write', 'disk_space_total_gb': 'disk space total',
    'disk_space_used_gb': 'disk space used', 'disk_space_free_gb': 'disk space free',
    'net_recv_bytes': 'inbound network traffic', 'net_sent_bytes': 'outbound network traffic',
    'gpu_usage': 'GPU usage', 'gpu_vram': 'VRAM used', 'gpu_utilized': 'GPUs in use', 'pid': 'PID',
    'children': 'children', 'memory': 'memory usage', 'read_bytes': 'disk read', 'write_bytes': 'disk write',
}
BYTE_MAPPING = {
    'memory': 1024, 'memory_free': 1024, 'memory_used': 1024, 'memory_buffers': 1024, 'memory_cached': 1024,
    'memory_active': 1024, 'memory_inactive': 1024, 'gpu_vram': 1024 * 1024,
    'disk_space_total_gb': 1024 ** 3, 'disk_space_used_gb': 1024 ** 3, 'disk_space_free_gb': 1024 ** 3,
}


@dataclass
class StatSpec:
    """One statistic for stats(): agg applied to column, named agg_name
    (default: the function's name), rounded to round digits when given."""
    column: str
    agg: Callable[[List[Any]], Any]
    round: Optional[int] = None
    agg_name: Optional[str] = None


class MetricsTable:
    """Rows of metrics, column by column (resource_tracker's TinyDataFrame).

    ``table['cpu_usage']`` is a column (a list), ``table[0]`` a row (a dict),
    ``table[1:3]`` and ``table[['timestamp', 'memory']]`` smaller tables."""

    def __init__(self, data: Union[Dict[str, List[Any]], List[Dict[str, Any]], None] = None,
                 columns: Optional[Iterable[str]] = None):
        self.columns: List[str] = []
        self._data: List[List[Any]] = []
        if isinstance(data, dict):
            self.columns = list(data)
            self._data = [list(v) for v in data.values()]
        elif data:
            for row in data:
                for col in row:
                    if col not in self.columns:
                        self.columns.append(col)
            self._data = [[row.get(col) for row in data] for col in self.columns]
        elif columns is not None:
            self.columns = list(columns)
            self._data = [[] for _ in self.columns]
        if self._data and len({len(col) for col in self._data}) > 1:
            raise ValueError('every column must have the same number of values')

    @classmethod
    def _from_rows(cls, columns: Iterable[str], rows: List[tuple]) -> 'MetricsTable':
        table = cls(columns=columns)
        table._data = [list(col) for col in zip(*rows)] if rows else [[] for _ in table.columns]
        return table

    @classmethod
    def _from_columns(cls, columns: Iterable[str], data: List[Any]) -> 'MetricsTable':
        """A table over the given columns (array.array of a loaded snapshot,
        8 bytes a value), shared, not copied: a column is read as a list."""
        table = cls(columns=columns)
        table._data = list(data)
        return table

    def _raw_columns(self) -> list:
        """The columns as kept (arrays shared; lists copied, since a list
        column is handed out as it is and may be changed)."""
        return [values if not isinstance(values, list) else list(values) for values in self._data]

    def _column(self, i: int) -> list:
        values = self._data[i]
        return values if isinstance(values, list) else values.tolist()

    def __len__(self) -> int:
        return len(self._data[0]) if self._data else 0

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]

    def __getitem__(self, key):
        if isinstance(key, str):
            if key not in self.columns:
                raise KeyError(f'no column {key!r}; the columns are {", ".join(self.columns)}')
            return self._column(self.columns.index(key))
        if isinstance(key, int):
            return {col: values[key] for col, values in zip(self.columns, self._data)}
        if isinstance(key, slice):
            table = MetricsTable(columns=self.columns)
            table._data = [values[key] for values in self._data]
            return table
        if isinstance(key, (list, tuple)):
            return MetricsTable({col: list(self[col]) for col in key})
        raise TypeError(f'a table is indexed by a column name, a row number, a slice or a list of names, '
                        f'not {type(key).__name__}')

    def __setitem__(self, column: str, values: List[Any]):
        values = list(values)
        if self.columns and len(values) != len(self):
            raise ValueError(f'{len(values)} values for a table of {len(self)} rows')
        if column in self.columns:
            self._data[self.columns.index(column)] = values
        else:
            self.columns.append(column)
            self._data.append(values)

    def __eq__(self, other):
        return isinstance(other, MetricsTable) and self.columns == other.columns and \
            [self._column(i) for i in range(len(self._data))] == \
            [other._column(i) for i in range(len(other._data))]

    def __repr__(self) -> str:
        return f'MetricsTable with {len(self)} rows and {len(self.columns)} columns: {", ".join(self.columns)}'

    def head(self, n: int = 5) -> 'MetricsTable':
        """The first n rows."""
        return self[:n]

    def tail(self, n: int = 5) -> 'MetricsTable':
        """The last n rows."""
        return self[-n:] if n else self[:0]

    def rename(self, columns: Dict[str, str]) -> 'MetricsTable':
        """A copy with columns renamed (names not in the mapping kept)."""
        return MetricsTable({columns.get(col, col): list(values) for col, values in zip(self.columns, self._data)})

    def to_dict(self) -> List[Dict[str, Any]]:
        """The rows as a list of dicts (as resource_tracker's to_dict())."""
        return list(self)

    def to_csv(self, csv_file_path: Optional[str] = None, quote_strings: bool = True) -> str:
        """The table as CSV (header, then rows; strings quoted as Python's
        csv.QUOTE_NONNUMERIC does), written to csv_file_path when given."""
        out = io.StringIO()
        writer = csv.writer(out, quoting=csv.QUOTE_NONNUMERIC if quote_strings else csv.QUOTE_MINIMAL)
        writer.writerow(self.columns)
        for i in range(len(self)):
            writer.writerow([values[i] for values in self._data])
        text = out.getvalue()
        if csv_file_path:
            with open(csv_file_path, 'w', newline='') as f:
                f.write(text)
        return text

    def to_pandas(self):
        """A pandas DataFrame of the table (ImportError naming the package
        when pandas is not installed)."""
        try:
            import pandas
        except ImportError as e:
            raise ImportError('to_pandas() needs pandas: pip install pandas (Debian: python3-pandas)') from e
        return pandas.DataFrame({col: self._column(i) for i, col in enumerate(self.columns)},
                                columns=self.columns)

    def stats(self, specs: List[StatSpec]) -> Dict[str, Dict[str, Any]]:
        """{column: {agg_name: value}} for each spec."""
        result: Dict[str, Dict[str, Any]] = {}
        for spec in specs:
            name = spec.agg_name or getattr(spec.agg, '__name__', 'agg')
            value = spec.agg(self[spec.column])
            if spec.round is not None:
                value = round(value, spec.round)
            result.setdefault(spec.column, {})[name] = value
        return result


def aggregate_stats(stats: List[Dict[str, Dict[str, Any]]]) -> Dict[str, Dict[str, Any]]:
    """Several runs' stats() as one, as resource_tracker aggregates them:
    means and durations averaged, maxima and sums the largest; any other
    aggregation is a ValueError ("Unsupported aggregation type: min"). Each
    column's keys come as the original's do: the largest first, then the
    averaged ones ({'max': 3.0, 'mean': 2.0}). The library combines them
    (gt_stats_combine_json), by the rule `gpu-tracker recommend` uses."""
    return json.loads(_native.stats_combine([json.dumps(one) for one in stats]))
