/* gpu_holders.c - see gpu_holders.h. */
#define _GNU_SOURCE
#include "read/gpu_holders.h"

#include "common/buf.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The device bit of the file a link names: "/dev/nvidia<M>" with M one of
 * minors; 0 for anything else (nvidiactl, nvidia-uvm, other files). */
static unsigned long long device_of(const char *target, const int *minors, int ndevices)
{
    static const char prefix[] = "/dev/nvidia";
    if (strncmp(target, prefix, sizeof prefix - 1) != 0)
        return 0;
    const char *p = target + sizeof prefix - 1;
    if (*p < '0' || *p > '9')
        return 0;
    char *end;
    long m = strtol(p, &end, 10);
    if (*end != '\0')
        return 0;
    for (int d = 0; d < ndevices && d < 64; d++)
        if (minors[d] >= 0 && minors[d] == m)
            return 1ULL << d;
    return 0;
}

/* The GPUs whose device files process pid holds open. */
static unsigned long long held_devices(const char *proc_root, const char *pid, const int *minors,
                                       int ndevices)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/%s/fd", proc_root, pid);
    DIR *dir = opendir(path);
    if (!dir)
        return 0; /* gone, or not ours to read */
    unsigned long long devices = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char target[64];
        ssize_t n = readlinkat(dirfd(dir), e->d_name, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        devices |= device_of(target, minors, ndevices);
    }
    closedir(dir);
    return devices;
}

static int role_of(const struct pid_roles *roles, pid_t pid)
{
    size_t slot;
    if (!roles || !roles->index || !pid_index_get(roles->index, pid, &slot))
        return 0;
    return roles->role[slot];
}

long gpu_holders_scan(const char *proc_root, const int *minors, int ndevices,
                      const struct pid_roles *roles, struct gpu_holder **holders, size_t *cap)
{
    DIR *dir = opendir(proc_root);
    if (!dir)
        return -1;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid <= 0 || e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        unsigned long long devices = held_devices(proc_root, e->d_name, minors, ndevices);
        if (!devices)
            continue;
        if (grow_array(holders, cap, n + 1, sizeof **holders, 16) < 0) {
            closedir(dir);
            return -1;
        }
        (*holders)[n].pid = (pid_t)pid;
        (*holders)[n].devices = devices;
        (*holders)[n].role = role_of(roles, (pid_t)pid);
        n++;
    }
    closedir(dir);
    return (long)n;
}
