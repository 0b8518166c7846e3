"""The pytest plugin (gputracker.pytest_plugin, docs/ci.md), run for real: an
inner pytest session in a subprocess of this interpreter, whose tests start
subprocesses that allocate, measured by --gputracker and held to
@pytest.mark.limits; its --gputracker-json fed to `gpu-tracker compare`."""
import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

SUITE = textwrap.dedent('''
    import os
    import subprocess
    import sys

    import pytest

    def allocate(mb):
        # A child that touches MB megabytes and exits at once: its peak is
        # over between two samples, so only the kernel's count (wait's
        # maxrss) can show it.
        subprocess.run([sys.executable, '-c', f'x = b"1" * ({mb} * 1000 * 1000)'], check=True)

    @pytest.mark.limits(max_ram='150MB')
    def test_big_child():
        allocate(200)

    @pytest.mark.limits(max_ram='150MB', max_time='60s')
    def test_small_child():
        allocate(10)

    def test_sized_by_environment():
        allocate(int(os.environ.get('GT_TEST_MB', '60')))
''')


def run_inner(tmp_path, *args, env_mb=60, wrap=()):
    suite = tmp_path / 'test_inner.py'
    suite.write_text(SUITE)
    env = dict(os.environ, GT_TEST_MB=str(env_mb), PYTHONDONTWRITEBYTECODE='1')
    command = list(wrap) + [sys.executable, '-m', 'pytest', '-p', 'no:cacheprovider', '-q', str(suite),
                            *args]
    return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)


def gpu_tracker():
    return shutil.which('gpu-tracker', path=os.path.dirname(sys.executable)) or shutil.which('gpu-tracker')


def test_limits_fail_a_subprocess_peak_and_json_feeds_compare(tmp_path):
    result = run_inner(tmp_path, '--gputracker', '--gputracker-json', 'base.json')
    output = result.stdout + result.stderr
    assert result.returncode == 1, output  # one test failed: the big child
    assert '1 failed, 2 passed' in output, output
    assert 'FAILED' in output and 'test_big_child' in output, output
    assert 'gpu-tracker: the test passed a limit of @pytest.mark.limits' in output, output
    assert "peak RAM " in output and "passed the limit max_ram='150MB' (143 MiB)" in output, output
    assert 'gpu-tracker: the 3 heaviest of 3 tests by peak RAM' in output, output
    document = json.loads((tmp_path / 'base.json').read_text())
    assert document['format'] == 'gputracker-pytest'
    tests = document['tests']
    big = tests['test_inner.py::test_big_child']
    small = tests['test_inner.py::test_small_child']
    assert big['peak_ram_bytes'] >= 200e6, big
    assert small['peak_ram_bytes'] < 150e6, small
    for figures in tests.values():
        assert set(figures) == {'peak_ram_bytes', 'peak_gpu_ram_bytes', 'cpu_seconds', 'wall_seconds',
                                'mean_cpu_cores'}
        assert figures['wall_seconds'] > 0 and figures['cpu_seconds'] >= 0

    # A second suite run whose sized test allocates 60 % more: compare on the
    # two files fails that test, and passes a run like the baseline.
    run_inner(tmp_path, '--gputracker-json', 'grown.json', env_mb=150)
    run_inner(tmp_path, '--gputracker-json', 'same.json', env_mb=60)
    tool = gpu_tracker()
    grown = subprocess.run([tool, 'compare', '--metric', 'peak_ram', '-f', 'json', 'base.json', 'grown.json'],
                           cwd=tmp_path, capture_output=True, text=True)
    assert grown.returncode == 1, grown.stdout + grown.stderr
    rows = {(r['subject'], r['metric']): r for r in json.loads(grown.stdout)['rows']}
    sized = rows[('test_inner.py::test_sized_by_environment', 'peak_ram')]
    assert sized['failed'] and sized['change_percent'] > 10, sized
    same = subprocess.run([tool, 'compare', '--metric', 'peak_ram', '--tolerance', '30%', 'base.json',
                           'same.json'], cwd=tmp_path, capture_output=True, text=True)
    assert same.returncode == 0, same.stdout + same.stderr


def test_off_unless_asked(tmp_path):
    # No --gputracker: no summary, no file; the limits marker still holds.
    result = run_inner(tmp_path)
    output = result.stdout + result.stderr
    assert 'heaviest' not in output, output
    assert '1 failed, 2 passed' in output, output


def test_nested_in_a_tracker_of_the_whole_session(tmp_path):
    # gpu-tracker around the session tracks the same process the plugin does.
    result = run_inner(tmp_path, '--gputracker', '--gputracker-json', 'nested.json',
                       wrap=(gpu_tracker(), '-q', '-f', 'json', '-o', str(tmp_path / 'session.json'), '--'))
    output = result.stdout + result.stderr
    assert result.returncode == 1 and '1 failed, 2 passed' in output, output
    tests = json.loads((tmp_path / 'nested.json').read_text())['tests']
    assert tests['test_inner.py::test_big_child']['peak_ram_bytes'] >= 200e6
    session = json.loads((tmp_path / 'session.json').read_text())
    assert session['max_ram']['combined']['total_rss'] > 0.2  # gigabytes: the big child
    # ...and a Tracker of the session inside the process, from a conftest.
    (tmp_path / 'conftest.py').write_text(textwrap.dedent('''
        import pytest
        from gputracker import Tracker

        @pytest.fixture(autouse=True, scope='session')
        def session_tracker():
            with Tracker(sleep_time=0.1, resource_usage_file='') as tracker:
                yield tracker
            assert tracker.max_ram.combined.total_rss > 0
    '''))
    result = run_inner(tmp_path, '--gputracker')
    output = result.stdout + result.stderr
    assert '1 failed, 2 passed' in output and 'heaviest' in output, output


def test_xdist_workers(tmp_path):
    try:
        import xdist  # noqa: F401
    except ImportError:
        pytest.skip('pytest-xdist is not installed (make check installs python3-pytest-xdist)')
    result = run_inner(tmp_path, '-n', '2', '--gputracker', '--gputracker-json', 'xdist.json')
    output = result.stdout + result.stderr
    assert '1 failed, 2 passed' in output, output
    assert 'gpu-tracker: the 3 heaviest of 3 tests by peak RAM' in output, output
    tests = json.loads((tmp_path / 'xdist.json').read_text())['tests']
    assert len(tests) == 3 and tests['test_inner.py::test_big_child']['peak_ram_bytes'] >= 200e6


def test_bad_marker(tmp_path):
    suite = tmp_path / 'test_bad.py'
    suite.write_text('import pytest\n\n@pytest.mark.limits(max_ram="500")\ndef test_x():\n    pass\n')
    result = subprocess.run([sys.executable, '-m', 'pytest', '-p', 'no:cacheprovider', '-q', str(suite)],
                            cwd=tmp_path, capture_output=True, text=True, timeout=120)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "@pytest.mark.limits(max_ram='500'): invalid size '500': no unit (500 what?)" in output, output


def test_json_written_under_the_output_rules(tmp_path):
    # The document goes through gpu-tracker's own writer: a path it may not
    # take (a directory's) is one line naming the path and where the
    # document was kept instead, and the session fails.
    (tmp_path / 'taken.json').mkdir()
    result = run_inner(tmp_path, '--gputracker-json', 'taken.json')
    output = result.stdout + result.stderr
    assert result.returncode == 4, output
    assert "gpu-tracker: --gputracker-json: cannot write 'taken.json': a directory is at its name" in output, output
    assert 'Traceback' not in output, output
    saved = [p for p in tmp_path.iterdir() if p.name.startswith('taken.json.saved-')]
    assert len(saved) == 1 and json.loads(saved[0].read_text())['format'] == 'gputracker-pytest', output


PLANTING = textwrap.dedent('''
    import os

    def test_plants_a_link():
        # What another user does during the session: the JSON's name becomes
        # a link of theirs to a file of root's.
        path = os.environ['GT_PLANT']
        os.symlink(os.environ['GT_SECRET'], path)
        if os.geteuid() == 0:
            os.lchown(path, 65534, 65534)
''')


def root_only_file(tmp_path):
    secret = tmp_path / 'secret.json'
    secret.write_text('{"secret": 1}\n')
    secret.chmod(0o600)
    return secret


def run_suite(tmp_path, suite, *args, **env):
    return subprocess.run([sys.executable, '-m', 'pytest', '-p', 'no:cacheprovider', '-q', suite, *args],
                          cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONDONTWRITEBYTECODE='1', **env))


def test_json_replaces_a_link_planted_during_the_session(tmp_path):
    # The path is held from the start, as gpu-tracker holds -o: the link put
    # at its name is replaced by the document, never followed.
    secret = root_only_file(tmp_path)
    (tmp_path / 'test_plant.py').write_text(PLANTING)
    result = run_suite(tmp_path, 'test_plant.py', '--gputracker-json', 'out.json',
                       GT_PLANT=str(tmp_path / 'out.json'), GT_SECRET=str(secret))
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    out = tmp_path / 'out.json'
    assert not out.is_symlink(), output
    assert json.loads(out.read_text())['format'] == 'gputracker-pytest', output
    assert secret.read_text() == '{"secret": 1}\n'


def test_json_kept_when_another_users_link_was_there_first(tmp_path):
    if os.geteuid() != 0:
        pytest.skip('needs root to give a link to another user')
    # The link is there before the session: the path can be neither held
    # nor written; one line says why and where the document was kept.
    secret = root_only_file(tmp_path)
    os.symlink(secret, tmp_path / 'out.json')
    os.lchown(tmp_path / 'out.json', 65534, 65534)
    (tmp_path / 'test_plain.py').write_text('def test_nothing():\n    pass\n')
    result = run_suite(tmp_path, 'test_plain.py', '--gputracker-json', 'out.json')
    output = result.stdout + result.stderr
    assert result.returncode == 4, output
    assert ("gpu-tracker: --gputracker-json: cannot write 'out.json': 'out.json' is a symbolic link "
            "owned by user 65534, neither you nor root: not following it") in output, output
    assert "; the document was kept in '" in output and 'Traceback' not in output, output
    kept = [p for p in tmp_path.iterdir() if p.name.startswith('out.json.saved-')]
    assert len(kept) == 1 and json.loads(kept[0].read_text())['format'] == 'gputracker-pytest', output
    assert secret.read_text() == '{"secret": 1}\n'
