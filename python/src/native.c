/* native.c - gputracker._native: libgputracker for Python, written against
 * gpu_tracker.h only (no struct layout is mirrored on the Python side: the
 * results cross as the library's own JSON), and the gpu-tracker command
 * compiled in for the console script.
 *
 * The GIL is released for everything that may wait (creating the tracker
 * probes the GPU libraries, stop() joins the sampling thread, the command
 * runs a whole job). The library's threads never enter Python: warnings are
 * queued here under a mutex and handed over by take_warnings(), which the
 * Python layer calls from the user's thread. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_main.h"
#include "gpu_tracker.h"
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

/* The exception for a failed library call: ValueError for a bad argument
 * (as gpu_tracker raises), RuntimeError for a call in the wrong state,
 * ProcessLookupError for a process that does not exist, MemoryError, else
 * OSError; the message is gt_last_error()'s. */
static PyObject *raise_status(gt_status status)
{
    PyObject *type = PyExc_OSError;
    switch (status) {
    case GT_ERR_INVALID_ARGUMENT:
        type = PyExc_ValueError;
        break;
    case GT_ERR_STATE:
        type = PyExc_RuntimeError;
        break;
    case GT_ERR_NO_PROCESS:
        type = PyExc_ProcessLookupError;
        break;
    case GT_ERR_NO_MEMORY:
        return PyErr_NoMemory();
    default:
        break;
    }
    PyErr_SetString(type, gt_last_error());
    return NULL;
}

static void tracker_dealloc(NativeTracker *self)
{
    if (self->tracker) {
        gt_tracker *t = self->tracker;
        self->tracker = NULL;
        Py_BEGIN_ALLOW_THREADS
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
 *         metrics_listen, metrics_textfile_dir):
 * gt_tracker_new() with those options (None: the library's default;
 * gpu_uuids comma-separated), the Slurm job of this process's environment
 * as options.job, as the command has it. */
static int tracker_init(NativeTracker *self, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"sleep_time", "ram_unit", "gpu_ram_unit", "time_unit",
                            "n_expected_cores", "gpu_uuids", "gpu_brand", "disable_logs",
                            "process_id", "resource_usage_file", "stop_timeout", "series",
                            "main_only", "start_at", "discover_cloud", "metadata_url",
                            "tracking_file", "overwrite", "metrics_listen",
                            "metrics_textfile_dir", NULL};
    gt_testing_hooks hooks = {NULL, NULL, NULL, 0};
    gt_options o;
    gt_options_init(&o);
    int disable_logs = 0, process_id = 0, main_only = 0, discover_cloud = 0, overwrite = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|dsssizzpizdipdpzzpzz", names, &o.sleep_time,
                                     &o.ram_unit, &o.gpu_ram_unit, &o.time_unit,
                                     &o.n_expected_cores, &o.gpu_uuids, &o.gpu_brand,
                                     &disable_logs, &process_id, &o.resource_usage_file,
                                     &o.stop_timeout, &o.series, &main_only, &o.start_at,
                                     &discover_cloud, &hooks.metadata_url, &o.tracking_file,
                                     &overwrite, &o.metrics_listen, &o.metrics_textfile_dir))
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
    gt_status status;
    gt_tracker *t = NULL;
    Py_BEGIN_ALLOW_THREADS
    /* metadata_url: where the cloud is asked (GPU_TRACKER_METADATA_URL, as
     * the command takes it); NULL: the real services. */
    status = hooks.metadata_url ? gt_testing_tracker_new(&o, &hooks, &t) : gt_tracker_new(&o, &t);
    Py_END_ALLOW_THREADS
    if (status != GT_OK) {
        raise_status(status);
        return -1;
    }
    self->tracker = t;
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
        return raise_status(status);
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
    if (!gt_tracker_usage(t))
        return raise_status(GT_ERR_STATE);
    char *json = gt_tracker_to_json(t);
    if (!json)
        return PyErr_NoMemory();
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

/* A str of text the library allocated (freed here); MemoryError for NULL. */
static PyObject *take_text(char *text)
{
    if (!text)
        return PyErr_NoMemory();
    PyObject *s = PyUnicode_FromString(text);
    free(text);
    return s;
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
    size_t n = gt_tracker_row_count(t, (gt_series_kind)kind);
    size_t want = n > (size_t)first ? n - (size_t)first : 0;
    size_t size = kind == GT_SERIES_KIND_PROCESS ? sizeof(gt_process_row) : sizeof(gt_system_row);
    void *buf = malloc((want ? want : 1) * size);
    if (!buf)
        return PyErr_NoMemory();
    size_t got = 0;
    gt_status status;
    Py_BEGIN_ALLOW_THREADS
    status = gt_tracker_copy_rows(t, (gt_series_kind)kind, (size_t)first, want, buf, &got);
    Py_END_ALLOW_THREADS
    if (status != GT_OK) {
        free(buf);
        return raise_status(status);
    }
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

/* What a snapshot is turned into for Python: a document in format
 * (gt_snapshot_format), or with REPORT its HTML report (server: a Keeper
 * answer or NULL). */
#define REPORT (-1)

/* 0 for a format snapshot_text() takes; -1 with ValueError otherwise. */
static int check_format(int format)
{
    if (format == REPORT || format == GT_SNAPSHOT_GPU_TRACKER ||
        format == GT_SNAPSHOT_RESOURCE_TRACKER || format == GT_SNAPSHOT_RESOURCE_TRACKER_05)
        return 0;
    PyErr_Format(PyExc_ValueError, "unknown snapshot format %d; valid: -1 (report), 0, 1, 2", format);
    return -1;
}

/* Called without the GIL. */
static char *snapshot_text(const gt_snapshot *s, int format, const char *server)
{
    return format == REPORT ? gt_snapshot_report_html(s, server)
                            : gt_snapshot_to_json_as(s, (gt_snapshot_format)format);
}

/* snapshot_text(format, server_json or None): the run so far (or the
 * stopped run) as a snapshot document or report (see snapshot_text()). */
static PyObject *tracker_snapshot_text(NativeTracker *self, PyObject *args)
{
    int format;
    const char *server = NULL;
    if (!PyArg_ParseTuple(args, "iz", &format, &server) || check_format(format) < 0)
        return NULL;
    gt_tracker *t = tracker_of(self);
    if (!t)
        return NULL;
    gt_snapshot *s = NULL;
    gt_status status;
    char *text = NULL;
    Py_BEGIN_ALLOW_THREADS
    status = gt_tracker_snapshot(t, NULL, -1, &s);
    if (status == GT_OK)
        text = snapshot_text(s, format, server);
    gt_snapshot_free(s);
    Py_END_ALLOW_THREADS
    if (status != GT_OK)
        return raise_status(status);
    return take_text(text);
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
    gt_cloud_info c = {.struct_size = sizeof(gt_cloud_info)};
    int known;
    Py_BEGIN_ALLOW_THREADS
    known = gt_tracker_cloud_info(t, wait, &c);
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

/* start_epoch(): gt_tracker_start_epoch(), the epoch time sampling begins
 * (or began) at. */
static PyObject *tracker_start_epoch(NativeTracker *self, PyObject *unused)
{
    (void)unused;
    gt_tracker *t = tracker_of(self);
    if (!t)
        return NULL;
    return PyFloat_FromDouble(gt_tracker_start_epoch(t));
}

/* server_info(): resource_tracker's server_info dict (its 0.4 keys) and
 * ours, the allocation judged from the rows so far. */
static PyObject *tracker_server_info(NativeTracker *self, PyObject *unused)
{
    (void)unused;
    gt_tracker *t = tracker_of(self);
    if (!t)
        return NULL;
    gt_server_info si = {.struct_size = sizeof(gt_server_info)};
    gt_status status;
    Py_BEGIN_ALLOW_THREADS
    status = gt_tracker_server_info(t, &si);
    Py_END_ALLOW_THREADS
    if (status != GT_OK)
        return raise_status(status);
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
    {"start_epoch", (PyCFunction)tracker_start_epoch, METH_NOARGS, "gt_tracker_start_epoch()"},
    {"metrics_address", (PyCFunction)tracker_metrics_address, METH_NOARGS,
     "gt_tracker_metrics_address()"},
    {"server_info", (PyCFunction)tracker_server_info, METH_NOARGS, "gt_tracker_server_info()"},
    {"rows", (PyCFunction)tracker_rows, METH_VARARGS, "Rows of a series kept so far."},
    {"wait_rows", (PyCFunction)tracker_wait_rows, METH_VARARGS, "gt_tracker_wait_rows()"},
    {"snapshot_text", (PyCFunction)tracker_snapshot_text, METH_VARARGS,
     "The run so far as a snapshot document (format 0-2) or HTML report (-1)."},
    {"cloud_info", (PyCFunction)tracker_cloud_info, METH_VARARGS, "gt_tracker_cloud_info()"},
    {"start", (PyCFunction)tracker_start, METH_NOARGS, "gt_tracker_start()"},
    {"stop", (PyCFunction)tracker_stop, METH_NOARGS, "gt_tracker_stop()"},
    {"usage_json", (PyCFunction)tracker_usage_json, METH_NOARGS,
     "The results as a JSON document (after stop())."},
    {"take_warnings", (PyCFunction)tracker_take_warnings, METH_NOARGS,
     "The warnings queued since the last call."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject NativeTrackerType = {
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
        raise_status(status);
    return -1;
}

static void subtracker_dealloc(NativeSubTracker *self)
{
    gt_subtracker_close(self->s);
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
        return raise_status(status);
    Py_RETURN_NONE;
}

static PyObject *subtracker_path(NativeSubTracker *self, PyObject *unused)
{
    (void)unused;
    if (!self->s)
        Py_RETURN_NONE;
    return PyUnicode_DecodeFSDefault(gt_subtracker_path(self->s));
}

static PyMethodDef subtracker_methods[] = {
    {"mark", (PyCFunction)subtracker_mark, METH_VARARGS,
     "mark(name, position): one row, 0 start or 1 stop (gt_subtrack_begin/end)."},
    {"path", (PyCFunction)subtracker_path, METH_NOARGS, "gt_subtracker_path()"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject NativeSubTrackerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "gputracker._native.SubTrackingFile",
    .tp_basicsize = sizeof(NativeSubTracker),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A sub-tracking file (gt_subtracker).",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)subtracker_init,
    .tp_dealloc = (destructor)subtracker_dealloc,
    .tp_methods = subtracker_methods,
};

/* usage_text(json): gpu_tracker's text for a to_json() document (ours or
 * gpu_tracker's own), by the library's text writer. ValueError when the
 * document does not parse. */
static PyObject *usage_text(PyObject *module, PyObject *arg)
{
    (void)module;
    const char *json = PyUnicode_AsUTF8(arg);
    if (!json)
        return NULL;
    gt_resource_usage *u = malloc(sizeof *u);
    if (!u)
        return PyErr_NoMemory();
    u->struct_size = sizeof *u;
    gt_status status = gt_usage_from_json(json, u);
    if (status != GT_OK) {
        free(u);
        PyErr_SetString(PyExc_ValueError, gt_last_error());
        return NULL;
    }
    char *text = gt_usage_to_text(u);
    gt_usage_release(u);
    free(u);
    if (!text)
        return PyErr_NoMemory();
    PyObject *s = PyUnicode_FromString(text);
    free(text);
    return s;
}

/* cli_main(argv): the gpu-tracker command in this process; its exit
 * status. For the console script only (it installs signal handlers). */
static PyObject *cli_main(PyObject *module, PyObject *arg)
{
    (void)module;
    if (!PyList_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "cli_main() takes a list of str");
        return NULL;
    }
    Py_ssize_t n = PyList_Size(arg);
    char **argv = calloc((size_t)n + 1, sizeof *argv);
    if (!argv)
        return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *bytes = PyUnicode_EncodeFSDefault(PyList_GetItem(arg, i));
        if (bytes) {
            argv[i] = strdup(PyBytes_AsString(bytes));
            Py_DECREF(bytes);
        }
        if (!argv[i]) {
            for (Py_ssize_t k = 0; k < i; k++)
                free(argv[k]);
            free(argv);
            return PyErr_Occurred() ? NULL : PyErr_NoMemory();
        }
    }
    int rc;
    Py_BEGIN_ALLOW_THREADS
    rc = gt_cli_main((int)n, argv);
    fflush(NULL);
    Py_END_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++)
        free(argv[i]);
    free(argv);
    return PyLong_FromLong(rc);
}

/* snapshot_convert(source, format, server_json, max_rows[, name]): the
 * snapshot in source (bytes: gzip or JSON, any format; or a str: a file's
 * path, read as gt_snapshot_read() reads one: a regular file, its size
 * bounded first) with at most max_rows rows per series (0: the default),
 * as snapshot_text() gives it. ValueError naming the problem when it is not
 * a snapshot, OSError when the file cannot be read. */
static PyObject *snapshot_convert(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *source;
    int format;
    const char *server = NULL, *name = "snapshot";
    Py_ssize_t max_rows;
    if (!PyArg_ParseTuple(args, "Oizn|s", &source, &format, &server, &max_rows, &name) ||
        check_format(format) < 0)
        return NULL;
    size_t rows = max_rows > 0 ? (size_t)max_rows : 0;
    PyObject *path = NULL;
    Py_buffer data = {0};
    if (PyUnicode_Check(source)) {
        if (!PyUnicode_FSConverter(source, &path))
            return NULL;
    } else if (PyObject_GetBuffer(source, &data, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    gt_snapshot *s = NULL;
    gt_status status;
    char *text = NULL;
    Py_BEGIN_ALLOW_THREADS
    status = path ? gt_snapshot_read_ex(PyBytes_AS_STRING(path), rows, &s)
                  : gt_snapshot_from_memory(data.buf, (size_t)data.len, name, rows, &s);
    if (status == GT_OK)
        text = snapshot_text(s, format, server);
    gt_snapshot_free(s);
    Py_END_ALLOW_THREADS
    Py_XDECREF(path);
    if (!path)
        PyBuffer_Release(&data);
    if (status != GT_OK) {
        PyErr_SetString(status == GT_ERR_NO_MEMORY ? PyExc_MemoryError
                        : status == GT_ERR_IO      ? PyExc_OSError
                                                   : PyExc_ValueError,
                        gt_last_error());
        return NULL;
    }
    return take_text(text);
}

/* recommend(cpu_mean, memory_max_kb, gpu_mean, gpu_max, vram_max_mib):
 * resource_tracker's recommend_resources() from those statistics, by the
 * library's rules (gt_recommend). */
/* One column of a series as (typecode, bytes): "d" doubles or "q" 64-bit
 * integers, one a row, for array.array(typecode).frombytes(). */
#define COLUMN(type, code, expr)                                                                    \
    do {                                                                                        \
        PyObject *b = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)(n * 8));                      \
        if (!b)                                                                                 \
            goto fail;                                                                          \
        char *out = PyBytes_AS_STRING(b);                                                       \
        for (size_t i = 0; i < n; i++) {                                                        \
            const ROW *r = &rows[i];                                                            \
            type v = (type)(expr);                                                              \
            memcpy(out + i * 8, &v, 8);                                                         \
        }                                                                                       \
        PyObject *pair = Py_BuildValue("(sN)", code, b);                                        \
        if (!pair || PyList_Append(list, pair) < 0) {                                           \
            Py_XDECREF(pair);                                                                   \
            goto fail;                                                                          \
        }                                                                                       \
        Py_DECREF(pair);                                                                        \
    } while (0)

/* The process series' columns, in resource_tracker's order (PROCESS_COLUMNS). */
static PyObject *process_columns(const gt_process_row *rows, size_t n)
{
    PyObject *list = PyList_New(0);
    if (!list)
        return NULL;
#define ROW gt_process_row
    COLUMN(double, "d", r->timestamp);
    COLUMN(long long, "q", r->pid);
    COLUMN(long long, "q", r->children);
    COLUMN(double, "d", r->utime);
    COLUMN(double, "d", r->stime);
    COLUMN(double, "d", r->cpu_usage);
    COLUMN(long long, "q", r->memory);
    COLUMN(long long, "q", r->read_bytes);
    COLUMN(long long, "q", r->write_bytes);
    COLUMN(double, "d", r->gpu_usage);
    COLUMN(double, "d", r->gpu_vram);
    COLUMN(long long, "q", r->gpu_utilized);
#undef ROW
    return list;
fail:
    Py_DECREF(list);
    return NULL;
}

/* The system series' columns, in resource_tracker's order (SYSTEM_COLUMNS). */
static PyObject *system_columns(const gt_system_row *rows, size_t n)
{
    PyObject *list = PyList_New(0);
    if (!list)
        return NULL;
#define ROW gt_system_row
    COLUMN(double, "d", r->timestamp);
    COLUMN(long long, "q", r->processes);
    COLUMN(double, "d", r->utime);
    COLUMN(double, "d", r->stime);
    COLUMN(double, "d", r->cpu_usage);
    COLUMN(long long, "q", r->memory_free);
    COLUMN(long long, "q", r->memory_used);
    COLUMN(long long, "q", r->memory_buffers);
    COLUMN(long long, "q", r->memory_cached);
    COLUMN(long long, "q", r->memory_active);
    COLUMN(long long, "q", r->memory_inactive);
    COLUMN(long long, "q", r->disk_read_bytes);
    COLUMN(long long, "q", r->disk_write_bytes);
    COLUMN(double, "d", r->disk_space_total_gb);
    COLUMN(double, "d", r->disk_space_used_gb);
    COLUMN(double, "d", r->disk_space_free_gb);
    COLUMN(long long, "q", r->net_recv_bytes);
    COLUMN(long long, "q", r->net_sent_bytes);
    COLUMN(double, "d", r->gpu_usage);
    COLUMN(double, "d", r->gpu_vram);
    COLUMN(long long, "q", r->gpu_utilized);
#undef ROW
    return list;
fail:
    Py_DECREF(list);
    return NULL;
}
#undef COLUMN

static const char SNAPSHOT_CAPSULE[] = "gputracker.snapshot";

static void snapshot_capsule_free(PyObject *capsule)
{
    gt_snapshot_free(PyCapsule_GetPointer(capsule, SNAPSHOT_CAPSULE));
}

/* snapshot_load(path or bytes, max_rows): a snapshot read for
 * ResourceTracker.load(): (the document in resource_tracker's 0.4 shape
 * without its rows, as JSON text; the process series' columns; the system
 * series', each column (typecode, bytes); the snapshot itself, kept for
 * snapshot_report()). The rows never become JSON or Python objects: 8
 * bytes a value. */
static PyObject *snapshot_load(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *source;
    Py_ssize_t max_rows;
    if (!PyArg_ParseTuple(args, "On", &source, &max_rows))
        return NULL;
    PyObject *path = NULL;
    Py_buffer data = {0};
    if (PyUnicode_Check(source)) {
        if (!PyUnicode_FSConverter(source, &path))
            return NULL;
    } else if (PyObject_GetBuffer(source, &data, PyBUF_SIMPLE) < 0) {
        return NULL;
    }
    size_t rows = max_rows > 0 ? (size_t)max_rows : 0;
    gt_snapshot *s = NULL;
    gt_status status;
    char *text = NULL;
    Py_BEGIN_ALLOW_THREADS
    status = path ? gt_snapshot_read_ex(PyBytes_AS_STRING(path), rows, &s)
                  : gt_snapshot_from_memory(data.buf, (size_t)data.len, "snapshot", rows, &s);
    if (status == GT_OK) {
        size_t np = s->series.nprocess, ns = s->series.nsystem;
        s->series.nprocess = s->series.nsystem = 0;
        text = gt_snapshot_to_json_as(s, GT_SNAPSHOT_RESOURCE_TRACKER);
        s->series.nprocess = np;
        s->series.nsystem = ns;
    }
    Py_END_ALLOW_THREADS
    Py_XDECREF(path);
    if (!path)
        PyBuffer_Release(&data);
    if (status != GT_OK) {
        PyErr_SetString(status == GT_ERR_NO_MEMORY ? PyExc_MemoryError
                        : status == GT_ERR_IO      ? PyExc_OSError
                                                   : PyExc_ValueError,
                        gt_last_error());
        return NULL;
    }
    PyObject *doc = text ? take_text(text) : PyErr_NoMemory();
    PyObject *proc = doc ? process_columns(s->series.process, s->series.nprocess) : NULL;
    PyObject *sys = proc ? system_columns(s->series.system, s->series.nsystem) : NULL;
    PyObject *kept = sys ? PyCapsule_New(s, SNAPSHOT_CAPSULE, snapshot_capsule_free) : NULL;
    if (!kept)
        gt_snapshot_free(s);
    PyObject *result = kept ? PyTuple_Pack(4, doc, proc, sys, kept) : NULL;
    Py_XDECREF(doc);
    Py_XDECREF(proc);
    Py_XDECREF(sys);
    Py_XDECREF(kept);
    return result;
}

/* snapshot_report(snapshot, server_json or None): the HTML report of a
 * snapshot kept by snapshot_load(). */
static PyObject *snapshot_report(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *capsule;
    const char *server = NULL;
    if (!PyArg_ParseTuple(args, "Oz", &capsule, &server))
        return NULL;
    const gt_snapshot *s = PyCapsule_GetPointer(capsule, SNAPSHOT_CAPSULE);
    if (!s)
        return NULL;
    char *html;
    Py_BEGIN_ALLOW_THREADS
    html = gt_snapshot_report_html(s, server);
    Py_END_ALLOW_THREADS
    if (!html) {
        PyErr_SetString(PyExc_ValueError, *gt_last_error() ? gt_last_error() : "out of memory");
        return NULL;
    }
    return take_text(html);
}

static PyObject *recommend(PyObject *module, PyObject *args)
{
    (void)module;
    gt_stats st = {.struct_size = sizeof(gt_stats)};
    if (!PyArg_ParseTuple(args, "ddddd", &st.cpu_usage_mean, &st.memory_max, &st.gpu_usage_mean,
                          &st.gpu_usage_max, &st.gpu_vram_max))
        return NULL;
    gt_recommendation r = {.struct_size = sizeof(gt_recommendation)};
    gt_recommend(&st, &r);
    return Py_BuildValue("{s:i,s:i,s:i,s:i}", "cpu", r.cpu, "memory", r.memory_mib, "gpu", r.gpu,
                         "vram", r.vram_mib);
}

/* recommend_server(cpu, memory, gpu, vram, base_url or None): the Keeper
 * API's answer (JSON text); OSError when it cannot be had. */
static PyObject *recommend_server(PyObject *module, PyObject *args)
{
    (void)module;
    gt_recommendation r = {.struct_size = sizeof(gt_recommendation)};
    const char *url = NULL;
    if (!PyArg_ParseTuple(args, "iiiiz", &r.cpu, &r.memory_mib, &r.gpu, &r.vram_mib, &url))
        return NULL;
    char *json = NULL;
    gt_status status;
    Py_BEGIN_ALLOW_THREADS
    status = gt_recommend_server_at(&r, url, &json);
    Py_END_ALLOW_THREADS
    if (status != GT_OK)
        return raise_status(status);
    return take_text(json);
}

static PyObject *version(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyUnicode_FromString(gt_version());
}

/* ---- sub-tracking analysis -------------------------------------------------- */

/* The exception for a failed analysis: a malformed file is a ValueError, as
 * gpu_tracker raises for an invalid sub-tracking file. */
static PyObject *raise_analysis(gt_status status)
{
    if (status == GT_ERR_PARSE) {
        PyErr_SetString(PyExc_ValueError, gt_last_error());
        return NULL;
    }
    return raise_status(status);
}

/* sub_track_analyze(tracking_file, sub_tracking_file, json): (the results
 * as JSON text (json true) or gpu_tracker's text, the warnings or None). */
static PyObject *sub_track_analyze(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *tf = NULL, *stf = NULL;
    int json = 1;
    if (!PyArg_ParseTuple(args, "O&O&p", PyUnicode_FSConverter, &tf, PyUnicode_FSConverter,
                          &stf, &json)) {
        Py_XDECREF(tf);
        return NULL;
    }
    char *out = NULL, *warnings = NULL;
    gt_status status;
    Py_BEGIN_ALLOW_THREADS
    status = gt_subtrack_analyze_ex(PyBytes_AS_STRING(tf), PyBytes_AS_STRING(stf),
                                    json ? GT_FORMAT_JSON : GT_FORMAT_TEXT, &out, &warnings);
    Py_END_ALLOW_THREADS
    Py_DECREF(tf);
    Py_DECREF(stf);
    if (status != GT_OK)
        return raise_analysis(status);
    PyObject *text = take_text(out);
    PyObject *warn = warnings ? take_text(warnings) : (Py_INCREF(Py_None), Py_None);
    PyObject *result = text && warn ? PyTuple_Pack(2, text, warn) : NULL;
    Py_XDECREF(text);
    Py_XDECREF(warn);
    return result;
}

/* check_file(path, name): None when the tracking file path (a descriptor's
 * /proc/self/fd/N, of the file called name) is one the analysis reads and
 * pandas may then read (for SQLite: plain tables only, nothing computed),
 * else the error (gt_subtrack_check_file). */
static PyObject *check_file(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *path = NULL, *name = NULL;
    if (!PyArg_ParseTuple(args, "O&O&", PyUnicode_FSConverter, &path, PyUnicode_FSConverter,
                          &name)) {
        Py_XDECREF(path);
        return NULL;
    }
    gt_status status;
    Py_BEGIN_ALLOW_THREADS
    status = gt_subtrack_check_file(PyBytes_AS_STRING(path), PyBytes_AS_STRING(name));
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    Py_DECREF(name);
    if (status != GT_OK)
        return raise_analysis(status);
    Py_RETURN_NONE;
}

/* sub_track_calls(sub_tracking_file): gt_subtrack_calls' JSON. */
static PyObject *sub_track_calls(PyObject *module, PyObject *arg)
{
    (void)module;
    PyObject *path = NULL;
    if (!PyUnicode_FSConverter(arg, &path))
        return NULL;
    char *out = NULL;
    gt_status status;
    Py_BEGIN_ALLOW_THREADS
    status = gt_subtrack_calls(PyBytes_AS_STRING(path), &out);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    return status == GT_OK ? take_text(out) : raise_analysis(status);
}

/* sub_track_combine(output, [inputs]): gt_subtrack_combine. */
static PyObject *sub_track_combine(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *output = NULL, *inputs = NULL;
    if (!PyArg_ParseTuple(args, "O&O", PyUnicode_FSConverter, &output, &inputs))
        return NULL;
    PyObject *seq = PySequence_Fast(inputs, "inputs must be a list of paths");
    Py_ssize_t n = seq ? PySequence_Fast_GET_SIZE(seq) : 0;
    PyObject **bytes = seq ? PyMem_Calloc((size_t)n + 1, sizeof *bytes) : NULL;
    const char **paths = seq ? PyMem_Calloc((size_t)n + 1, sizeof *paths) : NULL;
    PyObject *result = NULL;
    if (seq && (!bytes || !paths)) {
        PyErr_NoMemory();
        goto out;
    }
    for (Py_ssize_t i = 0; seq && i < n; i++) {
        if (!PyUnicode_FSConverter(PySequence_Fast_GET_ITEM(seq, i), &bytes[i]))
            goto out;
        paths[i] = PyBytes_AS_STRING(bytes[i]);
    }
    if (seq) {
        gt_status status;
        Py_BEGIN_ALLOW_THREADS
        status = gt_subtrack_combine(PyBytes_AS_STRING(output), paths, (size_t)n);
        Py_END_ALLOW_THREADS
        if (status == GT_OK) {
            Py_INCREF(Py_None);
            result = Py_None;
        } else {
            raise_analysis(status);
        }
    }
out:
    for (Py_ssize_t i = 0; bytes && i < n; i++)
        Py_XDECREF(bytes[i]);
    PyMem_Free(bytes);
    PyMem_Free(paths);
    Py_XDECREF(seq);
    Py_DECREF(output);
    return result;
}

/* sub_track_compare([(name, results_json)], statistic, json): (the
 * comparison as JSON or text, the warnings or None). */
static PyObject *sub_track_compare(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *sessions = NULL;
    const char *statistic = NULL;
    int json = 1;
    if (!PyArg_ParseTuple(args, "Osp", &sessions, &statistic, &json))
        return NULL;
    PyObject *seq = PySequence_Fast(sessions, "sessions must be a list of (name, json) pairs");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    const char **names = PyMem_Calloc((size_t)n + 1, sizeof *names);
    const char **docs = PyMem_Calloc((size_t)n + 1, sizeof *docs);
    PyObject *result = NULL;
    if (!names || !docs) {
        PyErr_NoMemory();
        goto out;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        /* The strings stay alive in the tuples seq holds. */
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "ss", &names[i], &docs[i]))
            goto out;
    }
    char *out = NULL, *warnings = NULL;
    gt_status status;
    Py_BEGIN_ALLOW_THREADS
    status = gt_subtrack_compare(names, docs, (size_t)n, statistic,
                                 json ? GT_FORMAT_JSON : GT_FORMAT_TEXT, &out, &warnings);
    Py_END_ALLOW_THREADS
    if (status != GT_OK) {
        raise_analysis(status);
        goto out;
    }
    PyObject *text = take_text(out);
    PyObject *warn = warnings ? take_text(warnings) : (Py_INCREF(Py_None), Py_None);
    if (text && warn)
        result = PyTuple_Pack(2, text, warn);
    Py_XDECREF(text);
    Py_XDECREF(warn);
out:
    PyMem_Free(names);
    PyMem_Free(docs);
    Py_DECREF(seq);
    return result;
}

static PyMethodDef module_methods[] = {
    {"usage_text", usage_text, METH_O, "gpu_tracker's text for a to_json() document."},
    {"cli_main", cli_main, METH_O, "Runs the gpu-tracker command; its exit status."},
    {"version", version, METH_NOARGS, "The library's version."},
    {"snapshot_convert", snapshot_convert, METH_VARARGS,
     "A snapshot (any format) in another format, or its HTML report."},
    {"snapshot_load", snapshot_load, METH_VARARGS,
     "A snapshot's document without rows, its series as columns, and it."},
    {"snapshot_report", snapshot_report, METH_VARARGS, "The report of a loaded snapshot."},
    {"recommend", recommend, METH_VARARGS, "gt_recommend() of the given statistics."},
    {"recommend_server", recommend_server, METH_VARARGS, "gt_recommend_server_at()."},
    {"sub_track_analyze", sub_track_analyze, METH_VARARGS, "gt_subtrack_analyze()."},
    {"sub_track_combine", sub_track_combine, METH_VARARGS, "gt_subtrack_combine()."},
    {"sub_track_calls", sub_track_calls, METH_O, "gt_subtrack_calls()."},
    {"sub_track_compare", sub_track_compare, METH_VARARGS, "gt_subtrack_compare()."},
    {"check_file", check_file, METH_VARARGS, "gt_subtrack_check_file()."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "gputracker._native",
    "libgputracker, compiled in (see python/src/native.c).", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__native(void);

PyMODINIT_FUNC PyInit__native(void)
{
    if (PyType_Ready(&NativeTrackerType) < 0 || PyType_Ready(&NativeSubTrackerType) < 0)
        return NULL;
    PyObject *m = PyModule_Create(&native_module);
    if (!m)
        return NULL;
    Py_INCREF(&NativeTrackerType);
    if (PyModule_AddObject(m, "Tracker", (PyObject *)&NativeTrackerType) < 0) {
        Py_DECREF(&NativeTrackerType);
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&NativeSubTrackerType);
    if (PyModule_AddObject(m, "SubTrackingFile", (PyObject *)&NativeSubTrackerType) < 0) {
        Py_DECREF(&NativeSubTrackerType);
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
