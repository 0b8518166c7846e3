/* sample_reader.c - see sample_reader.h. */
#include "read/sample_reader.h"

#include "common/buf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/background.h"
#include "common/file_read.h"
#include "common/internal.h"

/* 1 when we run in a PID namespace other than the host's (a container): the
 * initial PID namespace always has inode 4026531836 (PROC_PID_INIT_INO).
 * Read through proc_root, so that a fixture tree can say either. */
static int in_pid_namespace(const char *proc_root)
{
    char link[64], path[4200];
    snprintf(path, sizeof path, "%s/self/ns/pid", proc_root);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0)
        return 0; /* cannot tell: assume the host's */
    link[n] = '\0';
    return strcmp(link, "pid:[4026531836]") != 0;
}

/* The PID that <proc_root>/self names, or 0 when there is no such link (a
 * fixture tree). A procfs mounted for another PID namespace (the host's
 * /proc inside `unshare --pid --fork`) names us by another number: every
 * PID in it is then someone else's. */
static pid_t procfs_self_pid(const char *proc_root)
{
    char path[4096], link[32];
    snprintf(path, sizeof path, "%s/self", proc_root);
    ssize_t n = readlink(path, link, sizeof link - 1);
    if (n <= 0)
        return 0;
    link[n] = '\0';
    char *end;
    long pid = strtol(link, &end, 10);
    return *end == '\0' && pid > 0 ? (pid_t)pid : 0;
}

/* Opening a GPU library runs its init (nvmlInit, rsmi_init), which can hang
 * for a long time on a GPU in a bad state: it runs as a background job. */
struct gpu_opener {
    char *brand, *uuids, *nvml_library, *rsmi_library, *proc_root, *sys_root;
    unsigned drivers; /* the caller's gpu_config_probe_drivers() */
    struct gpu gpu;
    enum gpu_open_result result;
    char err[512];
};

static void gpu_opener_free(struct gpu_opener *o)
{
    free(o->brand);
    free(o->uuids);
    free(o->nvml_library);
    free(o->rsmi_library);
    free(o->proc_root);
    free(o->sys_root);
    free(o);
}

static void gpu_opener_run(void *arg)
{
    struct gpu_opener *o = arg;
    struct gpu_config cfg = {o->brand,        o->uuids,     o->nvml_library,
                             o->rsmi_library, o->proc_root, o->sys_root, 1, o->drivers};
    o->result = gpu_open(&o->gpu, &cfg, o->err, sizeof o->err);
}

/* An opener given up on: its GPU is nobody's. */
static void gpu_opener_drop(void *arg)
{
    struct gpu_opener *o = arg;
    gpu_close(&o->gpu);
    gpu_opener_free(o);
}

/* gpu_open() into r->gpu, waiting at most timeout seconds. */
static enum gpu_open_result open_gpus(struct sample_reader *r, double timeout, char *err,
                                      size_t errcap)
{
    const char *uuids = r->cfg.gpu_uuids;
    struct gpu_config cfg = {r->cfg.gpu_brand, uuids, r->cfg.nvml_library, r->cfg.rsmi_library,
                             r->cfg.proc_root, r->cfg.sys_root, 0, 0};
    gpu_config_probe_drivers(&cfg); /* once, for the two calls below */
    /* Only the kernel's files to read (no vendor library to load): nothing
     * that can hang, no thread to start. */
    if (!gpu_open_loads_library(&cfg))
        return gpu_open(&r->gpu, &cfg, err, errcap);
    struct gpu_opener *o = calloc(1, sizeof *o);
    int failed = !o;
    if (o) {
        /* Copies: a job given up on outlives the caller's strings. */
        o->brand = dup_or_null(cfg.brand, &failed);
        o->uuids = dup_or_null(cfg.uuids, &failed);
        o->nvml_library = dup_or_null(cfg.nvml_library, &failed);
        o->rsmi_library = dup_or_null(cfg.rsmi_library, &failed);
        o->proc_root = dup_or_null(cfg.proc_root, &failed);
        o->sys_root = dup_or_null(cfg.sys_root, &failed);
        o->drivers = cfg.drivers;
    }
    struct background *job = failed ? NULL : background_start("gt:gpu-open", gpu_opener_run, o, gpu_opener_drop);
    if (!job) {
        if (o)
            gpu_opener_free(o);
        /* No thread to spare: open it here, hang or not. */
        return gpu_open(&r->gpu, &cfg, err, errcap);
    }
    if (!background_wait(job, timeout)) {
        memset(&r->gpu, 0, sizeof r->gpu);
        snprintf(r->gpu.reason, sizeof r->gpu.reason,
                 "the GPU library did not answer within %g s", timeout);
        r->gpu.broken_library = 1; /* a hung driver is worth a warning */
        if (uuids) {
            snprintf(err, errcap, "cannot check the GPU UUIDs: %s", r->gpu.reason);
            return GPU_BAD_UUIDS;
        }
        return GPU_UNAVAILABLE;
    }
    r->gpu = o->gpu; /* the opener's GPU is ours now */
    snprintf(err, errcap, "%s", o->err);
    enum gpu_open_result result = o->result;
    gpu_opener_free(o);
    return result;
}


/* Descriptors at -1 so that closing a reader whose open failed half-way is
 * safe. */
void sample_reader_init(struct sample_reader *r)
{
    memset(r, 0, sizeof *r);
    r->tree.root_fd = -1;
    r->sys.stat_fd = r->sys.meminfo_fd = -1;
    r->sysx.sys_block_fd = r->sysx.sys_net_fd = r->sysx.diskstats_fd = r->sysx.netdev_fd = -1;
    cgroup_reader_init(&r->cg);
    rapl_init(&r->rapl);
}

gt_status sample_reader_open(struct sample_reader *r, const struct sample_reader_config *cfg,
                             struct warn_channel *w)
{
    sample_reader_init(r);
    r->cfg = *cfg;
    r->warn_channel = w;
    const char *root = cfg->proc_root;
    pid_t self_there = procfs_self_pid(root);
    if (self_there > 0 && self_there != getpid())
        return error_set(GT_ERR_IO, "%s belongs to another PID namespace (%s/self is PID %d "
                         "there, but this process is PID %d here): its PIDs name other "
                         "processes; mount a procfs of this namespace (unshare --mount-proc) "
                         "or run outside it", root, root, (int)self_there, (int)getpid());
    const char *what = "";
    struct sys_cpu cpu;
    struct meminfo mem;
    if (system_open(&r->sys, root, &cpu, &mem, &what) < 0) {
        int e = errno;
        sample_reader_close(r);
        return error_set(status_of_errno(e) == GT_ERR_PARSE ? GT_ERR_PARSE : GT_ERR_IO,
                         "cannot read %s/%s: %s", root, what, errno_text(e));
    }
    r->ncpu = cpu.ncpu;
    r->mem_total_kb = mem.total_kb;
    if (tree_init(&r->tree, root, cfg->pid, cfg->reaper_pid, cfg->max_kept_files) < 0) {
        int e = errno;
        sample_reader_close(r);
        if (e == ENOENT || e == ESRCH)
            return error_set(GT_ERR_NO_PROCESS, "no process with PID %d", (int)cfg->pid);
        return error_set(GT_ERR_IO, "cannot open %s: %s", root, strerror(e));
    }
    r->tree.series = (cfg->series & GT_SERIES_PROCESS) != 0;
    r->tree.census_deferred = 1; /* sample_read(): after the GPU sample */
    r->tree.sampled_only = cfg->sampled_only != 0;
    r->tree.main_only = cfg->main_only != 0;
    /* Process CPU clocks name PIDs of our namespace: only a procfs whose
     * self is us (not a fixture, not another namespace's) matches them. */
    r->tree.run_clock = self_there == getpid();
    if (cfg->series & GT_SERIES_SYSTEM) {
        if (system_series_open(&r->sysx, root, cfg->sys_root) < 0) {
            sample_reader_close(r);
            return error_set(GT_ERR_NO_MEMORY, "out of memory");
        }
        r->extra_open = 1;
    }
    if (!cfg->cgroup)
        snprintf(r->cg.reason, sizeof r->cg.reason, "not read (a plain sampler's comparison run)");
    else if (cgroup_reader_open(&r->cg, root, cfg->sys_root, cfg->pid, cfg->ticks_per_second) < 0) {
        sample_reader_close(r);
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    }
    rapl_open(&r->rapl, cfg->sys_root);
    char gpu_err[512];
    enum gpu_open_result gr = open_gpus(r, cfg->gpu_open_timeout, gpu_err, sizeof gpu_err);
    if (gr == GPU_BAD_UUIDS) {
        sample_reader_close(r);
        return error_set(GT_ERR_INVALID_ARGUMENT, "%s", gpu_err);
    }
    snprintf(r->gpu_reason, sizeof r->gpu_reason, "%s", gr == GPU_AVAILABLE ? "" : r->gpu.reason);
    /* Only the GPUs' PIDs need it (results.c): none, no question asked. */
    r->in_pid_namespace = !r->gpu_reason[0] && in_pid_namespace(root);
    r->pid_translation = r->in_pid_namespace && r->gpu.ndevices > 0;
    for (int d = 0; d < r->gpu.ndevices; d++)
        if (r->gpu.devices[d].minor < 0)
            r->pid_translation = 0;
    return GT_OK;
}

/* Frees what both the owner and a fork()ed copy free. */
static void release(struct sample_reader *r)
{
    tree_free(&r->tree);
    system_close(&r->sys);
    if (r->extra_open)
        system_series_close(&r->sysx);
    system_series_sample_free(&r->extra);
    r->extra_open = 0;
    cgroup_reader_close(&r->cg);
    rapl_close(&r->rapl);
    free(r->holders);
    free(r->claims);
    free(r->tree_pids);
    r->holders = NULL;
    r->claims = NULL;
    r->tree_pids = NULL;
    r->capholders = r->capclaims = r->cap_tree_pids = 0;
}

/* pid's translation among claims[0..n): ours, or minus the host's. */
static pid_t translated(const struct gpu_claim *claims, size_t n, pid_t pid)
{
    for (size_t i = 0; i < n; i++)
        if (claims[i].host_pid == pid)
            return claims[i].ours ? claims[i].ours : -pid;
    return -pid;
}

/* Inside a PID namespace: the driver's (host) PIDs in s's processes and
 * accounting records replaced by ours where the GPUs' open device files
 * tell (gpu_pidmap.h), by minus the host's where not. */
static void translate_gpu_pids(struct sample_reader *r, const struct pid_roles *roles,
                               struct gpu_sample *s)
{
    s->pid_namespace = 1;
    if (s->nprocs == 0 && s->nrecords == 0)
        return;
    if (grow_array(&r->claims, &r->capclaims, s->nprocs, sizeof *r->claims, s->nprocs) < 0) {
        s->pids_untranslated = (unsigned)s->nprocs;
        for (size_t i = 0; i < s->nprocs; i++)
            s->procs[i].pid = -s->procs[i].pid;
        for (size_t i = 0; i < s->nproc_sm; i++)
            s->proc_sm[i].pid = -s->proc_sm[i].pid;
        return;
    }
    for (size_t i = 0; i < s->nprocs; i++) {
        r->claims[i].host_pid = s->procs[i].pid;
        r->claims[i].devices = s->procs[i].memory_devices | s->procs[i].busy_devices;
    }
    int minors[GPU_MAX_DEVICES];
    for (int d = 0; d < r->gpu.ndevices; d++)
        minors[d] = r->gpu.devices[d].minor;
    long nholders = s->nprocs ? gpu_holders_scan(r->cfg.proc_root,
                                                 minors, r->gpu.ndevices, roles, &r->holders,
                                                 &r->capholders)
                              : 0;
    size_t left = nholders < 0 ? s->nprocs
                               : gpu_pid_match(r->claims, s->nprocs, r->holders, (size_t)nholders);
    if (nholders < 0)
        for (size_t i = 0; i < s->nprocs; i++)
            r->claims[i].ours = 0;
    s->pids_untranslated = (unsigned)left;
    s->pids_translated = (unsigned)(s->nprocs - left);
    for (size_t i = 0; i < s->nrecords; i++)
        s->records[i].pid = translated(r->claims, s->nprocs, s->records[i].pid);
    for (size_t i = 0; i < s->nproc_sm; i++)
        s->proc_sm[i].pid = translated(r->claims, s->nprocs, s->proc_sm[i].pid);
    for (size_t i = 0; i < s->nprocs; i++)
        s->procs[i].pid = r->claims[i].ours ? r->claims[i].ours : -r->claims[i].host_pid;
}

/* The devices the tree's processes hold memory on or keep busy in s (bit
 * d: device d; every bit when one holds memory the driver does not place):
 * where the next sample reads the figures the verdicts need. */
static unsigned long long gpu_tree_devices(const struct gpu_sample *s, const struct pid_roles *roles)
{
    unsigned long long devices = 0;
    for (size_t i = 0; i < s->nprocs; i++) {
        const struct gpu_process *p = &s->procs[i];
        if (!pid_roles_get(roles, p->pid))
            continue;
        devices |= p->memory_devices | p->busy_devices;
        if (p->bytes > 0 && !p->memory_devices)
            devices = ~0ULL;
    }
    return devices;
}

void read_process_name(const char *proc_root, pid_t pid, char *out, size_t cap)
{
    char path[4096], buf[64];
    size_t len;
    out[0] = '\0';
    snprintf(path, sizeof path, "%s/%d/comm", proc_root, (int)pid);
    if (cap == 0 || file_read_at(AT_FDCWD, path, buf, sizeof buf, &len) < 0)
        return;
    buf[strcspn(buf, "\n")] = '\0';
    text_copy(out, cap, buf);
}

gt_status reader_open(struct sample_reader *r, const gt_options *o, const struct reader_place *at,
                      struct warn_channel *w)
{
    long tck = sysconf(_SC_CLK_TCK);
    struct sample_reader_config cfg = {
        .proc_root = at->proc_root,
        .sys_root = at->sys_root,
        .pid = at->pid,
        .reaper_pid = o->main_only ? 0 : o->reaper_pid, /* a reaper adopts descendants */
        .max_kept_files = o->max_kept_files,
        .self = at->self,
        .series = o->series,
        .sampled_only = at->sampled_only,
        .main_only = o->main_only,
        .gpu_brand = o->gpu_brand,
        .gpu_uuids = o->gpu_uuids,
        .nvml_library = o->nvml_library,
        .rsmi_library = o->rsmi_library,
        .gpu_open_timeout = o->stop_timeout,
        .cgroup = !at->sampled_only,
        /* What shows each sample's per-process GPU utilization and
         * throttle reasons: a series, the exporter, or the user asking. */
        .gpu_details = o->gpu_details || o->series || o->metrics_listen ||
                       o->metrics_textfile_dir,
        .ticks_per_second = tck > 0 ? (double)tck : 100.0,
    };
    return sample_reader_open(r, &cfg, w);
}

void sample_reader_close(struct sample_reader *r)
{
    gpu_close(&r->gpu);
    release(r);
    sample_reader_init(r);
}

void sample_reader_forget(struct sample_reader *r)
{
    gpu_forget(&r->gpu);
    release(r);
    sample_reader_init(r);
}

static double wall_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void sample_read(struct sample_reader *r, long slot, const struct read_plan *plan,
                 struct sample *s)
{
    r->tree.io = plan->io;
    const char *root = r->cfg.proc_root;
    memset(s, 0, sizeof *s);
    s->slot = slot;
    s->now = monotonic_now();
    s->wall = wall_now();
    const char *what = "";
    s->sys_ok = system_read(&r->sys, &s->cpu, &s->mem, &what) == 0;
    if (!s->sys_ok)
        warn_once(r->warn_channel, WARN_SYSTEM_UNREADABLE,
                  "cannot read %s/%s (%s); system-wide figures leave out the samples where it "
                  "fails", root, what, errno_text(errno));
    /* The group's member list before the walk: a process of the tree in it
     * is then in the walk too (cgroup.h). */
    int read_cgroup = r->cg.version && plan->cgroup;
    if (read_cgroup)
        cgroup_read_members(&r->cg, slot <= 0);
    r->tree.walk_time = s->now;
    s->tree_ok = tree_walk(&r->tree, &s->tree) == 0;
    s->tree_series = s->tree_ok && r->tree.series;
    s->tree_io = s->tree_ok && (r->tree.series || r->tree.io);
    if (!s->tree_ok)
        warn_once(r->warn_channel, WARN_TREE_WALK, "cannot walk the process tree of PID %d: %s",
                  (int)r->cfg.pid, strerror(errno));
    else
        tree_roles(&r->tree, &s->roles);
    if (r->tree.nunreadable)
        warn_once(r->warn_channel, WARN_TREE_PERMISSION,
                  "permission denied reading %s/%s (a process of another user?): what that "
                  "file holds is left out of the figures; run as its owner or root to count it",
                  root, r->tree.unreadable);
    if (r->tree.fd_exhausted)
        warn_once(r->warn_channel, WARN_TREE_DESCRIPTORS,
                  "too many open files: some processes of the tree are not counted (raise the "
                  "limit with ulimit -n)");
    s->self = r->cfg.self;
    if (s->self)
        library_threads_usage(&s->library, slot <= 0, s->tree_ok ? s->tree.main_threads : -1);
    /* The GPU's processes are matched to the tree this walk found; the
     * census of the walk waits for them (a process on a GPU is no worker,
     * from the walk that first finds it there). */
    if (s->tree_ok && r->gpu.nvendors && !r->gpu_failed) {
        /* The baseline and the final sample read every figure afresh. */
        long npids = r->gpu.needs_tree_pids
                         ? tree_pids(&r->tree, &r->tree_pids, &r->cap_tree_pids)
                         : 0;
        if (npids < 0)
            npids = 0; /* out of memory: no process of the tree this time */
        if (gpu_sample(&r->gpu, slot <= 0, r->cfg.gpu_details, r->tree_pids, (size_t)npids,
                       &s->gpu) == 0) {
            s->gpu_ok = 1;
            s->gpu_ndevices = r->gpu.ndevices;
            s->gpu_selected = 0;
            for (int d = 0; d < r->gpu.ndevices && d < 64; d++)
                if (r->gpu.devices[d].selected)
                    s->gpu_selected |= 1ULL << d;
            if (r->pid_translation)
                translate_gpu_pids(r, &s->roles, &s->gpu);
            tree_mark_gpu_holders(&r->tree, s->gpu.procs, s->gpu.nprocs);
            r->gpu.tree_devices = gpu_tree_devices(&s->gpu, &s->roles);
        } else {
            /* A driver error mid-run: everything else goes on. */
            r->gpu_failed = 1;
            warn_always(r->warn_channel, "GPU figures stop here: %s", r->gpu.reason);
        }
    }
    if (s->tree_ok && r->tree.census_deferred) {
        tree_census_pass(&r->tree);
        s->tree.workers = r->tree.census.busiest;
    }
    rapl_read(&r->rapl, &s->rapl);
    if (read_cgroup) {
        /* A command's final sample finds it a zombie: no need to look up
         * which group it is in (none; four system calls). */
        r->cg.root_ended = s->tree_ok && (!s->tree.main_alive || s->tree.main_zombie);
        /* the baseline and the final sample read every part */
        s->cgroup_ok = cgroup_read(&r->cg, slot <= 0, s->tree_ok ? &s->roles : NULL,
                                   plan->cgroup_outsiders, plan->ncgroup_outsiders,
                                   &s->cgroup) == 0;
        if (!s->cgroup_ok)
            warn_once(r->warn_channel, WARN_CGROUP_GONE,
                      "cannot read the cgroup %s any more (%s): the job's group figures stop at "
                      "the sample before", r->cg.path, errno_text(errno));
    }
    if (r->extra_open && slot >= 0) {
        if (system_series_read(&r->sysx, &r->extra) < 0)
            warn_once(r->warn_channel, WARN_SERIES_MEMORY,
                      "out of memory reading the system's disks and interfaces");
        s->extra = &r->extra;
    }
}

int sample_reader_signal_tree(struct sample_reader *r, int sig)
{
    return tree_signal(&r->tree, sig);
}

void sample_reader_peak(struct sample_reader *r, const struct sample *s, int kind, double at,
                        double total_bytes, gt_peak_breakdown *out)
{
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    if (kind == GT_PEAK_MEMORY)
        tree_memory_breakdown(&r->tree, out);
    else
        tree_gpu_breakdown(&r->tree, s->gpu_ok ? s->gpu.procs : NULL,
                           s->gpu_ok ? s->gpu.nprocs : 0, out);
    out->available = 1;
    out->at_seconds = at;
    out->total_bytes = total_bytes;
    if (kind != GT_PEAK_MEMORY)
        return;
    double own = out->others_private_bytes;
    for (int i = 0; i < out->nprocesses; i++)
        own += out->processes[i].private_bytes >= 0 ? out->processes[i].private_bytes
                                                    : out->processes[i].bytes;
    out->shared_bytes = out->total_bytes > own ? out->total_bytes - own : 0;
}
