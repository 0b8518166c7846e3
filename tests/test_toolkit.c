/* test_toolkit.c - the common toolkit's pieces that every wing leans on: the one
 * growable buffer (buf.h), the one whole-file reader (file_read.h) and the
 * copies of counted arrays (dup.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "common/buf.h"
#include "common/array_copy.h"
#include "common/file_read.h"

static void test_buf(void)
{
    /* In the caller's block while it fits, on the heap past it, the text
     * kept across the move and always NUL-terminated. */
    char block[8];
    struct buf b;
    buf_init_in(&b, block, sizeof block);
    buf_puts(&b, "abc");
    CHECK(b.data == block && !strcmp(b.data, "abc") && b.len == 3);
    buf_printf(&b, "-%d-%s", 42, "a longer tail than the block");
    CHECK(b.data != block && !b.failed);
    CHECK_STR(b.data, "abc-42-a longer tail than the block");
    char *taken = buf_take(&b);
    CHECK_STR(taken, "abc-42-a longer tail than the block");
    CHECK(b.data == block && b.len == 0 && b.cap == sizeof block && block[0] == '\0');
    free(taken);
    /* Taken while still in the block: a heap copy. */
    buf_add(&b, "xy", 2);
    taken = buf_take(&b);
    CHECK(taken && taken != block && !strcmp(taken, "xy"));
    free(taken);

    /* On the heap from the start; a NUL inside counts as a byte. */
    struct buf h;
    buf_init(&h, 4);
    char *empty = buf_take(&h); /* nothing added: "" */
    CHECK(empty && !*empty);
    free(empty);
    buf_add(&h, "a\0b", 3);
    CHECK(h.len == 3 && h.data[1] == '\0' && h.data[2] == 'b' && h.data[3] == '\0');
    buf_clear(&h);
    CHECK(h.len == 0 && h.data[0] == '\0');
    for (int i = 0; i < 1000; i++)
        buf_printf(&h, "%04d", i);
    CHECK(h.len == 4000 && !strncmp(h.data + 3996, "0999", 4));
    /* A reservation that cannot be met fails the buffer for good. */
    CHECK(buf_reserve(&h, (size_t)-1) < 0 && h.failed == ENOMEM);
    buf_puts(&h, "more");
    CHECK(h.len == 4000);
    CHECK(buf_take(&h) == NULL); /* the failure is said, the memory freed */
    buf_free(&h);
}

/* Arrays grow the same way: from first, doubling, to at least what is
 * needed; a size past memory is refused with ENOMEM, the array kept. */
static void test_grow_array(void)
{
    long *a = NULL;
    size_t cap = 0;
    CHECK(grow_array(&a, &cap, 0, sizeof *a, 8) == 0 && a == NULL && cap == 0);
    CHECK(grow_array(&a, &cap, 1, sizeof *a, 8) == 0 && a != NULL && cap == 8);
    for (size_t i = 0; i < 8; i++)
        a[i] = (long)i;
    CHECK(grow_array(&a, &cap, 9, sizeof *a, 8) == 0 && cap == 16 && a[7] == 7);
    CHECK(grow_array(&a, &cap, 100, sizeof *a, 8) == 0 && cap == 128 && a[3] == 3);
    CHECK(grow_array(&a, &cap, 5, sizeof *a, 8) == 0 && cap == 128); /* room already */
    long *before = a;
    CHECK(grow_array(&a, &cap, (size_t)-1 / 4, sizeof *a, 8) < 0 && errno == ENOMEM);
    CHECK(a == before && cap == 128 && a[5] == 5);
    free(a);
}

static void test_file_read(void)
{
    char dir[] = "/tmp/gt-toolkit-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char path[128];
    snprintf(path, sizeof path, "%s/big", dir);
    FILE *f = fopen(path, "w");
    CHECK(f != NULL);
    for (int i = 0; i < 3000; i++)
        fprintf(f, "line %05d\n", i); /* 33 000 bytes */
    fclose(f);

    /* The beginning only, however long the file. */
    char head[16];
    size_t len;
    CHECK(file_read_prefix(path, head, sizeof head, &len) == 0 && len == 15);
    CHECK_STR(head, "line 00000\nline");
    CHECK(file_read_prefix("/nonexistent/x", head, sizeof head, &len) < 0 && errno == ENOENT);

    /* Whole, into a buffer that starts empty and grows. */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    CHECK(fd >= 0);
    char *buf = NULL;
    size_t cap = 0;
    CHECK(file_pread_grow(fd, &buf, &cap, 1 << 20, &len) == 0);
    CHECK(len == 33000 && buf && buf[len] == '\0' && !strncmp(buf + len - 11, "line 02999\n", 11));
    /* Past the bound: EFBIG, nothing lost of what the caller had. */
    char *small = NULL;
    size_t smallcap = 0;
    CHECK(file_pread_grow(fd, &small, &smallcap, 8192, &len) < 0 && errno == EFBIG);
    free(small);
    /* A fixed buffer too small: EFBIG. */
    char fixed[64];
    CHECK(file_pread(fd, fixed, sizeof fixed, &len) < 0 && errno == EFBIG);
    close(fd);
    free(buf);
    unlink(path);
    rmdir(dir);
}

static void test_dup(void)
{
    const char *names[] = {"A100", NULL, "a name longer than the cut"};
    char **copy = strings_dup(names, 3, 6);
    CHECK(copy != NULL);
    CHECK_STR(copy[0], "A100");
    CHECK_STR(copy[1], "");
    CHECK_STR(copy[2], "a name");
    free(copy); /* one allocation */
    CHECK(strings_dup(names, 0, 6) == NULL);
    int v[3] = {1, 2, 3};
    int *w = mem_dup(v, sizeof v);
    CHECK(w && w != v && w[2] == 3);
    free(w);
    CHECK(mem_dup(v, 0) == NULL);
}

int main(void)
{
    test_buf();
    test_grow_array();
    test_file_read();
    test_dup();
    return check_exit("test_toolkit");
}
