"""Pickled results read without running anything a pickle names.

A pickle is a program: every global it names is imported and called while it
loads, so an unrestricted ``pickle.load`` of a file someone else wrote runs
whatever they chose (``os.system`` through ``__reduce__``). gpu_tracker's
``TrackingComparison`` and ``sub-track compare`` read pickled results, and
gpu-tracker is run as root on shared machines, so here a pickle may name only
what our results are made of (docs/sub-tracking.md, "Pickled results"):

* our result classes (SubTrackingResults, CodeBlockResults,
  ComparisonResults): dataclasses whose state is set field by field; the
  same three as gpu_tracker 5 pickles them (``gpu_tracker.sub_tracker``)
  are read as ours, without importing gpu_tracker (its classes have the
  same fields; the loader checks each object's fields after loading);
* the pandas containers they hold (DataFrame, Series, their indexes and block
  managers) and the numpy array and dtype reconstructors beneath them, under
  the module names that pandas 1.x/2.x and numpy 1.x/2.x pickle them with;
* the builtins a pickle of those uses for plain data (slice, object, bytes,
  ``copyreg._reconstructor``) and ``_codecs.encode`` for protocol 0-2 bytes,
  for latin-1 only.

Every other global (``os.system``, ``builtins.eval``, ``subprocess.Popen``,
any other class) is refused with an ``UnpicklingError`` naming it, before it
is imported. A file is read only when it is a regular file (a FIFO is never
waited on) of at most ``MAX_BYTES``."""
from __future__ import annotations

import io
import os
import pickle
import stat

# The largest results file read: a SubTrackingResults of a few hundred code
# blocks is well under 1 MiB.
MAX_BYTES = 64 * 1024 * 1024

_RESULTS = 'gputracker._sub_tracking_analysis'
_ALLOWED = {
    _RESULTS: {'SubTrackingResults', 'CodeBlockResults', 'ComparisonResults'},
    'pandas.core.frame': {'DataFrame'},
    'pandas.core.series': {'Series'},
    'pandas.core.internals.managers': {'BlockManager', 'SingleBlockManager'},
    'pandas.core.internals.blocks': {'new_block', 'Block', 'NumpyBlock', 'ObjectBlock', 'FloatBlock',
                                     'IntBlock', 'NumericBlock'},
    'pandas._libs.internals': {'_unpickle_block', 'BlockPlacement'},
    'pandas.core.indexes.base': {'Index', '_new_Index'},
    'pandas.core.indexes.range': {'RangeIndex'},
    'pandas.core.indexes.numeric': {'Float64Index', 'Int64Index', 'UInt64Index', 'NumericIndex'},
    'numpy': {'dtype', 'ndarray'},
    'numpy.core.multiarray': {'_reconstruct', 'scalar'},
    'numpy._core.multiarray': {'_reconstruct', 'scalar'},
    'numpy.core.numeric': {'_frombuffer'},
    'numpy._core.numeric': {'_frombuffer'},
    'builtins': {'slice', 'object', 'bytes', 'bytearray', 'complex', 'frozenset', 'set'},
    'copyreg': {'_reconstructor'},
}
# Python 2's module names, which protocols 0-2 write (fix_imports).
_PY2_NAMES = {'__builtin__': 'builtins', 'copy_reg': 'copyreg'}


def _latin1_encode(text, encoding='latin1', errors='strict'):
    """``_codecs.encode`` as pickles of bytes use it (protocols 0-2), and
    nothing else: any other codec is refused."""
    if encoding.replace('-', '').replace('_', '').lower() not in ('latin1', 'iso88591') \
            or not isinstance(text, str):
        raise pickle.UnpicklingError(f'refused: _codecs.encode with {encoding!r} (only latin-1 bytes are read)')
    return text.encode('latin1', errors)


# gpu_tracker 5's result classes, read as ours: nothing of gpu_tracker is
# imported (installed or not, its module is never run).
_FOREIGN = {('gpu_tracker.sub_tracker', name): name
            for name in ('SubTrackingResults', 'CodeBlockResults', 'ComparisonResults')}


class SafeUnpickler(pickle.Unpickler):
    """An Unpickler that imports only the allowed globals above."""

    def find_class(self, module, name):
        module = _PY2_NAMES.get(module, module)
        if module == '_codecs' and name == 'encode':
            return _latin1_encode
        if (module, name) in _FOREIGN:
            return super().find_class(_RESULTS, _FOREIGN[(module, name)])
        if name in _ALLOWED.get(module, ()):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(
            f'refused to load {module}.{name}: a results pickle may hold only gputracker\'s result classes '
            f'and pandas/numpy data (docs/sub-tracking.md, "Pickled results")')


def loads(data: bytes):
    """The object pickled in data, through SafeUnpickler."""
    return SafeUnpickler(io.BytesIO(data)).load()


def read_regular(path: str, limit: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file path: OSError when it is not one (a
    FIFO is refused, never waited on) or has more than limit bytes."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise OSError(f"cannot read '{path}': it is "
                          f"{'a directory' if stat.S_ISDIR(mode) else 'not a regular file'}")
        chunks, size = [], 0
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            size += len(chunk)
            if size > limit:
                raise OSError(f"cannot read '{path}': it is larger than {limit} bytes, the most a "
                              f"results file may have")
            chunks.append(chunk)
        return b''.join(chunks)
    finally:
        os.close(fd)


def load(path: str):
    """The object pickled in the file path, read under read_regular's bounds
    and through SafeUnpickler."""
    return loads(read_regular(path))
