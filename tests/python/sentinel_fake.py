"""A Sentinel API on 127.0.0.1 that speaks it as resource_tracker 0.5.0's
client uses it (POST /runs, /runs/RUN/refresh-credentials, /runs/RUN/finish
with a Bearer token, JSON bodies, a gzip-compressed finish for inline
data), and records what it was sent. Used by tests/python/test_sentinel.py
and tests/test_sentinel_streaming.py (with a real S3 server)."""
from __future__ import annotations

import gzip
import json
import threading
import time
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Callable, List, Optional

TOKEN = 'sentinel-test-token'


def iso_in(seconds: float) -> str:
    return datetime.fromtimestamp(time.time() + seconds, tz=timezone.utc).isoformat().replace('+00:00', 'Z')


class FakeSentinel:
    """credentials: a list of the upload_credentials handed out, the first
    at register, each next at a refresh (the last one again past the end).
    on_refresh(old, new) is called at each refresh (the S3 test revokes the
    old key there). fail_register / fail_finish: answer 500 to those."""

    def __init__(self, credentials: List[dict], bucket: str = 'metrics',
                 on_refresh: Optional[Callable[[dict, dict], None]] = None):
        self.credentials = credentials
        self.bucket = bucket
        self.on_refresh = on_refresh
        self.fail_register = False
        self.fail_finish = False
        self.requests: List[tuple] = []  # (method, path, authorization, body as JSON)
        self.registered: List[dict] = []
        self.refreshes = 0
        self.finished: List[dict] = []
        self._issued = 0
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get('Content-Length') or 0)
                raw = self.rfile.read(length) if length else b''
                if self.headers.get('Content-Encoding') == 'gzip':
                    raw = gzip.decompress(raw)
                body = json.loads(raw) if raw else None
                fake.requests.append(('POST', self.path, self.headers.get('Authorization'), body))
                status, answer = fake._answer(self.path, self.headers.get('Authorization'), body)
                data = json.dumps(answer).encode()
                self.send_response(status)
                self.send_header('Content-Type', 'application/json')
                self.send_header('Content-Length', str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self._server = ThreadingHTTPServer(('127.0.0.1', 0), Handler)
        self.url = f'http://127.0.0.1:{self._server.server_address[1]}'
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def _next_credentials(self) -> dict:
        creds = self.credentials[min(self._issued, len(self.credentials) - 1)]
        self._issued += 1
        return creds

    def _answer(self, path: str, authorization: Optional[str], body):
        if authorization != f'Bearer {TOKEN}':
            return 401, {'detail': 'bad token'}
        if path == '/runs':
            if self.fail_register:
                return 500, {'detail': 'register broke'}
            self.registered.append(body)
            run = f'run-{len(self.registered)}'
            return 200, {'run_id': run, 'upload_uri_prefix': f's3://{self.bucket}/runs/{run}',
                         'upload_credentials': self._next_credentials()}
        if path.endswith('/refresh-credentials'):
            old = self.credentials[min(self._issued - 1, len(self.credentials) - 1)]
            new = self._next_credentials()
            self.refreshes += 1
            if self.on_refresh:
                self.on_refresh(old, new)
            return 200, {'upload_credentials': new}
        if path.endswith('/finish'):
            if self.fail_finish:
                return 500, {'detail': 'finish broke'}
            self.finished.append(dict(body, run=path.split('/')[2]))
            return 200, {'stats': {'rows': len(body.get('data_uris') or [])}}
        return 404, {'detail': 'no such endpoint'}

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
