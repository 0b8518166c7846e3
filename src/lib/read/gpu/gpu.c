/* gpu.c - loading every vendor's GPU library, their devices as one list,
 * sampling them together; UUID selection. */
#define _GNU_SOURCE
#include "read/gpu/gpu.h"
#include "read/gpu/gpu_lists.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct gpu_backend *const backends[] = {&gpu_nvml_backend, &gpu_rsmi_backend,
                                                     &gpu_drm_backend};

/* Marks the devices named in uuids; GPU_BAD_UUIDS when one is unknown or
 * the list is empty, with the available UUIDs in err. */
static enum gpu_open_result select_devices(struct gpu *g, const char *uuids, char *err,
                                           size_t errcap)
{
    for (int i = 0; i < g->ndevices; i++)
        g->devices[i].selected = uuids == NULL;
    g->nselected = uuids == NULL ? g->ndevices : 0;
    if (!uuids)
        return GPU_AVAILABLE;

    char available[1024] = "";
    for (int i = 0; i < g->ndevices; i++) {
        size_t used = strlen(available);
        snprintf(available + used, sizeof available - used, "%s%s", i ? ", " : "",
                 g->devices[i].uuid);
    }
    if (!*available)
        snprintf(available, sizeof available, "none");
    char *copy = strdup(uuids);
    if (!copy) {
        snprintf(err, errcap, "out of memory");
        return GPU_BAD_UUIDS;
    }
    int named = 0;
    for (char *save = NULL, *tok = strtok_r(copy, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ')
            tok++;
        size_t len = strlen(tok);
        while (len > 0 && tok[len - 1] == ' ')
            tok[--len] = '\0';
        if (!len)
            continue;
        named++;
        int found = 0;
        for (int i = 0; i < g->ndevices; i++)
            if (strcmp(g->devices[i].uuid, tok) == 0) {
                found = 1;
                if (!g->devices[i].selected)
                    g->nselected++;
                g->devices[i].selected = 1;
            }
        if (!found) {
            snprintf(err, errcap, "unknown GPU UUID '%s'; available GPUs: %s", tok, available);
            free(copy);
            return GPU_BAD_UUIDS;
        }
    }
    free(copy);
    if (!named) {
        snprintf(err, errcap, "no GPU UUID given; available GPUs: %s", available);
        return GPU_BAD_UUIDS;
    }
    return GPU_AVAILABLE;
}

/* The first non-empty reason among the vendors' (at offset within struct
 * gpu_vendor), named by brand when there is more than one vendor. */
static void first_reason(const struct gpu *g, size_t offset, char *out, size_t cap)
{
    out[0] = '\0';
    for (int i = 0; i < g->nvendors && !out[0]; i++) {
        const char *r = (const char *)g->vendors[i] + offset;
        if (r[0] && g->nvendors > 1)
            snprintf(out, cap, "%s: %.200s", g->vendors[i]->backend->brand, r);
        else if (r[0])
            snprintf(out, cap, "%s", r);
    }
}

/* The combined reasons, from the vendors' as of now (a backend may find a
 * figure missing only when it samples). */
static void gather_reasons(struct gpu *g)
{
    first_reason(g, offsetof(struct gpu_vendor, proc_util_reason), g->proc_util_reason,
                 sizeof g->proc_util_reason);
    first_reason(g, offsetof(struct gpu_vendor, proc_memory_reason), g->proc_memory_reason,
                 sizeof g->proc_memory_reason);
    first_reason(g, offsetof(struct gpu_vendor, energy_reason), g->energy_reason,
                 sizeof g->energy_reason);
    first_reason(g, offsetof(struct gpu_vendor, accounting_reason), g->accounting_reason,
                 sizeof g->accounting_reason);
    first_reason(g, offsetof(struct gpu_vendor, throttle_reason), g->throttle_reason,
                 sizeof g->throttle_reason);
    first_reason(g, offsetof(struct gpu_vendor, ecc_reason), g->ecc_reason,
                 sizeof g->ecc_reason);
    first_reason(g, offsetof(struct gpu_vendor, xid_reason), g->xid_reason,
                 sizeof g->xid_reason);
    first_reason(g, offsetof(struct gpu_vendor, mig_util_reason), g->mig_util_reason,
                 sizeof g->mig_util_reason);
    first_reason(g, offsetof(struct gpu_vendor, activity_reason), g->activity_reason,
                 sizeof g->activity_reason);
}

static void vendor_close(struct gpu_vendor *v)
{
    if (v->backend && v->backend->shutdown)
        v->backend->shutdown(v);
    if (v->lib)
        dlclose(v->lib);
}

static void vendor_forget(struct gpu_vendor *v)
{
    if (v->backend && v->backend->release)
        v->backend->release(v);
    free(v->procs);
    free(v->proc_sm);
    free(v->records);
    free(v->brand);
    free(v->proc_root);
    free(v->sys_root);
    free(v->state);
    free(v);
}

/* Opens backend b from file into a new vendor with room for capacity
 * devices (0: only to count them); *found: the devices it reported. The
 * vendor when it lists at least one device; NULL otherwise, with why in
 * failure (when failure is still empty). */
/* What every vendor is told before its init (vendor_open copies the
 * strings into the vendor). */
struct vendor_setting {
    const char *brand, *proc_root, *sys_root;
    int amd_taken;
    int broken; /* set when a library loaded but could not start */
};

static struct gpu_vendor *vendor_open(const struct gpu_backend *b, const char *file,
                                      struct vendor_setting *setting, int capacity, int *found,
                                      char *failure, size_t cap)
{
    *found = 0;
    void *lib = NULL;
    if (file && !(lib = dlopen(file, RTLD_NOW | RTLD_LOCAL)))
        return NULL;
    struct gpu_vendor *v = calloc(1, sizeof *v);
    if (!v) {
        if (lib)
            dlclose(lib);
        if (!*failure)
            snprintf(failure, cap, "out of memory");
        return NULL;
    }
    v->brand = setting->brand ? strdup(setting->brand) : NULL;
    v->proc_root = strdup(setting->proc_root);
    v->sys_root = strdup(setting->sys_root);
    v->amd_taken = setting->amd_taken;
    if ((setting->brand && !v->brand) || !v->proc_root || !v->sys_root) {
        if (!*failure)
            snprintf(failure, cap, "out of memory");
        if (lib)
            dlclose(lib);
        vendor_forget(v);
        return NULL;
    }
    v->lib = lib;
    v->backend = b;
    v->capacity = capacity;
    int ok = b->init(v) == 0;
    if (ok)
        *found = v->found;
    if (ok && v->ndevices > 0)
        return v;
    if (!*failure && !*found && file) { /* a backend with no library finding none: no failure */
        if (ok) {
            snprintf(failure, cap, "%.200s found no GPU", file ? file : b->brand);
        } else {
            snprintf(failure, cap, "%s", v->reason);
            setting->broken = 1;
        }
    }
    vendor_close(v);
    vendor_forget(v);
    return NULL;
}

/* The device files a vendor's kernel driver makes: NVML needs
 * /dev/nvidiactl, ROCm SMI the amdgpu driver's /dev/kfd; under WSL both
 * go through /dev/dxg. */
#define DRIVER_NODES "/dev/nvidiactl, /dev/kfd or /dev/dxg"

void gpu_config_probe_drivers(struct gpu_config *cfg)
{
    cfg->drivers = (access("/dev/nvidiactl", F_OK) == 0 ? GPU_DRIVER_NVIDIA : 0) |
                   (access("/dev/kfd", F_OK) == 0 ? GPU_DRIVER_AMD : 0) |
                   (access("/dev/dxg", F_OK) == 0 ? GPU_DRIVER_WSL : 0);
    cfg->drivers_known = 1;
}

static int driver_present(const struct gpu_backend *b, const struct gpu_config *cfg)
{
    unsigned drivers = cfg->drivers;
    if (!cfg->drivers_known) {
        struct gpu_config probed = *cfg;
        gpu_config_probe_drivers(&probed);
        drivers = probed.drivers;
    }
    unsigned vendor = b == &gpu_nvml_backend ? GPU_DRIVER_NVIDIA : GPU_DRIVER_AMD;
    return (drivers & (vendor | GPU_DRIVER_WSL)) != 0;
}

/* Whether backend b serves cfg's brand: every backend without one; the
 * kernel's DRM figures serve every brand but NVIDIA's, the backend keeping
 * the GPUs of the brand asked for. */
static int backend_wanted(const struct gpu_backend *b, const struct gpu_config *cfg)
{
    return !cfg->brand || !strcmp(cfg->brand, b->brand) ||
           (b == &gpu_drm_backend && strcmp(cfg->brand, "nvidia") != 0);
}

/* The vendor library file backend b would load under cfg, NULL for none
 * (a backend of kernel files, or the system's library without its driver). */
static const char *library_to_load(const struct gpu_backend *b, const struct gpu_config *cfg)
{
    const char *file = b == &gpu_nvml_backend   ? cfg->nvml_library
                       : b == &gpu_rsmi_backend ? cfg->rsmi_library
                                                : NULL;
    if (file && *file)
        return file;
    return b->library && driver_present(b, cfg) ? b->library : NULL;
}

int gpu_open_loads_library(const struct gpu_config *cfg)
{
    for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++) {
        const struct gpu_backend *b = backends[i];
        if (backend_wanted(b, cfg) && library_to_load(b, cfg))
            return 1;
    }
    return 0;
}

enum gpu_open_result gpu_open(struct gpu *g, const struct gpu_config *cfg, char *err,
                              size_t errcap)
{
    char tried[200] = "", failure[256] = "";
    memset(g, 0, sizeof *g);
    int found = 0, skipped = 0;
    /* Every vendor whose library works, NVIDIA's devices first; a library
     * that loads but cannot start (no driver, no GPU) is passed over. */
    struct vendor_setting setting = {
        .brand = cfg->brand, .proc_root = cfg->proc_root ? cfg->proc_root : "/proc",
        .sys_root = cfg->sys_root ? cfg->sys_root : "/sys",
    };
    for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++) {
        const struct gpu_backend *b = backends[i];
        if (!backend_wanted(b, cfg))
            continue;
        /* The system's library is of no use without its kernel driver: not
         * looked for (ld.so's search of every library directory is the
         * costliest part of a short run's start). */
        const char *file = library_to_load(b, cfg);
        if (!file && b->library) {
            skipped++;
            continue;
        }
        if (!file && b->present && !b->present(setting.sys_root))
            continue;
        if (file) {
            size_t used = strlen(tried);
            snprintf(tried + used, sizeof tried - used, "%s%.80s", used ? ", " : "", file);
        }
        int vendor_found;
        struct gpu_vendor *v = vendor_open(b, file, &setting, GPU_MAX_DEVICES - g->ndevices,
                                           &vendor_found, failure, sizeof failure);
        found += vendor_found; /* with no room left, a vendor is opened to count only */
        if (!v)
            continue;
        if (b == &gpu_rsmi_backend)
            setting.amd_taken = 1;
        g->needs_tree_pids |= v->needs_tree_pids;
        memcpy(&g->devices[g->ndevices], v->devices, (size_t)v->ndevices * sizeof v->devices[0]);
        g->ndevices += v->ndevices;
        g->vendors[g->nvendors++] = v;
    }
    if (found > g->ndevices)
        snprintf(g->left_out, sizeof g->left_out,
                 "%d GPUs found: only the first %d are tracked", found, g->ndevices);
    gather_reasons(g);
    if (g->nvendors) {
        enum gpu_open_result r = select_devices(g, cfg->uuids, err, errcap);
        if (r != GPU_AVAILABLE) {
            gpu_close(g);
            return r;
        }
        /* Each backend sums the utilization of its own selected devices. */
        for (int i = 0, at = 0; i < g->nvendors; at += g->vendors[i]->ndevices, i++)
            for (int d = 0; d < g->vendors[i]->ndevices; d++)
                g->vendors[i]->devices[d].selected = g->devices[at + d].selected;
        return GPU_AVAILABLE;
    }
    g->broken_library = setting.broken;
    if (*failure)
        snprintf(g->reason, sizeof g->reason, "%s", failure);
    else if (!*tried)
        snprintf(g->reason, sizeof g->reason, "no GPU driver found (no %s)", DRIVER_NODES);
    else
        snprintf(g->reason, sizeof g->reason, "no GPU library found (tried %s%s)", tried,
                 skipped ? "; no driver for the others" : "");
    /* With no GPU, any UUID named is unknown: select_devices says which. */
    return cfg->uuids ? select_devices(g, cfg->uuids, err, errcap) : GPU_UNAVAILABLE;
}

/* Adds vendor v's sample (its devices from index first on) to s, and its
 * processes to g->procs with their device bits moved to the whole list's
 * indices. -1 when out of memory. */
static int merge_vendor(struct gpu *g, const struct gpu_vendor *v, int first,
                        const struct gpu_sample *vs, struct gpu_sample *s)
{
    s->memory_used += vs->memory_used;
    s->util_sum_percent += vs->util_sum_percent;
    s->energy_mj += vs->energy_mj;
    s->proc_util_ok = s->proc_util_ok && vs->proc_util_ok;
    s->energy_ok = s->energy_ok && vs->energy_ok;
    for (int d = 0; d < v->ndevices; d++) {
        s->device_util[first + d] = vs->device_util[d];
        s->device_memory_used[first + d] = vs->device_memory_used[d];
        s->device_throttle[first + d] = vs->device_throttle[d];
        s->ecc_corrected[first + d] = vs->ecc_corrected[d];
        s->ecc_uncorrected[first + d] = vs->ecc_uncorrected[d];
        s->activity[first + d] = vs->activity[d];
        s->device_energy_mj[first + d] = vs->device_energy_mj[d];
    }
    s->throttle_read |= vs->throttle_read << first;
    s->proc_util_read |= vs->proc_util_read << first;
    s->device_energy_read |= vs->device_energy_read << first;
    for (size_t i = 0; i < v->nproc_sm; i++) {
        struct gpu_proc_sm e = v->proc_sm[i];
        e.device += first;
        if (gpu_append_proc_sm(&g->proc_sm, &g->nproc_sm, &g->capproc_sm, &e) < 0)
            return -1;
    }
    s->ecc_read |= vs->ecc_read << first;
    s->xid_events += vs->xid_events;
    if (vs->xid_events) {
        s->xid_last = vs->xid_last;
        s->xid_last_device = first + vs->xid_last_device;
    }
    s->accounting_read = s->accounting_read || vs->accounting_read;
    for (size_t i = 0; vs->accounting_read && i < v->nrecords; i++)
        if (gpu_append_record(&g->records, &g->nrecords, &g->caprecords, &v->records[i], first) < 0)
            return -1;
    for (size_t i = 0; i < v->nprocs; i++) {
        const struct gpu_process *vp = &v->procs[i];
        struct gpu_process *p = gpu_process_entry(&g->procs, &g->nprocs, &g->capprocs, vp->pid);
        if (!p)
            return -1;
        p->bytes += vp->bytes;
        p->sm_percent += vp->sm_percent;
        p->memory_devices |= vp->memory_devices << first;
        p->busy_devices |= vp->busy_devices << first;
    }
    return 0;
}

int gpu_sample(struct gpu *g, int exact, int details, const pid_t *tree_pids, size_t ntree_pids,
               struct gpu_sample *s)
{
    memset(s, 0, sizeof *s);
    if (!g->nvendors)
        return -1;
    for (int i = 0, first = 0; i < g->nvendors; first += g->vendors[i]->ndevices, i++) {
        g->vendors[i]->exact = exact;
        g->vendors[i]->details = details;
        g->vendors[i]->tree_pids = tree_pids;
        g->vendors[i]->ntree_pids = ntree_pids;
        g->vendors[i]->tree_devices = first < 64 ? g->tree_devices >> first : 0;
    }
    if (g->nvendors == 1) {
        /* The common case: the vendor's sample is the whole one, its
         * process list ours as it is (no merge, no lookups). */
        struct gpu_vendor *v = g->vendors[0];
        v->nprocs = v->nrecords = v->nproc_sm = 0;
        if (v->backend->sample(v, s) < 0) {
            snprintf(g->reason, sizeof g->reason, "%s", v->reason);
            return -1;
        }
        gather_reasons(g);
        s->procs = v->procs;
        s->nprocs = v->nprocs;
        s->proc_sm = v->proc_sm;
        s->nproc_sm = v->nproc_sm;
        s->records = v->records;
        s->nrecords = s->accounting_read ? v->nrecords : 0;
        return 0;
    }
    g->nprocs = g->nrecords = g->nproc_sm = 0;
    s->proc_util_ok = s->energy_ok = 1;
    struct gpu_sample vs;
    for (int i = 0, first = 0; i < g->nvendors; first += g->vendors[i]->ndevices, i++) {
        struct gpu_vendor *v = g->vendors[i];
        memset(&vs, 0, sizeof vs);
        v->nprocs = v->nrecords = v->nproc_sm = 0;
        if (v->backend->sample(v, &vs) < 0) {
            snprintf(g->reason, sizeof g->reason, "%s", v->reason);
            return -1;
        }
        if (merge_vendor(g, v, first, &vs, s) < 0) {
            snprintf(g->reason, sizeof g->reason, "out of memory for the GPU processes");
            return -1;
        }
    }
    gather_reasons(g);
    s->procs = g->procs;
    s->nprocs = g->nprocs;
    s->proc_sm = g->proc_sm;
    s->nproc_sm = g->nproc_sm;
    s->records = g->records;
    s->nrecords = g->nrecords;
    return 0;
}

void gpu_close(struct gpu *g)
{
    for (int i = 0; i < g->nvendors; i++)
        vendor_close(g->vendors[i]);
    gpu_forget(g);
}

void gpu_forget(struct gpu *g)
{
    for (int i = 0; i < g->nvendors; i++)
        vendor_forget(g->vendors[i]);
    g->nvendors = 0;
    free(g->procs);
    g->procs = NULL;
    g->nprocs = g->capprocs = 0;
    free(g->records);
    g->records = NULL;
    g->nrecords = g->caprecords = 0;
    free(g->proc_sm);
    g->proc_sm = NULL;
    g->nproc_sm = g->capproc_sm = 0;
}
