/* test_metrics.c - the exporter: its text (Prometheus 0.0.4 and
 * OpenMetrics), the listen address, the HTTP endpoint of a real tracker,
 * the textfile, the job in snapshots, and each bad input's one-line error.
 * A real Prometheus and promtool check the same in test_prometheus.py. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <poll.h>
#include <pthread.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "common/background.h"
#include "gpu_tracker_tools.h"
#include "sink/metrics_sink.h"
#include "sink/push_sink.h"
#include "output/metrics_text.h"
#include "runner.h"
#include "httpd.h"

/* ---- the text ---------------------------------------------------------- */

static void test_labels(void)
{
    char name[64];
    metrics_command_name("/usr/bin/python3 train.py --epochs 3", name, sizeof name);
    CHECK_STR(name, "python3");
    metrics_command_name("  '/home/a b/my job.sh' x", name, sizeof name); /* as shlex_join quotes */
    CHECK_STR(name, "my job.sh");
    metrics_command_name("", name, sizeof name);
    CHECK_STR(name, "");

    struct metrics_static st;
    memset(&st, 0, sizeof st);
    gt_job_info job = {.struct_size = sizeof job, .scheduler = "slurm", .job_id = "4242", .task_rank = "3"};
    /* A command name with a quote, a backslash and a byte that is not UTF-8:
     * escaped and made valid, as Prometheus requires. */
    metrics_static_labels(&st, "node1", &job, "/opt/we\"ird\\\xff", 77);
    CHECK_STR(st.labels, "host=\"node1\",job_id=\"4242\",task_rank=\"3\","
                         "command=\"we\\\"ird\\\\\xef\xbf\xbd\",pid=\"77\"");
    /* A terminal escape in a label value: shown as text, never raw. */
    metrics_static_labels(&st, "node1", NULL, "/opt/red\x1b[31mjob\xc2\x9b", 77);
    CHECK_STR(st.labels, "host=\"node1\",command=\"red\\\\x1b[31mjob\\\\xc2\\\\x9b\",pid=\"77\"");
    metrics_static_labels(&st, "", NULL, NULL, 5);
    CHECK_STR(st.labels, "pid=\"5\"");
}

static void test_render(void)
{
    struct metrics_static st;
    memset(&st, 0, sizeof st);
    metrics_static_labels(&st, "h", NULL, "job", 9);
    st.start_time = 1700000000.5;
    st.ngpus = 1;
    snprintf(st.gpus[0].uuid, sizeof st.gpus[0].uuid, "GPU-1");
    snprintf(st.gpus[0].name, sizeof st.gpus[0].name, "Fake H100");
    st.gpus[0].total = 80ULL << 30;
    struct metrics_point p;
    memset(&p, 0, sizeof p);
    p.samples = 12;
    p.tree_ok = 1;
    p.rss[0] = 100 << 20;
    p.rss[2] = 150 << 20;
    p.peak_rss[2] = 200 << 20;
    p.cpu_seconds[0] = 1.5;
    p.threads[0] = 4;
    p.ngpus = 1;
    p.gpu_used[0] = 1 << 30;
    p.gpu_util[0] = 50;
    p.have_gpu_tree = 1;
    p.gpu_tree_now = 512 << 20;

    char *text = NULL;
    size_t len = 0;
    CHECK(metrics_render(&st, &p, 0, &text, &len) == 0 && text && strlen(text) == len);
    const char *base = "host=\"h\",command=\"job\",pid=\"9\"";
    char line[512];
    /* Each line as NAME{run labels REST */
    const struct {
        const char *name, *rest;
    } want[] = {
        {"gpu_tracker_samples_total", "} 12\n"},
        {"gpu_tracker_start_time_seconds", "} 1700000000.5\n"},
        {"gpu_tracker_memory_rss_bytes", ",part=\"combined\"} 157286400\n"},
        {"gpu_tracker_memory_peak_rss_bytes", ",part=\"combined\"} 209715200\n"},
        {"gpu_tracker_cpu_seconds_total", ",part=\"main\"} 1.5\n"},
        {"gpu_tracker_threads", ",part=\"main\"} 4\n"},
        {"gpu_tracker_gpu_memory_used_bytes",
         ",gpu=\"0\",uuid=\"GPU-1\",name=\"Fake H100\"} 1073741824\n"},
        {"gpu_tracker_gpu_utilization_ratio", ",gpu=\"0\",uuid=\"GPU-1\",name=\"Fake H100\"} 0.5\n"},
        {"gpu_tracker_gpu_process_memory_bytes", "} 536870912\n"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        snprintf(line, sizeof line, "\n%s{%s%s", want[i].name, base, want[i].rest);
        CHECK_CONTAINS(text, line);
    }
    CHECK_CONTAINS(text, "# TYPE gpu_tracker_samples_total counter\n");
    CHECK_CONTAINS(text, "# TYPE gpu_tracker_cpu_seconds_total counter\n");
    /* Not read: not shown (no I/O, PSS or system figures; no energy). */
    CHECK(!strstr(text, "io_read") && !strstr(text, "pss") && !strstr(text, "system_memory") &&
          !strstr(text, "energy") && !strstr(text, "# EOF") && !strstr(text, "# UNIT"));
    free(text);

    /* OpenMetrics: counters named without _total in # TYPE, units, # EOF. */
    CHECK(metrics_render(&st, &p, 1, &text, &len) == 0);
    CHECK_CONTAINS(text, "# TYPE gpu_tracker_cpu_seconds counter\n# UNIT gpu_tracker_cpu_seconds "
                         "seconds\n");
    CHECK_CONTAINS(text, "# UNIT gpu_tracker_memory_rss_bytes bytes\n");
    CHECK_CONTAINS(text, "# UNIT gpu_tracker_gpu_utilization_ratio ratio\n");
    snprintf(line, sizeof line, "gpu_tracker_cpu_seconds_total{%s,part=\"main\"} 1.5\n", base);
    CHECK_CONTAINS(text, line);
    CHECK(len > 6 && strcmp(text + len - 6, "# EOF\n") == 0);
    free(text);

    /* A utilization the driver did not give is left out, not shown as 0;
     * so are the activity, PCIe, throttle and share families until read. */
    p.gpu_util[0] = -1;
    CHECK(metrics_render(&st, &p, 0, &text, &len) == 0);
    CHECK(!strstr(text, "utilization_ratio") && !strstr(text, "activity_ratio") &&
          !strstr(text, "pcie") && !strstr(text, "throttle_reason") &&
          !strstr(text, "process_sm_ratio"));
    free(text);

    /* The GPU's own counters, its clocks' reasons and the job's SM share. */
    p.gpu_activity[0].seconds = 1;
    p.gpu_activity[0].read = 1u << GPU_ACTIVITY_SM | 1u << GPU_ACTIVITY_TENSOR;
    p.gpu_activity[0].percent[GPU_ACTIVITY_SM] = 80;
    p.gpu_activity[0].percent[GPU_ACTIVITY_TENSOR] = 25;
    p.gpu_activity[0].pcie_read = 1;
    p.gpu_activity[0].pcie_tx = 1048576;
    p.gpu_activity[0].pcie_rx = 2048;
    p.gpu_throttle_read = 1;
    p.gpu_throttle[0] = 1u << GPU_THROTTLE_SW_POWER_CAP;
    p.gpu_share_read = 1;
    p.gpu_job_sm[0] = 60;
    CHECK(metrics_render(&st, &p, 1, &text, &len) == 0);
    const char *gpu = ",gpu=\"0\",uuid=\"GPU-1\",name=\"Fake H100\"";
    const struct {
        const char *name, *rest;
    } own[] = {
        {"gpu_tracker_gpu_activity_ratio", ",counter=\"sm\"} 0.8\n"},
        {"gpu_tracker_gpu_activity_ratio", ",counter=\"tensor\"} 0.25\n"},
        {"gpu_tracker_gpu_pcie_bytes_per_second", ",direction=\"tx\"} 1048576.0\n"},
        {"gpu_tracker_gpu_pcie_bytes_per_second", ",direction=\"rx\"} 2048.0\n"},
        {"gpu_tracker_gpu_throttle_reason", ",reason=\"sw_power_cap\"} 1\n"},
        {"gpu_tracker_gpu_throttle_reason", ",reason=\"hw_thermal\"} 0\n"},
        {"gpu_tracker_gpu_process_sm_ratio", "} 0.6\n"},
    };
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
        snprintf(line, sizeof line, "\n%s{%s%s%s", own[i].name, base, gpu, own[i].rest);
        CHECK_CONTAINS(text, line);
    }
    CHECK(!strstr(text, "counter=\"dram\"") && !strstr(text, "reason=\"gpu_idle\""));
    CHECK_CONTAINS(text, "# UNIT gpu_tracker_gpu_activity_ratio ratio\n");
    free(text);

    CHECK(metrics_accepts_openmetrics("application/openmetrics-text;version=1.0.0,text/plain;q=0.5"));
    CHECK(!metrics_accepts_openmetrics("text/plain;version=0.0.4"));
    CHECK(!metrics_accepts_openmetrics(NULL));
}

static void test_listen_parse(void)
{
    struct sockaddr_storage a;
    socklen_t len;
    char err[512];
    CHECK(metrics_listen_parse("9101", &a, &len, err, sizeof err) == 0);
    struct sockaddr_in *v4 = (struct sockaddr_in *)&a;
    CHECK(a.ss_family == AF_INET && ntohs(v4->sin_port) == 9101 &&
          v4->sin_addr.s_addr == htonl(INADDR_LOOPBACK)); /* loopback unless told */
    CHECK(metrics_listen_parse(":0", &a, &len, err, sizeof err) == 0 && a.ss_family == AF_INET);
    CHECK(metrics_listen_parse("0.0.0.0:80", &a, &len, err, sizeof err) == 0 &&
          v4->sin_addr.s_addr == htonl(INADDR_ANY));
    CHECK(metrics_listen_parse("localhost:1", &a, &len, err, sizeof err) == 0);
    CHECK(metrics_listen_parse("[::1]:9101", &a, &len, err, sizeof err) == 0 &&
          a.ss_family == AF_INET6 && len == sizeof(struct sockaddr_in6));
    const char *valid = "give PORT, ADDR:PORT or [IPv6]:PORT, with a numeric address (or "
                        "localhost) and a port from 0 (any free one) to 65535";
    const struct {
        const char *spec, *why;
    } bad[] = {
        {"65536", NULL}, {"-1", NULL}, {"", NULL}, {"1.2.3.4:", NULL}, {"80x", NULL},
        {"[::1]", NULL}, {"example.com:80", "'example.com' is not a numeric address; "},
        {"::1:80", "write an IPv6 address in brackets, as [::1]:9101"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_MSG(metrics_listen_parse(bad[i].spec, &a, &len, err, sizeof err) == -1, "%s",
                  bad[i].spec);
        char want[512];
        if (bad[i].why && !strstr(bad[i].why, "brackets"))
            snprintf(want, sizeof want, "invalid metrics address '%s': %s%s", bad[i].spec,
                     bad[i].why, valid);
        else
            snprintf(want, sizeof want, "invalid metrics address '%s': %s", bad[i].spec,
                     bad[i].why ? bad[i].why : valid);
        CHECK_STR(err, want);
    }
}

/* ---- the endpoint of a real tracker ------------------------------------ */

/* One HTTP/1.1 request to address ("127.0.0.1:PORT"); the whole answer
 * (headers and body), malloc'd; NULL when it cannot connect. */
static char *http_request(const char *address, const char *method, const char *path,
                          const char *accept)
{
    char host[64];
    snprintf(host, sizeof host, "%s", address);
    char *colon = strrchr(host, ':');
    if (!colon)
        return NULL;
    *colon = '\0';
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((unsigned short)atoi(colon + 1))};
    inet_pton(AF_INET, host, &a.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        if (fd >= 0)
            close(fd);
        return NULL;
    }
    char req[512];
    int n = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: %s\r\n%s%s%sConnection: close\r\n\r\n",
                     method, path, address, accept ? "Accept: " : "", accept ? accept : "",
                     accept ? "\r\n" : "");
    if (write(fd, req, (size_t)n) != n) {
        close(fd);
        return NULL;
    }
    struct buf b = {0};
    read_until(fd, &b, NULL);
    close(fd);
    return b.data ? b.data : strdup("");
}

/* A connection to address from the loopback address source ("127.0.0.2":
 * another client, to the server's eyes). -1 when it cannot connect. */
static int connect_from(const char *address, const char *source)
{
    char host[64];
    snprintf(host, sizeof host, "%s", address);
    char *colon = strrchr(host, ':');
    if (!colon)
        return -1;
    *colon = '\0';
    struct sockaddr_in to = {.sin_family = AF_INET,
                             .sin_port = htons((unsigned short)atoi(colon + 1))};
    struct sockaddr_in from = {.sin_family = AF_INET};
    inet_pton(AF_INET, host, &to.sin_addr);
    inet_pton(AF_INET, source, &from.sin_addr);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&from, sizeof from) < 0 ||
        connect(fd, (struct sockaddr *)&to, sizeof to) < 0) {
        if (fd >= 0)
            close(fd);
        return -1;
    }
    return fd;
}

/* 1 when the server has closed fd (a read sees the end, or a reset). */
static int closed_by_server(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 0) <= 0)
        return 0;
    char c;
    ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);
    return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK);
}

static gt_tracker *exporter_tracker(const char *listen, const char *dir, const gt_job_info *job,
                                    gt_status *st)
{
    gt_options o;
    gt_options_init(&o);
    o.sleep_time = 0.05;
    o.resource_usage_file = "";
    o.metrics_listen = listen;
    o.metrics_textfile_dir = dir;
    o.job = job;
    o.command = "/bin/exporter-test --flag";
    gt_tracker *t = NULL;
    *st = gt_tracker_new(&o, &t);
    return t;
}

static void test_endpoint(void)
{
    gt_job_info job = {.struct_size = sizeof(gt_job_info)};
    char *envp[] = {"SLURM_JOB_ID=4242", "SLURM_PROCID=1", "SLURM_NTASKS=2",
                    "SLURMD_NODENAME=node07", NULL};
    gt_job_info_from_environ(envp, &job);
    gt_status st;
    gt_tracker *t = exporter_tracker("127.0.0.1:0", NULL, &job, &st);
    CHECK_MSG(st == GT_OK, "%s", gt_last_error());
    if (!t)
        return;
    const char *address = gt_tracker_metrics_address(t);
    CHECK(address && strncmp(address, "127.0.0.1:", 10) == 0 && atoi(address + 10) > 0);
    char addr[64];
    snprintf(addr, sizeof addr, "%s", address ? address : "");
    /* Before the first sample: no figures yet. */
    char *a = http_request(addr, "GET", "/metrics", NULL);
    CHECK_MSG(a && strncmp(a, "HTTP/1.1 503", 12) == 0, "%s", a ? a : "(no answer)");
    free(a);

    CHECK(gt_tracker_start(t) == GT_OK);
    a = http_request(addr, "GET", "/metrics", NULL);
    CHECK_MSG(a && strncmp(a, "HTTP/1.1 200", 12) == 0, "%s", a ? a : "(no answer)");
    if (a) {
        CHECK_CONTAINS(a, "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n");
        char line[256];
        snprintf(line, sizeof line, "gpu_tracker_threads{host=\"");
        CHECK_CONTAINS(a, line);
        snprintf(line, sizeof line, ",job_id=\"4242\",task_rank=\"1\",command=\"exporter-test\","
                 "pid=\"%d\",part=\"main\"}", (int)getpid());
        CHECK_CONTAINS(a, line);
        CHECK(!strstr(a, "# EOF"));
    }
    free(a);
    /* The I/O counters are read once someone scrapes: they come with a
     * later sample (the wait is only a guard against hanging). */
    int have_io = 0;
    for (int i = 0; i < 600 && !have_io; i++) {
        a = http_request(addr, "GET", "/metrics", NULL);
        have_io = a && strstr(a, "\ngpu_tracker_io_read_bytes_total{");
        free(a);
        if (!have_io)
            usleep(50000);
    }
    CHECK(have_io);
    a = http_request(addr, "GET", "/metrics",
                     "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5");
    CHECK(a && strstr(a, "Content-Type: application/openmetrics-text; version=1.0.0; "
                         "charset=utf-8\r\n") && strstr(a, "\n# EOF\n"));
    free(a);
    a = http_request(addr, "GET", "/", NULL);
    CHECK_MSG(a && strncmp(a, "HTTP/1.1 404", 12) == 0, "%s", a ? a : "(no answer)");
    free(a);
    a = http_request(addr, "POST", "/metrics", NULL);
    CHECK(a && strncmp(a, "HTTP/1.1 405", 12) == 0 && strstr(a, "Allow: GET, HEAD\r\n"));
    free(a);

    CHECK(gt_tracker_stop(t) == GT_OK);
    CHECK(gt_tracker_metrics_address(t) == NULL);
    a = http_request(addr, "GET", "/metrics", NULL);
    CHECK_MSG(a == NULL, "still served after stop: %s", a);
    free(a);

    /* The snapshot carries the job; its JSON too, and reads back. */
    gt_snapshot *s = NULL;
    CHECK(gt_tracker_snapshot(t, "exporter-test", 0, &s) == GT_OK && s);
    if (s) {
        CHECK_STR(s->job.job_id, "4242");
        CHECK_STR(s->job.task_rank, "1");
        CHECK_STR(s->job.node, "node07");
        CHECK(s->job.ntasks == 2);
        char *json = gt_snapshot_to_json(s, GT_SNAPSHOT_GPU_TRACKER);
        CHECK(json && strstr(json, "\"job\""));
        gt_snapshot *back = NULL;
        CHECK(json && gt_snapshot_from_memory(json, strlen(json), "run.json", 0, &back) == GT_OK);
        if (back) {
            CHECK(memcmp(&back->job, &s->job, sizeof s->job) == 0);
            gt_snapshot_free(back);
        }
        /* Another user's file cannot put a path into a job id. */
        char *bad = json ? strstr(json, "\"4242\"") : NULL;
        if (bad) {
            memcpy(bad, "\"4/42\"", 6);
            CHECK(gt_snapshot_from_memory(json, strlen(json), "run.json", 0, &back) ==
                  GT_ERR_PARSE);
            CHECK_CONTAINS(gt_last_error(), "\"metadata.job.job_id\" should be null or a string "
                                            "of at most 31 of these characters: 0123456789");
        }
        free(json);
        gt_snapshot_free(s);
    }
    gt_tracker_free(t);
}

/* The I/O counters cost a file per process: asked for only while someone
 * scrapes (or the textfile is on), and at most once a period. */
/* Slowloris: 16 connections that each sent a request line and a header,
 * then a header line now and then, held every connection of the
 * exporter, and every scrape failed (45 s in the attack). Now a
 * connection must have sent its whole request 5 s after it began, and one
 * that takes the last connection cuts the oldest still sending: a
 * scraper is answered while they drip, and the drippers are cut. */
struct dripper {
    int fds[16];
    int stop;
    int all_closed;
    pthread_mutex_t lock;
};

/* A header line on each slow connection every 0.3 s, until stopped; notes
 * when the server has closed them all. */
static void *drip(void *arg)
{
    struct dripper *d = arg;
    for (;;) {
        pthread_mutex_lock(&d->lock);
        int stop = d->stop, open = 0;
        for (int i = 0; i < 16; i++) {
            if (d->fds[i] < 0)
                continue;
            if (closed_by_server(d->fds[i])) {
                close(d->fds[i]);
                d->fds[i] = -1;
                continue;
            }
            send(d->fds[i], "X-Slow: 1\r\n", 11, MSG_NOSIGNAL);
            open++;
        }
        if (!open)
            d->all_closed = 1;
        pthread_mutex_unlock(&d->lock);
        if (stop || !open)
            return NULL;
        usleep(300000);
    }
}

/* The attack of round four: all of loopback is one address, so 8 slow
 * connections from 127.0.0.1, each opened again as soon as it was cut,
 * held the 4 connections one address had, and every scrape from
 * 127.0.0.1 failed (46 of 46). Now a connection that takes the last one
 * has the oldest still sending its request cut: every scrape from the
 * same address is answered while they drip. */
struct reopener {
    char addr[64];
    int fds[8];
    int stop, reopened;
    pthread_mutex_t lock;
};

static int slow_connection(const char *addr)
{
    int fd = connect_from(addr, "127.0.0.1");
    static const char head[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
    if (fd >= 0)
        send(fd, head, sizeof head - 1, MSG_NOSIGNAL);
    return fd;
}

static void *drip_and_reopen(void *arg)
{
    struct reopener *d = arg;
    for (;;) {
        pthread_mutex_lock(&d->lock);
        int stop = d->stop;
        for (int i = 0; i < 8 && !stop; i++) {
            if (d->fds[i] >= 0 && closed_by_server(d->fds[i])) {
                close(d->fds[i]);
                d->fds[i] = -1;
            }
            if (d->fds[i] < 0) {
                d->fds[i] = slow_connection(d->addr);
                d->reopened++;
            } else {
                send(d->fds[i], "X-Slow: 1\r\n", 11, MSG_NOSIGNAL);
            }
        }
        pthread_mutex_unlock(&d->lock);
        if (stop)
            return NULL;
        usleep(100000);
    }
}

/* A started tracker serving on loopback, its address in addr; NULL after
 * a failed check. */
static gt_tracker *started_exporter(char *addr, size_t cap)
{
    gt_status st;
    gt_tracker *t = exporter_tracker("127.0.0.1:0", NULL, NULL, &st);
    CHECK_MSG(st == GT_OK, "%s", gt_last_error());
    if (!t)
        return NULL;
    CHECK(gt_tracker_start(t) == GT_OK);
    snprintf(addr, cap, "%s", gt_tracker_metrics_address(t));
    return t;
}

static void test_slow_loopback_clients(void)
{
    struct reopener d = {.stop = 0};
    gt_tracker *t = started_exporter(d.addr, sizeof d.addr);
    if (!t)
        return;
    pthread_mutex_init(&d.lock, NULL);
    for (int i = 0; i < 8; i++)
        d.fds[i] = slow_connection(d.addr);
    pthread_t th;
    CHECK(pthread_create(&th, NULL, drip_and_reopen, &d) == 0);
    /* Scrapes from the same address, over more than the 5 s after which the
     * drippers are cut and come back. */
    int answered = 0, scrapes = 0;
    for (int reopened = 0; scrapes < 200 && (scrapes < 10 || reopened < 8); scrapes++) {
        int fd = connect_from(d.addr, "127.0.0.1");
        if (fd >= 0) {
            struct timeval limit = {30, 0}; /* only against a hang */
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
            static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
            struct buf b = {0};
            if (write(fd, req, sizeof req - 1) == (ssize_t)(sizeof req - 1))
                read_until(fd, &b, NULL);
            answered += b.data && strncmp(b.data, "HTTP/1.1 200", 12) == 0;
            free(b.data);
            close(fd);
        }
        usleep(500000);
        pthread_mutex_lock(&d.lock);
        reopened = d.reopened;
        pthread_mutex_unlock(&d.lock);
    }
    CHECK_MSG(answered == scrapes, "%d of %d scrapes answered beside 8 slow clients of the same "
              "address", answered, scrapes);
    pthread_mutex_lock(&d.lock);
    d.stop = 1;
    CHECK_MSG(d.reopened >= 8, "the slow clients were not cut (%d reopened)", d.reopened);
    pthread_mutex_unlock(&d.lock);
    pthread_join(th, NULL);
    for (int i = 0; i < 8; i++)
        if (d.fds[i] >= 0)
            close(d.fds[i]);
    pthread_mutex_destroy(&d.lock);
    gt_tracker_stop(t);
    gt_tracker_free(t);
}

static void test_slowloris(void)
{
    char addr[64];
    gt_tracker *t = started_exporter(addr, sizeof addr);
    if (!t)
        return;
    struct dripper d = {.stop = 0};
    pthread_mutex_init(&d.lock, NULL);
    for (int i = 0; i < 16; i++) {
        d.fds[i] = connect_from(addr, "127.0.0.1");
        static const char head[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n";
        if (d.fds[i] >= 0)
            send(d.fds[i], head, sizeof head - 1, MSG_NOSIGNAL);
    }
    pthread_t th;
    CHECK(pthread_create(&th, NULL, drip, &d) == 0);
    /* Another client is answered while they drip (it waited for ever: the
     * bound here is only against a hang). */
    int fd = connect_from(addr, "127.0.0.2");
    CHECK_MSG(fd >= 0, "cannot connect from 127.0.0.2: %s", strerror(errno));
    if (fd >= 0) {
        struct timeval limit = {30, 0};
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, sizeof limit);
        static const char req[] = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
        CHECK(write(fd, req, sizeof req - 1) == (ssize_t)(sizeof req - 1));
        struct buf b = {0};
        read_until(fd, &b, NULL); /* the answer ends with the connection */
        CHECK_MSG(b.data && strncmp(b.data, "HTTP/1.1 200", 12) == 0 &&
                      strstr(b.data, "gpu_tracker_threads{"),
                  "no answer beside the slow clients: [%s]", b.data ? b.data : "");
        free(b.data);
        close(fd);
    }
    /* The drippers are cut (their requests had 5 s; the oldest when the
     * connections ran out): waited for, 60 s at most. */
    int all_closed = 0;
    for (int i = 0; i < 600 && !all_closed; i++) {
        pthread_mutex_lock(&d.lock);
        all_closed = d.all_closed;
        pthread_mutex_unlock(&d.lock);
        if (!all_closed)
            usleep(100000);
    }
    CHECK_MSG(all_closed, "slow clients still connected after 60 s of header lines");
    pthread_mutex_lock(&d.lock);
    d.stop = 1;
    pthread_mutex_unlock(&d.lock);
    pthread_join(th, NULL);
    for (int i = 0; i < 16; i++)
        if (d.fds[i] >= 0)
            close(d.fds[i]);
    pthread_mutex_destroy(&d.lock);
    gt_tracker_stop(t);
    gt_tracker_free(t);
}

static void test_io_only_while_looked_at(void)
{
    struct metrics_static st;
    memset(&st, 0, sizeof st);
    struct warn_channel w;
    warn_channel_init(&w, NULL, NULL, 1);
    struct metrics_sink m;
    CHECK(metrics_sink_init(&m, "127.0.0.1:0", NULL, getpid(), &st, &w) == GT_OK);
    double now = 1000.0;
    CHECK(!metrics_sink_wants_io(&m, now)); /* no scraper yet */
    struct metrics_point p;
    memset(&p, 0, sizeof p);
    metrics_sink_update(&m, &p, now);
    char *a = http_request(m.address, "GET", "/metrics", NULL);
    CHECK(a && strncmp(a, "HTTP/1.1 200", 12) == 0);
    free(a);
    now = monotonic_now(); /* the scrape's clock */
    CHECK(metrics_sink_wants_io(&m, now));
    CHECK(!metrics_sink_wants_io(&m, now + METRICS_IO_PERIOD / 2));
    CHECK(metrics_sink_wants_io(&m, now + METRICS_IO_PERIOD));
    /* the scraper gone: no more reads */
    CHECK(!metrics_sink_wants_io(&m, now + METRICS_SCRAPER_GONE + 1));
    metrics_sink_destroy(&m);
}

static void test_textfile(void)
{
    const char *dir = tmp_path("textfile");
    CHECK(mkdir(dir, 0700) == 0);
    mode_t old = umask(027);
    gt_status st;
    gt_tracker *t = exporter_tracker(NULL, dir, NULL, &st);
    CHECK_MSG(st == GT_OK, "%s", gt_last_error());
    CHECK(t && gt_tracker_metrics_address(t) == NULL); /* no HTTP asked */
    char file[512];
    snprintf(file, sizeof file, "%s/gpu-tracker-%d.prom", dir, (int)getpid());
    CHECK(access(file, F_OK) != 0); /* nothing before the first sample */
    if (t && gt_tracker_start(t) == GT_OK) {
        char *text = slurp(file);
        CHECK_MSG(text && strstr(text, "gpu_tracker_samples_total{") && !strstr(text, "# EOF") &&
                      strstr(text, "\ngpu_tracker_io_read_bytes_total{"),
                  "%s", text ? text : "(no file)");
        free(text);
        struct stat sb;
        CHECK(stat(file, &sb) == 0 && (sb.st_mode & 0777) == 0640); /* the umask honoured */
        CHECK(gt_tracker_stop(t) == GT_OK);
        CHECK_MSG(access(file, F_OK) != 0, "%s is left behind", file);
    }
    gt_tracker_free(t);
    umask(old);
}

/* Each bad input: a one-line reason, and no tracker. */
static void test_bad_inputs(void)
{
    int busy = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof a;
    CHECK(bind(busy, (struct sockaddr *)&a, sizeof a) == 0 && listen(busy, 1) == 0 &&
          getsockname(busy, (struct sockaddr *)&a, &len) == 0);
    char spec[64], want[256];
    snprintf(spec, sizeof spec, "127.0.0.1:%d", ntohs(a.sin_port));
    gt_status st;
    gt_tracker *t = exporter_tracker(spec, NULL, NULL, &st);
    CHECK(st == GT_ERR_IO && !t);
    snprintf(want, sizeof want, "cannot serve metrics at %s: Address already in use (another "
             "program listens there: give another port, or port 0 for a free one)", spec);
    CHECK_STR(gt_last_error(), want);

    /* An address of no interface here (TEST-NET-1: nothing is sent). */
    t = exporter_tracker("192.0.2.1:0", NULL, NULL, &st);
    CHECK(st == GT_ERR_IO && !t);
    CHECK_STR(gt_last_error(), "cannot serve metrics at 192.0.2.1:0: Cannot assign requested "
                               "address (not an address of this machine)");
    t = exporter_tracker("localhost:70000", NULL, NULL, &st);
    CHECK(st == GT_ERR_INVALID_ARGUMENT && !t);
    CHECK_CONTAINS(gt_last_error(), "invalid metrics address 'localhost:70000': give PORT");

    /* A textfile directory that is not one, or is missing. */
    const char *plain = tmp_path("plain-file");
    FILE *f = fopen(plain, "w");
    if (f)
        fclose(f);
    t = exporter_tracker(NULL, plain, NULL, &st);
    CHECK(st == GT_ERR_IO && !t);
    snprintf(want, sizeof want, "cannot write the metrics textfile: cannot write '%s/gpu-tracker-%d"
             ".prom': 'plain-file' is not a directory", plain, (int)getpid());
    CHECK_STR(gt_last_error(), want);
    t = exporter_tracker(NULL, "", NULL, &st);
    CHECK(st == GT_ERR_INVALID_ARGUMENT && !t);
    CHECK_STR(gt_last_error(), "empty metrics textfile directory: give node_exporter's textfile "
                               "directory, or NULL for none");

    /* The command line: the same reasons, before the command runs. */
    const char *marker = tmp_path("ran");
    char touch[300];
    snprintf(touch, sizeof touch, "touch %s", marker);
    struct result r = gt("--metrics-listen", spec, "-e", touch, NULL);
    snprintf(want, sizeof want, "gpu-tracker: cannot serve metrics at %s: Address already in use "
             "(another program listens there: give another port, or port 0 for a free one)\n", spec);
    check_error(&r, 1, want);
    r = gt("--metrics-textfile", plain, "-e", touch, NULL);
    CHECK(r.status == 1 && strstr(r.err.data, "cannot write the metrics textfile: "));
    result_free(&r);
    r = gt("--metrics-listen", "::1:80", "-e", touch, NULL);
    check_error(&r, 2, "gpu-tracker: invalid metrics address '::1:80': write an IPv6 address in "
                       "brackets, as [::1]:9101\n");
    r = gt("--metrics-textfile=", "-e", touch, NULL);
    check_error(&r, 2, "gpu-tracker: empty directory name for --metrics-textfile; give "
                       "node_exporter's textfile directory\n");
    CHECK_MSG(access(marker, F_OK) != 0, "the command ran after an error");
    close(busy);
}

/* The command line: port 0 is named on stderr, and served while the
 * command runs. */
static void test_cli_port_zero(void)
{
    char *argv[] = {GT_BIN, "-q", "--no-backup", "--st", "0.05", "--metrics-listen", "0", "--",
                    WORKLOAD_BIN, "spike", "1", NULL};
    struct child c = spawn(argv, 1);
    struct buf err = {0};
    CHECK(read_until(c.err, &err, "/metrics\n") == 0);
    const char *at = err.data ? strstr(err.data, "serving metrics at http://") : NULL;
    CHECK_MSG(at != NULL, "%s", err.data ? err.data : "");
    if (at) {
        char addr[64];
        CHECK(sscanf(at, "serving metrics at http://%63[^/]/metrics", addr) == 1);
        char *a = http_request(addr, "GET", "/metrics", NULL);
        CHECK(a && strstr(a, "command=\"gt-workload\""));
        free(a);
    }
    free(err.data);
    CHECK(write(c.in, "go\n", 3) == 3);
    close(c.in);
    c.in = -1;
    struct result r;
    memset(&r, 0, sizeof r);
    finish(&c, &r);
    CHECK_MSG(r.status == 0, "status %d: %s", r.status, r.err.data);
    result_free(&r);
}

/* The Pushgateway group a run pushes to: job "gpu-tracker", then the Slurm
 * task's labels (or host and PID); a value with other characters than
 * [A-Za-z0-9._-] in the "@base64" form (URL-safe), none empty. */
static void test_push_group(void)
{
    gt_job_info j = {.struct_size = sizeof j};
    snprintf(j.job_id, sizeof j.job_id, "4242");
    snprintf(j.step_id, sizeof j.step_id, "0");
    snprintf(j.task_rank, sizeof j.task_rank, "3");
    char *url = push_group_url("http://pg:9091/", &j, "node07", 77);
    CHECK_STR(url ? url : "", "http://pg:9091/metrics/job/gpu-tracker/job_id/4242/step_id/0/"
                              "task_rank/3/host/node07");
    free(url);
    j.step_id[0] = '\0'; /* a batch script's own step has no id here */
    url = push_group_url("https://pg.example/prefix", &j, "a/b?", 77);
    /* "a/b?" is YS9iPw== in base64 */
    CHECK_STR(url ? url : "", "https://pg.example/prefix/metrics/job/gpu-tracker/job_id/4242/"
                              "task_rank/3/host@base64/YS9iPw==");
    free(url);
    url = push_group_url("http://pg:9091", NULL, "n\xc3\xa9", 77); /* UTF-8 "né": bsOp */
    CHECK_STR(url ? url : "", "http://pg:9091/metrics/job/gpu-tracker/host@base64/bsOp/pid/77");
    free(url);
}

static int never_answer(const char *method, const char *path, const char *headers, int *status,
                        char *body, size_t bodycap)
{
    (void)method;
    (void)path;
    (void)headers;
    (void)status;
    (void)body;
    (void)bodycap;
    return -1;
}

static _Atomic int push_warnings;
static char push_warning[1024];

static void keep_push_warning(const char *message, void *data)
{
    (void)data;
    if (push_warnings++ == 0)
        snprintf(push_warning, sizeof push_warning, "%s", message);
}

/* A Pushgateway that accepts and never answers: a push of the run is in
 * flight when the run stops; it is abandoned while the last push waits
 * its PUSH_TIMEOUT, so the stop costs that once (a push in flight's rest
 * and then the last one's would be about twice it). The bound checked is
 * 1.5 times it, far from either. */
static void test_push_silent(void)
{
    struct httpd h;
    httpd_start(&h, never_answer);
    gt_options o;
    gt_options_init(&o);
    o.sleep_time = 0.1;
    o.resource_usage_file = "";
    o.metrics_push_url = h.base;
    o.metrics_push_interval = 0.2;
    o.on_warning = keep_push_warning;
    gt_tracker *t = NULL;
    CHECK(gt_tracker_new(&o, &t) == GT_OK && gt_tracker_start(t) == GT_OK);
    /* until the interval push has reached the server and hangs there */
    for (int i = 0; i < 200 && h.requests == 0; i++)
        usleep(20 * 1000);
    CHECK_MSG(h.requests >= 1, "no push during the run reached the server");
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    CHECK(gt_tracker_stop(t) == GT_OK);
    clock_gettime(CLOCK_MONOTONIC, &b);
    double took = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
    CHECK_MSG(took < 1.5 * PUSH_TIMEOUT, "the stop waited %.1f s for a silent Pushgateway "
              "(the last push's deadline is %.0f s)", took, PUSH_TIMEOUT);
    CHECK_MSG(push_warnings == 1 && strstr(push_warning, "cannot push metrics") &&
                  strstr(push_warning, "imed out"),
              "one warning, of the last push's timeout: %d %s", (int)push_warnings, push_warning);
    gt_tracker_free(t);
    httpd_stop(&h);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    tmpdir_make("metrics");
    test_labels();
    test_render();
    test_listen_parse();
    test_endpoint();
    test_slowloris();
    test_slow_loopback_clients();
    test_io_only_while_looked_at();
    test_textfile();
    test_push_group();
    test_push_silent();
    test_bad_inputs();
    test_cli_port_zero();
    tmpdir_remove();
    return check_exit("test_metrics");
}
