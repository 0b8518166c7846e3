/* hot_path.h - marks the code that every sample runs.
 *
 * The sampling thread sleeps between samples. On a machine whose CPU has no
 * PCID (the development VM) every wake-up starts with an empty TLB, and at
 * --st 1 with cold caches too, so what a sample costs beyond its system
 * calls follows the distinct pages and cache lines it touches more than
 * its instruction count. A one-process sample ran some 15,000 instructions
 * over 14 pages of our code, 7 once marked (counted with valgrind's lackey
 * --trace-mem; README, "Overhead and accuracy"); functions added later
 * without the mark had spread it over 20 again, 29 with both series, and 13
 * and 14 once marked (bench/hot_pages.py, docs/performance.md). GT_HOT
 * puts a function in .text.hot, which the linker keeps together, so the
 * per-sample path shares few pages. Mark a function that runs at every
 * sample, or at every sample with a series (not the baseline's or the
 * end's alone). */
#ifndef GT_HOT_PATH_H
#define GT_HOT_PATH_H

#if defined(__GNUC__)
#define GT_HOT __attribute__((hot))
#else
#define GT_HOT
#endif

#endif
