/* cloud_info.h - which cloud instance this is, from the metadata services
 * of AWS (IMDSv2), GCP, Azure, Hetzner, UpCloud, Vultr, Alibaba Cloud and
 * OVHcloud, asked in a background thread so that it never delays
 * tracking. Every request has a 1 s timeout, and an address that gave no
 * answer is not asked again (docs/snapshot.md, "Server and cloud"). */
#ifndef GT_CLOUD_INFO_H
#define GT_CLOUD_INFO_H

#include "gpu_tracker_internal.h"

struct cloud_discovery;

/* Starts the discovery. base_url is where every service is asked (tests
 * point it at a server on 127.0.0.1; it is copied); NULL: the real ones,
 * http://169.254.169.254 (AWS, Azure, Hetzner, UpCloud, Vultr, OVHcloud),
 * http://metadata.google.internal (GCP) and http://100.100.100.200
 * (Alibaba Cloud). NULL when no thread could be
 * started (then cloud_discovery_finish(NULL, ...) reports "unknown"). */
struct cloud_discovery *cloud_discovery_start(const char *base_url);

/* Waits up to max_wait seconds for the discovery, fills out (asked = 1) and
 * lets go of d (a discovery still running frees itself when it ends). */
void cloud_discovery_finish(struct cloud_discovery *d, double max_wait, gt_cloud_info *out);

/* 1 when the discovery has ended (cloud_discovery_finish would not wait). */
int cloud_discovery_ready(struct cloud_discovery *d);

#endif
