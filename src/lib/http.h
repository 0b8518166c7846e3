/* http.h - libcurl set up once for the library's HTTP clients (cloud
 * metadata, the Keeper API). */
#ifndef GT_HTTP_H
#define GT_HTTP_H

/* Initializes libcurl the first time (thread-safe); 1 when it is usable. */
int http_ready(void);

#endif
