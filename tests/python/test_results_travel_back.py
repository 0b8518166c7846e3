"""Results that travel back to gpu_tracker: the pickles our package writes of
gpu_tracker's result classes (``to_gpu_tracker_pickle()``, ``sub-track
analyze|compare -f pickle``) name gpu_tracker's module and classes, load in
gpu_tracker 5.0.1 into its own classes, and load back in ours through the
allow-listed reader.

A test cannot download gpu_tracker, so its side is a stand-in module tree
written here with gpu_tracker 5.0.1's module (``gpu_tracker.sub_tracker``),
class names and dataclass fields (its API documentation), loaded with a plain
``pickle.load`` (what its TrackingComparison does) in a separate interpreter
that has our package nowhere on its path."""
import json
import os
import pickle
import pickletools
import subprocess
import sys
import textwrap

import pytest

pd = pytest.importorskip('pandas')

from gputracker import _safe_pickle  # noqa: E402
from gputracker.gpu_tracker.sub_tracker import CodeBlockResults, ComparisonResults, SubTrackingResults  # noqa: E402

GPU_TRACKER = os.path.join(os.path.dirname(sys.executable), 'gpu-tracker')

STAND_IN = textwrap.dedent('''\
    """gpu_tracker 5.0.1's result dataclasses, as its API documents them."""
    import dataclasses as dclass


    @dclass.dataclass
    class CodeBlockResults:
        name: str
        num_timepoints: int
        num_calls: int
        num_non_empty_calls: int
        compute_time: object
        resource_usage: object


    @dclass.dataclass
    class SubTrackingResults:
        overall: object
        static_data: object
        code_block_results: list


    @dclass.dataclass
    class ComparisonResults:
        overall_resource_usage: dict
        code_block_resource_usage: dict
        code_block_compute_time: dict
    ''')

# Run in the stand-in's interpreter: load the pickle as gpu_tracker does and
# say what came out (classes, fields, frames) as JSON.
LOADER = textwrap.dedent('''\
    import json, pickle, sys
    with open(sys.argv[1], 'rb') as file:
        obj = pickle.load(file)
    import gpu_tracker.sub_tracker as st
    def frame(f):
        return {str(i): {str(c): float(v) for c, v in row.items()} for i, row in f.iterrows()}
    out = {'class': type(obj).__module__ + '.' + type(obj).__qualname__,
           'ours_imported': any(m == 'gputracker' or m.startswith('gputracker.') for m in sys.modules)}
    if isinstance(obj, st.SubTrackingResults):
        out['overall'] = frame(obj.overall)
        out['static_data'] = {k: str(v) for k, v in obj.static_data.items()}
        out['blocks'] = [{'class': type(b).__module__ + '.' + type(b).__qualname__, 'name': b.name,
                          'num_calls': b.num_calls, 'compute_time': {k: float(v) for k, v in b.compute_time.items()},
                          'resource_usage': frame(b.resource_usage)} for b in obj.code_block_results]
    elif isinstance(obj, st.ComparisonResults):
        out['overall_resource_usage'] = {m: {k: float(v) for k, v in s.items()}
                                         for m, s in obj.overall_resource_usage.items()}
        out['code_block_compute_time'] = {b: {k: float(v) for k, v in s.items()}
                                          for b, s in obj.code_block_compute_time.items()}
    print(json.dumps(out))
    ''')


def _stand_in(tmp_path):
    root = tmp_path / 'gpu_tracker_5.0.1'
    (root / 'gpu_tracker').mkdir(parents=True, exist_ok=True)
    (root / 'gpu_tracker' / '__init__.py').write_text('')
    (root / 'gpu_tracker' / 'sub_tracker.py').write_text(STAND_IN)
    (root / 'load.py').write_text(LOADER)
    return root


def _load_in_gpu_tracker(tmp_path, data: bytes) -> dict:
    root = _stand_in(tmp_path)
    path = tmp_path / 'results.pkl'
    path.write_bytes(data)
    # -E -s: no PYTHON* variables, no user site; the script's folder comes
    # first on the path, the system's site-packages (pandas) stay, our venv not.
    python = '/usr/bin/python3' if os.access('/usr/bin/python3', os.X_OK) else sys.executable
    done = subprocess.run([python, '-E', '-s', str(root / 'load.py'), str(path)], capture_output=True, text=True,
                          cwd=str(root), timeout=120)
    if done.returncode != 0 and "No module named 'pandas'" in done.stderr:
        pytest.skip(f'{python} has no pandas to load the stand-in with')
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _globals_named(data: bytes) -> list:
    """The (module, name) of every global the pickle's opcodes name: the
    two strings before each STACK_GLOBAL (pushed, or got back from the
    memo), or a GLOBAL's argument."""
    names, strings, memo = [], [], {}
    last = None
    for op, arg, _ in pickletools.genops(data):
        if op.name in ('SHORT_BINUNICODE', 'BINUNICODE', 'UNICODE'):
            last = arg
            strings.append(arg)
        elif op.name == 'MEMOIZE':
            memo[len(memo)] = last
        elif op.name in ('BINGET', 'LONG_BINGET', 'GET'):
            last = memo.get(arg)
            strings.append(last)
        elif op.name == 'STACK_GLOBAL':
            names.append((strings[-2], strings[-1]))
            last = None
        elif op.name == 'GLOBAL':
            names.append(tuple(arg.split(' ', 1)))
        else:
            last = None
    return names


def _results() -> SubTrackingResults:
    usage = pd.DataFrame({'min': [1.0, 2.0], 'max': [3.0, 5.0], 'mean': [2.0, 3.5], 'std': [0.5, 1.25]},
                         index=['main_ram', 'gpu_sum_utilization_percent'])
    block = CodeBlockResults(name='train.py:12', num_timepoints=4, num_calls=2, num_non_empty_calls=2,
                             compute_time=pd.Series({'min': 0.5, 'max': 1.5, 'mean': 1.0, 'std': 0.5, 'total': 2.0}),
                             resource_usage=usage * 2)
    return SubTrackingResults(overall=usage, static_data=pd.Series({'ram_unit': 'gigabytes', 'system_ram': 64.0}),
                              code_block_results=[block])


def test_sub_tracking_results_load_in_gpu_tracker(tmp_path):
    results = _results()
    data = results.to_gpu_tracker_pickle()
    # The opcodes name gpu_tracker's module and classes, never ours.
    named = _globals_named(data)
    assert ('gpu_tracker.sub_tracker', 'SubTrackingResults') in named
    assert ('gpu_tracker.sub_tracker', 'CodeBlockResults') in named
    assert not [n for n in named if n[0].startswith('gputracker')], named
    assert b'gputracker' not in data
    seen = _load_in_gpu_tracker(tmp_path, data)
    assert seen['class'] == 'gpu_tracker.sub_tracker.SubTrackingResults'
    assert not seen['ours_imported']
    assert seen['overall']['main_ram'] == {'min': 1.0, 'max': 3.0, 'mean': 2.0, 'std': 0.5}
    assert seen['static_data'] == {'ram_unit': 'gigabytes', 'system_ram': '64.0'}
    [block] = seen['blocks']
    assert block['class'] == 'gpu_tracker.sub_tracker.CodeBlockResults'
    assert (block['name'], block['num_calls']) == ('train.py:12', 2)
    assert block['compute_time']['total'] == 2.0
    assert block['resource_usage']['gpu_sum_utilization_percent']['std'] == 2.5
    # And back in ours, through the allow-listed reader, into our classes.
    back = _safe_pickle.loads(data)
    assert type(back) is SubTrackingResults and type(back.code_block_results[0]) is CodeBlockResults
    assert back.to_json() == results.to_json()


def test_comparison_results_load_in_gpu_tracker(tmp_path):
    series = pd.Series({'A': 1.5, 'B': 2.5})
    comparison = ComparisonResults(overall_resource_usage={'main_ram': series},
                                   code_block_resource_usage={'main_ram': {'train.py:12': series * 2}},
                                   code_block_compute_time={'train.py:12': series / 2})
    data = comparison.to_gpu_tracker_pickle()
    assert ('gpu_tracker.sub_tracker', 'ComparisonResults') in _globals_named(data)
    assert b'gputracker' not in data
    seen = _load_in_gpu_tracker(tmp_path, data)
    assert seen['class'] == 'gpu_tracker.sub_tracker.ComparisonResults'
    assert seen['overall_resource_usage'] == {'main_ram': {'A': 1.5, 'B': 2.5}}
    assert seen['code_block_compute_time'] == {'train.py:12': {'A': 0.75, 'B': 1.25}}
    back = _safe_pickle.loads(data)
    assert type(back) is ComparisonResults and back.to_json() == comparison.to_json()


def test_plain_pickle_names_ours(tmp_path):
    """pickle.dumps of our results names gputracker's classes (the C
    pickler imports a class's module to check its name, and gpu_tracker is
    not there): those load in ours, and the stand-in gpu_tracker refuses
    them. This is what to_gpu_tracker_pickle() is for."""
    data = pickle.dumps(_results())
    assert ('gputracker._sub_tracking_analysis', 'SubTrackingResults') in _globals_named(data)
    assert type(_safe_pickle.loads(data)) is SubTrackingResults
    root = _stand_in(tmp_path)
    (tmp_path / 'plain.pkl').write_bytes(data)
    python = '/usr/bin/python3' if os.access('/usr/bin/python3', os.X_OK) else sys.executable
    done = subprocess.run([python, '-E', '-s', str(root / 'load.py'), str(tmp_path / 'plain.pkl')], capture_output=True,
                          text=True, cwd=str(root), timeout=120)
    assert done.returncode != 0 and "No module named 'gputracker'" in done.stderr


@pytest.mark.skipif(not os.access(GPU_TRACKER, os.X_OK), reason='the gpu-tracker script is not installed here')
def test_the_command_writes_gpu_tracker_pickles(tmp_path):
    from test_sub_tracking import gpu_tracker_session  # a tracking file and its marks, as gpu_tracker writes them
    tracking, marks = gpu_tracker_session(tmp_path, '.csv', seed=5)
    out = tmp_path / 'a.pkl'
    subprocess.run([GPU_TRACKER, 'sub-track', 'analyze', '--tf', str(tracking), '--stf', str(marks), '-f', 'pickle',
                    '-o', str(out)], check=True, timeout=120)
    data = out.read_bytes()
    assert ('gpu_tracker.sub_tracker', 'SubTrackingResults') in _globals_named(data)
    seen = _load_in_gpu_tracker(tmp_path, data)
    assert seen['class'] == 'gpu_tracker.sub_tracker.SubTrackingResults'
    assert [b['name'] for b in seen['blocks']] == [b.name for b in _safe_pickle.load(str(out)).code_block_results]
    assert 'train.py:12' in [b['name'] for b in seen['blocks']]
    # compare -f pickle: the reference session is the first by name, as
    # gpu_tracker 5.0.1's TrackingComparison takes it (sorted(names)[:1]).
    out2 = tmp_path / 'cmp.pkl'
    subprocess.run([GPU_TRACKER, 'sub-track', 'compare', '-m', f'B={out}', '-m', f'A={out}', '-f', 'pickle', '-o',
                    str(out2)], check=True, timeout=120)
    compared = _load_in_gpu_tracker(tmp_path, out2.read_bytes())
    assert compared['class'] == 'gpu_tracker.sub_tracker.ComparisonResults'
    assert set(compared['overall_resource_usage']['main_ram']) == {'A', 'B'}
