#!/usr/bin/python3
"""--benchmark-tsv against the real Snakemake (Debian's snakemake package):
a Snakefile with the same workload twice, once under Snakemake's own
`benchmark:` and once under `gpu-tracker --benchmark-tsv`, run with repeat()
semantics (our rule twice appends two rows). Both files load with the same
reader (pandas.read_csv(sep='\\t')); ours has Snakemake's ten columns, in
order, then max_gpu_ram and mean_gpu_load; our max_rss is the tree's peak.

usage: test_snakemake.py GPU_TRACKER WORKLOAD
Exit 77 (skipped) with the reason when snakemake or pandas is missing (make
check installs them as root)."""
import os
import shutil
import subprocess
import sys
import tempfile

SNAKEFILE = '''
G = config["gpu_tracker"]
W = config["workload"]

rule all:
    input: "theirs.done", "ours.done"

# Snakemake's own benchmark of the workload.
rule theirs:
    output: "theirs.done"
    benchmark: "theirs.tsv"
    shell: "{W} demo && touch {output}"

# The same under gpu-tracker, twice: a row each, as repeat() makes them.
rule ours:
    output: "ours.done"
    shell:
        "{G} -q -o /dev/null --benchmark-tsv ours.tsv -- {W} demo && "
        "{G} -q -o /dev/null --benchmark-tsv ours.tsv -- {W} demo && touch {output}"
'''

SNAKEMAKE_COLUMNS = ['s', 'h:m:s', 'max_rss', 'max_vms', 'max_uss', 'max_pss', 'io_in', 'io_out',
                     'mean_load', 'cpu_time']


def main():
    if len(sys.argv) != 3:
        raise SystemExit('usage: test_snakemake.py GPU_TRACKER WORKLOAD')
    tracker, workload = map(os.path.abspath, sys.argv[1:])
    snakemake = shutil.which('snakemake')
    if not snakemake:
        print('test_snakemake: SKIPPED: no snakemake (make check installs Debian\'s snakemake as root)')
        return 77
    try:
        import pandas
    except ImportError:
        print('test_snakemake: SKIPPED: no pandas for /usr/bin/python3 (python3-pandas)')
        return 77
    failures = []

    def check(ok, what):
        if not ok:
            failures.append(what)
            print('FAIL:', what)

    with tempfile.TemporaryDirectory(prefix='gt-snakemake-') as work:
        with open(os.path.join(work, 'Snakefile'), 'w') as f:
            f.write(SNAKEFILE)
        env = dict(os.environ, HOME=work, XDG_CACHE_HOME=os.path.join(work, 'cache'),
                   XDG_CONFIG_HOME=os.path.join(work, 'config'))
        run = subprocess.run([snakemake, '--cores', '2', '--quiet', '--config', f'gpu_tracker={tracker}',
                              f'workload={workload}'], cwd=work, env=env, capture_output=True,
                             text=True, timeout=300)
        if run.returncode != 0:
            print(run.stdout, run.stderr)
            print('FAIL: snakemake exited with', run.returncode)
            return 1
        with open(os.path.join(work, 'ours.tsv')) as f:
            print('ours.tsv:\n' + f.read())
        with open(os.path.join(work, 'theirs.tsv')) as f:
            print('theirs.tsv (Snakemake ' + subprocess.run([snakemake, '--version'], capture_output=True,
                                                             text=True).stdout.strip() + '):\n' + f.read())
        theirs = pandas.read_csv(os.path.join(work, 'theirs.tsv'), sep='\t')
        ours = pandas.read_csv(os.path.join(work, 'ours.tsv'), sep='\t')
        check(list(theirs.columns) == SNAKEMAKE_COLUMNS, f"Snakemake's columns: {list(theirs.columns)}")
        check(list(ours.columns) == SNAKEMAKE_COLUMNS + ['max_gpu_ram', 'mean_gpu_load'],
              f'our columns: {list(ours.columns)}')
        check(len(theirs) == 1 and len(ours) == 2, f'rows: theirs {len(theirs)}, ours {len(ours)}')
        for column in ('s', 'max_rss', 'io_in', 'io_out', 'mean_load', 'cpu_time'):
            check(str(ours[column].dtype) in ('float64', 'int64'), f'our {column} is {ours[column].dtype}')
        # h:m:s is s as Snakemake writes it (H:MM:SS, whole seconds), however
        # long the loaded machine took.
        for hms, seconds in zip(ours['h:m:s'], ours['s']):
            parts = str(hms).split(':')
            check(len(parts) == 3 and all(p.isdigit() for p in parts) and len(parts[1]) == 2
                  and len(parts[2]) == 2, f'our h:m:s {hms!r} is not H:MM:SS')
            if len(parts) == 3 and all(p.isdigit() for p in parts):
                whole = int(parts[0]) * 3600 + int(parts[1]) * 60 + int(parts[2])
                check(abs(whole - seconds) < 1, f'our h:m:s {hms} against s {seconds}')
        # Two children each hold 100 MiB while they burn 1 s of CPU: the
        # tree's peak is both at once (over 200 MiB), its CPU about 2 s.
        for i, row in ours.iterrows():
            check(row['max_rss'] >= 200, f'row {i}: our max_rss {row["max_rss"]} MiB, the tree held 200 MiB')
            check(1.8 <= row['cpu_time'] <= 3.0, f'row {i}: our cpu_time {row["cpu_time"]} s')
            check(1.0 <= row['s'] <= 30, f'row {i}: our s {row["s"]}')
            check(row['max_vms'] == '-' and row['max_pss'] == '-', f'row {i}: vms/pss not measured: {row}')
            check(row['max_gpu_ram'] == '-', f'row {i}: no GPU here, max_gpu_ram {row["max_gpu_ram"]}')
        print(f'max_rss: Snakemake {theirs["max_rss"][0]} MiB (the RSS of the tree summed at its samples), '
              f'gpu-tracker {ours["max_rss"][0]:.2f} and {ours["max_rss"][1]:.2f} MiB (the tree\'s peak); '
              f'cpu_time: Snakemake {theirs["cpu_time"][0]} s, gpu-tracker {ours["cpu_time"][0]:.2f} s')
    if failures:
        print(f'test_snakemake: {len(failures)} checks failed')
        return 1
    print('test_snakemake: ok')
    return 0


if __name__ == '__main__':
    sys.exit(main())
