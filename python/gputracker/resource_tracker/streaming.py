"""resource_tracker 0.5.0's ``resource_tracker.streaming``: a run's metrics
streamed to the Sentinel API while it runs (docs/python.md, "Streaming to
the Sentinel API").

StreamingManager registers the run (sentinel_api.register_run), then one
daemon thread, every upload_interval seconds, has the combined CSV file
brought up to date (csv_update_fn), gzips the rows written since the last
batch (with the header line again) and PUTs them as
``UPLOAD_URI_PREFIX/NNNN.csv.gz`` (s3_upload.put_bytes_with_sts) under the
STS credentials the API gave, refreshing them when they are within 5
minutes of expiring. stop() uploads what is left and finishes the run with
its exit code and status: with the S3 URIs when batches went up, with the
whole CSV inline when none did (a short run).

A failure never stops tracking: a batch that cannot be uploaded stays for
the next (its rows are not skipped), a refresh that fails keeps the old
credentials. Each kind of failure is logged once as a warning, its repeats
at debug level, and a warning again after it has recovered and comes back."""
from __future__ import annotations

import gzip
import logging
import threading
import time
from datetime import datetime
from typing import Any, Callable, Dict, List, Optional, Tuple

from .s3_upload import put_bytes_with_sts
from .sentinel_api import DataSource, RunStatus, finish_run, refresh_credentials, register_run

logger = logging.getLogger(__name__)

_CREDENTIAL_REFRESH_THRESHOLD = 300  # refresh this many seconds before they expire
_CREDENTIAL_REFRESH_RETRY_DELAY = 10  # and try once more after this, when it fails
_MAX_BATCH = 64 * 1024 * 1024  # bytes of CSV read for one batch at most

__all__ = ['StreamingManager']


def _parse_expires_at(expires_at: str) -> float:
    """The epoch seconds of an ISO-8601 time ("...Z" or "...+00:00")."""
    text = expires_at[:-1] + '+00:00' if expires_at.endswith('Z') else expires_at
    return datetime.fromisoformat(text).timestamp()


def _read_new_bytes(filepath: str, offset: int, until: Optional[bytes] = None) -> Tuple[bytes, int]:
    """(the bytes of filepath from offset on, the offset after them); with
    until, up to and including its first occurrence (ValueError when it is
    not there). (b'', offset) when the file does not exist."""
    try:
        with open(filepath, 'rb') as file:
            file.seek(offset)
            if until is None:
                data = file.read(_MAX_BATCH)
                return data, offset + len(data)
            data = b''
            while True:
                chunk = file.read(4096)
                if not chunk:
                    raise ValueError(f'Delimiter {until!r} not found in {filepath!r} from offset {offset}')
                data += chunk
                found = data.find(until)
                if found >= 0:
                    data = data[:found + len(until)]
                    return data, offset + len(data)
                if len(data) > _MAX_BATCH:
                    raise ValueError(f'Delimiter {until!r} not found in the first {_MAX_BATCH} bytes of '
                                     f'{filepath!r} from offset {offset}')
    except FileNotFoundError:
        return b'', offset


class _OnceLog:
    """Warns of a failure the first time, then at debug level until it has
    gone away."""

    def __init__(self):
        self._failing = set()

    def failed(self, what: str, message: str, *args) -> None:
        (logger.debug if what in self._failing else logger.warning)(message, *args)
        self._failing.add(what)

    def ok(self, what: str) -> None:
        if what in self._failing:
            self._failing.discard(what)
            logger.info('Sentinel streaming: %s works again', what)


class StreamingManager:
    """The streaming of one run (ResourceTracker makes it when it has a
    token). token: the Sentinel API token; csv_path: the combined CSV file
    (header line first, rows appended); upload_interval: seconds between
    batches (at least 1); metadata, host_info, cloud_info: what
    register_run() sends; csv_update_fn: called before each batch to append
    the new rows to csv_path."""

    def __init__(self, token: str, csv_path: Optional[str] = None, upload_interval: int = 60,
                 metadata: Optional[Dict[str, Any]] = None, host_info: Optional[Dict[str, Any]] = None,
                 cloud_info: Optional[Dict[str, Any]] = None, csv_update_fn: Optional[Callable[[], None]] = None):
        self._token = token
        self._csv_path = csv_path
        self._upload_interval = max(1, upload_interval)
        self._metadata = metadata
        self._host_info = host_info
        self._cloud_info = cloud_info
        self._csv_update_fn = csv_update_fn
        self._run_id: Optional[str] = None
        self._upload_uri_prefix: Optional[str] = None
        self._credentials: Optional[dict] = None
        self._credential_expiry = 0.0
        self._uploaded_uris: List[str] = []
        self._seq = 0
        self._csv_header = b''
        self._csv_offset = 0
        self._stop_event = threading.Event()
        self._thread: Optional[threading.Thread] = None
        self._lock = threading.Lock()  # one batch at a time: the thread's, or stop()'s last
        self._log = _OnceLog()

    # ---- the run ----------------------------------------------------------

    def start(self) -> None:
        """Registers the run and starts the upload thread. What
        register_run() raises, and KeyError for an answer without run_id,
        upload_uri_prefix or upload_credentials (with expires_at)."""
        answer = register_run(self._token, metadata=self._metadata, host_info=self._host_info,
                              cloud_info=self._cloud_info)
        run_id = answer.get('run_id')
        if not run_id:
            raise KeyError("register_run response missing 'run_id'")
        self._run_id = run_id
        self._upload_uri_prefix = str(answer['upload_uri_prefix']).rstrip('/')
        self._set_credentials(answer['upload_credentials'])
        logger.info('Streaming started for run %s (upload every %ds)', self._run_id, self._upload_interval)
        self._thread = threading.Thread(target=self._streaming_loop, daemon=True, name='gt:sentinel')
        self._thread.start()

    def stop(self, exit_code: int = 0, run_status: RunStatus = RunStatus.finished) -> dict:
        """Stops the thread, uploads the rows left (when batches went up
        already) and finishes the run: the API's answer. What finish_run()
        raises."""
        self._stop_event.set()
        if self._thread is not None and self._thread.is_alive():
            self._thread.join(timeout=30)
        if self._uploaded_uris:
            try:
                self._upload_batch()
            except Exception as error:  # noqa: BLE001 - the run is finished with what went up
                logger.warning('Final upload batch failed: %s', error)
        try:
            if self._uploaded_uris:
                data: Dict[str, Any] = {'data_source': DataSource.s3, 'data_uris': list(self._uploaded_uris)}
            else:
                data = {'data_source': DataSource.inline, 'data_csv': self._read_all_csv()}
        except Exception as error:  # noqa: BLE001
            logger.warning('Failed to prepare data for finish_run: %s', error)
            data = {'data_source': DataSource.inline, 'data_csv': ''}
        result = finish_run(self._token, self._run_id, exit_code=exit_code, run_status=run_status, **data)
        logger.info('Run %s finished (status=%s, uploads=%d)', self._run_id, run_status, len(self._uploaded_uris))
        return result

    @property
    def is_alive(self) -> bool:
        """Whether the upload thread runs."""
        return self._thread is not None and self._thread.is_alive()

    @property
    def run_id(self) -> Optional[str]:
        """The run's ID (after start())."""
        return self._run_id

    @property
    def uploaded_uris(self) -> List[str]:
        """The S3 URIs uploaded so far, in order."""
        return self._uploaded_uris

    # ---- credentials ------------------------------------------------------

    def _set_credentials(self, credentials: dict) -> None:
        expires_at = credentials.get('expires_at')
        if not expires_at:
            raise KeyError("credentials missing 'expires_at'")
        self._credential_expiry = _parse_expires_at(expires_at)
        self._credentials = credentials

    def _should_refresh_credentials(self) -> bool:
        return self._credential_expiry - time.time() <= _CREDENTIAL_REFRESH_THRESHOLD

    def _seconds_until_expiry(self) -> float:
        return max(0.0, self._credential_expiry - time.time())

    def _refresh_credentials(self) -> None:
        """New credentials from the API; one retry after 10 s (cut short by
        stop()); the old ones kept when both fail."""
        for attempt in (1, 2):
            try:
                self._set_credentials(refresh_credentials(self._token, self._run_id)['upload_credentials'])
                self._log.ok('the credential refresh')
                return
            except Exception as error:  # noqa: BLE001 - streaming never stops tracking
                if attempt == 1:
                    self._log.failed('the credential refresh', 'Credential refresh failed (attempt 1/2), '
                                     'retrying in %ds: %s', _CREDENTIAL_REFRESH_RETRY_DELAY, error)
                    if self._stop_event.wait(_CREDENTIAL_REFRESH_RETRY_DELAY):
                        return
                else:
                    self._log.failed('the credential refresh', 'Credential refresh failed (attempt 2/2), '
                                     'continuing with existing credentials: %s', error)

    # ---- batches ----------------------------------------------------------

    def _streaming_loop(self) -> None:
        while True:
            until_refresh = max(0.0, self._seconds_until_expiry() - _CREDENTIAL_REFRESH_THRESHOLD)
            if self._stop_event.wait(max(0.1, min(float(self._upload_interval), until_refresh))):
                return
            if self._should_refresh_credentials():
                self._refresh_credentials()
            try:
                self._upload_batch()
            except Exception as error:  # noqa: BLE001
                self._log.failed('the batch', 'Upload batch failed: %s', error)

    def _update_csv(self) -> None:
        if self._csv_update_fn is not None:
            try:
                self._csv_update_fn()
            except Exception as error:  # noqa: BLE001
                logger.debug('CSV update function failed: %s', error)

    def _upload_batch(self) -> None:
        """Uploads the rows written since the last batch, as one gzipped CSV
        object with the header line. ValueError when the file has data but
        no header line; an upload that fails is logged and its rows stay
        for the next batch."""
        with self._lock:
            self._update_csv()
            credentials = self._credentials
            if credentials is None or self._csv_path is None:
                return
            data, _ = _read_new_bytes(self._csv_path, self._csv_offset)
            if self._csv_offset > 0:
                # only whole lines: a row being appended goes with the next batch
                data = data[:data.rfind(b'\n') + 1]
            if not data:
                return
            if self._csv_offset == 0:
                end = data.find(b'\n')
                if end <= 0:
                    raise ValueError(f'CSV data at {self._csv_path!r} has no header line')
                self._csv_header = data[:end + 1]
                data = data[:data.rfind(b'\n') + 1]
                body = data
            else:
                body = self._csv_header + data
            self._seq += 1
            uri = f'{self._upload_uri_prefix}/{self._seq:04d}.csv.gz'
            try:
                uploaded = put_bytes_with_sts(s3_uri=uri, body=gzip.compress(body),
                                              access_key=credentials['access_key'],
                                              secret_key=credentials['secret_key'],
                                              session_token=credentials['session_token'],
                                              region=credentials.get('region'))
            except Exception as error:  # noqa: BLE001 - the rows stay for the next batch
                self._seq -= 1
                self._log.failed('the upload', 'Failed to upload %s: %s', uri, error)
                return
            self._log.ok('the upload')
            self._uploaded_uris.append(uploaded)
            self._csv_offset += len(data)
            logger.debug('Uploaded %s (%d bytes of CSV)', uploaded, len(body))

    def _read_all_csv(self) -> str:
        """The whole combined CSV (brought up to date first), '' when there
        is no file."""
        self._update_csv()
        if self._csv_path is None:
            return ''
        try:
            with open(self._csv_path, encoding='utf-8') as file:
                return file.read(_MAX_BATCH)
        except FileNotFoundError:
            return ''
