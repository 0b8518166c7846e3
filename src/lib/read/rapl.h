/* rapl.h - CPU package and DRAM energy from RAPL, through the powercap
 * sysfs (<sys_root>/class/powercap/intel-rapl:N, its subzones
 * intel-rapl:N:M; AMD's RAPL shows there too): each zone's energy_uj kept
 * open and re-read at each sample, its wrap at max_energy_range_uj
 * undone. The counters are per socket, not per job: the whole machine's
 * energy (docs/metrics.md, "CPU energy"). */
#ifndef GT_RAPL_H
#define GT_RAPL_H

#include "sample.h"

#define RAPL_MAX_ZONES 32
#define RAPL_REASON_LEN 256

struct rapl_zone {
    int fd;                         /* energy_uj */
    int dram;                       /* 1: a DRAM domain, 0: a package */
    unsigned long long range_uj;    /* max_energy_range_uj: where it wraps */
    unsigned long long last_uj;     /* the raw counter at the last read */
    unsigned long long total_uj;    /* accumulated since the open, wraps undone */
};

struct rapl_reader {
    int nzones;                     /* 0: none (reason says why) */
    int npackages, ndram;
    struct rapl_zone zones[RAPL_MAX_ZONES];
    char reason[RAPL_REASON_LEN];
};

/* Finds the package and DRAM zones under <sys_root>/class/powercap and
 * opens their counters. Never fails: r->nzones 0 and r->reason say why
 * there is nothing (no powercap zones, readable by root only). */
void rapl_open(struct rapl_reader *r, const char *sys_root);
void rapl_close(struct rapl_reader *r);
/* A reader with nothing open (closing it is safe). */
void rapl_init(struct rapl_reader *r);

/* Reads every zone into *out: the energy since rapl_open, in microjoules,
 * packages and DRAM summed. A counter read at least once a wrap period
 * (about 262 kJ on Intel: 40 minutes at 100 W) is exact; out->ok 0 when a
 * zone could not be read (then nothing of this sample counts). */
void rapl_read(struct rapl_reader *r, struct rapl_sample *out);

#endif
