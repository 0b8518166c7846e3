/* human.h - figures as a person reads them at a glance: binary units chosen
 * by size (B, KiB, MiB, GiB, TiB) and durations in s, m:ss or h:mm:ss. Used
 * by the live status line (live.c). */
#ifndef GT_CLI_HUMAN_H
#define GT_CLI_HUMAN_H

#include <stddef.h>

/* bytes as "812 B", "3.4 KiB", "512 MiB", "1.25 GiB": three significant
 * figures at most, the largest unit that keeps the number at least 1.
 * Negative or non-finite input is written as "-". Returns buf. */
char *human_bytes(char *buf, size_t cap, double bytes);

/* A length of time: "0.42 s" and "12.3 s" under a minute, "4:05" (m:ss)
 * under an hour, "3:02:11" (h:mm:ss) beyond; whole seconds truncated, as a
 * clock shows them. Negative or non-finite input is "-". Returns buf. */
char *human_duration(char *buf, size_t cap, double seconds);

/* A clock: "m:ss" under an hour, "h:mm:ss" beyond (never fractions: a
 * status line that changes once a second). Returns buf. */
char *human_clock(char *buf, size_t cap, double seconds);

#endif
