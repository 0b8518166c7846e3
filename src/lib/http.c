/* http.c - libcurl's one-time global setup. */
#include "http.h"

#include <curl/curl.h>
#include <pthread.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int ready;

static void setup(void)
{
    ready = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK;
}

int http_ready(void)
{
    pthread_once(&once, setup);
    return ready;
}
