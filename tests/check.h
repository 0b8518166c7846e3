/* check.h - minimal assertions for the unit tests: each failed check prints
 * where and what, the test goes on, and check_exit() sets the exit status. */
#ifndef GT_CHECK_H
#define GT_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int check_failures;
static int check_count;

#define CHECK(cond)                                                             \
    do {                                                                        \
        check_count++;                                                          \
        if (!(cond)) {                                                          \
            check_failures++;                                                   \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
        }                                                                       \
    } while (0)

#define CHECK_MSG(cond, ...)                                                    \
    do {                                                                        \
        check_count++;                                                          \
        if (!(cond)) {                                                          \
            check_failures++;                                                   \
            fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                       \
            fputc('\n', stderr);                                                \
        }                                                                       \
    } while (0)

#define CHECK_STR(a, b)                                                         \
    do {                                                                        \
        const char *check_a_ = (a), *check_b_ = (b);                            \
        check_count++;                                                          \
        if (!check_a_ || !check_b_ || strcmp(check_a_, check_b_) != 0) {        \
            check_failures++;                                                   \
            fprintf(stderr, "%s:%d: CHECK_STR failed: %s == %s\n  got:  [%s]\n  want: [%s]\n", \
                    __FILE__, __LINE__, #a, #b, check_a_ ? check_a_ : "(null)", \
                    check_b_ ? check_b_ : "(null)");                            \
        }                                                                       \
    } while (0)

#define CHECK_CONTAINS(hay, needle)                                             \
    do {                                                                        \
        const char *check_h_ = (hay), *check_n_ = (needle);                     \
        check_count++;                                                          \
        if (!check_h_ || !strstr(check_h_, check_n_)) {                         \
            check_failures++;                                                   \
            fprintf(stderr, "%s:%d: CHECK_CONTAINS failed: [%s] does not contain [%s]\n", \
                    __FILE__, __LINE__, check_h_ ? check_h_ : "(null)", check_n_); \
        }                                                                       \
    } while (0)

static inline int check_exit(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, check_count, check_failures);
    return check_failures ? 1 : 0;
}

/* Waits until path exists (a tracker's backup file is first written about
 * a second after its start): 1 once it does, 0 after a minute, a deadline
 * to fail instead of hanging, not a timing check. */
static inline int wait_for_file(const char *path)
{
    for (int tries = 0; tries < 6000 && access(path, F_OK) != 0; tries++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return access(path, F_OK) == 0;
}

/* Ends a test that cannot run here, saying why: CTest reports exit status
 * 77 as skipped (SKIP_RETURN_CODE), never as passed. */
#define SKIP_TEST(...)                                                          \
    do {                                                                        \
        printf("skipped: ");                                                    \
        printf(__VA_ARGS__);                                                    \
        printf("\n");                                                           \
        exit(77);                                                               \
    } while (0)

#endif
