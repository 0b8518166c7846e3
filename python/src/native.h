/* native.h - what the files of gputracker._native share (native.c: the
 * module; native_tracker.c: its types; native_snapshot.c: resource_
 * tracker's side). */
#ifndef GT_NATIVE_H
#define GT_NATIVE_H

#include <Python.h>

#include "gpu_tracker_tools.h"

/* The exception for a failed library call: ValueError for a bad argument
 * (as gpu_tracker raises), RuntimeError for a call in the wrong state,
 * ProcessLookupError for a process that does not exist, MemoryError, else
 * OSError; the message is gt_last_error()'s. Returns NULL. */
PyObject *native_raise_status(gt_status status);

/* A malloc'd text as a str (freed); MemoryError for NULL. */
PyObject *native_take_text(char *text);

/* The format number for the HTML report, beside gt_snapshot_format's. */
#define NATIVE_REPORT (-1)

/* 0 for a format native_snapshot_text() takes; -1 with ValueError
 * otherwise. */
int native_check_format(int format);

/* s in format (NATIVE_REPORT: its report, server the Keeper's answer or
 * NULL), malloc'd; NULL when out of memory. */
char *native_snapshot_text(const gt_snapshot *s, int format, const char *server);

extern PyTypeObject NativeTrackerType;
extern PyTypeObject NativeSubTrackerType;

/* The module's functions of resource_tracker's side. */
PyObject *native_snapshot_convert(PyObject *module, PyObject *args);
PyObject *native_snapshot_load(PyObject *module, PyObject *args);
PyObject *native_snapshot_report(PyObject *module, PyObject *args);
PyObject *native_recommend(PyObject *module, PyObject *args);
PyObject *native_snapshot_stats(PyObject *module, PyObject *capsule);
PyObject *native_stats_combine(PyObject *module, PyObject *runs);

/* resource_tracker's stats() dictionary of st, as its Python holds it:
 * what comes from an integer column (memory, GPUs in use, network bytes)
 * an int where resource_tracker's max(), sum() or statistics.mean() gives
 * one, the rest floats. NULL with the exception set. */
PyObject *native_stats_dict(const gt_stats *st);
PyObject *native_recommend_server(PyObject *module, PyObject *args);
PyObject *native_instance_price(PyObject *module, PyObject *args);

#endif
