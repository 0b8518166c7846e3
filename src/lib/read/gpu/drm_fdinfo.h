/* drm_fdinfo.h - the kernel's DRM client usage figures, as
 * /proc/<pid>/fdinfo/<fd> gives them for an open GPU device file (the
 * kernel's Documentation/gpu/drm-usage-stats.rst): the driver, the device,
 * the client, its memory per region and its engines' busy time. amdgpu,
 * i915, xe and other drivers write them with no vendor library. Pure. */
#ifndef GT_DRM_FDINFO_H
#define GT_DRM_FDINFO_H

#include <stddef.h>

#define DRM_NAME_LEN 32
#define DRM_MAX_ENGINES 16

/* One engine class's counters: busy nanoseconds (drm-engine-<name>), or
 * busy cycles over the GPU's cycles (xe: drm-cycles-<name>,
 * drm-total-cycles-<name>); capacity: how many engines of the class. */
struct drm_engine {
    char name[DRM_NAME_LEN];
    int has_ns, has_cycles;
    unsigned long long ns, cycles, total_cycles;
    unsigned capacity; /* at least 1 */
};

struct drm_fdinfo {
    char driver[DRM_NAME_LEN];    /* drm-driver; "" when not a DRM file */
    char pdev[DRM_NAME_LEN];      /* drm-pdev, the PCI address ("" if none) */
    int has_client_id;
    unsigned long long client_id; /* drm-client-id: one per open of the device */
    /* Resident bytes in the device's own memory (vram*, local*) and in
     * system memory the GPU maps (system*, gtt*); has_local: the file
     * names a device-memory region (a discrete GPU). drm-resident-<region>
     * where given, the older drm-memory-<region> otherwise. */
    int has_local;
    unsigned long long local_bytes, system_bytes;
    int nengines;
    struct drm_engine engines[DRM_MAX_ENGINES]; /* more classes: the first kept */
};

/* Parses text (the fdinfo file, len bytes, need not end in NUL) into *out.
 * Unknown keys are passed over; a value that is not a number is too. 1 when
 * it is a DRM client's (drm-driver given), 0 otherwise. */
int drm_fdinfo_parse(const char *text, size_t len, struct drm_fdinfo *out);

/* An engine's busy percent between two readings of the same client,
 * wall_ns apart: busy ns over wall time (or busy cycles over the GPU's
 * cycles), over its capacity; -1 when it cannot be told (no earlier
 * reading of the engine, a counter that went back, no time). */
double drm_engine_percent(const struct drm_engine *before, const struct drm_engine *after,
                          unsigned long long wall_ns);


#endif
