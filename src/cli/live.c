/* live.c - the status line on a terminal while tracking (see live.h).
 *
 * The line lives on the terminal's last row, below a scroll region that
 * holds everything else (as apt's progress bar does): the command writes
 * to the same terminal, and its lines scroll above ours instead of being
 * glued to it, and no stale copy of the line is left in the scrollback.
 * Each redraw is one write(2) (the terminal driver never interleaves
 * another process's write inside one of ours): save the cursor, go to the
 * last row, the text cut to the width, erase the rest, restore the cursor.
 * The region is given back (and the row erased) when tracking ends, when
 * we are stopped (Ctrl-Z: the shell gets a whole terminal) and set again
 * when continued in the foreground or resized, and at every redraw (a
 * command may have reset it). Warnings come from the
 * tracker's sampling thread, so a mutex orders the line and them. */
#define _GNU_SOURCE
#include "live.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "human.h"
#include "common/toolkit.h"

static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static int live_fd = -1;      /* -1: off */
static int region_rows;       /* rows of the terminal the region was set for; 0: not set */
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
            region_rows = 0;
            return;
        }
        buf += w;
        len -= (size_t)w;
    }
}

/* The terminal's size; rows 0 when it does not say. */
static void terminal_size(int fd, size_t *rows, size_t *cols)
{
    struct winsize ws;
    *rows = 0;
    *cols = 80;
    if (ioctl(fd, TIOCGWINSZ, &ws) == 0) {
        *rows = ws.ws_row;
        if (ws.ws_col > 0)
            *cols = ws.ws_col;
    }
}

/* We are the terminal's foreground (a job put in the background must not
 * draw over the shell). */
static int in_foreground(int fd)
{
    pid_t fg = tcgetpgrp(fd);
    return fg < 0 || fg == getpgrp();
}

/* Frees the last row for the line and keeps everything else scrolling
 * above it. Index then cursor-up keeps the cursor's row and column: at the
 * bottom, index scrolls what is there up one row (making the last row
 * free) and the cursor follows it; elsewhere it is a no-op. Setting the
 * region homes the cursor, hence the save and restore around it. */
static void region_set_locked(void)
{
    size_t rows, cols;
    terminal_size(live_fd, &rows, &cols);
    if (rows < 2) {
        region_rows = 0; /* no row to spare: no line */
        return;
    }
    char seq[64];
    int n = snprintf(seq, sizeof seq, "\033D\033[A\0337\033[1;%zur\0338", rows - 1);
    write_all(seq, (size_t)n);
    if (live_fd >= 0)
        region_rows = (int)rows;
}

/* Erases the line and gives the whole terminal back (the cursor stays
 * where the command left it). */
static void region_clear_locked(void)
{
    if (live_fd < 0 || region_rows == 0)
        return;
    char seq[64];
    int n = snprintf(seq, sizeof seq, "\0337\033[%d;1H\033[2K\033[r\0338", region_rows);
    write_all(seq, (size_t)n);
    region_rows = 0;
}

/* On a new size, the terminal has reset the region and moved rows about;
 * where our old line went is not known, but it is still below the cursor
 * (rows move together): everything below the cursor's row is erased, then
 * the region is set for the new size. */
static void region_resize_locked(void)
{
    if (live_fd < 0 || region_rows == 0)
        return;
    static const char erase_below[] = "\0337\033[r\0338\0337\033[B\r\033[J\0338";
    write_all(erase_below, sizeof erase_below - 1);
    region_rows = 0;
    if (live_fd >= 0)
        region_set_locked();
}

int live_begin(int fd, int enabled)
{
    pthread_mutex_lock(&live_lock);
    const char *term = getenv("TERM");
    /* A terminal that knows no cursor addressing gets no line. */
    int capable = term && *term && strcmp(term, "dumb") != 0;
    live_fd = enabled && capable && isatty(fd) ? fd : -1;
    region_rows = 0;
    last_draw = -1;
    if (live_fd >= 0 && in_foreground(live_fd))
        region_set_locked();
    int on = live_fd >= 0;
    pthread_mutex_unlock(&live_lock);
    return on;
}

/* What the status line shows, the tracker's figures of its newest sample
 * (gt_tracker_figure: cheap, no summary is made). */
struct status_figures {
    double elapsed, samples, rss_bytes, rss_peak_bytes;
    int have_cpu, have_gpu;
    double cpu_percent, gpu_ram_bytes, gpu_util_percent;
};

/* The figures of t now into *p; 0, or -1 before its first sample. */
static int status_figures_read(gt_tracker *t, struct status_figures *p)
{
    memset(p, 0, sizeof *p);
    if (gt_tracker_figure(t, GT_FIGURE_ELAPSED_SECONDS, &p->elapsed) != GT_OK ||
        gt_tracker_figure(t, GT_FIGURE_SAMPLES, &p->samples) != GT_OK ||
        gt_tracker_figure(t, GT_FIGURE_RSS_BYTES, &p->rss_bytes) != GT_OK ||
        gt_tracker_figure(t, GT_FIGURE_PEAK_RSS_BYTES, &p->rss_peak_bytes) != GT_OK)
        return -1;
    p->have_cpu = gt_tracker_figure(t, GT_FIGURE_CPU_PERCENT, &p->cpu_percent) == GT_OK;
    p->have_gpu = gt_tracker_figure(t, GT_FIGURE_GPU_RAM_BYTES, &p->gpu_ram_bytes) == GT_OK &&
                  gt_tracker_figure(t, GT_FIGURE_GPU_UTIL_PERCENT, &p->gpu_util_percent) == GT_OK;
    return 0;
}

/* The line's text for the figures p, at most width - 1 columns: its parts in
 * the order of what matters most, and those that do not fit left out
 * whole (a figure cut in half reads as another figure: "GPU 1.82 GiB, "
 * without its utilization was seen on an 80-column terminal). */
static void format_line(const struct status_figures *p, size_t width, char *out, size_t cap)
{
    char clock[32], rss[32], peak[32], gpu_mem[32];
    char parts[5][96];
    human_clock(clock, sizeof clock, p->elapsed);
    human_bytes(rss, sizeof rss, p->rss_bytes);
    human_bytes(peak, sizeof peak, p->rss_peak_bytes);
    snprintf(parts[0], sizeof parts[0], "gpu-tracker %s", clock);
    if (p->have_cpu)
        snprintf(parts[1], sizeof parts[1], "CPU %.2f cores", p->cpu_percent / 100);
    else
        snprintf(parts[1], sizeof parts[1], "CPU -");
    snprintf(parts[2], sizeof parts[2], "RSS %s (peak %s)", rss, peak);
    parts[3][0] = '\0';
    if (p->have_gpu)
        snprintf(parts[3], sizeof parts[3], "GPU %s %.0f%%",
                 human_bytes(gpu_mem, sizeof gpu_mem, p->gpu_ram_bytes),
                 p->gpu_util_percent);
    snprintf(parts[4], sizeof parts[4], "%.0f sample%s", p->samples, p->samples == 1 ? "" : "s");
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
    /* In the background, nothing is drawn over the shell. */
    if (!in_foreground(live_fd)) {
        pthread_mutex_unlock(&live_lock);
        return;
    }
    if (region_rows == 0)
        region_set_locked(); /* continued in the foreground, or a terminal grown */
    struct status_figures p;
    if (region_rows > 0 && status_figures_read(t, &p) == 0) {
        char text[512], line[700];
        size_t rows, width;
        terminal_size(live_fd, &rows, &width);
        if (rows != (size_t)region_rows)
            region_resize_locked(); /* a SIGWINCH not seen (yet) */
        format_line(&p, width, text, sizeof text);
        size_t len = strlen(text);
        if (width > 1 && len > width - 1)
            len = width - 1; /* the last column would wrap on some terminals */
        /* The region is set again at every redraw: a command may have
         * reset it (ESC[r), and its output then scrolls the whole
         * terminal, our line with it. Nothing says so, so each redraw
         * mends it, the same write that draws: the whole terminal made
         * the region for a moment (cursor kept), index and cursor-up
         * (a no-op, unless the command's output had reached our row: then
         * that row scrolls up, off our line's row), the region again, the
         * line. So a reset costs at most what scrolled before the next
         * redraw, never a copy at every one. */
        int n = snprintf(line, sizeof line,
                         "\0337\033[r\0338\033D\033[A\0337\033[1;%dr\0338"
                         "\0337\033[%d;1H%.*s\033[K\0338",
                         region_rows - 1, region_rows, (int)len, text);
        if (n > 0 && region_rows > 0)
            write_all(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
        last_draw = now;
    }
    pthread_mutex_unlock(&live_lock);
}

void live_signal(int signo)
{
    pthread_mutex_lock(&live_lock);
    if (signo == SIGWINCH) {
        region_resize_locked();
        last_draw = -1; /* redraw at the next tick */
    } else if (signo == SIGTSTP) {
        region_clear_locked();
    } else if (signo == SIGCONT) {
        last_draw = -1; /* the next tick sets the region again, if in the foreground */
    }
    pthread_mutex_unlock(&live_lock);
    if (signo == SIGTSTP)
        raise(SIGSTOP); /* what SIGTSTP would have done, now that the terminal is whole */
}

void live_end(void)
{
    pthread_mutex_lock(&live_lock);
    region_clear_locked();
    live_fd = -1;
    pthread_mutex_unlock(&live_lock);
}

void live_pause(void)
{
    pthread_mutex_lock(&live_lock);
}

void live_resume(void)
{
    pthread_mutex_unlock(&live_lock);
}
