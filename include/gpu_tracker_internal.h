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

/* ---- Output files --------------------------------------------------------
 * Every file the library writes follows these rules (docs/cli.md, "Output
 * files"), made for a program run as root on shared machines:
 *  - a symbolic link is followed only when it belongs to you or to root; a
 *    link someone else planted is an error, never a way to replace a file
 *    elsewhere (/dev/stdout and /dev/fd/N are opened and appended to);
 *  - a name another user made (not you, not root, not the directory's
 *    owner) in a directory others may write to (/tmp) is never opened: a
 *    check refuses it, and a write replaces it with a new file of yours;
 *  - a new file gets mode 0666 less the umask; an existing regular file is
 *    replaced atomically and keeps its mode, owner and group; one with other
 *    hard links is written in place when it is yours, in a directory no one
 *    else may write to (otherwise a new file takes its name); a FIFO or a
 *    device is written in place, never replaced, after a check that it is
 *    the one that was resolved;
 *  - a write whose name is taken by a directory, or that may not replace
 *    what is there, is kept beside it as NAME.saved-XXXXXXXXXXXX and the
 *    error (GT_ERR_IO) says where.
 * The gpu-tracker command and the Python module write their own outputs
 * through these; they are not exported from libgputracker.so. */

/* Resolves path now, checks it as gt_output_check() does, and keeps its
 * directory open: until gt_output_release(path), every write of the library
 * to path (the same string: gt_output_write, gt_usage_write_file, the
 * snapshot and report writers, ...) goes into that directory under the name
 * resolved now, whatever happens meanwhile to the directories on the way
 * (a link or a directory planted during a run). Holding a held path again
 * resolves it again. Thread-safe. GT_ERR_IO with the reason, as
 * gt_output_check(). */
GT_INTERNAL gt_status gt_output_hold(const char *path);

/* The calling thread counted as one of the library's until
 * gt_library_thread_leave() (by the same thread, before it ends): a
 * tracker of this process leaves its CPU time and its count out of the
 * figures, as for the library's own threads. For work done on the
 * tracker's behalf in a thread the caller starts (the Python Tracker's
 * reading of PyTorch's allocator). 0, or ENOMEM (not counted as the
 * library's then). */
GT_INTERNAL int gt_library_thread_enter(void);
GT_INTERNAL void gt_library_thread_leave(void);

/* Forgets gt_output_hold(path); path unheld: nothing. */
GT_INTERNAL void gt_output_release(const char *path);

/* Checks that path could be written, creating and changing nothing (a FIFO
 * is not even opened). GT_ERR_IO with the reason in gt_last_error(). */
GT_INTERNAL gt_status gt_output_check(const char *path);

/* Opens path for writing a stream (a CSV written row by row): created, or
 * emptied in place (keeping its mode and owner); close-on-exec. A FIFO's
 * open waits for a reader. GT_ERR_IO with the reason. */
GT_INTERNAL gt_status gt_output_open(const char *path, int *fd);

/* 1 when writing to a and to b would write one file (the same name once
 * links are followed, or two names of one file): two outputs must not be
 * given the same path. 0 otherwise, or when either cannot be resolved
 * (gt_output_check() then says why). */
GT_INTERNAL int gt_output_same(const char *a, const char *b);

/* Writes len bytes of data to path under the rules above, atomically: a
 * failure leaves an existing file as it was. GT_ERR_IO with the reason. */
GT_INTERNAL gt_status gt_output_write(const char *path, const void *data, size_t len);

/* The file now at an output's name (held or resolved as gt_output_write
 * would: the name itself never followed), for a writer that adds to it (a
 * benchmark file gets a row): *data (malloc'd, NUL-terminated after *len
 * bytes) or NULL when nothing there is to be kept: no file; a symbolic link
 * put at the name (*replaced 1: the write replaces it, never follows it);
 * another user's file in a directory others may write to (*replaced 1).
 * GT_ERR_IO when it cannot be read (a directory, a FIFO, more than max
 * bytes), GT_ERR_NO_MEMORY. */
GT_INTERNAL gt_status gt_output_read(const char *path, size_t max, const char *what,
                                     char **data, size_t *len, int *replaced);

/* Reads the regular file path whole, as the library reads what strangers
 * give it: a FIFO or a directory is an error (never a wait), and a file of
 * more than max bytes is refused with the limit in the message. *data is
 * malloc'd and NUL-terminated after *len bytes (len may be NULL). what
 * names the file in messages ("config file"). GT_ERR_IO, GT_ERR_NO_MEMORY. */
GT_INTERNAL gt_status gt_file_read(const char *path, size_t max, const char *what, char **data,
                              size_t *len);

/* Opens path to read as gt_file_read() reads it (no link of another user's
 * followed, only a regular file, looked at before it is opened): *fd
 * (O_RDONLY, close-on-exec), for a reader that parses from a descriptor.
 * what names the file in messages ("tracking file"; NULL: none).
 * GT_ERR_IO with the reason, GT_ERR_NO_MEMORY. */
GT_INTERNAL gt_status gt_file_open(const char *path, const char *what, int *fd);

/* gt_file_read() of a file whose contents are trusted (the options of a
 * program run as root): it must also be owned by the effective user or
 * root and writable by no one else; GT_ERR_IO with the reason otherwise. */
GT_INTERNAL gt_status gt_file_read_private(const char *path, size_t max, const char *what,
                                           char **data, size_t *len);

/* For a run as root (or set-user-ID): whether it may use what a variable
 * of its caller's environment names. gt_library_trusted: path is absolute,
 * a regular file owned by root (or the effective user) and writable by no
 * one else, every directory on the way as the config file's
 * (gt_file_read_private). gt_tree_trusted: path is a directory under the
 * same rules, and either a procfs or sysfs mount or a tree (100000
 * entries at most) whose directories, itself included, are root's and
 * writable by no one else (not even sticky), whose links are root's and stay inside it, and which holds no
 * FIFO, device or socket: nothing in it can be changed by another user or
 * make a read wait. GT_OK, or GT_ERR_IO / GT_ERR_INVALID_ARGUMENT with a
 * one-line reason naming what (the variable) and the first thing wrong. */
GT_INTERNAL gt_status gt_library_trusted(const char *path, const char *what);
GT_INTERNAL gt_status gt_tree_trusted(const char *path, const char *what);
/* gt_dir_trusted: path is a directory under those rules (no walk below
 * it): one whose entries no one but root (or the effective user) can
 * change, where a sticky one such as /tmp counts. */
GT_INTERNAL gt_status gt_dir_trusted(const char *path, const char *what);

/* A size ("500MB", "2GiB") and a duration ("90", "1h30m", "1:30:00") as
 * the limits take them (common/units.h says what is valid): 0, or -1 with a
 * one-line reason in err. */
GT_INTERNAL int gt_parse_size(const char *text, double *bytes, char *err, size_t errcap);
GT_INTERNAL int gt_parse_duration(const char *text, double *seconds, char *err, size_t errcap);

/* A number as a person types it (decimal: "0x10", "inf" and "nan" are not
 * numbers), the whole of text: 0 and *out, or -1. */
GT_INTERNAL int gt_parse_decimal(const char *text, double *out);

/* Bytes per unit of a RAM unit name ("megabytes": 1e6) and seconds per
 * unit of a time unit name ("hours": 3600); 0 for a name not valid. */
GT_INTERNAL double gt_ram_unit_bytes(const char *unit);
GT_INTERNAL double gt_time_unit_seconds(const char *unit);

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
