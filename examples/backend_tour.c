/* backend_tour.c — one script of array operations, run on the host device and on an OpenCL
   device, printed side by side: the array vocabulary means the same thing on every device.

       backend_tour                the OpenCL side is $HST_DEVICE, else `auto`
       backend_tour --device 0:0   the OpenCL side is what the selector picks (see `devices`)

   backend.h promises that fill, copy, cast, scale, axpy, the reductions and uniform random
   numbers are exact on every device, bit for bit, because kernels.h fixes the arithmetic and
   the reduction order; exp and sin only within OpenCL's ulp bounds of the host's libm, and
   normal random numbers (computed in double) within one f32 rounding. The tour checks exactly
   that, and exits 0 iff every result agrees within those tolerances. When the selector picks
   the host device (no OpenCL device), the host runs alone and nothing is compared.

   Build: cc -std=c99 -O2 -I. examples/backend_tour.c -o backend_tour -lOpenCL -lm -lpthread */

#define HST_IMPLEMENTATION
#include "array.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The script's sizes: big enough that the OpenCL side really splits its reductions into many
   work-groups, small enough to run in a blink on a laptop's CPU. */
#define ROWS 300
#define COLS 500
#define COMPLEX_COUNT 4096
#define SMALL_COUNT 1024          /* inputs of exp and sin: evenly spaced in [-10, 10] */

#define NORMAL_SEED 7
#define UNIFORM_SEED 8
#define COMPLEX_SEED_1 11
#define COMPLEX_SEED_2 12
#define SCALE 0.5
#define AXPY_ALPHA 100.0          /* spreads values over [-2, 102], so the i32 cast is not
                                     all zeros and truncation of negatives is exercised */

/* Tolerances in units in the last place of f32, from backend.h. Normal numbers are computed in
   double and rounded once to f32, so two devices can land at most one rounding apart. */
#define NORMAL_MAX_ULPS 1
#define EXP_MAX_ULPS 3
#define SIN_MAX_ULPS 4

/* One device's half of the tour: its backend, its arrays and what it read back. */
typedef struct side {
    char label[48];
    hst_backend *be;
    hst_array *a, *u, *ai, *z1, *z2, *x, *ex, *sn;
    float *normal;                      /* ROWS x COLS, as the device generated them */
    hst_scalar sum, sqnorm, min, max;   /* of SCALE * normal + AXPY_ALPHA * uniform */
    hst_scalar int_sum;                 /* the same array cast to i32, summed (exact, int64) */
    hst_scalar dot;                     /* sum conj(z1) z2 over two uniform c64 arrays */
    float x_in[SMALL_COUNT], exp_out[SMALL_COUNT], sin_out[SMALL_COUNT];
    hst_pool_stats pool_live, pool_after;
} side;

/* Every library call returns a result; the first failure ends the tour with the call's text,
   the device and the result's name. Used inside functions that have `side *s` in scope. */
#define TRY(call)                                                                          \
    do {                                                                                   \
        hst_result r_ = (call);                                                            \
        if (r_ != HST_SUCCESS) {                                                           \
            fprintf(stderr, "backend_tour: on %s, %s failed: %s (%d)\n", s->label, #call,   \
                    hst_result_string(r_), r_);                                            \
            return r_;                                                                     \
        }                                                                                  \
    } while (0)

static hst_result open_side(side *s, const char *selector, const char *label)
{
    hst_backend_desc desc;
    memset(&desc, 0, sizeof desc);      /* zero means every documented default */
    desc.device = selector;
    snprintf(s->label, sizeof s->label, "%s", label);
    TRY(hst_backend_create(&desc, &s->be));
    s->normal = (float *)malloc(sizeof(float) * ROWS * COLS);
    if (s->normal == NULL) {
        fprintf(stderr, "backend_tour: out of host memory\n");
        return HST_ERROR_OUT_OF_HOST_MEMORY;
    }
    return HST_SUCCESS;
}

static void destroy_array(hst_array **a)
{
    if (*a != NULL)
        hst_array_destroy(*a);
    *a = NULL;
}

/* Safe to call twice, and on a side that was never opened. 0 when the backend refused to go
   (something still holds it: the backend's log names it). */
static int close_side(side *s)
{
    /* Arrays go back to the backend's pool, which keeps their blocks for reuse: the pool
       statistics taken after this show them as held rather than freed. */
    destroy_array(&s->a);  destroy_array(&s->u);  destroy_array(&s->ai);
    destroy_array(&s->z1); destroy_array(&s->z2); destroy_array(&s->x);
    destroy_array(&s->ex); destroy_array(&s->sn);
    if (s->be != NULL)
        s->pool_after = hst_pool_get_stats(hst_backend_pool(s->be));
    free(s->normal);
    s->normal = NULL;
    if (hst_backend_destroy(s->be) != HST_SUCCESS) return 0;
    s->be = NULL;
    return 1;
}

/* Step 1: the random numbers. Philox is counter-based, so both devices draw the same numbers
   for the same seed whatever their work-group sizes. */
static hst_result make_normal(side *s)
{
    const size_t shape[2] = { ROWS, COLS };
    TRY(hst_array_create(s->be, HST_F32, 2, shape, &s->a));
    TRY(hst_array_random(s->a, HST_RANDOM_NORMAL, NORMAL_SEED, 0));
    TRY(hst_array_read(s->a, s->normal, sizeof(float) * ROWS * COLS));
    return HST_SUCCESS;
}

/* Step 2: everything else, on each device independently. */
static hst_result run_script(side *s)
{
    const size_t shape[2] = { ROWS, COLS };
    const size_t complex_shape[1] = { COMPLEX_COUNT }, small_shape[1] = { SMALL_COUNT };
    size_t i;

    TRY(hst_array_scale(s->a, hst_real(SCALE)));
    TRY(hst_array_create(s->be, HST_F32, 2, shape, &s->u));
    TRY(hst_array_random(s->u, HST_RANDOM_UNIFORM, UNIFORM_SEED, 0));
    TRY(hst_array_axpy(s->a, hst_real(AXPY_ALPHA), s->u));      /* a += alpha u */
    TRY(hst_array_sum(s->a, &s->sum));
    TRY(hst_array_sqnorm(s->a, &s->sqnorm));
    TRY(hst_array_min(s->a, &s->min));
    TRY(hst_array_max(s->a, &s->max));

    TRY(hst_array_create(s->be, HST_I32, 2, shape, &s->ai));
    TRY(hst_array_cast(s->ai, s->a));           /* truncates toward zero, like C */
    TRY(hst_array_sum(s->ai, &s->int_sum));     /* integers sum exactly, in int64 */

    TRY(hst_array_create(s->be, HST_C64, 1, complex_shape, &s->z1));
    TRY(hst_array_create(s->be, HST_C64, 1, complex_shape, &s->z2));
    TRY(hst_array_random(s->z1, HST_RANDOM_UNIFORM, COMPLEX_SEED_1, 0));
    TRY(hst_array_random(s->z2, HST_RANDOM_UNIFORM, COMPLEX_SEED_2, 0));
    TRY(hst_array_dot(s->z1, s->z2, &s->dot));  /* conjugates the first argument */

    for (i = 0; i < SMALL_COUNT; ++i)
        s->x_in[i] = (float)(-10.0 + 20.0 * (double)i / (SMALL_COUNT - 1));
    TRY(hst_array_create(s->be, HST_F32, 1, small_shape, &s->x));
    TRY(hst_array_create(s->be, HST_F32, 1, small_shape, &s->ex));
    TRY(hst_array_create(s->be, HST_F32, 1, small_shape, &s->sn));
    TRY(hst_array_write(s->x, s->x_in, sizeof s->x_in));
    TRY(hst_array_math(s->ex, s->x, HST_MATH_EXP, 0.0));
    TRY(hst_array_math(s->sn, s->x, HST_MATH_SIN, 0.0));
    TRY(hst_array_read(s->ex, s->exp_out, sizeof s->exp_out));
    TRY(hst_array_read(s->sn, s->sin_out, sizeof s->sin_out));

    s->pool_live = hst_pool_get_stats(hst_backend_pool(s->be));
    return HST_SUCCESS;
}

/* ------------------------------------------------------------------ comparing and printing */

/* Distance in ulps between two floats: map each to an integer that counts representable floats
   from zero (negatives below), so adjacent floats differ by 1 and +0 equals -0. */
static int64_t f32_ulp_index(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return (u & 0x80000000u) ? -(int64_t)(u & 0x7fffffffu) : (int64_t)u;
}

static int64_t max_ulps(const float *a, const float *b, size_t n)
{
    int64_t worst = 0;
    size_t i;
    for (i = 0; i < n; ++i) {
        int64_t d;
        if (a[i] != a[i] || b[i] != b[i]) {         /* NaN: equal only to NaN */
            if (a[i] != a[i] && b[i] != b[i])
                continue;
            return INT64_MAX;
        }
        d = f32_ulp_index(a[i]) - f32_ulp_index(b[i]);
        if (d < 0)
            d = -d;
        if (d > worst)
            worst = d;
    }
    return worst;
}

typedef struct table {
    int sides;      /* 1: the host alone, nothing to compare */
    int failures;   /* rows outside their tolerance */
} table;

/* Exact results must agree in every bit (memcmp, so even -0 vs +0 would count). */
static void row_exact(table *t, const char *what, double host, double dev)
{
    printf("%-22s %24.17g", what, host);
    if (t->sides == 2) {
        int same = memcmp(&host, &dev, sizeof host) == 0;
        printf(" %24.17g  %s", dev, same ? "identical" : "DIFFERENT");
        t->failures += !same;
    }
    printf("\n");
}

static void row_int(table *t, const char *what, int64_t host, int64_t dev)
{
    printf("%-22s %24lld", what, (long long)host);
    if (t->sides == 2) {
        printf(" %24lld  %s", (long long)dev, host == dev ? "identical" : "DIFFERENT");
        t->failures += host != dev;
    }
    printf("\n");
}

/* Element-wise results: one sample value each, and the worst ulp distance over all of them. */
static void row_ulps(table *t, const char *what, float host, float dev, const float *all_host,
                     const float *all_dev, size_t n, int64_t allowed)
{
    printf("%-22s %24.9g", what, (double)host);
    if (t->sides == 2) {
        int64_t ulps = max_ulps(all_host, all_dev, n);
        int ok = ulps <= allowed;
        printf(" %24.9g  ", (double)dev);
        if (ulps == INT64_MAX)
            printf("NaN on one side only");
        else if (ulps == 0)
            printf("identical (%zu values)", n);
        else
            printf("max %lld ulp of %zu (<= %lld)%s", (long long)ulps, n, (long long)allowed,
                   ok ? "" : " OUT OF BOUNDS");
        t->failures += !ok;
    }
    printf("\n");
}

static void row_pool(const table *t, const char *what, size_t host_blocks, size_t host_bytes,
                     size_t dev_blocks, size_t dev_bytes)
{
    char h[48], d[48];
    snprintf(h, sizeof h, "%zu blocks, %.1f KiB", host_blocks, host_bytes / 1024.0);
    snprintf(d, sizeof d, "%zu blocks, %.1f KiB", dev_blocks, dev_bytes / 1024.0);
    printf("%-22s %24s", what, h);
    if (t->sides == 2)
        printf(" %24s  (each device's own)", d);
    printf("\n");
}

/* ------------------------------------------------------------------ the tour */

static void usage(FILE *to)
{
    fprintf(to, "usage: backend_tour [--device S]\n"
                "  S picks the OpenCL side (default: $HST_DEVICE, else auto); see `devices`.\n");
}

int main(int argc, char **argv)
{
    static side sides[2];   /* [0] the host device, [1] the OpenCL device (static: they hold
                               the read-back arrays) */
    table t = { 1, 0 };
    const char *selector = NULL;   /* NULL: $HST_DEVICE, else auto, as the library does */
    hst_device_info pick;
    char why[512] = "";
    int i, status = 1;
    hst_result r;
    int64_t normal_ulps = 0, exp_ulps = 0, sin_ulps = 0;

    for (i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            selector = argv[++i];
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else {
            fprintf(stderr, "backend_tour: unknown or incomplete option '%s'\n", argv[i]);
            usage(stderr);
            return 1;
        }
    }

    /* Resolve the selector ourselves first, so the OpenCL side can be opened by its exact
       "P:D" and so a host-only machine is told plainly rather than compared with itself. */
    r = hst_device_select(selector, &pick, why, sizeof why);
    if (r != HST_SUCCESS) {
        fprintf(stderr, "backend_tour: no device for '%s': %s (%d)\n  %s\n",
                selector ? selector : "$HST_DEVICE/auto", hst_result_string(r), r, why);
        return 1;
    }
    if (open_side(&sides[0], "host", "host") != HST_SUCCESS)
        goto done;
    if (pick.type == HST_DEVICE_HOST) {
        printf("%s picked the host device (%s).\n"
               "No OpenCL device to compare with: running the host alone.\n\n",
               selector ? selector : "$HST_DEVICE/auto", why);
    } else {
        char label[48];
        snprintf(label, sizeof label, "%.10s %.36s", pick.selector, pick.name);
        if (open_side(&sides[1], pick.selector, label) != HST_SUCCESS)
            goto done;
        t.sides = 2;
        printf("Host device against [%s] %s\n  (%s)\n\n", pick.selector, pick.name, why);
    }

    for (i = 0; i < t.sides; ++i)
        if (make_normal(&sides[i]) != HST_SUCCESS)
            goto done;
    /* If the devices' double-precision log/cos put an element on the other side of an f32
       rounding boundary, the OpenCL side continues from the host's numbers: what follows is
       exact arithmetic, and it can only be checked bit for bit from identical inputs. */
    if (t.sides == 2) {
        normal_ulps = max_ulps(sides[0].normal, sides[1].normal, (size_t)ROWS * COLS);
        if (normal_ulps != 0) {
            r = hst_array_write(sides[1].a, sides[0].normal, sizeof(float) * ROWS * COLS);
            if (r != HST_SUCCESS) {
                fprintf(stderr, "backend_tour: on %s, hst_array_write failed: %s (%d)\n",
                        sides[1].label, hst_result_string(r), r);
                goto done;
            }
        }
    }
    for (i = 0; i < t.sides; ++i)
        if (run_script(&sides[i]) != HST_SUCCESS)
            goto done;

    {
        const side *h = &sides[0], *d = t.sides == 2 ? &sides[1] : &sides[0];
        char title[48];
        size_t len;
        snprintf(title, sizeof title, "%.24s", d->label);
        for (len = strlen(title); len > 0 && title[len - 1] == ' '; --len)
            title[len - 1] = '\0';
        printf("%-22s %24s", "", "host");
        if (t.sides == 2)
            printf(" %24s", title);
        printf("\n");

        printf("a = normal(%d), %d x %d f32:\n", NORMAL_SEED, ROWS, COLS);
        row_ulps(&t, "  a[0][0]", h->normal[0], d->normal[0], h->normal, d->normal,
                 (size_t)ROWS * COLS, NORMAL_MAX_ULPS);
        if (normal_ulps != 0)
            printf("%-22s (the OpenCL side goes on from the host's normal numbers)\n", "");
        printf("a = %g a + %g u, u = uniform(%d):\n", SCALE, AXPY_ALPHA, UNIFORM_SEED);
        row_exact(&t, "  sum", h->sum.re, d->sum.re);
        row_exact(&t, "  sqnorm", h->sqnorm.re, d->sqnorm.re);
        row_exact(&t, "  min", h->min.re, d->min.re);
        row_exact(&t, "  max", h->max.re, d->max.re);
        row_int(&t, "  cast to i32, sum", h->int_sum.i64, d->int_sum.i64);
        printf("dot(z1, z2), z1 = uniform(%d), z2 = uniform(%d), %d c64:\n", COMPLEX_SEED_1,
               COMPLEX_SEED_2, COMPLEX_COUNT);
        row_exact(&t, "  real part", h->dot.re, d->dot.re);
        row_exact(&t, "  imaginary part", h->dot.im, d->dot.im);
        printf("x = %d f32 evenly spaced in [-10, 10]:\n", SMALL_COUNT);
        row_ulps(&t, "  exp(x), x = 10", h->exp_out[SMALL_COUNT - 1],
                 d->exp_out[SMALL_COUNT - 1], h->exp_out, d->exp_out, SMALL_COUNT,
                 EXP_MAX_ULPS);
        row_ulps(&t, "  sin(x), x = 10", h->sin_out[SMALL_COUNT - 1],
                 d->sin_out[SMALL_COUNT - 1], h->sin_out, d->sin_out, SMALL_COUNT,
                 SIN_MAX_ULPS);
        exp_ulps = max_ulps(h->exp_out, d->exp_out, SMALL_COUNT);
        sin_ulps = max_ulps(h->sin_out, d->sin_out, SMALL_COUNT);
    }

    for (i = 0; i < t.sides; ++i)
        if (!close_side(&sides[i])) t.failures++;
    printf("pool:\n");
    row_pool(&t, "  active (8 arrays)", sides[0].pool_live.active_blocks,
             sides[0].pool_live.active_bytes, sides[1].pool_live.active_blocks,
             sides[1].pool_live.active_bytes);
    row_pool(&t, "  held after destroy", sides[0].pool_after.held_blocks,
             sides[0].pool_after.held_bytes, sides[1].pool_after.held_blocks,
             sides[1].pool_after.held_bytes);

    printf("\n");
    if (t.sides == 1)
        printf("Host alone: nothing compared.\n");
    else if (t.failures == 0)
        printf("All results agree: exact operations identical bit for bit;\n"
               "exp max %lld ulp, sin max %lld ulp, normal random max %lld ulp "
               "(allowed %d, %d, %d).\n",
               (long long)exp_ulps, (long long)sin_ulps, (long long)normal_ulps, EXP_MAX_ULPS,
               SIN_MAX_ULPS, NORMAL_MAX_ULPS);
    else
        printf("%d result%s DIFFER beyond the stated tolerances;\n"
               "exp max %lld ulp, sin max %lld ulp, normal random max %lld ulp.\n", t.failures,
               t.failures == 1 ? "" : "s", (long long)exp_ulps, (long long)sin_ulps,
               (long long)normal_ulps);
    status = t.failures == 0 ? 0 : 1;

done:
    for (i = 0; i < 2; ++i)
        if (!close_side(&sides[i])) status = 1;
    return status;
}
