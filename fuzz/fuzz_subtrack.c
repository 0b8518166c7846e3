/* libFuzzer target: the sub-tracking analysis over files anyone may have
 * written. The input is a tracking file (CSV), a NUL byte, and a
 * sub-tracking file (CSV); both are analysed (text and JSON), the JSON is
 * compared with itself, and the input as a whole is also given to the
 * comparison as a results document. */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gpu_tracker_tools.h"

/* The two files of each input, in a directory of their own under $TMPDIR
 * (else /tmp), removed when libFuzzer exits. */
static char dir[4096];

static void remove_dir(void)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/t.csv", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/s.csv", dir);
    unlink(path);
    rmdir(dir);
}

static int write_file(const char *path, const uint8_t *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t n = fwrite(data, 1, size, f);
    return fclose(f) == 0 && n == size ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* libFuzzer calls it */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0]) {
        const char *tmp = getenv("TMPDIR");
        snprintf(dir, sizeof dir, "%s/gt-fuzz-subtrack-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (!mkdtemp(dir)) {
            dir[0] = '\0';
            return 0;
        }
        atexit(remove_dir);
    }
    char tf[4200], stf[4200];
    snprintf(tf, sizeof tf, "%s/t.csv", dir);
    snprintf(stf, sizeof stf, "%s/s.csv", dir);
    const uint8_t *nul = memchr(data, 0, size);
    size_t first = nul ? (size_t)(nul - data) : size;
    static const char marks[] = "process_id,code_block_name,position,timestamp\n"
                                "1,a,0,0\n1,a,1,1e300\n";
    if (write_file(tf, data, first) != 0 ||
        (nul ? write_file(stf, nul + 1, size - first - 1)
             : write_file(stf, (const uint8_t *)marks, sizeof marks - 1)) != 0)
        return 0;
    char *text = NULL, *json = NULL;
    if (gt_subtrack_analyze(tf, stf, GT_FORMAT_TEXT, &text, NULL) == GT_OK &&
        gt_subtrack_analyze(tf, stf, GT_FORMAT_JSON, &json, NULL) == GT_OK) {
        const char *names[] = {"a", "b"};
        const char *docs[] = {json, json};
        char *out = NULL, *warnings = NULL;
        if (gt_subtrack_compare(names, docs, 2, "std", GT_FORMAT_TEXT, &out, &warnings) ==
            GT_OK) {
            free(out);
            free(warnings);
        }
    }
    free(text);
    free(json);
    /* The raw input as a results document. */
    char *doc = malloc(size + 1);
    if (doc) {
        memcpy(doc, data, size);
        doc[size] = '\0';
        const char *names[] = {"x"};
        const char *docs[] = {doc};
        char *out = NULL, *warnings = NULL;
        if (gt_subtrack_compare(names, docs, 1, "max", GT_FORMAT_JSON, &out, &warnings) ==
            GT_OK) {
            free(out);
            free(warnings);
        }
        free(doc);
    }
    return 0;
}
