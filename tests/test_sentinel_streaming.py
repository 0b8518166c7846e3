#!/usr/bin/env python3
"""The Sentinel streaming round trip, with a real S3 server: a
gputracker.resource_tracker.ResourceTracker with a token registers its run
at a Sentinel API on 127.0.0.1 (tests/python/sentinel_fake.py), uploads its
combined metrics in gzipped batches every second to S3rver on 127.0.0.1,
which checks every request's SigV4 signature, refreshes its STS
credentials before they expire (the old key is revoked at S3 then, so the
batches after it go up only when signed with the new one) and finishes the
run with the S3 URIs. The objects are read back: every row of the tracker,
once, in order, each batch with the header.

Usage: test_sentinel_streaming.py S3_SERVER_JS (run by
test_sentinel_streaming.sh with the package's Python and NODE_PATH set).
Exit 77 when S3rver cannot be started."""
import gzip
import os
import subprocess
import sys
import tempfile
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), 'python'))
from sentinel_fake import TOKEN, FakeSentinel, iso_in  # noqa: E402

failures = []


def check(condition, what):
    print(('ok   ' if condition else 'FAIL ') + what)
    if not condition:
        failures.append(what)


def main():
    server_js = sys.argv[1]
    work = tempfile.mkdtemp(prefix='gt-sentinel-')
    # The first credentials expire 302 s from now: within the refresh
    # threshold (300 s) two seconds in, so the first batches go up with them
    # and a refresh follows.
    first = {'access_key': 'ASIAFIRST', 'secret_key': 'first-secret', 'session_token': 'tok-1',
             'expires_at': iso_in(302), 'region': 'us-east-1'}
    second = {'access_key': 'ASIASECOND', 'secret_key': 'second-secret', 'session_token': 'tok-2',
              'expires_at': iso_in(3600), 'region': 'us-east-1'}
    try:
        s3 = subprocess.Popen(['node', server_js, os.path.join(work, 'data'), 'metrics',
                               f'{first["access_key"]}:{first["secret_key"]}',
                               f'{second["access_key"]}:{second["secret_key"]}'],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    except OSError as error:
        print(f'sentinel_streaming: SKIPPED: cannot run node: {error}')
        return 77
    port = s3.stdout.readline().strip()
    if not port.isdigit():
        print(f'sentinel_streaming: SKIPPED: S3rver did not start: {s3.stderr.read().strip()[:300]}')
        return 77
    endpoint = f'http://127.0.0.1:{port}'

    def revoke(old, new):
        s3.stdin.write(f'revoke {old["access_key"]}\n')
        s3.stdin.flush()
        s3.stdout.readline()  # "ok revoke ...": revoked before the new credentials are answered

    sentinel = FakeSentinel([first, second], on_refresh=revoke)
    os.environ.update(SENTINEL_API_URL=sentinel.url, AWS_ENDPOINT_URL_S3=endpoint)
    from gputracker.resource_tracker.s3_upload import put_bytes_with_sts
    from gputracker.resource_tracker.tracker import ResourceTracker
    try:
        # S3 itself refuses a wrong signature and an unknown key.
        for key, secret, code in (('ASIASECOND', 'not-the-secret', 'SignatureDoesNotMatch'),
                                  ('ASIAUNKNOWN', 'second-secret', 'InvalidAccessKeyId')):
            try:
                put_bytes_with_sts(s3_uri='s3://metrics/probe.csv.gz', body=b'x', access_key=key, secret_key=secret,
                                   session_token='t', region='us-east-1')
                check(False, f'S3 refuses {code}')
            except RuntimeError as error:
                check('403' in str(error) and code in str(error), f'S3 refuses {code}: {str(error)[:60]}')

        tracker = ResourceTracker(interval=0.2, sentinel_token=TOKEN, upload_interval=1,
                                  streaming_metadata={'project_name': 'streaming-test'}, discover_cloud=False)
        tracker.start()
        deadline = time.time() + 90
        # run until a refresh happened and two more batches went up after it
        after = None
        while time.time() < deadline:
            time.sleep(0.2)
            streaming = tracker._streaming
            if streaming is None:
                break
            if sentinel.refreshes and after is None:
                after = len(streaming.uploaded_uris)
            if after is not None and len(streaming.uploaded_uris) >= after + 2:
                break
        tracker.stop(exit_code=0)
        check(sentinel.registered == [{'project_name': 'streaming-test'}], 'the run was registered with its metadata')
        check(sentinel.refreshes >= 1, f'the credentials were refreshed ({sentinel.refreshes})')
        [finished] = sentinel.finished or [{}]
        uris = finished.get('data_uris') or []
        check(finished.get('data_source') == 's3' and finished.get('run_status') == 'finished',
              f'finished with the S3 URIs ({finished.get("data_source")}, {finished.get("run_status")})')
        check(after is not None and len(uris) >= after + 2,
              f'{len(uris)} batches, {len(uris) - (after or 0)} signed with the refreshed key after the old one was '
              'revoked')
        check(uris == [f's3://metrics/runs/run-1/{i:04d}.csv.gz' for i in range(1, len(uris) + 1)],
              'the objects are numbered in order under the run\'s prefix')
        check(tracker.sentinel_result == {'stats': {'rows': len(uris)}}, 'sentinel_result is the API\'s answer')

        header, rows = None, []
        for uri in uris:
            with urllib.request.urlopen(f'{endpoint}/{uri[len("s3://"):]}', timeout=10) as answer:
                lines = gzip.decompress(answer.read()).decode().splitlines()
            if header is None:
                header = lines[0]
            check(lines[0] == header and len(lines) >= 1, f'{uri}: the header, then {len(lines) - 1} rows')
            rows += lines[1:]
        combined = tracker.get_combined_metrics()
        check(header is not None and header.split(',') == [f'"{c}"' for c in combined.columns],
              'the header is the combined metrics\' columns')
        stamps = [float(r.split(',')[0]) for r in rows]
        check(stamps == list(combined['timestamp']),
              f'every row of the tracker uploaded once, in order ({len(stamps)} of {len(combined)})')
    finally:
        sentinel.close()
        s3.stdin.close()
        try:
            s3.wait(timeout=10)
        except subprocess.TimeoutExpired:
            s3.kill()
    print(f'sentinel_streaming: {len(failures)} failed' if failures else 'sentinel_streaming: all passed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
