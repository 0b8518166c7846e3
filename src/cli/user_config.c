/* user_config.c - the per-user defaults file (user_config.h). */
#define _GNU_SOURCE
#include "user_config.h"

#include "gpu_tracker_internal.h"
#include "common/toolkit.h"

#include <ctype.h>
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A defaults file is a few lines; anything bigger is not one. */
#define MAX_USER_CONFIG (64 * 1024)

int user_config_path(char *path, size_t cap)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    int n;
    /* The XDG rule: a relative XDG_CONFIG_HOME is invalid and ignored. */
    if (xdg && xdg[0] == '/') {
        n = snprintf(path, cap, "%s/gpu-tracker/config", xdg);
    } else {
        const char *home = getenv("HOME");
        if (!home || home[0] != '/') {
            struct passwd *pw = getpwuid(geteuid());
            home = pw ? pw->pw_dir : NULL;
        }
        if (!home || home[0] != '/')
            return -1;
        n = snprintf(path, cap, "%s/.config/gpu-tracker/config", home);
    }
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

void user_config_free(char **args)
{
    for (size_t i = 0; args && args[i]; i++)
        free(args[i]);
    free(args);
}

/* Reads the file whole under the rules of user_config.h into *text (the
 * library's reader of trusted files: regular, bounded, ours or root's, not
 * writable by others; a FIFO is never waited on). 0, 1 when it does not
 * exist, -1 with err set. */
static int read_checked(const char *path, char **text, char *err, size_t errcap)
{
    struct stat st;
    /* Not there, or behind a directory we may not search (another user's
     * home in our environment): nothing of ours to read. A file that is
     * there but unreadable is a mistake to say. */
    if (stat(path, &st) != 0 && (errno == ENOENT || errno == ENOTDIR || errno == EACCES))
        return 1;
    size_t len = 0;
    if (input_file_read_private(path, MAX_USER_CONFIG, "config file", text, &len) != GT_OK) {
        snprintf(err, errcap, "%s; fix it or pass --no-config", gt_last_error());
        return -1;
    }
    if (strlen(*text) != len) {
        free(*text);
        *text = NULL;
        snprintf(err, errcap, "config file %s not read: it holds a NUL byte (not text)", path);
        return -1;
    }
    return 0;
}

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    return s;
}

int user_config_read(const char *path, user_config_option_fn known, char ***args, int *nargs,
                     int *found, char *err, size_t errcap)
{
    *args = NULL;
    *nargs = 0;
    *found = 0;
    char *text = NULL;
    int rc = read_checked(path, &text, err, errcap);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    *found = 1;
    size_t lines = 1;
    for (const char *p = text; *p; p++)
        lines += *p == '\n';
    char **out = calloc(lines + 1, sizeof *out);
    if (!out) {
        free(text);
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    int n = 0, lineno = 0;
    char *save = NULL;
    rc = 0;
    /* strtok_r would merge empty lines and lose the numbering: split by hand. */
    for (char *line = text; line && rc == 0; line = save) {
        lineno++;
        char *nl = strchr(line, '\n');
        save = nl ? nl + 1 : NULL;
        if (nl)
            *nl = '\0';
        char *s = trim(line);
        if (!*s || *s == '#')
            continue;
        if (s[0] == '-' && s[1] != '-') {
            snprintf(err, errcap, "config file %s line %d: '%.40s': one long option per line "
                     "(--quiet, not -q)", path, lineno, s);
            rc = -1;
            break;
        }
        if (s[0] == '-')
            s += 2;
        size_t name_len = strcspn(s, "= \t");
        char name[64];
        if (name_len == 0 || name_len >= sizeof name) {
            snprintf(err, errcap, "config file %s line %d: no option name in '%.40s'", path, lineno,
                     s);
            rc = -1;
            break;
        }
        memcpy(name, s, name_len);
        name[name_len] = '\0';
        char *value = trim(s + name_len);
        if (*value == '=')
            value = trim(value + 1);
        size_t vlen = strlen(value);
        if (vlen >= 2 && value[0] == '"' && value[vlen - 1] == '"') {
            value[vlen - 1] = '\0';
            value++;
        }
        int has_arg = 0;
        int k = known(name, &has_arg);
        if (k == 0) {
            snprintf(err, errcap, "config file %s line %d: unknown option '--%s' (gpu-tracker "
                     "--help lists them)", path, lineno, name);
            rc = -1;
        } else if (k < 0) {
            snprintf(err, errcap, "config file %s line %d: '--%s' cannot be a default: give it on "
                     "the command line", path, lineno, name);
            rc = -1;
        } else if (has_arg && !*value) {
            snprintf(err, errcap, "config file %s line %d: '--%s' needs a value (--%s=VALUE)", path,
                     lineno, name, name);
            rc = -1;
        } else if (!has_arg && *value) {
            snprintf(err, errcap, "config file %s line %d: '--%s' takes no value", path, lineno,
                     name);
            rc = -1;
        } else if (asprintf(&out[n], has_arg ? "--%s=%s" : "--%s", name, value) < 0) {
            out[n] = NULL;
            snprintf(err, errcap, "out of memory");
            rc = -1;
        } else {
            n++;
        }
    }
    free(text);
    if (rc != 0) {
        user_config_free(out);
        return -1;
    }
    *args = out;
    *nargs = n;
    return 0;
}
