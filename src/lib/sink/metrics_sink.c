/* metrics_sink.c - the exporter (metrics_sink.h): an HTTP endpoint served
 * by libmicrohttpd (Debian's libmicrohttpd12), loaded on first use as
 * libcurl is (http.c): a program linking libgputracker.a needs neither it
 * nor GnuTLS, which it would drag into a static link; and node_exporter's
 * textfile. */
#define _GNU_SOURCE
#include "common/internal.h"

#include "sink/metrics_sink.h"

#include "common/background.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/dl_bind.h"
#include "common/request_guard.h"

#define MHD_LIBRARY "libmicrohttpd.so.12"

/* The libmicrohttpd calls we use, typed by its header. */
struct mhd_api {
    __typeof__(MHD_start_daemon) *start_daemon;
    __typeof__(MHD_stop_daemon) *stop_daemon;
    __typeof__(MHD_create_response_from_buffer) *create_response_from_buffer;
    __typeof__(MHD_add_response_header) *add_response_header;
    __typeof__(MHD_queue_response) *queue_response;
    __typeof__(MHD_destroy_response) *destroy_response;
    __typeof__(MHD_lookup_connection_value) *lookup_connection_value;
    __typeof__(MHD_get_connection_info) *get_connection_info;
};

#define MHD_FN(field, name) {offsetof(struct mhd_api, field), DL_NAMES(name), 1}
static const struct dl_symbol mhd_symbols[] = {
    MHD_FN(start_daemon, "MHD_start_daemon"),
    MHD_FN(stop_daemon, "MHD_stop_daemon"),
    MHD_FN(create_response_from_buffer, "MHD_create_response_from_buffer"),
    MHD_FN(add_response_header, "MHD_add_response_header"),
    MHD_FN(queue_response, "MHD_queue_response"),
    MHD_FN(destroy_response, "MHD_destroy_response"),
    MHD_FN(lookup_connection_value, "MHD_lookup_connection_value"),
    MHD_FN(get_connection_info, "MHD_get_connection_info"),
    {0, NULL, 0},
};

static pthread_once_t mhd_once = PTHREAD_ONCE_INIT;
static struct mhd_api mhd;
static int mhd_ready;
static char mhd_failure[512];

static void mhd_load(void)
{
    void *lib = dlopen(MHD_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        snprintf(mhd_failure, sizeof mhd_failure, "cannot load %s (Debian package "
                 "libmicrohttpd12): %s", MHD_LIBRARY, dlerror());
        return;
    }
    const char *missing = NULL;
    dl_bind(lib, mhd_symbols, &mhd, &missing);
    if (missing) {
        snprintf(mhd_failure, sizeof mhd_failure, "%s lacks %s, which gpu-tracker needs",
                 MHD_LIBRARY, missing);
        return; /* kept loaded, as libcurl is */
    }
    mhd_ready = 1;
}

/* addr as "ADDR:PORT" ("[ADDR]:PORT" for IPv6). */
static void format_address(const struct sockaddr_storage *addr, char *out, size_t cap)
{
    char host[INET6_ADDRSTRLEN] = "?";
    if (addr->ss_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)addr;
        inet_ntop(AF_INET6, &v6->sin6_addr, host, sizeof host);
        snprintf(out, cap, "[%s]:%u", host, (unsigned)ntohs(v6->sin6_port));
    } else {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)addr;
        inet_ntop(AF_INET, &v4->sin_addr, host, sizeof host);
        snprintf(out, cap, "%s:%u", host, (unsigned)ntohs(v4->sin_port));
    }
}

/* A listening socket on spec into *fd, its address (the port 0 got
 * included) into address; the failure with gt_last_error() set. */
static gt_status listen_on(const char *spec, int *fd, char *address, size_t addrcap)
{
    *fd = -1;
    struct sockaddr_storage addr;
    socklen_t len;
    char err[512];
    if (metrics_listen_parse(spec, &addr, &len, err, sizeof err) < 0)
        return error_set(GT_ERR_INVALID_ARGUMENT, "%s", err);
    format_address(&addr, address, addrcap);
    int s = socket(addr.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return error_set(GT_ERR_SYSTEM, "cannot serve metrics at %s: %s", address, strerror(errno));
    int on = 1;
    /* a restarted job may take the port back at once (a port a listener
     * holds is still refused) */
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
    if (addr.ss_family == AF_INET6)
        setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on);
    if (bind(s, (struct sockaddr *)&addr, len) < 0 || listen(s, 64) < 0) {
        int e = errno;
        close(s);
        const char *why = e == EADDRINUSE ? " (another program listens there: give another "
                                            "port, or port 0 for a free one)"
                          : e == EADDRNOTAVAIL ? " (not an address of this machine)"
                          : e == EACCES ? " (ports below 1024 need root)" : "";
        return error_set(GT_ERR_IO, "cannot serve metrics at %s: %s%s", address, strerror(e), why);
    }
    if (getsockname(s, (struct sockaddr *)&addr, &len) == 0)
        format_address(&addr, address, addrcap);
    *fd = s;
    return GT_OK;
}

static enum MHD_Result answer(struct MHD_Connection *c, unsigned code, const char *type,
                              char *body, size_t len, int owned)
{
    struct MHD_Response *r = mhd.create_response_from_buffer(
        len, body, owned ? MHD_RESPMEM_MUST_FREE : MHD_RESPMEM_PERSISTENT);
    if (!r) {
        if (owned)
            free(body);
        return MHD_NO;
    }
    mhd.add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
    /* One request a connection: each has a deadline from its start (a
     * scraper connects anew at its next scrape, as over a network). */
    mhd.add_response_header(r, MHD_HTTP_HEADER_CONNECTION, "close");
    if (code == MHD_HTTP_METHOD_NOT_ALLOWED)
        mhd.add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
    enum MHD_Result ok = mhd.queue_response(c, code, r);
    mhd.destroy_response(r);
    return ok;
}

/* libmicrohttpd's thread: one request. */
static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url,
                                  const char *method, const char *version,
                                  const char *upload_data, size_t *upload_size, void **state)
{
    (void)version;
    (void)upload_data;
    (void)state;
    struct metrics_sink *m = cls;
    /* The request is in, headers whole: no longer under its deadline. */
    const union MHD_ConnectionInfo *ci =
        mhd.get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    if (m->guard && ci)
        request_guard_received(m->guard, ci->socket_context);
    static char not_found[] = "not found: the metrics are at /metrics\n";
    static char not_allowed[] = "method not allowed: use GET\n";
    static char no_sample[] = "no sample yet\n";
    static const char text[] = "text/plain; charset=utf-8";
    if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
        return answer(c, MHD_HTTP_METHOD_NOT_ALLOWED, text, not_allowed, sizeof not_allowed - 1, 0);
    if (*upload_size) {
        *upload_size = 0; /* a GET with a body: ignored */
        return MHD_YES;
    }
    if (strcmp(url, "/metrics") != 0)
        return answer(c, MHD_HTTP_NOT_FOUND, text, not_found, sizeof not_found - 1, 0);
    int om = metrics_accepts_openmetrics(
        mhd.lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT));
    /* A copy, rendered without the lock: the sampler never waits on a scrape. */
    struct metrics_point *p = malloc(sizeof *p);
    struct metrics_static *st = malloc(sizeof *st);
    int have = 0, no_memory = !p || !st;
    if (!no_memory) {
        pthread_mutex_lock(&m->lock);
        have = m->have_latest;
        if (have) {
            *p = m->latest;
            *st = m->st;
            m->scrapes++;
        }
        m->last_scrape = monotonic_now();
        pthread_mutex_unlock(&m->lock);
    }
    char *body = NULL;
    size_t len = 0;
    int rendered = have && metrics_render(st, p, om, &body, &len) == 0;
    free(p);
    free(st);
    if (!have && !no_memory)
        return answer(c, MHD_HTTP_SERVICE_UNAVAILABLE, text, no_sample, sizeof no_sample - 1, 0);
    if (!rendered)
        return MHD_NO; /* out of memory: the connection is closed */
    return answer(c, MHD_HTTP_OK,
                  om ? METRICS_CONTENT_TYPE_OPENMETRICS : METRICS_CONTENT_TYPE_TEXT, body, len, 1);
}

/* libmicrohttpd's thread: a connection begins (put under the request
 * deadline) or is about to be closed (its descriptor still open). */
static void on_connection(void *cls, struct MHD_Connection *c, void **socket_context,
                          enum MHD_ConnectionNotificationCode what)
{
    struct metrics_sink *m = cls;
    if (!m->guard)
        return;
    if (what == MHD_CONNECTION_NOTIFY_STARTED) {
        const union MHD_ConnectionInfo *ci =
            mhd.get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
        *socket_context = ci ? request_guard_started(m->guard, ci->connect_fd) : NULL;
    } else {
        request_guard_closed(m->guard, *socket_context);
        *socket_context = NULL;
    }
}

static void sink_rows(struct sink *k, const struct pipeline_rows *rows)
{
    if (rows->metrics)
        metrics_sink_update((struct metrics_sink *)k, rows->metrics, rows->now);
}

static void sink_start(struct sink *k, double epoch_start)
{
    metrics_sink_set_start((struct metrics_sink *)k, epoch_start);
}

/* No more serving, the textfile removed; a stuck sampler still owns the
 * exporter (final NULL): then gt_tracker_free, or the sampler itself when
 * it comes back, ends it. */
static void sink_finish(struct sink *k, const struct pipeline_rows *final)
{
    if (final)
        metrics_sink_finish((struct metrics_sink *)k);
}

static const struct sink_ops metrics_sink_ops = {.start = sink_start, .rows = sink_rows,
                                                 .finish = sink_finish};

gt_status metrics_sink_init(struct metrics_sink *m, const char *listen, const char *textfile_dir,
                            pid_t pid, const struct metrics_static *st, struct warn_channel *w)
{
    memset(m, 0, sizeof *m);
    m->base.ops = &metrics_sink_ops;
    m->target.dirfd = -1;
    m->warn_channel = w;
    m->st = *st;
    pthread_mutex_init(&m->lock, NULL);
    if (textfile_dir) {
        if (asprintf(&m->path, "%s/gpu-tracker-%ld.prom", textfile_dir, (long)pid) < 0) {
            m->path = NULL;
            metrics_sink_destroy(m);
            return error_set(GT_ERR_NO_MEMORY, "out of memory");
        }
        gt_status s = output_resolve(m->path, &m->target);
        /* A name of our own making, rewritten every period: whatever is
         * put there (FIFOs planted for the next PIDs in a directory others
         * may write to) is replaced, never opened. */
        m->target.replace_only = 1;
        if (s == GT_OK)
            s = output_target_check(&m->target, m->path);
        if (s != GT_OK) {
            char why[1024];
            text_copy(why, sizeof why, gt_last_error());
            metrics_sink_destroy(m);
            return error_set(s, "cannot write the metrics textfile: %s", why);
        }
    }
    if (listen) {
        pthread_once(&mhd_once, mhd_load);
        if (!mhd_ready) {
            metrics_sink_destroy(m);
            return error_set(GT_ERR_SYSTEM, "cannot serve metrics: %s", mhd_failure);
        }
        int fd;
        gt_status s = listen_on(listen, &fd, m->address, sizeof m->address);
        if (s != GT_OK) {
            metrics_sink_destroy(m); /* keeps gt_last_error() */
            return s;
        }
        m->guard = request_guard_start(METRICS_REQUEST_SECONDS, METRICS_MAX_CONNECTIONS);
        if (!m->guard) {
            close(fd);
            metrics_sink_destroy(m);
            return error_set(GT_ERR_NO_MEMORY, "cannot serve metrics: out of memory or threads");
        }
        /* No MHD_USE_ERROR_LOG: the library never prints. epoll (AUTO): a
         * tracker of a big tree holds descriptors beyond select()'s 1024.
         * Each connection must send its request within
         * METRICS_REQUEST_SECONDS, and one that takes the last connection
         * has the oldest still sending cut (request_guard.h): slowloris
         * clients (a header line every few seconds, from any address or
         * all of loopback) can neither keep a connection nor keep a
         * scraper out. No limit by address: loopback is one address. */
        m->daemon = mhd.start_daemon(
            MHD_USE_AUTO_INTERNAL_THREAD, 0, NULL, NULL, on_request, m,
            MHD_OPTION_LISTEN_SOCKET, fd,
            MHD_OPTION_CONNECTION_LIMIT, (unsigned int)METRICS_MAX_CONNECTIONS,
            MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)METRICS_CONNECTION_TIMEOUT,
            MHD_OPTION_NOTIFY_CONNECTION, on_connection, m,
            MHD_OPTION_END);
        if (!m->daemon) {
            close(fd);
            metrics_sink_destroy(m);
            return error_set(GT_ERR_SYSTEM, "cannot serve metrics at %s: libmicrohttpd could not "
                             "start", listen);
        }
    }
    return GT_OK;
}

int metrics_sink_wants_io(struct metrics_sink *m, double now)
{
    int looking = m->path != NULL && !m->failed;
    if (!looking && m->daemon) {
        pthread_mutex_lock(&m->lock);
        looking = m->last_scrape > 0 && now - m->last_scrape < METRICS_SCRAPER_GONE;
        pthread_mutex_unlock(&m->lock);
    }
    if (!looking || (m->last_io > 0 && now - m->last_io < METRICS_IO_PERIOD))
        return 0;
    m->last_io = now;
    return 1;
}

void metrics_sink_set_start(struct metrics_sink *m, double epoch)
{
    pthread_mutex_lock(&m->lock);
    m->st.start_time = epoch;
    pthread_mutex_unlock(&m->lock);
}

/* The textfile replaced by the point's text. The sampling thread is the
 * only writer of m->st (set_start), so it reads it without the lock. */
static void write_textfile(struct metrics_sink *m, const struct metrics_point *p)
{
    char *text = NULL;
    size_t len = 0;
    gt_status s = metrics_render(&m->st, p, 0, &text, &len) == 0 ? GT_OK : GT_ERR_NO_MEMORY;
    if (s == GT_OK) {
        /* A link or file planted there since is replaced, never followed. */
        output_target_refresh(&m->target);
        s = output_target_replace(&m->target, m->path, text, len, 0);
    }
    free(text);
    if (s != GT_OK) {
        m->failed = 1;
        warn_once(m->warn_channel, WARN_METRICS_TEXTFILE, "the metrics textfile is no longer written: %s",
                  s == GT_ERR_NO_MEMORY ? "out of memory" : gt_last_error());
    }
}

void metrics_sink_update(struct metrics_sink *m, const struct metrics_point *p, double now)
{
    if (m->daemon) {
        pthread_mutex_lock(&m->lock);
        m->latest = *p;
        m->have_latest = 1;
        pthread_mutex_unlock(&m->lock);
    }
    if (m->path && !m->failed &&
        (m->last_write == 0 || now - m->last_write >= METRICS_TEXTFILE_PERIOD)) {
        m->last_write = now;
        write_textfile(m, p);
    }
}

void metrics_sink_finish(struct metrics_sink *m)
{
    if (m->daemon) {
        mhd.stop_daemon(m->daemon); /* joins its thread; closes the socket */
        m->daemon = NULL;
    }
    request_guard_stop(m->guard); /* after the daemon: every connection is closed */
    m->guard = NULL;
    if (m->path && m->target.dirfd >= 0) {
        if (m->last_write > 0) {
            output_target_refresh(&m->target);
            output_target_remove(&m->target);
        }
        output_target_close(&m->target);
    }
}

void metrics_sink_forget(struct metrics_sink *m)
{
    free(m->path);
    m->path = NULL;
}

void metrics_sink_destroy(struct metrics_sink *m)
{
    metrics_sink_finish(m);
    metrics_sink_forget(m);
    pthread_mutex_destroy(&m->lock);
}
