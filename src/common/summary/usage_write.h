/* usage_write.h - the summary (gpu_tracker's ResourceUsage and our own
 * sections) as gpu_tracker writes it: the text of str(tracker) and the JSON
 * of to_json(), one writer for the library's summary, the tools' files
 * and the command (usage_text.c, usage_json.c). */
#ifndef GT_USAGE_WRITE_H
#define GT_USAGE_WRITE_H

struct gt_resource_usage; /* gpu_tracker_internal.h */

/* The text gpu_tracker prints (str(tracker)), without a trailing newline.
 * Returns a malloc'd string the caller frees, or NULL when out of memory. */
char *usage_to_text(const struct gt_resource_usage *usage);

/* The JSON of gpu_tracker's to_json() plus the "gpu_details" and
 * "measurement" sections (each left out when marked unknown), numbers at
 * full precision, pretty-printed; a NaN or an infinity (which no reader
 * gives) is written as null, so that the text is always JSON, and strings
 * as valid UTF-8 (invalid bytes become U+FFFD). Caller frees; NULL when out
 * of memory. Read back by gt_usage_from_json() (gpu_tracker_tools.h). */
char *usage_to_json(const struct gt_resource_usage *usage);

#endif
