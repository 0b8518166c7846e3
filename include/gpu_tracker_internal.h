/*
 * gpu_tracker_internal.h - what the gpu-tracker command, the Python module,
 * the tests and the benchmark need of the library that is not part of its
 * interface: where a tracker reads the system from (fixture files instead
 * of the system's, a metadata address on loopback, the plain sampler the
 * benchmark compares us with) and the output-file helpers the command
 * writes its files with.
 *
 * Nothing here carries gpu_tracker.h's promise: it may change or go in any
 * release, the header is not installed, and none of these functions is
 * exported from libgputracker.so (GT_INTERNAL: hidden). Their users link
 * the library's objects (the build's internal static library
 * libgputracker_internal.a, or the Python module's own copy).
 */
#ifndef GPU_TRACKER_INTERNAL_H
#define GPU_TRACKER_INTERNAL_H

#include "gpu_tracker_tools.h"

#include <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Where a tracker reads the system from, and how: for the tests (fixture
 * trees instead of /proc and /sys, a metadata server on loopback) and for
 * the command's --sampled-only comparison. */
typedef struct gt_sources {
    /* Where procfs and sysfs are mounted (NULL: "/proc", "/sys"). */
    const char *proc_root;
    const char *sys_root;
    /* Base address of the cloud metadata services (NULL: the real ones,
     * 169.254.169.254 and metadata.google.internal). */
    const char *metadata_url;
    /* Non-zero: the figures a plain sampling tracker gets, for comparison:
     * peaks only from samples (no VmHWM or ru_maxrss floor), CPU only from
     * the changes seen between two samples of a live process (nothing of
     * what exited between samples, nothing of reaped children). */
    int sampled_only;
} gt_sources;

/* gt_tracker_new() reading from sources (NULL: the system's; the strings
 * are copied). */
GT_INTERNAL gt_status gt_tracker_new_from(const gt_options *opts, const gt_sources *sources,
                                          gt_tracker **out);

/* ---- One reading, now ----------------------------------------------------
 * The cumulative counters the process and system series are made of, read
 * once through a tracker's readers (the same tree walk, the same /proc and
 * /sys readers, the same GPU library) without tracking anything: what
 * resource_tracker's get_process_stats() and get_system_stats() return.
 * Each call opens the readers and closes them again (the GPU library's
 * start-up included), so it suits an occasional look, not a loop. */

/* A whole disk's bytes moved since boot (its sectors of 512 bytes). */
typedef struct gt_counters_disk {
    char name[64];
    unsigned long long read_bytes, write_bytes;
} gt_counters_disk;

/* A filesystem the disk-space figures count (each device once, as the
 * system series counts them), as df shows it. */
typedef struct gt_counters_space {
    char *mount;               /* where it is mounted */
    unsigned long long total_bytes, used_bytes, free_bytes;
} gt_counters_space;

typedef struct gt_counters {
    double timestamp;          /* seconds since the epoch */
    /* The process (opts.process_id, else the caller) and, unless
     * opts.main_only, its descendants: CPU since each started (with the
     * CPU of the children they reaped), PSS now, bytes moved at the
     * storage layer (with the reaped children's), GPU use now. */
    pid_t pid;
    long children;             /* live descendants (0 with main_only) */
    double user_seconds, system_seconds;
    unsigned long long pss_bytes;
    unsigned long long read_bytes, write_bytes;
    double gpu_usage;          /* GPUs' worth of SM time (0 .. GPU count) */
    double gpu_vram_mib;       /* GPU memory the processes hold */
    int gpu_utilized;          /* GPUs they keep busy */
    unsigned long long gpu_utilized_devices; /* bit d: device d is one */
    /* The system. */
    int system_ok;             /* /proc/stat and meminfo were read */
    long processes;
    double system_user_seconds;   /* user + nice, all CPUs, since boot */
    double system_system_seconds; /* system, all CPUs */
    /* /proc/meminfo's own figures (MemTotal, MemAvailable, MemFree,
     * Buffers, Cached, SReclaimable, Active, Inactive), each reader's
     * definition of "used" and "cached" made from them. */
    unsigned long long mem_total_kb, mem_available_kb, mem_free_kb, mem_buffers_kb,
        mem_cached_kb, mem_sreclaimable_kb, mem_active_kb, mem_inactive_kb;
    size_t ndisks;
    gt_counters_disk *disks;
    size_t nspaces;
    gt_counters_space *spaces;
    unsigned long long net_recv_bytes, net_sent_bytes; /* interfaces with a device */
    double system_gpu_usage, system_gpu_vram_mib;
    int system_gpu_utilized;
    char gpu_reason[256];      /* why there are no GPU figures ("" if there are) */
} gt_counters;

/* Reads the counters of opts' process (its tree unless main_only; the GPU
 * options choose the GPUs as a tracker's would) and of the system, from
 * sources (NULL: the system's) into *out (free with gt_counters_free()).
 * GT_ERR_NO_PROCESS when there is no such process, the failures of
 * gt_tracker_new() otherwise, with gt_last_error() saying why. A part
 * that cannot be read is left at zero (system_ok, gpu_reason say which). */
GT_INTERNAL gt_status gt_counters_read(const gt_options *opts, const gt_sources *sources,
                                       gt_counters **out);
GT_INTERNAL void gt_counters_free(gt_counters *c);

/* The calling thread counted as one of the library's until
 * gt_library_thread_leave() (by the same thread, before it ends): a
 * tracker of this process leaves its CPU time and its count out of the
 * figures, as for the library's own threads. For work done on the
 * tracker's behalf in a thread the caller starts (the Python Tracker's
 * reading of PyTorch's allocator). 0, or ENOMEM (not counted as the
 * library's then). */
GT_INTERNAL int gt_library_thread_enter(void);
GT_INTERNAL void gt_library_thread_leave(void);

/* The i-th valid value of an option that takes names (NULL past the last):
 * the one list the Python package checks its arguments against too. */
typedef enum gt_option_list {
    GT_OPTION_RAM_UNITS,  /* ram_unit, gpu_ram_unit: bytes ... terabytes */
    GT_OPTION_TIME_UNITS, /* time_unit: seconds ... days */
    GT_OPTION_GPU_BRANDS  /* gpu_brand: nvidia, amd, intel, drm */
} gt_option_list;
GT_INTERNAL const char *gt_option_name(gt_option_list list, size_t i);


#ifdef __cplusplus
}
#endif
#endif /* GPU_TRACKER_INTERNAL_H */
