/* gpu.h - the vendor-neutral view of GPUs, with one backend per vendor
 * library (NVML for NVIDIA, ROCm SMI for AMD), each loaded with dlopen at run
 * time and never linked. */
#ifndef GT_GPU_H
#define GT_GPU_H

#include <stddef.h>
#include <sys/types.h>

#include "sample.h"



struct gpu_backend;

struct gpu {
    const struct gpu_backend *backend; /* NULL: no GPU figures (see reason) */
    void *lib;                         /* dlopen handle */
    void *state;                       /* the backend's */
    int ndevices, nselected;
    struct gpu_device devices[GPU_MAX_DEVICES];
    struct gpu_process *procs;
    size_t nprocs, capprocs;
    char reason[256];                  /* why there are no GPU figures */
    /* Why a figure beyond gpu_tracker's is missing ("" when it is there). */
    char proc_util_reason[256];        /* per-process utilization */
    char proc_memory_reason[256];      /* per-process memory */
    char energy_reason[256];           /* energy */
};

/* What gpu_open() found. */
enum gpu_open_result {
    GPU_AVAILABLE,   /* figures will come */
    GPU_UNAVAILABLE, /* no library, no device, init failed: g->reason says which */
    GPU_BAD_UUIDS,   /* uuids names a GPU that is not there: message in err */
};

/* Loads the library of brand (NULL: NVIDIA, then AMD), initializes it and
 * lists the devices; uuids (comma-separated, or NULL for all) selects those
 * whose utilization counts. GPU_TRACKER_NVML_LIBRARY / GPU_TRACKER_RSMI_LIBRARY
 * in the environment name a library file to load instead of the system's. */
enum gpu_open_result gpu_open(struct gpu *g, const char *brand, const char *uuids, char *err,
                              size_t errcap);

/* Samples every device. -1 with g->reason set when the library failed (the
 * caller stops asking); 0 otherwise. */
int gpu_sample(struct gpu *g, struct gpu_sample *s);

/* Shuts the library down and unloads it. Safe on a gpu never opened. */
void gpu_close(struct gpu *g);

/* Frees our memory of g without calling the library: for the copy of a gpu
 * in a child made by fork(), whose library state is the parent's. */
void gpu_forget(struct gpu *g);

/* For backends: adds bytes and SM percent on device (its index, or -1 when
 * unknown) to pid's entry in g->procs. */
int gpu_add_process(struct gpu *g, pid_t pid, int device, unsigned long long bytes,
                    double sm_percent);

/* A backend: a table of what gpu.c calls. */
struct gpu_backend {
    const char *brand;
    const char *library;  /* default file name for dlopen */
    const char *env;      /* environment variable naming another file */
    /* Resolves symbols, initializes, fills g->devices/ndevices. 0, or -1 with
     * g->reason set (the library is unusable). */
    int (*init)(struct gpu *g);
    /* Fills memory_used, util_sum_percent and g->procs. 0, or -1 with reason. */
    int (*sample)(struct gpu *g, struct gpu_sample *s);
    /* Shuts the library down (no memory freed). */
    void (*shutdown)(struct gpu *g);
    /* Frees the backend's buffers in g->state (no library call). */
    void (*release)(struct gpu *g);
};

extern const struct gpu_backend gpu_nvml_backend;
extern const struct gpu_backend gpu_rsmi_backend;

#endif
