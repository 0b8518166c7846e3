/* json_float.h - a JSON number printed as Python prints the float (json-c's
 * own "%.17g" writes 0.1 as 0.10000000000000001). For the summary and the
 * snapshot writers. */
#ifndef GT_JSON_FLOAT_H
#define GT_JSON_FLOAT_H

#include <json-c/json.h>

#include "pyfloat.h"

static inline json_object *json_new_pyfloat(double v)
{
    char num[40];
    pyfloat_repr(v, num, sizeof num);
    return json_object_new_double_s(v, num);
}

#endif
