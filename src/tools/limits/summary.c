/* limits/summary.c - the limits in the run's summary: the "limits" section
 * of the JSON and the "Limits:" section of the text, put into what the
 * tracker's gt_tracker_to_json() and gt_tracker_to_text() give. */
#define _GNU_SOURCE
#include "limits/limits.h"

#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/buf.h"
#include "common/internal.h"
#include "common/json_write.h"
#include "common/toolkit.h"

static const char *const limit_keys[GT_LIMIT_COUNT] = {"max_ram", "max_gpu_ram", "max_time",
                                                       "max_cpu_time"};

static json_object *limits_json_object(const gt_limits *l)
{
    json_object *o = json_object_new_object();
    json_object_object_add(o, "on_limit", json_new_text(l->on_limit == GT_ON_LIMIT_KILL ? "kill"
                                                                                         : "warn"));
    json_object_object_add(o, "breached", json_object_new_boolean(l->any_breached));
    json_object_object_add(o, "killed", json_object_new_boolean(l->killed));
    json_object_object_add(o, "killed_at_seconds",
                           l->killed ? json_object_new_double(l->killed_at) : NULL);
    json_object *checks = json_object_new_object();
    for (int i = 0; i < GT_LIMIT_COUNT; i++) {
        const gt_limit *x = &l->figure[i];
        if (!x->set)
            continue;
        json_object *c = json_object_new_object();
        json_object_object_add(c, "unit", json_new_text(i < GT_LIMIT_TIME ? "bytes" : "seconds"));
        json_object_object_add(c, "limit", json_object_new_double(x->limit));
        json_object_object_add(c, "peak", json_object_new_double(x->peak));
        json_object_object_add(c, "breached", json_object_new_boolean(x->breached));
        json_object_object_add(c, "at_seconds",
                               x->breached ? json_object_new_double(x->at) : NULL);
        json_object_object_add(checks, limit_keys[i], c);
    }
    json_object_object_add(o, "checks", checks);
    return o;
}

static void limits_text(const gt_limits *l, struct buf *b)
{
    if (!l || !l->any_set)
        return;
    static const char *const names[GT_LIMIT_COUNT] = {"Max RAM", "Max GPU RAM", "Max time",
                                                      "Max CPU time"};
    char line[256];
    int n = snprintf(line, sizeof line, "Limits:\n   On limit: %s\n   Breached: %s\n",
                     l->on_limit == GT_ON_LIMIT_KILL ? "kill" : "warn",
                     l->any_breached ? (l->killed ? "yes (the command was ended)" : "yes") : "no");
    buf_add(b, line, (size_t)n);
    for (int i = 0; i < GT_LIMIT_COUNT; i++) {
        const gt_limit *x = &l->figure[i];
        if (!x->set)
            continue;
        /* sizes as -f human writes them (KiB, MiB, GiB), times in seconds */
        char limit[32], peak[32];
        if (i < GT_LIMIT_TIME) {
            human_bytes(limit, sizeof limit, x->limit);
            human_bytes(peak, sizeof peak, x->peak);
        } else {
            snprintf(limit, sizeof limit, "%.6g s", x->limit);
            snprintf(peak, sizeof peak, "%.6g s", x->peak);
        }
        if (x->breached)
            n = snprintf(line, sizeof line, "   %s: %s, peak %s: breached %.3f s into the run\n",
                         names[i], limit, peak, x->at);
        else
            n = snprintf(line, sizeof line, "   %s: %s, peak %s\n", names[i], limit, peak);
        buf_add(b, line, (size_t)(n < (int)sizeof line ? n : (int)sizeof line - 1));
    }
}

/* The watch's limits when any was set: 1 and *l, else 0. */
static int limits_of(gt_limit_watch *w, gt_limits *l)
{
    memset(l, 0, sizeof *l);
    return w && gt_limit_watch_report(w, l) == GT_OK && l->any_set;
}

char *gt_limit_watch_json(gt_limit_watch *w, gt_tracker *t)
{
    char *text = gt_tracker_to_json(t);
    gt_limits l;
    if (!text || !limits_of(w, &l))
        return text;
    /* The tracker's document again, with "limits" where the summary has
     * always had it: after the tracker's own parts, before "cgroup" (the
     * numbers keep their text: json-c parses a number with it). */
    json_object *doc = json_tokener_parse(text);
    free(text);
    json_object *out = doc ? json_object_new_object() : NULL;
    if (!out) {
        json_object_put(doc);
        error_set(GT_ERR_NO_MEMORY, "out of memory for the summary");
        return NULL;
    }
    int placed = 0;
    json_object_object_foreach(doc, key, value) {
        if (!placed && strcmp(key, "cgroup") == 0) {
            json_object_object_add(out, "limits", limits_json_object(&l));
            placed = 1;
        }
        json_object_object_add(out, key, json_object_get(value));
    }
    if (!placed)
        json_object_object_add(out, "limits", limits_json_object(&l));
    json_object_put(doc);
    return json_pretty_text(out);
}

char *gt_limit_watch_text(gt_limit_watch *w, gt_tracker *t)
{
    char *text = gt_tracker_to_text(t);
    gt_limits l;
    if (!text || !limits_of(w, &l))
        return text;
    struct buf section;
    buf_init(&section, 512);
    limits_text(&l, &section);
    /* After gpu_tracker's text, before the tracker's sections of its own
     * ("GPU waiting:", then "GPUs held idle:") when it has them; the text
     * ends without a newline either way. */
    const char *idle = strstr(text, "\nGPU waiting:\n");
    if (!idle)
        idle = strstr(text, "\nGPUs held idle:\n");
    size_t head = idle ? (size_t)(idle - text) + 1 : strlen(text);
    struct buf b;
    buf_init(&b, strlen(text) + section.len + 2);
    buf_add(&b, text, head);
    if (!idle)
        buf_puts(&b, "\n");
    if (section.data)
        buf_add(&b, section.data, idle || section.len == 0 ? section.len : section.len - 1);
    buf_puts(&b, text + head);
    int failed = b.failed || section.failed;
    buf_free(&section);
    free(text);
    if (failed) {
        buf_free(&b);
        error_set(GT_ERR_NO_MEMORY, "out of memory for the summary");
        return NULL;
    }
    return buf_take(&b);
}
