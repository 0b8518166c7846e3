/* request_guard.h - a deadline on the requests an HTTP server is sent: a
 * connection that has not delivered its whole request within a bound of
 * its start is cut (shutdown(2): its server sees the end and closes it),
 * so that clients sending a header line every few seconds (slowloris)
 * cannot hold every connection of the exporter for ever. libmicrohttpd's
 * own timeout is on idleness, which a byte every few seconds resets.
 *
 * The server tells the guard when a connection starts (its descriptor),
 * when its request has come in, and when it is closed: a descriptor is
 * cut only between the first and the last, under the guard's lock, so a
 * number the server has closed (and the kernel may have given to another
 * file) is never touched. One thread of the guard's own sleeps until the
 * nearest deadline, and not at all when no request is pending.
 *
 * When the server's connections are all taken, the guard makes room: a
 * connection that starts then has the oldest connection whose request is
 * still coming in cut. A scraper sends its request whole at once and is
 * answered at once, so clients that drip theirs (from one address, which
 * is all of loopback, or many) can never keep it out: they only cut each
 * other. No limit by address is needed, and none is kept. */
#ifndef GT_REQUEST_GUARD_H
#define GT_REQUEST_GUARD_H

struct request_guard;

/* A guard cutting requests not whole within seconds, for a server of at
 * most limit connections at once (its own limit). NULL when memory or a
 * thread cannot be had. */
struct request_guard *request_guard_start(double seconds, int limit);

/* A connection on fd has started: its token. When it takes the server's
 * last connection, the oldest one whose request is still coming in is
 * cut. NULL (not guarded) only past twice the limit of connections not yet
 * closed, which the server's limit does not let happen. */
void *request_guard_started(struct request_guard *g, int fd);

/* Its request has come in whole: no longer cut. token NULL: nothing. */
void request_guard_received(struct request_guard *g, void *token);

/* It is being closed (its descriptor still open): forgotten. */
void request_guard_closed(struct request_guard *g, void *token);

/* Ends the thread and frees g; the server has closed every connection
 * first. NULL: nothing. */
void request_guard_stop(struct request_guard *g);

#endif
