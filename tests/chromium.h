/* chromium.h - the tests' look at a report as a browser renders it:
 * headless Chromium's DOM of a page one of them writes. */
#ifndef GT_TEST_CHROMIUM_H
#define GT_TEST_CHROMIUM_H

#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "gpu_tracker_internal.h"
#include "common/toolkit.h"

/* Whether chromium is on the PATH; when not, the caller skips (exit 77). */
static inline int chromium_available(void)
{
    if (system("command -v chromium >/dev/null 2>&1") == 0)
        return 1;
    printf("skipped: chromium is not installed (make check installs it, as root)\n");
    return 0;
}

/* The DOM headless Chromium renders from the page make(path) writes (0 on
 * success), in a directory of its own removed after; NULL on failure (a
 * failed check says which). The caller frees it. */
static inline char *chromium_dom(int (*make)(const char *path))
{
    char dir[] = "/tmp/gt-chromium-XXXXXX";
    if (!mkdtemp(dir)) {
        CHECK_MSG(0, "cannot make a directory for Chromium");
        return NULL;
    }
    char html[128], dom[128], cmd[1024];
    snprintf(html, sizeof html, "%s/report.html", dir);
    snprintf(dom, sizeof dom, "%s/dom.html", dir);
    char *text = NULL;
    CHECK(make(html) == 0);
    snprintf(cmd, sizeof cmd,
             "cd %s && HOME=%s timeout 120 chromium --headless=new --no-sandbox --disable-gpu "
             "--dump-dom file://%s >%s 2>/dev/null", dir, dir, html, dom);
    CHECK_MSG(system(cmd) == 0, "chromium --dump-dom failed");
    CHECK(input_file_read(dom, 1 << 24, "DOM", &text, NULL) == GT_OK);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    CHECK(system(cmd) == 0);
    return text;
}

#endif
