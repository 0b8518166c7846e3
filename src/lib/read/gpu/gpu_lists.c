/* gpu_lists.c - see gpu_lists.h. */
#include "read/gpu/gpu_lists.h"

#include "common/buf.h"

#include <stdlib.h>
#include <string.h>

/* pid's entry in procs[0..*n), added (zeroed) when missing; NULL when out
 * of memory. */
struct gpu_process *gpu_process_entry(struct gpu_process **procs, size_t *n, size_t *cap,
                                      pid_t pid)
{
    for (size_t i = 0; i < *n; i++)
        if ((*procs)[i].pid == pid)
            return &(*procs)[i];
    if (grow_array(procs, cap, *n + 1, sizeof **procs, 64) < 0)
        return NULL;
    struct gpu_process *p = &(*procs)[(*n)++];
    memset(p, 0, sizeof *p);
    p->pid = pid;
    return p;
}

int gpu_add_process(struct gpu_vendor *v, pid_t pid, int device, unsigned long long bytes,
                    double sm_percent)
{
    unsigned long long bit = device >= 0 && device < 64 ? 1ULL << device : 0;
    struct gpu_process *p = gpu_process_entry(&v->procs, &v->nprocs, &v->capprocs, pid);
    if (!p)
        return -1;
    p->bytes += bytes;
    p->sm_percent += sm_percent;
    if (bytes > 0)
        p->memory_devices |= bit;
    if (sm_percent > 0)
        p->busy_devices |= bit;
    if (sm_percent > 0 && bit) {
        struct gpu_proc_sm e = {.pid = pid, .device = device, .sm_percent = sm_percent};
        return gpu_append_proc_sm(&v->proc_sm, &v->nproc_sm, &v->capproc_sm, &e);
    }
    return 0;
}

int gpu_append_proc_sm(struct gpu_proc_sm **list, size_t *n, size_t *cap,
                       const struct gpu_proc_sm *e)
{
    if (grow_array(list, cap, *n + 1, sizeof **list, 64) < 0)
        return -1;
    (*list)[(*n)++] = *e;
    return 0;
}

/* Appends r to records[0..*n) (capacity *cap), its device moved by shift.
 * 0, or -1 when out of memory. */
int gpu_append_record(struct gpu_account_record **records, size_t *n, size_t *cap,
                      const struct gpu_account_record *r, int shift)
{
    if (grow_array(records, cap, *n + 1, sizeof **records, 16) < 0)
        return -1;
    (*records)[*n] = *r;
    (*records)[(*n)++].device += shift;
    return 0;
}

int gpu_add_record(struct gpu_vendor *v, const struct gpu_account_record *r)
{
    return gpu_append_record(&v->records, &v->nrecords, &v->caprecords, r, 0);
}

int gpu_energy_due(struct gpu_vendor *v, double now)
{
    int due = v->exact || (v->details && (v->energy_read_at == 0 ||
                                          now - v->energy_read_at >= GPU_ENERGY_PERIOD));
    if (due)
        v->energy_read_at = now;
    return due;
}
