"""resource_tracker 0.5.0's report module: ``Report`` (the HTML report, a
``str`` with ``browse()`` and ``save()``) and ``round_memory``."""
from typing import Union

from .._resource_tracker import Report

__all__ = ['Report', 'round_memory']


def round_memory(mib: Union[int, float]) -> int:
    """The memory size, in MiB, to ask for: 128, 256, 512, 1024 or 2048 MiB,
    whichever first holds mib, and above that mib rounded up to whole GiB
    (0.5.0's rule: round_memory(68) == 128, round_memory(3863) == 4096)."""
    for step in (128, 256, 512, 1024, 2048):
        if mib <= step:
            return step
    gib = mib / 1024
    return int(1024 * (gib // 1 + (1 if gib % 1 > 0 else 0)))
