/* common/toolkit.h - the face of the common toolkit (src/common) for the
 * tracking library's users outside it: the command, the tools, the Python
 * module and the plugin. Sizes and times for people, the one escaper of
 * untrusted text, files read and written under the rules a program run
 * as root on shared machines needs, and the parsers of what people type
 * (common/units.h). The toolkit is linked, hidden, into each of them and
 * into the library; nothing here is exported from libgputracker.so, and
 * nothing carries gpu_tracker.h's promise. Inside the library and the
 * tools, a file includes the toolkit's header of the one concern it uses
 * (common/buf.h, common/json_read.h, ...). */
#ifndef GT_COMMON_TOOLKIT_H
#define GT_COMMON_TOOLKIT_H

#include <stddef.h>

#include "gpu_tracker.h"
#include "common/gpu_advice.h" /* what the GPUs say to ask for, the throttle names */
#include "common/units.h"      /* sizes, durations and numbers people type */
#include "common/summary/usage_write.h" /* the summary as text and JSON */

/* ---- Figures for people (src/common/human_units.c) ------------------------------ */

/* Every people-facing output (-f human, the status line, limits, compare,
 * stats, the report) writes sizes in powers of 1024 and says so: KiB, MiB,
 * GiB. Each writes into buf (cap bytes) and returns it; a negative or
 * non-finite value is written "-". */

/* bytes as "812 B", "3.40 KiB", "512 MiB", "1.25 GiB": three significant
 * figures, the largest unit that keeps the number at least 1. */
char *human_bytes(char *buf, size_t cap, double bytes);

/* A length of time: "0.42 s" and "12.3 s" under a minute, "4:05" (m:ss)
 * under an hour, "3:02:11" (h:mm:ss) beyond; whole seconds truncated, as a
 * clock shows them. */
char *human_duration(char *buf, size_t cap, double seconds);

/* A clock: "m:ss" under an hour, "h:mm:ss" beyond (never fractions: a
 * status line that changes once a second). */
char *human_clock(char *buf, size_t cap, double seconds);

/* joules as "850 J", "1.20 kJ", "3.46 MJ" (three significant figures), and
 * as watt-hours: "0.333 Wh" is "0.33 Wh", "1.25 kWh". */
char *human_energy(char *buf, size_t cap, double joules);
char *human_watt_hours(char *buf, size_t cap, double joules);

/* s, which came from an untrusted source (a file, a server), made safe to print on
 * a terminal: control characters (C0, DEL, C1: escape sequences, a
 * carriage return) and bytes that are not UTF-8 shown as \xNN, the rest
 * as it is. malloc'd (caller frees); NULL when memory runs out. NULL s is
 * "". */
char *text_escape(const char *s);

/* text_escape(s) into out, cut to fit cap bytes (cap > 0) at the start
 * of a character ("?" when memory runs out): for an untrusted name in a
 * message. Returns out. */
const char *text_escape_into(const char *s, char *out, size_t cap);

/* ---- Output files --------------------------------------------------------
 * Every file the library writes follows these rules (docs/cli.md, "Output
 * files"), made for a program run as root on shared machines:
 *  - a symbolic link is followed only when it belongs to you or to root; a
 *    link someone else planted is an error, never a way to replace a file
 *    elsewhere (/dev/stdout and /dev/fd/N are opened and appended to);
 *  - a name another user made (not you, not root, not the directory's
 *    owner) in a directory others may write to (/tmp) is never opened: a
 *    check refuses it, and a write replaces it with a new file of yours;
 *  - a new file gets mode 0666 less the umask; an existing regular file is
 *    replaced atomically and keeps its mode, owner and group; one with other
 *    hard links is written in place when it is yours, in a directory no one
 *    else may write to (otherwise a new file takes its name); a FIFO or a
 *    device is written in place, never replaced, after a check that it is
 *    the one that was resolved;
 *  - a write whose name is taken by a directory, or that may not replace
 *    what is there, is kept beside it as NAME.saved-XXXXXXXXXXXX and the
 *    error (GT_ERR_IO) says where.
 * The gpu-tracker command and the Python module write their own outputs
 * through these; they are not exported from libgputracker.so. */

/* Resolves path now, checks it as output_file_check() does, and keeps its
 * directory open: until output_file_release(path), every write of the library
 * to path (the same string: output_file_write, the snapshot and report
 * writers, ...) goes into that directory under the name
 * resolved now, whatever happens meanwhile to the directories on the way
 * (a link or a directory planted during a run). Holding a held path again
 * resolves it again. Thread-safe. GT_ERR_IO with the reason, as
 * output_file_check(). */
gt_status output_file_hold(const char *path);

/* Forgets output_file_hold(path); path unheld: nothing. */
void output_file_release(const char *path);

/* Checks that path could be written, creating and changing nothing (a FIFO
 * is not even opened). GT_ERR_IO with the reason in gt_last_error(). */
gt_status output_file_check(const char *path);

/* Opens path for writing a stream (a CSV written row by row): created, or
 * emptied in place (keeping its mode and owner); close-on-exec. A FIFO's
 * open waits for a reader. GT_ERR_IO with the reason. */
gt_status output_file_open(const char *path, int *fd);

/* 1 when writing to a and to b would write one file (the same name once
 * links are followed, or two names of one file): two outputs must not be
 * given the same path. 0 otherwise, or when either cannot be resolved
 * (output_file_check() then says why). */
int output_file_same(const char *a, const char *b);

/* Writes len bytes of data to path under the rules above, atomically: a
 * failure leaves an existing file as it was. GT_ERR_IO with the reason. */
gt_status output_file_write(const char *path, const void *data, size_t len);

/* The file now at an output's name (held or resolved as output_file_write
 * would: the name itself never followed), for a writer that adds to it (a
 * benchmark file gets a row): *data (malloc'd, NUL-terminated after *len
 * bytes) or NULL when nothing there is to be kept: no file; a symbolic link
 * put at the name (*replaced 1: the write replaces it, never follows it);
 * another user's file in a directory others may write to (*replaced 1).
 * GT_ERR_IO when it cannot be read (a directory, a FIFO, more than max
 * bytes), GT_ERR_NO_MEMORY. */
gt_status output_file_read(const char *path, size_t max, const char *what,
                                     char **data, size_t *len, int *replaced);

/* Reads the regular file path whole, as the library reads what untrusted sources
 * give it: a FIFO or a directory is an error (never a wait), and a file of
 * more than max bytes is refused with the limit in the message. *data is
 * malloc'd and NUL-terminated after *len bytes (len may be NULL). what
 * names the file in messages ("config file"). GT_ERR_IO, GT_ERR_NO_MEMORY. */
gt_status input_file_read(const char *path, size_t max, const char *what, char **data,
                              size_t *len);

/* Opens path to read as input_file_read() reads it (no link of another user's
 * followed, only a regular file, looked at before it is opened): *fd
 * (O_RDONLY, close-on-exec), for a reader that parses from a descriptor.
 * what names the file in messages ("tracking file"; NULL: none).
 * GT_ERR_IO with the reason, GT_ERR_NO_MEMORY. */
gt_status input_file_open(const char *path, const char *what, int *fd);

/* input_file_read() of a file whose contents are trusted (the options of a
 * program run as root): it must also be owned by the effective user or
 * root and writable by no one else; GT_ERR_IO with the reason otherwise. */
gt_status input_file_read_private(const char *path, size_t max, const char *what,
                                           char **data, size_t *len);

/* For a run as root (or set-user-ID): whether it may use what a variable
 * of its caller's environment names. path_library_trusted: path is absolute,
 * a regular file owned by root (or the effective user) and writable by no
 * one else, every directory on the way as the config file's
 * (input_file_read_private). path_tree_trusted: path is a directory under the
 * same rules, and either a procfs or sysfs mount or a tree (100000
 * entries at most) whose directories, itself included, are root's and
 * writable by no one else (not even sticky), whose links are root's and stay inside it, and which holds no
 * FIFO, device or socket: nothing in it can be changed by another user or
 * make a read wait. GT_OK, or GT_ERR_IO / GT_ERR_INVALID_ARGUMENT with a
 * one-line reason naming what (the variable) and the first thing wrong. */
gt_status path_library_trusted(const char *path, const char *what);
gt_status path_tree_trusted(const char *path, const char *what);
/* path_dir_trusted: path is a directory under those rules (no walk below
 * it): one whose entries no one but root (or the effective user) can
 * change, where a sticky one such as /tmp counts. */
gt_status path_dir_trusted(const char *path, const char *what);

/* The names of the columns of kind's rows that resource_tracker's tables
 * have, in its order (the first of gt_process_row's or gt_system_row's
 * columns; ours follow in the system rows): the i-th, NULL past the last.
 * kind is GT_SERIES_KIND_PROCESS (0) or GT_SERIES_KIND_SYSTEM (1). */
const char *series_column_name(int kind, size_t i);

#endif
