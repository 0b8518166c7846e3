/* gpu_lists.h - the growable lists of a GPU sample (processes and
 * accounting records), filled by the backends and merged by gpu.c, and
 * the cadence rule the backends share (gpu_energy_due): below both, so
 * that neither calls the other back. */
#ifndef GT_GPU_LISTS_H
#define GT_GPU_LISTS_H

#include "read/gpu/gpu.h"

/* For backends: adds bytes and SM percent on device (its index in v, or -1
 * when unknown) to pid's entry in v->procs, and a positive SM percent on a
 * known device to v->proc_sm. 0, or -1 when out of memory. */
int gpu_add_process(struct gpu_vendor *v, pid_t pid, int device, unsigned long long bytes,
                    double sm_percent);

/* Appends e to list[0..*n) (capacity *cap). 0, or -1 when out of memory. */
int gpu_append_proc_sm(struct gpu_proc_sm **list, size_t *n, size_t *cap,
                       const struct gpu_proc_sm *e);

/* For backends: appends an accounting record (device: its index in v) to
 * v->records. 0, or -1 when out of memory. */
int gpu_add_record(struct gpu_vendor *v, const struct gpu_account_record *r);

/* pid's entry in procs[0..*n) (capacity *cap), added zeroed when missing;
 * NULL when out of memory. */
struct gpu_process *gpu_process_entry(struct gpu_process **procs, size_t *n, size_t *cap,
                                      pid_t pid);

/* Appends r to records[0..*n) (capacity *cap), its device moved by shift.
 * 0, or -1 when out of memory. */
int gpu_append_record(struct gpu_account_record **records, size_t *n, size_t *cap,
                      const struct gpu_account_record *r, int shift);

/* How often a backend reads an energy counter between the first and last
 * samples when details are asked for (a series or the exporter shows the
 * energy so far); without, the run's energy is last minus first. */
#define GPU_ENERGY_PERIOD 10.0

/* For a backend's sample: whether its energy counters are to be read now
 * (v->exact, or v->details and GPU_ENERGY_PERIOD seconds since the last
 * read, now being monotonic); a yes is noted as the last read. */
int gpu_energy_due(struct gpu_vendor *v, double now);

#endif
