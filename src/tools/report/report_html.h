/* report_html.h - the report's page and the pieces of HTML its sections
 * share. Private to the report wing. */
#ifndef GT_REPORT_HTML_H
#define GT_REPORT_HTML_H

#include <stddef.h>

#include "common/buf.h"

/* The page (src/tools/report/page/report.html, with report.css and
 * report.js inlined where it says <!--@css--> and <!--@js-->), made into C
 * at build time (cmake/embed_page.cmake). What the report fills in is
 * marked <!--@NAME-->: title, header, main, version, in that order (the
 * build checks that each is there once, in that order). */
extern const char report_page[];

/* Writes the page from *at up to the slot <!--@slot--> and moves *at past
 * it; with slot NULL, or no such slot (never, for report_page), the rest
 * of the page. */
void report_page_until(struct buf *b, const char **at, const char *slot);

/* Text as HTML: & < > " ' escaped. */
void report_text(struct buf *b, const char *s);

/* A card of the summary's grid (cls "", "rec" or "warn"): key, value and
 * the line under it, each escaped. */
void report_card(struct buf *b, const char *cls, const char *key, const char *value,
                 const char *sub);

/* A table row: key in <th>, value in <td>, each escaped. */
void report_row(struct buf *b, const char *key, const char *value);

/* An epoch time as "2026-12-02 04:02:02 UTC" ("unknown" when no clock
 * reads it). */
void report_time_text(double epoch, char *out, size_t cap);

/* A duration as "12.3 s", "4 min 05 s", "3 h 02 min" ("unknown" when not
 * one). */
void report_duration_text(double s, char *out, size_t cap);

#endif
