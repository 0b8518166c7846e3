/* report_html.c - the report's page: its template (page/report.html with
 * its style and script, embedded at build time) and the small pieces of
 * HTML every section writes: escaped text, a card, a table row, a time
 * and a duration for people. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report/report_html.h"

void report_text(struct buf *b, const char *s)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&': buf_puts(b, "&amp;"); break;
        case '<': buf_puts(b, "&lt;"); break;
        case '>': buf_puts(b, "&gt;"); break;
        case '"': buf_puts(b, "&quot;"); break;
        case '\'': buf_puts(b, "&#39;"); break;
        default: buf_add(b, s, 1);
        }
    }
}

void report_time_text(double epoch, char *out, size_t cap)
{
    struct tm tm;
    /* A hand-made snapshot may hold anything: convert only what a clock can. */
    time_t t = epoch > 0 && epoch < 1e11 ? (time_t)epoch : 0;
    if (t <= 0 || !gmtime_r(&t, &tm)) {
        snprintf(out, cap, "unknown");
        return;
    }
    strftime(out, cap, "%Y-%m-%d %H:%M:%S UTC", &tm);
}

void report_duration_text(double s, char *out, size_t cap)
{
    if (!(s >= 0) || s > 1e12) /* a hand-made snapshot: nothing to convert */
        snprintf(out, cap, "unknown");
    else if (s < 60)
        snprintf(out, cap, "%.1f s", s);
    else if (s < 3600)
        snprintf(out, cap, "%d min %02d s", (int)(s / 60), (int)((long long)s % 60));
    else
        snprintf(out, cap, "%.0f h %02d min", floor(s / 3600), (int)((long long)(s / 60) % 60));
}

void report_card(struct buf *b, const char *cls, const char *key, const char *value,
                 const char *sub)
{
    buf_printf(b, "<div class=\"card%s%s\"><div class=\"k\">", *cls ? " " : "", cls);
    report_text(b, key);
    buf_puts(b, "</div><div class=\"v\">");
    report_text(b, value);
    buf_puts(b, "</div><div class=\"s\">");
    report_text(b, sub);
    buf_puts(b, "</div></div>\n");
}

void report_row(struct buf *b, const char *key, const char *value)
{
    buf_puts(b, "<tr><th>");
    report_text(b, key);
    buf_puts(b, "</th><td>");
    report_text(b, value);
    buf_puts(b, "</td></tr>\n");
}

void report_page_until(struct buf *b, const char **at, const char *slot)
{
    char marker[48];
    if (slot)
        snprintf(marker, sizeof marker, "<!--@%s-->", slot);
    const char *end = slot ? strstr(*at, marker) : NULL;
    size_t n = end ? (size_t)(end - *at) : strlen(*at);
    buf_add(b, *at, n);
    *at += end ? n + strlen(marker) : n;
}
