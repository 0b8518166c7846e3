/* push_sink.c - see push_sink.h. */
#define _GNU_SOURCE
#include "common/internal.h"

#include "sink/push_sink.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sink/metrics_sink.h"
#include "common/background.h"
#include "common/buf.h"
#include "common/http.h"

/* A label value as the Pushgateway takes it in a path: as it is when made
 * of [A-Za-z0-9._-] only, else in its "@base64" form (URL-safe alphabet),
 * which carries any byte, '/' included. */
static void add_path_label(struct buf *b, const char *name, const char *value)
{
    if (!value || !*value)
        return;
    int plain = 1;
    for (const char *c = value; *c; c++)
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
              *c == '.' || *c == '_' || *c == '-'))
            plain = 0;
    buf_add(b, "/", 1);
    buf_add(b, name, strlen(name));
    if (plain) {
        buf_add(b, "/", 1);
        buf_add(b, value, strlen(value));
        return;
    }
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    buf_add(b, "@base64/", 8);
    const unsigned char *v = (const unsigned char *)value;
    size_t n = strlen(value);
    for (size_t i = 0; i < n; i += 3) {
        unsigned x = (unsigned)v[i] << 16 | (i + 1 < n ? (unsigned)v[i + 1] << 8 : 0) |
                     (i + 2 < n ? v[i + 2] : 0);
        char q[4] = {abc[x >> 18 & 63], abc[x >> 12 & 63], i + 1 < n ? abc[x >> 6 & 63] : '=',
                     i + 2 < n ? abc[x & 63] : '='};
        buf_add(b, q, 4);
    }
}

char *push_group_url(const char *base_url, const gt_job_info *job, const char *host, long pid)
{
    struct buf b;
    buf_init(&b, 256);
    size_t len = strlen(base_url);
    while (len > 0 && base_url[len - 1] == '/')
        len--;
    buf_add(&b, base_url, len);
    buf_add(&b, "/metrics/job/" PUSH_JOB, strlen("/metrics/job/" PUSH_JOB));
    if (job && job->job_id[0]) {
        add_path_label(&b, "job_id", job->job_id);
        add_path_label(&b, "step_id", job->step_id);
        add_path_label(&b, "task_rank", job->task_rank);
        add_path_label(&b, "host", host);
    } else {
        char p[32];
        snprintf(p, sizeof p, "%ld", pid);
        add_path_label(&b, "host", host);
        add_path_label(&b, "pid", p);
    }
    return buf_take(&b);
}

/* Keeps the first bytes of the server's answer, for the warning. */
static size_t keep_answer(char *data, size_t size, size_t n, void *arg)
{
    char *answer = arg;
    size_t have = strlen(answer), add = size * n;
    size_t room = 200 - have;
    memcpy(answer + have, data, add < room ? add : room);
    answer[have + (add < room ? add : room)] = '\0';
    return size * n;
}

/* libcurl's progress callback of a push during the run: a non-zero answer
 * abandons the request (libcurl asks at least once a second, also while it
 * waits for an answer). */
static int abandon_when_told(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                             curl_off_t ulnow)
{
    (void)dltotal;
    (void)dlnow;
    (void)ultotal;
    (void)ulnow;
    const struct push_sink *p = arg;
    return atomic_load(&p->abandon) ? 1 : 0;
}

/* One PUT of text to p->url within PUSH_TIMEOUT; abandonable: a push of
 * the run's thread, given up when the run stops. 0, or -1 with the reason
 * in why. */
static int put(struct push_sink *p, const char *text, size_t len, int abandonable, char *why,
               size_t cap)
{
    const char *failure = NULL;
    const struct http_api *http = http_api(&failure);
    if (!http) {
        snprintf(why, cap, "%s", failure);
        return -1;
    }
    CURL *c = http_request(http, p->url);
    if (!c) {
        snprintf(why, cap, "libcurl could not start a request");
        return -1;
    }
    char answer[201] = "", curl_err[CURL_ERROR_SIZE] = "";
    struct curl_slist *h =
        http->slist_append(NULL, "Content-Type: text/plain; version=0.0.4; charset=utf-8");
    http->easy_setopt(c, CURLOPT_TIMEOUT_MS, (long)(PUSH_TIMEOUT * 1000));
    http->easy_setopt(c, CURLOPT_CUSTOMREQUEST, "PUT");
    http->easy_setopt(c, CURLOPT_POSTFIELDS, text);
    http->easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)len);
    http->easy_setopt(c, CURLOPT_WRITEFUNCTION, keep_answer);
    http->easy_setopt(c, CURLOPT_WRITEDATA, answer);
    http->easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
    if (abandonable) {
        http->easy_setopt(c, CURLOPT_XFERINFOFUNCTION, abandon_when_told);
        http->easy_setopt(c, CURLOPT_XFERINFODATA, p);
        http->easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    }
    if (h)
        http->easy_setopt(c, CURLOPT_HTTPHEADER, h);
    long status;
    CURLcode rc = http_perform(http, c, h, &status);
    if (rc == CURLE_ABORTED_BY_CALLBACK) {
        snprintf(why, cap, "abandoned: the run ended while it was under way");
        return -1;
    }
    if (rc != CURLE_OK) {
        snprintf(why, cap, "%s", curl_err[0] ? curl_err : http->easy_strerror(rc));
        return -1;
    }
    if (status < 200 || status > 299) {
        char said[256];
        text_escape_into(answer, said, sizeof said); /* the server's words: untrusted */
        size_t n = strlen(said);
        while (n > 0 && (said[n - 1] == '\n' || said[n - 1] == ' '))
            said[--n] = '\0';
        snprintf(why, cap, "the Pushgateway answered HTTP %ld%s%s", status, n ? ": " : "", said);
        return -1;
    }
    return 0;
}

/* A push made, its failure said (the first one; an abandoned push is no
 * failure of the Pushgateway's, and the last push will say if it fails). */
static void push_text(struct push_sink *p, const char *text, size_t len, int abandonable)
{
    char why[512];
    if (put(p, text, len, abandonable, why, sizeof why) == 0 ||
        (abandonable && atomic_load(&p->abandon)))
        return;
    pthread_mutex_lock(&p->lock);
    int said = p->warned;
    p->warned = 1;
    pthread_mutex_unlock(&p->lock);
    if (said)
        return;
    warn_always(p->warn_channel, "cannot push metrics to %s: %s; the run and its other outputs go "
                    "on", p->url, why);
}

/* The thread of the pushes during the run: the newest text handed over. */
static void *pusher(void *arg)
{
    struct push_sink *p = arg;
    pthread_mutex_lock(&p->lock);
    for (;;) {
        while (!p->pending && !p->stop)
            pthread_cond_wait(&p->wake, &p->lock);
        if (p->stop)
            break;
        char *text = p->pending;
        size_t len = p->pending_len;
        p->pending = NULL;
        pthread_mutex_unlock(&p->lock);
        push_text(p, text, len, 1);
        free(text);
        pthread_mutex_lock(&p->lock);
    }
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

/* Hands the text of point m to the thread (replacing one it has not taken
 * yet); starts the thread the first time. */
static void hand_over(struct push_sink *p, const struct metrics_point *m)
{
    char *text = NULL;
    size_t len = 0;
    if (metrics_render(&p->st, m, 0, &text, &len) < 0)
        return; /* out of memory: the next one, or the last */
    if (!p->thread_started) {
        if (start_library_thread(&p->thread, "gt:push", pusher, p) != 0) {
            free(text);
            return;
        }
        p->thread_started = 1;
    }
    pthread_mutex_lock(&p->lock);
    free(p->pending);
    p->pending = text;
    p->pending_len = len;
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
}

/* Tells the thread to end, abandoning a push under way (libcurl sees it
 * within a second); end_thread() then joins it. */
static void tell_thread_to_end(struct push_sink *p)
{
    if (!p->thread_started)
        return;
    pthread_mutex_lock(&p->lock);
    p->stop = 1;
    atomic_store(&p->abandon, 1);
    pthread_cond_signal(&p->wake);
    pthread_mutex_unlock(&p->lock);
}

static void end_thread(struct push_sink *p)
{
    if (!p->thread_started)
        return;
    tell_thread_to_end(p);
    pthread_join(p->thread, NULL); /* an abandoned push ends within a second */
    p->thread_started = 0;
}

static void sink_start(struct sink *k, double epoch_start)
{
    struct push_sink *p = (struct push_sink *)k;
    p->st.start_time = epoch_start;
}

static void sink_rows(struct sink *k, const struct pipeline_rows *rows)
{
    struct push_sink *p = (struct push_sink *)k;
    if (!rows->metrics || p->interval <= 0)
        return;
    if (p->last_push > 0 && rows->now - p->last_push < p->interval)
        return;
    if (p->last_push == 0) { /* the baseline: the first push one interval later */
        p->last_push = rows->now;
        return;
    }
    p->last_push = rows->now;
    hand_over(p, rows->metrics);
}

/* The last push, of the stop's own sample, by the caller of stop(). A
 * stuck sampler (final NULL) still owns the sink: nothing is pushed. */
static void sink_finish(struct sink *k, const struct pipeline_rows *final)
{
    struct push_sink *p = (struct push_sink *)k;
    if (!final)
        return;
    /* The push under way is abandoned while the last one is made: a silent
     * Pushgateway costs the stop PUSH_TIMEOUT once, not a push in flight's
     * rest and then the last one's. */
    tell_thread_to_end(p);
    if (final->metrics) {
        char *text = NULL;
        size_t len = 0;
        if (metrics_render(&p->st, final->metrics, 0, &text, &len) == 0)
            push_text(p, text, len, 0);
        free(text);
    }
    end_thread(p);
}

static const struct sink_ops push_sink_ops = {.start = sink_start, .rows = sink_rows,
                                              .finish = sink_finish};

int push_sink_wants_io(const struct push_sink *p, double now, int final)
{
    return final || (p->interval > 0 && p->last_push > 0 && now - p->last_push >= p->interval);
}

gt_status push_sink_init(struct push_sink *p, const char *base_url, double interval,
                         const struct metrics_static *st, const gt_job_info *job,
                         const char *host, long pid, struct warn_channel *w)
{
    memset(p, 0, sizeof *p);
    p->base.ops = &push_sink_ops;
    p->warn_channel = w;
    p->st = *st;
    p->interval = interval;
    pthread_mutex_init(&p->lock, NULL);
    cond_init_monotonic(&p->wake);
    p->url = push_group_url(base_url, job, host, pid);
    if (!p->url) {
        push_sink_destroy(p);
        return error_set(GT_ERR_NO_MEMORY, "out of memory");
    }
    return GT_OK;
}

void push_sink_destroy(struct push_sink *p)
{
    if (!p->base.ops)
        return;
    end_thread(p);
    free(p->pending);
    p->pending = NULL;
    free(p->url);
    p->url = NULL;
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->lock);
    p->base.ops = NULL;
}

void push_sink_forget(struct push_sink *p)
{
    free(p->pending);
    p->pending = NULL;
    free(p->url);
    p->url = NULL;
    p->thread_started = 0;
}
