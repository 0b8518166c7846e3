/* test_json_c_loader.c - the gpu-tracker command's stand-in for a linked
 * json-c (src/cli/json_c_loader.c). This program links the loader and not
 * json-c, as the command does: its json-c calls reach the library only
 * through the loader's table.
 *
 * In a child: a library that cannot be loaded makes every call fail as
 * json-c fails without memory or on a NULL object, and says why in one
 * line, once. In the parent: the real one is not mapped before the first
 * call, is loaded once by first calls from four threads at once, and
 * works. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "json_c_loader.h"

/* 1 when the process maps a file whose name holds part. */
static int mapped(const char *part)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    char line[4096];
    int found = 0;
    while (!found && fgets(line, sizeof line, f))
        found = strstr(line, part) != NULL;
    fclose(f);
    return found;
}

/* The child's side: every call fails; what it printed goes to err_fd. */
static int missing_library(int err_fd)
{
    dup2(err_fd, STDERR_FILENO);
    json_c_loader_use("libjson-c-gt-missing.so.5");
    int bad = 0;
    json_object *o = json_object_new_object();
    bad |= o != NULL;
    bad |= json_object_object_add(o, "a", json_object_new_int(1)) != -1;
    bad |= strcmp(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), "null") != 0;
    json_object *value = (json_object *)&bad; /* cleared by the failed lookup */
    bad |= json_object_object_get_ex(o, "a", &value) != 0 || value != NULL;
    bad |= json_tokener_parse("{\"a\": 1}") != NULL;
    bad |= json_object_put(o) != 0;
    bad |= json_c_loader_ready() != 0;
    return bad ? 1 : 0;
}

/* A first JSON call and what it must give; counts the threads it failed. */
static atomic_int first_calls_failed;

static void *first_calls(void *unused)
{
    (void)unused;
    json_object *o = json_object_new_object();
    json_object_object_add(o, "n", json_object_new_int(7));
    const char *text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
    if (!o || !text || strcmp(text, "{\"n\":7}") != 0)
        atomic_fetch_add(&first_calls_failed, 1);
    json_object_put(o);
    return NULL;
}

int main(void)
{
    char errpath[] = "/tmp/gt-json-loader-XXXXXX";
    int errfd = mkstemp(errpath);
    CHECK(errfd >= 0);
    pid_t pid = fork();
    if (pid == 0)
        _exit(missing_library(errfd));
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "a call without json-c did not fail as json-c does (status %d)", status);
    char said[2048] = "";
    ssize_t n = pread(errfd, said, sizeof said - 1, 0);
    said[n > 0 ? n : 0] = '\0';
    close(errfd);
    unlink(errpath);
    /* One line, once, for all the calls: what, why, and what to install. */
    CHECK_MSG(strncmp(said, "gpu-tracker: error: cannot load libjson-c-gt-missing.so.5 (", 59) ==
                      0 && strstr(said, "libjson-c5") && strchr(said, '\n') &&
                  strchr(said, '\n')[1] == '\0',
              "[%s]", said);

    /* The real library: not mapped until the first call, then whole. The
     * first calls come from several threads at once, as the command's
     * sampling, backup and main threads may make theirs (ThreadSanitizer
     * watches the loading). */
    CHECK(mapped("libjson-c") == 0);
    pthread_t threads[4];
    for (int i = 0; i < 4; i++)
        CHECK(pthread_create(&threads[i], NULL, first_calls, NULL) == 0);
    for (int i = 0; i < 4; i++)
        pthread_join(threads[i], NULL);
    CHECK(first_calls_failed == 0);
    json_object *o = json_object_new_object();
    CHECK(o != NULL && mapped("libjson-c") == 1 && json_c_loader_ready() == 1);
    json_object *list = json_object_new_array();
    json_object_array_add(list, json_object_new_double(0.5));
    json_object_array_add(list, json_object_new_uint64(18446744073709551615ULL));
    json_object_object_add(o, "list", list);
    json_object_object_add(o, "name", json_object_new_string_len("gpu-tracker", 3));
    json_object_object_add(o, "gone", json_object_new_boolean(1));
    json_object_object_del(o, "gone");
    CHECK_STR(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
              "{\"list\":[0.5,18446744073709551615],\"name\":\"gpu\"}");
    json_tokener *tok = json_tokener_new_ex(8);
    CHECK(tok != NULL);
    const char *text = "{\"a\": [1, 2, 3]}";
    json_object *back = json_tokener_parse_ex(tok, text, (int)strlen(text));
    CHECK(back != NULL && json_tokener_get_error(tok) == json_tokener_success &&
          json_tokener_get_parse_end(tok) == strlen(text));
    json_object *a = NULL;
    CHECK(json_object_object_get_ex(back, "a", &a) && json_object_array_length(a) == 3 &&
          json_object_get_int64(json_object_array_get_idx(a, 2)) == 3);
    json_tokener_free(tok);
    json_object_put(back);
    json_object_put(o);
    struct lh_table *names = lh_kchar_table_new(4, NULL);
    CHECK(names != NULL && lh_table_insert(names, "x", (void *)1) == 0);
    void *v = NULL;
    CHECK(lh_table_lookup_ex(names, "x", &v) && v == (void *)1);
    CHECK(!lh_table_lookup_ex(names, "y", &v));
    lh_table_free(names);
    return check_exit("test_json_c_loader");
}
