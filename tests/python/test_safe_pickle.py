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
    with pytest.raises(OSError, match='larger than 16 bytes'):
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
