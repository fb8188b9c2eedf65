/* tests/test_kernel_decls.c — every declared kernel against its OpenCL source, and the one
   launcher (backend.h's hst_launch_kernel) on the device under test ($HST_DEVICE).

   1. Signatures. Each kernel family (kernels.h's vocabulary programs and every
      kernels_<family>.h) declares each kernel once, with its parameters' kinds (global, local,
      int, uint, long, ulong, float, double, value, image, sampler). Two independent readings of
      the source must agree with every declaration:
        - the source text: the kernel's parameter list, found and classified here (address space
          and type; comments stripped), on every build, HST_NO_OPENCL included. A kernel whose
          name the text does not spell (made by a macro) is left to the second reading;
        - OpenCL's own reading, on an OpenCL device under test: each family built with each of
          the option sets its room uses and -cl-kernel-arg-info, every argument's address
          qualifier and type name (clGetKernelArgInfo). Every declared kernel must be found in
          at least one build of its family (a kernel may exist only in some: a dtype's, fp64's).
      A declared scalar word must be that exact type; `value` accepts any by-value parameter that
      is not an image or a sampler (a vector, a struct, the generic element type T).
   2. The launcher: a kernel of a small family of this file runs on the device and through its
      twin with the same bits; a LOCAL argument is scratch memory for the twin on the host
      device; wrong argument counts and kinds, NULL buffers, an id out of range and a missing
      twin are refused with HST_ERROR_INVALID_ARGUMENT / HST_ERROR_UNSUPPORTED and a log line
      naming the family, the kernel and the argument; the backend keeps one kernel per (family,
      options, id). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>
#include <cmocka.h>

#define HST_IMPLEMENTATION
#include "array.h"
#include "stream.h"
#include "halo.h"
#include "esrrf.h"
#include "quality.h"
#include "nufft.h"
#include "cap_log.h"
#include "be_fixture.h"

/* ---------------------------------------------------------------- the families and their builds */
typedef struct fam_builds {
    const hst_kernel_family *family;
    char options[8][96];   /* each build's options ("": none) */
    unsigned num_options;
} fam_builds;

#define MAX_FAMILIES (2 * HST_DTYPE_END + 8)
static fam_builds families[MAX_FAMILIES];
static size_t num_families;

/* Adds family f with its builds' options (o1, o2 NULL: fewer builds). */
static void add_family(const hst_kernel_family *f, const char *o0, const char *o1, const char *o2) {
    const char *o[3];
    fam_builds *b = &families[num_families++];
    unsigned i;
    assert_true(num_families <= MAX_FAMILIES);
    assert_non_null(f);
    o[0] = o0; o[1] = o1; o[2] = o1 ? o2 : NULL;
    b->family = f;
    for (i = 0; i < 3 && o[i]; i++) snprintf(b->options[b->num_options++], sizeof b->options[0], "%s", o[i]);
}

/* The halo family, built for every quantity count its rows declare (8, 16, ... 64). */
static void add_halo_family(void) {
    fam_builds *b = &families[num_families++];
    size_t nq;
    assert_true(num_families <= MAX_FAMILIES);
    b->family = hst_kernels_halo_family();
    for (nq = 8; nq <= 64; nq += 8)
        snprintf(b->options[b->num_options++], sizeof b->options[0], "%s", hst_kernels_halo_options(nq));
}

/* Every family, with the option sets its room builds it with (array.h's programs once per dtype). */
static void collect_families(void) {
    int dt;
    if (num_families) return;
    for (dt = 1; dt < HST_DTYPE_END; dt++) {
        char o[96];
        snprintf(o, sizeof o, "%s%s", hst_kernels_vocab_options((hst_dtype)dt),
                 hst_dtype_needs_fp64((hst_dtype)dt) ? " -DHST_FP64" : "");
        add_family(hst_kernels_vocab_family((hst_dtype)dt), o, NULL, NULL);
        add_family(hst_kernels_vocabx_family((hst_dtype)dt), o, NULL, NULL);
    }
    add_family(hst_kernels_stream_family(), "-cl-fp32-correctly-rounded-divide-sqrt",
               "-cl-fp32-correctly-rounded-divide-sqrt -DHST_FP64",
               "-cl-fp32-correctly-rounded-divide-sqrt -DHST_FP64 -DHST_ACC_C64");
    add_family(hst_kernels_esrrf_family(), "", "-DHST_FP64", NULL);
    add_halo_family();
    add_family(hst_kernels_quality_family(), "", "-DHST_FP64", NULL);
    add_family(hst_kernels_nufft_family(), "-D HST_NU_W0=1 -D HST_NU_W=4 -D HST_NU_DEG=7",
               "-D HST_NU_W0=6 -D HST_NU_W=6 -D HST_NU_DEG=9",
               "-D HST_NU_W0=13 -D HST_NU_W=13 -D HST_NU_DEG=16 -D HST_NU_F64");
}

/* ---------------------------------------------------------------- reading the source text */
/* The program's text, its pieces joined, comments blanked (malloc'd). */
static char *family_text(const hst_kernel_family *f) {
    size_t count = 0, i, n = 1;
    const char *const *src = f->source(&count);
    char *t, *p;
    for (i = 0; i < count; i++) n += strlen(src[i]);
    t = (char *)malloc(n);
    assert_non_null(t);
    t[0] = '\0';
    for (i = 0; i < count; i++) strcat(t, src[i]);
    for (p = t; *p; p++) {
        if (p[0] == '/' && p[1] == '*') {
            char *e = strstr(p + 2, "*/");
            size_t len = e ? (size_t)(e + 2 - p) : strlen(p);
            memset(p, ' ', len);
            p += len - 1;
        } else if (p[0] == '/' && p[1] == '/') {
            while (*p && *p != '\n') *p++ = ' ';
            if (!*p) break;
        }
    }
    return t;
}

/* The parameter list of kernel `name` in text: the characters between its parentheses into buf;
   0 when the text does not define it (its name made by a macro, say). */
static int find_params(const char *text, const char *name, char *buf, size_t bytes) {
    size_t len = strlen(name);
    const char *p = text;
    while ((p = strstr(p, name)) != NULL) {
        const char *q = p + len, *back = p;
        int depth = 1, is_kernel = 0;
        while (*q == ' ' || *q == '\n') q++;
        /* a definition: "kernel" and "void" in the 160 characters before the name */
        back = p - text > 160 ? p - 160 : text;
        {
            char pre[200];
            size_t n = (size_t)(p - back);
            memcpy(pre, back, n);
            pre[n] = '\0';
            is_kernel = strstr(pre, "kernel") && strstr(pre, "void") && !isalnum((unsigned char)p[-1]) && p[-1] != '_';
        }
        if (*q == '(' && is_kernel && !isalnum((unsigned char)p[len]) && p[len] != '_') {
            size_t k = 0;
            for (q++; *q && depth; q++) {
                if (*q == '(') depth++;
                if (*q == ')' && --depth == 0) break;
                if (k + 1 < bytes) buf[k++] = *q == '\n' ? ' ' : *q;
            }
            buf[k] = '\0';
            return 1;
        }
        p += len;
    }
    return 0;
}

/* Whether `word` appears as a whole token in s. */
static int has_token(const char *s, const char *word) {
    size_t n = strlen(word);
    const char *p = s;
    while ((p = strstr(p, word)) != NULL) {
        int l = p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_');
        int r = !(isalnum((unsigned char)p[n]) || p[n] == '_');
        if (l && r) return 1;
        p += n;
    }
    return 0;
}

/* A kind from a by-value OpenCL type name ("uint", "float2", "image2d_t", ...). */
static hst_karg_kind by_value_kind(const char *type) {
    static const char *const names[][2] = {{"int", "int"}, {"uint", "uint"}, {"unsigned int", "uint"},
        {"long", "long"}, {"ulong", "ulong"}, {"unsigned long", "ulong"}, {"float", "float"}, {"double", "double"}};
    size_t i;
    if (strstr(type, "image") && strstr(type, "_t")) return HST_KARG_IMAGE;
    if (strstr(type, "sampler_t")) return HST_KARG_SAMPLER;
    for (i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(type, names[i][0])) {
            hst_karg_kind k;
            for (k = HST_KARG_GLOBAL; k < HST_KARG_KIND_END; k = (hst_karg_kind)(k + 1))
                if (!strcmp(hst_karg_kind_word(k), names[i][1])) return k;
        }
    return HST_KARG_VALUE;
}

/* One parameter's declaration text -> its kind; the type of a by-value one: every token but
   the last (the name), qualifiers dropped. */
static hst_karg_kind param_kind(const char *decl) {
    static const char *const drop[] = {"const", "volatile", "restrict", "__read_only", "read_only",
        "__write_only", "write_only", "__read_write", "read_write", "__private", "private"};
    char type[128] = "", tok[64];
    const char *p = decl, *last = NULL;
    int n;
    if (strchr(decl, '*')) {
        if (has_token(decl, "__global") || has_token(decl, "global") || has_token(decl, "__constant") ||
            has_token(decl, "constant"))
            return HST_KARG_GLOBAL;
        if (has_token(decl, "__local") || has_token(decl, "local")) return HST_KARG_LOCAL;
        return HST_KARG_NONE;   /* a private pointer: no kernel takes one */
    }
    while (sscanf(p, "%63s%n", tok, &n) == 1) { last = p; p += n; }
    p = decl;
    while (sscanf(p, "%63s%n", tok, &n) == 1 && p < last) {
        size_t i;
        int skip = 0;
        for (i = 0; i < sizeof drop / sizeof *drop; i++) skip |= !strcmp(tok, drop[i]);
        if (!skip) {
            if (type[0]) strcat(type, " ");
            strncat(type, tok, sizeof type - strlen(type) - 1);
        }
        p += n;
    }
    return by_value_kind(type);
}

/* Whether a declared kind accepts the kind read from the source. */
static int kind_matches(hst_karg_kind declared, hst_karg_kind found) {
    if (declared == HST_KARG_VALUE)
        return found != HST_KARG_GLOBAL && found != HST_KARG_LOCAL && found != HST_KARG_IMAGE &&
               found != HST_KARG_SAMPLER && found != HST_KARG_NONE;
    return declared == found;
}

/* Checks one declaration against a parameter list read from the text; 0 and a message on a
   mismatch. */
static int check_params(const hst_kernel_family *f, const hst_kernel_decl *d, const char *params) {
    hst_karg_kind kinds[HST_KERNEL_MAX_ARGS];
    int n = hst_kernel_signature(d, kinds, HST_KERNEL_MAX_ARGS), i = 0;
    char copy[4096], *tok;
    strncpy(copy, params, sizeof copy - 1);
    copy[sizeof copy - 1] = '\0';
    if (n < 0) { print_error("%s.%s: signature \"%s\" does not parse\n", f->name, d->name, d->signature); return 0; }
    for (tok = strtok(copy, ","); tok; tok = strtok(NULL, ","), i++) {
        hst_karg_kind k = param_kind(tok);
        if (i >= n || !kind_matches(kinds[i], k)) {
            print_error("%s.%s: parameter %d (\"%s\") reads as `%s`, declared `%s` (\"%s\")\n", f->name,
                        d->name, i, tok, hst_karg_kind_word(k), i < n ? hst_karg_kind_word(kinds[i]) : "(none)",
                        d->signature);
            return 0;
        }
    }
    if (i != n) { print_error("%s.%s: the source has %d parameters, %d declared\n", f->name, d->name, i, n); return 0; }
    return 1;
}

static void test_signatures_in_source(void **state) {
    size_t fi;
    unsigned k, parsed = 0, total = 0, bad = 0;
    (void)state;
    collect_families();
    for (fi = 0; fi < num_families; fi++) {
        const hst_kernel_family *f = families[fi].family;
        char *text = family_text(f);
        char params[4096];
        assert_non_null(f->name);
        assert_true(f->num_kernels > 0);
        for (k = 0; k < f->num_kernels; k++, total++) {
            if (!find_params(text, f->kernels[k].name, params, sizeof params)) continue;
            parsed++;
            bad += !check_params(f, &f->kernels[k], params);
        }
        free(text);
    }
    print_message("# %u of %u declared kernels read from their source text\n", parsed, total);
    assert_int_equal(bad, 0);
    assert_true(parsed * 2 > total);   /* most kernels are spelled out; the rest need OpenCL */
}

#ifndef HST_NO_OPENCL
/* OpenCL's reading of argument i of kernel k: its kind. */
static hst_karg_kind cl_arg_kind(cl_kernel k, cl_uint i) {
    cl_kernel_arg_address_qualifier aq = 0;
    char type[128] = "";
    assert_int_equal(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_ADDRESS_QUALIFIER, sizeof aq, &aq, NULL), CL_SUCCESS);
    assert_int_equal(clGetKernelArgInfo(k, i, CL_KERNEL_ARG_TYPE_NAME, sizeof type, type, NULL), CL_SUCCESS);
    if (aq == CL_KERNEL_ARG_ADDRESS_GLOBAL || aq == CL_KERNEL_ARG_ADDRESS_CONSTANT) return HST_KARG_GLOBAL;
    if (aq == CL_KERNEL_ARG_ADDRESS_LOCAL) return HST_KARG_LOCAL;
    return by_value_kind(type);
}

/* Whether declaration d agrees with OpenCL's reading of kernel kern (0 and a message if not). */
static int cl_agrees(const hst_kernel_family *f, const hst_kernel_decl *d, cl_kernel kern, const char *options,
                     int quiet) {
    hst_karg_kind kinds[HST_KERNEL_MAX_ARGS];
    int n = hst_kernel_signature(d, kinds, HST_KERNEL_MAX_ARGS);
    cl_uint nargs = 0, i;
    assert_int_equal(clGetKernelInfo(kern, CL_KERNEL_NUM_ARGS, sizeof nargs, &nargs, NULL), CL_SUCCESS);
    if (n != (int)nargs) {
        if (!quiet) print_error("%s.%s (%s): OpenCL counts %u arguments, %d declared\n", f->name, d->name, options, nargs, n);
        return 0;
    }
    for (i = 0; i < nargs; i++)
        if (!kind_matches(kinds[i], cl_arg_kind(kern, i))) {
            if (!quiet)
                print_error("%s.%s (%s): argument %u is `%s` to OpenCL, declared `%s`\n", f->name, d->name, options,
                            i, hst_karg_kind_word(cl_arg_kind(kern, i)), hst_karg_kind_word(kinds[i]));
            return 0;
        }
    return 1;
}

/* Builds f with options (+ -cl-kernel-arg-info) and checks every kernel the build has; found[k]
   counts the builds whose kernel row k agreed with. Rows sharing a name are variants of one
   kernel (halo.h's per quantity count, stream.h's per accumulator type): the build's kernel must
   agree with at least one of them, and only those that agree count as found. Returns the
   mismatches. */
static unsigned check_build(hst_backend *be, const hst_kernel_family *f, const char *options, unsigned *found) {
    cl_context ctx = hst_backend_cl_context(be);
    cl_device_id dev = hst_backend_cl_device(be);
    size_t count = 0;
    const char *const *src = f->source(&count);
    char opts[512];
    cl_int err;
    cl_program p = clCreateProgramWithSource(ctx, (cl_uint)count, (const char **)src, NULL, &err);
    unsigned k, j, bad = 0;
    assert_int_equal(err, CL_SUCCESS);
    snprintf(opts, sizeof opts, "%s -cl-kernel-arg-info", options);
    if (clBuildProgram(p, 1, &dev, opts, NULL, NULL) != CL_SUCCESS) {
        print_error("%s: the build with \"%s\" failed\n", f->name, options);
        clReleaseProgram(p);
        return 1;
    }
    for (k = 0; k < f->num_kernels; k++) {
        cl_kernel kern;
        int first = 1, agreed = 0;
        for (j = 0; j < k; j++) first &= strcmp(f->kernels[j].name, f->kernels[k].name) != 0;
        if (!first) continue;   /* a variant: checked with the first row of its name */
        kern = clCreateKernel(p, f->kernels[k].name, &err);
        if (err == CL_INVALID_KERNEL_NAME) continue;   /* not in this build (a dtype, fp64) */
        assert_int_equal(err, CL_SUCCESS);
        for (j = k; j < f->num_kernels; j++)
            if (!strcmp(f->kernels[j].name, f->kernels[k].name) && cl_agrees(f, &f->kernels[j], kern, options, 1)) {
                found[j]++;
                agreed = 1;
            }
        if (!agreed) { cl_agrees(f, &f->kernels[k], kern, options, 0); bad++; }
        clReleaseKernel(kern);
    }
    clReleaseProgram(p);
    return bad;
}

/* Families that share a program (array.h's, one per dtype) share their kernels' rows: a kernel
   must be in some build of its program, not of each dtype's (hst_k_scale has no u8 build). */
static int same_program(const hst_kernel_family *a, const hst_kernel_family *b) {
    return a->source == b->source && a->num_kernels == b->num_kernels;
}
#endif

static void test_signatures_by_opencl(void **state) {
#ifndef HST_NO_OPENCL
    hst_backend *be = BE(state);
    static unsigned found[MAX_FAMILIES][96];
    size_t fi, fj, b;
    unsigned bad = 0, checked = 0, k;
    if (hst_backend_is_host(be)) { skip(); return; }   /* the source text's reading ran above */
    collect_families();
    memset(found, 0, sizeof found);
    for (fi = 0; fi < num_families; fi++) {
        const hst_kernel_family *f = families[fi].family;
        assert_true(f->num_kernels <= 96);
        for (b = 0; b < families[fi].num_options; b++) {
            if (strstr(families[fi].options[b], "HST_FP64") && !hst_backend_device(be)->fp64) continue;
            bad += check_build(be, f, families[fi].options[b], found[fi]);
        }
    }
    for (fi = 0; fi < num_families; fi++) {
        const hst_kernel_family *f = families[fi].family;
        for (k = 0; k < f->num_kernels; k++, checked++) {
            unsigned n = 0;
            for (fj = 0; fj < num_families; fj++)
                if (same_program(f, families[fj].family)) n += found[fj][k];
            if (!n) { print_error("%s.%s: in no build of its program\n", f->name, f->kernels[k].name); bad++; }
        }
    }
    print_message("# %u declared kernels checked by %s\n", checked, hst_backend_device(be)->name);
    assert_int_equal(bad, 0);
#else
    (void)state;
    skip();
#endif
}

/* ---------------------------------------------------------------- a small family of our own */
static const char toy_src[] =
"__kernel void toy_scale(__global float *x, uint n, float a) {\n"
"    size_t i = get_global_id(0);\n"
"    if (i < n) x[i] = x[i] * a;\n"
"}\n"
"__kernel void toy_block_sum(__global const float *x, __global float *sums, __local float *s, uint n) {\n"
"    size_t i = get_global_id(0), l = get_local_id(0), g = get_group_id(0), w = get_local_size(0), k;\n"
"    s[l] = i < n ? x[i] : 0.0f;\n"
"    barrier(CLK_LOCAL_MEM_FENCE);\n"
"    if (l == 0) { float t = 0.0f; for (k = 0; k < w; k++) t = t + s[k]; sums[g] = t; }\n"
"}\n"
"__kernel void toy_device_only(__global float *x, uint n) { size_t i = get_global_id(0); if (i < n) x[i] = 1.0f; }\n";
static const char *const toy_pieces[] = {toy_src};
static const char *const *toy_source(size_t *count) { if (count) *count = 1; return toy_pieces; }

static void toy_scale_twin(const hst_karg *a, const hst_range *r) {
    float *x = (float *)hst_karg_ptr(&a[0]);
    size_t i;
    for (i = r->offset[0]; i < r->offset[0] + r->global[0] && i < a[1].v.u32; i++) x[i] = x[i] * a[2].v.f32;
}

/* Work-groups of range.local[0] items, their values summed in order through the scratch. */
static void toy_block_sum_twin(const hst_karg *a, const hst_range *r) {
    const float *x = (const float *)hst_karg_ptr(&a[0]);
    float *sums = (float *)hst_karg_ptr(&a[1]), *s = (float *)hst_karg_ptr(&a[2]);
    size_t w = r->local[0], g, l;
    for (g = 0; g * w < r->global[0]; g++) {
        float t = 0.0f;
        for (l = 0; l < w; l++) s[l] = g * w + l < a[3].v.u32 ? x[g * w + l] : 0.0f;
        for (l = 0; l < w; l++) t = t + s[l];
        sums[g] = t;
    }
}

#define TOY_KERNELS(X) \
    X(TOY_SCALE, toy_scale, "global uint float", toy_scale_twin) \
    X(TOY_BLOCK_SUM, toy_block_sum, "global global local uint", toy_block_sum_twin) \
    X(TOY_DEVICE_ONLY, toy_device_only, "global uint", NULL)
enum { TOY_KERNELS(HST_KERNEL_ID) TOY_COUNT };
static const hst_kernel_decl toy_decls[TOY_COUNT] = { TOY_KERNELS(HST_KERNEL_DECL) };
static const hst_kernel_family toy = {"toy", toy_source, toy_decls, TOY_COUNT};

/* Whether the last log line has item and contains text. */
static int logged(void **state, hst_log_item item, const char *text) {
    const cap_log *c = LOG(state);
    if (c->last_item == item && strstr(c->last_message, text)) return 1;
    print_error("logged [%s] \"%s\", expected [%s] with \"%s\"\n", hst_log_item_name(c->last_item),
                c->last_message, hst_log_item_name(item), text);
    return 0;
}

static hst_launch_desc toy_launch(unsigned kernel, const hst_karg *args, size_t n, size_t global) {
    hst_launch_desc d;
    memset(&d, 0, sizeof d);
    d.family = &toy;
    d.kernel = kernel;
    d.args = args;
    d.num_args = n;
    d.range.dims = 1;
    d.range.global[0] = global;
    return d;
}

static void test_toy_family_in_source(void **state) {
    char *text = family_text(&toy), params[512];
    unsigned k;
    (void)state;
    for (k = 0; k < TOY_COUNT; k++) {
        assert_true(find_params(text, toy_decls[k].name, params, sizeof params));
        assert_true(check_params(&toy, &toy_decls[k], params));
    }
    /* the checker can fail: a declaration that disagrees with the text */
    {
        hst_kernel_decl wrong = {"toy_scale", "global int float", NULL};
        assert_true(find_params(text, "toy_scale", params, sizeof params));
        assert_false(check_params(&toy, &wrong, params));
        wrong.signature = "global uint";
        assert_false(check_params(&toy, &wrong, params));
        wrong.signature = "global uint value";
        assert_true(check_params(&toy, &wrong, params));   /* value: any by-value type */
    }
    free(text);
}

static void test_launch_runs(void **state) {
    hst_backend *be = BE(state);
    float x[100], y[100], sums[4];
    hst_buffer *b, *s;
    hst_karg a[4];
    hst_launch_desc d;
    int i;
    for (i = 0; i < 100; i++) x[i] = (float)i * 0.37f - 5.0f;
    assert_int_equal(hst_buffer_create(be, sizeof x, HST_MEM_READ_WRITE, &b), HST_SUCCESS);
    assert_int_equal(hst_buffer_create(be, sizeof sums, HST_MEM_READ_WRITE, &s), HST_SUCCESS);
    assert_int_equal(hst_write(hst_backend_queue(be), b, 0, x, sizeof x, 1, 0, NULL, NULL), HST_SUCCESS);
    a[0] = hst_karg_buffer(b); a[1] = hst_karg_uint(90); a[2] = hst_karg_float(1.5f);
    d = toy_launch(TOY_SCALE, a, 3, 100);
    d.range.offset[0] = 10;   /* items [10, 110): the kernel's bound check stops at n = 90 */
    assert_int_equal(hst_launch_kernel(be, &d, NULL), HST_SUCCESS);
    assert_int_equal(hst_read(hst_backend_queue(be), b, 0, y, sizeof y, 1, 0, NULL, NULL), HST_SUCCESS);
    for (i = 0; i < 100; i++) assert_true(y[i] == (i >= 10 && i < 90 ? x[i] * 1.5f : x[i]));
    /* local memory: scratch on the host device, work-group memory on OpenCL */
    a[0] = hst_karg_buffer(b); a[1] = hst_karg_buffer(s); a[2] = hst_karg_local(32 * sizeof(float)); a[3] = hst_karg_uint(100);
    d = toy_launch(TOY_BLOCK_SUM, a, 4, 128);
    d.range.local[0] = 32;
    assert_int_equal(hst_launch_kernel(be, &d, NULL), HST_SUCCESS);
    assert_int_equal(hst_read(hst_backend_queue(be), s, 0, sums, sizeof sums, 1, 0, NULL, NULL), HST_SUCCESS);
    for (i = 0; i < 4; i++) {
        float t = 0.0f;
        int l;
        for (l = 0; l < 32; l++) t = t + (i * 32 + l < 100 ? y[i * 32 + l] : 0.0f);
        assert_true(sums[i] == t);
    }
    hst_buffer_destroy(s);
    hst_buffer_destroy(b);
}

static void test_launch_refusals(void **state) {
    hst_backend *be = BE(state);
    hst_buffer *b;
    hst_karg a[3];
    hst_launch_desc d;
    assert_int_equal(hst_buffer_create(be, 64, HST_MEM_READ_WRITE, &b), HST_SUCCESS);
    a[0] = hst_karg_buffer(b); a[1] = hst_karg_uint(16); a[2] = hst_karg_int(2);
    d = toy_launch(TOY_SCALE, a, 3, 16);
    assert_int_equal(hst_launch_kernel(be, &d, NULL), HST_ERROR_INVALID_ARGUMENT);
    assert_true(logged(state, HST_LOGITEM_BAD_ARGUMENT, "toy.toy_scale: argument 2 is declared `float`, given `int`"));
    d.num_args = 2;
    assert_int_equal(hst_launch_kernel(be, &d, NULL), HST_ERROR_INVALID_ARGUMENT);
    assert_true(logged(state, HST_LOGITEM_BAD_ARGUMENT, "2 arguments given, 3 declared"));
    a[0] = hst_karg_buffer(NULL); a[2] = hst_karg_float(2.0f); d.num_args = 3;
    assert_int_equal(hst_launch_kernel(be, &d, NULL), HST_ERROR_INVALID_ARGUMENT);
    assert_true(logged(state, HST_LOGITEM_NULL_ARGUMENT, "argument 0 (`global`) is NULL"));
    a[0] = hst_karg_buffer(b);
    d.kernel = TOY_COUNT;
    assert_int_equal(hst_launch_kernel(be, &d, NULL), HST_ERROR_INVALID_ARGUMENT);
    assert_true(logged(state, HST_LOGITEM_OUT_OF_RANGE, "family toy has 3 kernels"));
    d.kernel = TOY_SCALE; d.range.dims = 0;
    assert_int_equal(hst_launch_kernel(be, &d, NULL), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_launch_kernel(be, NULL, NULL), HST_ERROR_INVALID_ARGUMENT);
    assert_int_equal(hst_launch_kernel(NULL, &d, NULL), HST_ERROR_INVALID_ARGUMENT);
    a[1] = hst_karg_uint(16);
    d = toy_launch(TOY_DEVICE_ONLY, a, 2, 16);
    if (hst_backend_is_host(be)) {
        assert_int_equal(hst_launch_kernel(be, &d, NULL), HST_ERROR_UNSUPPORTED);
        assert_true(logged(state, HST_LOGITEM_UNSUPPORTED, "toy.toy_device_only has no host twin"));
    } else {
        assert_int_equal(hst_launch_kernel(be, &d, NULL), HST_SUCCESS);
        assert_int_equal(hst_queue_finish(hst_backend_queue(be)), HST_SUCCESS);
    }
    hst_buffer_destroy(b);
}

/* One kernel per (family, options, id), kept by the backend; the host device has none. */
static void test_family_kernel_cache(void **state) {
    hst_backend *be = BE(state);
    hst_kernel *k1 = NULL, *k2 = NULL, *k3 = NULL;
    if (hst_backend_is_host(be)) {
        assert_int_equal(hst_family_kernel(be, &toy, NULL, TOY_SCALE, &k1), HST_ERROR_UNSUPPORTED);
        assert_null(k1);
        return;
    }
    assert_int_equal(hst_family_kernel(be, &toy, NULL, TOY_SCALE, &k1), HST_SUCCESS);
    assert_int_equal(hst_family_kernel(be, &toy, "", TOY_SCALE, &k2), HST_SUCCESS);
    assert_ptr_equal(k1, k2);   /* NULL options is "" */
    assert_int_equal(hst_family_kernel(be, &toy, "-DUNUSED=1", TOY_SCALE, &k3), HST_SUCCESS);
    assert_ptr_not_equal(k1, k3);
    assert_int_equal(hst_family_kernel(be, &toy, NULL, TOY_COUNT, &k3), HST_ERROR_INVALID_ARGUMENT);
}

static void test_signature_words(void **state) {
    hst_karg_kind k[4];
    hst_kernel_decl d = {"x", "global  local value", NULL};
    (void)state;
    assert_int_equal(hst_kernel_signature(&d, k, 4), 3);
    assert_int_equal(k[0], HST_KARG_GLOBAL);
    assert_int_equal(k[1], HST_KARG_LOCAL);
    assert_int_equal(k[2], HST_KARG_VALUE);
    d.signature = "global globl";
    assert_int_equal(hst_kernel_signature(&d, k, 4), -1);
    d.signature = "int int int int int";
    assert_int_equal(hst_kernel_signature(&d, k, 4), -1);   /* more than max */
    d.signature = "";
    assert_int_equal(hst_kernel_signature(&d, k, 4), 0);
    assert_string_equal(hst_karg_kind_word(HST_KARG_SAMPLER), "sampler");
    assert_string_equal(hst_karg_kind_word(HST_KARG_NONE), "");
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_signature_words),
        cmocka_unit_test(test_toy_family_in_source),
        cmocka_unit_test(test_signatures_in_source),
        cmocka_unit_test_setup(test_signatures_by_opencl, reset_log),
        cmocka_unit_test_setup(test_launch_runs, reset_log),
        cmocka_unit_test_setup(test_launch_refusals, reset_log),
        cmocka_unit_test_setup(test_family_kernel_cache, reset_log),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
