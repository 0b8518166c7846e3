"""The results, as gpu_tracker's dataclasses (same names, fields, order and
defaults), so that dataclasses.asdict() of them is gpu_tracker's to_json()."""
from __future__ import annotations

import dataclasses as dclass


@dclass.dataclass
class RSSValues:
    """Resident set size: total = private + shared."""
    total_rss: float = 0.
    private_rss: float = 0.
    shared_rss: float = 0.


@dclass.dataclass
class MaxRAM:
    """The maximum RAM used while tracking, in unit."""
    unit: str
    system_capacity: float
    system: float = 0.
    main: RSSValues = dclass.field(default_factory=RSSValues)
    descendants: RSSValues = dclass.field(default_factory=RSSValues)
    combined: RSSValues = dclass.field(default_factory=RSSValues)


@dclass.dataclass
class MaxGPURAM:
    """The maximum GPU RAM used while tracking, in unit."""
    unit: str
    system_capacity: float
    system: float = 0.
    main: float = 0.
    descendants: float = 0.
    combined: float = 0.


@dclass.dataclass
class ProcessingUnitPercentages:
    """Utilization of one or more processing units: max and mean, summed over
    the units and divided by their number (hardware)."""
    max_sum_percent: float = 0.
    max_hardware_percent: float = 0.
    mean_sum_percent: float = 0.
    mean_hardware_percent: float = 0.


@dclass.dataclass
class CPUUtilization:
    """Core counts, CPU utilization and the largest thread counts."""
    system_core_count: int
    n_expected_cores: int
    system: ProcessingUnitPercentages = dclass.field(default_factory=ProcessingUnitPercentages)
    main: ProcessingUnitPercentages = dclass.field(default_factory=ProcessingUnitPercentages)
    descendants: ProcessingUnitPercentages = dclass.field(default_factory=ProcessingUnitPercentages)
    combined: ProcessingUnitPercentages = dclass.field(default_factory=ProcessingUnitPercentages)
    main_n_threads: int = 0
    descendants_n_threads: int = 0
    combined_n_threads: int = 0


@dclass.dataclass
class GPUUtilization:
    """GPU counts and the utilization of the GPUs tracked."""
    system_gpu_count: int
    n_expected_gpus: int
    gpu_percentages: ProcessingUnitPercentages = dclass.field(default_factory=ProcessingUnitPercentages)


@dclass.dataclass
class ComputeTime:
    """The real time spent tracking, in unit."""
    unit: str
    time: float = 0.


@dclass.dataclass
class ResourceUsage:
    """What the job used: gpu_tracker's five sections."""
    max_ram: MaxRAM
    max_gpu_ram: MaxGPURAM
    cpu_utilization: CPUUtilization
    gpu_utilization: GPUUtilization
    compute_time: ComputeTime

    @staticmethod
    def from_dict(document: dict) -> ResourceUsage:
        """The dataclasses of a to_json() document (gpu_tracker's or ours;
        sections beyond gpu_tracker's five are left out)."""
        ram, gram = document['max_ram'], document['max_gpu_ram']
        cpu, gpu = document['cpu_utilization'], document['gpu_utilization']

        def percentages(section):
            return ProcessingUnitPercentages(**section)

        return ResourceUsage(
            max_ram=MaxRAM(unit=ram['unit'], system_capacity=ram['system_capacity'], system=ram['system'],
                           main=RSSValues(**ram['main']), descendants=RSSValues(**ram['descendants']),
                           combined=RSSValues(**ram['combined'])),
            max_gpu_ram=MaxGPURAM(**gram),
            cpu_utilization=CPUUtilization(
                system_core_count=cpu['system_core_count'], n_expected_cores=cpu['n_expected_cores'],
                system=percentages(cpu['system']), main=percentages(cpu['main']),
                descendants=percentages(cpu['descendants']), combined=percentages(cpu['combined']),
                main_n_threads=cpu['main_n_threads'], descendants_n_threads=cpu['descendants_n_threads'],
                combined_n_threads=cpu['combined_n_threads']),
            gpu_utilization=GPUUtilization(
                system_gpu_count=gpu['system_gpu_count'], n_expected_gpus=gpu['n_expected_gpus'],
                gpu_percentages=percentages(gpu['gpu_percentages'])),
            compute_time=ComputeTime(**document['compute_time']))
