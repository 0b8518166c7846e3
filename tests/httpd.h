/* httpd.h - a tiny HTTP server on 127.0.0.1 for the tests: fake cloud
 * metadata services and a fake Keeper API. It answers each request from a
 * handler the test gives (or never answers, to test timeouts), and counts
 * the requests. Nothing in the tests talks to any other address. */
#ifndef GT_TEST_HTTPD_H
#define GT_TEST_HTTPD_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Fills status and body (at most bodycap) for a request; headers is the
 * whole header block. Returns 0 to answer, -1 to never answer. A status of
 * 3xx answers a redirect to the body's text. */
typedef int (*httpd_handler)(const char *method, const char *path, const char *headers,
                             int *status, char *body, size_t bodycap);

struct httpd {
    int fd;
    int port;
    pthread_t thread;
    httpd_handler handler;
    _Atomic int stop;     /* set by the test, read by the server thread */
    _Atomic int requests; /* counted by the server thread */
    char base[64]; /* http://127.0.0.1:PORT */
};

static void *httpd_main(void *arg)
{
    struct httpd *h = arg;
    int hung[64], nhung = 0;
    while (!h->stop) {
        struct pollfd p = {h->fd, POLLIN, 0};
        if (poll(&p, 1, 50) <= 0)
            continue;
        int c = accept(h->fd, NULL, NULL);
        if (c < 0)
            continue;
        char req[8192];
        size_t n = 0;
        req[0] = '\0';
        while (n < sizeof req - 1 && !strstr(req, "\r\n\r\n")) {
            struct pollfd q = {c, POLLIN, 0};
            if (poll(&q, 1, 2000) <= 0)
                break;
            ssize_t r = read(c, req + n, sizeof req - 1 - n);
            if (r <= 0)
                break;
            n += (size_t)r;
            req[n] = '\0';
        }
        req[n] = '\0';
        char method[16] = "", path[2048] = "";
        sscanf(req, "%15s %2047s", method, path);
        h->requests++;
        int status = 404;
        static char body[65536];
        body[0] = '\0';
        if (h->handler(method, path, req, &status, body, sizeof body) < 0) {
            if (nhung < 64)
                hung[nhung++] = c; /* keep it open, never answer */
            else
                close(c);
            continue;
        }
        char head[2400];
        int hl;
        if (status >= 300 && status < 400) { /* a redirect: the body is where to */
            hl = snprintf(head, sizeof head,
                          "HTTP/1.1 %d X\r\nLocation: %.2000s\r\nContent-Length: 0\r\n"
                          "Connection: close\r\n\r\n", status, body);
            body[0] = '\0';
        } else {
            hl = snprintf(head, sizeof head,
                          "HTTP/1.1 %d X\r\nContent-Length: %zu\r\nContent-Type: "
                          "application/json\r\nConnection: close\r\n\r\n",
                          status, strlen(body));
        }
        if (write(c, head, (size_t)hl) < 0 || write(c, body, strlen(body)) < 0)
            perror("httpd write");
        close(c);
    }
    for (int i = 0; i < nhung; i++)
        close(hung[i]);
    return NULL;
}

/* Starts a server on an ephemeral port of 127.0.0.1; exits the test if it
 * cannot. */
static inline void httpd_start(struct httpd *h, httpd_handler handler)
{
    memset(h, 0, sizeof *h);
    h->handler = handler;
    h->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (h->fd < 0 || bind(h->fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(h->fd, 16) < 0 ||
        getsockname(h->fd, (struct sockaddr *)&a, &len) < 0) {
        perror("httpd");
        exit(99);
    }
    h->port = ntohs(a.sin_port);
    snprintf(h->base, sizeof h->base, "http://127.0.0.1:%d", h->port);
    pthread_create(&h->thread, NULL, httpd_main, h);
}

static inline void httpd_stop(struct httpd *h)
{
    h->stop = 1;
    pthread_join(h->thread, NULL);
    close(h->fd);
}

/* A port on 127.0.0.1 where nothing listens (bound, then closed). */
static inline int httpd_closed_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    bind(fd, (struct sockaddr *)&a, sizeof a);
    getsockname(fd, (struct sockaddr *)&a, &len);
    close(fd);
    return ntohs(a.sin_port);
}

#endif
