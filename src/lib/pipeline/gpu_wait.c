/* pipeline/gpu_wait.c - see gpu_wait.h. */
#include "pipeline/gpu_wait.h"

#include <stdio.h>
#include <string.h>

#define OTHERS_NAME "(others)"

void gpu_wait_init(struct gpu_wait_acc *a, double cores, double ticks_per_second)
{
    memset(a, 0, sizeof *a);
    a->cores = cores >= 1 ? cores : 1;
    a->ticks_per_second = ticks_per_second > 0 ? ticks_per_second : 100;
}

/* The mean utilization (percent) of the GPUs the tree held memory on at
 * sample s (gs: its share); -1 when it held none or none of theirs was
 * read. */
static double job_gpu_busy(const struct gpu_sample *s, const struct gpu_tree_sample *gs,
                           int ndevices)
{
    if (gs->main_bytes + gs->desc_bytes == 0)
        return -1;
    if (ndevices > GPU_MAX_DEVICES)
        ndevices = GPU_MAX_DEVICES;
    double sum = 0;
    int n = 0;
    for (int d = 0; d < ndevices; d++)
        if ((gs->memory_devices >> d & 1) && s->device_util[d] >= 0) {
            sum += s->device_util[d];
            n++;
        }
    return n ? sum / n : -1;
}

/* The tally of command name (the last slot folds the rest). */
static struct gpu_wait_command *command_tally(struct gpu_wait_acc *a, const char *name)
{
    for (int i = 0; i < a->ncommands; i++)
        if (strncmp(a->commands[i].command, name, sizeof a->commands[i].command) == 0)
            return &a->commands[i];
    if (a->ncommands == GPU_WAIT_COMMANDS - 1)
        name = OTHERS_NAME; /* the last room is kept for the fold */
    if (a->ncommands == GPU_WAIT_COMMANDS)
        return &a->commands[GPU_WAIT_COMMANDS - 1];
    struct gpu_wait_command *c = &a->commands[a->ncommands++];
    snprintf(c->command, sizeof c->command, "%s", name);
    return c;
}

/* The worker group of this interval of dt seconds, counted when saturated. */
static void note_workers(struct gpu_wait_acc *a, const struct worker_load *w, double dt)
{
    if (w->processes <= 0)
        return;
    double n = (double)w->processes;
    double used = (double)w->ticks / a->ticks_per_second / dt;   /* cores */
    double runnable = (double)w->runnable_ns / 1e9 / dt;         /* cores wanted */
    double each = (used > runnable ? used : runnable) / n;
    double could = n < a->cores ? n : a->cores;
    if (each < GT_GPU_WAIT_SATURATED && used < GT_GPU_WAIT_SATURATED * could)
        return;
    a->worker_seconds += dt;
    struct gpu_wait_command *c = command_tally(a, w->command);
    c->seconds += dt;
    c->processes += n * dt;
    c->cores += used / n * dt;
    c->runnable += (each < 1 ? each : 1) * dt;
}

/* Throttle reasons that mean power (a cap, the hardware slowing down, the
 * power brake) and heat. */
#define POWER_REASONS (1u << GPU_THROTTLE_SW_POWER_CAP | 1u << GPU_THROTTLE_HW_SLOWDOWN | \
                       1u << GPU_THROTTLE_HW_POWER_BRAKE)
#define THERMAL_REASONS (1u << GPU_THROTTLE_SW_THERMAL | 1u << GPU_THROTTLE_HW_THERMAL)

/* What the job's GPUs (those it held memory on) were held back by
 * themselves in an interval of dt seconds of GPU time: lowered clocks, and
 * busy with idle SMs (the means of those whose SM activity was read). */
static void note_gpu_itself(struct gpu_wait_acc *a, const struct gpu_sample *s,
                            const struct gpu_tree_sample *gs, int ndevices, double dt)
{
    unsigned reasons = 0;
    int throttle_read = 0, nsm = 0;
    double util = 0, sm = 0;
    for (int d = 0; d < ndevices; d++) {
        if (!(gs->memory_devices >> d & 1))
            continue;
        if (s->throttle_read >> d & 1) {
            throttle_read = 1;
            reasons |= s->device_throttle[d];
        }
        const struct gpu_activity *act = &s->activity[d];
        if ((act->read >> GPU_ACTIVITY_SM & 1) && s->device_util[d] >= 0) {
            sm += act->percent[GPU_ACTIVITY_SM];
            util += s->device_util[d];
            nsm++;
        }
    }
    if (throttle_read) {
        a->throttle_read_seconds += dt;
        if (reasons & POWER_REASONS)
            a->power_seconds += dt;
        if (reasons & THERMAL_REASONS)
            a->thermal_seconds += dt;
        if (reasons & (POWER_REASONS | THERMAL_REASONS))
            a->throttled_seconds += dt;
    }
    if (nsm) {
        util /= nsm;
        sm /= nsm;
        a->sm_read_seconds += dt;
        if (util >= GT_GPU_WAIT_SM_BUSY_PERCENT && sm <= GT_GPU_WAIT_SM_IDLE_PERCENT) {
            a->sm_idle_seconds += dt;
            a->sm_idle_util_sum += util * dt;
            a->sm_idle_sm_sum += sm * dt;
        }
    }
}

void gpu_wait_step(struct gpu_wait_acc *a, const struct gpu_sample *s,
                   const struct gpu_tree_sample *gs, int ndevices, const struct tree_sample *tree,
                   const struct cgroup_sample *cg, double now)
{
    double dt = a->have_prev ? now - a->prev_now : 0;
    /* The storage wait of the interval, as a share of it (-1: not read). */
    double blkio_share = -1, psi_share = -1;
    int blkio = tree ? tree->blkio : 0;
    if (blkio < 0)
        a->blkio_off = 1;
    else if (blkio > 0)
        a->blkio_seen = 1;
    if (dt > 0 && blkio > 0 && a->prev_blkio > 0 && tree->main_blkio_ticks >= a->prev_blkio_ticks)
        blkio_share = (double)(tree->main_blkio_ticks - a->prev_blkio_ticks) /
                      a->ticks_per_second / dt;
    int psi = cg && cg->psi_ok[CGROUP_PSI_IO];
    unsigned long long some = psi ? cg->psi[CGROUP_PSI_IO].some_us : 0;
    if (psi)
        a->psi_seen = 1;
    if (dt > 0 && psi && a->prev_io_psi && some >= a->prev_io_some_us)
        psi_share = (double)(some - a->prev_io_some_us) / 1e6 / dt;
    a->have_prev = 1;
    a->prev_now = now;
    a->prev_blkio = blkio;
    a->prev_blkio_ticks = tree ? tree->main_blkio_ticks : 0;
    a->prev_io_psi = psi;
    a->prev_io_some_us = some;

    if (dt <= 0 || !s || !gs || !tree)
        return;
    double busy = job_gpu_busy(s, gs, ndevices);
    if (busy < 0)
        return;
    a->gpu_seconds += dt;
    note_gpu_itself(a, s, gs, ndevices < GPU_MAX_DEVICES ? ndevices : GPU_MAX_DEVICES, dt);
    if (busy >= GT_GPU_WAIT_BUSY_PERCENT)
        return;
    a->waiting_seconds += dt;
    a->waiting_busy_sum += busy * dt;
    note_workers(a, &tree->workers, dt);
    double wait = blkio_share > psi_share ? blkio_share : psi_share;
    if (wait >= GT_GPU_WAIT_STORAGE) {
        a->storage_seconds += dt;
        a->storage_wait_sum += (wait < 1 ? wait : 1) * dt;
    }
    if (blkio_share >= GT_GPU_WAIT_STORAGE) {
        a->blkio_storage_seconds += dt;
        a->blkio_storage_wait_sum += (blkio_share < 1 ? blkio_share : 1) * dt;
    }
}

void gpu_wait_report(const struct gpu_wait_acc *a, int cgroup_own,
                     const struct gpu_activity_acc *activity, gt_gpu_wait *out)
{
    memset(out, 0, sizeof *out);
    out->gpu_seconds = a->gpu_seconds;
    out->waiting_seconds = a->waiting_seconds;
    if (a->waiting_seconds > 0)
        out->waiting_busy_percent = a->waiting_busy_sum / a->waiting_seconds;
    out->worker_seconds = a->worker_seconds;
    const struct gpu_wait_command *top = NULL;
    for (int i = 0; i < a->ncommands; i++)
        if (!top || a->commands[i].seconds > top->seconds)
            top = &a->commands[i];
    if (top && top->seconds > 0) {
        snprintf(out->worker_command, sizeof out->worker_command, "%s", top->command);
        out->worker_processes = top->processes / top->seconds;
        out->worker_cores = top->cores / top->seconds;
        out->worker_runnable = top->runnable / top->seconds;
    }
    int psi = a->psi_seen && cgroup_own;
    out->storage_available = a->blkio_seen || psi;
    snprintf(out->storage_source, sizeof out->storage_source, "%s%s%s",
             a->blkio_seen ? "block I/O delay" : "", a->blkio_seen && psi ? " and " : "",
             psi ? "cgroup io.pressure" : "");
    if (!out->storage_available)
        snprintf(out->storage_reason, sizeof out->storage_reason, "%s",
                 a->blkio_off ? "the kernel's delay accounting is off (sysctl "
                                "kernel.task_delayacct=0) and no cgroup of the job's own "
                                "gave io.pressure"
                              : "neither the main process's block I/O delay nor the job's "
                                "cgroup io.pressure could be read");
    double seconds = psi ? a->storage_seconds : a->blkio_storage_seconds;
    double wait_sum = psi ? a->storage_wait_sum : a->blkio_storage_wait_sum;
    out->storage_seconds = seconds;
    if (seconds > 0)
        out->storage_wait = wait_sum / seconds;
    double share = a->gpu_seconds * GT_GPU_WAIT_SHARE_PERCENT / 100.0;
    if (a->gpu_seconds > 0 && a->worker_seconds >= share)
        out->verdict |= GT_GPU_WAIT_WORKERS;
    if (a->gpu_seconds > 0 && seconds >= share)
        out->verdict |= GT_GPU_WAIT_STORAGE_BOUND;

    double part = GT_GPU_WAIT_SHARE_PERCENT / 100.0;
    out->throttle_read_seconds = a->throttle_read_seconds;
    out->throttled_seconds = a->throttled_seconds;
    out->power_seconds = a->power_seconds;
    out->thermal_seconds = a->thermal_seconds;
    if (a->throttle_read_seconds > 0 && a->throttled_seconds >= part * a->throttle_read_seconds)
        out->verdict |= GT_GPU_WAIT_THROTTLED;
    out->sm_read_seconds = a->sm_read_seconds;
    out->sm_idle_seconds = a->sm_idle_seconds;
    if (a->sm_idle_seconds > 0) {
        out->sm_idle_util_percent = a->sm_idle_util_sum / a->sm_idle_seconds;
        out->sm_idle_sm_percent = a->sm_idle_sm_sum / a->sm_idle_seconds;
    }
    if (a->sm_read_seconds > 0 && a->sm_idle_seconds >= part * a->sm_read_seconds)
        out->verdict |= GT_GPU_WAIT_SMS_IDLE;
    out->shared_gpu = activity ? gpu_activity_most_shared(activity, &out->shared_others_share)
                               : -1;
    if (out->shared_gpu >= 0 && out->shared_others_share >= part)
        out->verdict |= GT_GPU_WAIT_SHARED;
}
