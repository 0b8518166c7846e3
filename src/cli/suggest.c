/* suggest.c - "did you mean" (see suggest.h). */
#include "suggest.h"

#include <stdio.h>
#include <string.h>

/* The optimal string alignment distance of a and b (short words). */
static int distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 64;
    int d[64][64];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            int cost = a[i - 1] != b[j - 1];
            int best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (d[i - 1][j - 1] + cost < best)
                best = d[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1;
            d[i][j] = best;
        }
    return d[la][lb];
}

const char *suggest_nearest(const char *typed, const char *const *words, int max_edits)
{
    const char *best = NULL;
    int best_d = max_edits + 1;
    for (size_t i = 0; words[i]; i++) {
        int d = distance(typed, words[i]);
        if (d < best_d) {
            best_d = d;
            best = words[i];
        }
    }
    return best;
}

void suggest_option_error(const char *arg, const struct option *options, const char *see,
                          char *err, size_t errcap)
{
    const char *names[128];
    size_t n = 0;
    for (size_t i = 0; options[i].name && n + 1 < sizeof names / sizeof names[0]; i++)
        names[n++] = options[i].name;
    names[n] = NULL;
    /* The name as typed: without its dashes and any "=value". */
    const char *name = arg + (arg[1] == '-' ? 2 : 1);
    char word[64];
    snprintf(word, sizeof word, "%.*s", (int)strcspn(name, "="), name);
    if (arg[0] == '-' && arg[1] != '-' && strlen(word) > 1) {
        for (size_t i = 0; names[i]; i++)
            if (strcmp(names[i], word) == 0) {
                snprintf(err, errcap, "unknown option '%s': long options take two dashes: '--%s'",
                         arg, word);
                return;
            }
    }
    const char *near = arg[1] == '-' ? suggest_nearest(word, names, 2) : NULL;
    if (near)
        snprintf(err, errcap, "unknown option '%s'; did you mean '--%s'? (%s)", arg, near, see);
    else
        snprintf(err, errcap, "unknown option '%s'; %s", arg, see);
}
