/* native_snapshot.c - gputracker._native's resource_tracker side:
 * snapshots converted, loaded (their series as columns of 8-byte values)
 * and reported, and recommendations. */
#define PY_SSIZE_T_CLEAN

#include <Python.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "native.h"

/* 0 for a format native_snapshot_text() takes; -1 with ValueError otherwise. */
int native_check_format(int format)
{
    if (format == NATIVE_REPORT || format == GT_SNAPSHOT_GPU_TRACKER ||
        format == GT_SNAPSHOT_RESOURCE_TRACKER || format == GT_SNAPSHOT_RESOURCE_TRACKER_05)
        return 0;
    PyErr_Format(PyExc_ValueError, "unknown snapshot format %d; valid: -1 (report), 0, 1, 2", format);
    return -1;
}

/* Called without the GIL. */
char *native_snapshot_text(const gt_snapshot *s, int format, const char *server)
{
    return format == NATIVE_REPORT ? gt_snapshot_report_html(s, server, NULL)
                            : gt_snapshot_to_json(s, (gt_snapshot_format)format);
}

/* native_snapshot_convert(source, format, server_json, max_rows[, name]): the
 * snapshot in source (bytes: gzip or JSON, any format; or a str: a file's
 * path, read as gt_snapshot_read() reads one: a regular file, its size
 * bounded first) with at most max_rows rows per series (0: the default),
 * as native_snapshot_text() gives it. ValueError naming the problem when it is not
 * a snapshot, OSError when the file cannot be read. */
PyObject *native_snapshot_convert(PyObject *module, PyObject *args)
{
    (void)module;
    PyObject *source;
    int format;
    const char *server = NULL, *name = "snapshot";
    Py_ssize_t max_rows;
    if (!PyArg_ParseTuple(args, "Oizn|s", &source, &format, &server, &max_rows, &name) ||
        native_check_format(format) < 0)
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
    status = path ? gt_snapshot_read(PyBytes_AS_STRING(path), rows, &s)
                  : gt_snapshot_from_memory(data.buf, (size_t)data.len, name, rows, &s);
    if (status == GT_OK)
        text = native_snapshot_text(s, format, server);
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
    return native_take_text(text);
}

/* native_recommend(cpu_mean, memory_max_kb, gpu_mean, gpu_max, vram_max_mib):
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

/* native_snapshot_load(path or bytes, max_rows): a snapshot read for
 * ResourceTracker.load(): (the document in resource_tracker's 0.4 shape
 * without its rows, as JSON text; the process series' columns; the system
 * series', each column (typecode, bytes); the snapshot itself, kept for
 * native_snapshot_report()). The rows never become JSON or Python objects: 8
 * bytes a value. */
PyObject *native_snapshot_load(PyObject *module, PyObject *args)
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
    status = path ? gt_snapshot_read(PyBytes_AS_STRING(path), rows, &s)
                  : gt_snapshot_from_memory(data.buf, (size_t)data.len, "snapshot", rows, &s);
    if (status == GT_OK) {
        size_t np = s->series.nprocess, ns = s->series.nsystem;
        s->series.nprocess = s->series.nsystem = 0;
        text = gt_snapshot_to_json(s, GT_SNAPSHOT_RESOURCE_TRACKER);
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
    PyObject *doc = text ? native_take_text(text) : PyErr_NoMemory();
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

/* native_snapshot_report(snapshot, server_json or None): the HTML report of a
 * snapshot kept by native_snapshot_load(). */
PyObject *native_snapshot_report(PyObject *module, PyObject *args)
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
    html = gt_snapshot_report_html(s, server, NULL);
    Py_END_ALLOW_THREADS
    if (!html) {
        PyErr_SetString(PyExc_ValueError, *gt_last_error() ? gt_last_error() : "out of memory");
        return NULL;
    }
    return native_take_text(html);
}

/* v as Python holds it: an int when whole is set (and v fits one), else a
 * float. */
static PyObject *stat_number(double v, int whole)
{
    if (whole && v == floor(v) && fabs(v) < 9.2e18)
        return PyLong_FromLongLong((long long)v);
    return PyFloat_FromDouble(v);
}

PyObject *native_stats_dict(const gt_stats *st)
{
    /* Whole: a max or a sum of an integer column always, a mean of one
     * when statistics.mean() was exact (memory_mean_whole, ...). */
    return Py_BuildValue(
        "{s:{s:N,s:N},s:{s:N,s:N},s:{s:N,s:N},s:{s:N,s:N},s:{s:N,s:N},s:{s:N},s:{s:N},s:{s:N},"
        "s:{s:N}}",
        "process_cpu_usage", "mean", stat_number(st->cpu_usage_mean, 0),
        "max", stat_number(st->cpu_usage_max, 0),
        "process_memory", "mean", stat_number(st->memory_mean, st->memory_mean_whole),
        "max", stat_number(st->memory_max, 1),
        "process_gpu_usage", "mean", stat_number(st->gpu_usage_mean, 0),
        "max", stat_number(st->gpu_usage_max, 0),
        "process_gpu_vram", "mean", stat_number(st->gpu_vram_mean, 0),
        "max", stat_number(st->gpu_vram_max, 0),
        "process_gpu_utilized", "mean", stat_number(st->gpu_utilized_mean,
                                                    st->gpu_utilized_mean_whole),
        "max", stat_number(st->gpu_utilized_max, 1),
        "system_disk_space_used_gb", "max", stat_number(st->disk_space_used_max_gb, 0),
        "system_net_recv_bytes", "sum", stat_number(st->net_recv_bytes_sum, 1),
        "system_net_sent_bytes", "sum", stat_number(st->net_sent_bytes_sum, 1),
        "timestamp", "duration", stat_number(st->duration, 0));
}

/* native_snapshot_stats(snapshot): resource_tracker's stats() of a snapshot
 * kept by native_snapshot_load() (gt_snapshot_stats). */
PyObject *native_snapshot_stats(PyObject *module, PyObject *capsule)
{
    (void)module;
    const gt_snapshot *s = PyCapsule_GetPointer(capsule, SNAPSHOT_CAPSULE);
    if (!s)
        return NULL;
    gt_stats st = {0};
    gt_status status = gt_snapshot_stats(s, &st);
    if (status != GT_OK)
        return native_raise_status(status);
    return native_stats_dict(&st);
}

/* native_stats_combine(runs): aggregate_stats() of a list of stats()
 * dictionaries, each as JSON text (gt_stats_combine_json); the result as
 * JSON text. ValueError for an aggregation it does not know. */
PyObject *native_stats_combine(PyObject *module, PyObject *runs)
{
    (void)module;
    PyObject *seq = PySequence_Fast(runs, "stats_combine takes a list of JSON texts");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    const char **texts = PyMem_Calloc(n > 0 ? (size_t)n : 1, sizeof *texts);
    if (!texts) {
        Py_DECREF(seq);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        texts[i] = PyUnicode_AsUTF8(PySequence_Fast_GET_ITEM(seq, i));
        if (!texts[i]) {
            PyMem_Free(texts);
            Py_DECREF(seq);
            return NULL;
        }
    }
    char *out = NULL;
    gt_status status = gt_stats_combine_json(texts, (size_t)n, &out);
    PyMem_Free(texts);
    Py_DECREF(seq);
    if (status != GT_OK)
        return native_raise_status(status);
    return native_take_text(out);
}

PyObject *native_recommend(PyObject *module, PyObject *args)
{
    (void)module;
    gt_stats st = {0};
    if (!PyArg_ParseTuple(args, "ddddd", &st.cpu_usage_mean, &st.memory_max, &st.gpu_usage_mean,
                          &st.gpu_usage_max, &st.gpu_vram_max))
        return NULL;
    gt_recommendation r = {0};
    gt_recommend(&st, &r);
    return Py_BuildValue("{s:i,s:i,s:i,s:i}", "cpu", r.cpu, "memory", r.memory_mib, "gpu", r.gpu,
                         "vram", r.vram_mib);
}

/* native_instance_price(vendor, region, instance_type, base_url or None):
 * gt_instance_price_at()'s on-demand USD per hour (0.0: no price known);
 * OSError or ValueError when it cannot be had. */
PyObject *native_instance_price(PyObject *module, PyObject *args)
{
    (void)module;
    const char *vendor, *region, *type, *url = NULL;
    if (!PyArg_ParseTuple(args, "sssz", &vendor, &region, &type, &url))
        return NULL;
    double price = 0;
    gt_status status;
    Py_BEGIN_ALLOW_THREADS
    status = gt_instance_price_at(vendor, region, type, url, &price);
    Py_END_ALLOW_THREADS
    if (status != GT_OK)
        return native_raise_status(status);
    return PyFloat_FromDouble(price);
}

/* native_recommend_server(cpu, memory, gpu, vram, base_url or None): the Keeper
 * API's answer (JSON text); OSError when it cannot be had. */
PyObject *native_recommend_server(PyObject *module, PyObject *args)
{
    (void)module;
    gt_recommendation r = {0};
    const char *url = NULL;
    if (!PyArg_ParseTuple(args, "iiiiz", &r.cpu, &r.memory_mib, &r.gpu, &r.vram_mib, &url))
        return NULL;
    char *json = NULL;
    gt_status status;
    Py_BEGIN_ALLOW_THREADS
    status = gt_recommend_server(&r, url, &json);
    Py_END_ALLOW_THREADS
    if (status != GT_OK)
        return native_raise_status(status);
    return native_take_text(json);
}
