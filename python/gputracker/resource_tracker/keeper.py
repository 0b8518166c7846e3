"""resource_tracker 0.5.0's ``resource_tracker.keeper``: the Spare Cores
Keeper API (prices and servers of the cloud vendors).

The address is ``endpoint`` when given, else ``GPU_TRACKER_KEEPER_URL``
(what the tracker's recommend_server() and the report ask too; the tests
point it at a server on 127.0.0.1), else https://keeper.sparecores.net.
Instance prices are the library's lookup (``gt_instance_price_at``, the
one the report's run cost uses); keeper_request() is the plain GET 0.5.0
has, with a bounded answer. As in 0.5.0, none of them raises: an answer
that cannot be had is None (an empty list for the servers)."""
from __future__ import annotations

import json
import os
from typing import Dict, List, Optional
from urllib.parse import urlencode, urljoin
from urllib.request import Request, urlopen

from .. import _native

DEFAULT_ENDPOINT = 'https://keeper.sparecores.net'
_MAX_ANSWER = 16 * 1024 * 1024

__all__ = ['keeper_request', 'get_instance_price', 'get_recommended_cloud_servers']


def _endpoint(endpoint: Optional[str] = None) -> str:
    return endpoint or os.environ.get('GPU_TRACKER_KEEPER_URL') or DEFAULT_ENDPOINT


def keeper_request(path: str, timeout: int = 2, endpoint: Optional[str] = None) -> Optional[dict]:
    """The JSON answer to GET endpoint + path (at most 16 MiB, within
    timeout seconds), or None when it cannot be had."""
    try:
        request = Request(urljoin(_endpoint(endpoint), path))
        request.add_header('X-Application-ID', 'gpu-tracker')
        with urlopen(request, timeout=timeout) as answer:
            data = answer.read(_MAX_ANSWER + 1)
        if len(data) > _MAX_ANSWER:
            return None
        return json.loads(data.decode('utf-8'))
    except Exception:  # noqa: BLE001 - 0.5.0's contract: None, never an error
        return None


def get_instance_price(vendor_id: str, region_id: str, instance_type: str) -> Optional[float]:
    """The on-demand Linux price (USD an hour) of instance_type at
    vendor_id in region_id, else in another region; None when there is
    none or it cannot be had."""
    try:
        price = _native.instance_price(str(vendor_id), str(region_id or ''), str(instance_type),
                                       os.environ.get('GPU_TRACKER_KEEPER_URL'))
    except (OSError, ValueError):
        return None
    return price if price > 0 else None


def get_recommended_cloud_servers(cpu: int, memory: int, gpu: Optional[int] = None, vram: Optional[int] = None,
                                  n: int = 10) -> List[Dict]:
    """The n cheapest servers with at least cpu vCPUs, memory MiB (asked in
    GiB, rounded), gpu GPUs and vram GiB of GPU memory, cheapest first;
    [] when they cannot be had."""
    params = {'vcpus_min': cpu, 'memory_min': round(memory / 1024), 'order_by': 'min_price_ondemand',
              'order_dir': 'asc', 'limit': n}
    if gpu and gpu > 0:
        params['gpu_min'] = gpu
    if vram and vram > 0:
        params['gpu_memory_total'] = vram
    servers = keeper_request(f'/servers?{urlencode(params)}')
    return servers if isinstance(servers, list) else []
