/* native.c - gputracker._native: libgputracker for Python, written against
 * gpu_tracker.h only (no struct layout is mirrored on the Python side: the
 * results cross as the library's own JSON), and the gpu-tracker command
 * compiled in for the console script. This file is the module: its
 * functions that belong to no type (the command, the summary's text, the
 * sub-tracking analysis) and its table; native_tracker.c has the Tracker
 * and SubTrackingFile types, native_snapshot.c resource_tracker's side
 * (snapshots, columns, reports, recommendations).
 *
 * The GIL is released for everything that may wait (creating the tracker
 * probes the GPU libraries, stop() joins the sampling thread, the command
 * runs a whole job). The library's threads never enter Python: warnings are
 * queued under a mutex and handed over by take_warnings(), which the
 * Python layer calls from the user's thread (native_tracker.c). */
#define PY_SSIZE_T_CLEAN

#include <Python.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native.h"
#include "cli_main.h"
#include "gpu_tracker_internal.h"
#include "common/toolkit.h"

/* The exception for a failed library call: ValueError for a bad argument
 * (as gpu_tracker raises), RuntimeError for a call in the wrong state,
 * ProcessLookupError for a process that does not exist, MemoryError, else
 * OSError; the message is gt_last_error()'s. */
PyObject *native_raise_status(gt_status status)
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

/* A str of text the library allocated (freed here); MemoryError for NULL. */
PyObject *native_take_text(char *text)
{
    if (!text)
        return PyErr_NoMemory();
    PyObject *s = PyUnicode_FromString(text);
    free(text);
    return s;
}

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
    char *text = usage_to_text(u);
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

static PyObject *version(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyUnicode_FromString(gt_version());
}

/* parse_size("500MB") / parse_duration("1h30m"): bytes / seconds, as the
 * command's --max-ram and --max-time take them; ValueError with the
 * library's one-line reason. */
static PyObject *parse_quantity(PyObject *arg, int duration)
{
    const char *text = PyUnicode_AsUTF8(arg);
    if (!text)
        return NULL;
    double v = 0;
    char err[512];
    if ((duration ? units_parse_duration(text, &v, err, sizeof err)
                  : units_parse_size(text, &v, err, sizeof err)) < 0) {
        PyErr_SetString(PyExc_ValueError, err);
        return NULL;
    }
    return PyFloat_FromDouble(v);
}

static PyObject *parse_size(PyObject *module, PyObject *arg)
{
    (void)module;
    return parse_quantity(arg, 0);
}

static PyObject *parse_duration(PyObject *module, PyObject *arg)
{
    (void)module;
    return parse_quantity(arg, 1);
}

/* human_bytes(n): human_bytes(), the sizes every people-facing output
 * writes ("1.25 GiB"). */
static PyObject *native_human_bytes(PyObject *module, PyObject *arg)
{
    (void)module;
    double v = PyFloat_AsDouble(arg);
    if (v == -1.0 && PyErr_Occurred())
        return NULL;
    char text[32];
    return PyUnicode_FromString(human_bytes(text, sizeof text, v));
}

/* output_write(path, data): output_file_write, the output rules of every file
 * gpu-tracker writes (no planted link followed, no other user's file in a
 * shared directory written or replaced, atomic); OSError with the reason. */
static PyObject *output_write(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *path = NULL;
    Py_buffer data;
    if (!PyArg_ParseTuple(args, "O&y*", PyUnicode_FSConverter, &path, &data))
        return NULL;
    gt_status status;
    Py_BEGIN_ALLOW_THREADS
    status = output_file_write(PyBytes_AS_STRING(path), data.buf, (size_t)data.len);
    Py_END_ALLOW_THREADS
    PyBuffer_Release(&data);
    Py_DECREF(path);
    if (status != GT_OK) {
        PyErr_SetString(PyExc_OSError, gt_last_error());
        return NULL;
    }
    Py_RETURN_NONE;
}

/* text_escape(text): text_escape, the one escaper of untrusted text
 * before it reaches a terminal (control characters and bytes that are not
 * UTF-8 as \xNN). A str is taken as UTF-8 (lone surrogates of undecodable
 * bytes back as those bytes); bytes as they are. */
/* The calling Python thread counted as the library's (a tracker of this
 * process leaves it out) until library_thread_leave() in the same thread. */
static PyObject *library_thread_enter(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    if (gt_library_thread_enter() != 0)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *library_thread_leave(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    gt_library_thread_leave();
    Py_RETURN_NONE;
}

static PyObject *native_text_escape(PyObject *module, PyObject *arg)
{
    (void)module;
    PyObject *bytes = NULL;
    if (PyBytes_Check(arg)) {
        bytes = arg;
        Py_INCREF(bytes);
    } else if (PyUnicode_Check(arg)) {
        bytes = PyUnicode_AsEncodedString(arg, "utf-8", "surrogateescape");
    } else {
        PyErr_SetString(PyExc_TypeError, "text_escape: a str or bytes is needed");
        return NULL;
    }
    if (!bytes)
        return NULL;
    /* A NUL inside is shown too: the escaper stops at the first one, so
     * each piece is escaped and the NULs put back as \x00. */
    const char *s = PyBytes_AS_STRING(bytes);
    Py_ssize_t n = PyBytes_GET_SIZE(bytes);
    PyObject *out = PyUnicode_FromStringAndSize("", 0);
    for (Py_ssize_t at = 0; out && at <= n;) {
        size_t piece = strlen(s + at);
        char *safe = text_escape(s + at);
        if (!safe) {
            Py_DECREF(out);
            out = PyErr_NoMemory();
            break;
        }
        PyObject *part = PyUnicode_FromFormat("%s%s", safe, at + (Py_ssize_t)piece < n ? "\\x00" : "");
        free(safe);
        PyObject *joined = part ? PyUnicode_Concat(out, part) : NULL;
        Py_XDECREF(part);
        Py_DECREF(out);
        out = joined;
        at += (Py_ssize_t)piece + 1;
    }
    Py_DECREF(bytes);
    return out;
}

/* file_read(path, limit, what): input_file_read, the bytes of the regular
 * file path under the library's reading rules (no link of another user's
 * followed, a FIFO never waited on, at most limit bytes); OSError with the
 * reason. */
static PyObject *file_read(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *path = NULL;
    Py_ssize_t limit;
    const char *what;
    if (!PyArg_ParseTuple(args, "O&ns", PyUnicode_FSConverter, &path, &limit, &what))
        return NULL;
    if (limit < 0) {
        Py_DECREF(path);
        PyErr_SetString(PyExc_ValueError, "file_read: the limit must be 0 or more");
        return NULL;
    }
    char *data = NULL;
    size_t len = 0;
    gt_status status;
    Py_BEGIN_ALLOW_THREADS
    status = input_file_read(PyBytes_AS_STRING(path), (size_t)limit, what, &data, &len);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (status != GT_OK)
        return native_raise_status(status);
    PyObject *bytes = PyBytes_FromStringAndSize(data, (Py_ssize_t)len);
    free(data);
    return bytes;
}

/* file_open(path, what): input_file_open, a descriptor of the regular file
 * path opened under the library's reading rules; OSError with the reason.
 * The caller closes it. */
static PyObject *file_open(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *path = NULL;
    const char *what;
    if (!PyArg_ParseTuple(args, "O&s", PyUnicode_FSConverter, &path, &what))
        return NULL;
    int fd = -1;
    gt_status status;
    Py_BEGIN_ALLOW_THREADS
    status = input_file_open(PyBytes_AS_STRING(path), what, &fd);
    Py_END_ALLOW_THREADS
    Py_DECREF(path);
    if (status != GT_OK)
        return native_raise_status(status);
    return PyLong_FromLong(fd);
}

/* output_hold(path): output_file_hold, path's directory kept open from now, so
 * that a later output_write(path) goes there whatever is planted on the
 * way meanwhile (a link at the name is replaced, never followed); OSError
 * with the reason when path cannot be written. */
static PyObject *output_hold(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *path = NULL;
    if (!PyArg_ParseTuple(args, "O&", PyUnicode_FSConverter, &path))
        return NULL;
    gt_status status = output_file_hold(PyBytes_AS_STRING(path));
    Py_DECREF(path);
    if (status != GT_OK) {
        PyErr_SetString(PyExc_OSError, gt_last_error());
        return NULL;
    }
    Py_RETURN_NONE;
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
    return native_raise_status(status);
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
    status = gt_subtrack_analyze(PyBytes_AS_STRING(tf), PyBytes_AS_STRING(stf),
                                    json ? GT_FORMAT_JSON : GT_FORMAT_TEXT, &out, &warnings);
    Py_END_ALLOW_THREADS
    Py_DECREF(tf);
    Py_DECREF(stf);
    if (status != GT_OK)
        return raise_analysis(status);
    PyObject *text = native_take_text(out);
    PyObject *warn = warnings ? native_take_text(warnings) : (Py_INCREF(Py_None), Py_None);
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
    return status == GT_OK ? native_take_text(out) : raise_analysis(status);
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
    PyObject *text = native_take_text(out);
    PyObject *warn = warnings ? native_take_text(warnings) : (Py_INCREF(Py_None), Py_None);
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

/* read_counters(pid, children): gt_rt_counters_read() of process pid (with its
 * descendants when children is true) and of the system, as a dict:
 * resource_tracker's get_process_stats() and get_system_stats() are made
 * of it (resource_tracker/tracker_procfs.py). ProcessLookupError when
 * there is no such process. */
static PyObject *read_counters(PyObject *module, PyObject *args)
{
    (void)module;
    int pid = 0, children = 1;
    if (!PyArg_ParseTuple(args, "ip", &pid, &children))
        return NULL;
    gt_counters *c = NULL;
    gt_status status;
    Py_BEGIN_ALLOW_THREADS
    status = gt_rt_counters_read(pid, children, &c);
    Py_END_ALLOW_THREADS
    if (status != GT_OK)
        return native_raise_status(status);
    PyObject *busy = PyList_New(0), *disks = PyList_New(0), *spaces = PyList_New(0);
    for (int d = 0; busy && d < 64; d++)
        if (c->gpu_utilized_devices >> d & 1) {
            PyObject *i = PyLong_FromLong(d);
            if (!i || PyList_Append(busy, i) < 0)
                Py_CLEAR(busy);
            Py_XDECREF(i);
        }
    for (size_t i = 0; disks && i < c->ndisks; i++) {
        PyObject *t = Py_BuildValue("(sKK)", c->disks[i].name, c->disks[i].read_bytes,
                                    c->disks[i].write_bytes);
        if (!t || PyList_Append(disks, t) < 0)
            Py_CLEAR(disks);
        Py_XDECREF(t);
    }
    for (size_t i = 0; spaces && i < c->nspaces; i++) {
        const gt_counters_space *sp = &c->spaces[i];
        PyObject *t = Py_BuildValue("(O&KKK)", PyUnicode_DecodeFSDefault, sp->mount,
                                    sp->total_bytes, sp->used_bytes, sp->free_bytes);
        if (!t || PyList_Append(spaces, t) < 0)
            Py_CLEAR(spaces);
        Py_XDECREF(t);
    }
    PyObject *out = NULL;
    if (busy && disks && spaces)
        out = Py_BuildValue(
            "{s:d,s:i,s:l,s:d,s:d,s:K,s:K,s:K,s:d,s:d,s:i,s:O,s:O,s:l,s:d,s:d,s:K,s:K,s:K,s:K,"
            "s:K,s:K,s:K,s:K,s:O,s:O,s:K,s:K,s:d,s:d,s:i,s:s}",
            "timestamp", c->timestamp, "pid", (int)c->pid, "children", c->children,
            "user_seconds", c->user_seconds, "system_seconds", c->system_seconds,
            "pss_bytes", c->pss_bytes, "read_bytes", c->read_bytes, "write_bytes",
            c->write_bytes, "gpu_usage", c->gpu_usage, "gpu_vram_mib", c->gpu_vram_mib,
            "gpu_utilized", c->gpu_utilized, "gpu_utilized_indexes", busy, "system_ok",
            c->system_ok ? Py_True : Py_False, "processes", c->processes,
            "system_user_seconds", c->system_user_seconds, "system_system_seconds",
            c->system_system_seconds, "mem_total_kb", c->mem_total_kb, "mem_available_kb",
            c->mem_available_kb, "mem_free_kb", c->mem_free_kb, "mem_buffers_kb",
            c->mem_buffers_kb, "mem_cached_kb", c->mem_cached_kb, "mem_sreclaimable_kb",
            c->mem_sreclaimable_kb, "mem_active_kb", c->mem_active_kb,
            "mem_inactive_kb", c->mem_inactive_kb, "disks", disks, "spaces", spaces,
            "net_recv_bytes", c->net_recv_bytes, "net_sent_bytes", c->net_sent_bytes,
            "system_gpu_usage", c->system_gpu_usage, "system_gpu_vram_mib",
            c->system_gpu_vram_mib, "system_gpu_utilized", c->system_gpu_utilized, "gpu_reason",
            c->gpu_reason);
    Py_XDECREF(busy);
    Py_XDECREF(disks);
    Py_XDECREF(spaces);
    gt_rt_counters_free(c);
    return out;
}

/* read_process(pid): gt_rt_process_read() as a dict (rss_kb, pss_kb,
 * utime, stime, cutime, cstime, read_bytes, write_bytes: None where -1;
 * descendants: a list). ProcessLookupError when there is no such process. */
static PyObject *read_process(PyObject *module, PyObject *arg)
{
    (void)module;
    long pid = PyLong_AsLong(arg);
    if (pid == -1 && PyErr_Occurred())
        return NULL;
    if (pid > 0x7fffffffL || pid < 1) {
        PyErr_Format(PyExc_ValueError, "invalid process ID %ld: give a positive PID", pid);
        return NULL;
    }
    gt_rt_process p;
    gt_status status;
    Py_BEGIN_ALLOW_THREADS
    status = gt_rt_process_read((int)pid, &p);
    Py_END_ALLOW_THREADS
    if (status != GT_OK)
        return native_raise_status(status);
    PyObject *kids = PyList_New((Py_ssize_t)p.ndescendants);
    for (size_t i = 0; kids && i < p.ndescendants; i++) {
        PyObject *v = PyLong_FromLong(p.descendants[i]);
        if (!v) {
            Py_CLEAR(kids);
            break;
        }
        PyList_SET_ITEM(kids, (Py_ssize_t)i, v);
    }
    gt_rt_process_release(&p);
    if (!kids)
        return NULL;
#define OR_NONE(v) ((v) < 0 ? (Py_INCREF(Py_None), Py_None) : PyLong_FromLongLong(v))
    return Py_BuildValue("{s:L,s:N,s:K,s:K,s:K,s:K,s:N,s:N,s:N}", "rss_kb", p.rss_kb, "pss_kb",
                         OR_NONE(p.pss_kb), "utime", p.utime, "stime", p.stime, "cutime", p.cutime,
                         "cstime", p.cstime, "read_bytes", OR_NONE(p.read_bytes), "write_bytes",
                         OR_NONE(p.write_bytes), "descendants", kids);
#undef OR_NONE
}

static PyMethodDef module_methods[] = {
    {"usage_text", usage_text, METH_O, "gpu_tracker's text for a to_json() document."},
    {"cli_main", cli_main, METH_O, "Runs the gpu-tracker command; its exit status."},
    {"version", version, METH_NOARGS, "The library's version."},
    {"parse_size", parse_size, METH_O, "Bytes of a size such as '500MB' or '2GiB'."},
    {"parse_duration", parse_duration, METH_O, "Seconds of a duration such as '90' or '1h30m'."},
    {"human_bytes", native_human_bytes, METH_O, "A size as people read it: '512 MiB', '1.25 GiB'."},
    {"output_write", output_write, METH_VARARGS, "output_file_write(): a file under the output rules."},
    {"file_read", file_read, METH_VARARGS, "input_file_read(): a file under the reading rules."},
    {"file_open", file_open, METH_VARARGS, "input_file_open(): a descriptor under the reading rules."},
    {"text_escape", native_text_escape, METH_O, "text_escape(): untrusted text made safe to print."},
    {"library_thread_enter", library_thread_enter, METH_NOARGS,
     "gt_library_thread_enter(): this thread counted as the library's."},
    {"library_thread_leave", library_thread_leave, METH_NOARGS,
     "gt_library_thread_leave(): this thread the program's again."},
    {"output_hold", output_hold, METH_VARARGS, "output_file_hold(): an output's directory kept open."},
    {"snapshot_convert", native_snapshot_convert, METH_VARARGS,
     "A snapshot (any format) in another format, or its HTML report."},
    {"snapshot_load", native_snapshot_load, METH_VARARGS,
     "A snapshot's document without rows, its series as columns, and it."},
    {"snapshot_report", native_snapshot_report, METH_VARARGS, "The report of a loaded snapshot."},
    {"recommend", native_recommend, METH_VARARGS, "gt_recommend() of the given statistics."},
    {"snapshot_stats", native_snapshot_stats, METH_O, "gt_snapshot_stats() of a loaded snapshot."},
    {"stats_combine", native_stats_combine, METH_O, "gt_stats_combine_json(): aggregate_stats()."},
    {"recommend_server", native_recommend_server, METH_VARARGS, "gt_recommend_server()."},
    {"instance_price", native_instance_price, METH_VARARGS, "gt_instance_price_at()."},
    {"sub_track_analyze", sub_track_analyze, METH_VARARGS, "gt_subtrack_analyze()."},
    {"sub_track_combine", sub_track_combine, METH_VARARGS, "gt_subtrack_combine()."},
    {"sub_track_calls", sub_track_calls, METH_O, "gt_subtrack_calls()."},
    {"sub_track_compare", sub_track_compare, METH_VARARGS, "gt_subtrack_compare()."},
    {"check_file", check_file, METH_VARARGS, "gt_subtrack_check_file()."},
    {"read_process", read_process, METH_O, "gt_rt_process_read(): one process's figures, now."},
    {"read_counters", read_counters, METH_VARARGS,
     "gt_rt_counters_read(): a process tree's and the system's counters, now."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef native_module = {
    PyModuleDef_HEAD_INIT, "gputracker._native",
    "libgputracker, compiled in (see python/src/native.c).", -1, module_methods,
    NULL, NULL, NULL, NULL,
};

/* A tuple of the names next(i) gives until NULL. */
static PyObject *names_tuple(const char *(*next)(int which, size_t i), int which)
{
    size_t n = 0;
    while (next(which, n))
        n++;
    PyObject *t = PyTuple_New((Py_ssize_t)n);
    for (size_t i = 0; t && i < n; i++) {
        PyObject *s = PyUnicode_FromString(next(which, i));
        if (!s) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, (Py_ssize_t)i, s);
    }
    return t;
}

static const char *column_name(int kind, size_t i)
{
    return series_column_name(kind, i);
}

/* The names the options that take names accept (the toolkit's lists, which
 * the library checks them against). */
enum option_list { OPTION_RAM_UNITS, OPTION_TIME_UNITS, OPTION_GPU_BRANDS };

static const char *option_name(int list, size_t i)
{
    switch (list) {
    case OPTION_RAM_UNITS: return units_ram_name(i);
    case OPTION_TIME_UNITS: return units_time_name(i);
    default: return gpu_brand_name(i);
    }
}

/* The library's lists and constants, so that the Python side keeps no copy
 * of them: resource_tracker's columns, the unit names and GPU brands the
 * options take, and the option bounds and codes Python passes on. */
static int add_constants(PyObject *m)
{
    const struct {
        const char *name;
        const char *(*next)(int, size_t);
        int which;
    } lists[] = {
        {"PROCESS_COLUMNS", column_name, GT_SERIES_KIND_PROCESS},
        {"SYSTEM_COLUMNS", column_name, GT_SERIES_KIND_SYSTEM},
        {"RAM_UNITS", option_name, OPTION_RAM_UNITS},
        {"TIME_UNITS", option_name, OPTION_TIME_UNITS},
        {"GPU_BRANDS", option_name, OPTION_GPU_BRANDS},
    };
    for (size_t i = 0; i < sizeof lists / sizeof lists[0]; i++) {
        PyObject *t = names_tuple(lists[i].next, lists[i].which);
        if (!t || PyModule_AddObject(m, lists[i].name, t) < 0) {
            Py_XDECREF(t);
            return -1;
        }
    }
    if (PyModule_AddObject(m, "STOP_TIMEOUT_MAX", PyFloat_FromDouble(GT_STOP_TIMEOUT_MAX)) < 0 ||
        PyModule_AddObject(m, "START_ALIGNED", PyFloat_FromDouble(GT_START_ALIGNED)) < 0 ||
        PyModule_AddIntConstant(m, "SNAPSHOT_RESOURCE_TRACKER", GT_SNAPSHOT_RESOURCE_TRACKER) < 0)
        return -1;
    return 0;
}

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
    if (add_constants(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
