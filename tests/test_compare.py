#!/usr/bin/python3
"""gpu-tracker compare on real runs (docs/ci.md): three baseline runs of a
workload holding 100 MiB, a new run holding 120 MiB (peak +20 %) fails a 10 %
tolerance and passes a 25 % one, a run holding 101 MiB passes; snapshots
compare as summaries do; -f markdown renders as a table (Python-Markdown,
the renderer of MkDocs, with its tables extension), -f json parses; bad
arguments are one line and exit 2.

gpu_tracker's own JSON (the conformance files: one run in several units)
compares equal whatever the units.

usage: test_compare.py GPU_TRACKER WORKLOAD CONFORMANCE_DIR
Exit 77 (skipped) when Python-Markdown is missing (make check installs
python3-markdown as root)."""
import json
import os
import subprocess
import sys
import tempfile


def main():
    tracker, workload, conformance = map(os.path.abspath, sys.argv[1:4])
    try:
        import markdown
    except ImportError:
        print('test_compare: SKIPPED: no Python-Markdown for /usr/bin/python3 (python3-markdown)')
        return 77
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)
            print('FAIL:', what)

    env = dict(os.environ)
    with tempfile.TemporaryDirectory(prefix='gt-compare-') as work:
        env['XDG_CONFIG_HOME'] = work

        def track(name, mib, *extra):
            subprocess.run([tracker, '-q', '-f', 'json', '-o', name, *extra, '--', workload, 'hold',
                            str(mib), '0.1'], cwd=work, env=env, check=True, stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL)

        def compare(*args):
            return subprocess.run([tracker, 'compare', *args], cwd=work, env=env, capture_output=True,
                                  text=True)

        for i in range(3):
            track(f'base{i}.json', 100)
        track('grown.json', 120)
        track('same.json', 101, '--snapshot', 'same.json.gz')
        bases = ['base0.json', 'base1.json', 'base2.json']

        r = compare(*bases, 'grown.json')
        print(r.stdout)
        check(r.returncode == 1, f'grown 20 %: exit {r.returncode}')
        check('FAIL: a metric grew past its tolerance' in r.stdout, 'grown: the verdict line')
        check(any(line.startswith('peak RAM') and line.rstrip().endswith('FAIL') for line in r.stdout.splitlines()),
              'grown: the peak RAM row says FAIL')
        r = compare('--tolerance', '25%', *bases, 'grown.json')
        check(r.returncode == 0, f'grown 20 % with a 25 % tolerance: exit {r.returncode}\n{r.stdout}')
        r = compare('--tolerance', 'peak_ram=25%', *bases, 'grown.json')
        check(r.returncode == 0, f'a per-metric tolerance: exit {r.returncode}')
        r = compare(*bases, 'same.json')
        check(r.returncode == 0, f'a run like the baseline: exit {r.returncode}\n{r.stdout}')
        r = compare(*bases, 'same.json.gz')
        check(r.returncode == 0 and 'peak RAM' in r.stdout, f'a snapshot as the new run: exit {r.returncode} {r.stderr}')

        # A spread of 0.2 % is shown with the figures it needs, not as
        # "101 MiB (101 MiB-101 MiB)".
        with open(os.path.join(work, 'base0.json')) as f:
            summary = json.load(f)
        ram = summary['max_ram']['combined']['total_rss']
        close = []
        for i, factor in enumerate((1.0, 1.001, 1.002)):
            summary['max_ram']['combined']['total_rss'] = ram * factor
            close.append(f'close{i}.json')
            with open(os.path.join(work, close[-1]), 'w') as f:
                json.dump(summary, f)
        r = compare(*close, 'close1.json')
        row = next((line for line in r.stdout.splitlines() if line.startswith('peak RAM')), '')
        shown = row[len('peak RAM'):].split('(')[1].split(')')[0] if '(' in row else ''
        lo, _, hi = shown.partition('-')
        median = row[len('peak RAM'):].split('(')[0].strip()
        check(lo and hi and len({lo.strip(), median, hi.strip()}) == 3,
              f'a 0.2 % spread shown apart: {row!r}')

        r = compare('-f', 'markdown', *bases, 'grown.json')
        print(r.stdout)
        html = markdown.markdown(r.stdout, extensions=['tables'])
        check('<table>' in html and '<th>Metric</th>' in html, f'markdown renders as a table: {html[:300]}')
        check('<td>peak RAM</td>' in html and '<strong>FAIL</strong>' in html, 'the markdown table rows')

        r = compare('-f', 'json', *bases, 'grown.json')
        document = json.loads(r.stdout)
        check(document['passed'] is False and document['baseline_runs'] == 3, f'json: {document}')
        ram = next(row for row in document['rows'] if row['metric'] == 'peak_ram')
        check(ram['failed'] and ram['base_runs'] == 3 and ram['base_min'] <= ram['base_median'] <= ram['base_max']
              and 15 < ram['change_percent'] < 25, f'json peak_ram row: {ram}')

        for args, line in (
                (['base0.json'], 'gpu-tracker: compare: give a baseline and a new run (2 to 64 files: BASE... NEW)\n'),
                (['--metric', 'speed', *bases, 'grown.json'],
                 'gpu-tracker: compare: unknown metric \'speed\'; valid: peak_ram, peak_gpu_ram, cpu_time, '
                 'wall_time, mean_cpu\n'),
                (['--tolerance', 'ten', *bases, 'grown.json'],
                 "gpu-tracker: compare: invalid --tolerance 'ten': give a percentage (10%) or METRIC=PERCENT, "
                 'METRIC one of peak_ram, peak_gpu_ram, cpu_time, wall_time, mean_cpu\n'),
                (['base0.json', 'missing.json'], None),
                (['base0.json', 'run.csv'],
                 "gpu-tracker: compare: 'run.csv': give a JSON summary or test-suite file (.json) or a snapshot "
                 '(.json.gz)\n')):
            r = compare(*args)
            check(r.returncode == 2 and r.stdout == '', f'{args}: exit {r.returncode}, stdout {r.stdout!r}')
            if line:
                check(r.stderr == line, f'{args}: {r.stderr!r}')
            else:
                check(r.stderr.startswith('gpu-tracker: compare: ') and 'missing.json' in r.stderr
                      and r.stderr.count('\n') == 1, f'{args}: {r.stderr!r}')
        # gpu_tracker's to_json() of one run in three sets of units.
        same_run = [os.path.join(conformance, name) for name in (
            'False-Linux-bytes-megabytes-seconds.json', 'False-Linux-kilobytes-gigabytes-minutes.json',
            'False-Linux-megabytes-kilobytes-hours.json')]
        r = compare('-f', 'json', *same_run)
        check(r.returncode == 0, f'gpu_tracker JSON: exit {r.returncode} {r.stderr}')
        if r.returncode == 0:
            rows = json.loads(r.stdout)['rows']
            check(len(rows) == 5 and all(abs(row['change_percent']) < 0.1 for row in rows),
                  f'one run in other units compares equal: {rows}')
        # untrusted test names print through the one escaper (a terminal
        # escape, a C1 CSI as \xNN), without a cell-ending '|' in markdown.
        figures = {'peak_ram_bytes': 1e6, 'peak_gpu_ram_bytes': 0, 'cpu_seconds': 1, 'wall_seconds': 1,
                   'mean_cpu_cores': 1}
        for name, scale in (('t-base.json', 1), ('t-new.json', 2)):
            with open(os.path.join(work, name), 'w') as f:
                json.dump({'format': 'gputracker-pytest', 'version': 1, 'tests': {
                    'test_x.py::test_\x1b[2Jclear\x9b2J|pipe': dict(figures, peak_ram_bytes=1e6 * scale)}}, f)
        for fmt in ('text', 'markdown'):
            r = compare('-f', fmt, 't-base.json', 't-new.json')
            check(r.returncode == 1 and '\x1b' not in r.stdout and '\x9b' not in r.stdout
                  and 'test_\\x1b[2Jclear\\xc2\\x9b2J' in r.stdout,
                  f'{fmt}: a test name printed raw: {r.stdout!r}')
            if fmt == 'markdown':
                check('test_\\x1b[2Jclear\\xc2\\x9b2J/pipe' in r.stdout,
                      f'markdown keeps a | in a name: {r.stdout!r}')
        # ...and in the error of a test that lacks a figure.
        with open(os.path.join(work, 't-lacking.json'), 'w') as f:
            json.dump({'format': 'gputracker-pytest', 'version': 1, 'tests': {
                'test_\x1b]52;c;SGVsbG8=\x07\x9b2J': {'peak_ram_bytes': 1}}}, f)
        r = compare('t-base.json', 't-lacking.json')
        check(r.returncode == 2 and r.stderr == (
            "gpu-tracker: compare: 't-lacking.json': test 'test_\\x1b]52;c;SGVsbG8=\\x07\\xc2\\x9b2J' lacks a "
            "figure (peak_ram_bytes, peak_gpu_ram_bytes, cpu_seconds, wall_seconds, mean_cpu_cores: numbers of 0 "
            "or more)\n"), f'a name in the lacking-a-figure error: {r.stderr!r}')
        # The attack on the matching: 10,000 tests whose 6 KB names share
        # all but their last characters, against one baseline. Matched by
        # a hash (one lookup a test), not by comparing every pair (188 s
        # before): the deadline only turns a hang into a failure.
        prefix = 'test_long.py::test_' + 'x' * 6000
        names = [f'{prefix}{i:05d}' for i in range(10000)]
        for name in ('long-base.json', 'long-new.json'):
            with open(os.path.join(work, name), 'w') as f:
                json.dump({'format': 'gputracker-pytest', 'version': 1,
                           'tests': {n: figures for n in names}}, f)
        try:
            r = subprocess.run([tracker, 'compare', '-f', 'json', 'long-base.json', 'long-new.json'], cwd=work,
                               env=env, capture_output=True, text=True, timeout=120)
            rows = json.loads(r.stdout)['rows'] if r.returncode == 0 else []
            check(len({row['subject'] for row in rows}) == 10000 and all(row['base_runs'] == 1 for row in rows),
                  f'10,000 long names: exit {r.returncode}, {len(rows)} rows {r.stderr[:200]!r}')
        except subprocess.TimeoutExpired:
            check(False, '10,000 long names: compare still running after 120 s')
        with open(os.path.join(work, 'bad.json'), 'w') as f:
            f.write('{"max_ram": 5}')
        r = compare('base0.json', 'bad.json')
        check(r.returncode == 2 and r.stderr.startswith("gpu-tracker: compare: 'bad.json' is not a summary: "),
              f'a malformed summary: {r.stderr!r}')
    if failures:
        print(f'test_compare: {len(failures)} checks failed')
        return 1
    print('test_compare: ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
