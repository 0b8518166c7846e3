/* backup_identity.h - who writes a backup file: the "backup" object a
 * backup carries beside its summary (tracker_pid, tracker_start, pid, host,
 * command, start_time, updated), as written (the tools' reader is
 * src/tools/snapshot/backup_info.c, gt_backup_read_info). docs/api.md,
 * "The backup file". */
#ifndef GT_BACKUP_IDENTITY_H
#define GT_BACKUP_IDENTITY_H

#include <sys/types.h>

/* The object's fixed members as JSON text ("\"tracker_pid\": 12, ..."),
 * for the process calling it tracking pid (command may be NULL). Malloc'd;
 * NULL when out of memory. */
char *backup_identity_make(pid_t pid, const char *command);

/* summary_json (an object, as usage_to_json writes it) with the
 * "backup" object added: identity, start_time and updated (epoch
 * seconds). Malloc'd, ending in a newline; NULL when out of memory or when
 * summary_json does not end in '}'. */
char *backup_identity_attach(const char *summary_json, const char *identity, double start_time,
                             double updated);

#endif
