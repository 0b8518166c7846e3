"""gpu_tracker's Tracker over libgputracker: the same parameters, defaults,
validation, errors and states; the sampling runs in the library's own thread
(no second process, the GIL released while it samples)."""
from __future__ import annotations

import dataclasses as dclass
import enum
import json
import os

from . import _native
from ._usage import ResourceUsage


def _warn(message: str) -> None:
    # logging loads at the first warning, not with the package: most runs
    # have none, and a short script should not pay for it.
    import logging
    logging.getLogger(__name__).warning(message)


_CPU_PERCENT_INTERVAL = 0.1  # gpu_tracker's smallest sleep_time
_RAM_UNITS = _native.RAM_UNITS
_TIME_UNITS = _native.TIME_UNITS
# gpu_tracker's two, and the kernel's DRM figures (AMD or Intel with no vendor library)
_GPU_BRANDS = _native.GPU_BRANDS
_STOP_TIMEOUT_MAX = _native.STOP_TIMEOUT_MAX
# Bytes in each of gpu_tracker's units (decimal), for the summary's figures.
_UNIT_BYTES = {'bytes': 1, 'kilobytes': 1e3, 'megabytes': 1e6, 'gigabytes': 1e9, 'terabytes': 1e12}


def _gpus_found(gpu_brand: str | None) -> bool:
    """Whether the library finds a GPU (of gpu_brand, or any): a tracker
    started for the moment, which samples nothing and writes nothing."""
    probe = _native.Tracker(sleep_time=86400.0, resource_usage_file='', series=0, gpu_brand=gpu_brand,
                            disable_logs=True)
    probe.start()
    try:
        return probe.server_info()['gpu_count'] > 0
    finally:
        probe.stop()


def _limit(value, parse):
    """A limit keyword: None (none), a number (bytes or seconds) or a string
    the command's --max-ram / --max-time would take ("500MB", "1h30m")."""
    if value is None:
        return 0.0
    if isinstance(value, str):
        return parse(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f'invalid limit {value!r}: give a number above 0 or a string such as "500MB" or "1h30m"')
    return float(value)


def _validate_unit(unit, valid_units, unit_type):
    if unit not in valid_units:
        raise ValueError(f'"{unit}" is not a valid {unit_type} unit. Valid values are {", ".join(sorted(valid_units))}')


class Tracker:
    """Tracks the computational resources of a process and its descendants
    (the calling process by default) within a context manager or between
    start() and stop(), as gpu_tracker's Tracker does.

    Where it differs from gpu_tracker on purpose: the backup file
    (resource_usage_file) is JSON (gpu-tracker's format) rather than a pickle,
    and n_join_attempts * join_timeout is how long stop() waits for the
    sampling thread (there is no sub-process to join).

    Beyond gpu_tracker, keyword only: metrics_listen ("[ADDR:]PORT") serves
    the figures so far to Prometheus at /metrics while tracking, and
    metrics_textfile_dir writes them for node_exporter's textfile collector
    (docs/metrics.md); the metrics' labels carry the Slurm job and task
    this process runs in.

    :ivar ResourceUsage resource_usage: the results, after stop().
    """

    class State(enum.Enum):
        """The state of the Tracker."""
        NEW = 0
        STARTED = 1
        STOPPED = 2

    def __init__(
            self, sleep_time: float = 1.0, ram_unit: str = 'gigabytes', gpu_ram_unit: str = 'gigabytes',
            time_unit: str = 'hours', n_expected_cores: int = None, gpu_uuids: set[str] = None,
            disable_logs: bool = False, process_id: int = None, resource_usage_file: str | None = None,
            n_join_attempts: int = 5, join_timeout: float = 10.0, gpu_brand: str | None = None,
            tracking_file: str | None = None, overwrite: bool = False, *,
            metrics_listen: str | None = None, metrics_textfile_dir: str | None = None,
            max_ram: str | float | None = None, max_gpu_ram: str | float | None = None,
            max_time: str | float | None = None, max_cpu_time: str | float | None = None,
            on_limit: str = 'warn', kill_after: str | float = 5.0,
            carbon_intensity: float | None = None, pue: float | None = None):
        """
        :param sleep_time: The number of seconds to sleep in between usage-collection iterations
            (at least 0.1).
        :param ram_unit: One of 'bytes', 'kilobytes', 'megabytes', 'gigabytes', or 'terabytes'
            (decimal: a gigabyte is 10^9 bytes).
        :param gpu_ram_unit: One of 'bytes', 'kilobytes', 'megabytes', 'gigabytes', or 'terabytes'.
        :param time_unit: One of 'seconds', 'minutes', 'hours', or 'days'.
        :param n_expected_cores: The number of cores expected to be used (the denominator of the
            hardware percentages). Defaults to the CPUs this process may use (its CPU affinity and
            cgroup CPU quota), not the whole machine's.
        :param gpu_uuids: The UUIDs of the GPUs whose utilization is tracked. Defaults to all; looked
            at only where a GPU is found, as gpu_tracker does.
        :param disable_logs: If True, no warnings are logged.
        :param process_id: The process whose tree is tracked. Defaults to this process.
        :param resource_usage_file: The backup of the results so far, JSON (gpu-tracker's format).
            Defaults to .gpu-tracker_<uuid>.json in the working directory, removed at the end; ''
            keeps none.
        :param n_join_attempts: With join_timeout, how long stop() waits for the sampling thread:
            n_join_attempts * join_timeout seconds.
        :param join_timeout: See n_join_attempts.
        :param gpu_brand: 'nvidia' (NVML), 'amd' (ROCm SMI), 'intel' or 'drm' (the kernel's DRM
            figures). Defaults to every brand found, NVIDIA first.
        :param tracking_file: A .csv or .sqlite file that receives every sample, as gpu_tracker 5's
            tracking file.
        :param overwrite: Replace tracking_file if it exists.
        :param metrics_listen: "[ADDR:]PORT": serve the figures so far to Prometheus at /metrics
            while tracking (loopback unless an address is given).
        :param metrics_textfile_dir: A directory where the figures are written for node_exporter's
            textfile collector after every sample.
        :param max_ram: A limit on the tree's peak RAM: bytes, or a size such as "500MB" (10^6
            bytes) or "2GiB" (2^30); the kernel's high-water marks count.
        :param max_gpu_ram: A limit on the tree's peak GPU RAM, as max_ram.
        :param max_time: A limit on the wall time: seconds, or "90s", "1h30m", "1:30:00".
        :param max_cpu_time: A limit on the tree's CPU time, as max_time.
        :param on_limit: 'warn' (the default: log the breach and go on) or 'kill' (end the tree:
            SIGTERM, then SIGKILL kill_after later). stop() gives the breaches in tracker.limits.
        :param kill_after: Seconds (or a duration string) from SIGTERM to SIGKILL with 'kill'.
        :param carbon_intensity: Grams of CO2e per kWh of the electricity: the job's energy is also
            given as CO2e (tracker.energy). Nothing is looked up.
        :param pue: The data centre's power usage effectiveness for that figure (default 1).
        :raises ValueError: A value that is not valid, with what is.
        :raises FileExistsError: tracking_file exists and overwrite is False.
        :raises ProcessLookupError: process_id names no process.
        """
        if sleep_time < _CPU_PERCENT_INTERVAL:
            raise ValueError(
                f'Sleep time of {sleep_time} is invalid. Must be at least {_CPU_PERCENT_INTERVAL} seconds.')
        _validate_unit(ram_unit, _RAM_UNITS, 'RAM')
        _validate_unit(gpu_ram_unit, _RAM_UNITS, 'GPU RAM')
        _validate_unit(time_unit, _TIME_UNITS, 'time')
        if gpu_brand is not None and gpu_brand not in _GPU_BRANDS:
            raise ValueError(f'"{gpu_brand}" is not a valid GPU brand. Supported values are "nvidia", "amd", "intel" and "drm".')
        if gpu_uuids is not None and not _gpus_found(gpu_brand):
            # gpu_tracker looks at gpu_uuids only where it finds a GPU: on a
            # machine without one, any set (even an empty one) is accepted.
            if not disable_logs:
                _warn(f'gpu_uuids ignored: no GPU was found to select from ({len(gpu_uuids)} UUID'
                      f'{"" if len(gpu_uuids) == 1 else "s"} given).')
            gpu_uuids = None
        if gpu_uuids is not None and len(gpu_uuids) == 0:
            raise ValueError('gpu_uuids is not None but the set is empty. Please provide a set of at least one GPU UUID.')
        if tracking_file is not None and not tracking_file.endswith(('.csv', '.sqlite')):
            raise ValueError(
                f'Invalid file name: "{tracking_file}". Valid file extensions are ".csv" and ".sqlite".')
        if tracking_file is not None and os.path.lexists(tracking_file) and not overwrite:
            raise FileExistsError(
                f'File {tracking_file} already exists. Set overwrite to True to overwrite the existing file.')
        if n_join_attempts < 1:
            raise ValueError(f'n_join_attempts of {n_join_attempts} is invalid. Must be at least 1.')
        if join_timeout <= 0:
            raise ValueError(f'join_timeout of {join_timeout} is invalid. Must be more than 0 seconds.')
        if on_limit not in ('warn', 'kill'):
            raise ValueError(f'"{on_limit}" is not a valid on_limit. Supported values are "warn" and "kill".')
        self._disable_logs = bool(disable_logs)
        self._gpu_brand = gpu_brand
        # The allocator can be read only in the process that allocates: this
        # one, when it is the one tracked.
        self._reads_allocator = process_id is None or int(process_id) == os.getpid()
        self._allocator = None
        self._gpu_memory = None
        self._sleep_time = float(sleep_time)
        # The library checks the rest (a process that does not exist, an
        # expected core count below 1, a GPU UUID no GPU has) with messages
        # that name what is valid.
        self._native = _native.Tracker(
            sleep_time=float(sleep_time), ram_unit=ram_unit, gpu_ram_unit=gpu_ram_unit, time_unit=time_unit,
            n_expected_cores=0 if n_expected_cores is None else int(n_expected_cores),
            gpu_uuids=None if gpu_uuids is None else ','.join(sorted(gpu_uuids)),
            gpu_brand=gpu_brand, disable_logs=self._disable_logs,
            process_id=0 if process_id is None else int(process_id),
            resource_usage_file=resource_usage_file,
            tracking_file=tracking_file, overwrite=bool(overwrite),
            metrics_listen=None if metrics_listen is None else str(metrics_listen),
            metrics_textfile_dir=metrics_textfile_dir,
            max_ram=_limit(max_ram, _native.parse_size), max_gpu_ram=_limit(max_gpu_ram, _native.parse_size),
            max_time=_limit(max_time, _native.parse_duration),
            max_cpu_time=_limit(max_cpu_time, _native.parse_duration),
            on_limit=1 if on_limit == 'kill' else 0,
            kill_after=_limit(kill_after, _native.parse_duration),
            carbon_intensity=0.0 if carbon_intensity is None else float(carbon_intensity),
            pue=0.0 if pue is None else float(pue),
            stop_timeout=min(float(n_join_attempts) * float(join_timeout), _STOP_TIMEOUT_MAX))
        self._log_warnings()
        self.resource_usage = None
        #: After stop(): where the figures are bounds rather than exact, one
        #: sentence each (docs/metrics.md, "Corners"); empty for most runs.
        self.caveats = []
        self._limits = None
        self._energy = None
        self._who = {}
        self.n_join_attempts = n_join_attempts
        self.join_timeout = join_timeout
        self.state = Tracker.State.NEW

    def _log_warnings(self):
        for message in self._native.take_warnings():
            if not self._disable_logs:
                _warn(message)

    def __repr__(self):
        return f'State: {self.state.name}'

    def __enter__(self) -> Tracker:
        if self.state == Tracker.State.STARTED:
            raise RuntimeError('Cannot start tracking when tracking has already started.')
        elif self.state == Tracker.State.STOPPED:
            raise RuntimeError('Cannot start tracking when tracking has already stopped.')
        self._native.start()
        self.state = Tracker.State.STARTED
        if self._reads_allocator:
            from ._torch_memory import AllocatorWatch
            self._allocator = AllocatorWatch(self._sleep_time)
            self._allocator.start()
        self._log_warnings()
        # gpu_tracker warns when it finds no GPU to query (neither nvidia-smi
        # nor amd-smi works) and no brand was named; the library says it
        # only where a GPU was expected (the command's rule), so the notice
        # gpu_tracker's users know is given here.
        if not self._disable_logs and self._gpu_brand is None and self._native.server_info()['gpu_count'] == 0:
            _warn('No GPU was found (no NVIDIA, AMD or Intel GPU library or driver answered). '
                  'The GPU RAM and GPU utilization values will remain 0.0.')
        return self

    def __exit__(self, *_):
        if self.state == Tracker.State.NEW:
            raise RuntimeError('Cannot stop tracking when tracking has not started yet.')
        if self.state == Tracker.State.STOPPED:
            raise RuntimeError('Cannot stop tracking when tracking has already stopped.')
        if self._allocator is not None:
            self._allocator.stop()
        self._native.stop()
        self.state = Tracker.State.STOPPED
        self._log_warnings()
        # Where the figures are bounds, not exact (docs/metrics.md,
        # "Corners"): logged as warnings, as -f human prints them.
        self.caveats = self._native.caveats()
        if not self._disable_logs:
            for caveat in self.caveats:
                _warn(caveat)
        document = json.loads(self._native.usage_json())
        self.resource_usage = ResourceUsage.from_dict(document)
        self._limits = document.get('limits')
        self._energy = document.get('energy')
        self._who = {key: document.get(key) for key in ('at_peak', 'processes', 'gpu_idle')}
        if self._allocator is not None:
            gpu = document.get('max_gpu_ram') or {}
            divisor = _UNIT_BYTES.get(gpu.get('unit'), 0)
            self._gpu_memory = self._allocator.report(gpu.get('main', 0) * divisor or None)
            if self._gpu_memory and not self._disable_logs and (
                    self._gpu_memory['alloc_retries'] or self._gpu_memory['ooms']):
                _warn(f"GPU memory: {self._gpu_memory['summary']}")

    @property
    def gpu_memory(self) -> dict | None:
        """What PyTorch's CUDA caching allocator held, after stop(), when this
        process was tracked and had imported torch with CUDA initialised:
        tensors ("allocated") against what the allocator kept ("reserved") at
        its peak, the run's peaks, allocation retries and OOMs, beside the
        driver's peak for this process; "summary" says it in a sentence
        (docs/python.md, "GPU memory explained"). None otherwise."""
        if self.state != Tracker.State.STOPPED:
            raise RuntimeError('No GPU memory to explain before tracking completes (call stop() first)')
        return self._gpu_memory

    @property
    def energy(self) -> dict:
        """The job's energy after stop(): the JSON summary's "energy" section
        (GPU counters and the CPU's RAPL share, each with how it was obtained
        and its bounds; CO2e with carbon_intensity), docs/metrics.md."""
        if self.state != Tracker.State.STOPPED:
            raise RuntimeError('No energy to report before tracking completes (call stop() first)')
        return self._energy

    def _who_part(self, key: str, what: str):
        if self.state != Tracker.State.STOPPED:
            raise RuntimeError(f'No {what} to report before tracking completes (call stop() first)')
        return self._who.get(key)

    @property
    def at_peak(self) -> dict | None:
        """Who held the peaks after stop(): the JSON summary's "at_peak" section
        ("memory" and "gpu_memory": the processes that made up each peak, largest
        first, and the rest summed), docs/metrics.md; None when no sample saw one."""
        return self._who_part('at_peak', 'peak breakdown')

    @property
    def processes(self) -> dict | None:
        """The tracked processes grouped by command after stop(): the JSON
        summary's "processes" section (per command: processes, the most at once,
        CPU seconds, peak PSS together), docs/metrics.md."""
        return self._who_part('processes', 'processes')

    @property
    def gpu_idle(self) -> dict | None:
        """The GPUs the tracked processes held but left idle, a GPU request
        never used, and what the GPUs waited for ("waiting": saturated data
        workers or storage, docs/metrics.md), after stop(): the JSON summary's
        "gpu_idle" section; None when no GPU was held or given."""
        return self._who_part('gpu_idle', 'GPU idleness')

    @property
    def limits(self) -> dict | None:
        """The run's limits (max_ram, max_gpu_ram, max_time, max_cpu_time) after
        stop(): the JSON summary's "limits" section (docs/limits.md), with
        "breached" True when a figure passed its limit; None without limits."""
        if self.state != Tracker.State.STOPPED:
            raise RuntimeError('No limits to report before tracking completes (call stop() first)')
        return self._limits

    def start(self):
        """Begins tracking until stop() is called. Equivalent to entering the context manager."""
        self.__enter__()

    def stop(self):
        """Stops tracking. Equivalent to exiting the context manager."""
        self.__exit__()

    @property
    def metrics_address(self) -> str | None:
        """Where metrics_listen serves while tracking ("127.0.0.1:9101", the
        port a 0 got included); None when not serving."""
        return self._native.metrics_address()

    # gpu_tracker 1.x had the sections on the tracker itself (its first
    # tutorial reads tracker.max_ram): the same objects as resource_usage's.
    @property
    def max_ram(self):
        """The highest RAM of the tree (resource_usage.max_ram); AttributeError before stop()."""
        return self._section('max_ram')

    @property
    def max_gpu_ram(self):
        """The highest GPU RAM of the tree (resource_usage.max_gpu_ram); AttributeError before stop()."""
        return self._section('max_gpu_ram')

    @property
    def cpu_utilization(self):
        """CPU utilization and threads (resource_usage.cpu_utilization); AttributeError before stop()."""
        return self._section('cpu_utilization')

    @property
    def gpu_utilization(self):
        """GPU utilization (resource_usage.gpu_utilization); AttributeError before stop()."""
        return self._section('gpu_utilization')

    @property
    def compute_time(self):
        """The compute time (resource_usage.compute_time); AttributeError before stop()."""
        return self._section('compute_time')

    def _section(self, name):
        if self.resource_usage is None:
            raise AttributeError(f'{name}: no results before tracking completes (call stop() first)')
        return getattr(self.resource_usage, name)

    def __str__(self) -> str:
        """gpu_tracker's text of the results, byte for byte (the library's text writer)."""
        return _native.usage_text(json.dumps(self.to_json()))

    def to_json(self) -> dict[str, dict]:
        """The results as gpu_tracker's dictionary."""
        if self.resource_usage is None:
            raise RuntimeError(
                'Cannot display the tracker in string or JSON format before tracking completes. Exit the content manager or call the '
                'stop() method before calling to_json() or str()'
            )
        return dclass.asdict(self.resource_usage)
