"""resource_tracker 0.5.0's ``resource_tracker.s3_upload``: an object PUT
to S3 signed with AWS Signature Version 4 under temporary (STS)
credentials, as the Sentinel API hands them out for a run's metric batches.

The host is the bucket's virtual host, ``BUCKET.s3.REGION.amazonaws.com``,
as 0.5.0's. ``AWS_ENDPOINT_URL_S3`` or ``AWS_ENDPOINT_URL`` (the AWS SDKs'
variables) send the request to another S3 implementation instead, path
style (``ENDPOINT/BUCKET/KEY``), signed for that host: the tests point it at
an S3 server on 127.0.0.1 that checks the signature. Without a region, it
is asked of the bucket (0.5.0's HEAD request, cached; eu-central-1 when it
cannot be had), or, with an endpoint, taken from AWS_REGION /
AWS_DEFAULT_REGION (us-east-1 otherwise)."""
from __future__ import annotations

import argparse
import hashlib
import hmac
import logging
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Dict, Optional, Tuple
from urllib.error import HTTPError
from urllib.parse import quote, urlparse
from urllib.request import Request, urlopen

logger = logging.getLogger(__name__)

DEFAULT_UPLOAD_TIMEOUT = 30  # seconds
_FALLBACK_REGION = 'eu-central-1'
_MAX_ERROR_TEXT = 64 * 1024

bucket_region_cache: Dict[str, str] = {}

__all__ = ['DEFAULT_UPLOAD_TIMEOUT', 'put_bytes_with_sts', 'put_object_with_sts', 'main']


def _parse_s3_uri(s3_uri: str) -> Tuple[str, str]:
    """(bucket, key) of s3://bucket/key; ValueError for anything else."""
    parsed = urlparse(s3_uri)
    if parsed.scheme != 's3' or not parsed.netloc or not parsed.path.strip('/'):
        raise ValueError(f'Expected s3 URI like s3://bucket/path/to/object, not {s3_uri!r}')
    return parsed.netloc, parsed.path.lstrip('/')


def _endpoint() -> Optional[str]:
    """The S3 endpoint the environment names (scheme://host[:port]), or None
    for AWS itself."""
    url = os.environ.get('AWS_ENDPOINT_URL_S3') or os.environ.get('AWS_ENDPOINT_URL')
    if not url:
        return None
    parsed = urlparse(url)
    if parsed.scheme not in ('http', 'https') or not parsed.netloc:
        raise ValueError(f'AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL should be an http:// or https:// URL, not {url!r}')
    return f'{parsed.scheme}://{parsed.netloc}'


def _get_bucket_region(bucket: str, timeout: int = 10) -> str:
    """The bucket's region from S3's x-amz-bucket-region header (which comes
    with 3xx and 4xx answers too), cached; eu-central-1 when it cannot be
    had. With an endpoint: AWS_REGION, AWS_DEFAULT_REGION or us-east-1."""
    if _endpoint():
        return os.environ.get('AWS_REGION') or os.environ.get('AWS_DEFAULT_REGION') or 'us-east-1'
    if bucket_region_cache.get(bucket):
        return bucket_region_cache[bucket]
    region = _FALLBACK_REGION
    try:
        with urlopen(Request(f'https://{bucket}.s3.amazonaws.com/', method='HEAD'), timeout=timeout) as answer:
            region = answer.headers.get('x-amz-bucket-region', _FALLBACK_REGION)
    except HTTPError as error:
        region = error.headers.get('x-amz-bucket-region', _FALLBACK_REGION) if error.headers else _FALLBACK_REGION
    except Exception as error:  # noqa: BLE001 - any failure falls back, as 0.5.0's
        logger.debug('Could not detect the region of bucket %s (%s); using %s', bucket, error, _FALLBACK_REGION)
    bucket_region_cache[bucket] = region
    return region


def _sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _hmac_sha256(key: bytes, msg: str) -> bytes:
    return hmac.new(key, msg.encode('utf-8'), hashlib.sha256).digest()


def _derive_signing_key(secret_key: str, date_stamp: str, region: str) -> bytes:
    """SigV4's key for S3 on date_stamp (YYYYMMDD) in region."""
    key = ('AWS4' + secret_key).encode('utf-8')
    for part in (date_stamp, region, 's3', 'aws4_request'):
        key = _hmac_sha256(key, part)
    return key


def put_bytes_with_sts(*, s3_uri: str, body: bytes, access_key: str, secret_key: str, session_token: str,
                       region: Optional[str] = None, timeout: int = DEFAULT_UPLOAD_TIMEOUT) -> str:
    """PUT body as the object s3_uri (s3://bucket/key), signed with SigV4
    (host, x-amz-content-sha256, x-amz-date and x-amz-security-token
    signed). Returns s3_uri; RuntimeError with S3's status (and its error
    text) when the upload is refused, OSError when S3 cannot be reached,
    ValueError for a URI that is not s3://bucket/key."""
    bucket, key = _parse_s3_uri(s3_uri)
    endpoint = _endpoint()
    if not region:
        region = _get_bucket_region(bucket, timeout=timeout)
    now = datetime.now(timezone.utc)
    amz_date, date_stamp = now.strftime('%Y%m%dT%H%M%SZ'), now.strftime('%Y%m%d')
    payload_hash = _sha256_hex(body)
    if endpoint:
        host = urlparse(endpoint).netloc
        path = '/' + quote(bucket, safe='') + '/' + quote(key, safe='/~')
    else:
        host = f'{bucket}.s3.{region}.amazonaws.com'
        endpoint = f'https://{host}'
        path = '/' + quote(key, safe='/~')
    headers = {'host': host, 'x-amz-content-sha256': payload_hash, 'x-amz-date': amz_date,
               'x-amz-security-token': session_token}
    signed = ';'.join(sorted(headers))
    canonical = '\n'.join(['PUT', path, '', ''.join(f'{k}:{headers[k].strip()}\n' for k in sorted(headers)),
                           signed, payload_hash])
    scope = f'{date_stamp}/{region}/s3/aws4_request'
    to_sign = '\n'.join(['AWS4-HMAC-SHA256', amz_date, scope, _sha256_hex(canonical.encode('utf-8'))])
    signature = hmac.new(_derive_signing_key(secret_key, date_stamp, region), to_sign.encode('utf-8'),
                         hashlib.sha256).hexdigest()
    request = Request(endpoint + path, data=body, method='PUT')
    request.add_header('Host', host)
    request.add_header('Authorization', f'AWS4-HMAC-SHA256 Credential={access_key}/{scope}, '
                                        f'SignedHeaders={signed}, Signature={signature}')
    request.add_header('x-amz-date', amz_date)
    request.add_header('x-amz-security-token', session_token)
    request.add_header('x-amz-content-sha256', payload_hash)
    request.add_header('Content-Length', str(len(body)))
    logger.debug('S3 PUT %s (%d bytes)', s3_uri, len(body))
    try:
        with urlopen(request, timeout=timeout) as answer:
            if answer.status not in (200, 201):
                raise RuntimeError(f'S3 upload failed with status {answer.status}')
    except HTTPError as error:
        text = error.read(_MAX_ERROR_TEXT).decode('utf-8', errors='replace')
        raise RuntimeError(f'S3 upload failed with status {error.code}: {text}') from error
    return s3_uri


def put_object_with_sts(*, s3_uri: str, file_path: Path, access_key: str, secret_key: str, session_token: str,
                        region: str, timeout: int = DEFAULT_UPLOAD_TIMEOUT) -> str:
    """put_bytes_with_sts() of the file file_path's bytes."""
    return put_bytes_with_sts(s3_uri=s3_uri, body=Path(file_path).read_bytes(), access_key=access_key,
                              secret_key=secret_key, session_token=session_token, region=region, timeout=timeout)


def _build_arg_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description='Upload a local file to S3 using temporary STS credentials.')
    parser.add_argument('--s3-uri', required=True, help='Target S3 URI.')
    parser.add_argument('--file', required=True, type=Path, help='Local file path.')
    parser.add_argument('--access-key', required=True, help='STS access key ID.')
    parser.add_argument('--secret-key', required=True, help='STS secret access key.')
    parser.add_argument('--session-token', required=True, help='STS session token.')
    parser.add_argument('--region', required=True, help='AWS region for the target bucket.')
    return parser


def main() -> None:
    """0.5.0's command: put_object_with_sts() of its arguments."""
    args = _build_arg_parser().parse_args()
    uri = put_object_with_sts(s3_uri=args.s3_uri, file_path=args.file, access_key=args.access_key,
                              secret_key=args.secret_key, session_token=args.session_token, region=args.region)
    print(f'Uploaded {args.file} to {uri}')
