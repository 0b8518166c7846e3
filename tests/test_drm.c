/* AMD and Intel GPUs with no vendor library: the kernel's DRM client
 * figures (drm_fdinfo.h) in the amdgpu, i915 and xe formats of the kernel's
 * Documentation/gpu/drm-usage-stats.rst, parsed alone; then the DRM backend
 * (gpu_drm.c) through a tracker over fixture sysfs and procfs trees: the
 * cards it keeps and passes over, each process's device memory and busiest
 * engine, a client shared by two processes counted once, the brands, and
 * ROCm SMI keeping its own GPUs. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "read/gpu/gpu.h"
#include "read/gpu/drm_fdinfo.h"
#include "fixture.h"
#include "gpu_tracker_tools.h"
#include "test_tracker_new.h"

/* The engine of info named name, NULL when there is none. */
static const struct drm_engine *drm_engine_find(const struct drm_fdinfo *info, const char *name)
{
    for (int i = 0; i < info->nengines; i++)
        if (!strcmp(info->engines[i].name, name))
            return &info->engines[i];
    return NULL;
}

/* amdgpu before 6.x: drm-memory-<region>, engine busy time in ns. */
static const char amdgpu_legacy[] =
    "pos:\t0\n"
    "flags:\t02100002\n"
    "mnt_id:\t24\n"
    "ino:\t1234\n"
    "drm-driver:\tamdgpu\n"
    "drm-pdev:\t0000:03:00.0\n"
    "drm-client-id:\t5\n"
    "pasid:\t32770\n"
    "drm-memory-vram:\t2097152 KiB\n"
    "drm-memory-gtt:\t2048 KiB\n"
    "drm-memory-cpu:\t0 KiB\n"
    "amd-memory-visible-vram:\t0 KiB\n"
    "amd-evicted-vram:\t0 KiB\n"
    "amd-requested-vram:\t2097152 KiB\n"
    "drm-engine-gfx:\t1000000 ns\n"
    "drm-engine-compute:\t5000000 ns\n"
    "drm-engine-dma:\t0 ns\n";

/* amdgpu 6.x: drm-total/drm-resident per region (and the legacy keys). */
static const char amdgpu_new[] =
    "drm-driver:\tamdgpu\n"
    "drm-client-id:\t9\n"
    "drm-pdev:\t0000:03:00.0\n"
    "drm-memory-vram:\t1024 KiB\n"
    "drm-total-vram:\t1024 KiB\n"
    "drm-resident-vram:\t512 KiB\n"
    "drm-total-gtt:\t4 MiB\n"
    "drm-resident-gtt:\t4 MiB\n";

/* i915 on an integrated GPU: engines with a capacity, system memory only. */
static const char i915[] =
    "pos:\t0\n"
    "flags:\t0100002\n"
    "drm-driver:\ti915\n"
    "drm-pdev:\t0000:00:02.0\n"
    "drm-client-id:\t7\n"
    "drm-engine-render:\t9288864723 ns\n"
    "drm-engine-copy:\t2035071108 ns\n"
    "drm-engine-video:\t0 ns\n"
    "drm-engine-capacity-video:\t2\n"
    "drm-engine-video-enhance:\t0 ns\n"
    "drm-total-system0:\t262144 KiB\n"
    "drm-shared-system0:\t0\n"
    "drm-active-system0:\t0\n"
    "drm-resident-system0:\t131072 KiB\n"
    "drm-purgeable-system0:\t0\n";

/* xe on a discrete GPU: busy cycles over the GPU's cycles, vram0. */
static const char xe[] =
    "pos:\t0\n"
    "drm-driver:\txe\n"
    "drm-client-id:\t111\n"
    "drm-pdev:\t0000:03:00.0\n"
    "drm-total-system:\t0\n"
    "drm-resident-system:\t0\n"
    "drm-total-gtt:\t192 KiB\n"
    "drm-resident-gtt:\t192 KiB\n"
    "drm-total-vram0:\t23992 KiB\n"
    "drm-shared-vram0:\t16 KiB\n"
    "drm-resident-vram0:\t23992 KiB\n"
    "drm-cycles-rcs:\t28257900\n"
    "drm-total-cycles-rcs:\t7655183225\n"
    "drm-cycles-bcs:\t0\n"
    "drm-total-cycles-bcs:\t7655183225\n"
    "drm-cycles-vcs:\t0\n"
    "drm-total-cycles-vcs:\t7655183225\n"
    "drm-engine-capacity-vcs:\t2\n";

static void test_parse(void)
{
    struct drm_fdinfo f;
    CHECK(drm_fdinfo_parse(amdgpu_legacy, strlen(amdgpu_legacy), &f) == 1);
    CHECK_STR(f.driver, "amdgpu");
    CHECK_STR(f.pdev, "0000:03:00.0");
    CHECK(f.has_client_id && f.client_id == 5);
    CHECK(f.has_local && f.local_bytes == 2048ULL * 1048576);
    CHECK(f.system_bytes == 2048 * 1024); /* gtt; the cpu domain is not the GPU's */
    CHECK(f.nengines == 3);
    const struct drm_engine *e = drm_engine_find(&f, "compute");
    CHECK(e && e->has_ns && e->ns == 5000000 && e->capacity == 1);

    CHECK(drm_fdinfo_parse(amdgpu_new, strlen(amdgpu_new), &f) == 1);
    CHECK(f.local_bytes == 512 * 1024); /* resident, not the older total */
    CHECK(f.system_bytes == 4 * 1048576);

    CHECK(drm_fdinfo_parse(i915, strlen(i915), &f) == 1);
    CHECK(!f.has_local && f.system_bytes == 131072ULL * 1024);
    e = drm_engine_find(&f, "video");
    CHECK(e && e->capacity == 2);
    CHECK(drm_engine_find(&f, "video-enhance") != NULL);
    CHECK(drm_engine_find(&f, "capacity-video") == NULL);

    CHECK(drm_fdinfo_parse(xe, strlen(xe), &f) == 1);
    CHECK(f.has_local && f.local_bytes == 23992ULL * 1024);
    e = drm_engine_find(&f, "rcs");
    CHECK(e && e->has_cycles && !e->has_ns && e->cycles == 28257900 &&
          e->total_cycles == 7655183225ULL);
    CHECK(drm_engine_find(&f, "vcs")->capacity == 2);

    /* Not a DRM file, garbage values, a line without an end. */
    static const char plain[] = "pos:\t0\nflags:\t02\nmnt_id:\t3\n";
    CHECK(drm_fdinfo_parse(plain, strlen(plain), &f) == 0);
    static const char bad[] = "drm-driver: amdgpu\ndrm-client-id: x\ndrm-memory-vram: 12 parsecs\n"
                              "drm-engine-gfx: 99999999999999999999999 ns\ndrm-pdev: 0000:03:00.0";
    CHECK(drm_fdinfo_parse(bad, strlen(bad), &f) == 1);
    CHECK(!f.has_client_id && f.local_bytes == 0);
    CHECK_STR(f.pdev, "0000:03:00.0");
    CHECK(drm_engine_find(&f, "gfx") && !drm_engine_find(&f, "gfx")->has_ns);
    /* Only the first text bytes count (a buffer need not end in NUL). */
    CHECK(drm_fdinfo_parse(amdgpu_legacy, 40, &f) == 0);
}

static void test_percent(void)
{
    struct drm_engine a = {.name = "gfx", .has_ns = 1, .ns = 1000, .capacity = 1};
    struct drm_engine b = a;
    b.ns = 1000 + 250000000; /* 0.25 s busy in 1 s */
    CHECK(drm_engine_percent(&a, &b, 1000000000ULL) == 25.0);
    b.capacity = 2; /* two engines: half as busy */
    CHECK(drm_engine_percent(&a, &b, 1000000000ULL) == 12.5);
    b.ns = 500; /* a counter going back */
    CHECK(drm_engine_percent(&a, &b, 1000000000ULL) == -1);
    CHECK(drm_engine_percent(&a, &a, 0) == -1);
    struct drm_engine c = {.name = "rcs", .has_cycles = 1, .cycles = 100, .total_cycles = 1000,
                           .capacity = 1};
    struct drm_engine d = c;
    d.cycles = 600;
    d.total_cycles = 2000;
    CHECK(drm_engine_percent(&c, &d, 0) == 50.0);
    d.total_cycles = 1000; /* no GPU cycles went by */
    CHECK(drm_engine_percent(&c, &d, 5) == -1);
    b = a;
    b.ns = a.ns + 5000000000ULL; /* more busy than wall time: capped */
    CHECK(drm_engine_percent(&a, &b, 1000000000ULL) == 100.0);
}

static char *proc, *sys;

static void put(const char *root, const char *rel, const char *text)
{
    char cmd[8400];
    snprintf(cmd, sizeof cmd, "mkdir -p \"$(dirname '%s/%s')\"", root, rel);
    CHECK(system(cmd) == 0);
    fx_write(root, rel, text);
}

static void link_fd(int pid, int fd, const char *target)
{
    char dir[4200], path[4300];
    snprintf(dir, sizeof dir, "%s/%d/fd", proc, pid);
    mkdir(dir, 0755);
    snprintf(path, sizeof path, "%s/%d", dir, fd);
    unlink(path);
    CHECK(symlink(target, path) == 0);
}

/* The fixture: an amdgpu card (16 GiB, 3 GiB used, 40% busy), an i915
 * one, an xe one (0000:04:00.0), and entries that are not GPUs to track (a
 * connector, a virtio card, a render node). Main (100) holds an amdgpu
 * client; its child (101) an xe client, and main's amdgpu client too (an
 * inherited fd), which counts once. */
static void make_fixture(void)
{
    proc = fx_mkroot();
    sys = fx_mkroot();
    fx_system(proc, 0, 0, 2, 8000000, 6000000);
    fx_main_and_child(proc);
    put(sys, "class/drm/card0/device/uevent", "DRIVER=amdgpu\nPCI_CLASS=30000\n"
                                              "PCI_SLOT_NAME=0000:03:00.0\n");
    put(sys, "class/drm/card0/device/mem_info_vram_total", "17179869184\n");
    put(sys, "class/drm/card0/device/mem_info_vram_used", "3221225472\n");
    put(sys, "class/drm/card0/device/gpu_busy_percent", "40\n");
    put(sys, "class/drm/card0/device/product_name", "Fake Instinct MI210\n");
    put(sys, "class/drm/card0-DP-1/status", "disconnected\n");
    put(sys, "class/drm/card1/device/uevent", "DRIVER=i915\nPCI_SLOT_NAME=0000:00:02.0\n");
    put(sys, "class/drm/card2/device/uevent", "DRIVER=virtio-pci\nPCI_SLOT_NAME=0000:00:01.0\n");
    put(sys, "class/drm/card3/device/uevent", "DRIVER=xe\nPCI_SLOT_NAME=0000:04:00.0\n");
    put(sys, "class/drm/renderD128/dev", "226:128\n");
    link_fd(100, 0, "/dev/null");
    link_fd(100, 3, "/dev/dri/renderD128");
    put(proc, "100/fdinfo/0", "pos:\t0\nflags:\t02\n");
    put(proc, "100/fdinfo/3", amdgpu_legacy);
    link_fd(101, 3, "/dev/dri/renderD128"); /* main's client, inherited */
    put(proc, "101/fdinfo/3", amdgpu_legacy);
    link_fd(101, 4, "/dev/dri/renderD130");
    char text[2048];
    snprintf(text, sizeof text, "%s", xe);
    char *pdev = strstr(text, "0000:03:00.0");
    memcpy(pdev, "0000:04:00.0", 12);
    put(proc, "101/fdinfo/4", text);
}

static void on_warning(const char *msg, void *data)
{
    (void)data;
    fprintf(stderr, "warning: %s\n", msg);
}

static gt_options options(const char *brand)
{
    gt_options o;
    test_options_init(&o);
    test_sources.proc_root = proc;
    test_sources.sys_root = sys;
    o.process_id = 100;
    o.sleep_time = 1000;
    o.resource_usage_file = "";
    o.gpu_brand = brand;
    o.on_warning = on_warning;
    return o;
}

static void test_backend(void)
{
    setenv("GPU_TRACKER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    setenv("GPU_TRACKER_RSMI_LIBRARY", "/nonexistent/librocm_smi64.so", 1);
    gt_options o = options(NULL);
    gt_tracker *t = NULL;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(t && gt_tracker_start(t) == GT_OK);
    /* Between the samples: main's compute engine busy far longer than any
     * wall time (capped at 100%); the child's xe render engine 250 of 1000
     * GPU cycles. */
    char text[2048];
    snprintf(text, sizeof text, "%.*sdrm-engine-compute:\t9999999999999 ns\ndrm-engine-dma:\t0 ns\n",
             (int)(strstr(amdgpu_legacy, "drm-engine-compute") - amdgpu_legacy), amdgpu_legacy);
    put(proc, "100/fdinfo/3", text);
    put(proc, "101/fdinfo/3", text);
    snprintf(text, sizeof text, "%.*sdrm-cycles-rcs:\t28258150\ndrm-total-cycles-rcs:\t7655184225\n",
             (int)(strstr(xe, "drm-cycles-rcs") - xe), xe);
    memcpy(strstr(text, "0000:03:00.0"), "0000:04:00.0", 12);
    put(proc, "101/fdinfo/4", text);
    CHECK(t && gt_tracker_stop(t) == GT_OK);
    const gt_resource_usage *u = t ? gt_tracker_usage(t) : NULL;
    CHECK(u != NULL);
    if (u) {
        CHECK_MSG(u->measurement.gpu_available, "%s", u->measurement.gpu_reason);
        const gt_gpu_details *d = &u->gpu_details;
        CHECK(d->ndevices == 3); /* amdgpu, i915, xe; not the connector nor virtio */
        CHECK_STR(d->devices[0].uuid, "pci-0000:03:00.0");
        CHECK_STR(d->devices[0].name, "Fake Instinct MI210");
        CHECK_STR(d->devices[1].name, "i915 GPU 0000:00:02.0");
        CHECK_STR(d->devices[2].uuid, "pci-0000:04:00.0");
        CHECK(d->devices[0].memory_total == 17179869184.0 / 1e9);
        CHECK(u->max_gpu_ram.system == 3221225472.0 / 1e9);
        /* main: its 2 GiB of vram; the child: its xe vram only (the shared
         * client is main's) */
        CHECK(u->max_gpu_ram.main == 2147483648.0 / 1e9);
        CHECK(u->max_gpu_ram.descendants == 23992.0 * 1024 / 1e9);
        CHECK(d->process_memory_available && d->process_utilization_available);
        CHECK_MSG(d->main.max_sum_percent == 100.0, "%g", d->main.max_sum_percent);
        CHECK_MSG(d->descendants.max_sum_percent == 25.0, "%g", d->descendants.max_sum_percent);
        CHECK(u->gpu_utilization.gpu_percentages.max_sum_percent == 40.0); /* amdgpu's sysfs */
        CHECK(!d->energy_available);
        CHECK_STR(d->energy_reason, "the kernel's DRM figures give no energy counter");
    }
    gt_gpu_run g = {.struct_size = sizeof g};
    CHECK(t && gt_tracker_gpu_run(t, &g) == GT_OK);
    CHECK_STR(g.accounting_reason, "the kernel's DRM figures keep no record of exited processes");
    gt_tracker_free(t);

    /* Brands: amd keeps amdgpu, intel i915 and xe, nvidia none of them;
     * a UUID selects a card. */
    static const struct {
        const char *brand;
        int ndevices;
    } brands[] = {{"amd", 1}, {"intel", 2}, {"drm", 3}, {"nvidia", 0}};
    for (size_t i = 0; i < sizeof brands / sizeof brands[0]; i++) {
        o = options(brands[i].brand);
        CHECK(test_tracker_new(&o, &t) == GT_OK);
        CHECK(t && gt_tracker_start(t) == GT_OK && gt_tracker_stop(t) == GT_OK);
        u = t ? gt_tracker_usage(t) : NULL;
        CHECK_MSG(u && u->gpu_details.ndevices == brands[i].ndevices, "%s: %d", brands[i].brand,
                  u ? u->gpu_details.ndevices : -1);
        gt_tracker_free(t);
    }
    o = options(NULL);
    o.gpu_uuids = "pci-0000:04:00.0";
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(t && gt_tracker_start(t) == GT_OK && gt_tracker_stop(t) == GT_OK);
    u = t ? gt_tracker_usage(t) : NULL;
    CHECK(u && u->gpu_details.devices[2].selected && !u->gpu_details.devices[0].selected);
    CHECK(u && u->gpu_utilization.gpu_percentages.max_sum_percent == 0); /* xe: no sysfs busy */
    gt_tracker_free(t);
}

/* ROCm SMI lists the AMD GPUs: the DRM backend leaves them to it. */
static void test_rocm_first(void)
{
    char scenario[4200];
    snprintf(scenario, sizeof scenario, "%s/rsmi-scenario", proc);
    fx_write(proc, "rsmi-scenario", "device 1111 Fake-MI300 192000000000 5000000000 40\n");
    setenv("FAKE_RSMI_SCENARIO", scenario, 1);
    setenv("GPU_TRACKER_RSMI_LIBRARY", WORKLOAD_DIR "/libfake-rsmi.so", 1);
    gt_options o = options(NULL);
    gt_tracker *t = NULL;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(t && gt_tracker_start(t) == GT_OK && gt_tracker_stop(t) == GT_OK);
    const gt_resource_usage *u = t ? gt_tracker_usage(t) : NULL;
    CHECK(u && u->gpu_details.ndevices == 3); /* ROCm SMI's one, then i915 and xe */
    CHECK(u && !strcmp(u->gpu_details.devices[0].uuid, "0000000000001111"));
    CHECK(u && !strcmp(u->gpu_details.devices[1].uuid, "pci-0000:00:02.0"));
    /* no PCI address from ROCm SMI: no per-process utilization for it */
    CHECK(u && !u->gpu_details.process_utilization_available);
    gt_tracker_free(t);

    /* ROCm SMI gives the GPU's PCI address (domain 0, bus 3, device 0,
     * function 0): the kernel's DRM figures fill in each process's
     * utilization, which ROCm SMI lacks; its memory stays ROCm SMI's. */
    fx_write(proc, "rsmi-scenario", "device 1111 Fake-MI300 192000000000 5000000000 40\n"
                                    "process 100 3000000000\npci 0 300\n");
    char text[2048];
    snprintf(text, sizeof text, "%.*sdrm-engine-compute:\t5000000 ns\ndrm-engine-dma:\t0 ns\n",
             (int)(strstr(amdgpu_legacy, "drm-engine-compute") - amdgpu_legacy), amdgpu_legacy);
    put(proc, "100/fdinfo/3", text);
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(t && gt_tracker_start(t) == GT_OK);
    snprintf(text, sizeof text, "%.*sdrm-engine-compute:\t9999999999999 ns\ndrm-engine-dma:\t0 ns\n",
             (int)(strstr(amdgpu_legacy, "drm-engine-compute") - amdgpu_legacy), amdgpu_legacy);
    put(proc, "100/fdinfo/3", text);
    CHECK(t && gt_tracker_stop(t) == GT_OK);
    u = t ? gt_tracker_usage(t) : NULL;
    CHECK(u && u->gpu_details.process_utilization_available);
    CHECK_MSG(u && u->gpu_details.main.max_sum_percent == 100.0, "%g",
              u ? u->gpu_details.main.max_sum_percent : -1);
    CHECK(u && u->max_gpu_ram.main == 3.0); /* ROCm SMI's 3 GB, not the fdinfo's 2 GiB too */
    gt_tracker_free(t);
    unsetenv("FAKE_RSMI_SCENARIO");
}

/* A sysfs without class/drm (a VM, a container) has no DRM device: the
 * backend says so before any vendor is made for it, and a run there has no
 * GPU (the reason is the vendor libraries', as this program set them). */
static void test_no_drm_class(void)
{
    CHECK(gpu_drm_backend.present && gpu_drm_backend.present(sys) == 1);
    char *bare = fx_mkroot();
    CHECK(gpu_drm_backend.present(bare) == 0);
    gt_options o = options(NULL);
    test_sources.sys_root = bare;
    gt_tracker *t = NULL;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(t && gt_tracker_start(t) == GT_OK && gt_tracker_stop(t) == GT_OK);
    const gt_resource_usage *u = t ? gt_tracker_usage(t) : NULL;
    CHECK_MSG(u && !u->measurement.gpu_available && !strstr(u->measurement.gpu_reason, "drm"),
              "%s", u ? u->measurement.gpu_reason : "(no usage)");
    gt_tracker_free(t);
    test_sources.sys_root = sys;
    fx_rmroot(bare);
}

/* ROCm compute through KFD, which fdinfo does not show: a process with no
 * /dev/dri file open but 1 GiB of vram_<gpu_id> on the amdgpu card (KFD's
 * node 1, at 0000:03:00.0) has that memory; the CPU node and a GPU of
 * another address are not ours. Where fdinfo gives a process more (the
 * same buffers in both), the larger counts, not the sum. */
static void test_kfd(void)
{
    setenv("GPU_TRACKER_NVML_LIBRARY", "/nonexistent/libnvidia-ml.so.1", 1);
    setenv("GPU_TRACKER_RSMI_LIBRARY", "/nonexistent/librocm_smi64.so", 1);
    put(sys, "class/kfd/kfd/topology/nodes/0/gpu_id", "0\n");
    put(sys, "class/kfd/kfd/topology/nodes/0/properties", "cpu_cores_count 16\n");
    put(sys, "class/kfd/kfd/topology/nodes/1/gpu_id", "4660\n");
    put(sys, "class/kfd/kfd/topology/nodes/1/properties",
        "cpu_cores_count 0\nsimd_count 416\nlocation_id 768\ndomain 0\n");
    put(sys, "class/kfd/kfd/topology/nodes/2/gpu_id", "7777\n");
    put(sys, "class/kfd/kfd/topology/nodes/2/properties", "location_id 1024\ndomain 1\n");
    /* the child: ROCm compute only, on our card and on the foreign one */
    link_fd(101, 4, "/dev/null");
    put(proc, "101/fdinfo/4", "pos:\t0\n");
    char inherited[4300];
    snprintf(inherited, sizeof inherited, "%s/101/fd/3", proc);
    unlink(inherited); /* main's amdgpu client is no longer the child's */
    put(sys, "class/kfd/kfd/proc/101/vram_4660", "1073741824\n");
    put(sys, "class/kfd/kfd/proc/101/vram_7777", "5000000\n");
    /* main: 2 GiB by fdinfo, 1 GiB by KFD: the same buffers, 2 GiB */
    put(sys, "class/kfd/kfd/proc/100/vram_4660", "1073741824\n");
    gt_options o = options("amd");
    gt_tracker *t = NULL;
    CHECK(test_tracker_new(&o, &t) == GT_OK);
    CHECK(t && gt_tracker_start(t) == GT_OK && gt_tracker_stop(t) == GT_OK);
    const gt_resource_usage *u = t ? gt_tracker_usage(t) : NULL;
    CHECK_MSG(u && u->max_gpu_ram.descendants == 1073741824.0 / 1e9, "descendants %g",
              u ? u->max_gpu_ram.descendants : -1);
    CHECK_MSG(u && u->max_gpu_ram.main == 2147483648.0 / 1e9, "main %g",
              u ? u->max_gpu_ram.main : -1);
    gt_tracker_free(t);
}

int main(void)
{
    test_parse();
    test_percent();
    make_fixture();
    test_backend();
    test_rocm_first();
    test_no_drm_class();
    test_kfd();
    fx_rmroot(proc);
    fx_rmroot(sys);
    return check_exit("test_drm");
}
