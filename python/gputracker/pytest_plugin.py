"""pytest plugin: what each test used, and limits a test must stay within
(docs/ci.md). Registered as the pytest11 entry point "gputracker"; it measures
nothing unless asked:

  pytest --gputracker                  measures every test and prints the heaviest
  pytest --gputracker-json FILE        also writes every test's figures (for
                                       `gpu-tracker compare BASE.json NEW.json`)
  @pytest.mark.limits(max_ram="500MB", max_gpu_ram="2GB", max_time="30s",
                      max_cpu_time="1m")
                                       fails the test when it passes a limit
                                       (measured whether or not --gputracker is given)

A test is measured over its own call (not its fixtures' set-up and tear-down):
the test process and every subprocess it starts, GPU memory included, with
gpu-tracker's library in this process (process_id 0, so its own threads are
left out). The kernel's high-water marks count: the test process's peak is
reset when the test starts (/proc/self/clear_refs), and a subprocess reaped
during the test counts with its own peak from wait4 (added to the test
process's peak, as if the two had peaked together: the same figure whether or
not a sample landed while it ran), which pytest-memray, looking at Python's
allocations in the test process only, cannot see. Under pytest-xdist each worker measures
its tests; the figures travel to the controller with the test reports
(user_properties), which prints and writes them.
"""
from __future__ import annotations

import json
import os
import resource
import sys
import tempfile

import pytest

_PROPERTY = 'gputracker'
_CONFIG = []  # the session's config, for the report hook (which is not given it)
_LIMITS = ('max_ram', 'max_gpu_ram', 'max_time', 'max_cpu_time')
_FIGURE_OF_LIMIT = {'max_ram': 'peak_ram_bytes', 'max_gpu_ram': 'peak_gpu_ram_bytes',
                    'max_time': 'wall_seconds', 'max_cpu_time': 'cpu_seconds'}
_WORDS = {'max_ram': 'peak RAM', 'max_gpu_ram': 'peak GPU RAM', 'max_time': 'wall time',
          'max_cpu_time': 'CPU time'}


def pytest_addoption(parser):
    group = parser.getgroup('gputracker', 'resource use of each test (gpu-tracker)')
    group.addoption('--gputracker', action='store_true', default=False,
                    help='measure each test: peak RAM and GPU RAM of the test process and its '
                         'subprocesses, CPU and wall time; print the heaviest tests at the end')
    group.addoption('--gputracker-json', metavar='FILE', default=None,
                    help="write every measured test's figures to FILE (implies --gputracker), "
                         'for gpu-tracker compare')
    group.addoption('--gputracker-top', metavar='N', type=int, default=10,
                    help='how many of the heaviest tests to print (default 10)')
    group.addoption('--gputracker-interval', metavar='SECONDS', type=float, default=0.1,
                    help='seconds between samples while a test runs (default 0.1, the least)')


def pytest_configure(config):
    config.addinivalue_line(
        'markers',
        'limits(max_ram=None, max_gpu_ram=None, max_time=None, max_cpu_time=None): fail the '
        'test when its tree passes a limit (sizes "500MB", "2GiB"; durations "30s", "1m"; or '
        'bytes and seconds as numbers), measured by gpu-tracker')
    config._gputracker_results = {}
    _CONFIG[:] = [config]
    path = config.getoption('--gputracker-json')
    if path and not hasattr(config, 'workerinput'):
        # Held from now, as gpu-tracker holds -o: a link planted at the name
        # during the session is replaced at the end, never followed. A path
        # that cannot be held now is said at the end, with the kept copy.
        from . import _native
        try:
            _native.output_hold(path)
        except OSError:
            pass


def _enabled(config) -> bool:
    return bool(config.getoption('--gputracker') or config.getoption('--gputracker-json'))


def _limits_of(marker) -> dict[str, float]:
    """The marker's limits in bytes and seconds; a bad one is a usage error."""
    from gputracker import _native
    if marker.args:
        raise pytest.UsageError('@pytest.mark.limits takes keywords only: ' + ', '.join(_LIMITS))
    limits = {}
    for name, value in marker.kwargs.items():
        if name not in _LIMITS:
            raise pytest.UsageError(f'@pytest.mark.limits: unknown limit {name!r}; valid: '
                                    + ', '.join(_LIMITS))
        if value is None:
            continue
        if isinstance(value, str):
            parse = _native.parse_size if name in ('max_ram', 'max_gpu_ram') else _native.parse_duration
            try:
                limits[name] = parse(value)
            except ValueError as error:
                raise pytest.UsageError(f'@pytest.mark.limits({name}={value!r}): {error}') from None
        elif isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0:
            limits[name] = float(value)
        else:
            raise pytest.UsageError(f'@pytest.mark.limits({name}={value!r}): give a number above 0 '
                                    'or a string such as "500MB" or "30s"')
    return limits


def _reset_peak():
    """The kernel's high-water mark of this process from now on (VmHWM back
    to the current RSS), so that an earlier test's peak is not this one's."""
    try:
        with open('/proc/self/clear_refs', 'w') as refs:
            refs.write('5')
    except OSError:
        pass  # an older kernel: the tracker's own first-seen rule applies


def _children_maxrss() -> int:
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    marker = item.get_closest_marker('limits')
    if not (_enabled(item.config) or marker):
        yield
        return
    limits = _limits_of(marker) if marker else {}
    from gputracker import Tracker
    _reset_peak()
    children_before = _children_maxrss()
    # Python reaps its subprocesses (subprocess, multiprocessing) with
    # os.waitpid: through wait4 instead for the test's duration, each one's
    # peak is known, even one that came and went between two samples.
    reaped = []
    real_waitpid = os.waitpid

    def waitpid_counting(pid, options):
        got, status, usage = os.wait4(pid, options)
        if got > 0:
            reaped.append(usage.ru_maxrss * 1024)
        return got, status
    tracker = Tracker(sleep_time=item.config.getoption('--gputracker-interval'), ram_unit='bytes',
                      gpu_ram_unit='bytes', time_unit='seconds', disable_logs=True,
                      resource_usage_file='')
    tracker.start()
    os.waitpid = waitpid_counting
    try:
        yield
    finally:
        os.waitpid = real_waitpid
        tracker.stop()
    usage = tracker.to_json()
    peak_ram = usage['max_ram']['combined']['total_rss']
    # A subprocess reaped during the test counts as if it had run beside the
    # test process at that one's peak: its own peak (and its waited-for
    # descendants', from wait4) added to the test process's. Whether a sample
    # happened to land while a short child ran must not change the figure
    # (a gate needs the same number for the same test), and this is at least
    # what any sample could have seen of the two.
    largest_child = max(reaped) if reaped else 0
    children_after = _children_maxrss()
    if children_after > children_before:
        # reaped by other means (os.system, a C library): the process's
        # largest child so far peaked at this, during the test
        largest_child = max(largest_child, children_after)
    if largest_child:
        peak_ram = max(peak_ram, usage['max_ram']['main']['total_rss'] + float(largest_child))
    wall = usage['compute_time']['time']
    cores = usage['cpu_utilization']['combined']['mean_sum_percent'] / 100.0
    figures = {'peak_ram_bytes': peak_ram, 'peak_gpu_ram_bytes': usage['max_gpu_ram']['combined'],
               'cpu_seconds': cores * wall, 'wall_seconds': wall, 'mean_cpu_cores': cores}
    item.user_properties.append((_PROPERTY, figures))
    breaches = []
    for name, limit in limits.items():
        value = figures[_FIGURE_OF_LIMIT[name]]
        if value > limit:
            if name in ('max_ram', 'max_gpu_ram'):
                shown = f'{_size(value)} passed the limit {name}={marker.kwargs[name]!r} ({_size(limit)})'
            else:
                shown = f'{value:.2f} s passed the limit {name}={marker.kwargs[name]!r} ({limit:g} s)'
            breaches.append(f'{_WORDS[name]} {shown}')
    if breaches:
        item._gputracker_breaches = breaches


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    breaches = getattr(item, '_gputracker_breaches', None)
    if report.when == 'call' and breaches and report.passed:
        report.outcome = 'failed'
        report.longrepr = ('gpu-tracker: the test passed a limit of @pytest.mark.limits (the '
                           'test process and its subprocesses):\n  ' + '\n  '.join(breaches))


def pytest_runtest_logreport(report):
    if report.when != 'call' or not _CONFIG:
        return
    for name, value in report.user_properties:
        if name == _PROPERTY and isinstance(value, dict):
            _CONFIG[0]._gputracker_results[report.nodeid] = value


def _size(b: float) -> str:
    """A size as every people-facing output of gpu-tracker writes it
    (powers of 1024: "512 MiB", "1.25 GiB")."""
    from gputracker import _native
    return _native.human_bytes(b)


def pytest_terminal_summary(terminalreporter, config):
    results = config._gputracker_results
    if not results or not _enabled(config):
        return
    top = max(0, config.getoption('--gputracker-top'))
    heaviest = sorted(results.items(), key=lambda kv: kv[1]['peak_ram_bytes'], reverse=True)[:top]
    terminalreporter.write_sep('-', f'gpu-tracker: the {len(heaviest)} heaviest of {len(results)} '
                                    'tests by peak RAM')
    for nodeid, f in heaviest:
        gpu = f', GPU RAM {_size(f["peak_gpu_ram_bytes"])}' if f['peak_gpu_ram_bytes'] else ''
        terminalreporter.write_line(
            f'{_size(f["peak_ram_bytes"]):>10} RAM{gpu}, CPU {f["cpu_seconds"]:.2f} s, '
            f'wall {f["wall_seconds"]:.2f} s  {nodeid}')


def pytest_sessionfinish(session):
    config = session.config
    path = config.getoption('--gputracker-json')
    if not path or hasattr(config, 'workerinput'):  # an xdist worker: the controller writes
        return
    document = {'format': 'gputracker-pytest', 'version': 1,
                'tests': dict(sorted(config._gputracker_results.items()))}
    # Written as gpu-tracker writes its outputs (gt_output_write): atomically,
    # never through a link planted there nor over another user's file in a
    # shared directory; where it cannot, one line says why (and where the
    # document was kept instead), and the session fails.
    from . import _native
    data = (json.dumps(document, indent=1) + '\n').encode()
    try:
        _native.output_write(path, data)
    except OSError as error:
        message = str(error)
        # The writer keeps what it could not put at the name beside it and
        # says so ("... instead"); where it could not even get there (a
        # link of another user's on the way), a copy is kept here.
        if not message.endswith(' instead'):
            message += _keep_copy(path, data)
        sys.stderr.write(f'gpu-tracker: --gputracker-json: {_native.text_escape(message)}\n')
        session.exitstatus = pytest.ExitCode.USAGE_ERROR


def _keep_copy(path: str, data: bytes) -> str:
    """The document in a new file of our own (O_EXCL, never through a link)
    in the current directory: '; the document was kept in NAME instead', or
    what failed."""
    try:
        fd, kept = tempfile.mkstemp(prefix=os.path.basename(path) + '.saved-', dir='.')
        with os.fdopen(fd, 'wb') as f:
            f.write(data)
    except OSError as error:
        return f'; it could not be kept either: {error.strerror}'
    return f"; the document was kept in '{os.path.abspath(kept)}' instead"
