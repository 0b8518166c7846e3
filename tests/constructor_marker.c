/* constructor_marker.c - a library that says it was loaded: its
 * constructor creates the file GT_TEST_MARKER names. test_root_environment
 * points GPU_TRACKER_NVML_LIBRARY at it to see whether a run as root
 * loaded it (code of its constructor runs at dlopen, before any check of
 * its symbols could). */
#include <stdio.h>
#include <stdlib.h>

__attribute__((constructor)) static void say_loaded(void)
{
    const char *path = getenv("GT_TEST_MARKER");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f)
        fclose(f);
}
