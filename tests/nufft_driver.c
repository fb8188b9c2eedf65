/* nufft_driver.c — one nufft.h transform on the device $HST_DEVICE picks, for
   tests/nufft_finufft.py (which compares it with the finufft package).

       nufft_driver DIR

   DIR/spec.txt: "type dim n0 n1 n2 m eps isign [dtype]" (n2 ignored in 2-D; dtype c64, the
   default, or c128); DIR/coords.f32: dim x m float32 (coordinate 0 of every point, then
   coordinate 1, ...); DIR/in.c64: the input (complex64: m values for type 1, the modes (n0,
   n1[, n2]) C order for type 2). Writes DIR/out.c64 (the output, likewise). With dtype c128:
   coords.f64, in.c128 and out.c128 instead (float64, complex128: hst_nufft_set_points_f64 and
   a c128 plan). Exit status 0 on success, 1 with a message otherwise. */
#define HST_IMPLEMENTATION
#define HST_FFT
#include "nufft.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads exactly n bytes of DIR/name into a new buffer (NULL on failure). */
static void *read_file(const char *dir, const char *name, size_t n) {
    char path[4096];
    FILE *fp;
    void *p = malloc(n ? n : 1);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!p || !(fp = fopen(path, "rb"))) { free(p); return NULL; }
    if (fread(p, 1, n, fp) != n) { free(p); p = NULL; }
    fclose(fp);
    return p;
}

static int write_file(const char *dir, const char *name, const void *p, size_t n) {
    char path[4096];
    FILE *fp;
    int ok;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (!(fp = fopen(path, "wb"))) return 0;
    ok = fwrite(p, 1, n, fp) == n;
    return fclose(fp) == 0 && ok;
}

static int fail(const char *what, hst_result r) {
    fprintf(stderr, "nufft_driver: %s: %s\n", what, hst_result_string(r));
    return 1;
}

int main(int argc, char **argv) {
    hst_backend_desc bd;
    hst_backend *be;
    hst_nufft_desc nd;
    hst_nufft_plan *plan = NULL;
    hst_array *c = NULL, *f = NULL;
    char spec[512], path[4096], dt[8] = "c64";
    const void *coords[3];
    char *xy, *in, *out;
    size_t real;
    int f64;
    size_t m, nmodes, nin, nout;
    unsigned long long n0, n1, n2, mm;
    int type, dim, isign;
    double eps;
    hst_result r;
    FILE *fp;
    if (argc != 2) { fprintf(stderr, "usage: nufft_driver DIR\n"); return 2; }
    snprintf(path, sizeof path, "%s/spec.txt", argv[1]);
    if (!(fp = fopen(path, "r")) || !fgets(spec, sizeof spec, fp) ||
        sscanf(spec, "%d %d %llu %llu %llu %llu %lg %d %7s", &type, &dim, &n0, &n1, &n2, &mm, &eps, &isign, dt) < 8 ||
        (dim != 2 && dim != 3) || (strcmp(dt, "c64") && strcmp(dt, "c128"))) {
        fprintf(stderr, "nufft_driver: cannot read %s\n", path);
        return 1;
    }
    fclose(fp);
    memset(&nd, 0, sizeof nd);
    f64 = !strcmp(dt, "c128");
    real = f64 ? sizeof(double) : sizeof(float);
    nd.type = type; nd.dim = (unsigned)dim; nd.eps = eps; nd.isign = isign;
    nd.dtype = f64 ? HST_C128 : HST_C64;
    nd.modes[0] = (size_t)n0; nd.modes[1] = (size_t)n1; nd.modes[2] = (size_t)n2;
    m = (size_t)mm;
    nmodes = (size_t)(n0 * n1 * (dim == 3 ? n2 : 1));
    nin = type == 1 ? m : nmodes;
    nout = type == 1 ? nmodes : m;
    xy = (char *)read_file(argv[1], f64 ? "coords.f64" : "coords.f32", (size_t)dim * m * real);
    in = (char *)read_file(argv[1], f64 ? "in.c128" : "in.c64", 2 * nin * real);
    out = (char *)malloc(2 * nout * real);
    if (!xy || !in || !out) { fprintf(stderr, "nufft_driver: cannot read the inputs\n"); return 1; }
    coords[0] = xy; coords[1] = xy + m * real; coords[2] = xy + 2 * m * real;
    memset(&bd, 0, sizeof bd);
    if ((r = hst_backend_create(&bd, &be)) != HST_SUCCESS) return fail("hst_backend_create", r);
    r = hst_nufft_plan_create(be, &nd, &plan);
    if (r == HST_SUCCESS && f64) {
        const double *x[3] = {(const double *)coords[0], (const double *)coords[1], (const double *)coords[2]};
        r = hst_nufft_set_points_f64(plan, m, x);
    } else if (r == HST_SUCCESS) {
        const float *x[3] = {(const float *)coords[0], (const float *)coords[1], (const float *)coords[2]};
        r = hst_nufft_set_points(plan, m, x);
    }
    if (r == HST_SUCCESS) r = hst_array_create(be, nd.dtype, 1, &m, &c);
    if (r == HST_SUCCESS) r = hst_array_create(be, nd.dtype, (unsigned)dim, nd.modes, &f);
    if (r == HST_SUCCESS) r = hst_array_write(type == 1 ? c : f, in, 2 * nin * real);
    if (r == HST_SUCCESS) r = hst_nufft_execute(plan, c, f);
    if (r == HST_SUCCESS) r = hst_array_read(type == 1 ? f : c, out, 2 * nout * real);
    hst_array_destroy(c);
    hst_array_destroy(f);
    hst_nufft_plan_destroy(plan);
    if (hst_backend_destroy(be) != HST_SUCCESS && r == HST_SUCCESS) r = HST_ERROR_INVALID_ARGUMENT;
    if (r != HST_SUCCESS) return fail("the transform", r);
    if (!write_file(argv[1], f64 ? "out.c128" : "out.c64", out, 2 * nout * real)) {
        fprintf(stderr, "nufft_driver: cannot write the output\n");
        return 1;
    }
    free(xy); free(in); free(out);
    return 0;
}
