/* test_nufft.c — nufft.h's type 1 and type 2 transforms in 2-D and 3-D on the device under
   test ($HST_DEVICE), against direct summation in double, and against the host device's twins
   in the same run.

   What is checked, with the tolerances and why:
   - accuracy: relative l2 error against the direct sums (in double) <= 10 eps for eps = 1e-2,
     1e-3, 1e-4, 1e-5, 1e-6 (FINUFFT's promise for its kernel width; the bound), on
     small problems with odd and even mode counts and points that include the edges -pi,
     pi - ulp and FINUFFT's extended range up to +-3 pi;
   - adjointness: type 2 (isign -1) is A, type 1 (isign +1) is A^H, so <A x, y> = <x, A^H y>:
     the kernels' spreading and interpolation are exact adjoints and so are the FFTs, so only
     float rounding separates the two sides: within 1e-5 of ||A x|| ||y||, at eps 1e-3 (far
     from the accuracy bound, so a mismatch of the approximations themselves would show);
   - devices agree: the host device and the device under test within 1e-5 relative l2 (type 2:
     the same operations, OpenCL's exp and sqrt differ by ulps; type 1: atomic adds in a varying
     order on OpenCL devices);
   - plan reuse: points set once, several executes with different data, each exact to 10 eps;
     new points replace the old;
   - batches (n_trans, as PyEPRI calls FINUFFT): each vector within 10 eps of its direct sum and
     the same bits as a single-vector execute (type 1 on OpenCL devices: within 1e-6, atomics);
   - bad input: each rejected with its code and log item, the plan unchanged;
   - out of memory: a host allocator that fails after k more calls, for every k until the whole
     call sequence succeeds: each failure is HST_ERROR_OUT_OF_HOST_MEMORY, nothing leaks, and a
     plan whose set_points failed keeps its previous points. */
#define HST_IMPLEMENTATION
#define HST_FFT
#include "nufft.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap_log.h"
#include "be_fixture.h"

#define PI 3.14159265358979323846
#define ADJOINT_TOL 1e-5
#define AGREE_TOL 1e-5

/* desc.method of the plans run_nufft and run_c128 make (test_spread_global sets it). */
static int spread_method = HST_NUFFT_SPREAD_AUTO;

static uint64_t rng_state = 88172645463325252ULL;
static double uniform(void) {   /* xorshift64*, [0, 1) */
    uint64_t x = rng_state;
    x ^= x >> 12; x ^= x << 25; x ^= x >> 27;
    rng_state = x;
    return (double)((x * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}

/* A problem: dim, modes, m points (coords[d], with the edge cases first), values. */
typedef struct problem {
    unsigned dim;
    size_t modes[3], nmodes, m;
    float *coords[3];
} problem;

static void problem_make(problem *p, unsigned dim, size_t n0, size_t n1, size_t n2, size_t m) {
    unsigned d;
    size_t j;
    memset(p, 0, sizeof *p);
    p->dim = dim; p->modes[0] = n0; p->modes[1] = n1; p->modes[2] = n2; p->m = m;
    p->nmodes = n0 * n1 * (dim == 3 ? n2 : 1);
    for (d = 0; d < dim; d++) {
        p->coords[d] = (float *)malloc(m * sizeof(float));
        assert_non_null(p->coords[d]);
        for (j = 0; j < m; j++) p->coords[d][j] = (float)(PI * (2.0 * uniform() - 1.0));
        p->coords[d][0] = (float)-PI;                   /* the edges of [-pi, pi) */
        p->coords[d][1] = nextafterf((float)PI, 0.0f);
        p->coords[d][2] = (float)(3.0 * PI * (2.0 * uniform() - 1.0));   /* FINUFFT's range */
        p->coords[d][3] = 0.0f;
    }
}

static void problem_free(problem *p) {
    unsigned d;
    for (d = 0; d < p->dim; d++) free(p->coords[d]);
}

static float *random_complex(size_t n) {
    float *v = (float *)malloc(2 * n * sizeof(float));
    size_t i;
    assert_non_null(v);
    for (i = 0; i < 2 * n; i++) v[i] = (float)(2.0 * uniform() - 1.0);
    return v;
}

/* Mode index i of axis d's frequency (modeord 0). */
static int freq(const problem *p, unsigned d, size_t i) { return (int)i - (int)(p->modes[d] / 2); }

/* The direct sums in double: type 1 (c -> f) or type 2 (f -> c), into out; the points x[d]
   and the input in double. */
static void direct_d(const problem *p, const double *const *x, int type, int isign, const double *in,
                     double *out) {
    size_t j, i, n = p->nmodes;
    memset(out, 0, 2 * (type == 1 ? n : p->m) * sizeof(double));
    for (j = 0; j < p->m; j++)
        for (i = 0; i < n; i++) {
            size_t rest = i, idx[3];
            unsigned d;
            double ph = 0.0, cr, ci;
            for (d = p->dim; d-- > 0;) { idx[d] = rest % p->modes[d]; rest /= p->modes[d]; }
            for (d = 0; d < p->dim; d++) ph += freq(p, d, idx[d]) * x[d][j];
            ph *= isign;
            cr = cos(ph); ci = sin(ph);
            if (type == 1) {
                out[2 * i] += in[2 * j] * cr - in[2 * j + 1] * ci;
                out[2 * i + 1] += in[2 * j] * ci + in[2 * j + 1] * cr;
            } else {
                out[2 * j] += in[2 * i] * cr - in[2 * i + 1] * ci;
                out[2 * j + 1] += in[2 * i] * ci + in[2 * i + 1] * cr;
            }
        }
}

static double *to_double(const float *v, size_t n) {
    double *d = (double *)malloc(n * sizeof(double));
    size_t i;
    assert_non_null(d);
    for (i = 0; i < n; i++) d[i] = v[i];
    return d;
}

/* The direct sums of p's float points and a float input, in double. */
static void direct(const problem *p, int type, int isign, const float *in, double *out) {
    double *x[3] = {NULL, NULL, NULL}, *ind = to_double(in, 2 * (type == 1 ? p->m : p->nmodes));
    unsigned d;
    for (d = 0; d < p->dim; d++) x[d] = to_double(p->coords[d], p->m);
    direct_d(p, (const double *const *)x, type, isign, ind, out);
    for (d = 0; d < p->dim; d++) free(x[d]);
    free(ind);
}

static double rel_l2(const float *got, const double *want, size_t n) {
    double e = 0.0, w = 0.0;
    size_t i;
    for (i = 0; i < 2 * n; i++) { e += (got[i] - want[i]) * (got[i] - want[i]); w += want[i] * want[i]; }
    return sqrt(e / w);
}

static double rel_l2f(const float *got, const float *want, size_t n) {
    double e = 0.0, w = 0.0;
    size_t i;
    for (i = 0; i < 2 * n; i++) { e += ((double)got[i] - want[i]) * ((double)got[i] - want[i]); w += (double)want[i] * want[i]; }
    return sqrt(e / w);
}

/* Runs one transform on be: in -> out (host memory), with a plan made here. */
static void run_nufft(hst_backend *be, const problem *p, int type, int isign, double eps,
                      const float *in, float *out) {
    hst_nufft_desc nd;
    hst_nufft_plan *plan = NULL;
    hst_array *c = NULL, *f = NULL;
    size_t m = p->m;
    memset(&nd, 0, sizeof nd);
    nd.type = type; nd.dim = p->dim; nd.eps = eps; nd.isign = isign; nd.method = spread_method;
    memcpy(nd.modes, p->modes, sizeof nd.modes);
    assert_int_equal(hst_nufft_plan_create(be, &nd, &plan), HST_SUCCESS);
    assert_int_equal(hst_nufft_set_points(plan, p->m, (const float *const *)p->coords), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C64, 1, &m, &c), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C64, p->dim, p->modes, &f), HST_SUCCESS);
    if (type == 1) {
        assert_int_equal(hst_array_write(c, in, 2 * m * sizeof(float)), HST_SUCCESS);
        assert_int_equal(hst_nufft_execute(plan, c, f), HST_SUCCESS);
        assert_int_equal(hst_array_read(f, out, 2 * p->nmodes * sizeof(float)), HST_SUCCESS);
    } else {
        assert_int_equal(hst_array_write(f, in, 2 * p->nmodes * sizeof(float)), HST_SUCCESS);
        assert_int_equal(hst_nufft_execute(plan, c, f), HST_SUCCESS);
        assert_int_equal(hst_array_read(c, out, 2 * m * sizeof(float)), HST_SUCCESS);
    }
    hst_array_destroy(c);
    hst_array_destroy(f);
    hst_nufft_plan_destroy(plan);
}

/* Both types at eps 1e-2 .. 1e-6 against the direct sums. */
static void check_accuracy(hst_backend *be, const problem *p) {
    static const double eps[] = {1e-2, 1e-3, 1e-4, 1e-5, 1e-6};
    size_t e, nin1 = p->m, nin2 = p->nmodes;
    float *c = random_complex(nin1), *f = random_complex(nin2);
    float *out = (float *)malloc(2 * (nin1 > nin2 ? nin1 : nin2) * sizeof(float));
    double *want1 = (double *)malloc(2 * nin2 * sizeof(double)), *want2 = (double *)malloc(2 * nin1 * sizeof(double));
    assert_non_null(out); assert_non_null(want1); assert_non_null(want2);
    direct(p, 1, 1, c, want1);
    direct(p, 2, -1, f, want2);
    for (e = 0; e < sizeof eps / sizeof eps[0]; e++) {
        double err1, err2;
        run_nufft(be, p, 1, 0, eps[e], c, out);
        err1 = rel_l2(out, want1, nin2);
        run_nufft(be, p, 2, 0, eps[e], f, out);
        err2 = rel_l2(out, want2, nin1);
        printf("# %u-D eps %.0e: type 1 error %.3g, type 2 error %.3g (bound %.0e)\n", p->dim,
               eps[e], err1, err2, 10 * eps[e]);
        assert_true(err1 <= 10 * eps[e]);
        assert_true(err2 <= 10 * eps[e]);
    }
    free(c); free(f); free(out); free(want1); free(want2);
}

static void test_accuracy_2d(void **state) {
    problem p;
    problem_make(&p, 2, 24, 17, 1, 600);
    check_accuracy(BE(state), &p);
    problem_free(&p);
}

static void test_accuracy_3d(void **state) {
    problem p;
    problem_make(&p, 3, 10, 7, 12, 300);
    check_accuracy(BE(state), &p);
    problem_free(&p);
}

/* <A x, y> against <x, A^H y>: A = type 2 (isign -1) on modes x, A^H = type 1 (isign +1). */
static void check_adjoint(hst_backend *be, const problem *p) {
    float *x = random_complex(p->nmodes), *y = random_complex(p->m);
    float *ax = (float *)malloc(2 * p->m * sizeof(float)), *ahy = (float *)malloc(2 * p->nmodes * sizeof(float));
    double lr = 0, li = 0, rr = 0, ri = 0, nax = 0, ny = 0, nx = 0, nahy = 0;
    size_t i;
    assert_non_null(ax); assert_non_null(ahy);
    run_nufft(be, p, 2, -1, 1e-3, x, ax);
    run_nufft(be, p, 1, 1, 1e-3, y, ahy);
    for (i = 0; i < p->m; i++) {   /* <A x, y> = sum conj(y) A x */
        lr += (double)y[2 * i] * ax[2 * i] + (double)y[2 * i + 1] * ax[2 * i + 1];
        li += (double)y[2 * i] * ax[2 * i + 1] - (double)y[2 * i + 1] * ax[2 * i];
        nax += (double)ax[2 * i] * ax[2 * i] + (double)ax[2 * i + 1] * ax[2 * i + 1];
        ny += (double)y[2 * i] * y[2 * i] + (double)y[2 * i + 1] * y[2 * i + 1];
    }
    for (i = 0; i < p->nmodes; i++) {   /* <x, A^H y> = sum conj(A^H y) x */
        rr += (double)ahy[2 * i] * x[2 * i] + (double)ahy[2 * i + 1] * x[2 * i + 1];
        ri += (double)ahy[2 * i] * x[2 * i + 1] - (double)ahy[2 * i + 1] * x[2 * i];
        nx += (double)x[2 * i] * x[2 * i] + (double)x[2 * i + 1] * x[2 * i + 1];
        nahy += (double)ahy[2 * i] * ahy[2 * i] + (double)ahy[2 * i + 1] * ahy[2 * i + 1];
    }
    printf("# %u-D adjointness: |<Ax,y> - <x,A^H y>| / (||Ax|| ||y||) = %.3g\n", p->dim,
           hypot(lr - rr, li - ri) / sqrt(nax * ny));
    assert_true(hypot(lr - rr, li - ri) <= ADJOINT_TOL * sqrt(nax * ny));
    assert_true(hypot(lr - rr, li - ri) <= ADJOINT_TOL * sqrt(nx * nahy));
    free(x); free(y); free(ax); free(ahy);
}

static void test_adjoint(void **state) {
    problem p;
    problem_make(&p, 2, 32, 30, 1, 2000);
    check_adjoint(BE(state), &p);
    problem_free(&p);
    problem_make(&p, 3, 12, 16, 9, 1500);
    check_adjoint(BE(state), &p);
    problem_free(&p);
}

/* The host device's twins and the device under test on problems with many points per bin (so
   subproblems split and atomics contend), and whose host stripes (bins along axis 0: 32 fine
   points in 2-D, 16 in 3-D) pair up around the periodic wrap (128 and 32 fine points: all in
   the two phases) or do not (80: an odd count; 50: the last stripe 2 wide, narrower than two
   pads: the first and last stripes run after the phases). */
/* The host device's backend (the twins' reference). */
static hst_backend *host_backend(void) {
    hst_backend_desc bd;
    hst_backend *host = NULL;
    memset(&bd, 0, sizeof bd);
    bd.device = "host";
    assert_int_equal(hst_backend_create(&bd, &host), HST_SUCCESS);
    return host;
}

static void test_devices_agree(void **state) {
    static const size_t shapes[4][4] = {{2, 64, 48, 1}, {3, 16, 20, 12}, {2, 40, 24, 1}, {3, 25, 12, 10}};
    hst_backend *host;
    problem p;
    unsigned i, dim;
    host = host_backend();
    for (i = 0; i < 4; i++) {
        float *c, *f, *a, *b;
        double d1, d2;
        dim = (unsigned)shapes[i][0];
        problem_make(&p, dim, shapes[i][1], shapes[i][2], shapes[i][3], 20000);
        c = random_complex(p.m); f = random_complex(p.nmodes);
        a = (float *)malloc(2 * (p.m > p.nmodes ? p.m : p.nmodes) * sizeof(float));
        b = (float *)malloc(2 * (p.m > p.nmodes ? p.m : p.nmodes) * sizeof(float));
        assert_non_null(a); assert_non_null(b);
        run_nufft(host, &p, 1, 0, 1e-6, c, a);
        run_nufft(BE(state), &p, 1, 0, 1e-6, c, b);
        d1 = rel_l2f(b, a, p.nmodes);
        run_nufft(host, &p, 2, 0, 1e-6, f, a);
        run_nufft(BE(state), &p, 2, 0, 1e-6, f, b);
        d2 = rel_l2f(b, a, p.m);
        printf("# %u-D (%zu, %zu, %zu) host vs device: type 1 %.3g, type 2 %.3g\n", dim, shapes[i][1],
               shapes[i][2], shapes[i][3], d1, d2);
        assert_true(d1 <= AGREE_TOL);
        assert_true(d2 <= AGREE_TOL);
        free(c); free(f); free(a); free(b);
        problem_free(&p);
    }
    assert_int_equal(hst_backend_destroy(host), HST_SUCCESS);
}

/* Points set once, three executes with new data; then new points. */
static void test_plan_reuse(void **state) {
    hst_backend *be = BE(state);
    problem p, q;
    hst_nufft_desc nd;
    hst_nufft_plan *plan = NULL;
    hst_nufft_info info;
    hst_array *c = NULL, *f = NULL;
    size_t m = 700, k;
    float *out = (float *)malloc(2 * m * sizeof(float));
    double *want = (double *)malloc(2 * m * sizeof(double));
    problem_make(&p, 2, 20, 21, 1, m);
    problem_make(&q, 2, 20, 21, 1, m);
    memset(&nd, 0, sizeof nd);
    nd.type = 2; nd.dim = 2; nd.modes[0] = 20; nd.modes[1] = 21; nd.eps = 1e-5;
    assert_int_equal(hst_nufft_plan_create(be, &nd, &plan), HST_SUCCESS);
    assert_int_equal(hst_nufft_plan_info(plan, &info), HST_SUCCESS);
    assert_int_equal(info.width, 6);
    assert_int_equal(info.fine[0], 40);
    assert_int_equal(info.fine[1], 48);   /* 42 = 2 3 7: next235even gives 48 */
    assert_int_equal(info.num_points, 0);
    assert_int_equal(hst_nufft_set_points(plan, m, (const float *const *)p.coords), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C64, 1, &m, &c), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C64, 2, p.modes, &f), HST_SUCCESS);
    for (k = 0; k < 4; k++) {
        float *fv = random_complex(p.nmodes);
        if (k == 3) assert_int_equal(hst_nufft_set_points(plan, m, (const float *const *)q.coords), HST_SUCCESS);
        assert_int_equal(hst_array_write(f, fv, 2 * p.nmodes * sizeof(float)), HST_SUCCESS);
        assert_int_equal(hst_nufft_execute(plan, c, f), HST_SUCCESS);
        assert_int_equal(hst_array_read(c, out, 2 * m * sizeof(float)), HST_SUCCESS);
        direct(k == 3 ? &q : &p, 2, -1, fv, want);
        assert_true(rel_l2(out, want, m) <= 1e-4);
        free(fv);
    }
    hst_array_destroy(c); hst_array_destroy(f);
    hst_nufft_plan_destroy(plan);
    problem_free(&p); problem_free(&q);
    free(out); free(want);
}

/* FINUFFT's n_trans (PyEPRI's nufft2d(..., n_trans = Nb)): T vectors in one execute, c (T, M)
   and f (T, N_0, ..). Each vector against its direct sum (10 eps) and against a single-vector
   plan's execute of that vector: the same bits for type 2 everywhere and for type 1 on the
   host device (the same arithmetic in the same order); type 1 on OpenCL devices adds with
   atomics in a varying order, so there within 1e-6 relative l2. Shapes without the batch's
   axis, or with another T, are refused. */
static void check_batched(hst_backend *be, const problem *p, int type) {
    enum { T = 3 };
    hst_nufft_desc nd;
    hst_nufft_plan *plan = NULL;
    hst_array *c = NULL, *f = NULL;
    size_t cshape[2], fshape[4], nin = type == 1 ? p->m : p->nmodes, nout = type == 1 ? p->nmodes : p->m, k;
    float *in = random_complex(T * nin), *out = (float *)malloc(2 * T * nout * sizeof(float));
    float *one = (float *)malloc(2 * nout * sizeof(float));
    double *want = (double *)malloc(2 * nout * sizeof(double));
    int exact = type == 2 || hst_backend_is_host(be);
    assert_non_null(out); assert_non_null(one); assert_non_null(want);
    memset(&nd, 0, sizeof nd);
    nd.type = type; nd.dim = p->dim; nd.eps = 1e-5; nd.n_trans = T;
    memcpy(nd.modes, p->modes, sizeof nd.modes);
    cshape[0] = T; cshape[1] = p->m;
    fshape[0] = T; memcpy(fshape + 1, p->modes, 3 * sizeof(size_t));
    assert_int_equal(hst_nufft_plan_create(be, &nd, &plan), HST_SUCCESS);
    assert_int_equal(hst_nufft_set_points(plan, p->m, (const float *const *)p->coords), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C64, 2, cshape, &c), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C64, 1 + p->dim, fshape, &f), HST_SUCCESS);
    assert_int_equal(hst_array_write(type == 1 ? c : f, in, 2 * T * nin * sizeof(float)), HST_SUCCESS);
    assert_int_equal(hst_nufft_execute(plan, c, f), HST_SUCCESS);
    assert_int_equal(hst_array_read(type == 1 ? f : c, out, 2 * T * nout * sizeof(float)), HST_SUCCESS);
    for (k = 0; k < T; k++) {
        const float *got = out + 2 * k * nout;
        double err;
        direct(p, type, type == 1 ? 1 : -1, in + 2 * k * nin, want);
        err = rel_l2(got, want, nout);
        run_nufft(be, p, type, 0, 1e-5, in + 2 * k * nin, one);
        printf("# %u-D type %d n_trans vector %zu: error %.3g, against one vector %.3g\n", p->dim, type, k,
               err, rel_l2f(got, one, nout));
        assert_true(err <= 1e-4);
        if (exact) assert_memory_equal(got, one, 2 * nout * sizeof(float));
        else assert_true(rel_l2f(got, one, nout) <= 1e-6);
    }
    hst_array_destroy(c);
    hst_array_destroy(f);
    cshape[0] = T - 1;   /* another T; then no batch axis */
    assert_int_equal(hst_array_create(be, HST_C64, 2, cshape, &c), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C64, 1 + p->dim, fshape, &f), HST_SUCCESS);
    assert_int_equal(hst_nufft_execute(plan, c, f), HST_ERROR_SHAPE);
    hst_array_destroy(c);
    assert_int_equal(hst_array_create(be, HST_C64, 1, &cshape[1], &c), HST_SUCCESS);
    assert_int_equal(hst_nufft_execute(plan, c, f), HST_ERROR_SHAPE);
    hst_array_destroy(f);
    assert_int_equal(hst_array_create(be, HST_C64, p->dim, p->modes, &f), HST_SUCCESS);
    assert_int_equal(hst_nufft_execute(plan, c, f), HST_ERROR_SHAPE);
    hst_array_destroy(c);
    hst_array_destroy(f);
    hst_nufft_plan_destroy(plan);
    free(in); free(out); free(one); free(want);
}

static void test_batched(void **state) {
    problem p;
    int type;
    problem_make(&p, 2, 24, 17, 1, 500);
    for (type = 1; type <= 2; type++) check_batched(BE(state), &p, type);
    problem_free(&p);
    problem_make(&p, 3, 10, 7, 12, 300);
    for (type = 1; type <= 2; type++) check_batched(BE(state), &p, type);
    problem_free(&p);
    assert_int_equal(LOG(state)->last_item, HST_LOGITEM_SHAPE_MISMATCH);
    assert_non_null(strstr(LOG(state)->last_message, "n_trans"));
}

/* Type 2's bins (nufft.h's hst__nu_bin: a sort only): 2^2 and 2^3 on OpenCL devices, the host's
   32^2 and 2^3, each edge doubled until the fine grid has at most HST__NU_MAX_SORT_BINS bins;
   type 1's tiles are not capped. nf: axes 0-2, axis 0 of a 2-D grid 1. */
static void test_sort_bins(void **state) {
    static const int32_t g128[3] = {128, 128, 128}, g1024[3] = {1024, 1024, 1024}, g2d[3] = {1, 512, 512},
                         g2d_big[3] = {1, 16384, 16384}, g2d_over[3] = {1, 16386, 16384};
    hst_nufft_desc d;
    (void)state;
    memset(&d, 0, sizeof d);
    d.type = 2; d.dim = 3;
    assert_int_equal(hst__nu_bin(0, &d, g128), 2);
    assert_int_equal(hst__nu_bin(1, &d, g128), 2);
    assert_int_equal(hst__nu_bin(0, &d, g1024), 8);     /* 512^3 and 256^3 bins are over 2^22 */
    assert_int_equal(hst__nu_bin(1, &d, g1024), 8);
    d.dim = 2;
    assert_int_equal(hst__nu_bin(0, &d, g2d), 2);
    assert_int_equal(hst__nu_bin(1, &d, g2d), 32);
    assert_int_equal(hst__nu_bin(0, &d, g2d_big), 8);   /* 2048^2 bins: exactly 2^22 */
    assert_int_equal(hst__nu_bin(0, &d, g2d_over), 16); /* one row of bins more: 2049 x 2048 */
    d.type = 1;
    assert_int_equal(hst__nu_bin(0, &d, g2d_big), HST__NU_BIN_2D);
    d.dim = 3;
    assert_int_equal(hst__nu_bin(0, &d, g1024), HST__NU_BIN_3D);
    assert_int_equal(hst__nu_bin(1, &d, g1024), HST__NU_HOST_BIN_3D);
}

static void test_errors(void **state) {
    hst_backend *be = BE(state);
    cap_log *log = LOG(state);
    hst_nufft_desc nd, bad;
    hst_nufft_plan *plan = NULL;
    hst_array *c = NULL, *f = NULL, *c32 = NULL, *fwrong = NULL;
    problem p;
    size_t m = 50, wrong[2] = {16, 15};
    hst_nufft_info info;
    problem_make(&p, 2, 16, 16, 1, m);
    memset(&nd, 0, sizeof nd);
    nd.type = 1; nd.dim = 2; nd.modes[0] = 16; nd.modes[1] = 16;
    assert_int_equal(hst_nufft_plan_create(NULL, &nd, &plan), HST_ERROR_INVALID_ARGUMENT);
    cap_reset(log);
    assert_int_equal(hst_nufft_plan_create(be, NULL, &plan), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(log->last_item, HST_LOGITEM_NULL_ARGUMENT);
    assert_int_equal(hst_nufft_plan_create(be, &nd, NULL), HST_ERROR_INVALID_ARGUMENT);
    bad = nd; bad.type = 3;
    assert_int_equal(hst_nufft_plan_create(be, &bad, &plan), HST_ERROR_INVALID_ARGUMENT);
    assert_null(plan);
    assert_int_equal(log->last_item, HST_LOGITEM_OUT_OF_RANGE);
    assert_non_null(strstr(log->last_message, "type"));
    bad = nd; bad.dim = 1;
    assert_int_equal(hst_nufft_plan_create(be, &bad, &plan), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(log->last_item, HST_LOGITEM_OUT_OF_RANGE);
    bad = nd; bad.modes[1] = 0;
    assert_int_equal(hst_nufft_plan_create(be, &bad, &plan), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(log->last_item, HST_LOGITEM_ZERO_SIZE);
    assert_int_equal(log->last_item, HST_LOGITEM_ZERO_SIZE);
    bad = nd; bad.eps = 1e-8;
    assert_int_equal(hst_nufft_plan_create(be, &bad, &plan), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(log->last_item, HST_LOGITEM_OUT_OF_RANGE);
    assert_non_null(strstr(log->last_message, "eps"));
    bad.eps = NAN;
    assert_int_equal(hst_nufft_plan_create(be, &bad, &plan), HST_ERROR_INVALID_ARGUMENT);
    bad.eps = 0.5;
    assert_int_equal(hst_nufft_plan_create(be, &bad, &plan), HST_ERROR_INVALID_ARGUMENT);
    bad = nd; bad.isign = 2;
    assert_int_equal(hst_nufft_plan_create(be, &bad, &plan), HST_ERROR_INVALID_ARGUMENT);
    bad = nd; bad.modes[0] = (size_t)1 << 40;
    cap_reset(log);
    assert_int_equal(hst_nufft_plan_create(be, &bad, &plan), HST_ERROR_OVERFLOW);
    assert_int_equal(log->last_item, HST_LOGITEM_SIZE_OVERFLOW);
    bad = nd; bad.modes[0] = 40000; bad.modes[1] = 40000;   /* each fine, the product not */
    assert_int_equal(hst_nufft_plan_create(be, &bad, &plan), HST_ERROR_OVERFLOW);
    assert_null(plan);

    assert_int_equal(hst_nufft_plan_create(be, &nd, &plan), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C64, 1, &m, &c), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C64, 2, p.modes, &f), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_F32, 1, &m, &c32), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C64, 2, wrong, &fwrong), HST_SUCCESS);
    cap_reset(log);
    assert_int_equal(hst_nufft_execute(plan, c, f), HST_ERROR_INVALID_ARGUMENT);   /* no points */
    assert_int_equal(log->last_item, HST_LOGITEM_BAD_STATE);
    assert_int_equal(hst_nufft_set_points(NULL, m, (const float *const *)p.coords), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_nufft_set_points(plan, m, NULL), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_nufft_set_points(plan, 0, (const float *const *)p.coords), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_nufft_set_points(plan, (size_t)1 << 40, (const float *const *)p.coords), HST_ERROR_OVERFLOW);
    p.coords[1][3] = NAN;
    cap_reset(log);
    assert_int_equal(hst_nufft_set_points(plan, m, (const float *const *)p.coords), HST_ERROR_NON_FINITE);
    assert_int_equal(log->last_item, HST_LOGITEM_NON_FINITE);
    assert_non_null(strstr(log->last_message, "coords[1][3]"));
    p.coords[1][3] = (float)(3.5 * PI);
    assert_int_equal(hst_nufft_set_points(plan, m, (const float *const *)p.coords), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(log->last_item, HST_LOGITEM_OUT_OF_RANGE);
    p.coords[1][3] = 0.5f;
    assert_int_equal(hst_nufft_plan_info(plan, &info), HST_SUCCESS);
    assert_int_equal(info.num_points, 0);   /* the rejected calls set nothing */
    assert_int_equal(hst_nufft_set_points(plan, m, (const float *const *)p.coords), HST_SUCCESS);
    assert_int_equal(hst_nufft_execute(plan, c32, f), HST_ERROR_DTYPE);
    assert_int_equal(hst_nufft_execute(plan, c, fwrong), HST_ERROR_SHAPE);
    assert_int_equal(hst_nufft_execute(plan, fwrong, f), HST_ERROR_SHAPE);
    assert_int_equal(hst_nufft_execute(plan, NULL, f), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_nufft_execute(NULL, c, f), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_nufft_plan_info(plan, NULL), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_nufft_execute(plan, c, f), HST_SUCCESS);   /* still usable */
    assert_int_equal(hst_nufft_plan_info(plan, &info), HST_SUCCESS);
    assert_int_equal(info.num_points, m);
    assert_true(info.num_subproblems >= 1);
    assert_int_equal(info.method, HST_NUFFT_SPREAD_BINS);   /* AUTO: the tiles fit (PoCL, host) */
    assert_int_equal(info.dtype, HST_C64);
    hst_array_destroy(c); hst_array_destroy(f); hst_array_destroy(c32); hst_array_destroy(fwrong);
    hst_nufft_plan_destroy(plan);
    hst_nufft_plan_destroy(NULL);
    problem_free(&p);
}

/* complex128 plans (desc.dtype HST_C128, FINUFFT's double precision): the points, the
   kernel, the fine grid and its FFT in double. Accuracy bound: relative l2 error against the
   direct sums <= C128_BOUND eps at eps 1e-6, 1e-9, 1e-12 (FINUFFT's promise is about eps;
   the factor leaves room for the problems' small sizes); devices agree within C128_AGREE_TOL
   (the same operations but the FFTs, FFTW against VkFFT, and type 1's atomic adds: a few
   ulp of double). */
#define C128_BOUND 10.0
#define C128_AGREE_TOL 1e-13

/* A problem whose points are doubles (edges -pi, pi - ulp, +-3 pi's range and 0 first). */
typedef struct problem64 { problem p; double *x[3]; } problem64;

static void problem64_make(problem64 *q, unsigned dim, size_t n0, size_t n1, size_t n2, size_t m) {
    unsigned d;
    size_t j;
    problem_make(&q->p, dim, n0, n1, n2, m);
    memset(q->x, 0, sizeof q->x);
    for (d = 0; d < dim; d++) {
        q->x[d] = (double *)malloc(m * sizeof(double));
        assert_non_null(q->x[d]);
        for (j = 0; j < m; j++) q->x[d][j] = PI * (2.0 * uniform() - 1.0);
        q->x[d][0] = -PI;
        q->x[d][1] = nextafter(PI, 0.0);
        q->x[d][2] = 3.0 * PI * (2.0 * uniform() - 1.0);
        q->x[d][3] = 0.0;
    }
}

static void problem64_free(problem64 *q) {
    unsigned d;
    for (d = 0; d < q->p.dim; d++) free(q->x[d]);
    problem_free(&q->p);
}

static double *random_complex_d(size_t n) {
    double *v = (double *)malloc(2 * n * sizeof(double));
    size_t i;
    assert_non_null(v);
    for (i = 0; i < 2 * n; i++) v[i] = 2.0 * uniform() - 1.0;
    return v;
}

static double rel_l2d(const double *got, const double *want, size_t n) {
    double e = 0.0, w = 0.0;
    size_t i;
    for (i = 0; i < 2 * n; i++) { e += (got[i] - want[i]) * (got[i] - want[i]); w += want[i] * want[i]; }
    return sqrt(e / w);
}

/* One c128 transform of T vectors (T 1: no batch axis) on be, in -> out (host memory). */
static void run_c128(hst_backend *be, const problem64 *q, int type, double eps, size_t t,
                     const double *in, double *out) {
    const problem *p = &q->p;
    hst_nufft_desc nd;
    hst_nufft_plan *plan = NULL;
    hst_array *c = NULL, *f = NULL;
    size_t cshape[2], fshape[4], lead = t > 1, nin, nout;
    memset(&nd, 0, sizeof nd);
    nd.type = type; nd.dim = p->dim; nd.eps = eps; nd.n_trans = t; nd.dtype = HST_C128;
    nd.method = spread_method;
    memcpy(nd.modes, p->modes, sizeof nd.modes);
    cshape[0] = t; cshape[1] = p->m;
    fshape[0] = t; memcpy(fshape + 1, p->modes, 3 * sizeof(size_t));
    nin = t * (type == 1 ? p->m : p->nmodes);
    nout = t * (type == 1 ? p->nmodes : p->m);
    assert_int_equal(hst_nufft_plan_create(be, &nd, &plan), HST_SUCCESS);
    assert_int_equal(hst_nufft_set_points_f64(plan, p->m, (const double *const *)q->x), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C128, 1 + (unsigned)lead, cshape + 1 - lead, &c), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C128, p->dim + (unsigned)lead, fshape + 1 - lead, &f), HST_SUCCESS);
    assert_int_equal(hst_array_write(type == 1 ? c : f, in, 2 * nin * sizeof(double)), HST_SUCCESS);
    assert_int_equal(hst_nufft_execute(plan, c, f), HST_SUCCESS);
    assert_int_equal(hst_array_read(type == 1 ? f : c, out, 2 * nout * sizeof(double)), HST_SUCCESS);
    hst_array_destroy(c);
    hst_array_destroy(f);
    hst_nufft_plan_destroy(plan);
}

/* The device's refusal of c128 where it has no fp64 (no device here lacks it: then skipped). */
static int c128_refused(hst_backend *be, cap_log *log) {
    hst_nufft_desc nd;
    hst_nufft_plan *plan = NULL;
    if (hst_backend_device(be)->fp64) return 0;
    memset(&nd, 0, sizeof nd);
    nd.type = 1; nd.dim = 2; nd.modes[0] = nd.modes[1] = 8; nd.dtype = HST_C128;
    assert_int_equal(hst_nufft_plan_create(be, &nd, &plan), HST_ERROR_DTYPE);
    assert_non_null(strstr(log->last_message, "c128"));
    return 1;
}

static void check_c128_accuracy(hst_backend *be, const problem64 *q) {
    static const double eps[] = {1e-6, 1e-9, 1e-12};
    const problem *p = &q->p;
    size_t e, n = p->m > p->nmodes ? p->m : p->nmodes;
    double *c = random_complex_d(p->m), *f = random_complex_d(p->nmodes);
    double *out = (double *)malloc(2 * n * sizeof(double));
    double *want1 = (double *)malloc(2 * p->nmodes * sizeof(double)), *want2 = (double *)malloc(2 * p->m * sizeof(double));
    assert_non_null(out); assert_non_null(want1); assert_non_null(want2);
    direct_d(p, (const double *const *)q->x, 1, 1, c, want1);
    direct_d(p, (const double *const *)q->x, 2, -1, f, want2);
    for (e = 0; e < sizeof eps / sizeof eps[0]; e++) {
        double err1, err2;
        run_c128(be, q, 1, eps[e], 1, c, out);
        err1 = rel_l2d(out, want1, p->nmodes);
        run_c128(be, q, 2, eps[e], 1, f, out);
        err2 = rel_l2d(out, want2, p->m);
        printf("# c128 %u-D eps %.0e: type 1 error %.3g, type 2 error %.3g (bound %.0e)\n", p->dim, eps[e],
               err1, err2, C128_BOUND * eps[e]);
        assert_true(err1 <= C128_BOUND * eps[e]);
        assert_true(err2 <= C128_BOUND * eps[e]);
    }
    free(c); free(f); free(out); free(want1); free(want2);
}

static void test_c128_accuracy(void **state) {
    problem64 q;
    if (c128_refused(BE(state), LOG(state))) return;
    problem64_make(&q, 2, 24, 17, 1, 600);
    check_c128_accuracy(BE(state), &q);
    problem64_free(&q);
    problem64_make(&q, 3, 10, 7, 12, 300);
    check_c128_accuracy(BE(state), &q);
    problem64_free(&q);
}

/* n_trans in c128: each vector within the bound of its direct sum, and the bits of a single
   execute (type 1 on OpenCL devices: atomics, within C128_AGREE_TOL). */
static void check_c128_batched(hst_backend *be, const problem64 *q, int type) {
    enum { T = 3 };
    const problem *p = &q->p;
    size_t nin = type == 1 ? p->m : p->nmodes, nout = type == 1 ? p->nmodes : p->m, k;
    double *in = random_complex_d(T * nin), *out = (double *)malloc(2 * T * nout * sizeof(double));
    double *one = (double *)malloc(2 * nout * sizeof(double)), *want = (double *)malloc(2 * nout * sizeof(double));
    int exact = type == 2 || hst_backend_is_host(be);
    assert_non_null(out); assert_non_null(one); assert_non_null(want);
    run_c128(be, q, type, 1e-9, T, in, out);
    for (k = 0; k < T; k++) {
        const double *got = out + 2 * k * nout;
        double err;
        direct_d(p, (const double *const *)q->x, type, type == 1 ? 1 : -1, in + 2 * k * nin, want);
        err = rel_l2d(got, want, nout);
        run_c128(be, q, type, 1e-9, 1, in + 2 * k * nin, one);
        printf("# c128 %u-D type %d n_trans vector %zu: error %.3g, against one vector %.3g\n", p->dim, type,
               k, err, rel_l2d(got, one, nout));
        assert_true(err <= C128_BOUND * 1e-9);
        if (exact) assert_memory_equal(got, one, 2 * nout * sizeof(double));
        else assert_true(rel_l2d(got, one, nout) <= C128_AGREE_TOL);
    }
    free(in); free(out); free(one); free(want);
}

static void test_c128_batched(void **state) {
    problem64 q;
    int type;
    if (c128_refused(BE(state), LOG(state))) return;
    problem64_make(&q, 2, 24, 17, 1, 500);
    for (type = 1; type <= 2; type++) check_c128_batched(BE(state), &q, type);
    problem64_free(&q);
    problem64_make(&q, 3, 10, 7, 12, 300);
    for (type = 1; type <= 2; type++) check_c128_batched(BE(state), &q, type);
    problem64_free(&q);
}

/* The host device's c128 twins and the device under test, eps 1e-12 (width 13: 16 lanes). */
static void test_c128_devices_agree(void **state) {
    hst_backend *host;
    problem64 q;
    unsigned dim;
    if (c128_refused(BE(state), LOG(state))) return;
    host = host_backend();
    for (dim = 2; dim <= 3; dim++) {
        double *c, *f, *a, *b, d1, d2;
        size_t n;
        if (dim == 2) problem64_make(&q, 2, 64, 48, 1, 20000);
        else problem64_make(&q, 3, 16, 20, 12, 20000);
        n = q.p.m > q.p.nmodes ? q.p.m : q.p.nmodes;
        c = random_complex_d(q.p.m); f = random_complex_d(q.p.nmodes);
        a = (double *)malloc(2 * n * sizeof(double));
        b = (double *)malloc(2 * n * sizeof(double));
        assert_non_null(a); assert_non_null(b);
        run_c128(host, &q, 1, 1e-12, 1, c, a);
        run_c128(BE(state), &q, 1, 1e-12, 1, c, b);
        d1 = rel_l2d(b, a, q.p.nmodes);
        run_c128(host, &q, 2, 1e-12, 1, f, a);
        run_c128(BE(state), &q, 2, 1e-12, 1, f, b);
        d2 = rel_l2d(b, a, q.p.m);
        printf("# c128 %u-D host vs device: type 1 %.3g, type 2 %.3g\n", dim, d1, d2);
        assert_true(d1 <= C128_AGREE_TOL);
        assert_true(d2 <= C128_AGREE_TOL);
        free(c); free(f); free(a); free(b);
        problem64_free(&q);
    }
    assert_int_equal(hst_backend_destroy(host), HST_SUCCESS);
}

/* Type 1's global-memory spreading (desc.method GLOBAL: the kernel on OpenCL devices, its twin
   on the host device), c64 at eps 1e-6 and c128 at 1e-12, 3-D: within the accuracy bounds
   of the direct sums and within the devices' agreement of the host device's bins. */
static void test_spread_global(void **state) {
    hst_backend *host;
    problem64 q;
    hst_nufft_desc nd;
    hst_nufft_plan *plan = NULL;
    hst_nufft_info info;
    size_t nm;
    float *c32, *a32, *b32;
    double *c, *a, *b, *want, *want32, e32, e64, d32, d64;
    host = host_backend();
    problem64_make(&q, 3, 10, 7, 12, 3000);
    for (nm = 0; nm < q.p.m; nm++) {   /* the float points, for the c64 transform's direct sum */
        unsigned d;
        for (d = 0; d < 3; d++) q.p.coords[d][nm] = (float)q.x[d][nm];
    }
    nm = q.p.nmodes;
    c32 = random_complex(q.p.m); c = to_double(c32, 2 * q.p.m);
    a32 = (float *)malloc(2 * nm * sizeof(float)); b32 = (float *)malloc(2 * nm * sizeof(float));
    a = (double *)malloc(2 * nm * sizeof(double)); b = (double *)malloc(2 * nm * sizeof(double));
    want = (double *)malloc(2 * nm * sizeof(double)); want32 = (double *)malloc(2 * nm * sizeof(double));
    assert_non_null(a32); assert_non_null(b32); assert_non_null(a); assert_non_null(b);
    assert_non_null(want); assert_non_null(want32);
    direct(&q.p, 1, 1, c32, want32);
    run_nufft(host, &q.p, 1, 0, 1e-6, c32, a32);   /* bins */
    spread_method = HST_NUFFT_SPREAD_GLOBAL;
    run_nufft(BE(state), &q.p, 1, 0, 1e-6, c32, b32);
    spread_method = HST_NUFFT_SPREAD_AUTO;
    e32 = rel_l2(b32, want32, nm);
    d32 = rel_l2f(b32, a32, nm);
    e64 = d64 = 0.0;
    if (hst_backend_device(BE(state))->fp64) {
        direct_d(&q.p, (const double *const *)q.x, 1, 1, c, want);
        run_c128(host, &q, 1, 1e-12, 1, c, a);
        spread_method = HST_NUFFT_SPREAD_GLOBAL;
        run_c128(BE(state), &q, 1, 1e-12, 1, c, b);
        spread_method = HST_NUFFT_SPREAD_AUTO;
        e64 = rel_l2d(b, want, nm);
        d64 = rel_l2d(b, a, nm);
    }
    printf("# global spreading, 3-D: c64 error %.3g (against bins %.3g), c128 error %.3g (against bins %.3g)\n",
           e32, d32, e64, d64);
    assert_true(e32 <= 10 * 1e-6);
    assert_true(d32 <= AGREE_TOL);
    assert_true(e64 <= C128_BOUND * 1e-12);
    assert_true(d64 <= C128_AGREE_TOL);
    memset(&nd, 0, sizeof nd);
    nd.type = 1; nd.dim = 2; nd.modes[0] = nd.modes[1] = 8; nd.method = 3;
    assert_int_equal(hst_nufft_plan_create(BE(state), &nd, &plan), HST_ERROR_INVALID_ARGUMENT);
    assert_non_null(strstr(LOG(state)->last_message, "method"));
    nd.method = HST_NUFFT_SPREAD_GLOBAL;
    assert_int_equal(hst_nufft_plan_create(BE(state), &nd, &plan), HST_SUCCESS);
    assert_int_equal(hst_nufft_plan_info(plan, &info), HST_SUCCESS);
    assert_int_equal(info.method, HST_NUFFT_SPREAD_GLOBAL);
    hst_nufft_plan_destroy(plan);
    free(c32); free(a32); free(b32); free(c); free(a); free(b); free(want); free(want32);
    problem64_free(&q);
    assert_int_equal(hst_backend_destroy(host), HST_SUCCESS);
}

/* c128's refusals: a dtype other than c64/c128, eps below double's floor, mixed or wrong
   array dtypes, bad double points; and hst_nufft_set_points_f64 on a c64 plan: the bits of
   hst_nufft_set_points with the same (float-exact) points. */
static void test_c128_errors(void **state) {
    hst_backend *be = BE(state);
    cap_log *log = LOG(state);
    hst_nufft_desc nd, bad;
    hst_nufft_plan *plan = NULL, *p32 = NULL;
    hst_array *c = NULL, *f = NULL, *c64 = NULL, *f64 = NULL, *c2 = NULL;
    problem64 q;
    double *xd[2];
    float *fv, *o1, *o2;
    size_t m = 50, j;
    if (c128_refused(be, log)) return;
    problem64_make(&q, 2, 16, 16, 1, m);
    memset(&nd, 0, sizeof nd);
    nd.type = 2; nd.dim = 2; nd.modes[0] = 16; nd.modes[1] = 16; nd.dtype = HST_C128;
    bad = nd; bad.dtype = HST_F64;
    cap_reset(log);
    assert_int_equal(hst_nufft_plan_create(be, &bad, &plan), HST_ERROR_DTYPE);
    assert_int_equal(log->last_item, HST_LOGITEM_DTYPE);
    assert_non_null(strstr(log->last_message, "dtype"));
    bad = nd; bad.eps = 1e-15;
    assert_int_equal(hst_nufft_plan_create(be, &bad, &plan), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(log->last_item, HST_LOGITEM_OUT_OF_RANGE);
    assert_non_null(strstr(log->last_message, "eps"));
    assert_null(plan);
    bad.eps = 1e-14;   /* double's floor: taken (width 15) */
    assert_int_equal(hst_nufft_plan_create(be, &bad, &plan), HST_SUCCESS);
    hst_nufft_plan_destroy(plan);
    plan = NULL;
    assert_int_equal(hst_nufft_plan_create(be, &nd, &plan), HST_SUCCESS);
    {
        hst_nufft_info info;
        assert_int_equal(hst_nufft_plan_info(plan, &info), HST_SUCCESS);
        assert_int_equal(info.dtype, HST_C128);
        assert_int_equal(info.width, 7);   /* eps 0: 1e-6 */
    }
    assert_int_equal(hst_nufft_set_points_f64(plan, m, NULL), HST_ERROR_INVALID_ARGUMENT);
    q.x[1][3] = NAN;
    assert_int_equal(hst_nufft_set_points_f64(plan, m, (const double *const *)q.x), HST_ERROR_NON_FINITE);
    assert_non_null(strstr(log->last_message, "coords[1][3]"));
    q.x[1][3] = 3.5 * PI;
    assert_int_equal(hst_nufft_set_points_f64(plan, m, (const double *const *)q.x), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(log->last_item, HST_LOGITEM_OUT_OF_RANGE);
    q.x[1][3] = 0.5;
    assert_int_equal(hst_nufft_set_points_f64(plan, m, (const double *const *)q.x), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C128, 1, &m, &c), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C128, 2, q.p.modes, &f), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C64, 1, &m, &c64), HST_SUCCESS);
    assert_int_equal(hst_array_create(be, HST_C64, 2, q.p.modes, &f64), HST_SUCCESS);
    cap_reset(log);
    assert_int_equal(hst_nufft_execute(plan, c64, f), HST_ERROR_DTYPE);   /* mixed */
    assert_non_null(strstr(log->last_message, "c128"));
    assert_int_equal(hst_nufft_execute(plan, c, f64), HST_ERROR_DTYPE);
    assert_int_equal(hst_nufft_execute(plan, c64, f64), HST_ERROR_DTYPE);
    assert_int_equal(hst_nufft_execute(plan, c, f), HST_SUCCESS);   /* still usable */
    nd.dtype = HST_C64;   /* a c64 plan refuses c128 arrays; f64 points give the f32 points' bits */
    assert_int_equal(hst_nufft_plan_create(be, &nd, &p32), HST_SUCCESS);
    for (j = 0; j < 2; j++) {
        size_t i;
        xd[j] = (double *)malloc(m * sizeof(double));
        assert_non_null(xd[j]);
        for (i = 0; i < m; i++) xd[j][i] = q.p.coords[j][i];
    }
    assert_int_equal(hst_nufft_set_points_f64(p32, m, (const double *const *)xd), HST_SUCCESS);
    assert_int_equal(hst_nufft_execute(p32, c, f), HST_ERROR_DTYPE);
    assert_non_null(strstr(log->last_message, "c64"));
    fv = random_complex(q.p.nmodes);
    o1 = (float *)malloc(2 * m * sizeof(float));
    o2 = (float *)malloc(2 * m * sizeof(float));
    assert_non_null(o1); assert_non_null(o2);
    assert_int_equal(hst_array_create(be, HST_C64, 1, &m, &c2), HST_SUCCESS);
    assert_int_equal(hst_array_write(f64, fv, 2 * q.p.nmodes * sizeof(float)), HST_SUCCESS);
    assert_int_equal(hst_nufft_execute(p32, c2, f64), HST_SUCCESS);
    assert_int_equal(hst_array_read(c2, o1, 2 * m * sizeof(float)), HST_SUCCESS);
    run_nufft(be, &q.p, 2, 0, 1e-6, fv, o2);
    assert_memory_equal(o1, o2, 2 * m * sizeof(float));
    hst_array_destroy(c); hst_array_destroy(f); hst_array_destroy(c64); hst_array_destroy(f64);
    hst_array_destroy(c2);
    hst_nufft_plan_destroy(plan);
    hst_nufft_plan_destroy(p32);
    free(xd[0]); free(xd[1]); free(fv); free(o1); free(o2);
    problem64_free(&q);
}

/* The backend's host allocator, failing once `allowed` calls have been made. */
typedef struct counting_alloc { size_t calls, allowed, allocs, frees; } counting_alloc;

static void *counting_alloc_fn(size_t bytes, void *user) {
    counting_alloc *c = (counting_alloc *)user;
    void *p;
    if (c->calls++ >= c->allowed) return NULL;
    if ((p = malloc(bytes)) != NULL) c->allocs++;
    return p;
}

static void counting_free_fn(void *ptr, void *user) {
    counting_alloc *c = (counting_alloc *)user;
    if (ptr) { c->frees++; free(ptr); }
}

/* Type 2 on p with a fresh plan and arrays; the result's relative error against want, or the
   first failure's code. */
static hst_result oom_attempt(hst_backend *be, const problem *p, const float *fv, const double *want,
                              float *out, double *err) {
    hst_nufft_desc nd;
    hst_nufft_plan *plan = NULL;
    hst_array *c = NULL, *f = NULL;
    size_t m = p->m;
    hst_result r;
    memset(&nd, 0, sizeof nd);
    nd.type = 2; nd.dim = 2; nd.modes[0] = p->modes[0]; nd.modes[1] = p->modes[1];
    r = hst_nufft_plan_create(be, &nd, &plan);
    if (r == HST_SUCCESS) r = hst_nufft_set_points(plan, m, (const float *const *)p->coords);
    if (r == HST_SUCCESS) r = hst_array_create(be, HST_C64, 1, &m, &c);
    if (r == HST_SUCCESS) r = hst_array_create(be, HST_C64, 2, p->modes, &f);
    if (r == HST_SUCCESS) r = hst_array_write(f, fv, 2 * p->nmodes * sizeof(float));
    if (r == HST_SUCCESS) r = hst_nufft_execute(plan, c, f);
    if (r == HST_SUCCESS) r = hst_array_read(c, out, 2 * m * sizeof(float));
    if (r == HST_SUCCESS) *err = rel_l2(out, want, m);
    hst_array_destroy(c);
    hst_array_destroy(f);
    hst_nufft_plan_destroy(plan);
    return r;
}

static void test_out_of_memory(void **state) {
    counting_alloc ca;
    cap_log log;
    hst_backend_desc desc = cap_desc(&log);
    hst_backend *be;
    problem p, q;
    size_t k, m = 300;
    int failures = 0, done = 0;
    float *fv, *out = (float *)malloc(2 * m * sizeof(float));
    double *want = (double *)malloc(2 * m * sizeof(double)), err = 1.0;
    (void)state;
    memset(&ca, 0, sizeof ca);
    ca.allowed = (size_t)-1;
    desc.allocator.alloc = counting_alloc_fn;
    desc.allocator.free = counting_free_fn;
    desc.allocator.user = &ca;
    assert_int_equal(hst_backend_create(&desc, &be), HST_SUCCESS);
    problem_make(&p, 2, 16, 12, 1, m);
    problem_make(&q, 2, 16, 12, 1, m);
    fv = random_complex(p.nmodes);
    direct(&p, 2, -1, fv, want);
    for (k = 0; k < 400 && !done; k++) {   /* k more allocations allowed */
        hst_result r;
        ca.allowed = ca.calls + k;
        r = oom_attempt(be, &p, fv, want, out, &err);
        ca.allowed = (size_t)-1;
        if (r == HST_SUCCESS) { done = 1; assert_true(err <= 1e-5); }
        else { assert_int_equal(r, HST_ERROR_OUT_OF_HOST_MEMORY); failures++; }
    }
    assert_true(done);
    assert_true(failures >= 1);
    {   /* set_points fails: the plan keeps the previous points */
        hst_nufft_desc nd;
        hst_nufft_plan *plan = NULL;
        hst_array *c = NULL, *f = NULL;
        memset(&nd, 0, sizeof nd);
        nd.type = 2; nd.dim = 2; nd.modes[0] = 16; nd.modes[1] = 12;
        assert_int_equal(hst_nufft_plan_create(be, &nd, &plan), HST_SUCCESS);
        assert_int_equal(hst_nufft_set_points(plan, m, (const float *const *)p.coords), HST_SUCCESS);
        assert_int_equal(hst_array_create(be, HST_C64, 1, &m, &c), HST_SUCCESS);
        assert_int_equal(hst_array_create(be, HST_C64, 2, p.modes, &f), HST_SUCCESS);
        ca.allowed = ca.calls + 1;
        assert_int_equal(hst_nufft_set_points(plan, m, (const float *const *)q.coords), HST_ERROR_OUT_OF_HOST_MEMORY);
        ca.allowed = (size_t)-1;
        assert_int_equal(hst_array_write(f, fv, 2 * p.nmodes * sizeof(float)), HST_SUCCESS);
        assert_int_equal(hst_nufft_execute(plan, c, f), HST_SUCCESS);
        assert_int_equal(hst_array_read(c, out, 2 * m * sizeof(float)), HST_SUCCESS);
        assert_true(rel_l2(out, want, m) <= 1e-5);
        hst_array_destroy(c); hst_array_destroy(f);
        hst_nufft_plan_destroy(plan);
    }
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
    if (ca.allocs != ca.frees) fail_msg("%zu allocations, %zu frees", ca.allocs, ca.frees);
    problem_free(&p); problem_free(&q);
    free(fv); free(out); free(want);
}

/* ------------------------------------------------------------------------------------------
   Interpolation's kernels (interp, and interp_lanes, the GPUs') against their twin, bit for bit:
   the same inputs (random grid, taps' polynomials and points, the edges of the periodic wrap
   included) through hst_launch_kernel on the device under test and on the host device (whose
   twin interpolates pairs of points with their rows interleaved, one point at a time where
   either crosses the grid's edge). */
#define TWIN_M 1001u

typedef struct twin_case {
    unsigned dim, w;
    int32_t nf[3];
    size_t real;   /* 4: c64, 8: c128 */
} twin_case;

/* n reals of v (double) as the case's real type, into an array of be. */
static hst_array *reals_array(hst_backend *be, size_t real, const double *v, size_t n) {
    hst_array *a = NULL;
    size_t i;
    float *f = (float *)malloc(n * sizeof(float));
    assert_non_null(f);
    for (i = 0; i < n; i++) f[i] = (float)v[i];
    assert_int_equal(hst_array_from_host(be, real == 4 ? HST_F32 : HST_F64, 1, &n,
                                         real == 4 ? (const void *)f : (const void *)v, &a), HST_SUCCESS);
    free(f);
    return a;
}

static hst_array *ints_array(hst_backend *be, hst_dtype dt, const void *v, size_t n) {
    hst_array *a = NULL;
    assert_int_equal(hst_array_from_host(be, dt, 1, &n, v, &a), HST_SUCCESS);
    return a;
}

/* A 1-D launch of the family's kernel id (c64's; the c128 twin where real is 8) built for widths
   w0 and w, its options written into options (n chars), its args a[0..nargs). */
static void kernel_desc(hst_launch_desc *d, char *options, size_t n, int w0, unsigned w, size_t real, unsigned id,
                        hst_karg *a, size_t nargs) {
    snprintf(options, n, "-D HST_NU_W0=%d -D HST_NU_W=%u -D HST_NU_DEG=%d%s", w0, w, HST_K_NUFFT_DEGREE((int)w),
             real == 8 ? " -D HST_NU_F64" : "");
    memset(d, 0, sizeof *d);
    d->family = hst_kernels_nufft_family();
    d->options = options;
    d->kernel = id + (real == 8 ? HST_KNUFFT_F64 : 0);
    d->range.dims = 1;
    d->args = a;
    d->num_args = nargs;
}

/* A case's points and kernel (kernels_nufft.h's conventions: off in [-w/2, -w/2 + 1), the taps
   past w zero, a 2-D problem's axis 0 the constant 1; bins of 8 along each axis, g.sf points a
   subproblem at most; perm a random permutation). */
typedef struct twin_in {
    int32_t g[16], *base;
    uint32_t *perm, *bin_start, *sub_bin, *sub_first;   /* spreading's (else NULL) */
    double *off, *coef;
    size_t ncoef, nsub;
    unsigned lanes;
} twin_in;

/* Spreading's bins: the points sorted by bin (base and off reordered), bin_start (a bin's first
   sorted point, and m at the end), the subproblems (a bin's points, g.sf at most each). */
static void twin_bins(twin_in *in) {
    size_t m = TWIN_M, nb = (size_t)in->g[6] * (size_t)in->g[7] * (size_t)in->g[8], j, b, a;
    uint32_t *bin = (uint32_t *)malloc(m * sizeof(uint32_t)), *next = (uint32_t *)malloc(nb * sizeof(uint32_t));
    int32_t *base = (int32_t *)malloc(3 * m * sizeof(int32_t));
    double *off = (double *)malloc(3 * m * sizeof(double));
    in->bin_start = (uint32_t *)calloc(nb + 1, sizeof(uint32_t));
    in->sub_bin = (uint32_t *)malloc(m * sizeof(uint32_t));
    in->sub_first = (uint32_t *)malloc(m * sizeof(uint32_t));
    assert_true(bin && next && base && off && in->bin_start && in->sub_bin && in->sub_first);
    for (j = 0; j < m; j++) {
        for (a = 0, bin[j] = 0; a < 3; a++)   /* the point at base + w/2, in [0, nf) */
            bin[j] = bin[j] * (uint32_t)in->g[6 + a] + (uint32_t)((in->base[a * m + j] + in->g[9 + a] / 2) / in->g[3 + a]);
        in->bin_start[bin[j] + 1]++;
    }
    for (b = 0; b < nb; b++) in->bin_start[b + 1] += in->bin_start[b];
    memcpy(next, in->bin_start, nb * sizeof(uint32_t));
    for (j = 0; j < m; j++) {
        uint32_t k = next[bin[j]]++;
        for (a = 0; a < 3; a++) { base[a * m + k] = in->base[a * m + j]; off[a * m + k] = in->off[a * m + j]; }
    }
    for (b = 0, in->nsub = 0; b < nb; b++)
        for (j = in->bin_start[b]; j < in->bin_start[b + 1]; j += (size_t)in->g[15]) {
            in->sub_bin[in->nsub] = (uint32_t)b;
            in->sub_first[in->nsub++] = (uint32_t)j;
        }
    free(in->base); free(in->off); free(bin); free(next);
    in->base = base; in->off = off;
}

/* base in [-w/2, nf) (interp: the periodic edges' first and last included), or, for spreading,
   in [-w/2, nf - w/2) (a point in [0, nf)) and sorted by bin. */
static void twin_inputs(const twin_case *tc, int spread, twin_in *in) {
    unsigned a, k, t, lead = 3 - tc->dim;
    int deg = HST_K_NUFFT_DEGREE((int)tc->w);
    size_t m = TWIN_M, j;
    int32_t *g = in->g;
    in->lanes = tc->real == 4 ? HST_K_NUFFT_LANES : HST_K_NUFFT_LANES_F64;
    in->ncoef = 3 * (size_t)(deg + 1) * in->lanes;
    in->base = (int32_t *)malloc(3 * m * sizeof(int32_t));
    in->perm = (uint32_t *)malloc(m * sizeof(uint32_t));
    in->off = (double *)malloc(3 * m * sizeof(double));
    in->coef = (double *)calloc(in->ncoef, sizeof(double));
    assert_true(in->base && in->perm && in->off && in->coef);
    for (a = 0; a < 3; a++) {
        int real = a >= lead, w = real ? (int)tc->w : 1;
        g[a] = tc->nf[a]; g[3 + a] = real ? 8 : 1; g[6 + a] = (tc->nf[a] + g[3 + a] - 1) / g[3 + a];
        g[9 + a] = w; g[12 + a] = real ? (w + 1) / 2 : 0;
        for (k = 0; k <= (unsigned)deg; k++)
            for (t = 0; t < (unsigned)w; t++)
                in->coef[((size_t)a * (deg + 1) + k) * in->lanes + t] = real ? 2.0 * uniform() - 1.0 : k == (unsigned)deg;
        for (j = 0; j < m; j++) {
            int lo = -w / 2, span = tc->nf[a] - (spread ? 0 : lo);
            in->base[a * m + j] = !real ? 0 : j == 0 ? lo : j == 1 ? lo + span - 1 : lo + (int)(uniform() * span);
            in->off[a * m + j] = real ? -w / 2.0 + uniform() : 0.0;
        }
    }
    g[15] = spread ? 40 : 1024;   /* spreading: several subproblems a bin, the last pass partial */
    for (j = 0; j < m; j++) in->perm[j] = (uint32_t)j;
    for (j = m - 1; j > 0; j--) {   /* Fisher-Yates */
        size_t r = (size_t)(uniform() * (double)(j + 1));
        uint32_t x = in->perm[j]; in->perm[j] = in->perm[r]; in->perm[r] = x;
    }
    in->bin_start = in->sub_bin = in->sub_first = NULL;
    in->nsub = 0;
    if (spread) twin_bins(in);
}

static void twin_inputs_free(twin_in *in) {
    free(in->base); free(in->perm); free(in->off); free(in->coef);
    free(in->bin_start); free(in->sub_bin); free(in->sub_first);
}

/* The case's interpolation on be by kernel id (c64's; HST_KNUFFT_INTERP or _LANES): out gets 2 m
   reals' bytes. */
static void twin_interp(hst_backend *be, const twin_case *tc, unsigned id, const twin_in *in, const double *grid,
                        size_t ngrid, void *out) {
    size_t m = TWIN_M, nc = 2 * m;
    double *cinit = (double *)malloc(nc * sizeof(double));
    hst_array *ab, *ao, *ap, *ag, *ac, *acoef;
    hst_karg a[9];
    hst_launch_desc d;
    char options[96];
    size_t i;
    assert_non_null(cinit);
    for (i = 0; i < nc; i++) cinit[i] = -7.0;
    ab = ints_array(be, HST_I32, in->base, 3 * m);
    ap = ints_array(be, HST_I32, in->perm, m);
    ao = reals_array(be, tc->real, in->off, 3 * m);
    ag = reals_array(be, tc->real, grid, ngrid);
    ac = reals_array(be, tc->real, cinit, nc);
    acoef = reals_array(be, tc->real, in->coef, in->ncoef);
    kernel_desc(&d, options, sizeof options, (int)in->g[9], tc->w, tc->real, id, a, 9);
    a[0] = hst_karg_buffer(hst_array_buffer(ab)); a[1] = hst_karg_buffer(hst_array_buffer(ao));
    a[2] = hst_karg_buffer(hst_array_buffer(ap)); a[3] = hst_karg_buffer(hst_array_buffer(ag));
    a[4] = hst_karg_buffer(hst_array_buffer(ac)); a[5] = hst_karg_uint((uint32_t)m);
    a[6] = hst_karg_value(16 * sizeof(int32_t), in->g); a[7] = hst_karg_buffer(hst_array_buffer(acoef));
    a[8] = hst_karg_ulong(0);
    d.range.global[0] = id == HST_KNUFFT_INTERP ? m : m * (tc->real == 4 ? HST_K_NUFFT_LANES : HST_K_NUFFT_LANES_F64);
    d.range.local[0] = id == HST_KNUFFT_INTERP ? 0 : HST_K_NUFFT_INTERP_GROUP;
    assert_int_equal(hst_launch_kernel(be, &d, NULL), HST_SUCCESS);
    assert_int_equal(hst_array_read(ac, out, nc * tc->real), HST_SUCCESS);
    hst_array_destroy(ab); hst_array_destroy(ao); hst_array_destroy(ap);
    hst_array_destroy(ag); hst_array_destroy(ac); hst_array_destroy(acoef);
    free(cinit);
}

/* The case's inputs run on both backends. */
static void check_interp_twin(hst_backend *be, hst_backend *host, const twin_case *tc) {
    twin_in in;
    unsigned k;
    size_t m = TWIN_M, j, ngrid;
    double *grid;
    unsigned char *want = (unsigned char *)malloc(2 * m * tc->real), *got = (unsigned char *)malloc(2 * m * tc->real);
    twin_inputs(tc, 0, &in);
    ngrid = 2 * ((size_t)tc->nf[0] * (size_t)tc->nf[1] * (size_t)tc->nf[2] + in.lanes);
    grid = (double *)malloc(ngrid * sizeof(double));
    assert_true(grid && want && got);
    for (j = 0; j < ngrid; j++) grid[j] = 2.0 * uniform() - 1.0;
    twin_interp(host, tc, HST_KNUFFT_INTERP, &in, grid, ngrid, want);
    for (k = 0; k < 3; k++) {   /* interp on the device, interp_lanes there and on the host */
        unsigned id = k == 0 ? HST_KNUFFT_INTERP : HST_KNUFFT_INTERP_LANES;
        twin_interp(k == 2 ? host : be, tc, id, &in, grid, ngrid, got);
        printf("# %s on %s, %u-D (%d, %d, %d) w %u %s: %s\n", k ? "interp_lanes" : "interp", k == 2 ? "host" : "device",
               tc->dim, tc->nf[0], tc->nf[1], tc->nf[2], tc->w, tc->real == 4 ? "c64" : "c128",
               memcmp(want, got, 2 * m * tc->real) ? "differs" : "same bits");
        assert_memory_equal(want, got, 2 * m * tc->real);
    }
    twin_inputs_free(&in); free(grid); free(want); free(got);
}

static void test_interp_twin_bits(void **state) {
    static const twin_case cases[] = {{2, 7, {1, 40, 24}, 4}, {3, 7, {16, 20, 14}, 4}, {3, 2, {8, 6, 10}, 4},
                                      {2, 13, {1, 30, 28}, 8}, {3, 10, {20, 22, 24}, 8}};
    hst_backend *host;
    size_t i;
    host = host_backend();
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (cases[i].real == 4 || hst_backend_device(BE(state))->fp64) check_interp_twin(BE(state), host, &cases[i]);
    assert_int_equal(hst_backend_destroy(host), HST_SUCCESS);
}

/* ------------------------------------------------------------------------------------------
   Spreading's kernels (spread, and spread_lanes, the GPUs') against their twin: the same inputs
   (random taps' polynomials, points sorted into bins of 8, several subproblems a bin) through
   hst_launch_kernel on the device under test and on the host device. Their atomic adds make
   the order of a grid value's terms vary, so the grids agree within a few roundings of its
   peak, not bit for bit. */

/* The case's spreading on be by kernel id (c64's: HST_KNUFFT_SPREAD or _LANES), work-groups of
   HST_K_NUFFT_SPREAD_GROUP: out gets the grid's 2 nf0 nf1 nf2 reals. 0 (out untouched) where the
   device's local memory cannot hold the tile (and spread_lanes' taps: 2 G reals). */
static int twin_spread(hst_backend *be, const twin_case *tc, unsigned id, const twin_in *in, const double *c,
                       double *out) {
    size_t m = TWIN_M, n = 2 * (size_t)tc->nf[0] * (size_t)tc->nf[1] * (size_t)tc->nf[2], nb, tile = 2, i, a;
    size_t group = HST_K_NUFFT_SPREAD_GROUP;
    double *zero = (double *)calloc(n, sizeof(double));
    unsigned char *bytes = (unsigned char *)malloc(n * tc->real);
    hst_array *arr[10];
    hst_karg k[13];
    hst_launch_desc d;
    char options[96];
    assert_true(zero && bytes);
    nb = (size_t)in->g[6] * (size_t)in->g[7] * (size_t)in->g[8];
    for (a = 0; a < 3; a++) tile *= (size_t)(in->g[3 + a] + 2 * in->g[12 + a]);
    tile = (tile + 2 * in->lanes) * tc->real;   /* bytes: the twin's tile, 2 L reals more */
    if (!hst_backend_is_host(be)   /* the host device's tile is its scratch */
        && tile + (id == HST_KNUFFT_SPREAD_LANES ? 2 * group * tc->real : 0) > hst_backend_device(be)->local_mem_bytes) {
        free(zero); free(bytes);
        return 0;
    }
    arr[0] = ints_array(be, HST_I32, in->base, 3 * m);
    arr[1] = reals_array(be, tc->real, in->off, 3 * m);
    arr[2] = ints_array(be, HST_I32, in->perm, m);
    arr[3] = reals_array(be, tc->real, c, 2 * m);
    arr[4] = ints_array(be, HST_I32, in->sub_bin, in->nsub);
    arr[5] = ints_array(be, HST_I32, in->sub_first, in->nsub);
    arr[6] = ints_array(be, HST_I32, in->bin_start, nb + 1);
    arr[7] = reals_array(be, tc->real, zero, n);
    arr[8] = reals_array(be, tc->real, in->coef, in->ncoef);
    kernel_desc(&d, options, sizeof options, (int)in->g[9], tc->w, tc->real, id, k, 13);
    for (i = 0; i < 8; i++) k[i] = hst_karg_buffer(hst_array_buffer(arr[i]));
    k[8] = hst_karg_local(tile);
    k[9] = hst_karg_uint((uint32_t)m);
    k[10] = hst_karg_value(16 * sizeof(int32_t), in->g);
    k[11] = hst_karg_buffer(hst_array_buffer(arr[8]));
    k[12] = hst_karg_ulong(0);
    d.range.global[0] = in->nsub * group;
    d.range.local[0] = group;
    assert_int_equal(hst_launch_kernel(be, &d, NULL), HST_SUCCESS);
    assert_int_equal(hst_array_read(arr[7], bytes, n * tc->real), HST_SUCCESS);
    for (i = 0; i < n; i++) out[i] = tc->real == 4 ? (double)((const float *)bytes)[i] : ((const double *)bytes)[i];
    for (i = 0; i < 9; i++) hst_array_destroy(arr[i]);
    free(zero); free(bytes);
    return 1;
}

static void check_spread_twin(hst_backend *be, hst_backend *host, const twin_case *tc) {
    twin_in in;
    unsigned k;
    size_t m = TWIN_M, n = 2 * (size_t)tc->nf[0] * (size_t)tc->nf[1] * (size_t)tc->nf[2], i;
    double *c = (double *)malloc(2 * m * sizeof(double)), *want = (double *)malloc(n * sizeof(double));
    double *got = (double *)malloc(n * sizeof(double)), tol = tc->real == 4 ? 1e-5 : 1e-13;
    assert_true(c && want && got);
    twin_inputs(tc, 1, &in);
    for (i = 0; i < 2 * m; i++) c[i] = 2.0 * uniform() - 1.0;
    assert_true(twin_spread(host, tc, HST_KNUFFT_SPREAD, &in, c, want));
    for (k = 0; k < 3; k++) {   /* spread on the device, spread_lanes there and on the host */
        double peak = 0.0, err = 0.0;
        const char *name = k ? "spread_lanes" : "spread";
        if (!twin_spread(k == 2 ? host : be, tc, k == 0 ? HST_KNUFFT_SPREAD : HST_KNUFFT_SPREAD_LANES, &in, c, got)) {
            printf("# %s, %u-D w %u: the tile is beyond the device's local memory\n", name, tc->dim, tc->w);
            continue;
        }
        for (i = 0; i < n; i++) {
            peak = fmax(peak, fabs(want[i]));
            err = fmax(err, fabs(got[i] - want[i]));
        }
        printf("# %s on %s, %u-D (%d, %d, %d) w %u %s, %zu subproblems: max difference %.3g of the peak %.3g\n",
               name, k == 2 ? "host" : "device", tc->dim, tc->nf[0], tc->nf[1], tc->nf[2],
               tc->w, tc->real == 4 ? "c64" : "c128", in.nsub, err, peak);
        assert_true(peak > 0.0);
        assert_true(err <= tol * peak);
    }
    twin_inputs_free(&in); free(c); free(want); free(got);
}

static void test_spread_twin(void **state) {
    static const twin_case cases[] = {{2, 7, {1, 40, 24}, 4}, {3, 7, {16, 20, 14}, 4}, {3, 2, {8, 6, 10}, 4},
                                      {2, 13, {1, 30, 28}, 8}, {3, 10, {20, 22, 24}, 8}};
    hst_backend *host = host_backend();
    size_t i;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (cases[i].real == 4 || hst_backend_device(BE(state))->fp64) check_spread_twin(BE(state), host, &cases[i]);
    assert_int_equal(hst_backend_destroy(host), HST_SUCCESS);
}

/* ------------------------------------------------------------------------------------------
   Type 2's deconvolution (to_grid) and type 1's (to_modes) against their twins, bit for bit: the
   kernel over the whole array on the device under test, the twin on the host device in three
   launches whose ranges end inside lines along the fastest axis (the host device runs them
   in threads so). */
typedef struct modes_case { int32_t nf[4], nm[4]; size_t real; } modes_case;

/* The modes' kernel id (c64's) on be, in launches [first, cuts[0]), [cuts[0], cuts[1]), ..
   (ncut of them) over an output of nout complex values filled with -7 first: out gets its
   bytes. */
static void modes_run(hst_backend *be, const modes_case *mc, unsigned id, const double *in, size_t nin,
                      const double *corr, size_t ncorr, size_t nout, size_t first, const size_t *cuts, size_t ncut,
                      void *out) {
    hst_array *ai = reals_array(be, mc->real, in, 2 * nin), *ac = reals_array(be, mc->real, corr, ncorr);
    hst_array *ao;
    size_t n2 = 2 * nout, k;
    double *fill = (double *)malloc(n2 * sizeof(double));
    assert_non_null(fill);
    for (k = 0; k < n2; k++) fill[k] = -7.0;
    ao = reals_array(be, mc->real, fill, n2);
    free(fill);
    hst_karg a[6];
    hst_launch_desc d;
    char options[96];
    kernel_desc(&d, options, sizeof options, 1, 2, mc->real, id, a, 6);
    a[0] = hst_karg_buffer(hst_array_buffer(ai)); a[1] = hst_karg_buffer(hst_array_buffer(ao));
    a[2] = hst_karg_buffer(hst_array_buffer(ac));
    a[3] = hst_karg_value(4 * sizeof(int32_t), mc->nf); a[4] = hst_karg_value(4 * sizeof(int32_t), mc->nm);
    a[5] = hst_karg_ulong(0);
    for (k = 0; k < ncut; first = cuts[k++]) {
        d.range.offset[0] = first;
        d.range.global[0] = cuts[k] - first;
        assert_int_equal(hst_launch_kernel(be, &d, NULL), HST_SUCCESS);
    }
    assert_int_equal(hst_array_read(ao, out, n2 * mc->real), HST_SUCCESS);
    hst_array_destroy(ai); hst_array_destroy(ac); hst_array_destroy(ao);
}

static void check_modes_twin(hst_backend *be, hst_backend *host, const modes_case *mc, unsigned id) {
    int to_grid = id == HST_KNUFFT_TO_GRID;
    size_t nf = (size_t)mc->nf[0] * (size_t)mc->nf[1] * (size_t)mc->nf[2];
    size_t nm = (size_t)mc->nm[0] * (size_t)mc->nm[1] * (size_t)mc->nm[2];
    size_t nin = to_grid ? nm : nf, nout = to_grid ? nf : nm, ncorr = (size_t)(mc->nm[0] + mc->nm[1] + mc->nm[2]), j;
    size_t cuts[3], whole = nout, line = (size_t)(to_grid ? mc->nf[2] : mc->nm[2]), b0, b1;
    double *in = (double *)malloc(2 * nin * sizeof(double)), *corr = (double *)malloc(ncorr * sizeof(double));
    unsigned char *want = (unsigned char *)malloc(2 * nout * mc->real), *got = (unsigned char *)malloc(2 * nout * mc->real);
    unsigned char *alone = (unsigned char *)malloc(2 * nout * mc->real);
    assert_true(in && corr && want && got && alone);
    for (j = 0; j < 2 * nin; j++) in[j] = 2.0 * uniform() - 1.0;
    for (j = 0; j < ncorr; j++) corr[j] = 0.5 + uniform();
    cuts[0] = line + line / 2; cuts[1] = nout - 2 * line - 1; cuts[2] = nout;   /* inside lines */
    modes_run(be, mc, id, in, nin, corr, ncorr, nout, 0, &whole, 1, want);
    modes_run(host, mc, id, in, nin, corr, ncorr, nout, 0, cuts, 3, got);
    modes_run(host, mc, id, in, nin, corr, ncorr, nout, cuts[0], cuts + 1, 1, alone);   /* the middle alone */
    b0 = 2 * cuts[0] * mc->real; b1 = 2 * cuts[1] * mc->real;
    assert_memory_equal(alone + b0, want + b0, b1 - b0);
    for (j = 0; j < 2 * nout; j++)   /* outside the range: the fill */
        if (j < 2 * cuts[0] || j >= 2 * cuts[1])
            assert_true(mc->real == 4 ? ((const float *)alone)[j] == -7.0f : ((const double *)alone)[j] == -7.0);
    printf("# %s (%d, %d, %d) <-> (%d, %d, %d) %s: %s\n", to_grid ? "to_grid" : "to_modes", mc->nf[0], mc->nf[1],
           mc->nf[2], mc->nm[0], mc->nm[1], mc->nm[2], mc->real == 4 ? "c64" : "c128",
           memcmp(want, got, 2 * nout * mc->real) ? "differs" : "same bits");
    assert_memory_equal(want, got, 2 * nout * mc->real);
    free(in); free(corr); free(want); free(got); free(alone);
}

static void test_modes_twin_bits(void **state) {
    static const modes_case cases[] = {{{1, 40, 24, 0}, {1, 17, 12, 0}, 4}, {{16, 20, 14, 0}, {7, 10, 5, 0}, 4},
                                       {{16, 20, 14, 0}, {8, 9, 6, 0}, 8}};
    hst_backend *host;
    size_t i;
    host = host_backend();
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (cases[i].real == 4 || hst_backend_device(BE(state))->fp64) {
            check_modes_twin(BE(state), host, &cases[i], HST_KNUFFT_TO_GRID);
            check_modes_twin(BE(state), host, &cases[i], HST_KNUFFT_TO_MODES);
        }
    assert_int_equal(hst_backend_destroy(host), HST_SUCCESS);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_accuracy_2d, reset_log),
        cmocka_unit_test_setup(test_accuracy_3d, reset_log),
        cmocka_unit_test_setup(test_adjoint, reset_log),
        cmocka_unit_test_setup(test_devices_agree, reset_log),
        cmocka_unit_test_setup(test_plan_reuse, reset_log),
        cmocka_unit_test_setup(test_batched, reset_log),
        cmocka_unit_test(test_sort_bins),
        cmocka_unit_test_setup(test_errors, reset_log),
        cmocka_unit_test(test_out_of_memory),
        cmocka_unit_test_setup(test_c128_accuracy, reset_log),
        cmocka_unit_test_setup(test_c128_batched, reset_log),
        cmocka_unit_test_setup(test_c128_devices_agree, reset_log),
        cmocka_unit_test_setup(test_c128_errors, reset_log),
        cmocka_unit_test_setup(test_spread_global, reset_log),
        cmocka_unit_test_setup(test_interp_twin_bits, reset_log),
        cmocka_unit_test_setup(test_spread_twin, reset_log),
        cmocka_unit_test_setup(test_modes_twin_bits, reset_log),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
