/* native_tracker.c - gputracker._native's types: Tracker (a gt_tracker,
 * its warnings queued for the user's thread) and SubTrackingFile (a
 * gt_subtracker). */
#define PY_SSIZE_T_CLEAN

#include <Python.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native.h"
#include "gpu_tracker_internal.h"

/* At most this many warnings wait for take_warnings(); later ones are
 * counted, and the last message says how many were dropped. */
#define WARNINGS_MAX 256

struct warning_queue {
    pthread_mutex_t lock;
    char *messages[WARNINGS_MAX];
    size_t n;
    size_t dropped;
};

typedef struct {
    PyObject_HEAD
    gt_tracker *tracker;
    gt_limit_watch *limits;         /* the limits' watch over it (freed first) */
    struct warning_queue *warnings; /* outlives the tracker: freed after it */
} NativeTracker;
/* on_warning: any library thread, never with the GIL. */
static void queue_warning(const char *message, void *data)
{
    struct warning_queue *q = data;
    pthread_mutex_lock(&q->lock);
    char *copy = q->n < WARNINGS_MAX ? strdup(message) : NULL;
    if (copy)
        q->messages[q->n++] = copy;
    else
        q->dropped++;
    pthread_mutex_unlock(&q->lock);
}

static void tracker_dealloc(NativeTracker *self)
{
    if (self->tracker || self->limits) {
        gt_tracker *t = self->tracker;
        gt_limit_watch *w = self->limits;
        self->tracker = NULL;
        self->limits = NULL;
        Py_BEGIN_ALLOW_THREADS
        gt_limit_watch_free(w);
        gt_tracker_free(t);
        Py_END_ALLOW_THREADS
    }
    if (self->warnings) {
        for (size_t i = 0; i < self->warnings->n; i++)
            free(self->warnings->messages[i]);
        pthread_mutex_destroy(&self->warnings->lock);
        free(self->warnings);
    }
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Tracker(sleep_time, ram_unit, gpu_ram_unit, time_unit, n_expected_cores,
 *         gpu_uuids, gpu_brand, disable_logs, process_id,
 *         resource_usage_file, stop_timeout, ..., tracking_file, overwrite,
 *         metrics_listen, metrics_textfile_dir, max_ram, max_gpu_ram, max_time,
 *         max_cpu_time, on_limit, kill_after, carbon_intensity, pue):
 * gt_tracker_new() with those options (None: the library's default;
 * gpu_uuids comma-separated), the Slurm job of this process's environment
 * as options.job, as the command has it; the limits (max_* to kill_after)
 * kept by a watch over it (gt_limit_watch). */
static int tracker_init(NativeTracker *self, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"sleep_time", "ram_unit", "gpu_ram_unit", "time_unit",
                            "n_expected_cores", "gpu_uuids", "gpu_brand", "disable_logs",
                            "process_id", "resource_usage_file", "stop_timeout", "series",
                            "main_only", "start_at", "discover_cloud", "metadata_url",
                            "tracking_file", "overwrite", "metrics_listen",
                            "metrics_textfile_dir", "max_ram", "max_gpu_ram", "max_time",
                            "max_cpu_time", "on_limit", "kill_after", "carbon_intensity", "pue",
                            NULL};
    gt_options o;
    gt_options_init(&o);
    gt_limit_options lo;
    gt_limit_options_init(&lo);
    int disable_logs = 0, process_id = 0, main_only = 0, discover_cloud = 0, overwrite = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|dsssizzpizdipdpzzpzzddddiddd", names,
                                     &o.sleep_time,
                                     &o.ram_unit, &o.gpu_ram_unit, &o.time_unit,
                                     &o.n_expected_cores, &o.gpu_uuids, &o.gpu_brand,
                                     &disable_logs, &process_id, &o.resource_usage_file,
                                     &o.stop_timeout, &o.series, &main_only, &o.start_at,
                                     &discover_cloud, &o.metadata_url, &o.tracking_file,
                                     &overwrite, &o.metrics_listen, &o.metrics_textfile_dir,
                                     &lo.max_ram, &lo.max_gpu_ram, &lo.max_time, &lo.max_cpu_time,
                                     &lo.on_limit, &lo.kill_after, &o.carbon_intensity, &o.pue))
        return -1;
    gt_job_info job = {.struct_size = sizeof job}; /* copied by gt_tracker_new */
    gt_job_info_from_environ(NULL, &job);
    o.job = &job;
    o.main_only = main_only;
    o.overwrite = overwrite;
    o.discover_cloud = discover_cloud;
    if (self->tracker) {
        PyErr_SetString(PyExc_RuntimeError, "the tracker is already initialised");
        return -1;
    }
    if (!self->warnings) {
        self->warnings = calloc(1, sizeof *self->warnings);
        if (!self->warnings) {
            PyErr_NoMemory();
            return -1;
        }
        pthread_mutex_init(&self->warnings->lock, NULL);
    }
    o.disable_logs = disable_logs;
    o.process_id = (pid_t)process_id;
    o.on_warning = queue_warning;
    o.warning_data = self->warnings;
    gt_limit_watch *w = NULL;
    gt_status status = gt_limit_watch_new(&lo, &o, &w);
    if (status != GT_OK) {
        native_raise_status(status);
        return -1;
    }
    gt_tracker *t = NULL;
    Py_BEGIN_ALLOW_THREADS
    /* metadata_url: where the cloud is asked (GPU_TRACKER_METADATA_URL, as
     * the command takes it); NULL: the real services. */
    status = gt_tracker_new(&o, &t);
    if (status == GT_OK)
        status = gt_limit_watch_attach(w, t);
    Py_END_ALLOW_THREADS
    if (status != GT_OK) {
        native_raise_status(status); /* before the frees: it reads gt_last_error() */
        gt_limit_watch_free(w);
        gt_tracker_free(t);
        return -1;
    }
    self->tracker = t;
    self->limits = w;
    return 0;
}

static gt_tracker *tracker_of(NativeTracker *self)
{
    if (!self->tracker)
        PyErr_SetString(PyExc_RuntimeError, "the tracker was not initialised");
    return self->tracker;
}

/* A state change of the library (start, stop), without the GIL: it may
 * wait for the sampling thread or the filesystem. */
static PyObject *change_state(NativeTracker *self, gt_status (*change)(gt_tracker *))
{
    gt_tracker *t = tracker_of(self);
    if (!t)
        return NULL;
    gt_status status;
    Py_BEGIN_ALLOW_THREADS
    status = change(t);
    Py_END_ALLOW_THREADS
    if (status != GT_OK)
        return native_raise_status(status);
    Py_RETURN_NONE;
}

static PyObject *tracker_start(NativeTracker *self, PyObject *unused)
{
    (void)unused;
    return change_state(self, gt_tracker_start);
}

static PyObject *tracker_stop(NativeTracker *self, PyObject *unused)
{
    (void)unused;
    return change_state(self, gt_tracker_stop);
}

/* The results as the library's JSON document (gpu_tracker's to_json()
 * sections and ours); RuntimeError unless stopped. */
static PyObject *tracker_usage_json(NativeTracker *self, PyObject *unused)
{
    (void)unused;
    gt_tracker *t = tracker_of(self);
    if (!t)
        return NULL;
    /* NULL with the library's message (not stopped), or without one when
     * out of memory. */
    char *json = gt_limit_watch_json(self->limits, t);
    if (!json)
        return *gt_last_error() ? native_raise_status(GT_ERR_STATE) : PyErr_NoMemory();
    PyObject *s = PyUnicode_FromString(json);
    free(json);
    return s;
}

/* The warnings queued since the last call, oldest first. */
static PyObject *tracker_take_warnings(NativeTracker *self, PyObject *unused)
{
    (void)unused;
    PyObject *list = PyList_New(0);
    if (!list || !self->warnings)
        return list;
    struct warning_queue *q = self->warnings;
    char *taken[WARNINGS_MAX];
    pthread_mutex_lock(&q->lock);
    size_t n = q->n, dropped = q->dropped;
    memcpy(taken, q->messages, n * sizeof taken[0]);
    q->n = 0;
    q->dropped = 0;
    pthread_mutex_unlock(&q->lock);
    int failed = 0;
    for (size_t i = 0; i < n; i++) {
        PyObject *s = failed ? NULL : PyUnicode_DecodeUTF8(taken[i], (Py_ssize_t)strlen(taken[i]),
                                                         "replace");
        free(taken[i]);
        if (!failed && (!s || PyList_Append(list, s) < 0))
            failed = 1;
        Py_XDECREF(s);
    }
    if (!failed && dropped) {
        PyObject *s = PyUnicode_FromFormat("%zu more warnings were dropped", dropped);
        if (!s || PyList_Append(list, s) < 0)
            failed = 1;
        Py_XDECREF(s);
    }
    if (failed) {
        Py_DECREF(list);
        return NULL;
    }
    return list;
}

/* rows(kind, first): the rows of kind (0 process, 1 system) from first on,
 * kept so far, as tuples in resource_tracker's column order. Safe while
 * tracking; the copy runs without the GIL. */
static PyObject *tracker_rows(NativeTracker *self, PyObject *args)
{
    int kind;
    Py_ssize_t first;
    if (!PyArg_ParseTuple(args, "in", &kind, &first))
        return NULL;
    gt_tracker *t = tracker_of(self);
    if (!t)
        return NULL;
    if (kind != GT_SERIES_KIND_PROCESS && kind != GT_SERIES_KIND_SYSTEM) {
        PyErr_SetString(PyExc_ValueError, "unknown series kind; valid: 0 (process), 1 (system)");
        return NULL;
    }
    if (first < 0)
        first = 0;
    void *buf = NULL;
    size_t got = 0;
    gt_status status;
    Py_BEGIN_ALLOW_THREADS
    status = gt_tracker_rows_since(t, (gt_series_kind)kind, (size_t)first, &buf, &got);
    Py_END_ALLOW_THREADS
    if (status != GT_OK)
        return native_raise_status(status);
    PyObject *list = PyList_New((Py_ssize_t)got);
    for (size_t i = 0; list && i < got; i++) {
        PyObject *row;
        if (kind == GT_SERIES_KIND_PROCESS) {
            const gt_process_row *r = (const gt_process_row *)buf + i;
            row = Py_BuildValue("(dildddKKKddi)", r->timestamp, r->pid, r->children, r->utime,
                                r->stime, r->cpu_usage, r->memory, r->read_bytes, r->write_bytes,
                                r->gpu_usage, r->gpu_vram, r->gpu_utilized);
        } else {
            const gt_system_row *r = (const gt_system_row *)buf + i;
            row = Py_BuildValue("(dldddKKKKKKKKdddKKddi)", r->timestamp, r->processes, r->utime,
                                r->stime, r->cpu_usage, r->memory_free, r->memory_used,
                                r->memory_buffers, r->memory_cached, r->memory_active,
                                r->memory_inactive, r->disk_read_bytes, r->disk_write_bytes,
                                r->disk_space_total_gb, r->disk_space_used_gb,
                                r->disk_space_free_gb, r->net_recv_bytes, r->net_sent_bytes,
                                r->gpu_usage, r->gpu_vram, r->gpu_utilized);
        }
        if (!row) {
            Py_CLEAR(list);
            break;
        }
        PyList_SET_ITEM(list, (Py_ssize_t)i, row);
    }
    free(buf);
    return list;
}

/* wait_rows(n, timeout): gt_tracker_wait_rows(), without the GIL. */
static PyObject *tracker_wait_rows(NativeTracker *self, PyObject *args)
{
    Py_ssize_t n;
    double timeout;
    if (!PyArg_ParseTuple(args, "nd", &n, &timeout))
        return NULL;
    gt_tracker *t = tracker_of(self);
    if (!t)
        return NULL;
    int ok;
    Py_BEGIN_ALLOW_THREADS
    ok = gt_tracker_wait_rows(t, n > 0 ? (size_t)n : 0, timeout);
    Py_END_ALLOW_THREADS
    return PyBool_FromLong(ok);
}

/* snapshot_text(format, server_json or None[, duration]): the run so far (or
 * the stopped run) as a snapshot document or report (see
 * native_snapshot_text()); a duration above 0 is the run's wall time as the
 * caller counts it (resource_tracker: from start() to stop()). */
static PyObject *tracker_snapshot_text(NativeTracker *self, PyObject *args)
{
    int format;
    const char *server = NULL;
    double duration = 0; /* > 0: the run's wall time as the caller counts it */
    if (!PyArg_ParseTuple(args, "iz|d", &format, &server, &duration) ||
        native_check_format(format) < 0)
        return NULL;
    gt_tracker *t = tracker_of(self);
    if (!t)
        return NULL;
    gt_snapshot *s = NULL;
    gt_status status;
    char *text = NULL;
    Py_BEGIN_ALLOW_THREADS
    status = gt_tracker_snapshot(t, NULL, -1, &s);
    if (status == GT_OK && duration > 0)
        s->duration = duration;
    if (status == GT_OK)
        text = native_snapshot_text(s, format, server);
    gt_snapshot_free(s);
    Py_END_ALLOW_THREADS
    if (status != GT_OK)
        return native_raise_status(status);
    return native_take_text(text);
}

/* stats(): resource_tracker's stats() of the rows so far (or of the
 * stopped run), gt_tracker_stats(); ValueError when there is no row yet. */
static PyObject *tracker_stats(NativeTracker *self, PyObject *unused)
{
    (void)unused;
    gt_tracker *t = tracker_of(self);
    if (!t)
        return NULL;
    gt_stats st = {0};
    gt_status status;
    Py_BEGIN_ALLOW_THREADS
    status = gt_tracker_stats(t, &st);
    Py_END_ALLOW_THREADS
    if (status != GT_OK)
        return native_raise_status(status);
    return native_stats_dict(&st);
}

/* Appends a caveat's sentence to the list (gt_measurement_caveats). */
static void caveat_append(const char *sentence, void *list)
{
    PyObject *s = PyUnicode_DecodeUTF8(sentence, (Py_ssize_t)strlen(sentence), "replace");
    if (!s || PyList_Append(list, s) < 0)
        PyErr_Clear(); /* a sentence lost to no memory: the figures stand */
    Py_XDECREF(s);
}

/* caveats(): after stop(), where the figures are bounds rather than exact,
 * one sentence each (the words -f human and the report use), and a
 * starved CPU's. */
static PyObject *tracker_caveats(NativeTracker *self, PyObject *unused)
{
    (void)unused;
    gt_tracker *t = tracker_of(self);
    if (!t)
        return NULL;
    gt_run_results *r;
    gt_status status;
    Py_BEGIN_ALLOW_THREADS
    status = gt_run_results_read(t, &r);
    Py_END_ALLOW_THREADS
    if (status != GT_OK)
        return native_raise_status(status);
    PyObject *list = PyList_New(0);
    if (!list) {
        gt_run_results_free(r);
        return NULL;
    }
    gt_measurement_caveats(&r->usage, r->cgroup, caveat_append, list);
    char starved[512], line[600];
    if (gt_cpu_contention(&r->usage, r->cgroup, r->totals.wall_seconds, starved,
                          sizeof starved)) {
        snprintf(line, sizeof line, "CPU starved: %s", starved);
        caveat_append(line, list);
    }
    gt_run_results_free(r);
    return list;
}

/* cloud_info(max_wait): resource_tracker's cloud_info dict, or None while
 * the discovery goes on (or was not asked for). */
static PyObject *tracker_cloud_info(NativeTracker *self, PyObject *args)
{
    double wait;
    if (!PyArg_ParseTuple(args, "d", &wait))
        return NULL;
    gt_tracker *t = tracker_of(self);
    if (!t)
        return NULL;
    gt_cloud_info c;
    int known;
    Py_BEGIN_ALLOW_THREADS
    known = gt_rt_cloud_info(t, wait, &c);
    Py_END_ALLOW_THREADS
    if (!known)
        Py_RETURN_NONE;
    return Py_BuildValue("{s:s,s:s,s:s,s:d}", "vendor", c.vendor, "instance_type",
                         c.instance_type, "region", c.region, "discovery_time", c.discovery_time);
}

/* metrics_address(): gt_tracker_metrics_address(), or None. */
static PyObject *tracker_metrics_address(NativeTracker *self, PyObject *unused)
{
    (void)unused;
    gt_tracker *t = tracker_of(self);
    if (!t)
        return NULL;
    const char *a = gt_tracker_metrics_address(t);
    if (!a)
        Py_RETURN_NONE;
    return PyUnicode_FromString(a);
}

/* start_epoch(): GT_FIGURE_START_EPOCH, the epoch time sampling begins
 * (or began) at. */
static PyObject *tracker_start_epoch(NativeTracker *self, PyObject *unused)
{
    (void)unused;
    gt_tracker *t = tracker_of(self);
    if (!t)
        return NULL;
    double epoch;
    gt_status status = gt_tracker_figure(t, GT_FIGURE_START_EPOCH, &epoch);
    if (status != GT_OK)
        return native_raise_status(status);
    return PyFloat_FromDouble(epoch);
}

/* server_info(): resource_tracker's server_info dict (its 0.4 keys) and
 * ours, the allocation judged from the rows so far. */
static PyObject *tracker_server_info(NativeTracker *self, PyObject *unused)
{
    (void)unused;
    gt_tracker *t = tracker_of(self);
    if (!t)
        return NULL;
    gt_server_info si;
    gt_status status;
    Py_BEGIN_ALLOW_THREADS
    status = gt_rt_server_info(t, &si);
    Py_END_ALLOW_THREADS
    if (status != GT_OK)
        return native_raise_status(status);
    PyObject *names = PyList_New(0);
    for (int i = 0; names && si.gpu_names && i < si.ngpu_names; i++) {
        PyObject *n = PyUnicode_DecodeUTF8(si.gpu_names[i], (Py_ssize_t)strlen(si.gpu_names[i]),
                                           "replace");
        if (!n || PyList_Append(names, n) < 0)
            Py_CLEAR(names);
        Py_XDECREF(n);
    }
    if (!names)
        return NULL;
    return Py_BuildValue("{s:s,s:i,s:d,s:i,s:N,s:d,s:s,s:s,s:s,s:s,s:s,s:d,s:d}", "os", "Linux",
                         "vcpus", si.vcpus, "memory_mb", si.memory_mib, "gpu_count",
                         si.gpu_count, "gpu_names", names, "gpu_memory_mb", si.gpu_memory_mib,
                         "allocation", si.allocation, "os_release", si.os, "kernel", si.kernel,
                         "hostname", si.hostname, "cpu_model", si.cpu_model, "vcpus_usable",
                         si.vcpus_usable, "memory_limit_mib", si.memory_limit_mib);
}

static PyMethodDef tracker_methods[] = {
    {"start_epoch", (PyCFunction)tracker_start_epoch, METH_NOARGS, "GT_FIGURE_START_EPOCH"},
    {"metrics_address", (PyCFunction)tracker_metrics_address, METH_NOARGS,
     "gt_tracker_metrics_address()"},
    {"server_info", (PyCFunction)tracker_server_info, METH_NOARGS, "gt_rt_server_info()"},
    {"rows", (PyCFunction)tracker_rows, METH_VARARGS, "Rows of a series kept so far."},
    {"wait_rows", (PyCFunction)tracker_wait_rows, METH_VARARGS, "gt_tracker_wait_rows()"},
    {"snapshot_text", (PyCFunction)tracker_snapshot_text, METH_VARARGS,
     "The run so far as a snapshot document (format 0-2) or HTML report (-1)."},
    {"cloud_info", (PyCFunction)tracker_cloud_info, METH_VARARGS, "gt_rt_cloud_info()"},
    {"start", (PyCFunction)tracker_start, METH_NOARGS, "gt_tracker_start()"},
    {"stats", (PyCFunction)tracker_stats, METH_NOARGS, "gt_tracker_stats()"},
    {"caveats", (PyCFunction)tracker_caveats, METH_NOARGS,
     "Where the figures are bounds rather than exact (after stop())."},
    {"stop", (PyCFunction)tracker_stop, METH_NOARGS, "gt_tracker_stop()"},
    {"usage_json", (PyCFunction)tracker_usage_json, METH_NOARGS,
     "The results as a JSON document (after stop())."},
    {"take_warnings", (PyCFunction)tracker_take_warnings, METH_NOARGS,
     "The warnings queued since the last call."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject NativeTrackerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gputracker._native.Tracker",
    .tp_basicsize = sizeof(NativeTracker),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A libgputracker tracker (gt_tracker).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)tracker_init,
    .tp_dealloc = (destructor)tracker_dealloc,
    .tp_methods = tracker_methods,
};

/* SubTrackingFile(path, overwrite): a gt_subtracker, for gputracker's
 * SubTracker. mark(name, position) writes one row (0 start, 1 stop) with
 * the GIL held: a write() of a few microseconds costs less than letting it
 * go and taking it back. */
typedef struct {
    PyObject_HEAD
    gt_subtracker *s;
} NativeSubTracker;
static int subtracker_init(NativeSubTracker *self, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"path", "overwrite", NULL};
    const char *path = NULL;
    int overwrite = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "z|p", names, &path, &overwrite))
        return -1;
    if (self->s) {
        PyErr_SetString(PyExc_RuntimeError, "the sub-tracking file is already open");
        return -1;
    }
    gt_status status = gt_subtracker_open(path, overwrite, &self->s);
    if (status == GT_OK)
        return 0;
    /* gpu_tracker raises FileExistsError for a file that is there. */
    if (status == GT_ERR_IO && strstr(gt_last_error(), "already exists"))
        PyErr_SetString(PyExc_FileExistsError, gt_last_error());
    else
        native_raise_status(status);
    return -1;
}

static void subtracker_dealloc(NativeSubTracker *self)
{
    gt_subtracker_free(self->s);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *subtracker_mark(NativeSubTracker *self, PyObject *args)
{
    const char *name;
    int position;
    if (!PyArg_ParseTuple(args, "si", &name, &position))
        return NULL;
    if (!self->s) {
        PyErr_SetString(PyExc_RuntimeError, "the sub-tracking file is not open");
        return NULL;
    }
    gt_status status = position ? gt_subtrack_end(self->s, name) : gt_subtrack_begin(self->s, name);
    if (status != GT_OK)
        return native_raise_status(status);
    Py_RETURN_NONE;
}

static PyMethodDef subtracker_methods[] = {
    {"mark", (PyCFunction)subtracker_mark, METH_VARARGS,
     "mark(name, position): one row, 0 start or 1 stop (gt_subtrack_begin/end)."},
    {NULL, NULL, 0, NULL},
};

PyTypeObject NativeSubTrackerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gputracker._native.SubTrackingFile",
    .tp_basicsize = sizeof(NativeSubTracker),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A sub-tracking file (gt_subtracker).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)subtracker_init,
    .tp_dealloc = (destructor)subtracker_dealloc,
    .tp_methods = subtracker_methods,
};
