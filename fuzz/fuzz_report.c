/* libFuzzer target: the writers of a snapshot that a program filled by
 * hand (the public API takes any struct): rows of any bits (NaN,
 * infinities, DBL_MAX, counts near 2^64), any command bytes. The report,
 * the statistics and the recommendation must come back (no hang: the chart
 * loops count steps), and the snapshot JSON must be JSON a strict reader
 * takes (no bare nan or inf, valid UTF-8). */
#include <json-c/json.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_tracker_tools.h"

#define MAX_ROWS 600 /* past the report's pixel columns: both drawings */

static void must(int ok)
{
    if (!ok)
        abort();
}

static int all_finite(json_object *o)
{
    switch (json_object_get_type(o)) {
    case json_type_double:
        return isfinite(json_object_get_double(o));
    case json_type_array:
        for (size_t i = 0; i < json_object_array_length(o); i++)
            if (!all_finite(json_object_array_get_idx(o, i)))
                return 0;
        return 1;
    case json_type_object: {
        json_object_object_foreach(o, key, value) {
            (void)key;
            if (!all_finite(value))
                return 0;
        }
        return 1;
    }
    default:
        return 1;
    }
}

static void check_strict_json(const char *text)
{
    struct json_tokener *tok = json_tokener_new_ex(32);
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    json_object *o = json_tokener_parse_ex(tok, text, (int)strlen(text));
    enum json_tokener_error e = json_tokener_get_error(tok);
    json_tokener_free(tok);
    must(o != NULL && e == json_tokener_success);
    /* json-c's strict mode takes NaN and Infinity literals: every number
     * must be finite as well. */
    must(all_finite(o));
    json_object_put(o);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* libFuzzer calls it */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    gt_snapshot s;
    memset(&s, 0, sizeof s);
    /* The head: metadata doubles; then a command; then rows. */
    double head[6] = {0};
    size_t used = size < sizeof head ? size : sizeof head;
    memcpy(head, data, used);
    s.interval = s.series.interval = head[0];
    s.start_time = head[1];
    s.stop_time = head[2];
    s.duration = head[3];
    s.usage.max_ram.combined.total_rss = head[4];
    s.usage.compute_time.time = head[5];
    s.exit_status = size > used ? (int)data[used] - 1 : -1;
    size_t rest = size - used;
    size_t clen = rest > 0 ? data[used] % 64 : 0;
    if (clen > rest)
        clen = rest;
    char *command = malloc(clen + 1);
    if (!command)
        return 0;
    memcpy(command, data + used, clen);
    command[clen] = '\0';
    s.command = command;
    used += clen;
    rest = size - used;
    size_t pair = sizeof(gt_process_row) + sizeof(gt_system_row);
    size_t n = rest / pair > MAX_ROWS ? MAX_ROWS : rest / pair;
    gt_process_row *p = calloc(n ? n : 1, sizeof *p);
    gt_system_row *y = calloc(n ? n : 1, sizeof *y);
    if (p && y) {
        memcpy(p, data + used, n * sizeof *p);
        memcpy(y, data + used + n * sizeof *p, n * sizeof *y);
        s.series.process = p;
        s.series.system = y;
        s.series.nprocess = s.series.nsystem = n;
        char *html = gt_snapshot_report_html(&s, NULL, NULL);
        must(html && strstr(html, "</html>"));
        free(html);
        char *json = gt_snapshot_to_json(&s, GT_SNAPSHOT_GPU_TRACKER);
        must(json != NULL);
        check_strict_json(json);
        free(json);
        gt_stats st = {0};
        if (gt_snapshot_stats(&s, &st) == GT_OK) {
            gt_recommendation r = {0};
            gt_recommend(&st, &r);
        }
    }
    free(p);
    free(y);
    free(command);
    return 0;
}
