"""resource_tracker 0.5.0's Sentinel API streaming and Keeper client in
gputracker.resource_tracker, against servers on 127.0.0.1: a Sentinel API
(sentinel_fake.py) and a Keeper API. The upload to a real S3 server that
checks the signatures is tests/test_sentinel_streaming.py; here no batch
goes up (a short run finishes inline) or the S3 address refuses, which must
be logged once and never stop tracking."""
import csv
import io
import json
import logging
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from sentinel_fake import TOKEN, FakeSentinel, iso_in  # noqa: E402

from gputracker.resource_tracker import keeper, sentinel_api  # noqa: E402
from gputracker.resource_tracker.sentinel_api import DataSource, RunStatus, SentinelAPIError  # noqa: E402
from gputracker.resource_tracker.tracker import ResourceTracker  # noqa: E402
from gputracker.resource_tracker import tracker as tracker_module  # noqa: E402

CREDS = {'access_key': 'ASIAFIRST', 'secret_key': 'first-secret', 'session_token': 'tok-1',
         'expires_at': iso_in(3600), 'region': 'us-east-1'}


@pytest.fixture
def sentinel(monkeypatch):
    fake = FakeSentinel([CREDS])
    monkeypatch.setenv('SENTINEL_API_URL', fake.url)
    monkeypatch.delenv('SENTINEL_API_TOKEN', raising=False)
    yield fake
    fake.close()


def _rows(tracker, n=2):
    tracker.wait_for_samples(n=n, timeout=30)


def test_run_status_is_the_trackers():
    assert tracker_module.RunStatus is RunStatus
    assert [s.value for s in RunStatus] == ['finished', 'failed']
    assert [s.value for s in DataSource] == ['s3', 'inline']


def test_short_run_registers_and_finishes_inline(sentinel):
    tracker = ResourceTracker(interval=0.2, sentinel_token=TOKEN, upload_interval=9999,
                              streaming_metadata={'project_name': 'p', 'command': 'python train.py --lr "1e-3"'},
                              discover_cloud=False)
    tracker.start()
    _rows(tracker)
    path = tracker._combined_csv_filepath
    assert oct(os.stat(path).st_mode & 0o777) == '0o600'
    tracker.stop(exit_code=3, run_status='failed')
    [registered] = sentinel.registered
    assert registered['project_name'] == 'p'
    assert json.loads(registered['command']) == ['python', 'train.py', '--lr', '1e-3']
    [finished] = sentinel.finished
    assert (finished['exit_code'], finished['run_status'], finished['data_source']) == (3, 'failed', 'inline')
    rows = list(csv.reader(io.StringIO(finished['data_csv'])))
    combined = tracker.get_combined_metrics()
    assert rows[0] == list(combined.columns)
    assert len(rows) - 1 == len(combined)  # every row, once
    assert float(rows[1][0]) == combined['timestamp'][0]
    assert tracker.sentinel_result == {'stats': {'rows': 0}}
    assert not os.path.exists(path)  # removed at stop()
    # every request carried the token
    assert all(auth == f'Bearer {TOKEN}' for _, _, auth, _ in sentinel.requests)


def test_token_from_the_environment_and_a_with_block_that_fails(sentinel, monkeypatch):
    monkeypatch.setenv('SENTINEL_API_TOKEN', TOKEN)
    with pytest.raises(KeyError):
        with ResourceTracker(interval=0.2, upload_interval=9999, discover_cloud=False) as tracker:
            _rows(tracker, 1)
            raise KeyError('the job failed')
    [finished] = sentinel.finished
    assert (finished['exit_code'], finished['run_status']) == (1, 'failed')


def test_no_token_sends_nothing(sentinel):
    tracker = ResourceTracker(interval=0.2, discover_cloud=False)
    tracker.start()
    _rows(tracker, 1)
    tracker.stop()
    assert sentinel.requests == [] and tracker.sentinel_result is None and tracker._streaming is None


def test_a_register_that_fails_leaves_tracking(sentinel, caplog):
    sentinel.fail_register = True
    tracker = ResourceTracker(interval=0.2, sentinel_token=TOKEN, discover_cloud=False)
    with caplog.at_level(logging.WARNING):
        tracker.start()
        _rows(tracker)
        tracker.stop()
    assert tracker._streaming is None and tracker.sentinel_result is None
    assert len(tracker.process_metrics) >= 2
    warned = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(warned) == 1 and 'Sentinel API error 500' in warned[0] and 'register broke' in warned[0]


def test_uploads_that_fail_are_logged_once_and_lose_no_row(sentinel, caplog, monkeypatch):
    # An S3 address that refuses every connection: each batch fails, the
    # rows stay, and finish_run gets them all inline.
    monkeypatch.setenv('AWS_ENDPOINT_URL_S3', 'http://127.0.0.1:9')
    tracker = ResourceTracker(interval=0.1, sentinel_token=TOKEN, upload_interval=1, discover_cloud=False)
    with caplog.at_level(logging.DEBUG, logger='gputracker.resource_tracker'):
        tracker.start()
        deadline = time.time() + 60
        while sum('Failed to upload' in r.getMessage() for r in caplog.records) < 3 and time.time() < deadline:
            time.sleep(0.1)
        tracker.stop()
    failures = [r for r in caplog.records if 'Failed to upload' in r.getMessage()]
    assert len(failures) >= 3
    assert [r.levelno for r in failures].count(logging.WARNING) == 1
    [finished] = sentinel.finished
    assert finished['data_source'] == 'inline'
    assert len(finished['data_csv'].strip().splitlines()) - 1 == len(tracker.get_combined_metrics())


def test_a_finish_that_fails_is_logged(sentinel, caplog):
    sentinel.fail_finish = True
    tracker = ResourceTracker(interval=0.2, sentinel_token=TOKEN, upload_interval=9999, discover_cloud=False)
    tracker.start()
    _rows(tracker, 1)
    with caplog.at_level(logging.WARNING):
        tracker.stop()
    assert tracker.sentinel_result is None
    assert any('finish broke' in r.getMessage() for r in caplog.records)


def test_client_errors(sentinel):
    with pytest.raises(SentinelAPIError) as error:
        sentinel_api.register_run('wrong-token')
    assert error.value.status_code == 401 and 'bad token' in error.value.body
    with pytest.raises(ValueError, match="Either 'data_uris'"):
        sentinel_api.finish_run(TOKEN, 'run-1')
    with pytest.raises(ValueError, match="'stale' is not a valid RunStatus"):
        sentinel_api.finish_run(TOKEN, 'run-1', run_status='stale', data_csv='a\n')


# ---- the Keeper API --------------------------------------------------------

PRICES = [{'region_id': 'eu-west-1', 'allocation': 'ondemand', 'operating_system': 'Linux', 'price': 0.02},
          {'region_id': 'us-east-1', 'allocation': 'spot', 'operating_system': 'Linux', 'price': 0.001},
          {'region_id': 'us-east-1', 'allocation': 'ondemand', 'operating_system': 'Linux', 'price': 0.0104}]
SERVERS = [{'vendor_id': 'aws', 'api_reference': 't4g.micro', 'vcpus': 1, 'memory_amount': 1024, 'gpu_count': 0}]


@pytest.fixture
def keeper_api(monkeypatch):
    asked = []

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def do_GET(self):
            asked.append((self.path, self.headers.get('X-Application-ID')))
            if self.path == '/healthcheck':
                body = {'packages': {}}
            elif self.path == '/server/aws/t3.micro/prices':
                body = PRICES
            elif self.path.startswith('/servers?'):
                body = SERVERS
            else:
                self.send_response(404)
                self.end_headers()
                return
            data = json.dumps(body).encode()
            self.send_response(200)
            self.send_header('Content-Length', str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv('GPU_TRACKER_KEEPER_URL', f'http://127.0.0.1:{server.server_address[1]}')
    yield asked
    server.shutdown()
    server.server_close()


def test_keeper(keeper_api):
    assert keeper.keeper_request('/healthcheck') == {'packages': {}}
    assert keeper.keeper_request('/nowhere') is None
    # the library's lookup: the region's on-demand Linux price, else another's
    assert keeper.get_instance_price('aws', 'us-east-1', 't3.micro') == 0.0104
    assert keeper.get_instance_price('aws', 'ap-south-1', 't3.micro') == 0.02
    assert keeper.get_instance_price('aws', 'us-east-1', 'no-such') is None
    assert keeper.get_instance_price('aws', 'us-east-1', 'bad/type') is None
    servers = keeper.get_recommended_cloud_servers(1, 1000, n=1)
    assert servers == SERVERS
    path = [p for p, _ in keeper_api if p.startswith('/servers?')][0]
    assert 'vcpus_min=1' in path and 'memory_min=1' in path and 'limit=1' in path and 'gpu_min' not in path
    keeper.get_recommended_cloud_servers(4, 16384, gpu=1, vram=24)
    path = [p for p, _ in keeper_api if p.startswith('/servers?')][-1]
    assert 'gpu_min=1' in path and 'gpu_memory_total=24' in path and 'memory_min=16' in path
    assert all(app == 'gpu-tracker' for _, app in keeper_api)


def test_keeper_unreachable(monkeypatch):
    monkeypatch.setenv('GPU_TRACKER_KEEPER_URL', 'http://127.0.0.1:9')
    assert keeper.keeper_request('/healthcheck') is None
    assert keeper.get_instance_price('aws', 'us-east-1', 't3.micro') is None
    assert keeper.get_recommended_cloud_servers(1, 1024) == []


def test_two_threads_reading_rows_take_each_once():
    """The streaming thread reads the rows on from the library while the
    user's thread reads them too: both must not append the same new rows.
    The library's read is slowed down so that the two overlap."""
    tracker = ResourceTracker(interval=0.1, discover_cloud=False)
    tracker.start()
    _rows(tracker, 3)

    class Slow:
        def __init__(self, native):
            self._native = native

        def rows(self, kind, start):
            time.sleep(0.5)  # both threads are inside with the same start, and new rows come
            return self._native.rows(kind, start)

        def __getattr__(self, name):
            return getattr(self._native, name)

    tracker._native = Slow(tracker._native)
    readers = [threading.Thread(target=lambda: tracker.process_metrics) for _ in range(2)]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()
    stamps = list(tracker.process_metrics['timestamp'])
    tracker._native = tracker._native._native
    tracker.stop()
    assert len(stamps) == len(set(stamps)), 'a row was taken twice'


def test_a_bad_s3_endpoint_is_named(monkeypatch):
    from gputracker.resource_tracker.s3_upload import put_bytes_with_sts
    monkeypatch.setenv('AWS_ENDPOINT_URL_S3', 'ftp://127.0.0.1:9')
    with pytest.raises(ValueError, match=r"AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL should be an http:// or https:// "
                                         r"URL, not 'ftp://127.0.0.1:9'"):
        put_bytes_with_sts(s3_uri='s3://b/k', body=b'x', access_key='a', secret_key='s', session_token='t',
                           region='us-east-1')
    with pytest.raises(ValueError, match=r"Expected s3 URI like s3://bucket/path/to/object, not 'https://b/k'"):
        put_bytes_with_sts(s3_uri='https://b/k', body=b'x', access_key='a', secret_key='s', session_token='t')
