/* libFuzzer target: reading a summary document (gt_usage_from_json, what
 * `gpu-tracker show` and the snapshot loader use), and writing back what
 * it read. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu_tracker_tools.h"
#include "common/summary/usage_write.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size); /* libFuzzer calls it */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    gt_resource_usage u = {.struct_size = sizeof(gt_resource_usage)};
    if (gt_usage_from_json(text, &u) == GT_OK) {
        free(usage_to_text(&u));
        free(usage_to_json(&u));
        gt_usage_release(&u);
    }
    free(text);
    return 0;
}
