"""gpu_tracker 5.0.1's own comparison tests (its tests/test_sub_tracker.py:
test_comparison, test_errors), run against gputracker.gpu_tracker on its own
data: the seven results pickles it made from its .sqlite tracking files
(their frames' column names are SQLAlchemy's quoted_name, their arrays numpy
2's), its expected comparison_{min,max,mean,std}.{json,txt}, its warnings and
its error words, as read from its source."""
import io
import json
import logging
import math
import os
import pickle
import subprocess
import sys

import pytest

pytest.importorskip('pandas')

from gputracker.gpu_tracker import TrackingComparison  # noqa: E402
from gputracker import _safe_pickle  # noqa: E402

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, 'data', 'gpu_tracker',
                    'sub-tracking-results')
GPU_TRACKER = os.path.join(os.path.dirname(sys.executable), 'gpu-tracker')
WARNINGS = [
    'Code block name "tmp.py:9" of tracking session "A" matched with code block name "tmp.py:7" of tracking '
    'session "B" but they differ by line number. If these code blocks were not meant to match, their comparison '
    'will not be valid and their names must be disambiguated.',
    'Code block name "tmp.py:38" of tracking session "A" matched with code block name "tmp.py:37" of tracking '
    'session "B" but they differ by line number. If these code blocks were not meant to match, their comparison '
    'will not be valid and their names must be disambiguated.',
]


def comparison(*names):
    return TrackingComparison({name: os.path.join(DATA, f'results-{name}.pkl') for name in names})


def same_to_12_digits(expected, actual, path='') -> list:
    """Where two documents differ, as gpu_tracker's DeepDiff(...,
    significant_digits=12) would say: keys, order of keys aside, types
    (an int is not a float) and numbers to 12 significant digits."""
    if isinstance(expected, dict):
        if not isinstance(actual, dict) or set(expected) != set(actual):
            return [f'{path}: keys {sorted(expected)} against {actual!r}']
        return [d for k in expected for d in same_to_12_digits(expected[k], actual[k], f'{path}/{k}')]
    if type(expected) is not type(actual):
        return [f'{path}: {expected!r} ({type(expected).__name__}) against {actual!r} ({type(actual).__name__})']
    if isinstance(expected, float):
        if math.isnan(expected) and math.isnan(actual):
            return []
        if f'{expected:.11e}' != f'{actual:.11e}':
            return [f'{path}: {expected!r} against {actual!r}']
        return []
    return [] if expected == actual else [f'{path}: {expected!r} against {actual!r}']


@pytest.mark.parametrize('statistic', ['std', 'min', 'max', 'mean'])
def test_comparison(caplog, statistic):
    with caplog.at_level(logging.WARNING, logger='gputracker'):
        results = comparison('A', 'B').compare(statistic)
    with open(os.path.join(DATA, f'comparison_{statistic}.json')) as f:
        expected = json.load(f)
    assert same_to_12_digits(expected, results.to_json()) == []
    with open(os.path.join(DATA, f'comparison_{statistic}.txt')) as f:
        assert f.read() == str(results)  # byte for byte: 15, not 15.0, for a thread count's max
    warnings = [r for r in caplog.records if r.levelname == 'WARNING']
    assert [r.message for r in warnings] == WARNINGS


def test_comparison_by_the_command():
    """The package's gpu-tracker reads the same pickles to the same text."""
    run = subprocess.run([GPU_TRACKER, 'sub-track', 'compare', '-m', f'A={DATA}/results-A.pkl', '-m',
                          f'B={DATA}/results-B.pkl', '--stat', 'max'], capture_output=True)
    assert run.returncode == 0, run.stderr.decode()
    with open(os.path.join(DATA, 'comparison_max.txt')) as f:
        assert run.stdout.decode() == f.read() + '\n'


def test_errors():
    with pytest.raises(ValueError) as error:
        comparison('A', 'C')
    assert str(error.value) == ('All sub-tracking results must have the same number of code blocks. The first has '
                                '4 code blocks but tracking session "C" has 5 code blocks.')
    with pytest.raises(ValueError) as error:
        comparison('A', 'D')
    assert str(error.value) == ('Code block name "tmp.py:38" of tracking session "A" does not match code block name '
                                '"tmp.py:abc" of tracking session "D"')
    with pytest.raises(ValueError) as error:
        comparison('A', 'E')
    assert str(error.value) == ('Code block name "tmp.py:9" of tracking session "A" does not match code block name '
                                '"temp.py:123" of tracking session "E"')
    compared = comparison('F', 'G')
    compared.compare()
    with pytest.raises(ValueError) as error:
        compared.compare('invalid')
    assert str(error.value) == "Invalid summary statistic 'invalid'. Valid values are min max mean std."


def test_quoted_names_are_plain_strings():
    """SQLAlchemy's quoted_name comes back as str, SQLAlchemy not imported;
    given anything but a name, it is refused as every other global is."""
    with open(os.path.join(DATA, 'results-A.pkl'), 'rb') as f:
        results = _safe_pickle.SafeUnpickler(f).load()
    names = list(results.overall.index) + list(results.overall.columns) + list(results.static_data.index)
    assert names and all(type(name) is str for name in names), [type(n) for n in names]
    assert 'sqlalchemy' not in sys.modules
    # quoted_name(5, None): something other than a name where a name belongs
    odd = b'\x80\x04\x8c\x17sqlalchemy.sql.elements\x8c\x0bquoted_name\x93K\x05N\x86R.'
    with pytest.raises(pickle.UnpicklingError, match='refused: sqlalchemy.sql.elements.quoted_name'):
        _safe_pickle.SafeUnpickler(io.BytesIO(odd)).load()
    plain = b'\x80\x04\x8c\x17sqlalchemy.sql.elements\x8c\x0bquoted_name\x93\x8c\x03ram\x88\x86R.'
    loaded = _safe_pickle.SafeUnpickler(io.BytesIO(plain)).load()
    assert type(loaded) is str and loaded == 'ram'
    assert 'sqlalchemy' not in sys.modules


def test_overwrite(tmp_path, monkeypatch):
    """gpu_tracker's test_overwrite: a file there before is refused, replaced
    with overwrite=True, and one removed while this process writes to it is
    an error at the next mark, not a new file."""
    from gputracker.gpu_tracker import SubTracker
    monkeypatch.chdir(tmp_path)
    file_name = 'repeat-file.csv'
    open(file_name, 'w').close()
    with pytest.raises(FileExistsError) as error:
        with SubTracker(sub_tracking_file=file_name):
            pass  # pragma: nocover
    assert str(error.value) == 'File repeat-file.csv already exists. Set overwrite to True to overwrite the existing file.'
    with SubTracker(sub_tracking_file=file_name, overwrite=True):
        pass
    assert os.path.isfile(file_name)
    os.remove(file_name)
    with pytest.raises(FileNotFoundError) as error:
        with SubTracker(sub_tracking_file=file_name):
            pass  # pragma: nocover
    assert str(error.value) == 'The file repeat-file.csv was removed in the middle of writing data to it.'
    assert not os.path.exists(file_name)
