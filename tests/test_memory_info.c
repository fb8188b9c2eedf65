/* tests/test_memory_info.c — PyOpenCL's memory page beyond images (tests/test_images.c): SVM
   pointers as kernel arguments (hst_kernel_set_svm) on fine-grain SVM (the host writes and
   reads it with no map) and on coarse-grain SVM (mapped, migrated with hst_svm_migrate), the
   checks of hst_svm_migrate; foreign cl_mem buffers and images and cl_samplers adopted
   (hst_buffer_from_cl, hst_image_from_cl, hst_sampler_from_cl); raw
   info queries of buffers, images and samplers (hst_*_get_info_raw: PyOpenCL's
   get_info(param)) against the typed getters.

   Runs once per device (HST_DEVICE). Kernels need an OpenCL device; the host device's SVM is
   host memory, on which migration moves nothing. */
#define HST_IMPLEMENTATION
#include "backend.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cap_log.h"
#define BE_FIXTURE_LOG_LEVEL 0
#include "be_fixture.h"

#define FIX(state) ((fixture *)*(state))

#define assert_result_logged(r, code, log, item) do {                                         \
        assert_int_equal((r), (code));                                                        \
        assert_int_equal((log)->last_item, (item));                                           \
    } while (0)

/* p[i] = p[i] * k + i over n ints: a kernel whose pointer argument is SVM. */
static const char *svm_src =
    "__kernel void svm_axpi(__global int *p, int k, uint n) {\n"
    "    uint i = get_global_id(0);\n"
    "    if (i < n) p[i] = p[i] * k + (int)i;\n"
    "}\n";

enum { N = 1000 };

/* Runs svm_axpi on ptr (n ints, factor k) and waits for it. */
static void run_axpi(hst_backend *be, void *ptr, int32_t k, uint32_t n) {
    hst_queue *q = hst_backend_queue(be);
    hst_program *prog = NULL;
    hst_kernel *kern = NULL;
    size_t global = n;
    assert_int_equal(hst_program_build(be, 1, &svm_src, "", &prog), HST_SUCCESS);
    assert_int_equal(hst_kernel_create(prog, "svm_axpi", &kern), HST_SUCCESS);
    assert_int_equal(hst_kernel_set_svm(kern, 0, ptr), HST_SUCCESS);
    assert_int_equal(hst_kernel_set_arg(kern, 1, sizeof k, &k), HST_SUCCESS);
    assert_int_equal(hst_kernel_set_arg(kern, 2, sizeof n, &n), HST_SUCCESS);
    assert_int_equal(hst_launch(q, kern, 1, &global, NULL, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_queue_finish(q), HST_SUCCESS);
    hst_kernel_destroy(kern);
    hst_program_release(prog);
}

/* Fine-grain SVM: the host writes, a kernel reads and writes through the SVM pointer (and
   through a pointer into the middle of the allocation), the host reads, no map anywhere. */
static void test_fine_svm_kernel_arg(void **state) {
    hst_backend *be = BE(state);
    int32_t *p = NULL;
    int i;
    if (!(hst_backend_device(be)->svm & HST_SVM_FINE)) { skip(); return; }
    assert_int_equal(hst_svm_alloc(be, N * sizeof(int32_t), 1, (void **)&p), HST_SUCCESS);
    for (i = 0; i < N; i++) p[i] = i - 300;
    if (hst_backend_is_host(be)) {   /* host memory: the host device runs no kernel */
        for (i = 0; i < N; i++) assert_int_equal(p[i], i - 300);
        hst_svm_free(be, p);
        skip();
        return;
    }
    run_axpi(be, p, 3, N);
    for (i = 0; i < N; i++) assert_int_equal(p[i], (i - 300) * 3 + i);
    run_axpi(be, p + 100, -2, 50);          /* a pointer inside the allocation */
    for (i = 0; i < N; i++) {
        int32_t once = (i - 300) * 3 + i;
        assert_int_equal(p[i], i >= 100 && i < 150 ? once * -2 + (i - 100) : once);
    }
    hst_svm_free(be, p);
}

/* Coarse-grain SVM: mapped for the host, migrated to the device for the kernel and back. */
static void test_coarse_svm_migrate_kernel_arg(void **state) {
    hst_backend *be = BE(state);
    hst_queue *q = hst_backend_queue(be);
    int32_t *p = NULL;
    const void *ptrs[1];
    size_t sizes[1] = {0};
    hst_event moved = NULL;
    int i;
    if (!(hst_backend_device(be)->svm & HST_SVM_COARSE)) { skip(); return; }
    assert_int_equal(hst_svm_alloc(be, N * sizeof(int32_t), 0, (void **)&p), HST_SUCCESS);
    ptrs[0] = p;
    assert_int_equal(hst_svm_map(q, HST_MAP_WRITE_INVALIDATE, p, N * sizeof(int32_t), 0, NULL, NULL), HST_SUCCESS);
    for (i = 0; i < N; i++) p[i] = 7 * i;
    assert_int_equal(hst_svm_unmap(q, p, 0, NULL, NULL), HST_SUCCESS);
    /* to the device (the whole allocation: size 0), then the kernel after it */
    assert_int_equal(hst_svm_migrate(q, 1, ptrs, sizes, 0, 0, NULL, &moved), HST_SUCCESS);
    assert_int_equal(hst_event_wait(1, &moved), HST_SUCCESS);
    hst_event_release(moved);
    if (!hst_backend_is_host(be)) run_axpi(be, p, 2, N);
    /* back to the host, half of it by size */
    sizes[0] = N / 2 * sizeof(int32_t);
    assert_int_equal(hst_svm_migrate(q, 1, ptrs, sizes, HST_MIGRATE_TO_HOST, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_svm_migrate(q, 1, ptrs, NULL, HST_MIGRATE_TO_HOST, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_svm_map(q, HST_MAP_READ, p, N * sizeof(int32_t), 0, NULL, NULL), HST_SUCCESS);
    for (i = 0; i < N; i++) assert_int_equal(p[i], hst_backend_is_host(be) ? 7 * i : 7 * i * 2 + i);
    assert_int_equal(hst_svm_unmap(q, p, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_queue_finish(q), HST_SUCCESS);
    hst_svm_free(be, p);
}

static void test_svm_migrate_errors(void **state) {
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    const void *ptrs[2];
    hst_event out = (hst_event)(void *)&out;   /* set to NULL on every refusal */
    int x = 0;
    ptrs[0] = &x; ptrs[1] = NULL;
    cap_reset(&f->log);
    assert_result_logged(hst_svm_migrate(q, 0, ptrs, NULL, 0, 0, NULL, &out), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_ZERO_SIZE);
    assert_null(out);
    assert_non_null(strstr(f->log.last_message, "num"));
    assert_result_logged(hst_svm_migrate(q, 1, NULL, NULL, 0, 0, NULL, NULL), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_NULL_ARGUMENT);
    assert_result_logged(hst_svm_migrate(q, 2, ptrs, NULL, 0, 0, NULL, NULL), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_NULL_ARGUMENT);
    assert_non_null(strstr(f->log.last_message, "ptrs[1]"));
    assert_result_logged(hst_svm_migrate(q, 1, ptrs, NULL, 4, 0, NULL, NULL), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_OUT_OF_RANGE);
    assert_non_null(strstr(f->log.last_message, "migrate_flags"));
    assert_int_equal(hst_svm_migrate(NULL, 1, ptrs, NULL, 0, 0, NULL, NULL), HST_ERROR_INVALID_ARGUMENT);
}

/* ---- raw info queries: the typed getters' values, through OpenCL's params ------------------ */
/* OpenCL's numbers (cl.h), spelled here so that the test builds without the OpenCL headers. */
enum { MEM_TYPE = 0x1100, MEM_FLAGS = 0x1101, MEM_SIZE = 0x1102, MEM_HOST_PTR = 0x1103, MEM_REFS = 0x1105,
       MEM_CONTEXT = 0x1106, MEM_OFFSET = 0x1108, IMAGE_FORMAT = 0x1110, IMAGE_ELEMENT_SIZE = 0x1111,
       IMAGE_ROW_PITCH = 0x1112, IMAGE_SLICE_PITCH = 0x1113, IMAGE_WIDTH = 0x1114, IMAGE_HEIGHT = 0x1115,
       IMAGE_DEPTH = 0x1116, IMAGE_ARRAY_SIZE = 0x1117, OBJ_BUFFER = 0x10F0, OBJ_IMAGE2D = 0x10F1,
       OBJ_IMAGE3D = 0x10F2, SAMPLER_REFS = 0x1150 };

static size_t buf_size_info(const hst_buffer *b, uint32_t param) {
    size_t v = 0, n = 0;
    assert_int_equal(hst_buffer_get_info_raw(b, param, sizeof v, &v, &n), HST_SUCCESS);
    assert_int_equal(n, sizeof v);
    return v;
}

static size_t img_size_info(const hst_image *img, uint32_t param) {
    size_t v = 0, n = 0;
    assert_int_equal(hst_image_get_info_raw(img, param, sizeof v, &v, &n), HST_SUCCESS);
    assert_int_equal(n, sizeof v);
    return v;
}

static uint32_t u32_info(hst_result (*get)(const void *, uint32_t, size_t, void *, size_t *), const void *o,
                         uint32_t param) {
    uint32_t v = 0;
    size_t n = 0;
    assert_int_equal(get(o, param, sizeof v, &v, &n), HST_SUCCESS);
    assert_int_equal(n, sizeof v);
    return v;
}
static hst_result get_buf(const void *o, uint32_t p, size_t b, void *v, size_t *n) { return hst_buffer_get_info_raw((const hst_buffer *)o, p, b, v, n); }
static hst_result get_img(const void *o, uint32_t p, size_t b, void *v, size_t *n) { return hst_image_get_info_raw((const hst_image *)o, p, b, v, n); }
static hst_result get_smp(const void *o, uint32_t p, size_t b, void *v, size_t *n) { return hst_sampler_get_info_raw((const hst_sampler *)o, p, b, v, n); }

/* Buffers (plain, sub-buffer, wrapped host memory), images (2-D, 3-D) and samplers answer
   OpenCL's params with what the typed getters say, on every device; the refusals. */
static void test_info_raw(void **state) {
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    size_t align = hst_backend_device(be)->mem_base_addr_align_bytes, n = 0;
    static int32_t host_mem[256];
    hst_buffer *b = NULL, *sub = NULL, *w = NULL;
    void *p = (void *)&n;
    uint32_t big[4];
    if (align < 4) align = 4;
    assert_int_equal(hst_buffer_create(be, 4 * align, HST_MEM_READ_WRITE, &b), HST_SUCCESS);
    assert_int_equal(hst_buffer_create_sub(b, align, align, &sub), HST_SUCCESS);
    assert_int_equal(hst_buffer_wrap(be, host_mem, sizeof host_mem, HST_MEM_READ_WRITE, &w), HST_SUCCESS);
    assert_int_equal(u32_info(get_buf, b, MEM_TYPE), OBJ_BUFFER);
    assert_int_equal(buf_size_info(b, MEM_SIZE), 4 * align);
    assert_int_equal(buf_size_info(sub, MEM_SIZE), align);
    assert_int_equal(buf_size_info(sub, MEM_OFFSET), align);
    assert_int_equal(buf_size_info(b, MEM_OFFSET), 0);
    assert_true(u32_info(get_buf, b, MEM_REFS) >= 1);
    assert_int_equal(hst_buffer_get_info_raw(w, MEM_HOST_PTR, sizeof p, &p, &n), HST_SUCCESS);
    assert_int_equal(n, sizeof p);
    assert_ptr_equal(p, host_mem);
    assert_int_equal(hst_buffer_get_info_raw(b, MEM_HOST_PTR, sizeof p, &p, NULL), HST_SUCCESS);
    assert_null(p);
    /* the size alone; a value too small is refused the same way everywhere */
    n = 0;
    assert_int_equal(hst_buffer_get_info_raw(b, MEM_SIZE, 0, NULL, &n), HST_SUCCESS);
    assert_int_equal(n, sizeof(size_t));
    cap_reset(&f->log);
    assert_result_logged(hst_buffer_get_info_raw(b, MEM_SIZE, 4, big, &n), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_OUT_OF_RANGE);
    assert_non_null(strstr(f->log.last_message, "bytes 4"));
    assert_result_logged(hst_buffer_get_info_raw(b, IMAGE_WIDTH, sizeof big, big, &n), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_non_null(strstr(f->log.last_message, "param 0x1114"));
    assert_int_equal(hst_buffer_get_info_raw(NULL, MEM_SIZE, sizeof big, big, &n), HST_ERROR_INVALID_ARGUMENT);
    if (hst_backend_is_host(be)) {   /* no context, no flags on the host device */
        assert_result_logged(hst_buffer_get_info_raw(b, MEM_CONTEXT, sizeof big, big, &n), HST_ERROR_UNSUPPORTED,
                             &f->log, HST_LOGITEM_UNSUPPORTED);
        assert_non_null(strstr(f->log.last_message, "0x1106"));
        assert_result_logged(hst_buffer_get_info_raw(b, MEM_FLAGS, sizeof big, big, &n), HST_ERROR_UNSUPPORTED,
                             &f->log, HST_LOGITEM_UNSUPPORTED);
    }
#ifndef HST_NO_OPENCL
    else {
        cl_context ctx = NULL;
        assert_int_equal(hst_buffer_get_info_raw(b, MEM_CONTEXT, sizeof ctx, &ctx, NULL), HST_SUCCESS);
        assert_ptr_equal(ctx, hst_backend_cl_context(be));
    }
#endif
    hst_buffer_destroy(sub);
    hst_buffer_destroy(b);
    hst_buffer_destroy(w);

    if (hst_backend_device(be)->images) {   /* images: the typed info, raw */
        const size_t shape2[2] = {3, 5}, shape3[3] = {2, 3, 5};
        hst_image *i2 = NULL, *i3 = NULL;
        hst_image_info t;
        hst_image_format fm;
        assert_int_equal(hst_image_from_array(be, HST_F32, 4, 0, 2, shape2, NULL, &i2), HST_SUCCESS);
        assert_int_equal(hst_image_from_array(be, HST_U8, 1, 1, 3, shape3, NULL, &i3), HST_SUCCESS);
        assert_int_equal(u32_info(get_img, i2, MEM_TYPE), OBJ_IMAGE2D);
        assert_int_equal(u32_info(get_img, i3, MEM_TYPE), OBJ_IMAGE3D);
        assert_int_equal(hst_image_get_info(i3, &t), HST_SUCCESS);
        assert_int_equal(hst_image_get_info_raw(i3, IMAGE_FORMAT, sizeof fm, &fm, &n), HST_SUCCESS);
        assert_int_equal(n, sizeof fm);
        assert_int_equal(fm.channel_order, t.format.channel_order);
        assert_int_equal(fm.channel_type, t.format.channel_type);
        assert_int_equal(img_size_info(i3, IMAGE_ELEMENT_SIZE), t.pixel_bytes);
        assert_int_equal(img_size_info(i3, IMAGE_ROW_PITCH), t.row_pitch);
        assert_int_equal(img_size_info(i3, IMAGE_SLICE_PITCH), t.slice_pitch);
        assert_int_equal(img_size_info(i3, IMAGE_WIDTH), 5);
        assert_int_equal(img_size_info(i3, IMAGE_HEIGHT), 3);
        assert_int_equal(img_size_info(i3, IMAGE_DEPTH), 2);
        assert_int_equal(img_size_info(i2, IMAGE_DEPTH), 0);     /* OpenCL's depth of a 2-D image */
        assert_int_equal(img_size_info(i2, IMAGE_ARRAY_SIZE), 0);
        assert_int_equal(img_size_info(i2, IMAGE_SLICE_PITCH), 0);
        assert_int_equal(img_size_info(i2, IMAGE_ELEMENT_SIZE), 16);
        assert_true(img_size_info(i2, MEM_SIZE) >= 3 * 5 * 16);
        cap_reset(&f->log);
        assert_result_logged(hst_image_get_info_raw(i2, 0x1120, sizeof big, big, &n), HST_ERROR_INVALID_ARGUMENT,
                             &f->log, HST_LOGITEM_OUT_OF_RANGE);
        assert_non_null(strstr(f->log.last_message, "param 0x1120"));
        hst_image_destroy(i2);
        hst_image_destroy(i3);

        {   /* samplers */
            hst_sampler *s = NULL;
            assert_int_equal(hst_sampler_create(be, 1, HST_ADDRESS_MIRRORED_REPEAT, HST_FILTER_LINEAR, &s), HST_SUCCESS);
            assert_int_equal(u32_info(get_smp, s, HST_SAMPLER_NORMALIZED_COORDS), 1);
            assert_int_equal(u32_info(get_smp, s, HST_SAMPLER_ADDRESSING_MODE), HST_CL_ADDRESS_BASE + HST_ADDRESS_MIRRORED_REPEAT);
            assert_int_equal(u32_info(get_smp, s, HST_SAMPLER_FILTER_MODE), HST_CL_FILTER_BASE + HST_FILTER_LINEAR);
            assert_true(u32_info(get_smp, s, SAMPLER_REFS) >= 1);
            cap_reset(&f->log);
            assert_result_logged(hst_sampler_get_info_raw(s, MEM_SIZE, sizeof big, big, &n), HST_ERROR_INVALID_ARGUMENT,
                                 &f->log, HST_LOGITEM_OUT_OF_RANGE);
            assert_int_equal(hst_sampler_get_info_raw(NULL, SAMPLER_REFS, sizeof big, big, &n),
                             HST_ERROR_INVALID_ARGUMENT);   /* no backend to log to: stderr's */
            assert_int_equal(hst_image_get_info_raw(NULL, IMAGE_WIDTH, sizeof big, big, &n), HST_ERROR_INVALID_ARGUMENT);
            hst_sampler_destroy(s);
        }
    }
}

#ifndef HST_NO_OPENCL
static cl_uint mem_refs(cl_mem m) {
    cl_uint n = 0;
    assert_int_equal(clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof n, &n, NULL), CL_SUCCESS);
    return n;
}

/* A cl_mem made with OpenCL's own calls becomes an hst_buffer (PyOpenCL's from_int_ptr): the
   same object (hst_buffer_cl), its size, its contents; a reference of its own, released by
   hst_buffer_destroy, so the caller's may go first. Refused: images, another context's
   buffers, NULL, the host device. */
static void test_buffer_from_cl(void **state) {
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    int32_t src[N], got[N];
    hst_buffer *b = NULL;
    cl_mem mem, keep;
    cl_int err;
    int i;
    if (hst_backend_is_host(be)) {
        int x = 0;
        cap_reset(&f->log);
        assert_result_logged(hst_buffer_from_cl(be, (cl_mem)(void *)&x, &b), HST_ERROR_UNSUPPORTED, &f->log,
                             HST_LOGITEM_UNSUPPORTED);
        assert_null(b);
        return;
    }
    for (i = 0; i < N; i++) src[i] = 5 * i - 17;
    mem = clCreateBuffer(hst_backend_cl_context(be), CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof src, src, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(hst_buffer_from_cl(be, mem, &b), HST_SUCCESS);
    assert_ptr_equal(hst_buffer_cl(b), mem);
    assert_int_equal(hst_buffer_bytes(b), sizeof src);
    assert_null(hst_buffer_host_ptr(b));
    assert_true(hst_buffer_serial(b) > 0);
    assert_int_equal(mem_refs(mem), 2);
    assert_int_equal(clRetainMemObject(mem), CL_SUCCESS);   /* to watch it after destroy */
    keep = mem;
    assert_int_equal(clReleaseMemObject(mem), CL_SUCCESS);  /* the caller's first reference */
    assert_int_equal(hst_read(q, b, 0, got, sizeof got, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(got, src, sizeof src);
    {   /* the library's calls use it like any buffer */
        const int32_t pat = -1;
        assert_int_equal(hst_fill(q, b, &pat, sizeof pat, 16, 32, 0, NULL, NULL), HST_SUCCESS);
        assert_int_equal(hst_read(q, b, 0, got, sizeof got, 1, 0, NULL, NULL), HST_SUCCESS);
        for (i = 0; i < N; i++) assert_int_equal(got[i], i >= 4 && i < 12 ? -1 : src[i]);
    }
    hst_buffer_destroy(b);
    assert_int_equal(mem_refs(keep), 1);                    /* destroy released its own */
    assert_int_equal(clReleaseMemObject(keep), CL_SUCCESS);

    /* refusals */
    cap_reset(&f->log);
    b = (hst_buffer *)(void *)&err;
    assert_result_logged(hst_buffer_from_cl(be, NULL, &b), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_NULL_ARGUMENT);
    assert_null(b);
    assert_non_null(strstr(f->log.last_message, "mem"));
    if (hst_backend_device(be)->images) {
        cl_image_format fmt;
        cl_image_desc d;
        fmt.image_channel_order = CL_RGBA; fmt.image_channel_data_type = CL_FLOAT;
        memset(&d, 0, sizeof d);
        d.image_type = CL_MEM_OBJECT_IMAGE2D; d.image_width = 4; d.image_height = 4;
        mem = clCreateImage(hst_backend_cl_context(be), CL_MEM_READ_WRITE, &fmt, &d, NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
        assert_result_logged(hst_buffer_from_cl(be, mem, &b), HST_ERROR_INVALID_ARGUMENT, &f->log,
                             HST_LOGITEM_BAD_ARGUMENT);
        assert_non_null(strstr(f->log.last_message, "not a buffer"));
        assert_int_equal(mem_refs(mem), 1);                 /* not retained */
        clReleaseMemObject(mem);
    }
    {
        cl_device_id dev = hst_backend_cl_device(be);
        cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
        mem = clCreateBuffer(other, CL_MEM_READ_WRITE, 64, NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
        assert_result_logged(hst_buffer_from_cl(be, mem, &b), HST_ERROR_INVALID_ARGUMENT, &f->log,
                             HST_LOGITEM_BAD_ARGUMENT);
        assert_non_null(strstr(f->log.last_message, "another context"));
        assert_int_equal(mem_refs(mem), 1);
        clReleaseMemObject(mem);
        clReleaseContext(other);
    }
}

/* A 2-D image of ctx made with OpenCL's own call, of the format (order, type), 4 x 3 pixels. */
static cl_mem cl_image_2d(cl_context ctx, cl_mem_flags flags, cl_uint order, cl_uint type, cl_int *err) {
    cl_image_format fmt;
    cl_image_desc d;
    fmt.image_channel_order = order;
    fmt.image_channel_data_type = type;
    memset(&d, 0, sizeof d);
    d.image_type = CL_MEM_OBJECT_IMAGE2D;
    d.image_width = 4;
    d.image_height = 3;
    return clCreateImage(ctx, flags, &fmt, &d, NULL, err);
}

/* A sampler of ctx made with OpenCL's own call (OpenCL 1.2's, which every version keeps). */
static cl_sampler cl_sampler_make(cl_context ctx, cl_bool norm, cl_addressing_mode address, cl_filter_mode filter,
                                  cl_int *err) {
#if defined(__GNUC__) || defined(__clang__)
#  pragma GCC diagnostic push
#  pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
    return clCreateSampler(ctx, norm, address, filter, err);
#if defined(__GNUC__) || defined(__clang__)
#  pragma GCC diagnostic pop
#endif
}

static cl_uint sampler_refs(cl_sampler s) {
    cl_uint n = 0;
    assert_int_equal(clGetSamplerInfo(s, CL_SAMPLER_REFERENCE_COUNT, sizeof n, &n, NULL), CL_SUCCESS);
    return n;
}

/* Images and samplers made with OpenCL's own calls become hst_image / hst_sampler (PyOpenCL's
   Image.from_int_ptr, Sampler.from_int_ptr): the same objects, their description read back
   (type, extent, access, format as dtype/channels/normalized; a sampler's modes), pixels
   written and read through the library, a reference of their own (the caller's may go first).
   Refused: a buffer, a 1-D buffer image, a format outside hst_image_from_array's, another
   context's objects, NULL, the host device. */
static void test_image_sampler_from_cl(void **state) {
    static const size_t o0[3] = {0, 0, 0}, region[3] = {4, 3, 1};
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    hst_image *img = NULL;
    hst_sampler *smp = NULL;
    hst_image_info info;
    hst_sampler_info si;
    unsigned char px[12], got[12];
    cl_mem mem, keep;
    cl_sampler cs;
    cl_int err;
    int i;
    memset(&si, 0xA5, sizeof si);   /* a pattern no field holds: a get_info that writes nothing fails */
    if (hst_backend_is_host(be)) {
        int x = 0;
        cap_reset(&f->log);
        assert_result_logged(hst_image_from_cl(be, (cl_mem)(void *)&x, &img), HST_ERROR_UNSUPPORTED, &f->log,
                             HST_LOGITEM_UNSUPPORTED);
        assert_null(img);
        assert_result_logged(hst_sampler_from_cl(be, (cl_sampler)(void *)&x, &smp), HST_ERROR_UNSUPPORTED, &f->log,
                             HST_LOGITEM_UNSUPPORTED);
        assert_null(smp);
        return;
    }
    if (!hst_backend_device(be)->images) { skip(); return; }
    for (i = 0; i < 12; i++) px[i] = (unsigned char)(17 * i + 3);
    mem = cl_image_2d(hst_backend_cl_context(be), CL_MEM_READ_ONLY, CL_R, CL_UNORM_INT8, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(hst_image_from_cl(be, mem, &img), HST_SUCCESS);
    assert_ptr_equal(hst_image_cl(img), mem);
    assert_int_equal(mem_refs(mem), 2);
    assert_int_equal(hst_image_get_info(img, &info), HST_SUCCESS);
    assert_int_equal(info.type, HST_IMAGE_2D);
    assert_int_equal(info.ndim, 2);
    assert_int_equal(info.width, 4);
    assert_int_equal(info.height, 3);
    assert_int_equal(info.depth, 1);
    assert_int_equal(info.array_size, 0);
    assert_int_equal(info.mem_flags, HST_MEM_READ_ONLY);
    assert_int_equal(info.dtype, HST_U8);
    assert_int_equal(info.channels, 1);
    assert_int_equal(info.normalized, 1);
    assert_int_equal(info.pixel_bytes, 1);
    keep = mem;
    assert_int_equal(clRetainMemObject(keep), CL_SUCCESS);   /* to watch it after destroy */
    assert_int_equal(clReleaseMemObject(mem), CL_SUCCESS);   /* the caller's first reference */
    assert_int_equal(hst_image_write(q, img, o0, region, px, 0, 0, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(clEnqueueReadImage(hst_queue_cl(q), keep, CL_TRUE, o0, region, 0, 0, got, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_memory_equal(got, px, sizeof px);                 /* the same object's pixels */
    memset(got, 0, sizeof got);
    assert_int_equal(hst_image_read(q, img, o0, region, got, 0, 0, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(got, px, sizeof px);
    hst_image_destroy(img);
    assert_int_equal(mem_refs(keep), 1);                     /* destroy released its own */
    assert_int_equal(clReleaseMemObject(keep), CL_SUCCESS);
    assert_int_equal(hst_backend_device_bytes(be), 0);       /* and its bytes' count */

    mem = cl_image_2d(hst_backend_cl_context(be), CL_MEM_READ_WRITE, CL_RGBA, CL_FLOAT, &err);   /* f32 x 4 */
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(hst_image_from_cl(be, mem, &img), HST_SUCCESS);
    assert_int_equal(hst_image_get_info(img, &info), HST_SUCCESS);
    assert_int_equal(info.dtype, HST_F32);
    assert_int_equal(info.channels, 4);
    assert_int_equal(info.normalized, 0);
    assert_int_equal(info.mem_flags, HST_MEM_READ_WRITE);
    assert_int_equal(hst_backend_device_bytes(be), 4 * 3 * 16);
    hst_image_destroy(img);
    clReleaseMemObject(mem);

    cs = cl_sampler_make(hst_backend_cl_context(be), CL_TRUE, CL_ADDRESS_MIRRORED_REPEAT, CL_FILTER_LINEAR, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(hst_sampler_from_cl(be, cs, &smp), HST_SUCCESS);
    assert_ptr_equal(hst_sampler_cl(smp), cs);
    assert_int_equal(sampler_refs(cs), 2);
    assert_int_equal(hst_sampler_get_info(smp, &si), HST_SUCCESS);
    assert_int_equal(si.normalized_coords, 1);
    assert_int_equal(si.address_mode, HST_ADDRESS_MIRRORED_REPEAT);
    assert_int_equal(si.filter_mode, HST_FILTER_LINEAR);
    hst_sampler_destroy(smp);
    assert_int_equal(sampler_refs(cs), 1);
    clReleaseSampler(cs);

    /* refusals: nothing retained */
    cap_reset(&f->log);
    assert_result_logged(hst_image_from_cl(be, NULL, &img), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_NULL_ARGUMENT);
    assert_result_logged(hst_sampler_from_cl(be, NULL, &smp), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_NULL_ARGUMENT);
    mem = clCreateBuffer(hst_backend_cl_context(be), CL_MEM_READ_WRITE, 64, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_result_logged(hst_image_from_cl(be, mem, &img), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_BAD_ARGUMENT);
    assert_non_null(strstr(f->log.last_message, "not an image"));
    {   /* a 1-D buffer image over it */
        cl_image_format fmt;
        cl_image_desc d;
        cl_mem view;
        fmt.image_channel_order = CL_R; fmt.image_channel_data_type = CL_FLOAT;
        memset(&d, 0, sizeof d);
        d.image_type = CL_MEM_OBJECT_IMAGE1D_BUFFER; d.image_width = 16; d.buffer = mem;
        view = clCreateImage(hst_backend_cl_context(be), CL_MEM_READ_WRITE, &fmt, &d, NULL, &err);
        assert_int_equal(err, CL_SUCCESS);   /* OpenCL 1.2: every device with images has them */
        assert_result_logged(hst_image_from_cl(be, view, &img), HST_ERROR_UNSUPPORTED, &f->log,
                             HST_LOGITEM_UNSUPPORTED);
        assert_non_null(strstr(f->log.last_message, "hst_buffer_from_cl"));
        assert_int_equal(mem_refs(view), 1);
        clReleaseMemObject(view);
    }
    assert_int_equal(mem_refs(mem), 1);
    clReleaseMemObject(mem);
    {   /* formats outside the vocabulary, of OpenCL's minimum lists: the first the device makes */
        static const cl_uint other[4][2] = {{CL_RGBA, CL_UNORM_INT16}, {CL_RGBA, CL_HALF_FLOAT},
                                            {CL_BGRA, CL_UNORM_INT8}, {CL_R, CL_UNSIGNED_INT16}};
        char want[64];
        for (i = 0; i < 4; i++)
            if ((mem = cl_image_2d(hst_backend_cl_context(be), CL_MEM_READ_WRITE, other[i][0], other[i][1], &err)) &&
                err == CL_SUCCESS) break;
        assert_true(i < 4);
        snprintf(want, sizeof want, "order 0x%x, type 0x%x", (unsigned)other[i][0], (unsigned)other[i][1]);
        assert_result_logged(hst_image_from_cl(be, mem, &img), HST_ERROR_DTYPE, &f->log, HST_LOGITEM_DTYPE);
        assert_non_null(strstr(f->log.last_message, want));
        assert_null(img);
        assert_int_equal(mem_refs(mem), 1);
        clReleaseMemObject(mem);
    }
    {
        cl_device_id dev = hst_backend_cl_device(be);
        cl_context other = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
        assert_int_equal(err, CL_SUCCESS);
        mem = cl_image_2d(other, CL_MEM_READ_WRITE, CL_R, CL_FLOAT, &err);
        assert_int_equal(err, CL_SUCCESS);
        assert_result_logged(hst_image_from_cl(be, mem, &img), HST_ERROR_INVALID_ARGUMENT, &f->log,
                             HST_LOGITEM_BAD_ARGUMENT);
        assert_non_null(strstr(f->log.last_message, "another context"));
        assert_int_equal(mem_refs(mem), 1);
        clReleaseMemObject(mem);
        cs = cl_sampler_make(other, CL_FALSE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST, &err);
        assert_int_equal(err, CL_SUCCESS);
        assert_result_logged(hst_sampler_from_cl(be, cs, &smp), HST_ERROR_INVALID_ARGUMENT, &f->log,
                             HST_LOGITEM_BAD_ARGUMENT);
        assert_int_equal(sampler_refs(cs), 1);
        clReleaseSampler(cs);
        clReleaseContext(other);
    }
}
#endif

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_fine_svm_kernel_arg, reset_log),
        cmocka_unit_test_setup(test_coarse_svm_migrate_kernel_arg, reset_log),
        cmocka_unit_test_setup(test_svm_migrate_errors, reset_log),
        cmocka_unit_test_setup(test_info_raw, reset_log),
#ifndef HST_NO_OPENCL
        cmocka_unit_test_setup(test_buffer_from_cl, reset_log),
        cmocka_unit_test_setup(test_image_sampler_from_cl, reset_log),
#endif
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
