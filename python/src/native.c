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
 *         resource_usage_file, stop_timeout): gt_tracker_new() with those
 * options (None: the library's default; gpu_uuids comma-separated). */
static int tracker_init(NativeTracker *self, PyObject *args, PyObject *kwargs)
{
    static char *names[] = {"sleep_time", "ram_unit", "gpu_ram_unit", "time_unit",
                            "n_expected_cores", "gpu_uuids", "gpu_brand", "disable_logs",
                            "process_id", "resource_usage_file", "stop_timeout", NULL};
    gt_options o;
    gt_options_init(&o);
    int disable_logs = 0, process_id = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwargs, "|dsssizzpizd", names, &o.sleep_time,
                                     &o.ram_unit, &o.gpu_ram_unit, &o.time_unit,
                                     &o.n_expected_cores, &o.gpu_uuids, &o.gpu_brand,
                                     &disable_logs, &process_id, &o.resource_usage_file,
                                     &o.stop_timeout))
        return -1;
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
    status = gt_tracker_new(&o, &t);
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

static PyMethodDef tracker_methods[] = {
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
    gt_status status = gt_usage_from_json(json, u);
    if (status != GT_OK) {
        free(u);
        PyErr_SetString(PyExc_ValueError, gt_last_error());
        return NULL;
    }
    char *text = gt_usage_to_text(u);
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

static PyObject *version(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyUnicode_FromString(gt_version());
}

static PyMethodDef module_methods[] = {
    {"usage_text", usage_text, METH_O, "gpu_tracker's text for a to_json() document."},
    {"cli_main", cli_main, METH_O, "Runs the gpu-tracker command; its exit status."},
    {"version", version, METH_NOARGS, "The library's version."},
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
    if (PyType_Ready(&NativeTrackerType) < 0)
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
    return m;
}
