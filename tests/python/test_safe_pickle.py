"""A results file never runs code: TrackingComparison and the package's
`gpu-tracker sub-track compare` read pickles through an unpickler that allows
only our result classes and pandas/numpy data, and choose JSON or pickle by
the file's name, never by its first byte (the attack: a "results.json"
holding a pickle whose __reduce__ called os.system ran as root)."""
import io
import os
import pickle
import subprocess
import sys

import pytest

pd = pytest.importorskip('pandas')

from gputracker import ComparisonResults, SubTrackingResults, TrackingComparison  # noqa: E402
from gputracker import _safe_pickle  # noqa: E402

GPU_TRACKER = os.path.join(os.path.dirname(sys.executable), 'gpu-tracker')


def _results(shift=0.0):
    return SubTrackingResults.from_json({
        'overall': {'main_ram': {'min': 1.0 + shift, 'max': 2.0 + shift, 'mean': 1.5, 'std': 0.5}},
        'static_data': {'ram_unit': 'gigabytes', 'system_core_count': 4},
        'code_block_results': [{
            'name': 'train', 'num_timepoints': 3, 'num_calls': 1, 'num_non_empty_calls': 1,
            'compute_time': {'min': 1.0, 'max': 1.0, 'mean': 1.0, 'std': 0.0, 'total': 1.0},
            'resource_usage': {'main_ram': {'min': 1.0, 'max': 2.0 + shift, 'mean': 1.5, 'std': 0.5}}}]})


class _RunsACommand:
    """What the attack pickled: loading it runs a shell command."""

    def __init__(self, command):
        self.command = command

    def __reduce__(self):
        return (os.system, (self.command,))


class _Evals:
    def __reduce__(self):
        return (eval, ("__import__('os').system('true')",))


def _evil(tmp_path, name):
    marker = tmp_path / f'{name}.ran'
    path = tmp_path / name
    path.write_bytes(pickle.dumps(_RunsACommand(f'touch {marker}')))
    return str(path), marker


def test_a_pickle_named_json_is_json_and_runs_nothing(tmp_path):
    evil, marker = _evil(tmp_path, 'results.json')
    good = tmp_path / 'good.pkl'
    good.write_bytes(pickle.dumps(_results()))
    with pytest.raises(ValueError, match='is not JSON'):
        TrackingComparison({'A': evil, 'B': str(good)})
    assert not marker.exists()


def test_a_pickle_naming_other_globals_is_refused(tmp_path):
    evil, marker = _evil(tmp_path, 'results.pkl')
    with pytest.raises(ValueError, match=r'refused to load posix\.system'):
        TrackingComparison({'A': evil})
    assert not marker.exists()
    # eval, and a codec other than latin-1 through _codecs.encode (what
    # protocol 0-2 pickles of bytes use), are refused the same way.
    with pytest.raises(pickle.UnpicklingError, match=r'refused to load builtins\.eval'):
        _safe_pickle.loads(pickle.dumps(_Evals()))
    crafted = b"c_codecs\nencode\n(Vabc\nVrot13\ntR."
    with pytest.raises(pickle.UnpicklingError, match='only latin-1'):
        _safe_pickle.loads(crafted)
    # The refusal comes before the global is imported.
    # (importing "this" prints the Zen of Python)
    assert 'this' not in sys.modules
    with pytest.raises(pickle.UnpicklingError, match=r'refused to load this\.d'):
        _safe_pickle.loads(b'cthis\nd\n.')
    assert 'this' not in sys.modules


@pytest.mark.parametrize('protocol', range(0, pickle.HIGHEST_PROTOCOL + 1))
def test_our_results_still_load_at_every_protocol(tmp_path, protocol):
    results = _results()
    path = tmp_path / 'r.pkl'
    path.write_bytes(pickle.dumps(results, protocol=protocol))
    loaded = _safe_pickle.load(str(path))
    assert str(loaded) == str(results)
    comparison = TrackingComparison({'A': str(path), 'B': str(path)}).compare('max')
    assert isinstance(comparison, ComparisonResults)
    again = _safe_pickle.loads(pickle.dumps(comparison, protocol=protocol))
    assert str(again) == str(comparison)


def test_a_fifo_or_a_huge_file_is_refused_at_once(tmp_path):
    fifo = tmp_path / 'results.pkl'
    os.mkfifo(fifo)
    with pytest.raises(OSError, match='not a regular file'):
        TrackingComparison({'A': str(fifo)})
    with pytest.raises(OSError, match='a results file is read up to 16 bytes'):
        _safe_pickle.read_regular(__file__, 16)


def test_the_command_runs_nothing_either(tmp_path):
    good = tmp_path / 'good.pkl'
    good.write_bytes(pickle.dumps(_results()))
    for name in ('evil.pkl', 'results.json', 'results'):
        evil, marker = _evil(tmp_path, name)
        run = subprocess.run([GPU_TRACKER, 'sub-track', 'compare', '-m', f'A={evil}', '-m', f'B={good}'],
                             capture_output=True)
        err = run.stderr.decode()
        assert run.returncode != 0 and run.stdout == b'', err
        assert err.count('\n') == 1 and err.startswith('gpu-tracker: '), err
        assert 'Traceback' not in err
        assert not marker.exists(), name
    # Two good pickles still compare.
    run = subprocess.run([GPU_TRACKER, 'sub-track', 'compare', '-m', f'A={good}', '-m', f'B={good}'],
                         capture_output=True)
    assert run.returncode == 0, run.stderr.decode()
    assert 'Overall Resource Usage' in run.stdout.decode()


def test_pandas_data_of_its_own_loads():
    data = pickle.dumps(pd.Series([1.0, 2.0], index=['a', 'b']))
    assert list(_safe_pickle.SafeUnpickler(io.BytesIO(data)).load()) == [1.0, 2.0]


def _gpu_tracker_pickle(results, protocol=pickle.DEFAULT_PROTOCOL, fields=None):
    """results pickled as gpu_tracker 5.0.1 pickles its own: classes of the
    module gpu_tracker.sub_tracker, dataclasses with the fields of
    sub_tracker.py (tag v5.0.1). A stand-in module of that name is made for
    the dump and removed before anything loads it: the loader must not need
    (or import) gpu_tracker."""
    import dataclasses
    import types
    module = types.ModuleType('gpu_tracker.sub_tracker')
    package = types.ModuleType('gpu_tracker')
    package.sub_tracker = module
    block_fields = fields or ['name', 'num_timepoints', 'num_calls', 'num_non_empty_calls', 'compute_time',
                              'resource_usage']
    CodeBlockResults = dataclasses.make_dataclass('CodeBlockResults', block_fields)
    SubTrackingResults = dataclasses.make_dataclass('SubTrackingResults',
                                                    ['overall', 'static_data', 'code_block_results'])
    for cls in (CodeBlockResults, SubTrackingResults):
        cls.__module__ = 'gpu_tracker.sub_tracker'
        setattr(module, cls.__name__, cls)
    blocks = [CodeBlockResults(*[getattr(b, f, 0) for f in block_fields]) for b in results.code_block_results]
    theirs = SubTrackingResults(results.overall, results.static_data, blocks)
    sys.modules['gpu_tracker'], sys.modules['gpu_tracker.sub_tracker'] = package, module
    try:
        data = pickle.dumps(theirs, protocol=protocol)
    finally:
        del sys.modules['gpu_tracker'], sys.modules['gpu_tracker.sub_tracker']
    assert b'gpu_tracker.sub_tracker' in data or b'gpu_tracker\n' in data or b'sub_tracker' in data
    return data


def test_gpu_tracker_pickles_load_as_ours(tmp_path):
    # gpu_tracker 5.0.1's results pickles (TrackingComparison's input) load
    # as our classes, by their module and name, at every protocol; the
    # comparison of one of theirs with one of ours runs, in Python and in
    # the package's command.
    for protocol in range(0, pickle.HIGHEST_PROTOCOL + 1):
        path = tmp_path / f'gt-{protocol}.pkl'
        path.write_bytes(_gpu_tracker_pickle(_results(), protocol))
        loaded = _safe_pickle.load(str(path))
        assert type(loaded) is SubTrackingResults and str(loaded) == str(_results())
    ours = tmp_path / 'ours.pkl'
    ours.write_bytes(pickle.dumps(_results(0.5)))
    comparison = TrackingComparison({'A': str(tmp_path / 'gt-4.pkl'), 'B': str(ours)}).compare('max')
    assert isinstance(comparison, ComparisonResults)
    run = subprocess.run([GPU_TRACKER, 'sub-track', 'compare', '-m', f'A={tmp_path / "gt-4.pkl"}',
                          '-m', f'B={ours}'], capture_output=True)
    assert run.returncode == 0 and 'Overall Resource Usage' in run.stdout.decode(), run.stderr.decode()
    # A pickle with other fields under those names is not theirs: one line.
    odd = tmp_path / 'odd.pkl'
    odd.write_bytes(_gpu_tracker_pickle(_results(), fields=['name', 'payload']))
    with pytest.raises(ValueError, match='a CodeBlockResults with the fields name, payload'):
        TrackingComparison({'A': str(odd)})
    run = subprocess.run([GPU_TRACKER, 'sub-track', 'compare', '-m', f'A={odd}', '-m', f'B={ours}'],
                         capture_output=True)
    err = run.stderr.decode()
    assert run.returncode != 0 and err.count('\n') == 1 and 'Traceback' not in err, err
    # Any other name of gpu_tracker's is refused before it is imported.
    evil = tmp_path / 'evil.pkl'
    evil.write_bytes(b'cgpu_tracker.tracker\nTracker\n.')  # protocol 0: GLOBAL, STOP
    with pytest.raises(ValueError, match='refused to load gpu_tracker.tracker.Tracker'):
        TrackingComparison({'A': str(evil)})


class _Sized:
    """A pickle that calls func(*args) as it loads: small, asking for much."""

    def __init__(self, func, *args):
        self.func, self.args = func, args

    def __reduce__(self):
        return (self.func, self.args)


_BIG = 3_900_000_000  # the attack's: a 37-byte pickle of bytearray(3.9e9)


@pytest.mark.parametrize('name,make', [
    ('bytearray', lambda: _Sized(bytearray, _BIG)),
    ('bytes', lambda: _Sized(bytes, _BIG)),
    ('ndarray', lambda: _Sized(__import__('numpy').ndarray, (_BIG // 8,))),
    ('_reconstruct', lambda: _Sized(__import__('numpy').core.multiarray._reconstruct,
                                    __import__('numpy').ndarray, (_BIG // 8,), 'f8')),
    ('an empty array of many rows', lambda: _Sized(__import__('numpy').ndarray, (10 ** 12, 0))),
    ('copyreg', lambda: _Sized(__import__('copyreg')._reconstructor, bytes, bytes, _BIG)),
    ('a range index', lambda: pd.RangeIndex(0, 10 ** 12)),
])
def test_what_a_load_may_allocate_is_bounded(name, make):
    # Loaded in a child whose address space is 2 GiB: were the allocation
    # made, it would fail with MemoryError there, not be refused by name.
    data = pickle.dumps(make(), protocol=2)
    assert len(data) < 200, len(data)
    child = subprocess.run([sys.executable, '-c', '''
import resource, sys
resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
import pickle
from gputracker import _safe_pickle
try:
    _safe_pickle.loads(sys.stdin.buffer.read())
except pickle.UnpicklingError as error:
    print('refused:', error)
'''], input=data, capture_output=True, timeout=120)
    out = child.stdout.decode()
    assert child.returncode == 0 and out.startswith('refused: '), (name, out, child.stderr.decode()[-500:])
    assert f'past the {_safe_pickle.MAX_ALLOCATION} bytes a results pickle may allocate in all' in out, out


def test_a_planted_link_is_not_read(tmp_path):
    if os.geteuid() != 0:
        pytest.skip('needs root to give a link to another user')
    # A root-only results file, and another user's link to it: not followed.
    secret = tmp_path / 'secret.pkl'
    secret.write_bytes(pickle.dumps(_results()))
    secret.chmod(0o600)
    link = tmp_path / 'theirs.pkl'
    os.symlink(secret, link)
    os.lchown(link, 65534, 65534)
    with pytest.raises(OSError, match="'theirs.pkl' is a symbolic link owned by user 65534, neither you nor root"):
        TrackingComparison({'A': str(link)})
