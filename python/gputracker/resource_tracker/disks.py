"""The disk helpers resource_tracker 0.5.0 keeps in helpers.py: which block
devices are partitions, and ZFS pools' space. Their own module so that the
readers (tracker_psutil) and helpers.py, which picks a reader, both import
them and neither imports the other at load time; helpers re-exports them
under 0.5.0's names."""
import re
import subprocess
from contextlib import suppress
from functools import cache
from glob import glob
from typing import Dict

__all__ = ['is_partition', 'get_zfs_pools_space']


@cache
def is_partition(disk_name: str) -> bool:
    """Whether disk_name (sda1, nvme0n1p1, mmcblk0p1) names a partition of a
    disk listed in /sys/block rather than a whole disk."""
    if re.search(r'(sd[a-z]+|nvme\d+n\d+|mmcblk\d+)p?\d+$', disk_name):
        parents = [d.split('/')[-2] for d in glob('/sys/block/*/')]
        return any(disk_name.startswith(p) and disk_name != p for p in parents)
    return False


def get_zfs_pools_space() -> Dict[str, Dict[str, int]]:
    """{'zfs:POOL': {'total', 'used', 'free'}} in bytes from `zpool list`
    (waited on for 0.25 s at most), {} without ZFS."""
    disks: Dict[str, Dict[str, int]] = {}
    with suppress(OSError):
        proc = subprocess.Popen(['zpool', 'list', '-Hp', '-o', 'name,size,allocated,free'],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        try:
            out, _ = proc.communicate(timeout=0.25)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            return disks
        if proc.returncode == 0:
            for line in out.splitlines():
                parts = line.decode(errors='replace').split('\t')
                if len(parts) >= 4:
                    with suppress(ValueError):
                        disks[f'zfs:{parts[0]}'] = {'total': int(parts[1]), 'used': int(parts[2]),
                                                    'free': int(parts[3])}
    return disks
