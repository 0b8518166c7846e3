/* limits/limits.c - see limits.h. */
#include "limits/limits.h"
#include "common/toolkit.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static const char *const option_names[GT_LIMIT_COUNT] = {"max_ram", "max_gpu_ram", "max_time",
                                                         "max_cpu_time"};
static const char *const cli_names[GT_LIMIT_COUNT] = {"--max-ram", "--max-gpu-ram",
                                                      "--max-time", "--max-cpu-time"};
static const char *const figure_names[GT_LIMIT_COUNT] = {"peak RAM", "peak GPU RAM",
                                                         "wall time", "CPU time"};

const char *limits_option_name(int i)
{
    return i >= 0 && i < GT_LIMIT_COUNT ? option_names[i] : "";
}

const char *limits_unit(int i)
{
    return i == GT_LIMIT_RAM || i == GT_LIMIT_GPU_RAM ? "bytes" : "seconds";
}

void limits_init(struct limit_state *s, const gt_limit_options *o)
{
    memset(s, 0, sizeof *s);
    s->limit[GT_LIMIT_RAM] = o->max_ram;
    s->limit[GT_LIMIT_GPU_RAM] = o->max_gpu_ram;
    s->limit[GT_LIMIT_TIME] = o->max_time;
    s->limit[GT_LIMIT_CPU_TIME] = o->max_cpu_time;
    s->on_limit = o->on_limit;
    s->kill_after = o->kill_after;
    for (int i = 0; i < GT_LIMIT_COUNT; i++) {
        s->at[i] = -1;
        s->nset += s->limit[i] > 0;
    }
}

unsigned limits_observe(struct limit_state *s, const struct limit_figures *f, double elapsed)
{
    unsigned fresh = 0;
    for (int i = 0; i < GT_LIMIT_COUNT; i++) {
        if (f->value[i] > s->peak[i])
            s->peak[i] = f->value[i];
        if (s->limit[i] > 0 && s->at[i] < 0 && s->peak[i] > s->limit[i]) {
            s->at[i] = elapsed > 0 ? elapsed : 0;
            fresh |= 1u << i;
        }
    }
    return fresh;
}

/* After SIGKILL, how often what is left of the tree gets it again until
 * the run ends: a process its parent forked as it was killed was in no
 * list yet. */
#define KILL_AGAIN_PERIOD 0.2

void limits_step(struct limit_state *s, const struct limit_figures *f, double now,
                 struct limit_action *a)
{
    a->nmsgs = 0;
    a->signal = 0;
    a->again = 0;
    double elapsed = f->value[GT_LIMIT_TIME];
    unsigned fresh = limits_observe(s, f, elapsed);
    for (int i = 0; i < GT_LIMIT_COUNT; i++)
        if (fresh & (1u << i))
            limits_describe(s, i, a->msgs[a->nmsgs++], sizeof a->msgs[0]);
    s->warned |= fresh;
    if (s->on_limit != GT_ON_LIMIT_KILL)
        return;
    if (fresh && !s->term_sent) {
        s->term_sent = 1;
        s->term_at = elapsed;
        s->term_mono = now;
        a->signal = SIGTERM;
    } else if (s->term_sent && !s->kill_sent && now - s->term_mono >= s->kill_after) {
        s->kill_sent = 1;
        s->kill_again = now + KILL_AGAIN_PERIOD;
        a->signal = SIGKILL;
    } else if (s->kill_sent && now >= s->kill_again) {
        s->kill_again = now + KILL_AGAIN_PERIOD;
        a->signal = SIGKILL;
        a->again = 1;
    }
}

double limits_deadline(const struct limit_state *s, double start)
{
    double at = INFINITY;
    if (s->limit[GT_LIMIT_TIME] > 0 && s->at[GT_LIMIT_TIME] < 0 && start >= 0)
        at = start + s->limit[GT_LIMIT_TIME];
    if (s->term_sent && !s->kill_sent && s->term_mono + s->kill_after < at)
        at = s->term_mono + s->kill_after;
    if (s->kill_sent && s->kill_again < at)
        at = s->kill_again;
    return at;
}

/* value in a unit a person reads: KiB/MiB/GiB for bytes (human_bytes),
 * s/min/h for seconds. */
static void readable(int i, double v, char *out, size_t cap)
{
    if (i == GT_LIMIT_RAM || i == GT_LIMIT_GPU_RAM) {
        human_bytes(out, cap, v);
    } else if (v >= 3600) {
        snprintf(out, cap, "%.3g h", v / 3600);
    } else if (v >= 120) {
        snprintf(out, cap, "%.3g min", v / 60);
    } else {
        snprintf(out, cap, "%.3g s", v);
    }
}

void limits_describe(const struct limit_state *s, int i, char *out, size_t cap)
{
    char value[32], limit[32], at[32];
    readable(i, s->peak[i], value, sizeof value);
    readable(i, s->limit[i], limit, sizeof limit);
    readable(GT_LIMIT_TIME, s->at[i], at, sizeof at);
    snprintf(out, cap, "%s %s passed the limit of %s (%s) %s into the run", figure_names[i],
             value, limit, cli_names[i], at);
}

void limits_report(const struct limit_state *s, gt_limits *out)
{
    gt_limits r;
    memset(&r, 0, sizeof r);
    for (int i = 0; i < GT_LIMIT_COUNT; i++) {
        gt_limit *l = &r.figure[i];
        l->set = s->limit[i] > 0;
        l->limit = s->limit[i];
        l->peak = s->peak[i];
        l->breached = s->at[i] >= 0;
        l->at = s->at[i];
        l->warned = (s->warned >> i) & 1u;
        r.any_set |= l->set;
        r.any_breached |= l->breached;
    }
    r.on_limit = s->on_limit;
    r.killed = s->term_sent;
    r.killed_at = s->term_sent ? s->term_at : -1;
    *out = r;
}

/* For the command, from what gt_limit_watch_report() gave (gpu_tracker_tools.h). */
void gt_limits_describe(const gt_limits *l, int i, char *out, size_t cap)
{
    struct limit_state s;
    memset(&s, 0, sizeof s);
    if (i < 0 || i >= GT_LIMIT_COUNT) {
        snprintf(out, cap, "%s", "");
        return;
    }
    s.limit[i] = l->figure[i].limit;
    s.peak[i] = l->figure[i].peak;
    s.at[i] = l->figure[i].at;
    limits_describe(&s, i, out, cap);
}
