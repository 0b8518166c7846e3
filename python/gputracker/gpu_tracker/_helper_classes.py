"""gpu_tracker 5.0.1's private ``gpu_tracker._helper_classes``, only as far as
code outside gpu_tracker reaches into it: the table names of a ``.sqlite``
tracking file (gpu_tracker's own test helpers read a tracking file with
``_SQLiteDataProxy._DATA_TABLE``). Our tracking files have the same two
tables; nothing here tracks or reads anything."""

__all__ = []


class _SQLiteDataProxy:
    """The tables of a ``.sqlite`` tracking or sub-tracking file."""
    _DATA_TABLE = 'data'  # one row per timepoint (a sub-tracking file's: per code block call)
    _STATIC_DATA_TABLE = 'static_data'  # one row: the run's fixed facts (tracking file only)
