"""resource_tracker 0.5.0's ``resource_tracker.sentinel_api``: the client of
the Spare Cores Sentinel API, where a tracker with a token registers its run,
refreshes the upload credentials and finishes the run (docs/python.md,
"Streaming to the Sentinel API").

The API's address is ``SENTINEL_API_URL`` (0.5.0's variable; the tests
point it at a server on 127.0.0.1), else https://api.sentinel.sparecores.net.
Every request has a timeout (30 s by default, as 0.5.0's), sends the token as
``Authorization: Bearer``, and reads at most 16 MiB of answer."""
from __future__ import annotations

import gzip
import json
import logging
import os
import shlex
from enum import Enum
from typing import Any, Dict, List, Optional
from urllib.error import HTTPError
from urllib.parse import urljoin
from urllib.request import Request, urlopen

logger = logging.getLogger(__name__)

DEFAULT_SENTINEL_URL = 'https://api.sentinel.sparecores.net'
DEFAULT_TIMEOUT = 30  # seconds, per request
_MAX_ANSWER = 16 * 1024 * 1024

__all__ = ['DEFAULT_SENTINEL_URL', 'DEFAULT_TIMEOUT', 'RunStatus', 'DataSource', 'SentinelAPIError',
           'register_run', 'refresh_credentials', 'finish_run']


class RunStatus(Enum):
    """How a run ended, as the API takes it."""
    finished = 'finished'
    failed = 'failed'


class DataSource(Enum):
    """Where finish_run() finds the metrics: uploaded S3 objects, or inline."""
    s3 = 's3'
    inline = 'inline'


class SentinelAPIError(Exception):
    """A non-2xx answer: ``status_code`` and the answer's text in ``body``."""

    def __init__(self, status_code: int, body: str):
        self.status_code = status_code
        self.body = body
        super().__init__(f'Sentinel API error {status_code}: {body}')


def _get_base_url() -> str:
    """SENTINEL_API_URL, or the public API."""
    return os.environ.get('SENTINEL_API_URL', DEFAULT_SENTINEL_URL)


def _read_bounded(stream) -> bytes:
    data = stream.read(_MAX_ANSWER + 1)
    if len(data) > _MAX_ANSWER:
        raise ValueError(f'the Sentinel API answered more than {_MAX_ANSWER} bytes')
    return data


def _request(method: str, path: str, *, token: str, payload: Optional[dict] = None,
             base_url: Optional[str] = None, timeout: int = DEFAULT_TIMEOUT, compress: bool = False) -> dict:
    """method base_url + path with payload as JSON (gzip-compressed with
    compress); the JSON answer, {} for an empty one. SentinelAPIError for a
    non-2xx answer; OSError when the API cannot be reached."""
    url = urljoin(base_url or _get_base_url(), path)
    body = None if payload is None else json.dumps(payload).encode('utf-8')
    if compress and body is not None:
        body = gzip.compress(body)
    request = Request(url, data=body, method=method)
    request.add_header('Authorization', f'Bearer {token}')
    request.add_header('Content-Type', 'application/json')
    request.add_header('Accept', 'application/json')
    if compress and body is not None:
        request.add_header('Content-Encoding', 'gzip')
    logger.debug('Sentinel API %s %s', method, url)
    try:
        with urlopen(request, timeout=timeout) as answer:
            text = _read_bounded(answer).decode('utf-8')
    except HTTPError as error:
        raise SentinelAPIError(error.code, _read_bounded(error).decode('utf-8', errors='replace')) from error
    return json.loads(text) if text else {}


def register_run(token: str, metadata: Optional[Dict[str, Any]] = None, *,
                 host_info: Optional[Dict[str, Any]] = None, cloud_info: Optional[Dict[str, Any]] = None) -> dict:
    """POST /runs: a new run, described by metadata (project_name, job_name,
    stage_name, task_name, external_run_id, pid, container_image, command
    (a list, or a shell string split as the shell would), env, language,
    orchestrator, executor, team, tags) and the host_* and cloud_* fields;
    None values are left out. The answer has run_id, upload_uri_prefix and
    upload_credentials (access_key, secret_key, session_token, expires_at,
    region)."""
    payload: Dict[str, Any] = {}
    for part in (metadata, host_info, cloud_info):
        payload.update({key: value for key, value in (part or {}).items() if value is not None})
    if 'command' in payload:
        command = payload['command']
        payload['command'] = json.dumps(shlex.split(command) if isinstance(command, str) else list(command))
    logger.info('Registering run with Sentinel API')
    return _request('POST', '/runs', token=token, payload=payload)


def refresh_credentials(token: str, run_id: str) -> dict:
    """POST /runs/RUN/refresh-credentials: new upload_credentials."""
    logger.info('Refreshing credentials for run %s', run_id)
    return _request('POST', f'/runs/{run_id}/refresh-credentials', token=token)


def finish_run(token: str, run_id: str, *, exit_code: int = 0, run_status: RunStatus = RunStatus.finished,
               data_source: DataSource = DataSource.s3, data_uris: Optional[List[str]] = None,
               data_csv: Optional[str] = None) -> dict:
    """POST /runs/RUN/finish: the run's exit code and status ("finished" or
    "failed", the enum or its value), and its metrics: the S3 URIs uploaded
    (data_source s3) or the whole CSV inline (the request gzip-compressed).
    ValueError when neither data_uris nor data_csv is given, or for a
    status that is not one. The answer: the API's statistics of the run."""
    run_status = RunStatus(run_status.value if isinstance(run_status, RunStatus) else run_status)
    data_source = DataSource(data_source.value if isinstance(data_source, DataSource) else data_source)
    if not data_uris and not data_csv:
        raise ValueError("Either 'data_uris' (for data_source='s3') or 'data_csv' (for data_source='inline') "
                         'must be provided.')
    payload: Dict[str, Any] = {'exit_code': exit_code, 'run_status': run_status.value,
                               'data_source': data_source.value}
    if data_source is DataSource.s3:
        payload['data_uris'] = data_uris
    else:
        payload['data_csv'] = data_csv
    logger.info('Finishing run %s (status=%s, exit_code=%d)', run_id, run_status, exit_code)
    return _request('POST', f'/runs/{run_id}/finish', token=token, payload=payload,
                    compress=data_source is DataSource.inline)
