/* live.c - the status line on a terminal while tracking (see live.h).
 *
 * The line is written with one write(2) per redraw: a carriage return, the
 * text cut to the terminal's width (a line that wrapped could no longer be
 * erased by the next carriage return) and "erase to end of line". Warnings
 * come from the tracker's sampling thread, so a mutex orders the line and
 * them: a warning erases the line, prints on a clean row, and the next
 * tick draws the line again below it. */
#define _GNU_SOURCE
#include "live.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "human.h"

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static int live_fd = -1;      /* -1: off */
static int drawn;             /* the line is on the screen now */
static double last_draw = -1; /* monotonic seconds of the last redraw */

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Writes all of buf, retrying short writes; a failure turns the line off
 * (a terminal that went away must not cost a write per tick). */
static void write_all(const char *buf, size_t len)
{
    while (len > 0) {
        ssize_t w = write(live_fd, buf, len);
        if (w <= 0) {
            live_fd = -1;
            return;
        }
        buf += w;
        len -= (size_t)w;
    }
}

static void erase_locked(void)
{
    if (live_fd >= 0 && drawn)
        write_all("\r\033[K", 4);
    drawn = 0;
}

int live_begin(int fd, int enabled)
{
    pthread_mutex_lock(&live_lock);
    live_fd = enabled && isatty(fd) ? fd : -1;
    drawn = 0;
    last_draw = -1;
    int on = live_fd >= 0;
    pthread_mutex_unlock(&live_lock);
    return on;
}

/* The terminal's width in columns (80 when it does not say). */
static size_t terminal_width(int fd)
{
    struct winsize ws;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}

/* The line's text for progress p, at most width - 1 columns: its parts in
 * the order of what matters most, and those that do not fit left out
 * whole (a figure cut in half reads as another figure: "GPU 1.82 GiB, "
 * without its utilization was seen on an 80-column terminal). */
static void format_line(const gt_progress *p, size_t width, char *out, size_t cap)
{
    char clock[32], rss[32], peak[32], gpu_mem[32];
    char parts[5][96];
    human_clock(clock, sizeof clock, p->elapsed);
    human_bytes(rss, sizeof rss, p->rss_mib * 1024 * 1024);
    human_bytes(peak, sizeof peak, p->rss_peak_mib * 1024 * 1024);
    snprintf(parts[0], sizeof parts[0], "gpu-tracker %s", clock);
    if (p->have_cpu)
        snprintf(parts[1], sizeof parts[1], "CPU %.2f cores", p->cpu_cores);
    else
        snprintf(parts[1], sizeof parts[1], "CPU -");
    snprintf(parts[2], sizeof parts[2], "RSS %s (peak %s)", rss, peak);
    parts[3][0] = '\0';
    if (p->have_gpu)
        snprintf(parts[3], sizeof parts[3], "GPU %s %.0f%%",
                 human_bytes(gpu_mem, sizeof gpu_mem, p->gpu_memory_mib * 1024 * 1024),
                 p->gpu_util_percent);
    snprintf(parts[4], sizeof parts[4], "%ld sample%s", p->samples, p->samples == 1 ? "" : "s");
    /* Left out first when the terminal is narrow: the samples, then the
     * peak, then the GPU; elapsed time, CPU and RSS stay. */
    static const int drop_order[] = {4, 2, 3};
    int keep[5] = {1, 1, 1, parts[3][0] != '\0', 1};
    int peak_short = 0;
    for (size_t d = 0;; d++) {
        size_t len = 0;
        for (int i = 0; i < 5; i++)
            if (keep[i])
                len += (len ? 3 : 0) + (i == 2 && peak_short ? strlen("RSS ") + strlen(rss)
                                                               : strlen(parts[i]));
        if (width <= 1 || len <= width - 1 || d >= sizeof drop_order / sizeof drop_order[0])
            break;
        if (drop_order[d] == 2)
            peak_short = 1; /* RSS stays, its peak goes */
        else
            keep[drop_order[d]] = 0;
    }
    if (peak_short)
        snprintf(parts[2], sizeof parts[2], "RSS %s", rss);
    size_t n = 0;
    out[0] = '\0';
    for (int i = 0; i < 5 && n < cap; i++)
        if (keep[i])
            n += (size_t)snprintf(out + n, cap - n, "%s%s", n ? " | " : "", parts[i]);
}

void live_tick(gt_tracker *t)
{
    pthread_mutex_lock(&live_lock);
    double now = now_seconds();
    if (live_fd < 0 || (last_draw >= 0 && now - last_draw < 0.5)) {
        pthread_mutex_unlock(&live_lock);
        return;
    }
    gt_progress p;
    memset(&p, 0, sizeof p);
    p.struct_size = sizeof p;
    if (gt_tracker_progress(t, &p) == GT_OK) {
        char text[512], line[600];
        size_t width = terminal_width(live_fd);
        format_line(&p, width, text, sizeof text);
        size_t len = strlen(text);
        if (width > 1 && len > width - 1)
            len = width - 1; /* the last column would wrap on some terminals */
        int n = snprintf(line, sizeof line, "\r%.*s\033[K", (int)len, text);
        if (n > 0)
            write_all(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        drawn = 1;
        last_draw = now;
    }
    pthread_mutex_unlock(&live_lock);
}

void live_end(void)
{
    pthread_mutex_lock(&live_lock);
    erase_locked();
    live_fd = -1;
    pthread_mutex_unlock(&live_lock);
}

void live_pause(void)
{
    pthread_mutex_lock(&live_lock);
    erase_locked();
    last_draw = -1; /* draw again at the next tick */
}

void live_resume(void)
{
    pthread_mutex_unlock(&live_lock);
}
