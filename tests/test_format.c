/* Unit tests of Python-compatible number formatting, the shlex splitter of
 * the CLI, and units. */
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "job_names.h"
#include "common/num.h"
#include "common/pyfloat.h"
#include "shlex.h"
#include "common/units.h"
#include "gpu_tracker_internal.h"

static const char *repr(double v)
{
    static char buf[64];
    pyfloat_repr(v, buf, sizeof buf);
    return buf;
}

static void test_repr(void)
{
    /* Values and what Python 3 prints for repr(v). */
    CHECK_STR(repr(5.0), "5.0");
    CHECK_STR(repr(0.0), "0.0");
    CHECK_STR(repr(-0.0), "-0.0");
    CHECK_STR(repr(0.1), "0.1");
    CHECK_STR(repr(16.753999999999998), "16.753999999999998");
    CHECK_STR(repr(890.7038719999999), "890.7038719999999");
    CHECK_STR(repr(67000000000.0), "67000000000.0");
    CHECK_STR(repr(1234567890123456.0), "1234567890123456.0");
    CHECK_STR(repr(1e16), "1e+16");
    CHECK_STR(repr(-7.0), "-7.0");
    CHECK_STR(repr(9999999999999998.0), "9999999999999998.0");
    CHECK_STR(repr(-1234567890123456.0), "-1234567890123456.0");
    CHECK_STR(repr(1.5e17), "1.5e+17");
    CHECK_STR(repr(0.0001), "0.0001");
    CHECK_STR(repr(0.00012), "0.00012");
    CHECK_STR(repr(1e-05), "1e-05");
    CHECK_STR(repr(2.5e-07), "2.5e-07");
    CHECK_STR(repr(-3.25), "-3.25");
    CHECK_STR(repr(0.003472222222222222), "0.003472222222222222");
    CHECK_STR(repr(INFINITY), "inf");
    CHECK_STR(repr(-INFINITY), "-inf");
    CHECK_STR(repr(NAN), "nan");
}

/* The integer digits the CSV rows and whole floats are written with
 * (common/num.h), against printf's. */
static void test_integer_digits(void)
{
    const long long values[] = {0, 7, -7, 10, 99, -100, 1234567890123LL, 9007199254740993LL,
                                LLONG_MAX, LLONG_MIN, LLONG_MIN + 1};
    char got[32], want[32];
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        got[num_i64_digits(values[i], got)] = '\0';
        snprintf(want, sizeof want, "%lld", values[i]);
        CHECK_STR(got, want);
    }
    const unsigned long long uvalues[] = {0, 1, 18446744073709551615ULL, 10000000000000000000ULL};
    for (size_t i = 0; i < sizeof uvalues / sizeof uvalues[0]; i++) {
        got[num_u64_digits(uvalues[i], got)] = '\0';
        snprintf(want, sizeof want, "%llu", uvalues[i]);
        CHECK_STR(got, want);
    }
    /* A whole float keeps its sign and ".0"; a short buffer is cut, as
     * snprintf cuts. */
    CHECK_STR(repr(-4503599627370496.0), "-4503599627370496.0");
    char small[5];
    pyfloat_repr(123456.0, small, sizeof small);
    CHECK_STR(small, "1234");
    pyfloat_repr(-0.5, small, sizeof small);
    CHECK_STR(small, "-0.5");
    pyfloat_repr(-0.25, small, sizeof small);
    CHECK_STR(small, "-0.2");
    /* zero and infinity are written without printf, and cut the same way */
    char tiny[3];
    pyfloat_repr(-0.0, tiny, sizeof tiny);
    CHECK_STR(tiny, "-0");
    pyfloat_repr(-INFINITY, tiny, sizeof tiny);
    CHECK_STR(tiny, "-i");
}

static void test_round3(void)
{
    /* round(x, 3) as Python does it, then printed. */
    CHECK_STR(repr(pyfloat_round3(16.753999999999998)), "16.754");
    CHECK_STR(repr(pyfloat_round3(261.9666666666667)), "261.967");
    CHECK_STR(repr(pyfloat_round3(0.0625)), "0.062");   /* exact tie: to even */
    CHECK_STR(repr(pyfloat_round3(2.675)), "2.675");    /* 2.67499999... */
    CHECK_STR(repr(pyfloat_round3(0.0004)), "0.0");
    CHECK_STR(repr(pyfloat_round3(0.0005)), "0.001");   /* 0.000500000000000000010 */
    CHECK_STR(repr(pyfloat_round3(36594000000.0)), "36594000000.0");
    /* whole numbers come back as they are, -0.0 with its sign */
    CHECK_STR(repr(pyfloat_round3(0.0)), "0.0");
    CHECK_STR(repr(pyfloat_round3(-0.0)), "-0.0");
    CHECK_STR(repr(pyfloat_round(-42.0, 4)), "-42.0");
    CHECK_STR(repr(pyfloat_round(1e300, 2)), "1e+300");
    CHECK_STR(repr(pyfloat_round(0.12345, 4)), "0.1235"); /* 0.123450000000000004: up */
    CHECK_STR(repr(pyfloat_round(2.5e-07, 6)), "0.0");
}

/* A deterministic stream of 64-bit values (xorshift64*): the same numbers
 * at every run. */
static unsigned long long next_random(unsigned long long *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 2685821657736338717ULL;
}

/* repr reads back as the value it was made from, on values of every kind:
 * decimals of 0 to 9 places as the series round them, any bit pattern
 * (subnormals, huge, tiny), values round() just made, near ties; and
 * round() of a value gives one that repr shows with at most its places. */
static void test_repr_round_trips(void)
{
    char out[64];
    int bad_repr = 0, bad_round = 0;
    unsigned long long state = 0x9e3779b97f4a7c15ULL;
    for (int i = 0; i < 60000; i++) {
        unsigned long long bits = next_random(&state);
        double v;
        switch (i % 4) {
        case 0: /* a decimal of 0-9 places, as the series' rounded values are */
            v = (double)(bits % 10000000000ULL) / pow(10, (double)(i / 4 % 10));
            break;
        case 1: /* any finite double */
            memcpy(&v, &bits, sizeof v);
            if (!isfinite(v))
                v = 1.0;
            break;
        case 2: /* a value as round() leaves it */
            v = pyfloat_round((double)(bits >> 11) / (double)(1ULL << (bits % 40)), i % 7);
            break;
        default: /* near a tie at 1-6 places: k + 0.5 of 10^-places, nudged */
            v = ((double)(bits % 100000) + 0.5) / pow(10, (double)(1 + i % 6)) *
                (1 + (double)((long long)(bits >> 60) - 8) * 0x1p-52);
            break;
        }
        if (bits & (1ULL << 63))
            v = -v;
        pyfloat_repr(v, out, sizeof out);
        double back = strtod(out, NULL);
        if (memcmp(&back, &v, sizeof v) != 0 && bad_repr++ < 5)
            fprintf(stderr, "repr(%.17g) is %s, which reads back as %.17g\n", v, out, back);
        int nd = 1 + (int)((bits >> 32) % 6);
        double r = pyfloat_round(fabs(v) < 1e9 ? v : 0.5, nd);
        pyfloat_repr(r, out, sizeof out);
        const char *dot = strchr(out, '.');
        if (!strchr(out, 'e') && dot && strlen(dot + 1) > (size_t)nd && bad_round++ < 5)
            fprintf(stderr, "round(%.17g, %d) shows as %s\n", v, nd, out);
    }
    CHECK(bad_repr == 0);
    CHECK(bad_round == 0);
}

/* The inverse of the split, with nothing cut: a command of 10000 bytes
 * stays whole (it was cut at 4095 once). */
static void test_shlex_join(void)
{
    char *argv[] = {"python", "a b", "it's", "", NULL};
    char *joined = shlex_join(argv);
    CHECK_STR(joined, "python 'a b' 'it'\"'\"'s' ''");
    free(joined);
    char *long_word = malloc(10001);
    memset(long_word, 'x', 10000);
    long_word[10000] = '\0';
    char *big[] = {"echo", long_word, NULL};
    joined = shlex_join(big);
    CHECK(joined && strlen(joined) == 5 + 10000 && !strcmp(joined + 5, long_word));
    free(joined);
    free(long_word);
}

static void test_shlex(void)
{
    const char *err = NULL;
    char **v = shlex_split("ls -l -a", &err);
    CHECK(v && !strcmp(v[0], "ls") && !strcmp(v[1], "-l") && !strcmp(v[2], "-a") && !v[3]);
    shlex_free(v);

    v = shlex_split("  python -c 'print(\"hi there\")'  \"a b\" c\\ d e\"f g\"h ", &err);
    CHECK(v && !strcmp(v[0], "python") && !strcmp(v[1], "-c") &&
          !strcmp(v[2], "print(\"hi there\")") && !strcmp(v[3], "a b") &&
          !strcmp(v[4], "c d") && !strcmp(v[5], "ef gh") && !v[6]);
    shlex_free(v);

    v = shlex_split("echo \"say \\\"x\\\" \\\\ \\n\" '$HOME' *", &err);
    CHECK(v && !strcmp(v[1], "say \"x\" \\ \\n") && !strcmp(v[2], "$HOME") && !strcmp(v[3], "*"));
    shlex_free(v);

    v = shlex_split("''", &err); /* an empty argument is still an argument */
    CHECK(v && v[0] && !strcmp(v[0], "") && !v[1]);
    shlex_free(v);

    v = shlex_split("   ", &err);
    CHECK(v && !v[0]);
    shlex_free(v);

    err = NULL;
    CHECK(shlex_split("echo 'oops", &err) == NULL && err && strstr(err, "closing quotation"));
    err = NULL;
    CHECK(shlex_split("echo \"oops", &err) == NULL && err && strstr(err, "closing quotation"));
    err = NULL;
    CHECK(shlex_split("echo oops\\", &err) == NULL && err && strstr(err, "backslash"));
}

static void test_units(void)
{
    CHECK(units_ram_divisor("bytes") == 1.0);
    CHECK(units_ram_divisor("kilobytes") == 1e3);
    CHECK(units_ram_divisor("megabytes") == 1e6);
    CHECK(units_ram_divisor("gigabytes") == 1e9);
    CHECK(units_ram_divisor("terabytes") == 1e12);
    CHECK(units_ram_divisor("mebibytes") == 0.0);
    CHECK(units_ram_divisor("Gigabytes") == 0.0);
    CHECK(units_ram_divisor(NULL) == 0.0);
    CHECK(units_time_divisor("seconds") == 1.0);
    CHECK(units_time_divisor("minutes") == 60.0);
    CHECK(units_time_divisor("hours") == 3600.0);
    CHECK(units_time_divisor("days") == 86400.0);
    CHECK(units_time_divisor("weeks") == 0.0);
}

/* Output names from the run's identity (%j, %t, ...). */
static void test_job_names(void)
{
    struct job_identity id = {.job = {.job_id = "4242", .task_rank = "3", .node = "gpu07"},
                              .host = "gpu07.cluster", .pid = 99};
    char err[512], *out = NULL;
    CHECK(job_name_expand("run-%j-%t.json.gz", &id, "--snapshot", &out, err, sizeof err) == 0);
    CHECK_STR(out, "run-4242-3.json.gz");
    free(out);
    CHECK(job_name_expand("%n/%h-%p-100%%.csv", &id, "-o", &out, err, sizeof err) == 0);
    CHECK_STR(out, "gpu07/gpu07.cluster-99-100%.csv");
    free(out);
    CHECK(job_name_expand("plain.txt", &id, "-o", &out, err, sizeof err) == 0);
    CHECK_STR(out, "plain.txt");
    free(out);
    /* Not an array task: %a is 0, and said. */
    CHECK(id.stood_in == 0);
    CHECK(job_name_expand("run-%a.csv", &id, "--tf", &out, err, sizeof err) == 0);
    CHECK_STR(out, "run-0.csv");
    free(out);
    CHECK(id.stood_in == JOB_FIELD_A);
    char note[200];
    job_names_stood_in(&id, note, sizeof note);
    CHECK_STR(note, "not in a Slurm job step: %a 0");
    /* Outside Slurm: %j is the local job name, which differs between two
     * runs on the host (the PID), %t is 0. */
    struct job_identity none = {.job = {.job_id = ""}, .host = "h", .pid = 4242};
    snprintf(none.local_job, sizeof none.local_job, "local-20261126-080000-4242");
    CHECK(job_name_expand("run-%j-%t.json.gz", &none, "--snapshot", &out, err, sizeof err) == 0);
    CHECK_STR(out, "run-local-20261126-080000-4242-0.json.gz");
    free(out);
    job_names_stood_in(&none, note, sizeof note);
    CHECK_STR(note, "not in a Slurm job step: %j became local-20261126-080000-4242, %t 0");
    struct job_identity real;
    job_identity_read(&real);
    CHECK(!real.local_job[0] && !real.host[0]); /* made when a name asks */
    CHECK(job_name_expand("%j.%h", &real, "-o", &out, err, sizeof err) == 0);
    char want_end[64];
    snprintf(want_end, sizeof want_end, "-%ld.", (long)getpid());
    CHECK_MSG(out && !strncmp(out, "local-", 6) && strlen(real.local_job) > 22 &&
                  strstr(out, want_end) && real.host[0] &&
                  !strcmp(strchr(out, '.') + 1, real.host),
              "%s", out ? out : "(null)");
    free(out);
    CHECK(job_name_expand("run-%x.csv", &id, "-o", &out, err, sizeof err) == -1);
    CHECK_STR(err, "-o 'run-%x.csv': unknown field '%x' in the name; valid fields are %j (job), "
                   "%a (array task), %t (task rank), %n (node), %h (host), %p (gpu-tracker's "
                   "PID) and %% (a '%')");
    CHECK(job_name_expand("run-%", &id, "-o", &out, err, sizeof err) == -1);

    /* From the environment: Slurm's variables, and only values Slurm sets. */
    setenv("SLURM_JOB_ID", "777", 1);
    setenv("SLURM_PROCID", "0", 1);
    setenv("SLURM_ARRAY_TASK_ID", "../../etc", 1); /* never a path */
    setenv("SLURMD_NODENAME", "node-1", 1);
    setenv("SLURM_NTASKS", "64", 1);
    struct job_identity env;
    job_identity_read(&env);
    CHECK_STR(env.job.job_id, "777");
    CHECK_STR(env.job.scheduler, "slurm");
    CHECK_STR(env.job.task_rank, "0");
    CHECK_STR(env.job.array_task_id, "");
    CHECK_STR(env.job.node, "node-1");
    CHECK(env.job.ntasks == 64);
    CHECK(env.pid == getpid());
    unsetenv("SLURMD_NODENAME");
    unsetenv("SLURM_JOB_ID");
    job_identity_read(&env);
    CHECK_STR(env.job.job_id, "");
    CHECK_STR(env.job.scheduler, "");
    CHECK(env.job.node[0] && !strchr(env.job.node, '.')); /* the host name up to its first dot */
    unsetenv("SLURM_PROCID");
    unsetenv("SLURM_ARRAY_TASK_ID");
    unsetenv("SLURM_NTASKS");

    /* An environment given as an array: the step's count before the job's;
     * a count that is not one is left out. */
    char *envp[] = {"SLURM_JOB_ID=12", "SLURM_NTASKS=8", "SLURM_STEP_NUM_TASKS=2",
                    "SLURM_STEP_ID=0", "SLURM_ARRAY_JOB_ID=11", "SLURM_ARRAY_TASK_ID=5",
                    "SLURM_JOB_IDX=3", NULL};
    gt_job_info j = {.struct_size = sizeof(gt_job_info)};
    gt_job_info_from_environ(envp, &j);
    CHECK_STR(j.job_id, "12");
    CHECK_STR(j.step_id, "0");
    CHECK_STR(j.array_job_id, "11");
    CHECK_STR(j.array_task_id, "5");
    CHECK(j.ntasks == 2);
    char *bad[] = {"SLURM_JOB_ID=12;rm", "SLURM_NTASKS=-3", "SLURM_PROCID=", NULL};
    gt_job_info_from_environ(bad, &j);
    CHECK_STR(j.job_id, "");
    CHECK(j.ntasks == 0);
    CHECK_STR(j.task_rank, "");
    CHECK(j.gpus_requested == 0 && j.gpus_requested_by[0] == '\0');

    /* The GPUs the job was given: Slurm's count, its lists, CUDA's list. */
    static const struct {
        const char *env[3];
        int gpus;
        const char *by;
    } gpu_cases[] = {
        {{"CUDA_VISIBLE_DEVICES=0,1", NULL, NULL}, 2, "CUDA_VISIBLE_DEVICES"},
        {{"SLURM_JOB_GPUS=0,1,2", "CUDA_VISIBLE_DEVICES=0", NULL}, 3, "SLURM_JOB_GPUS"},
        {{"SLURM_GPUS_ON_NODE=4", "SLURM_JOB_GPUS=0", NULL}, 4, "SLURM_GPUS_ON_NODE"},
        {{"CUDA_VISIBLE_DEVICES=GPU-1a2b-3c4d,MIG-5e6f/1/2", NULL, NULL}, 2,
         "CUDA_VISIBLE_DEVICES"},
        {{"CUDA_VISIBLE_DEVICES=", NULL, NULL}, 0, ""},
        {{"CUDA_VISIBLE_DEVICES=-1", NULL, NULL}, 0, ""},
        {{"CUDA_VISIBLE_DEVICES=NoDevFiles", NULL, NULL}, 0, ""},
        {{"CUDA_VISIBLE_DEVICES=0;rm -rf", NULL, NULL}, 0, ""},
    };
    for (size_t i = 0; i < sizeof gpu_cases / sizeof gpu_cases[0]; i++) {
        char *vars[4] = {(char *)gpu_cases[i].env[0], (char *)gpu_cases[i].env[1],
                         (char *)gpu_cases[i].env[2], NULL};
        gt_job_info_from_environ(vars, &j);
        CHECK_MSG(j.gpus_requested == gpu_cases[i].gpus, "%s: %d GPUs", gpu_cases[i].env[0],
                  j.gpus_requested);
        CHECK_STR(j.gpus_requested_by, gpu_cases[i].by);
    }
}

/* The sizes and durations the limits take (common/units.c). */
static void test_limit_units(void)
{
    double v = 0;
    char err[512];
    CHECK(units_parse_size("500MB", &v, err, sizeof err) == 0 && v == 500e6);
    CHECK(units_parse_size(" 1.5 GiB ", &v, err, sizeof err) == 0 && v == 1.5 * 1073741824.0);
    CHECK(units_parse_size("512M", &v, err, sizeof err) == 0 && v == 512.0 * 1048576);
    CHECK(units_parse_size("2 gigabytes", &v, err, sizeof err) == 0 && v == 2e9);
    CHECK(units_parse_size("0MB", &v, err, sizeof err) == -1);
    CHECK(units_parse_size("-1GB", &v, err, sizeof err) == -1);
    CHECK(units_parse_size("1 mb", &v, err, sizeof err) == -1); /* mb: millibits? no guessing */
    CHECK_CONTAINS(err, "invalid size '1 mb': unknown unit; valid units: ");
    CHECK(units_parse_duration("90", &v, err, sizeof err) == 0 && v == 90);
    CHECK(units_parse_duration("1.5h", &v, err, sizeof err) == 0 && v == 5400);
    CHECK(units_parse_duration("1h30m", &v, err, sizeof err) == 0 && v == 5400);
    CHECK(units_parse_duration("1h 30m 5s", &v, err, sizeof err) == 0 && v == 5405);
    CHECK(units_parse_duration("1:30:00", &v, err, sizeof err) == 0 && v == 5400);
    CHECK(units_parse_duration("2:30", &v, err, sizeof err) == 0 && v == 150);
    CHECK(units_parse_duration("2d", &v, err, sizeof err) == 0 && v == 172800);
    CHECK(units_parse_duration("90 30", &v, err, sizeof err) == -1);
    CHECK(units_parse_duration("1:2:3:4", &v, err, sizeof err) == -1);
    CHECK(units_parse_duration("5 parsecs", &v, err, sizeof err) == -1);
    CHECK(units_parse_duration("0", &v, err, sizeof err) == -1);
    CHECK(units_parse_duration("", &v, err, sizeof err) == -1);
}

int main(void)
{
    test_job_names();
    test_limit_units();
    test_repr();
    test_integer_digits();
    test_round3();
    test_repr_round_trips();
    test_shlex();
    test_shlex_join();
    test_units();
    return check_exit("test_format");
}
