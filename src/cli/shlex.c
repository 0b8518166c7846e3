/* shlex.c - POSIX shell-like word splitting without expansion. */
#include "shlex.h"

#include <stdlib.h>
#include <string.h>

void shlex_free(char **argv)
{
    if (!argv)
        return;
    for (char **p = argv; *p; p++)
        free(*p);
    free(argv);
}

char **shlex_split(const char *s, const char **error)
{
    size_t len = strlen(s);
    /* No word is longer than s, and there are at most len/2+1 words. */
    char **argv = calloc(len / 2 + 2, sizeof *argv);
    char *word = malloc(len + 1);
    size_t nwords = 0;
    if (!argv || !word) {
        free(argv);
        free(word);
        *error = "out of memory";
        return NULL;
    }
    const char *p = s;
    for (;;) {
        while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
            p++;
        if (!*p)
            break;
        size_t n = 0;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r') {
            if (*p == '\'') {
                const char *close = strchr(p + 1, '\'');
                if (!close) {
                    *error = "no closing quotation";
                    goto fail;
                }
                memcpy(word + n, p + 1, (size_t)(close - p - 1));
                n += (size_t)(close - p - 1);
                p = close + 1;
            } else if (*p == '"') {
                p++;
                while (*p && *p != '"') {
                    /* Inside double quotes a backslash escapes only '"' and '\'. */
                    if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
                        p++;
                    word[n++] = *p++;
                }
                if (*p != '"') {
                    *error = "no closing quotation";
                    goto fail;
                }
                p++;
            } else if (*p == '\\') {
                if (!p[1]) {
                    *error = "no escaped character after a final backslash";
                    goto fail;
                }
                word[n++] = p[1];
                p += 2;
            } else {
                word[n++] = *p++;
            }
        }
        argv[nwords] = malloc(n + 1);
        if (!argv[nwords]) {
            *error = "out of memory";
            goto fail;
        }
        memcpy(argv[nwords], word, n);
        argv[nwords][n] = '\0';
        nwords++;
    }
    free(word);
    return argv;
fail:
    free(word);
    shlex_free(argv);
    return NULL;
}

/* 1 when w can go unquoted: only characters no shell treats specially. */
static int plain_word(const char *w)
{
    if (!*w)
        return 0;
    for (; *w; w++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789@%+=:,./-_", *w))
            return 0;
    return 1;
}

/* Lays out the joined words into out (when not NULL); returns the length. */
static size_t join_words(char *const *argv, char *out)
{
    size_t n = 0;
#define PUT(c)                  \
    do {                        \
        if (out)                \
            out[n] = (c);       \
        n++;                    \
    } while (0)
    for (size_t i = 0; argv && argv[i]; i++) {
        if (i)
            PUT(' ');
        const char *w = argv[i];
        if (plain_word(w)) {
            for (; *w; w++)
                PUT(*w);
            continue;
        }
        PUT('\'');
        for (; *w; w++) {
            if (*w == '\'') { /* ' -> '"'"' */
                PUT('\'');
                PUT('"');
                PUT('\'');
                PUT('"');
                PUT('\'');
            } else {
                PUT(*w);
            }
        }
        PUT('\'');
    }
#undef PUT
    return n;
}

char *shlex_join(char *const *argv)
{
    size_t len = join_words(argv, NULL);
    char *out = malloc(len + 1);
    if (!out)
        return NULL;
    join_words(argv, out);
    out[len] = '\0';
    return out;
}
