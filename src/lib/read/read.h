/* read/read.h - the face of the read wing: all the I/O of a sample, and the
 * facts about the machine and the job's cgroup that the rest of the library
 * asks the system for. Other wings include this header, never the wing's
 * others (tests/test_layers.sh).
 *
 * What it offers:
 *   sample_reader.h  a whole sample (process tree, system, disks and
 *                    interfaces, the job's cgroup, CPU energy, every GPU
 *                    vendor) read into a struct sample
 *   cgroup_own.h     a cgroup of the job's own: made, entered, removed
 *   server_info.h    the machine (CPUs, memory, GPUs) at start
 *   cloud_info.h     the cloud it runs in, found in the background
 *   system_series.h  the filesystems the disk figures count */
#ifndef GT_READ_H
#define GT_READ_H

#include "read/cgroup_own.h"
#include "read/cloud_info.h"
#include "read/sample_reader.h"
#include "read/server_info.h"
#include "read/system_series.h"

#endif
