/* mm_det_exp_n, mm_det_log_n: the reference functions (mm_detmath.h) over arrays, built for the
 * baseline, AVX2 and AVX-512 (mm_detmath_n.h). The baseline loops call the reference; the AVX2 and
 * AVX-512 loops its select form (mm_detmath_lanes.h), which the compiler vectorises.
 * -ffp-contract=off (meson.build) holds inside the AVX-512 copy too, though that instruction set
 * has FMA: no multiply-add is fused. */
#include "mm_detmath_n.h"

#include <errno.h>

#include "mm_accel.h"
#include "mm_detmath.h"
#include "mm_detmath_lanes.h"

static void exp_scalar(const double *x, double *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = mm_det_exp(x[i]);
}

static void log_scalar(const double *x, double *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = mm_det_log(x[i]);
}

#if MM_X86_ISA
#define MM_DET_AVX2 __attribute__((target("avx2,bmi2")))
#define MM_DET_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,bmi2")))

MM_DET_AVX2 static void exp_avx2(const double *x, double *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = mm__det_exp_lane(x[i]);
}

MM_DET_AVX2 static void log_avx2(const double *x, double *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = mm__det_log_lane(x[i]);
}

MM_DET_AVX512 static void exp_avx512(const double *x, double *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = mm__det_exp_lane(x[i]);
}

MM_DET_AVX512 static void log_avx512(const double *x, double *y, size_t n)
{
    for (size_t i = 0; i < n; i++)
        y[i] = mm__det_log_lane(x[i]);
}
#endif

int mm__det_exp_n_isa(int isa, const double *x, double *y, size_t n)
{
    if (!mm__batch_isa_supported(isa)) return -ENODEV;
#if MM_X86_ISA
    if (isa == MM_ISA_AVX512) {
        exp_avx512(x, y, n);
        return 0;
    }
    if (isa == MM_ISA_AVX2) {
        exp_avx2(x, y, n);
        return 0;
    }
#endif
    if (isa != MM_ISA_SCALAR) return -ENODEV;
    exp_scalar(x, y, n);
    return 0;
}

int mm__det_log_n_isa(int isa, const double *x, double *y, size_t n)
{
    if (!mm__batch_isa_supported(isa)) return -ENODEV;
#if MM_X86_ISA
    if (isa == MM_ISA_AVX512) {
        log_avx512(x, y, n);
        return 0;
    }
    if (isa == MM_ISA_AVX2) {
        log_avx2(x, y, n);
        return 0;
    }
#endif
    if (isa != MM_ISA_SCALAR) return -ENODEV;
    log_scalar(x, y, n);
    return 0;
}

void mm_det_exp_n(const double *x, double *y, size_t n)
{
    (void)mm__det_exp_n_isa(mm__batch_isa_best(), x, y, n);
}

void mm_det_log_n(const double *x, double *y, size_t n)
{
    (void)mm__det_log_n_isa(mm__batch_isa_best(), x, y, n);
}
