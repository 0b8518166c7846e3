/* json_c_loader.h - json-c, loaded by the gpu-tracker command at its first
 * JSON call rather than linked (json_c_loader.c).
 *
 * A run that writes no JSON (a text summary, a command that ends before the
 * backup's first write) never maps json-c: mapping and relocating it was
 * about 0.04 ms of every start and 76 KiB of every run's RSS
 * (docs/performance.md, "Start-up"). Only the gpu-tracker executable works
 * this way: libgputracker.so, libgputracker.a and the Python module link
 * json-c as before, and so does the command built with the sanitizers
 * (CMakeLists.txt says why). The Debian package depends on libjson-c5 by
 * name. */
#ifndef GT_JSON_C_LOADER_H
#define GT_JSON_C_LOADER_H

/* The file dlopen'ed at the first JSON call. */
#define JSON_C_LIBRARY "libjson-c.so.5"

/* For tests: load file instead of JSON_C_LIBRARY. Only before the first
 * JSON call, which loads once for the life of the process. */
void json_c_loader_use(const char *file);

/* 1 when json-c is loaded (loading it now if no JSON call has yet), 0 when
 * it cannot be: then every JSON call fails as json-c fails on a NULL object
 * or without memory (NULL, -1, 0, "null"), and one line on standard error
 * has said why, once. */
int json_c_loader_ready(void);

#endif
