"""gpu_tracker 5's sub-tracking analysis in the Python package: real
tracking sessions (our Tracker and SubTracker) and files written in
gpu_tracker's documented layout, analysed by gputracker and checked against
statistics computed here, independently, with pandas the way gpu_tracker's
own analyzer computes them; gpu_tracker's text layout as pandas prints it;
pickled results; comparisons; refusals."""
import json
import logging
import math
import multiprocessing
import os
import pickle
import sqlite3
import subprocess
import sys
import time

import pytest

pd = pytest.importorskip('pandas')

from gputracker import (SubTracker, SubTrackingAnalyzer, SubTrackingResults, Tracker,  # noqa: E402
                        TrackingComparison, sub_track)
from gputracker import _safe_pickle  # noqa: E402

GPU_TRACKER = os.path.join(os.path.dirname(sys.executable), 'gpu-tracker')
STATS = ['min', 'max', 'mean', 'std']


# ---- the expected figures, computed as gpu_tracker computes them ---------------

def _read(path, table=None, **csv_args):
    if path.endswith('.csv'):
        # round_trip: the exact doubles written. pandas' default parser is off
        # by up to an ulp, 2e-7 s on an epoch timestamp (gpu_tracker reads with
        # it; we read with strtod).
        return pd.read_csv(path, float_precision='round_trip', **csv_args)
    with sqlite3.connect(path) as con:
        return pd.read_sql(f'SELECT * FROM {table}', con)


def _summary(frame):
    stats = frame.describe().loc[['min', 'max', 'mean']]
    stats.loc['std'] = frame.std(ddof=0)
    return stats


def expected_results(tracking_file, sub_tracking_file):
    """gpu_tracker's SubTrackingAnalyzer.sub_tracking_results(), by its rules
    (sub_tracker.py, _helper_classes.py), as plain dicts."""
    points = _read(tracking_file, 'data', skiprows=2)
    marks = _read(sub_tracking_file, 'data')
    measures = points.drop(columns='timestamp')
    overall = _summary(measures).T
    blocks = {}
    for name in sorted(marks.code_block_name.unique()):
        m = marks.loc[marks.code_block_name == name, ['process_id', 'position', 'timestamp']]
        m = m.sort_values(by=['process_id', 'timestamp', 'position'])
        drop = [m.loc[m.process_id == pid].index[-1] for pid in m.process_id.unique()
                if m.loc[m.process_id == pid].position.iloc[-1] == 0]
        m = m.drop(drop)
        pairs = [(float(m.timestamp.iloc[i]), float(m.timestamp.iloc[i + 1])) for i in range(0, len(m), 2)]
        inside = pd.Series(False, index=points.index)
        for start, stop in pairs:
            inside |= (points.timestamp >= start) & (points.timestamp <= stop)
        times = pd.Series([stop - start for start, stop in pairs], dtype=float)
        compute = _summary(times).to_dict()
        compute['total'] = times.sum()
        blocks[name] = {
            'num_timepoints': int(inside.sum()), 'num_calls': len(pairs),
            'num_non_empty_calls': sum(
                bool(((points.timestamp >= s) & (points.timestamp <= e)).any()) for s, e in pairs),
            'compute_time': compute,
            'resource_usage': _summary(measures[inside]).T,
        }
    return overall, blocks


def _close(a, b):
    if a is None or (isinstance(a, float) and math.isnan(a)):
        return b is None or math.isnan(b)
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def check_results(results: SubTrackingResults, tracking_file, sub_tracking_file):
    overall, blocks = expected_results(tracking_file, sub_tracking_file)
    assert list(results.overall.index) == list(overall.index)
    assert list(results.overall.columns) == STATS
    for measure in overall.index:
        for stat in STATS:
            assert _close(results.overall.loc[measure, stat], overall.loc[measure, stat]), (measure, stat)
    assert [b.name for b in results.code_block_results] == list(blocks)
    for block in results.code_block_results:
        want = blocks[block.name]
        assert block.num_timepoints == want['num_timepoints'], block.name
        assert block.num_calls == want['num_calls'], block.name
        assert block.num_non_empty_calls == want['num_non_empty_calls'], block.name
        for stat in STATS + ['total']:
            assert _close(block.compute_time[stat], want['compute_time'][stat]), (block.name, stat)
        for measure in want['resource_usage'].index:
            for stat in STATS:
                got = block.resource_usage.loc[measure, stat]
                assert _close(got, want['resource_usage'].loc[measure, stat]), (block.name, measure, stat)
    return blocks


def cli(*args, check=True):
    run = subprocess.run([GPU_TRACKER, *args], capture_output=True)
    if check:
        assert run.returncode == 0, run.stderr.decode()
    return run


# ---- a real session ---------------------------------------------------------

def _child_blocks(path):
    # A worker process with a sub-tracking file of its own, as gpu_tracker
    # asks of multiprocessing.
    with SubTracker(code_block_name='child-work', sub_tracking_file=path):
        data = bytearray(30 * 2 ** 20)
        end = time.time() + 0.4
        while time.time() < end:
            data[::4096] = b'\x02' * len(data[::4096])


@pytest.mark.parametrize('suffix', ['.csv', '.sqlite'])
def test_real_session_analysed(tmp_path, suffix):
    tf = str(tmp_path / f'tracking{suffix}')
    main_marks = str(tmp_path / f'main{suffix}')
    child_marks = str(tmp_path / f'child{suffix}')

    @sub_track(code_block_name='step', sub_tracking_file=main_marks)
    def step():
        x = sum(i * i for i in range(200_000))
        time.sleep(0.15)
        return x

    with Tracker(sleep_time=0.1, ram_unit='megabytes', time_unit='seconds', disable_logs=True, tracking_file=tf):
        with SubTracker(code_block_name='load', sub_tracking_file=main_marks):
            block = b'\x01' * (60 * 2 ** 20)
            time.sleep(0.4)
        for _ in range(3):
            step()
        child = multiprocessing.get_context('spawn').Process(target=_child_blocks, args=(child_marks,))
        child.start()
        child.join()
        del block
    assert child.exitcode == 0
    combined = str(tmp_path / f'combined{suffix}')
    SubTrackingAnalyzer(None, combined).combine_sub_tracking_files([main_marks, child_marks])
    results = SubTrackingAnalyzer(tf, combined).sub_tracking_results()
    blocks = check_results(results, tf, combined)
    assert set(blocks) == {'load', 'step', 'child-work'}
    assert blocks['step']['num_calls'] == 3
    # What the blocks did shows: 60 MB held in 'load', a 30 MB child in 'child-work'.
    load = results.code_block_results[[b.name for b in results.code_block_results].index('load')]
    assert load.resource_usage.loc['main_ram', 'max'] >= 60
    work = results.code_block_results[[b.name for b in results.code_block_results].index('child-work')]
    assert work.num_timepoints >= 1 and work.resource_usage.loc['descendants_ram', 'max'] >= 30

    # The C command's text is pandas' own rendering of the same results.
    text = cli('sub-track', 'analyze', '--tf', tf, '--stf', combined).stdout.decode()
    assert text == str(results) + '\n'
    # Its JSON is the results' to_json().
    doc = json.loads(cli('sub-track', 'analyze', '--tf', tf, '--stf', combined, '-f', 'json').stdout)
    assert SubTrackingResults.from_json(doc).to_json() == results.to_json()

    # -f pickle (the package's gpu-tracker): a SubTrackingResults that loads
    # (named as gpu_tracker's, read back as ours: test_results_travel_back).
    pkl = str(tmp_path / 'results.pkl')
    cli('sub-track', 'analyze', '--tf', tf, '--stf', combined, '-f', 'pickle', '-o', pkl)
    loaded = _safe_pickle.load(pkl)
    assert isinstance(loaded, SubTrackingResults)
    assert str(loaded) == str(results)


# ---- files in gpu_tracker's layout, written here -------------------------------

TIMEPOINT_COLUMNS = [
    'main_ram', 'descendants_ram', 'combined_ram', 'system_ram', 'main_gpu_ram', 'descendants_gpu_ram',
    'combined_gpu_ram', 'system_gpu_ram', 'gpu_sum_utilization_percent', 'gpu_hardware_utilization_percent',
    'main_n_threads', 'descendants_n_threads', 'combined_n_threads', 'cpu_system_sum_utilization_percent',
    'cpu_system_hardware_utilization_percent', 'cpu_main_sum_utilization_percent',
    'cpu_main_hardware_utilization_percent', 'cpu_descendants_sum_utilization_percent',
    'cpu_descendants_hardware_utilization_percent', 'cpu_combined_sum_utilization_percent',
    'cpu_combined_hardware_utilization_percent', 'timestamp']
STATIC = {'ram_unit': 'gigabytes', 'gpu_ram_unit': 'gigabytes', 'time_unit': 'hours', 'ram_system_capacity': 67.2,
          'gpu_ram_system_capacity': 80.0, 'system_core_count': 16, 'n_expected_cores': 8, 'system_gpu_count': 2,
          'n_expected_gpus': 1}


def gpu_tracker_session(tmp_path, suffix, seed, shift=0.0):
    """A tracking file and a sub-tracking file as gpu_tracker 5 writes them
    (its _TimepointUsage and _SubTrackerLog columns; CSV through csv.DictWriter,
    SQLite tables static_data and data)."""
    import random
    rng = random.Random(seed)
    rows = []
    for i in range(60):
        row = {c: round(rng.uniform(0, 100), 6) for c in TIMEPOINT_COLUMNS}
        for c in ('main_n_threads', 'descendants_n_threads', 'combined_n_threads'):
            row[c] = rng.randint(1, 40)
        row['main_ram'] += shift
        row['timestamp'] = 1_700_000_000.0 + i * 0.5
        rows.append(row)
    t0 = 1_700_000_000.0
    marks = []  # (process_id, name, position, timestamp)
    for k in range(5):  # process 100: "train.py:12", five calls
        marks += [(100, 'train.py:12', 0, t0 + 1 + 5 * k), (100, 'train.py:12', 1, t0 + 3.2 + 5 * k)]
    marks += [(200, 'train.py:12', 0, t0 + 2.1), (200, 'train.py:12', 1, t0 + 4.6)]  # a second process
    marks += [(100, 'save', 0, t0 + 27), (100, 'save', 1, t0 + 28.9), (100, 'save', 0, t0 + 29.5)]  # left running
    marks += [(300, 'no timepoints', 0, t0 + 10.1), (300, 'no timepoints', 1, t0 + 10.2)]
    marks.sort(key=lambda m: m[3])
    tf, stf = str(tmp_path / f'gt-tracking-{seed}{suffix}'), str(tmp_path / f'gt-marks-{seed}{suffix}')
    if suffix == '.csv':
        import csv
        with open(tf, 'w', newline='') as f:
            w = csv.DictWriter(f, fieldnames=STATIC.keys())
            w.writeheader()
            w.writerow(STATIC)
        with open(tf, 'a', newline='') as f:
            w = csv.DictWriter(f, fieldnames=TIMEPOINT_COLUMNS)
            w.writeheader()
            w.writerows(rows)
        with open(stf, 'w', newline='') as f:
            w = csv.writer(f)
            w.writerow(['process_id', 'code_block_name', 'position', 'timestamp'])
            w.writerows(marks)
    else:
        with sqlite3.connect(tf) as con:
            con.execute('CREATE TABLE static_data (ram_unit VARCHAR, gpu_ram_unit VARCHAR, time_unit VARCHAR, '
                        'ram_system_capacity FLOAT, gpu_ram_system_capacity FLOAT, system_core_count INTEGER, '
                        'n_expected_cores INTEGER, system_gpu_count INTEGER, n_expected_gpus INTEGER)')
            con.execute('INSERT INTO static_data VALUES (?,?,?,?,?,?,?,?,?)', list(STATIC.values()))
            types = ['INTEGER' if c.endswith('n_threads') else 'FLOAT' for c in TIMEPOINT_COLUMNS]
            con.execute(f'CREATE TABLE data ({", ".join(f"{c} {t}" for c, t in zip(TIMEPOINT_COLUMNS, types))})')
            con.executemany(f'INSERT INTO data VALUES ({",".join("?" * len(TIMEPOINT_COLUMNS))})',
                            [[r[c] for c in TIMEPOINT_COLUMNS] for r in rows])
        with sqlite3.connect(stf) as con:
            con.execute('CREATE TABLE data (process_id INTEGER, code_block_name VARCHAR, position INTEGER, '
                        'timestamp FLOAT)')
            con.executemany('INSERT INTO data VALUES (?,?,?,?)', marks)
    return tf, stf


@pytest.mark.parametrize('suffix', ['.csv', '.sqlite'])
def test_gpu_tracker_files_analysed(tmp_path, suffix):
    tf, stf = gpu_tracker_session(tmp_path, suffix, seed=1)
    results = SubTrackingAnalyzer(tf, stf).sub_tracking_results()
    blocks = check_results(results, tf, stf)
    assert blocks['train.py:12']['num_calls'] == 6 and blocks['save']['num_calls'] == 1
    assert blocks['no timepoints']['num_timepoints'] == 0
    assert results.static_data.to_dict() == STATIC
    assert math.isnan(results.code_block_results[0].resource_usage.loc['main_ram', 'mean'])
    # gpu_tracker's lower-level calls: the pairs of a block, and its rows.
    analyzer = SubTrackingAnalyzer(tf, stf)
    t0 = 1_700_000_000.0
    pairs = analyzer.load_timestamp_pairs('train.py:12')
    assert pairs == [(t0 + 1 + 5 * k, t0 + 3.2 + 5 * k) for k in range(5)] + [(t0 + 2.1, t0 + 4.6)]
    assert analyzer.load_timestamp_pairs('save') == [(t0 + 27, t0 + 28.9)]
    rows = analyzer.load_timepoints(pairs)
    assert len(rows) == blocks['train.py:12']['num_timepoints']
    assert analyzer.load_code_block_names() == ['no timepoints', 'save', 'train.py:12']
    text = cli('sub-track', 'analyze', '--tf', tf, '--stf', stf).stdout.decode()
    assert text == str(results) + '\n'


def test_sessions_compared(tmp_path, caplog):
    tfa, stfa = gpu_tracker_session(tmp_path, '.csv', seed=1)
    tfb, stfb = gpu_tracker_session(tmp_path, '.sqlite', seed=2, shift=500.0)
    ra = SubTrackingAnalyzer(tfa, stfa).sub_tracking_results()
    rb = SubTrackingAnalyzer(tfb, stfb).sub_tracking_results()
    paths = {}
    for name, results in (('A', ra), ('B', rb)):
        paths[name] = str(tmp_path / f'{name}.pkl')
        with open(paths[name], 'wb') as f:
            pickle.dump(results, f)
    comparison = TrackingComparison(paths).compare('max')
    # Each measurement's maximum in each session, sorted from least to most.
    for measure in ra.overall.index:
        want = pd.Series({'A': ra.overall.loc[measure, 'max'], 'B': rb.overall.loc[measure, 'max']}).sort_values()
        got = comparison.overall_resource_usage[measure]
        assert list(got.index) == list(want.index) and all(_close(g, w) for g, w in zip(got, want))
    assert list(comparison.overall_resource_usage['main_ram'].index) == ['A', 'B']  # B's is 500 more
    for block_a, block_b in zip(ra.code_block_results, rb.code_block_results):
        got = comparison.code_block_compute_time[block_a.name]
        assert _close(got['A'], block_a.compute_time['max']) and _close(got['B'], block_b.compute_time['max'])
        got = comparison.code_block_resource_usage['system_ram'][block_a.name]
        assert _close(got['B'], block_b.resource_usage.loc['system_ram', 'max'])

    # gpu_tracker 5.0.1 takes every statistic from pandas' describe() (float64
    # for an integer column too) and .item(): to_json() gives 13.0, not 13, for a
    # thread count, in both file formats; so do we.
    for name, value in comparison.to_json()['overall_resource_usage']['main_n_threads'].items():
        assert type(value) is float, (name, value)
    # The package's gpu-tracker compares the pickles; the C command the JSON,
    # to the same text; -f pickle gives a ComparisonResults.
    text = cli('sub-track', 'compare', '-m', f'A={paths["A"]}', '-m', f'B={paths["B"]}', '--stat', 'max')
    assert text.stdout.decode() == str(comparison) + '\n'
    for name, results in (('A', ra), ('B', rb)):
        paths[name] = str(tmp_path / f'{name}.json')
        cli('sub-track', 'analyze', '--tf', tfa if name == 'A' else tfb, '--stf', stfa if name == 'A' else stfb,
            '-f', 'json', '-o', paths[name])
    config = tmp_path / 'compare.json'
    config.write_text(json.dumps({'file_path_map': {'A': paths['A']}, 'statistic': 'max'}))
    text = cli('sub-track', 'compare', '--cconfig', str(config), '-m', f'B={paths["B"]}')
    assert text.stdout.decode() == str(comparison) + '\n'
    pkl = str(tmp_path / 'comparison.pkl')
    cli('sub-track', 'compare', '-m', f'A={paths["A"]}', '-m', f'B={paths["B"]}', '--stat', 'max', '-f', 'pickle',
        '-o', pkl)
    assert str(_safe_pickle.load(pkl)) == str(comparison)

    # Names that differ only in their line number match in order, with a warning.
    doc = rb.to_json()
    for block in doc['code_block_results']:
        block['name'] = block['name'].replace('train.py:12', 'train.py:14')
    moved = str(tmp_path / 'moved.json')
    with open(moved, 'w') as f:
        json.dump(doc, f)
    with caplog.at_level(logging.WARNING, logger='gputracker'):
        TrackingComparison({'A': paths['A'], 'C': moved})
    # gpu_tracker 5.0.1's words (sub_tracker.py, TrackingComparison)
    assert ('Code block name "train.py:12" of tracking session "A" matched with code block name "train.py:14" of '
            'tracking session "C" but they differ by line number. If these code blocks were not meant to match, '
            'their comparison will not be valid and their names must be disambiguated.') in caplog.text
    doc['code_block_results'][0]['name'] = 'other'
    with open(moved, 'w') as f:
        json.dump(doc, f)
    with pytest.raises(ValueError, match='Code block name ".*" of tracking session "A" does not match code block '
                                         'name "other" of tracking session "C"'):
        TrackingComparison({'A': paths['A'], 'C': moved})
    doc['code_block_results'] = doc['code_block_results'][1:]
    with open(moved, 'w') as f:
        json.dump(doc, f)
    with pytest.raises(ValueError, match='All sub-tracking results must have the same number of code blocks. The '
                                         r'first has \d+ code blocks but tracking session "C" has \d+ code blocks.'):
        TrackingComparison({'A': paths['A'], 'C': moved})
    with pytest.raises(ValueError, match="Invalid summary statistic 'median'. Valid values are min max mean std."):
        TrackingComparison({'A': paths['A']}).compare('median')


def test_refusals(tmp_path):
    tf, stf = gpu_tracker_session(tmp_path, '.csv', seed=3)
    bad = tmp_path / 'bad.csv'
    bad.write_text('process_id,code_block_name,position,timestamp\n1,a,1,5.0\n')
    with pytest.raises(ValueError, match=r"code block 'a' of process 1 has a stop without a start"):
        SubTrackingAnalyzer(tf, str(bad)).sub_tracking_results()
    # Where gpu_tracker 5.0.1 refuses a pair (_helper_classes.py,
    # load_timestamp_pairs: marks sorted by process, time, position, trailing
    # starts dropped, then taken two by two), the same type and words.
    # Its words to the byte (its test_invalid_file compares the whole
    # message), the timestamps as pandas' CSV reader gives them.
    bad.write_text('process_id,code_block_name,position,timestamp\n7,a,0,10\n7,a,1,11\n7,a,1,12\n'
                   '8,a,0,13.5\n8,a,1,14\n')
    with pytest.raises(ValueError) as error:
        SubTrackingAnalyzer(tf, str(bad)).sub_tracking_results()
    assert str(error.value) == ('Sub-tracking file is invalid. Detected timestamp pair (12.0, 13.5) with differing '
                                'process IDs: 7 and 8.')
    bad.write_text('process_id,code_block_name,position,timestamp\n7,a,0,1700000000.7654321\n'
                   '7,a,1,1700000003.271828\n7,a,1,1700000003.2718281\n8,a,0,1700000003.2718283\n8,a,1,1700000004\n')
    with pytest.raises(ValueError) as error:
        SubTrackingAnalyzer(None, sub_tracking_file=str(bad)).load_timestamp_pairs('a')
    pandas = pytest.importorskip('pandas')
    import io
    read = pandas.read_csv(io.StringIO(bad.read_text()))['timestamp']
    assert (repr(float(read[2])), repr(float(read[3]))) == ('1700000003.271828', '1700000003.2718284')
    assert str(error.value) == ('Sub-tracking file is invalid. Detected timestamp pair (1700000003.271828, '
                                '1700000003.2718284) with differing process IDs: 7 and 8.')
    bad.write_text('process_id,code_block_name,position,timestamp\n7,a,1,10\n7,a,0,11\n7,a,0,12\n7,a,1,13\n')
    with pytest.raises(ValueError) as error:
        SubTrackingAnalyzer(tf, str(bad)).sub_tracking_results()
    assert str(error.value) == ('Sub-tracking file is invalid. Detected timestamp pair (10.0, 11.0) of process ID 7 '
                                'with a start time greater than the stop time.')
    bad.write_text('process_id,code_block_name,position,timestamp\n1,a,1,5.0\n')
    with pytest.raises(OSError, match='cannot read tracking file'):
        SubTrackingAnalyzer(str(tmp_path / 'missing.csv'), stf).sub_tracking_results()
    with pytest.raises(ValueError, match='valid extensions are .csv and .sqlite'):
        SubTrackingAnalyzer(str(tmp_path / 'tracking.txt'), stf).sub_tracking_results()
    # gpu_tracker 5.0.1's words and types (_helper_classes.py: combine_files,
    # _check_overwrite)
    with pytest.raises(ValueError, match=f'Cannot create sub-tracking file {stf}. File already exists.'):
        SubTrackingAnalyzer(None, stf).combine_sub_tracking_files([stf])
    target = str(tmp_path / 'combined.csv')
    with pytest.raises(ValueError, match=f'File x.sqlite does not end with the same extension as {target}. '
                                         'Must end in ".csv".'):
        SubTrackingAnalyzer(None, target).combine_sub_tracking_files(['x.sqlite'])
    with pytest.raises(FileExistsError, match=f'File {stf} already exists. Set overwrite to True to overwrite '
                                              'the existing file.'):
        with SubTracker(code_block_name='x', sub_tracking_file=stf):
            pass
    # The package's command says what went wrong in one line.
    run = cli('sub-track', 'analyze', '--tf', tf, '--stf', str(bad), '-f', 'pickle', check=False)
    assert run.returncode == 1 and run.stdout == b''
    assert run.stderr.decode().count('\n') == 1 and 'stop without a start' in run.stderr.decode()


def test_a_computed_sqlite_column_never_runs(tmp_path):
    # The attack: a generated column (zeroblob of 200 MB per row) in a small
    # tracking file. The analysis refuses it, and so does load_timepoints(),
    # which reads the file with pandas: the library checks its schema first.
    tf, stf = gpu_tracker_session(tmp_path, '.csv', seed=4)
    hostile = str(tmp_path / 'hostile.sqlite')
    with sqlite3.connect(hostile) as con:
        con.execute('CREATE TABLE static_data (ram_unit VARCHAR)')
        con.execute("INSERT INTO static_data VALUES ('megabytes')")
        con.execute('CREATE TABLE data (main_ram FLOAT, t0 FLOAT, '
                    'timestamp FLOAT AS (t0 + length(zeroblob(200000000)) * 0))')
        con.executemany('INSERT INTO data (main_ram, t0) VALUES (?, ?)', [(i, 1e9 + i) for i in range(10)])
    con.close()
    analyzer = SubTrackingAnalyzer(hostile, stf)
    with pytest.raises(ValueError, match="column 'timestamp' of table 'data' is computed"):
        analyzer.sub_tracking_results()
    with pytest.raises(ValueError, match=f"tracking file '{hostile}': column 'timestamp'"):
        analyzer.load_timepoints([(0.0, 2e9)])
    # A plain SQLite tracking file still loads.
    tfs, stfs = gpu_tracker_session(tmp_path, '.sqlite', seed=5)
    analyzer = SubTrackingAnalyzer(tfs, stfs)
    assert len(analyzer.load_timepoints([(0.0, 3e9)])) > 0


def test_a_torn_last_row_is_left_out_with_a_warning(tmp_path, caplog):
    # A tracking file whose writer stopped in the middle of its last row
    # (a full disk, a kill): the rows before it are analysed, and the
    # warning says which record was left out.
    tf, stf = gpu_tracker_session(tmp_path, '.csv', seed=6)
    whole = SubTrackingAnalyzer(tf, stf).sub_tracking_results()
    with open(tf, 'a') as f:
        f.write('1.5,2')
    with caplog.at_level(logging.WARNING, logger='gputracker'):
        torn = SubTrackingAnalyzer(tf, stf).sub_tracking_results()
    assert 'cut short' in caplog.text and 'left out' in caplog.text
    assert str(torn) == str(whole)


def test_load_timepoints_never_waits_on_a_fifo(tmp_path):
    # pandas opening a FIFO named like a tracking file would wait for a
    # writer for ever; the file is opened without waiting and refused.
    _, stf = gpu_tracker_session(tmp_path, '.csv', seed=7)
    fifo = tmp_path / 'fifo.csv'
    os.mkfifo(fifo)
    with pytest.raises(OSError, match='not a regular file'):
        SubTrackingAnalyzer(str(fifo), stf).load_timepoints([(0.0, 3e9)])


def test_compared_names_shown_escaped_as_the_c_command_shows_them(tmp_path):
    # Code block and session names are the compared files' text: a terminal's
    # escapes in them (OSC 52 sets the clipboard, ESC[2J clears the screen)
    # are shown as \xNN by the package's gpu-tracker (pickles), as by the C
    # command (JSON), through the one escaper: the same text.
    tf, stf = gpu_tracker_session(tmp_path, '.csv', seed=1)
    doc = SubTrackingAnalyzer(tf, stf).sub_tracking_results().to_json()
    for block in doc['code_block_results']:
        block['name'] = '\x1b]52;c;SGVsbG8=\x07\x1b[2J' + block['name']
    json_paths, pickle_paths = {}, {}
    for name in ('A\x1b[31m', 'B'):
        json_paths[name] = str(tmp_path / f'{len(json_paths)}.json')
        with open(json_paths[name], 'w') as f:
            json.dump(doc, f)
        pickle_paths[name] = str(tmp_path / f'{len(pickle_paths)}.pkl')
        with open(pickle_paths[name], 'wb') as f:
            pickle.dump(SubTrackingResults.from_json(doc), f)
    texts = []
    for paths in (pickle_paths, json_paths):
        args = [a for name, path in paths.items() for a in ('-m', f'{name}={path}')]
        texts.append(cli('sub-track', 'compare', *args).stdout.decode())
    for text in texts:
        assert '\x1b' not in text and '\x07' not in text, text
        assert '\\x1b]52;c;SGVsbG8=\\x07\\x1b[2J' in text, text
    assert texts[0] == texts[1]
