/* options.h - the library's side of gt_options (gpu_tracker.h). */
#ifndef GT_OPTIONS_H
#define GT_OPTIONS_H

#define DEFAULT_STOP_TIMEOUT 10.0

/* ".gpu-tracker_<random UUID>.json" (malloc'd), as gpu_tracker names its
 * pickle: the backup file when the options name none. NULL when out of
 * memory. */
char *options_default_backup_path(void);

#endif
