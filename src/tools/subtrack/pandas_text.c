/* pandas_text.c - gpu_tracker's text layout of tables (pandas_text.h). */
#define _GNU_SOURCE
#include "subtrack/pandas_text.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/pyfloat.h"

void pandas_float_text(double v, char *out, size_t cap)
{
    if (isnan(v)) {
        snprintf(out, cap, "NaN");
        return;
    }
    /* float(f"{v:.8f}"): printf rounds the exact binary value correctly,
     * as Python does, and strtod reads the decimal back to the nearest. */
    char fixed[400];
    snprintf(fixed, sizeof fixed, "%.8f", v);
    pyfloat_repr(strtod(fixed, NULL), out, cap);
}

void pandas_title(const char *key, char *out, size_t cap)
{
    size_t n = 0;
    int after_letter = 0;
    for (const char *p = key; *p && n + 1 < cap; p++) {
        unsigned char c = (unsigned char)(*p == '_' ? ' ' : *p);
        if (isalpha(c)) {
            out[n++] = (char)(after_letter ? tolower(c) : toupper(c));
            after_letter = 1;
        } else {
            out[n++] = (char)c;
            /* str.title() starts a word after anything that is not a
             * cased character; bytes of UTF-8 text go through as they are
             * and do not start one. */
            after_letter = c >= 0x80 ? after_letter : 0;
        }
    }
    out[n] = '\0';
}

/* The text of one cell, with the space pandas puts before it (see the
 * header comment). */
static char *cell_text(json_object *v, int mixed)
{
    char num[48], *s = NULL;
    switch (json_object_get_type(v)) {
    case json_type_null:
        s = strdup(mixed ? " None" : "NaN");
        break;
    case json_type_double:
        pandas_float_text(json_object_get_double(v), num, sizeof num);
        s = strdup(num);
        break;
    case json_type_int:
        if (mixed) {
            if (asprintf(&s, " %lld", (long long)json_object_get_int64(v)) < 0)
                s = NULL;
        } else {
            pandas_float_text((double)json_object_get_int64(v), num, sizeof num);
            s = strdup(num);
        }
        break;
    case json_type_boolean:
        s = strdup(json_object_get_boolean(v) ? " True" : " False");
        break;
    default:
        if (asprintf(&s, " %s", json_object_get_string(v)) < 0)
            s = NULL;
        break;
    }
    return s ? s : strdup("");
}

/* Display width: the characters of UTF-8 text (pandas counts characters). */
static size_t width_of(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        w += ((unsigned char)*s & 0xC0) != 0x80;
    return w;
}

static void pad(FILE *f, size_t n)
{
    while (n--)
        fputc(' ', f);
}

void pandas_table_write(FILE *f, const struct pandas_table *t, int indent)
{
    size_t cols = t->ncols, rows = t->nrows;
    char **text = calloc(rows * cols + 1, sizeof *text);
    char **header = calloc(cols + 1, sizeof *header);
    size_t *width = calloc(cols + 1, sizeof *width);
    if (!text || !header || !width)
        goto out;
    size_t index_width = 0;
    for (size_t r = 0; r < rows; r++)
        if (width_of(t->index[r]) > index_width)
            index_width = width_of(t->index[r]);
    for (size_t c = 0; c < cols; c++) {
        if (asprintf(&header[c], "%s%s", t->mixed ? "" : " ", t->columns[c]) < 0)
            header[c] = NULL;
        width[c] = header[c] ? width_of(header[c]) : 0;
        for (size_t r = 0; r < rows; r++) {
            text[r * cols + c] = cell_text(t->cells[r * cols + c], t->mixed);
            if (text[r * cols + c] && width_of(text[r * cols + c]) > width[c])
                width[c] = width_of(text[r * cols + c]);
        }
    }
    for (size_t r = 0; r <= rows; r++) {
        for (int i = 0; i < indent; i++)
            fputc('\t', f);
        const char *label = r == 0 ? "" : t->index[r - 1];
        fputs(label, f);
        pad(f, index_width - width_of(label));
        for (size_t c = 0; c < cols; c++) {
            const char *s = r == 0 ? header[c] : text[(r - 1) * cols + c];
            s = s ? s : "";
            pad(f, 1 + width[c] - width_of(s));
            fputs(s, f);
        }
        fputc('\n', f);
    }
out:
    for (size_t i = 0; text && i < rows * cols; i++)
        free(text[i]);
    for (size_t c = 0; header && c < cols; c++)
        free(header[c]);
    free(text);
    free(header);
    free(width);
}

void pandas_series_write(FILE *f, json_object *series, int indent)
{
    size_t n = (size_t)json_object_object_length(series);
    const char **columns = calloc(n + 1, sizeof *columns);
    json_object **cells = calloc(n + 1, sizeof *cells);
    if (!columns || !cells) {
        free(columns);
        free(cells);
        return;
    }
    size_t i = 0;
    int mixed = 0;
    json_object_object_foreach(series, key, value) {
        columns[i] = key;
        cells[i++] = value;
        json_type type = json_object_get_type(value);
        mixed |= type != json_type_double && type != json_type_int && type != json_type_null;
    }
    static const char *const empty_index[] = {""};
    struct pandas_table t = {.nrows = 1, .ncols = n, .index = empty_index,
                             .columns = columns, .cells = cells, .mixed = mixed};
    pandas_table_write(f, &t, indent);
    free(columns);
    free(cells);
}

void pandas_frame_write(FILE *f, json_object *frame, int indent)
{
    size_t rows = (size_t)json_object_object_length(frame), cols = 0;
    const char **index = calloc(rows + 1, sizeof *index);
    const char **columns = NULL;
    json_object **cells = NULL;
    if (!index)
        return;
    size_t r = 0;
    json_object_object_foreach(frame, label, row) {
        if (r == 0) {
            cols = json_object_is_type(row, json_type_object)
                       ? (size_t)json_object_object_length(row) : 0;
            columns = calloc(cols + 1, sizeof *columns);
            cells = calloc(rows * cols + 1, sizeof *cells);
            if (!columns || !cells)
                goto out;
            size_t c = 0;
            if (cols) {
                json_object_object_foreach(row, name, unused) {
                    (void)unused;
                    columns[c++] = name;
                }
            }
        }
        index[r] = label;
        /* A row is looked up by the first row's column names: a row
         * without one prints NaN there. */
        for (size_t c = 0; c < cols; c++) {
            json_object *v = NULL;
            if (json_object_is_type(row, json_type_object))
                json_object_object_get_ex(row, columns[c], &v);
            cells[r * cols + c] = v;
        }
        r++;
    }
    struct pandas_table t = {.nrows = rows, .ncols = cols, .index = index,
                             .columns = columns, .cells = cells, .mixed = 0};
    pandas_table_write(f, &t, indent);
out:
    free(index);
    free(columns);
    free(cells);
}
