"""resource_tracker 0.5.0's ``resource_tracker.dummy_workloads``: CPU
burners its docstring examples use (``cpu_single``, ``cpu_multi``)."""
from multiprocessing import Pool, cpu_count
from random import random
from time import time

__all__ = ['cpu_single', 'cpu_multi']


def cpu_single(duration: float = 1) -> None:
    """Keeps one core busy multiplying random numbers for duration seconds."""
    end = time() + duration
    while time() < end:
        random() * random()


def cpu_multi(duration: float = 1, ncores: int = cpu_count()) -> None:
    """Keeps ncores cores busy for duration seconds: cpu_single() in a pool
    of ncores processes (all logical cores by default)."""
    with Pool(ncores) as pool:
        pool.map(cpu_single, [duration] * ncores)
