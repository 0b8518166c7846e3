/* gpu.c - GPU vendor libraries, loaded at run time with dlopen (never linked). */
#include "gpu.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

struct vendor {
    const char *brand;
    const char *library;
};

static const struct vendor vendors[] = {
    {"nvidia", "libnvidia-ml.so.1"},
    {"amd", "librocm_smi64.so"},
};

int gpu_probe(const char *brand, char *reason, size_t cap)
{
    char tried[128] = "";
    for (size_t i = 0; i < sizeof vendors / sizeof vendors[0]; i++) {
        if (brand && strcmp(brand, vendors[i].brand) != 0)
            continue;
        void *h = dlopen(vendors[i].library, RTLD_LAZY | RTLD_LOCAL);
        if (h) {
            dlclose(h);
            snprintf(reason, cap,
                     "%s was found but this version of gpu-tracker does not read GPUs yet",
                     vendors[i].library);
            return 0;
        }
        size_t used = strlen(tried);
        snprintf(tried + used, sizeof tried - used, "%s%s", used ? ", " : "",
                 vendors[i].library);
    }
    snprintf(reason, cap, "no GPU library found (tried %s)", tried);
    return 0;
}
