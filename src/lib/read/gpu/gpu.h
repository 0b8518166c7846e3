/* gpu.h - the vendor-neutral view of GPUs, with one backend per vendor
 * library (NVML for NVIDIA, ROCm SMI for AMD), each loaded with dlopen at run
 * time and never linked. */
#ifndef GT_GPU_H
#define GT_GPU_H

#include <stddef.h>
#include <sys/types.h>

#include "sample.h"



struct gpu_backend;

/* One vendor's library and its devices: what a backend works on. */
struct gpu_vendor {
    const struct gpu_backend *backend;
    void *lib;                         /* dlopen handle */
    void *state;                       /* the backend's */
    int capacity;                      /* the most devices it may list (set by gpu.c) */
    int found;                         /* devices the library reported */
    int ndevices;                      /* devices listed: min(found, capacity) */
    struct gpu_device devices[GPU_MAX_DEVICES];
    struct gpu_process *procs;
    size_t nprocs, capprocs;
    char reason[256];                  /* why the library is unusable */
    char proc_util_reason[256];        /* per-process utilization missing */
    char proc_memory_reason[256];      /* per-process memory missing */
    char energy_reason[256];           /* energy missing */
    char accounting_reason[256];       /* per-process accounting missing */
    char throttle_reason[256];         /* clock throttle reasons missing */
    char ecc_reason[256];              /* ECC error counts missing */
    char xid_reason[256];              /* XID error events missing */
    char mig_util_reason[256];         /* MIG instances' utilization missing */
    char activity_reason[256];         /* activity counters (GPM) missing */
    struct gpu_proc_sm *proc_sm;       /* this sample's (gpu_add_process) */
    size_t nproc_sm, capproc_sm;
    struct gpu_account_record *records; /* this sample's, when read */
    size_t nrecords, caprecords;
    unsigned long long opened_us;      /* epoch microseconds at init */
    /* Set by gpu_open() before init (copies, the vendor's own): what the
     * user asked for (NULL: every brand), where procfs and sysfs are, and
     * whether another vendor's library already lists the AMD GPUs (ROCm
     * SMI). */
    char *brand, *proc_root, *sys_root;
    int amd_taken;
    /* Set by the backend's init: its sample() reads the tree's processes
     * itself (the kernel's DRM figures), so gpu_sample() must be given
     * their PIDs. */
    int needs_tree_pids;
    /* Set by gpu_sample(): the tracked tree's PIDs, when needs_tree_pids. */
    const pid_t *tree_pids;
    size_t ntree_pids;
    /* Set by gpu_sample() for the backend: this sample must read every
     * figure now (the baseline, the final one); otherwise a figure whose
     * call is slow and whose use is its value at the end (energy) may be
     * the one last read. */
    int exact;
    /* Set by gpu_sample() for the backend: read the figures a series or the
     * exporter shows each sample (per-process utilization, throttle
     * reasons, energy every few seconds); otherwise a sample makes only the
     * calls the summary cannot do without (docs/performance.md, "Tiers of
     * cadence"). Fixed for a run. */
    int details;
    /* Set by gpu_sample() for the backend: bit d, the tracked tree held
     * memory on device d at the previous sample. The figures the verdicts
     * need each sample (throttle reasons, per-process utilization) are
     * read on those devices, and on every device with details or exact. */
    unsigned long long tree_devices;
    double energy_read_at;             /* gpu_energy_due(): monotonic; 0: never */
};

#define GPU_MAX_VENDORS 3

/* Every vendor's GPUs as one list: devices[] holds vendor 0's, then vendor
 * 1's; a device's index is its place in that list. */
struct gpu {
    struct gpu_vendor *vendors[GPU_MAX_VENDORS];
    int nvendors;                      /* 0: no GPU figures (see reason) */
    int ndevices, nselected;
    struct gpu_device devices[GPU_MAX_DEVICES];
    struct gpu_process *procs;         /* every vendor's, merged by PID */
    size_t nprocs, capprocs;
    char reason[256];                  /* why there are no GPU figures */
    /* Why a figure beyond gpu_tracker's is missing ("" when it is there for
     * every vendor). */
    char proc_util_reason[256];        /* per-process utilization */
    char proc_memory_reason[256];      /* per-process memory */
    char energy_reason[256];           /* energy */
    char accounting_reason[256];       /* accounting records */
    char throttle_reason[256];         /* throttle reasons */
    char ecc_reason[256];              /* ECC error counts */
    char xid_reason[256];              /* XID events */
    char mig_util_reason[256];         /* MIG instances' utilization */
    char activity_reason[256];         /* activity counters (SM, tensor, DRAM) */
    struct gpu_proc_sm *proc_sm;       /* every vendor's, devices renumbered */
    size_t nproc_sm, capproc_sm;
    /* Set by the caller before gpu_sample(): bit d, the tree held memory on
     * device d at the previous sample (see gpu_vendor.tree_devices). */
    unsigned long long tree_devices;
    struct gpu_account_record *records; /* every vendor's, devices renumbered */
    size_t nrecords, caprecords;
    char left_out[256];                /* "": every GPU found is listed */
    int broken_library;                /* no GPU: a vendor's library loaded but could not
                                        * start (a driver missing or mismatched) */
    int needs_tree_pids;               /* a vendor wants tree_pids */
};

/* What gpu_open() found. */
enum gpu_open_result {
    GPU_AVAILABLE,   /* figures will come */
    GPU_UNAVAILABLE, /* no library, no device, init failed: g->reason says which */
    GPU_BAD_UUIDS,   /* uuids names a GPU that is not there: message in err */
};

/* Which libraries gpu_open() loads. */
struct gpu_config {
    const char *brand;          /* NULL: every vendor whose library works */
    const char *uuids;          /* comma-separated; NULL: all GPUs selected */
    const char *nvml_library;   /* NULL: the system's (backend->library) */
    const char *rsmi_library;
    const char *proc_root, *sys_root; /* NULL: "/proc", "/sys" */
    /* Which vendors' kernel drivers are there (GPU_DRIVER_*), once
     * gpu_config_probe_drivers() has looked (drivers_known): gpu_open and
     * gpu_open_loads_library then ask no more. 0: each looks itself. */
    int drivers_known;
    unsigned drivers;
};

enum { GPU_DRIVER_NVIDIA = 1, GPU_DRIVER_AMD = 2, GPU_DRIVER_WSL = 4 };

/* Looks for the vendors' driver device files once, into cfg. */
void gpu_config_probe_drivers(struct gpu_config *cfg);

/* Loads the library of every vendor cfg allows, initializes each and lists
 * their devices as one; uuids selects those whose utilization counts. More
 * GPUs than GPU_MAX_DEVICES: the first are listed, left_out says how many
 * were not. */
enum gpu_open_result gpu_open(struct gpu *g, const struct gpu_config *cfg, char *err,
                              size_t errcap);

/* Whether gpu_open(cfg) would load a vendor's library (whose init may hang
 * on a broken driver, so that it is run where it can be given up on); 0
 * when only the kernel's files would be read. */
int gpu_open_loads_library(const struct gpu_config *cfg);

/* Samples every device; exact: read every figure now (see
 * gpu_vendor.exact), for the baseline and the final sample; details: see
 * gpu_vendor.details (the same for every sample of a run); tree_pids: the
 * tracked tree's PIDs (read when g->needs_tree_pids). -1 with
 * g->reason set when the library failed (the caller stops asking); 0
 * otherwise. */
int gpu_sample(struct gpu *g, int exact, int details, const pid_t *tree_pids, size_t ntree_pids,
               struct gpu_sample *s);

/* Shuts the libraries down and unloads them. Safe on a gpu never opened,
 * and again. */
void gpu_close(struct gpu *g);

/* Frees our memory of g without calling the library: for the copy of a gpu
 * in a child made by fork(), whose library state is the parent's. */
void gpu_forget(struct gpu *g);

/* A backend: a table of what gpu.c calls. */
struct gpu_backend {
    const char *brand;
    const char *library;  /* default file name for dlopen; NULL: none (the
                             backend reads the kernel's files) */
    /* A backend without a library: 0 when sys_root shows that it can find
     * nothing (no vendor is made then); NULL: always looked at. */
    int (*present)(const char *sys_root);
    /* Resolves symbols, initializes, fills v->found, v->devices and
     * v->ndevices (at most v->capacity). 0, or -1 with v->reason set (the
     * library is unusable). */
    int (*init)(struct gpu_vendor *v);
    /* Fills s for v's devices (indices as in v->devices), v->procs and,
     * when s->accounting_read, v->records. 0, or -1 with v->reason set. */
    int (*sample)(struct gpu_vendor *v, struct gpu_sample *s);
    /* Shuts the library down (no memory freed). */
    void (*shutdown)(struct gpu_vendor *v);
    /* Frees the backend's buffers in v->state (no library call). */
    void (*release)(struct gpu_vendor *v);
};

extern const struct gpu_backend gpu_nvml_backend;
extern const struct gpu_backend gpu_rsmi_backend;
extern const struct gpu_backend gpu_drm_backend;

#endif
