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
* SQLAlchemy's ``quoted_name``, which gpu_tracker's results of a ``.sqlite``
  tracking file hold as column names: read as a plain ``str``, SQLAlchemy never
  imported;
* the builtins a pickle of those uses for plain data (slice, object, bytes,
  ``copyreg._reconstructor``) and ``_codecs.encode`` for protocol 0-2 bytes,
  for latin-1 only.

Every other global (``os.system``, ``builtins.eval``, ``subprocess.Popen``,
any other class) is refused with an ``UnpicklingError`` naming it, before it
is imported.

What a load may allocate is bounded too (``MAX_ALLOCATION``): the few calls
among those allowed that allocate what their arguments ask rather than what
the pickle holds (``bytes(n)``, ``bytearray(n)``, a numpy array of a given
shape, through ``ndarray``, ``_reconstruct``, ``copyreg._reconstructor`` or
an array's ``__setstate__``) are charged before they run, and a load that
would pass the bound is refused with an ``UnpicklingError`` (a 37-byte
pickle asked for 3.9 GB before). Everything else a pickle builds is made of
its own bytes, so it is bounded by the file's size. The loading is pickle's
own pure-Python unpickler (results files are small), whose opcodes can be
looked at one by one.

A file is read through the library's reader (``gt_file_read``): a link of
another user's is never followed, only a regular file is read (a FIFO is
never waited on), at most ``MAX_BYTES``."""
from __future__ import annotations

import copyreg
import io
import math
import pickle

# The largest results file read: a SubTrackingResults of a few hundred code
# blocks is well under 1 MiB.
MAX_BYTES = 64 * 1024 * 1024
# The most the sized allocations of one load may ask for, in all.
MAX_ALLOCATION = 256 * 1024 * 1024

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


def _plain_name(value, quote=None):
    """SQLAlchemy's ``quoted_name`` (a ``str`` subclass its SQLite reads
    leave in a frame's column names, pickled as ``quoted_name(value,
    quote)``: all of gpu_tracker's own results of a ``.sqlite`` tracking
    file), read as the plain ``str`` it is, without importing SQLAlchemy."""
    if not isinstance(value, str) or not (quote is None or isinstance(quote, bool)):
        raise pickle.UnpicklingError('refused: sqlalchemy.sql.elements.quoted_name of something '
                                     'other than a name')
    return str(value)


def _numpy_module(module: str) -> str:
    """numpy 2 pickles its internals as numpy._core.*, numpy 1 has them as
    numpy.core.*: a pickle of either is read with the numpy installed."""
    import numpy
    if module.startswith('numpy._core') and int(numpy.__version__.split('.')[0]) < 2:
        return 'numpy.core' + module[len('numpy._core'):]
    return module


# gpu_tracker 5's result classes, read as ours: nothing of gpu_tracker is
# imported (installed or not, its module is never run).
_GPU_TRACKER_RESULTS = 'gpu_tracker.sub_tracker'
_FOREIGN = {(_GPU_TRACKER_RESULTS, name): name
            for name in ('SubTrackingResults', 'CodeBlockResults', 'ComparisonResults')}


def _shape_elements(shape) -> int | None:
    """The number of elements a shape (an int or a sequence of ints) asks
    for; None when it is not one (numpy then refuses it itself)."""
    if isinstance(shape, int):
        shape = (shape,)
    try:
        sizes = [int(n) for n in shape]
    except (TypeError, ValueError, OverflowError):
        return None
    return math.prod(max(n, 0) for n in sizes)


def _array_bytes(shape, dtype) -> int:
    """What an array of shape and dtype takes: its elements times their size
    (at least 8 bytes each, an object's reference)."""
    import numpy
    elements = _shape_elements(shape)
    if elements is None:
        return 0
    # An empty array's other dimensions cost nothing now, but a table of
    # that many rows costs what they say when it is shown: charged too.
    dims = [max(int(n), 0) for n in ((shape,) if isinstance(shape, int) else shape)]
    elements = max([elements, *dims])
    try:
        itemsize = numpy.dtype(dtype).itemsize if dtype is not None else 8
    except (TypeError, ValueError):
        itemsize = 8
    return elements * max(itemsize, 8)


class SafeUnpickler(pickle._Unpickler):
    """An Unpickler that imports only the allowed globals above and charges
    the sized allocations of a load against MAX_ALLOCATION."""

    def __init__(self, file, budget: int = MAX_ALLOCATION):
        super().__init__(file)
        self._left = budget

    def find_class(self, module, name):
        module = _PY2_NAMES.get(module, module)
        if module == '_codecs' and name == 'encode':
            return _latin1_encode
        if (module, name) in _FOREIGN:
            return super().find_class(_RESULTS, _FOREIGN[(module, name)])
        if (module, name) == ('sqlalchemy.sql.elements', 'quoted_name'):
            return _plain_name
        if name in _ALLOWED.get(module, ()):
            return super().find_class(_numpy_module(module), name)
        raise pickle.UnpicklingError(
            f'refused to load {module}.{name}: a results pickle may hold only gputracker\'s result classes '
            f'and pandas/numpy data (docs/sub-tracking.md, "Pickled results")')

    def _charge(self, size: int, what: str) -> None:
        if size > self._left:
            raise pickle.UnpicklingError(
                f'refused: {what} would take {size} bytes, past the {MAX_ALLOCATION} bytes a results pickle '
                f'may allocate in all (docs/sub-tracking.md, "Pickled results")')
        self._left -= size

    def _charge_call(self, func, args) -> None:
        """Charges func(*args) (a REDUCE) or func.__new__(func, *args) (a
        NEWOBJ) for what it allocates from its arguments alone."""
        import numpy
        args = tuple(args) if isinstance(args, (tuple, list)) else ()
        if func in (bytes, bytearray) and args and isinstance(args[0], int):
            self._charge(max(args[0], 0), f'{func.__name__}({args[0]})')
        elif isinstance(func, type) and issubclass(func, numpy.ndarray):
            self._charge(_array_bytes(args[0] if args else (), args[1] if len(args) > 1 else None),
                         'an array')
        elif getattr(func, '__name__', '') == '_reconstruct' and len(args) >= 3:
            self._charge(_array_bytes(args[1], args[2]), 'an array')
        elif getattr(func, '__name__', '') == '_new_Index' and len(args) >= 2 and isinstance(args[1], dict):
            d = args[1]  # a RangeIndex is lazy: its length is what it will cost
            if all(isinstance(d.get(k, 0), int) for k in ('start', 'stop', 'step')) and 'stop' in d:
                step = d.get('step', 1) or 1
                self._charge(len(range(d.get('start', 0), d['stop'], step)) * 8, 'a range index')
        elif func is copyreg._reconstructor and len(args) >= 3:
            base, state = args[1], args[2]
            if base in (bytes, bytearray) and isinstance(state, int):
                self._charge(max(state, 0), f'{base.__name__}({state})')
            elif isinstance(base, type) and issubclass(base, numpy.ndarray):
                self._charge(_array_bytes(state, None), 'an array')

    def _load_reduce(self):
        self._charge_call(self.stack[-2], self.stack[-1])
        pickle._Unpickler.load_reduce(self)

    def _load_newobj(self):
        self._charge_call(self.stack[-2], self.stack[-1])
        pickle._Unpickler.load_newobj(self)

    def _load_newobj_ex(self):
        self._charge_call(self.stack[-3], self.stack[-2])
        pickle._Unpickler.load_newobj_ex(self)

    def _load_build(self):
        import numpy
        inst, state = self.stack[-2], self.stack[-1]
        # ndarray.__setstate__((version, shape, dtype, fortran, data))
        if isinstance(inst, numpy.ndarray) and isinstance(state, tuple) and len(state) >= 3:
            self._charge(_array_bytes(state[1], state[2]), 'an array')
        pickle._Unpickler.load_build(self)

    dispatch = dict(pickle._Unpickler.dispatch)
    dispatch[pickle.REDUCE[0]] = _load_reduce
    dispatch[pickle.NEWOBJ[0]] = _load_newobj
    dispatch[pickle.NEWOBJ_EX[0]] = _load_newobj_ex
    dispatch[pickle.BUILD[0]] = _load_build


class _GpuTrackerPickler(pickle._Pickler):
    """pickle's own pure-Python pickler, which names our three result
    classes as gpu_tracker 5 names its own (``gpu_tracker.sub_tracker``):
    the pickle loads in gpu_tracker itself, into its classes (same fields),
    and in ours through SafeUnpickler (``_FOREIGN``). pickle's C pickler
    cannot do this: it imports a class's module to check the name, and
    gpu_tracker need not be installed. Everything else is pickled as
    pickle.dumps pickles it."""

    def save_global(self, obj, name=None):
        if getattr(obj, '__module__', None) == _RESULTS and name is None and \
                (_GPU_TRACKER_RESULTS, obj.__qualname__) in _FOREIGN:
            if self.proto >= 4:
                self.save(_GPU_TRACKER_RESULTS)
                self.save(obj.__qualname__)
                self.write(pickle.STACK_GLOBAL)
            else:
                self.write(pickle.GLOBAL + f'{_GPU_TRACKER_RESULTS}\n{obj.__qualname__}\n'.encode('ascii'))
            self.memoize(obj)
            return
        super().save_global(obj, name)


def dumps_for_gpu_tracker(obj) -> bytes:
    """obj (our results, or what holds them) pickled with protocol 4 under
    gpu_tracker's module and class names (_GpuTrackerPickler)."""
    out = io.BytesIO()
    _GpuTrackerPickler(out, protocol=4).dump(obj)
    return out.getvalue()


def loads(data: bytes):
    """The object pickled in data, through SafeUnpickler."""
    return SafeUnpickler(io.BytesIO(data)).load()


def read_regular(path: str, limit: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file path, read by the library's reader
    (gt_file_read: no link of another user's followed, a FIFO refused,
    never waited on): OSError when it is not one or has more than limit
    bytes."""
    from . import _native
    return _native.file_read(path, limit, 'results file')


def load(path: str):
    """The object pickled in the file path, read under read_regular's bounds
    and through SafeUnpickler."""
    return loads(read_regular(path))
