/* gpu.h - the vendor-neutral view of GPUs.
 *
 * This version only finds out whether a vendor library can be loaded; the
 * backends that read memory and utilization through it are not written yet,
 * so GPU figures are always reported as not available (with the reason). */
#ifndef GT_GPU_H
#define GT_GPU_H

#include <stddef.h>

/* Checks the libraries for the brand (NULL: NVIDIA, then AMD) and writes why
 * GPU figures are not available into reason. Returns 0 (never available in
 * this version). */
int gpu_probe(const char *brand, char *reason, size_t cap);

#endif
