/* allocation.h - resource_tracker's guess whether the server was
 * "dedicated" to the tracked processes or "shared" with others, from the
 * means of both series (its SERVER_ALLOCATION_CHECKS): pure, over any row
 * source. */
#ifndef GT_ALLOCATION_H
#define GT_ALLOCATION_H

#include "gpu_tracker_internal.h"
#include "common/row_source.h"

/* "dedicated", "shared", or "unknown" when a series has no rows (or the
 * rows cannot be read). The returned string is static. */
const char *allocation_of_rows(const struct row_source *rows);

#endif
