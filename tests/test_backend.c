/* tests/test_backend.c — the device shim of backend.h: results and logging, devices and their
   selection, backends (own and wrapped OpenCL objects), queues and events, buffers (sub-buffers,
   pinned memory, fill, linear and rectangular copies, maps, migration, SVM), images, the pool,
   programs with their in-memory and disk caches, and error paths (every rejection checked by its
   result AND its log item). The array vocabulary is tests/test_vocab.c's business.

   Runs once per device: the backends are created with desc.device = NULL, so HST_DEVICE picks.
   Tests that need an OpenCL device skip on the host device (and in HST_NO_OPENCL builds). */
#define HST_IMPLEMENTATION
#define _XOPEN_SOURCE 700   /* mkdtemp, for the disk-cache tests' temporary directories */
#include "backend.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cap_log.h"

/* Asserts a result and that the log's last item is `item` (and that it was logged). */
#define assert_result_logged(r, code, log, item) do {                                         \
        assert_int_equal((r), (code));                                                        \
        assert_int_equal((log)->last_item, (item));                                           \
        assert_true((log)->counts[(item)] >= 1);                                              \
    } while (0)

static int contains_nocase(const char *hay, const char *needle)
{
    size_t i, j, hn = strlen(hay), nn = strlen(needle);
    for (i = 0; i + nn <= hn; i++) {
        for (j = 0; j < nn; j++)
            if (tolower((unsigned char)hay[i + j]) != tolower((unsigned char)needle[j])) break;
        if (j == nn) return 1;
    }
    return 0;
}

static void free_stub_for_tests(void *ptr, void *user) { (void)user; free(ptr); }

/* ---- group fixture (be_fixture.h): one backend on the selected device, everything logged -- */
#define BE_FIXTURE_LOG_LEVEL 0
#include "be_fixture.h"

#define FIX(state) ((fixture *)*(state))
#define NEED_OPENCL(be) do { if (hst_backend_is_host(be)) { skip(); return; } } while (0)

static void fill_pattern(unsigned char *p, size_t n, unsigned seed)
{
    size_t i;
    for (i = 0; i < n; i++) p[i] = (unsigned char)((i * 131u + seed * 17u + (i >> 8)) & 0xff);
}

/* ============================================================================================
   Extensions: the layers above backend.h hang their state on a backend by name; destroy hooks
   run in hst_backend_destroy, the last attached first. */
static int ext_order[HST_BACKEND_MAX_EXTENSIONS];
static int ext_calls;

static void ext_destroy(hst_backend *be, void *data)
{
    assert_non_null(hst_backend_queue(be));   /* the backend is still whole */
    ext_order[ext_calls++] = *(int *)data;
}

static void test_backend_extensions(void **state)
{
    static int tags[HST_BACKEND_MAX_EXTENSIONS + 1];
    static const char *const names[HST_BACKEND_MAX_EXTENSIONS + 1] = {
        "e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7", "e8"};
    char same_name[3] = {'e', '1', '\0'};   /* equal text, another pointer */
    cap_log log;
    hst_backend_desc desc = cap_desc(&log);
    hst_backend *be;
    int i;
    (void)state;
    assert_int_equal(HST_BACKEND_MAX_EXTENSIONS, 8);   /* names[] holds one more than fits */
    assert_int_equal(hst_backend_create(&desc, &be), HST_SUCCESS);
    assert_null(hst_backend_extension(be, "e0"));
    for (i = 0; i < HST_BACKEND_MAX_EXTENSIONS; i++) {
        tags[i] = i;
        assert_int_equal(hst_backend_attach(be, names[i], &tags[i], ext_destroy), HST_SUCCESS);
    }
    assert_ptr_equal(hst_backend_extension(be, same_name), &tags[1]);
    assert_null(hst_backend_extension(be, "e8"));
    assert_null(hst_backend_extension(be, NULL));
    assert_result_logged(hst_backend_attach(be, same_name, &tags[8], NULL),
                         HST_ERROR_INVALID_ARGUMENT, &log, HST_LOGITEM_BAD_STATE);
    assert_non_null(strstr(log.last_message, "attached already"));
    assert_result_logged(hst_backend_attach(be, "e8", NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &log, HST_LOGITEM_NULL_ARGUMENT);
    assert_result_logged(hst_backend_attach(be, "e8", &tags[8], NULL),
                         HST_ERROR_UNSUPPORTED, &log, HST_LOGITEM_UNSUPPORTED);
    assert_int_equal(hst_backend_attach(NULL, "e8", &tags[8], NULL), HST_ERROR_INVALID_ARGUMENT);
    /* holds: NULL arguments, a second hold by the same holder, destroy while held */
    assert_result_logged(hst_backend_hold(be, NULL, "tag"), HST_ERROR_INVALID_ARGUMENT, &log,
                         HST_LOGITEM_NULL_ARGUMENT);
    assert_non_null(strstr(log.last_message, "holder is NULL"));
    assert_result_logged(hst_backend_hold(be, &tags[0], NULL), HST_ERROR_INVALID_ARGUMENT, &log,
                         HST_LOGITEM_NULL_ARGUMENT);
    assert_non_null(strstr(log.last_message, "what is NULL"));
    assert_int_equal(hst_backend_hold(be, &tags[0], "tag"), HST_SUCCESS);
    assert_result_logged(hst_backend_hold(be, &tags[0], "tag"), HST_ERROR_INVALID_ARGUMENT, &log,
                         HST_LOGITEM_BAD_STATE);
    assert_non_null(strstr(log.last_message, "already holds"));
    assert_result_logged(hst_backend_destroy(be), HST_ERROR_INVALID_ARGUMENT, &log,
                         HST_LOGITEM_BAD_STATE);
    assert_int_equal(hst_backend_holds(be), 1);
    hst_backend_release_hold(be, &tags[0]);
    assert_int_equal(hst_backend_holds(be), 0);
    ext_calls = 0;
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
    assert_int_equal(ext_calls, HST_BACKEND_MAX_EXTENSIONS);
    for (i = 0; i < HST_BACKEND_MAX_EXTENSIONS; i++)
        assert_int_equal(ext_order[i], HST_BACKEND_MAX_EXTENSIONS - 1 - i);
}

/* ============================================================================================
   Results and logging: every result has its name (ours and OpenCL's, passed through), every
   log item its stable name, and only out-of-device-memory codes count as out of memory. */
/* Every result of HST_RESULT_LIST has its own name, "HST_<NAME>", and every value its own. */
static void test_result_strings(void **state)
{
#define RESULT_ROW(name, value) {value, "HST_" #name},
    static const struct { hst_result r; const char *name; } ours[] = {HST_RESULT_LIST(RESULT_ROW)};
#undef RESULT_ROW
    size_t i, j, n = sizeof ours / sizeof ours[0];
    (void)state;
    assert_true(n >= 14);   /* SUCCESS and the 13 errors of 0.1.0 */
    for (i = 0; i < n; i++) {
        assert_string_equal(hst_result_string(ours[i].r), ours[i].name);
        assert_true(ours[i].r == HST_SUCCESS || ours[i].r < HST_ERROR_BASE);
        for (j = 0; j < i; j++) assert_int_not_equal(ours[i].r, ours[j].r);
    }
    assert_string_equal(hst_result_string(-11), "CL_BUILD_PROGRAM_FAILURE");
    assert_string_equal(hst_result_string(-46), "CL_INVALID_KERNEL_NAME");
    assert_string_equal(hst_result_string(-4), "CL_MEM_OBJECT_ALLOCATION_FAILURE");
    assert_string_equal(hst_result_string(-5), "CL_OUT_OF_RESOURCES");
    /* unknown codes still get a non-NULL, non-empty name */
    assert_non_null(hst_result_string(-12345));
    assert_true(strlen(hst_result_string(-12345)) > 0);
    assert_non_null(hst_result_string(777));
    assert_true(strlen(hst_result_string(777)) > 0);
}

/* Every log item of HST_LOGITEM_LIST has an id in list order and its own name. */
static void test_log_item_names(void **state)
{
#define ITEM_ROW(name) {HST_LOGITEM_##name, #name},
    static const struct { hst_log_item item; const char *name; } items[] = {
        HST_LOGITEM_LIST(ITEM_ROW)};
#undef ITEM_ROW
    size_t i, j, n = sizeof items / sizeof items[0];
    (void)state;
    assert_int_equal(n, HST_LOGITEM_COUNT);
    for (i = 0; i < n; i++) {
        assert_int_equal(items[i].item, (hst_log_item)i);
        assert_string_equal(hst_log_item_name(items[i].item), items[i].name);
        for (j = 0; j < i; j++) assert_string_not_equal(items[i].name, items[j].name);
    }
    assert_string_equal(hst_log_item_name(HST_LOGITEM_BAD_ARGUMENT), "BAD_ARGUMENT");
    assert_string_equal(hst_log_item_name(HST_LOGITEM_COUNT), "UNKNOWN");
    assert_string_equal(hst_log_item_name((hst_log_item)-1), "UNKNOWN");
}

static void test_result_out_of_memory(void **state)
{
    (void)state;
    assert_true(hst_result_is_out_of_memory(HST_ERROR_OUT_OF_DEVICE_MEMORY));
    assert_true(hst_result_is_out_of_memory(-4));   /* CL_MEM_OBJECT_ALLOCATION_FAILURE */
    assert_false(hst_result_is_out_of_memory(HST_SUCCESS));
    assert_false(hst_result_is_out_of_memory(HST_ERROR_INVALID_ARGUMENT));
    assert_false(hst_result_is_out_of_memory(HST_ERROR_OVERFLOW));
    assert_false(hst_result_is_out_of_memory(-11));
    assert_false(hst_result_is_out_of_memory(-46));
}

/* ============================================================================================
   Devices: the list (size query, then fill; OpenCL devices first, the host device last), and
   selection by auto, kind, "P:D", name substring and $HST_DEVICE; a selector that matches
   nothing fails with the list of what exists, for hst_device_select and backend creation. */
static hst_device_info *get_devices(size_t *n)
{
    hst_device_info *list;
    size_t got = 0;
    assert_int_equal(hst_devices(NULL, 0, n), HST_SUCCESS);
    assert_true(*n >= 1);
    list = (hst_device_info *)calloc(*n, sizeof *list);
    assert_non_null(list);
    assert_int_equal(hst_devices(list, *n, &got), HST_SUCCESS);
    assert_int_equal(got, *n);
    return list;
}

static void test_devices_list(void **state)
{
    size_t n = 0, i, got = 0;
    hst_device_info *list, two[2];
    (void)state;
    list = get_devices(&n);
    /* the host device is last */
    assert_string_equal(list[n - 1].selector, "host");
    assert_int_equal(list[n - 1].type, HST_DEVICE_HOST);
    assert_int_equal(list[n - 1].platform_index, -1);
    assert_int_equal(list[n - 1].device_index, -1);
    assert_int_equal(list[n - 1].mem_base_addr_align_bytes, 128);
    assert_true(list[n - 1].compute_units > 0);
    for (i = 0; i + 1 < n; i++) {
        char sel[32];
        assert_int_not_equal(list[i].type, HST_DEVICE_HOST);
        assert_true(strlen(list[i].name) > 0);
        assert_true(list[i].compute_units > 0);
        assert_true(list[i].mem_base_addr_align_bytes > 0);
        assert_true(list[i].max_alloc_bytes > 0);
        assert_true(list[i].global_mem_bytes >= list[i].max_alloc_bytes);
        assert_true(list[i].platform_index >= 0 && list[i].device_index >= 0);
        snprintf(sel, sizeof sel, "%d:%d", list[i].platform_index, list[i].device_index);
        assert_string_equal(list[i].selector, sel);
    }
#ifdef HST_NO_OPENCL
    assert_int_equal(n, 1);
#endif
    /* capacity 1: only the first entry is written, the count is the total */
    memset(two, 0x5a, sizeof two);
    assert_int_equal(hst_devices(two, 1, &got), HST_SUCCESS);
    assert_int_equal(got, n);
    assert_string_equal(two[0].selector, list[0].selector);
    assert_int_equal(((unsigned char *)&two[1])[0], 0x5a);
    assert_int_equal(((unsigned char *)&two[1])[sizeof two[1] - 1], 0x5a);
    /* count NULL is rejected */
    assert_int_equal(hst_devices(list, n, NULL), HST_ERROR_INVALID_ARGUMENT);
    free(list);
}

static void test_device_select(void **state)
{
    size_t n = 0, i;
    hst_device_info *list, d;
    char why[2048], word[64];
    int have_cpu = 0;
    fixture *f = FIX(state);
    list = get_devices(&n);

    /* auto: an OpenCL device when there is one, else the host */
    why[0] = '\0';
    assert_int_equal(hst_device_select("auto", &d, why, sizeof why), HST_SUCCESS);
    assert_true(strlen(why) > 0);
    if (n > 1) assert_int_not_equal(d.type, HST_DEVICE_HOST);
    else assert_string_equal(d.selector, "host");

    assert_int_equal(hst_device_select("host", &d, why, sizeof why), HST_SUCCESS);
    assert_string_equal(d.selector, "host");
    assert_int_equal(d.type, HST_DEVICE_HOST);

    for (i = 0; i < n; i++) have_cpu |= list[i].type == HST_DEVICE_CPU;
    if (have_cpu) {
        assert_int_equal(hst_device_select("cpu", &d, why, sizeof why), HST_SUCCESS);
        assert_int_equal(d.type, HST_DEVICE_CPU);
    } else {
        assert_int_equal(hst_device_select("cpu", &d, why, sizeof why), HST_ERROR_NO_DEVICE);
    }

    if (n > 1) {
        assert_int_equal(hst_device_select("0:0", &d, why, sizeof why), HST_SUCCESS);
        assert_int_equal(d.platform_index, 0);
        assert_int_equal(d.device_index, 0);
        assert_string_equal(d.name, list[0].name);
    } else {
        assert_int_equal(hst_device_select("0:0", &d, why, sizeof why), HST_ERROR_NO_DEVICE);
    }

    /* a name substring: the first word of device 0's name, lowercased */
    for (i = 0; i + 1 < sizeof word && list[0].name[i] && list[0].name[i] != ' '; i++)
        word[i] = (char)tolower((unsigned char)list[0].name[i]);
    word[i] = '\0';
    assert_true(strlen(word) > 0);
    assert_int_equal(hst_device_select(word, &d, why, sizeof why), HST_SUCCESS);
    assert_string_equal(d.selector, list[0].selector);
    assert_string_equal(d.name, list[0].name);

    /* NULL (and "") mean $HST_DEVICE: the fixture's backend was created that way */
    assert_int_equal(hst_device_select(NULL, &d, NULL, 0), HST_SUCCESS);
    assert_string_equal(d.selector, hst_backend_device(f->be)->selector);
    assert_int_equal(hst_device_select("", &d, NULL, 0), HST_SUCCESS);
    assert_string_equal(d.selector, hst_backend_device(f->be)->selector);

    /* nothing matches: the reason lists what is available */
    why[0] = '\0';
    assert_int_equal(hst_device_select("no-such-device-xyz", &d, why, sizeof why),
                     HST_ERROR_NO_DEVICE);
    assert_non_null(strstr(why, "no-such-device-xyz"));
    assert_non_null(strstr(why, "host"));
    if (n > 1) assert_non_null(strstr(why, list[0].selector));
    /* a short why buffer is NUL-terminated */
    memset(why, 'x', 16);
    assert_int_equal(hst_device_select("no-such-device-xyz", &d, why, 8), HST_ERROR_NO_DEVICE);
    assert_true(strlen(why) < 8);

    assert_int_equal(hst_device_select("auto", NULL, why, sizeof why), HST_ERROR_INVALID_ARGUMENT);
    free(list);
}

static void test_backend_unknown_device(void **state)
{
    cap_log log;
    hst_backend_desc desc = cap_desc(&log);
    hst_backend *be = (hst_backend *)&log;   /* must be overwritten with NULL */
    hst_result r;
    (void)state;
    cap_reset(&log);
    desc.device = "no-such-device-xyz";
    r = hst_backend_create(&desc, &be);
    assert_int_equal(r, HST_ERROR_NO_DEVICE);
    assert_null(be);
    assert_int_equal(log.counts[HST_LOGITEM_NO_MATCHING_DEVICE], 1);
    assert_int_equal(log.last_item, HST_LOGITEM_NO_MATCHING_DEVICE);
    assert_non_null(strstr(log.last_message, "host"));
}

/* The backend describes the device it runs on, and that device is what the selector picks. */
static void test_backend_device(void **state)
{
    fixture *f = FIX(state);
    const hst_device_info *info = hst_backend_device(f->be);
    hst_device_info d;
    assert_non_null(info);
    assert_int_equal(hst_device_select(NULL, &d, NULL, 0), HST_SUCCESS);
    assert_string_equal(info->selector, d.selector);
    assert_int_equal(hst_backend_is_host(f->be), info->type == HST_DEVICE_HOST);
    assert_non_null(hst_backend_queue(f->be));
    assert_non_null(hst_backend_pool(f->be));
#ifndef HST_NO_OPENCL
    if (hst_backend_is_host(f->be)) {
        assert_null(hst_backend_cl_context(f->be));
        assert_null(hst_backend_cl_device(f->be));
        assert_null(hst_queue_cl(hst_backend_queue(f->be)));
    } else {
        assert_non_null(hst_backend_cl_context(f->be));
        assert_non_null(hst_backend_cl_device(f->be));
        assert_non_null(hst_queue_cl(hst_backend_queue(f->be)));
    }
#endif
    /* the device selection was logged (a custom logger gets everything) */
    {
        cap_log log;
        hst_backend_desc desc = cap_desc(&log);
        hst_backend *be = NULL;
        cap_reset(&log);
        assert_int_equal(hst_backend_create(&desc, &be), HST_SUCCESS);
        assert_int_equal(log.counts[HST_LOGITEM_DEVICE_CHOSEN], 1);
        assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
    }
}

#ifndef HST_NO_OPENCL
/* A caller's context and queue: the backend works through them and leaves them usable. */
static void test_backend_wrap(void **state)
{
    fixture *f = FIX(state);
    cap_log log;
    hst_backend_desc desc = cap_desc(&log);
    hst_backend *be = NULL;
    cl_device_id dev;
    cl_context ctx;
    cl_command_queue q;
    cl_int err;
    cl_mem m;
    hst_buffer *buf = NULL;
    int in[64], out[64], i;
    NEED_OPENCL(f->be);
    dev = hst_backend_cl_device(f->be);
    ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    q = clCreateCommandQueueWithProperties(ctx, dev, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);

    cap_reset(&log);
    desc.wrap_context = ctx;
    desc.wrap_queue = q;
    assert_int_equal(hst_backend_create(&desc, &be), HST_SUCCESS);
    assert_ptr_equal(hst_backend_cl_context(be), ctx);
    assert_ptr_equal(hst_queue_cl(hst_backend_queue(be)), q);
    assert_ptr_equal(hst_backend_cl_device(be), dev);
    assert_string_equal(hst_backend_device(be)->name, hst_backend_device(f->be)->name);
    for (i = 0; i < 64; i++) in[i] = i * i - 7;
    assert_int_equal(hst_buffer_create(be, sizeof in, 0, &buf), HST_SUCCESS);
    assert_int_equal(hst_write(hst_backend_queue(be), buf, 0, in, sizeof in, 1, 0, NULL, NULL),
                     HST_SUCCESS);
    memset(out, 0, sizeof out);
    assert_int_equal(hst_read(hst_backend_queue(be), buf, 0, out, sizeof out, 1, 0, NULL, NULL),
                     HST_SUCCESS);
    assert_memory_equal(in, out, sizeof in);
    hst_buffer_destroy(buf);
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);

    /* still ours and usable (OpenCL reference counts are stale by definition, and PoCL's
       completed commands drop their queue references asynchronously, so they are not compared) */
    m = clCreateBuffer(ctx, CL_MEM_READ_WRITE, sizeof in, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_int_equal(clEnqueueWriteBuffer(q, m, CL_TRUE, 0, sizeof in, in, 0, NULL, NULL), CL_SUCCESS);
    memset(out, 0, sizeof out);
    assert_int_equal(clEnqueueReadBuffer(q, m, CL_TRUE, 0, sizeof out, out, 0, NULL, NULL), CL_SUCCESS);
    assert_memory_equal(in, out, sizeof in);
    clReleaseMemObject(m);
    clReleaseCommandQueue(q);
    clReleaseContext(ctx);
}

/* Only one of wrap_context / wrap_queue: rejected, and reported to the desc's logger. */
static void test_backend_wrap_half(void **state)
{
    fixture *f = FIX(state);
    cap_log log;
    hst_backend_desc desc = cap_desc(&log);
    hst_backend *be = NULL;
    NEED_OPENCL(f->be);
    cap_reset(&log);
    desc.wrap_context = hst_backend_cl_context(f->be);
    assert_int_equal(hst_backend_create(&desc, &be), HST_ERROR_INVALID_ARGUMENT);
    assert_null(be);
    desc.wrap_context = NULL;
    desc.wrap_queue = hst_queue_cl(hst_backend_queue(f->be));
    assert_int_equal(hst_backend_create(&desc, &be), HST_ERROR_INVALID_ARGUMENT);
    assert_null(be);
    /* "Every rejected argument ... goes to the logger": the desc names one */
    assert_int_equal(log.counts[HST_LOGITEM_BAD_ARGUMENT], 2);
}
#endif

/* ============================================================================================
   Queues and events: a second queue orders itself after the first only through an event; the
   host device returns NULL events (work is done on return); NULL entries in wait lists are
   "already complete". */
static void test_queue_events(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *qa = hst_backend_queue(be), *qb = NULL;
    hst_buffer *buf = NULL;
    hst_event ev = NULL, ev2 = NULL, waits[3];
    static int in[4096];
    int out[4096], i;
    for (i = 0; i < 4096; i++) in[i] = i * 3 - 1000;
    assert_int_equal(hst_queue_create(be, &qb), HST_SUCCESS);
    assert_non_null(qb);
    assert_ptr_not_equal(qa, qb);
#ifndef HST_NO_OPENCL
    if (!hst_backend_is_host(be)) {
        assert_non_null(hst_queue_cl(qb));
        assert_ptr_not_equal(hst_queue_cl(qb), hst_queue_cl(qa));
    }
#endif
    assert_int_equal(hst_buffer_create(be, sizeof in, 0, &buf), HST_SUCCESS);
    /* non-blocking write on A with an event; blocking read on B waiting on it */
    ev = (hst_event)&ev;   /* the host device must overwrite it with NULL */
    assert_int_equal(hst_write(qa, buf, 0, in, sizeof in, 0, 0, NULL, &ev), HST_SUCCESS);
    if (hst_backend_is_host(be)) assert_null(ev);
    else assert_non_null(ev);
    assert_int_equal(hst_queue_flush(qa), HST_SUCCESS);
    memset(out, 0, sizeof out);
    assert_int_equal(hst_read(qb, buf, 0, out, sizeof out, 1, 1, &ev, NULL), HST_SUCCESS);
    assert_memory_equal(in, out, sizeof in);

    /* wait lists with NULL entries; hst_event_wait too */
    waits[0] = NULL; waits[1] = ev; waits[2] = NULL;
    assert_int_equal(hst_event_wait(3, waits), HST_SUCCESS);
    memset(out, 0, sizeof out);
    ev2 = (hst_event)&ev2;
    assert_int_equal(hst_read(qb, buf, 4, out, 16, 0, 3, waits, &ev2), HST_SUCCESS);
    if (hst_backend_is_host(be)) assert_null(ev2);
    else assert_non_null(ev2);
    assert_int_equal(hst_event_wait(1, &ev2), HST_SUCCESS);
    assert_memory_equal(in + 1, out, 16);
    waits[0] = NULL; waits[1] = NULL;
    assert_int_equal(hst_event_wait(2, waits), HST_SUCCESS);
    assert_int_equal(hst_event_wait(0, NULL), HST_SUCCESS);
    hst_event_release(ev);
    hst_event_release(ev2);
    hst_event_release(NULL);
    /* wait == NULL with num_wait > 0 is rejected */
    cap_reset(&f->log);
    assert_result_logged(hst_read(qb, buf, 0, out, 4, 1, 1, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_NULL_ARGUMENT);
    assert_int_equal(hst_queue_finish(qb), HST_SUCCESS);
    hst_buffer_destroy(buf);
    hst_queue_destroy(qb);
    hst_queue_destroy(qa);   /* the default queue: ignored, the backend keeps working */
    hst_queue_destroy(NULL);
    assert_int_equal(hst_queue_finish(qa), HST_SUCCESS);
}

/* ============================================================================================
   Buffers: sizes, sub-buffers that alias their parent, pinned host memory, patterned fills,
   offset copies, rectangular 3-D transfers checked byte by byte against a host model, maps,
   migration, resident allocation and SVM. */
static void test_buffer_basics(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_buffer *b = NULL;
    uint64_t before = hst_backend_device_bytes(be);
    assert_int_equal(hst_buffer_create(be, 1000, 0, &b), HST_SUCCESS);
    assert_non_null(b);
    assert_int_equal(hst_buffer_bytes(b), 1000);
    assert_ptr_equal(hst_buffer_backend(b), be);
    assert_int_equal(hst_backend_device_bytes(be), before + 1000);
    if (hst_backend_is_host(be)) assert_non_null(hst_buffer_host_ptr(b));
    else assert_null(hst_buffer_host_ptr(b));
#ifndef HST_NO_OPENCL
    if (hst_backend_is_host(be)) assert_null(hst_buffer_cl(b));
    else assert_non_null(hst_buffer_cl(b));
#endif
    hst_buffer_destroy(b);
    assert_int_equal(hst_backend_device_bytes(be), before);
    hst_buffer_destroy(NULL);
    assert_int_equal(hst_buffer_bytes(NULL), 0);
    /* read-only and write-only buffers exist too */
    assert_int_equal(hst_buffer_create(be, 64, HST_MEM_READ_ONLY, &b), HST_SUCCESS);
    hst_buffer_destroy(b);
    assert_int_equal(hst_buffer_create(be, 64, HST_MEM_WRITE_ONLY, &b), HST_SUCCESS);
    hst_buffer_destroy(b);
}

static void test_buffer_sub(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    size_t align = hst_backend_device(be)->mem_base_addr_align_bytes, i;
    hst_buffer *parent = NULL, *sub = NULL;
    unsigned char *zeros, *pat, *all, got[64];
    uint64_t before;
    assert_true(align > 0);
    zeros = (unsigned char *)calloc(4 * align, 1);
    pat = (unsigned char *)malloc(align);
    all = (unsigned char *)malloc(4 * align);
    assert_non_null(zeros); assert_non_null(pat); assert_non_null(all);
    fill_pattern(pat, align, 5);
    assert_int_equal(hst_buffer_create(be, 4 * align, 0, &parent), HST_SUCCESS);
    assert_int_equal(hst_write(q, parent, 0, zeros, 4 * align, 1, 0, NULL, NULL), HST_SUCCESS);
    before = hst_backend_device_bytes(be);
    assert_int_equal(hst_buffer_create_sub(parent, align, align, &sub), HST_SUCCESS);
    assert_int_equal(hst_backend_device_bytes(be), before);   /* a view, not an allocation */
    assert_int_equal(hst_buffer_bytes(sub), align);
    assert_ptr_equal(hst_buffer_backend(sub), be);
    assert_int_equal(hst_write(q, sub, 0, pat, align, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_read(q, parent, 0, all, 4 * align, 1, 0, NULL, NULL), HST_SUCCESS);
    for (i = 0; i < align; i++) assert_int_equal(all[i], 0);
    assert_memory_equal(all + align, pat, align);
    for (i = 2 * align; i < 4 * align; i++) assert_int_equal(all[i], 0);
    /* and the other way: the parent's writes show through the sub-buffer */
    memset(got, 0xee, sizeof got);
    assert_int_equal(hst_write(q, parent, align + 8, got, 8, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_read(q, sub, 0, got, 24, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(got, pat, 8);
    for (i = 8; i < 16; i++) assert_int_equal(got[i], 0xee);
    assert_memory_equal(got + 16, pat + 16, 8);
    /* a sub-buffer of a sub-buffer is rejected */
    {
        hst_buffer *subsub = (hst_buffer *)pat;
        cap_reset(&f->log);
        assert_result_logged(hst_buffer_create_sub(sub, 0, 8, &subsub),
                             HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_BAD_ARGUMENT);
        assert_null(subsub);
    }
    hst_buffer_destroy(sub);
    hst_buffer_destroy(parent);
    free(zeros); free(pat); free(all);
}

static void test_buffer_pinned(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    hst_buffer *pin = NULL, *dev = NULL, *pin2 = NULL;
    unsigned char *p, back[8192];
    assert_int_equal(hst_pinned_create(be, 8192, &pin), HST_SUCCESS);
    assert_int_equal(hst_buffer_bytes(pin), 8192);
    p = (unsigned char *)hst_buffer_host_ptr(pin);
    assert_non_null(p);
    fill_pattern(p, 8192, 9);
    assert_int_equal(hst_buffer_create(be, 8192, 0, &dev), HST_SUCCESS);
    assert_int_equal(hst_write(q, dev, 0, p, 8192, 1, 0, NULL, NULL), HST_SUCCESS);
    memset(back, 0, sizeof back);
    assert_int_equal(hst_read(q, dev, 0, back, 8192, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(back, p, 8192);
    /* the pinned memory is also a device buffer: reading into another pinned block */
    assert_int_equal(hst_pinned_create(be, 8192, &pin2), HST_SUCCESS);
    memset(hst_buffer_host_ptr(pin2), 0, 8192);
    assert_int_equal(hst_read(q, dev, 0, hst_buffer_host_ptr(pin2), 8192, 1, 0, NULL, NULL),
                     HST_SUCCESS);
    assert_memory_equal(hst_buffer_host_ptr(pin2), p, 8192);
    hst_buffer_destroy(pin2);
    hst_buffer_destroy(dev);
    hst_buffer_destroy(pin);
}

static void test_buffer_fill(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    hst_buffer *b = NULL;
    unsigned char expect[256], got[256];
    unsigned char p1 = 0xab, p2[2] = {0x12, 0x34}, p4[4] = {1, 2, 3, 4}, p16[16];
    size_t i;
    hst_event ev = NULL;
    for (i = 0; i < 16; i++) p16[i] = (unsigned char)(0xf0 - i);
    memset(expect, 0x77, sizeof expect);
    assert_int_equal(hst_buffer_create(be, 256, 0, &b), HST_SUCCESS);
    assert_int_equal(hst_write(q, b, 0, expect, 256, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_fill(q, b, &p1, 1, 3, 9, 0, NULL, NULL), HST_SUCCESS);
    for (i = 3; i < 12; i++) expect[i] = p1;
    assert_int_equal(hst_fill(q, b, p2, 2, 32, 16, 0, NULL, NULL), HST_SUCCESS);
    for (i = 32; i < 48; i++) expect[i] = p2[i % 2];
    assert_int_equal(hst_fill(q, b, p4, 4, 64, 32, 0, NULL, NULL), HST_SUCCESS);
    for (i = 64; i < 96; i++) expect[i] = p4[i % 4];
    assert_int_equal(hst_fill(q, b, p16, 16, 128, 64, 0, NULL, &ev), HST_SUCCESS);
    for (i = 128; i < 192; i++) expect[i] = p16[i % 16];
    p16[0] = 0;   /* the pattern was copied before return */
    assert_int_equal(hst_event_wait(1, &ev), HST_SUCCESS);
    hst_event_release(ev);
    assert_int_equal(hst_read(q, b, 0, got, 256, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(got, expect, 256);
    /* misaligned offset or size (an inconsistent pair), bad pattern sizes */
    cap_reset(&f->log);
    assert_result_logged(hst_fill(q, b, p4, 4, 2, 8, 0, NULL, NULL), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_BAD_ARGUMENT);
    assert_result_logged(hst_fill(q, b, p4, 4, 4, 6, 0, NULL, NULL), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_BAD_ARGUMENT);
    assert_result_logged(hst_fill(q, b, p4, 3, 0, 3, 0, NULL, NULL), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_result_logged(hst_fill(q, b, p4, 256, 0, 256, 0, NULL, NULL), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_result_logged(hst_fill(q, b, p4, 0, 0, 4, 0, NULL, NULL), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_ZERO_SIZE);
    assert_non_null(strstr(f->log.last_message, "pattern_bytes is 0"));
    assert_result_logged(hst_fill(q, b, p4, 4, 252, 8, 0, NULL, NULL), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_OUT_OF_RANGE);
    hst_buffer_destroy(b);
}

static void test_buffer_write_read_copy(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    hst_buffer *a = NULL, *b = NULL;
    unsigned char src[1024], got[1024], zero[1024];
    size_t i;
    fill_pattern(src, sizeof src, 1);
    memset(zero, 0, sizeof zero);
    assert_int_equal(hst_buffer_create(be, 1024, 0, &a), HST_SUCCESS);
    assert_int_equal(hst_buffer_create(be, 1024, 0, &b), HST_SUCCESS);
    assert_int_equal(hst_write(q, a, 0, zero, 1024, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_write(q, b, 0, zero, 1024, 1, 0, NULL, NULL), HST_SUCCESS);
    /* write 200 bytes of src[10..210) at offset 100 */
    assert_int_equal(hst_write(q, a, 100, src + 10, 200, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_read(q, a, 50, got, 300, 1, 0, NULL, NULL), HST_SUCCESS);
    for (i = 0; i < 50; i++) assert_int_equal(got[i], 0);
    assert_memory_equal(got + 50, src + 10, 200);
    for (i = 250; i < 300; i++) assert_int_equal(got[i], 0);
    /* copy a[150..250) to b at 900 (ending at the buffer's end) */
    assert_int_equal(hst_copy(q, b, 924, a, 150, 100, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_read(q, b, 0, got, 1024, 1, 0, NULL, NULL), HST_SUCCESS);
    for (i = 0; i < 924; i++) assert_int_equal(got[i], 0);
    assert_memory_equal(got + 924, src + 60, 100);
    /* a copy between non-overlapping ranges of one buffer is fine */
    assert_int_equal(hst_copy(q, a, 600, a, 100, 200, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_read(q, a, 600, got, 200, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(got, src + 10, 200);
    /* zero-byte transfers are no-ops */
    assert_int_equal(hst_write(q, a, 1024, src, 0, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_copy(q, b, 0, a, 0, 0, 0, NULL, NULL), HST_SUCCESS);
    /* past the end */
    cap_reset(&f->log);
    assert_result_logged(hst_write(q, a, 1000, src, 25, 1, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_result_logged(hst_read(q, a, 1, got, 1024, 1, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_result_logged(hst_copy(q, b, 1000, a, 0, 25, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    hst_buffer_destroy(a);
    hst_buffer_destroy(b);
}

/* The model of a rectangular copy: region {bytes, rows, slices}, explicit pitches. */
static void rect_model(unsigned char *dst, const size_t dorg[3], size_t drp, size_t dsp,
                       const unsigned char *src, const size_t sorg[3], size_t srp, size_t ssp,
                       const size_t region[3])
{
    size_t x, y, z;
    for (z = 0; z < region[2]; z++)
        for (y = 0; y < region[1]; y++)
            for (x = 0; x < region[0]; x++)
                dst[(dorg[2] + z) * dsp + (dorg[1] + y) * drp + dorg[0] + x] =
                    src[(sorg[2] + z) * ssp + (sorg[1] + y) * srp + sorg[0] + x];
}

static void test_buffer_rect(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    /* device side: rows of 40 bytes, slices of 12 rows, 5 slices */
    enum { DRP = 40, DSP = 40 * 12, DBYTES = 40 * 12 * 5,
           SRP = 24, SSP = 24 * 7, SBYTES = 24 * 7 * 5 };
    const size_t region[3] = {16, 5, 3};
    hst_rect drect, srect, hrect, crect;
    static unsigned char host[SBYTES], dev_expect[DBYTES], got[DBYTES], back[SBYTES],
        back_expect[SBYTES], init[DBYTES], copy_expect[DBYTES];
    hst_buffer *b = NULL, *c = NULL;
    memset(&drect, 0, sizeof drect);
    memset(&srect, 0, sizeof srect);
    fill_pattern(host, SBYTES, 3);
    fill_pattern(init, DBYTES, 4);
    assert_int_equal(hst_buffer_create(be, DBYTES, 0, &b), HST_SUCCESS);
    assert_int_equal(hst_write(q, b, 0, init, DBYTES, 1, 0, NULL, NULL), HST_SUCCESS);
    drect.origin[0] = 4; drect.origin[1] = 2; drect.origin[2] = 1;
    drect.row_pitch = DRP; drect.slice_pitch = DSP;
    srect.origin[0] = 3; srect.origin[1] = 1; srect.origin[2] = 2;
    srect.row_pitch = SRP; srect.slice_pitch = SSP;
    assert_int_equal(hst_write_rect(q, b, &drect, host, &srect, region, 1, 0, NULL, NULL),
                     HST_SUCCESS);
    memcpy(dev_expect, init, DBYTES);
    rect_model(dev_expect, drect.origin, DRP, DSP, host, srect.origin, SRP, SSP, region);
    assert_int_equal(hst_read(q, b, 0, got, DBYTES, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(got, dev_expect, DBYTES);

    /* read a differently placed box back into a host array with other pitches */
    memset(&hrect, 0, sizeof hrect);
    hrect.origin[0] = 5; hrect.origin[1] = 0; hrect.origin[2] = 1;
    hrect.row_pitch = SRP; hrect.slice_pitch = SSP;
    drect.origin[0] = 10; drect.origin[1] = 4; drect.origin[2] = 0;
    memset(back, 0x3c, sizeof back);
    memcpy(back_expect, back, sizeof back);
    assert_int_equal(hst_read_rect(q, b, &drect, back, &hrect, region, 1, 0, NULL, NULL),
                     HST_SUCCESS);
    rect_model(back_expect, hrect.origin, SRP, SSP, dev_expect, drect.origin, DRP, DSP, region);
    assert_memory_equal(back, back_expect, SBYTES);

    /* device to device, different pitches on each side */
    assert_int_equal(hst_buffer_create(be, DBYTES, 0, &c), HST_SUCCESS);
    assert_int_equal(hst_write(q, c, 0, init, DBYTES, 1, 0, NULL, NULL), HST_SUCCESS);
    memset(&crect, 0, sizeof crect);
    crect.origin[0] = 1; crect.origin[1] = 3; crect.origin[2] = 2;
    crect.row_pitch = 32; crect.slice_pitch = 32 * 10;
    drect.origin[0] = 20; drect.origin[1] = 1; drect.origin[2] = 1;
    assert_int_equal(hst_copy_rect(q, c, &crect, b, &drect, region, 0, NULL, NULL), HST_SUCCESS);
    memcpy(copy_expect, init, DBYTES);
    rect_model(copy_expect, crect.origin, 32, 320, dev_expect, drect.origin, DRP, DSP, region);
    assert_int_equal(hst_read(q, c, 0, got, DBYTES, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(got, copy_expect, DBYTES);

    /* pitches 0 = tight on both sides (and NULL rects: origin 0, tight) */
    {
        const size_t r2[3] = {8, 3, 2};
        const size_t o0[3] = {0, 0, 0};
        unsigned char tight[48], tight_back[48], model[DBYTES];
        hst_rect t;
        fill_pattern(tight, sizeof tight, 7);
        memset(&t, 0, sizeof t);
        t.origin[0] = 2; t.origin[1] = 1; t.origin[2] = 0;   /* tight: row 8, slice 24 */
        assert_int_equal(hst_write(q, c, 0, init, DBYTES, 1, 0, NULL, NULL), HST_SUCCESS);
        assert_int_equal(hst_write_rect(q, c, &t, tight, NULL, r2, 1, 0, NULL, NULL), HST_SUCCESS);
        memcpy(model, init, DBYTES);
        rect_model(model, t.origin, 8, 24, tight, o0, 8, 24, r2);
        assert_int_equal(hst_read(q, c, 0, got, DBYTES, 1, 0, NULL, NULL), HST_SUCCESS);
        assert_memory_equal(got, model, DBYTES);
        memset(tight_back, 0, sizeof tight_back);
        assert_int_equal(hst_read_rect(q, c, &t, tight_back, NULL, r2, 1, 0, NULL, NULL),
                         HST_SUCCESS);
        assert_memory_equal(tight_back, tight, sizeof tight);
    }
    /* the region's last byte at the buffer's last byte fits; one byte further is rejected */
    drect.origin[0] = 24; drect.origin[1] = 7; drect.origin[2] = 2;  /* 4*480 + 11*40 + 40 */
    assert_int_equal(hst_write_rect(q, b, &drect, host, &srect, region, 1, 0, NULL, NULL),
                     HST_SUCCESS);
    cap_reset(&f->log);
    drect.origin[0] = 25;
    assert_result_logged(hst_write_rect(q, b, &drect, host, &srect, region, 1, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_result_logged(hst_read_rect(q, b, &drect, back, &srect, region, 1, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_result_logged(hst_copy_rect(q, c, &crect, b, &drect, region, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    /* pitches smaller than the region */
    srect.row_pitch = 8;
    drect.origin[0] = 0;
    assert_result_logged(hst_write_rect(q, b, &drect, host, &srect, region, 1, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_BAD_ARGUMENT);
    srect.row_pitch = SRP;
    drect.origin[0] = 0; drect.origin[2] = 3;
    assert_result_logged(hst_write_rect(q, b, &drect, host, &srect, region, 1, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    hst_buffer_destroy(b);
    hst_buffer_destroy(c);
}

static void test_buffer_map(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    hst_buffer *b = NULL;
    unsigned char src[1024], got[1024], zero[1024];
    void *p = NULL;
    hst_event ev = NULL;
    size_t i;
    memset(zero, 0, sizeof zero);
    fill_pattern(src, sizeof src, 11);
    assert_int_equal(hst_buffer_create(be, 1024, 0, &b), HST_SUCCESS);
    assert_int_equal(hst_write(q, b, 0, zero, 1024, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_map(q, b, HST_MAP_WRITE_INVALIDATE, 256, 512, 1, &p, 0, NULL, NULL),
                     HST_SUCCESS);
    assert_non_null(p);
    memcpy(p, src, 512);
    assert_int_equal(hst_unmap(q, b, p, 0, NULL, &ev), HST_SUCCESS);
    assert_int_equal(hst_event_wait(1, &ev), HST_SUCCESS);
    hst_event_release(ev);
    assert_int_equal(hst_read(q, b, 0, got, 1024, 1, 0, NULL, NULL), HST_SUCCESS);
    for (i = 0; i < 256; i++) assert_int_equal(got[i], 0);
    assert_memory_equal(got + 256, src, 512);
    for (i = 768; i < 1024; i++) assert_int_equal(got[i], 0);
    /* map for reading, non-blocking, then wait on the event */
    ev = NULL;
    assert_int_equal(hst_map(q, b, HST_MAP_READ, 300, 100, 0, &p, 0, NULL, &ev), HST_SUCCESS);
    assert_int_equal(hst_event_wait(1, &ev), HST_SUCCESS);
    hst_event_release(ev);
    assert_memory_equal(p, src + 44, 100);
    assert_int_equal(hst_unmap(q, b, p, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_queue_finish(q), HST_SUCCESS);
    /* bad flags, zero bytes, out of range */
    cap_reset(&f->log);
    assert_result_logged(hst_map(q, b, 0, 0, 16, 1, &p, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_result_logged(hst_map(q, b, 8, 0, 16, 1, &p, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_result_logged(hst_map(q, b, HST_MAP_READ, 0, 0, 1, &p, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_ZERO_SIZE);
    assert_result_logged(hst_map(q, b, HST_MAP_READ, 1000, 100, 1, &p, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    hst_buffer_destroy(b);
}

static void test_buffer_migrate_resident(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    hst_buffer *bufs[2] = {NULL, NULL}, *r = NULL;
    unsigned char a[4096], b[4096], got[4096];
    hst_event ev = NULL;
    uint64_t before;
    fill_pattern(a, sizeof a, 21);
    fill_pattern(b, sizeof b, 22);
    assert_int_equal(hst_buffer_create(be, 4096, 0, &bufs[0]), HST_SUCCESS);
    assert_int_equal(hst_buffer_create(be, 4096, 0, &bufs[1]), HST_SUCCESS);
    assert_int_equal(hst_write(q, bufs[0], 0, a, 4096, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_write(q, bufs[1], 0, b, 4096, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_migrate(q, 2, bufs, HST_MIGRATE_TO_HOST, 0, NULL, &ev), HST_SUCCESS);
    assert_int_equal(hst_migrate(q, 2, bufs, 0, 1, &ev, NULL), HST_SUCCESS);
    hst_event_release(ev);
    assert_int_equal(hst_read(q, bufs[0], 0, got, 4096, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(got, a, 4096);
    assert_int_equal(hst_read(q, bufs[1], 0, got, 4096, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(got, b, 4096);
    cap_reset(&f->log);
    assert_result_logged(hst_migrate(q, 0, bufs, 0, 0, NULL, NULL), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_ZERO_SIZE);
    assert_non_null(strstr(f->log.last_message, "num_buffers is 0"));
    assert_result_logged(hst_migrate(q, 2, NULL, 0, 0, NULL, NULL), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_NULL_ARGUMENT);
    assert_non_null(strstr(f->log.last_message, "buffers is NULL"));
    assert_result_logged(hst_migrate(q, 2, bufs, 8, 0, NULL, NULL), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_OUT_OF_RANGE);
    hst_buffer_destroy(bufs[0]);
    hst_buffer_destroy(bufs[1]);

    /* resident: allocated now, counted, usable */
    before = hst_backend_device_bytes(be);
    assert_int_equal(hst_buffer_create(be, 1 << 20, HST_MEM_RESIDENT, &r), HST_SUCCESS);
    assert_int_equal(hst_backend_device_bytes(be), before + (1 << 20));
    assert_int_equal(hst_write(q, r, (1 << 20) - 4096, a, 4096, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_read(q, r, (1 << 20) - 4096, got, 4096, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(got, a, 4096);
    hst_buffer_destroy(r);
    assert_int_equal(hst_backend_device_bytes(be), before);
    /* unknown flags and READ_ONLY|WRITE_ONLY are rejected */
    cap_reset(&f->log);
    assert_result_logged(hst_buffer_create(be, 64, 64, &r), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_OUT_OF_RANGE);
    assert_result_logged(hst_buffer_create(be, 64, HST_MEM_READ_ONLY | HST_MEM_WRITE_ONLY, &r),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_BAD_ARGUMENT);
    assert_null(r);
}

static void test_buffer_svm(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    int *a = NULL, *b = NULL, i;
    const int pat = 0x12345678;
    enum { N = 1024 };
    if (hst_backend_device(be)->svm == 0) { skip(); return; }
    assert_true(hst_backend_device(be)->svm & HST_SVM_COARSE);
    assert_int_equal(hst_svm_alloc(be, N * sizeof(int), 0, (void **)&a), HST_SUCCESS);
    assert_int_equal(hst_svm_alloc(be, N * sizeof(int), 0, (void **)&b), HST_SUCCESS);
    assert_non_null(a); assert_non_null(b);
    assert_int_equal(hst_svm_map(q, HST_MAP_WRITE, a, N * sizeof(int), 0, NULL, NULL), HST_SUCCESS);
    for (i = 0; i < N; i++) a[i] = 7 * i - 3;
    assert_int_equal(hst_svm_unmap(q, a, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_svm_copy(q, b, a, N * sizeof(int), 1, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_svm_fill(q, b, &pat, sizeof pat, 256 * sizeof(int), 0, NULL, NULL),
                     HST_SUCCESS);
    assert_int_equal(hst_queue_finish(q), HST_SUCCESS);
    assert_int_equal(hst_svm_map(q, HST_MAP_READ, b, N * sizeof(int), 0, NULL, NULL), HST_SUCCESS);
    for (i = 0; i < 256; i++) assert_int_equal(b[i], pat);
    for (i = 256; i < N; i++) assert_int_equal(b[i], 7 * i - 3);
    assert_int_equal(hst_svm_unmap(q, b, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_queue_finish(q), HST_SUCCESS);
    hst_svm_free(be, a);
    hst_svm_free(be, b);
    /* fine grain where absent, zero bytes: rejected */
    cap_reset(&f->log);
    if (!(hst_backend_device(be)->svm & HST_SVM_FINE)) {
        a = (int *)&pat;
        assert_result_logged(hst_svm_alloc(be, 64, 1, (void **)&a), HST_ERROR_UNSUPPORTED,
                             &f->log, HST_LOGITEM_UNSUPPORTED);
        assert_null(a);
    }
    assert_result_logged(hst_svm_alloc(be, 0, 0, (void **)&a), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_ZERO_SIZE);
    /* map and fill: NULL, zero bytes, bad flags and pattern sizes, each under its own item */
    assert_result_logged(hst_svm_map(q, HST_MAP_READ, NULL, 64, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_NULL_ARGUMENT);
    assert_non_null(strstr(f->log.last_message, "ptr is NULL"));
    assert_result_logged(hst_svm_map(q, HST_MAP_READ, (void *)&pat, 0, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_ZERO_SIZE);
    assert_non_null(strstr(f->log.last_message, "bytes is 0"));
    assert_result_logged(hst_svm_map(q, 0, (void *)&pat, 4, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_result_logged(hst_svm_fill(q, (void *)&pat, &pat, 0, 4, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_ZERO_SIZE);
    assert_result_logged(hst_svm_fill(q, (void *)&pat, &pat, 3, 3, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_result_logged(hst_svm_fill(q, (void *)&pat, &pat, 4, 6, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_BAD_ARGUMENT);
    assert_non_null(strstr(f->log.last_message, "not a multiple of pattern_bytes"));
}

/* ============================================================================================
   Images: host arrays in C order become 2-D/3-D images (u8 x1, f32 x4, f32 x1 3-D) that read
   back unchanged; sub-box writes, copies, fills and maps land exactly where asked; samplers;
   the dtype, rank and box checks. */
#define NEED_IMAGES(be) do { if (!hst_backend_device(be)->images) { skip(); return; } } while (0)

static void test_image_u8_2d(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    enum { H = 5, W = 7 };
    const size_t shape[2] = {H, W}, o0[3] = {0, 0, 0}, whole[3] = {W, H, 1};
    const size_t org[3] = {2, 1, 0}, reg[3] = {3, 2, 1};
    unsigned char host[H * W], got[H * W], patch[6] = {200, 201, 202, 203, 204, 205};
    hst_image *img = NULL;
    size_t x, y;
    NEED_IMAGES(be);
    fill_pattern(host, sizeof host, 31);
    assert_int_equal(hst_image_from_array(be, HST_U8, 1, 0, 2, shape, host, &img), HST_SUCCESS);
    assert_non_null(img);
    assert_int_equal(hst_image_pixel_bytes(img), 1);
    memset(got, 0, sizeof got);
    assert_int_equal(hst_image_read(q, img, o0, whole, got, 0, 0, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(got, host, sizeof host);
    /* write a 3x2 box at (x 2, y 1); read all */
    assert_int_equal(hst_image_write(q, img, org, reg, patch, 0, 0, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_image_read(q, img, o0, whole, got, 0, 0, 1, 0, NULL, NULL), HST_SUCCESS);
    for (y = 0; y < H; y++)
        for (x = 0; x < W; x++) {
            unsigned char e = host[y * W + x];
            if (x >= 2 && x < 5 && y >= 1 && y < 3) e = patch[(y - 1) * 3 + (x - 2)];
            assert_int_equal(got[y * W + x], e);
        }
    /* read a box into a host array with a row pitch of 4 */
    {
        unsigned char boxed[8];
        memset(boxed, 0xcc, sizeof boxed);
        assert_int_equal(hst_image_read(q, img, org, reg, boxed, 4, 0, 1, 0, NULL, NULL),
                         HST_SUCCESS);
        assert_memory_equal(boxed, patch, 3);
        assert_int_equal(boxed[3], 0xcc);
        assert_memory_equal(boxed + 4, patch + 3, 3);
        assert_int_equal(boxed[7], 0xcc);
    }
    hst_image_destroy(img);
    hst_image_destroy(NULL);
}

static void test_image_f32(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    enum { H = 4, W = 6, D = 3, H3 = 4, W3 = 5 };
    const size_t shape[2] = {H, W}, shape3[3] = {D, H3, W3};
    const size_t o0[3] = {0, 0, 0}, whole[3] = {W, H, 1}, whole3[3] = {W3, H3, D};
    float host[H * W * 4], got[H * W * 4], zero[H * W * 4], host3[D * H3 * W3], got3[D * H3 * W3];
    const float color[4] = {1.5f, -2.0f, 3.25f, 0.0f};
    hst_image *a = NULL, *b = NULL, *c3 = NULL;
    size_t i, x, y, z, rp = 0, sp = 0;
    void *p = NULL;
    NEED_IMAGES(be);
    for (i = 0; i < H * W * 4; i++) { host[i] = (float)i * 0.25f - 7.0f; zero[i] = 0.0f; }
    for (i = 0; i < D * H3 * W3; i++) host3[i] = (float)(i * i) / 8.0f;
    assert_int_equal(hst_image_from_array(be, HST_F32, 4, 0, 2, shape, host, &a), HST_SUCCESS);
    assert_int_equal(hst_image_pixel_bytes(a), 16);
    assert_int_equal(hst_image_read(q, a, o0, whole, got, 0, 0, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(got, host, sizeof host);

    /* 3-D */
    assert_int_equal(hst_image_from_array(be, HST_F32, 1, 0, 3, shape3, host3, &c3), HST_SUCCESS);
    assert_int_equal(hst_image_pixel_bytes(c3), 4);
    assert_int_equal(hst_image_read(q, c3, o0, whole3, got3, 0, 0, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(got3, host3, sizeof host3);
    {   /* one voxel box in the middle: (x 1..3, y 2..3, z 1..2) */
        const size_t bo[3] = {1, 2, 1}, br[3] = {3, 2, 2};
        float box[12];
        assert_int_equal(hst_image_read(q, c3, bo, br, box, 0, 0, 1, 0, NULL, NULL), HST_SUCCESS);
        for (z = 0; z < 2; z++)
            for (y = 0; y < 2; y++)
                for (x = 0; x < 3; x++)
                    assert_true(box[(z * 2 + y) * 3 + x] ==
                                host3[((z + 1) * H3 + (y + 2)) * W3 + (x + 1)]);
    }

    /* copy a 3x2 box of a to (0, 2) of a zeroed b */
    assert_int_equal(hst_image_from_array(be, HST_F32, 4, 0, 2, shape, zero, &b), HST_SUCCESS);
    {
        const size_t so[3] = {2, 1, 0}, dor[3] = {0, 2, 0}, r[3] = {3, 2, 1};
        assert_int_equal(hst_image_copy(q, b, dor, a, so, r, 0, NULL, NULL), HST_SUCCESS);
        assert_int_equal(hst_image_read(q, b, o0, whole, got, 0, 0, 1, 0, NULL, NULL), HST_SUCCESS);
        for (y = 0; y < H; y++)
            for (x = 0; x < W; x++)
                for (i = 0; i < 4; i++) {
                    float e = 0.0f;
                    if (x < 3 && y >= 2 && y < 4) e = host[((y - 1) * W + (x + 2)) * 4 + i];
                    assert_true(got[(y * W + x) * 4 + i] == e);
                }
    }
    /* fill a 2x2 box at (1, 1) of a */
    {
        const size_t fo[3] = {1, 1, 0}, fr[3] = {2, 2, 1};
        assert_int_equal(hst_image_fill(q, a, color, fo, fr, 0, NULL, NULL), HST_SUCCESS);
        assert_int_equal(hst_image_read(q, a, o0, whole, got, 0, 0, 1, 0, NULL, NULL), HST_SUCCESS);
        for (y = 0; y < H; y++)
            for (x = 0; x < W; x++)
                for (i = 0; i < 4; i++) {
                    float e = host[(y * W + x) * 4 + i];
                    if (x >= 1 && x < 3 && y >= 1 && y < 3) e = color[i];
                    assert_true(got[(y * W + x) * 4 + i] == e);
                }
    }
    /* map a for reading: pitches describe the layout, values as filled */
    assert_int_equal(hst_image_map(q, a, HST_MAP_READ, o0, whole, &rp, &sp, &p), HST_SUCCESS);
    assert_non_null(p);
    assert_true(rp >= W * 16);
    for (y = 0; y < H; y++)
        for (x = 0; x < W; x++)
            for (i = 0; i < 4; i++) {
                float e = host[(y * W + x) * 4 + i], v;
                if (x >= 1 && x < 3 && y >= 1 && y < 3) e = color[i];
                memcpy(&v, (const char *)p + y * rp + x * 16 + i * 4, sizeof v);
                assert_true(v == e);
            }
    assert_int_equal(hst_image_unmap(q, a, p, 0, NULL, NULL), HST_SUCCESS);
    /* map the 3-D image: slice pitch too */
    assert_int_equal(hst_image_map(q, c3, HST_MAP_READ, o0, whole3, &rp, &sp, &p), HST_SUCCESS);
    assert_true(rp >= W3 * 4);
    assert_true(sp >= rp * H3);
    for (z = 0; z < D; z++)
        for (y = 0; y < H3; y++)
            for (x = 0; x < W3; x++) {
                float v;
                memcpy(&v, (const char *)p + z * sp + y * rp + x * 4, sizeof v);
                assert_true(v == host3[(z * H3 + y) * W3 + x]);
            }
    assert_int_equal(hst_image_unmap(q, c3, p, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_queue_finish(q), HST_SUCCESS);
    /* copies between images of different formats are rejected */
    {
        hst_image *u = NULL;
        const size_t us[2] = {H, W}, r[3] = {1, 1, 1};
        assert_int_equal(hst_image_from_array(be, HST_U8, 1, 0, 2, us, NULL, &u), HST_SUCCESS);
        cap_reset(&f->log);
        assert_result_logged(hst_image_copy(q, u, o0, a, o0, r, 0, NULL, NULL), HST_ERROR_SHAPE,
                             &f->log, HST_LOGITEM_SHAPE_MISMATCH);
        hst_image_destroy(u);
    }
    hst_image_destroy(a);
    hst_image_destroy(b);
    hst_image_destroy(c3);
}

static void test_image_sampler_errors(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    const size_t shape[2] = {4, 7}, shape1[1] = {16}, shape0[2] = {4, 0};
    hst_sampler *s = NULL;
    hst_image *img = NULL, *bad;
    unsigned char buf[64];
    NEED_IMAGES(be);
    assert_int_equal(hst_sampler_create(be, 1, HST_ADDRESS_CLAMP_TO_EDGE, HST_FILTER_LINEAR, &s),
                     HST_SUCCESS);
    assert_non_null(s);
#ifndef HST_NO_OPENCL
    if (hst_backend_is_host(be)) assert_null(hst_sampler_cl(s));
    else assert_non_null(hst_sampler_cl(s));
#endif
    hst_sampler_destroy(s);
    assert_int_equal(hst_sampler_create(be, 0, HST_ADDRESS_NONE, HST_FILTER_NEAREST, &s),
                     HST_SUCCESS);
    hst_sampler_destroy(s);
    hst_sampler_destroy(NULL);
    cap_reset(&f->log);
    s = (hst_sampler *)buf;
    assert_result_logged(hst_sampler_create(be, 0, HST_ADDRESS_REPEAT, HST_FILTER_NEAREST, &s),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_BAD_ARGUMENT);
    assert_null(s);
    assert_result_logged(hst_sampler_create(be, 1, 99, HST_FILTER_NEAREST, &s),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_non_null(strstr(f->log.last_message, "address_mode"));
    assert_result_logged(hst_sampler_create(be, 1, HST_ADDRESS_CLAMP, 99, &s),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_non_null(strstr(f->log.last_message, "filter_mode"));

    /* f64 has no image format; ndim 1, zero extents and 3 channels are invalid */
    bad = (hst_image *)buf;
    assert_result_logged(hst_image_from_array(be, HST_F64, 1, 0, 2, shape, NULL, &bad),
                         HST_ERROR_DTYPE, &f->log, HST_LOGITEM_DTYPE);
    assert_null(bad);
    assert_result_logged(hst_image_from_array(be, HST_F32, 1, 0, 1, shape1, NULL, &bad),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_result_logged(hst_image_from_array(be, HST_F32, 1, 0, 4, shape1, NULL, &bad),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_result_logged(hst_image_from_array(be, HST_F32, 1, 0, 2, shape0, NULL, &bad),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_ZERO_SIZE);
    assert_result_logged(hst_image_from_array(be, HST_F32, 3, 0, 2, shape, NULL, &bad),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_null(bad);

    /* boxes outside the image */
    assert_int_equal(hst_image_from_array(be, HST_U8, 1, 0, 2, shape, NULL, &img), HST_SUCCESS);
    {
        const size_t o_in[3] = {6, 0, 0}, r2[3] = {2, 1, 1};    /* x 6..7 of 7 */
        const size_t o_y[3] = {0, 4, 0}, r1[3] = {1, 1, 1};     /* y 4 of 4 */
        const size_t o0[3] = {0, 0, 0}, rz[3] = {7, 4, 2};      /* depth 2 of a 2-D image */
        const size_t r0[3] = {0, 1, 1};
        const unsigned color[4] = {1, 2, 3, 4};
        size_t rp, sp;
        void *p;
        cap_reset(&f->log);
        assert_result_logged(hst_image_read(q, img, o_in, r2, buf, 0, 0, 1, 0, NULL, NULL),
                             HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
        assert_result_logged(hst_image_write(q, img, o_y, r1, buf, 0, 0, 1, 0, NULL, NULL),
                             HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
        assert_result_logged(hst_image_read(q, img, o0, rz, buf, 0, 0, 1, 0, NULL, NULL),
                             HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
        assert_result_logged(hst_image_read(q, img, o0, r0, buf, 0, 0, 1, 0, NULL, NULL),
                             HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
        assert_result_logged(hst_image_fill(q, img, color, o_in, r2, 0, NULL, NULL),
                             HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
        assert_result_logged(hst_image_map(q, img, HST_MAP_READ, o_y, r1, &rp, &sp, &p),
                             HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
        assert_result_logged(hst_image_map(q, img, 0, o0, r2, &rp, &sp, &p),
                             HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
        assert_result_logged(hst_image_map(q, img, HST_MAP_READ, o0, r2, &rp, NULL, &p),
                             HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_NULL_ARGUMENT);
        assert_non_null(strstr(f->log.last_message, "slice_pitch is NULL"));
        assert_result_logged(hst_image_copy(q, img, o0, img, o_in, r2, 0, NULL, NULL),
                             HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
        /* u8 fill colours are 4 uint32, saturated: fill all, read back */
        assert_int_equal(hst_image_fill(q, img, color, o0, r2 /* 2x1 at origin */, 0, NULL, NULL),
                         HST_SUCCESS);
        assert_int_equal(hst_image_read(q, img, o0, r2, buf, 0, 0, 1, 0, NULL, NULL), HST_SUCCESS);
        assert_int_equal(buf[0], 1);
        assert_int_equal(buf[1], 1);
    }
    hst_image_destroy(img);
}

/* ============================================================================================
   Pool: bins round up by under 1/16 (exact below 32 bytes), 0 only on overflow; the stats count
   active and held blocks exactly; freed blocks are reused for the same bin; free_held empties. */
static void check_bin(size_t n)
{
    size_t bin = hst_pool_bin_bytes(n);
    if (bin == 0) fail_msg("hst_pool_bin_bytes(%zu) = 0 (overflow) too early", n);
    if (bin < n) fail_msg("hst_pool_bin_bytes(%zu) = %zu < n", n, bin);
    /* bin - n < n / 16, as real numbers: 16 (bin - n) < n (no overflow: bin - n < 2^top / 16) */
    if (!((bin - n) * 16 < n)) fail_msg("hst_pool_bin_bytes(%zu) = %zu wastes >= 1/16", n, bin);
    /* the bin is its own bin (idempotent) */
    if (hst_pool_bin_bytes(bin) != bin) fail_msg("bin %zu of %zu is not a fixed point", bin, n);
}

static void test_pool_bins(void **state)
{
    size_t n, k, top_unit, last_ok;
    (void)state;
    for (n = 1; n <= 5000; n++) check_bin(n);
    for (n = 1; n < 32; n++) assert_int_equal(hst_pool_bin_bytes(n), n);
    assert_int_equal(hst_pool_bin_bytes(0), 0);
    assert_int_equal(hst_pool_bin_bytes(1000), 1024);
    assert_int_equal(hst_pool_bin_bytes(70000), 73728);
    assert_int_equal(hst_pool_bin_bytes(33), 34);
    for (k = 5; k < sizeof(size_t) * 8; k++) {
        size_t p2 = (size_t)1 << k;
        check_bin(p2);
        assert_int_equal(hst_pool_bin_bytes(p2), p2);
        check_bin(p2 - 1);
        check_bin(p2 + 1);
        check_bin(p2 + p2 / 3);
        check_bin(p2 + p2 / 2 + 7);
    }
    for (n = 5001; n < 10000000; n = n * 5 / 4 + 3) check_bin(n);
    check_bin(SIZE_MAX / 2);
    check_bin(SIZE_MAX / 2 + 1);
    check_bin(SIZE_MAX / 2 + 2);
    check_bin(SIZE_MAX / 2 - 1);
    /* the top bins: unit 2^(bits - 5); the last bin that fits is SIZE_MAX - unit + 1 */
    top_unit = (SIZE_MAX >> 5) + 1;
    last_ok = SIZE_MAX - top_unit + 1;
    check_bin(last_ok);
    assert_int_equal(hst_pool_bin_bytes(last_ok), last_ok);
    check_bin(last_ok - top_unit + 1);
    assert_int_equal(hst_pool_bin_bytes(last_ok - top_unit + 1), last_ok);
    assert_int_equal(hst_pool_bin_bytes(last_ok + 1), 0);
    assert_int_equal(hst_pool_bin_bytes(SIZE_MAX), 0);
    assert_int_equal(hst_pool_bin_bytes(SIZE_MAX - 1), 0);
}

static void test_pool_stats(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    hst_pool *pool = NULL;
    hst_buffer *a = NULL, *b = NULL, *c = NULL, *d = NULL;
    hst_pool_stats s;
    uint64_t base = hst_backend_device_bytes(be), used;
    unsigned char in[1000], out[1000];
    const size_t b1000 = hst_pool_bin_bytes(1000), b70000 = hst_pool_bin_bytes(70000);
    assert_int_equal(hst_pool_create(be, &pool), HST_SUCCESS);
    s = hst_pool_get_stats(pool);
    assert_int_equal(s.active_blocks + s.held_blocks + s.active_bytes + s.held_bytes, 0);
    assert_int_equal(hst_pool_alloc(pool, 1000, &a), HST_SUCCESS);
    assert_int_equal(hst_pool_alloc(pool, 1000, &b), HST_SUCCESS);
    assert_int_equal(hst_pool_alloc(pool, 70000, &c), HST_SUCCESS);
    assert_int_equal(hst_buffer_bytes(a), 1000);
    assert_int_equal(hst_buffer_bytes(c), 70000);
    s = hst_pool_get_stats(pool);
    assert_int_equal(s.active_blocks, 3);
    assert_int_equal(s.active_bytes, 2 * b1000 + b70000);
    assert_int_equal(s.active_bytes, 2 * 1024 + 73728);
    assert_int_equal(s.held_blocks, 0);
    assert_int_equal(s.held_bytes, 0);
    used = hst_backend_device_bytes(be);
    assert_int_equal(used, base + 2 * b1000 + b70000);
    /* pooled blocks are ordinary buffers */
    fill_pattern(in, sizeof in, 41);
    assert_int_equal(hst_write(q, b, 0, in, 1000, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_read(q, b, 0, out, 1000, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(in, out, 1000);
    hst_buffer_destroy(a);
    hst_buffer_destroy(b);
    s = hst_pool_get_stats(pool);
    assert_int_equal(s.active_blocks, 1);
    assert_int_equal(s.active_bytes, b70000);
    assert_int_equal(s.held_blocks, 2);
    assert_int_equal(s.held_bytes, 2 * b1000);
    assert_int_equal(hst_backend_device_bytes(be), used);   /* held blocks stay allocated */
    /* 1010 bytes share the 1000-byte bin: one held block is reused, nothing new allocated */
    assert_int_equal(hst_pool_bin_bytes(1010), b1000);
    assert_int_equal(hst_pool_alloc(pool, 1010, &d), HST_SUCCESS);
    assert_int_equal(hst_buffer_bytes(d), 1010);
    s = hst_pool_get_stats(pool);
    assert_int_equal(s.held_blocks, 1);
    assert_int_equal(s.held_bytes, b1000);
    assert_int_equal(s.active_blocks, 2);
    assert_int_equal(s.active_bytes, b1000 + b70000);
    assert_int_equal(hst_backend_device_bytes(be), used);
    hst_buffer_destroy(c);
    hst_buffer_destroy(d);
    s = hst_pool_get_stats(pool);
    assert_int_equal(s.active_blocks, 0);
    assert_int_equal(s.active_bytes, 0);
    assert_int_equal(s.held_blocks, 3);
    assert_int_equal(s.held_bytes, 2 * b1000 + b70000);
    hst_pool_free_held(pool);
    s = hst_pool_get_stats(pool);
    assert_int_equal(s.held_blocks, 0);
    assert_int_equal(s.held_bytes, 0);
    assert_int_equal(hst_backend_device_bytes(be), base);
    /* zero bytes and an overflowing bin are rejected */
    cap_reset(&f->log);
    assert_result_logged(hst_pool_alloc(pool, 0, &a), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_ZERO_SIZE);
    assert_null(a);
    assert_result_logged(hst_pool_alloc(pool, SIZE_MAX, &a), HST_ERROR_OVERFLOW, &f->log,
                         HST_LOGITEM_SIZE_OVERFLOW);
    hst_pool_destroy(pool);
    hst_pool_free_held(NULL);
    hst_pool_destroy(NULL);
    s = hst_pool_get_stats(NULL);
    assert_int_equal(s.active_blocks + s.held_blocks, 0);
}

/* ============================================================================================
   Programs (OpenCL devices): a bound-checked kernel launched over a global size that is not a
   multiple of the work-group writes exactly its n elements; builds are cached in memory (same
   program back) and on disk (a new backend hits the cache; garbage or truncated entries are a
   logged miss, rewritten, then hit again); build failures return the OpenCL code with the build
   log; unknown kernel names and bad dimensions are rejected. On the host device: unsupported. */
static const char *const twice_src =
    "__kernel void twice(__global int *out, int n)\n"
    "{\n"
    "    int i = (int)get_global_id(0);\n"
    "    if (i < n) out[i] = 2 * i;\n"
    "}\n";

/* Runs `twice` over n = 1000 in a 1001-int buffer (local: NULL or 64); checks every element
   and that element 1000 is untouched. */
static void run_twice(hst_backend *be, hst_program *prog, const size_t *local)
{
    hst_queue *q = hst_backend_queue(be);
    hst_kernel *k = NULL;
    hst_buffer *buf = NULL;
    const int minus1 = -1, n = 1000;
    const size_t global = 1000;
    static int out[1001];
    hst_event ev = NULL;
    int i;
    assert_int_equal(hst_kernel_create(prog, "twice", &k), HST_SUCCESS);
    assert_non_null(k);
    assert_int_equal(hst_buffer_create(be, sizeof out, 0, &buf), HST_SUCCESS);
    assert_int_equal(hst_fill(q, buf, &minus1, sizeof minus1, 0, sizeof out, 0, NULL, NULL),
                     HST_SUCCESS);
    assert_int_equal(hst_kernel_set_buffer(k, 0, buf), HST_SUCCESS);
    assert_int_equal(hst_kernel_set_arg(k, 1, sizeof n, &n), HST_SUCCESS);
    assert_int_equal(hst_launch(q, k, 1, &global, local, 0, NULL, &ev), HST_SUCCESS);
    assert_non_null(ev);
    memset(out, 0, sizeof out);
    assert_int_equal(hst_read(q, buf, 0, out, sizeof out, 1, 1, &ev, NULL), HST_SUCCESS);
    hst_event_release(ev);
    for (i = 0; i < 1000; i++)
        if (out[i] != 2 * i) fail_msg("out[%d] = %d, expected %d", i, out[i], 2 * i);
    assert_int_equal(out[1000], -1);
    hst_buffer_destroy(buf);
    hst_kernel_destroy(k);
}

/* A buffer over the caller's memory: reads see it, writes show after a map, a kernel writes
   it in place (OpenCL devices), destroy leaves it alone; the argument errors. */
static void test_buffer_wrap(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    hst_buffer *w = NULL, *other = NULL;
    static int mem[1001];
    int got[1001], part[100];
    void *p = NULL;
    int i;
    for (i = 0; i < 1001; i++) mem[i] = -1 - i;
    for (i = 0; i < 100; i++) part[i] = 7 * i;
    assert_int_equal(hst_buffer_wrap(be, mem, sizeof mem, 0, &w), HST_SUCCESS);
    assert_int_equal(hst_buffer_bytes(w), sizeof mem);
    assert_int_equal(hst_read(q, w, 0, got, sizeof got, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(got, mem, sizeof got);
    assert_int_equal(hst_write(q, w, 40, part, sizeof part, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_map(q, w, HST_MAP_READ, 0, sizeof mem, 1, &p, 0, NULL, NULL),
                     HST_SUCCESS);
    assert_int_equal(hst_unmap(q, w, p, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_queue_finish(q), HST_SUCCESS);
    assert_memory_equal(mem + 10, part, sizeof part);
    assert_int_equal(mem[9], -10);
    assert_int_equal(mem[110], -111);
    if (!hst_backend_is_host(be)) {   /* a kernel writes the caller's memory in place */
        hst_program *prog = NULL;
        hst_kernel *k = NULL;
        const int n = 1000;
        const size_t global = 1000;
        assert_int_equal(hst_program_build(be, 1, &twice_src, "", &prog), HST_SUCCESS);
        assert_int_equal(hst_kernel_create(prog, "twice", &k), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_buffer(k, 0, w), HST_SUCCESS);
        assert_int_equal(hst_kernel_set_arg(k, 1, sizeof n, &n), HST_SUCCESS);
        assert_int_equal(hst_launch(q, k, 1, &global, NULL, 0, NULL, NULL), HST_SUCCESS);
        assert_int_equal(hst_map(q, w, HST_MAP_READ, 0, sizeof mem, 1, &p, 0, NULL, NULL),
                         HST_SUCCESS);
        assert_int_equal(hst_unmap(q, w, p, 0, NULL, NULL), HST_SUCCESS);
        assert_int_equal(hst_queue_finish(q), HST_SUCCESS);
        for (i = 0; i < 1000; i++) assert_int_equal(mem[i], 2 * i);
        assert_int_equal(mem[1000], -1001);
        hst_kernel_destroy(k);
        hst_program_release(prog);
    }
    hst_buffer_destroy(w);
    mem[0] = 5;   /* still the caller's (a sanitizer build sees a free of static memory) */
    cap_reset(&f->log);
    assert_result_logged(hst_buffer_wrap(be, NULL, 16, 0, &other), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_NULL_ARGUMENT);
    assert_result_logged(hst_buffer_wrap(be, mem, 0, 0, &other), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_ZERO_SIZE);
    assert_result_logged(hst_buffer_wrap(be, mem, 16, HST_MEM_RESIDENT, &other),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_BAD_ARGUMENT);
    assert_result_logged(hst_buffer_wrap(be, mem, 16, 0, NULL), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_NULL_ARGUMENT);
    assert_null(other);
}

static void test_program_host_unsupported(void **state)
{
    fixture *f = FIX(state);
    hst_program *prog = (hst_program *)&prog;
    if (!hst_backend_is_host(f->be)) { skip(); return; }
    assert_result_logged(hst_program_build(f->be, 1, &twice_src, NULL, &prog),
                         HST_ERROR_UNSUPPORTED, &f->log, HST_LOGITEM_UNSUPPORTED);
    assert_null(prog);
}

static void test_program_build_launch(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_program *prog = NULL, *again = NULL, *other = NULL;
    const size_t local64 = 64;
    NEED_OPENCL(be);
    assert_int_equal(hst_program_build(be, 1, &twice_src, "", &prog), HST_SUCCESS);
    assert_non_null(prog);
    run_twice(be, prog, &local64);
    run_twice(be, prog, NULL);
    /* the same sources and options: the same program, from memory */
    assert_int_equal(hst_program_build(be, 1, &twice_src, "", &again), HST_SUCCESS);
    assert_ptr_equal(again, prog);
    assert_int_equal(hst_program_build(be, 1, &twice_src, NULL, &again), HST_SUCCESS);
    assert_ptr_equal(again, prog);   /* NULL options are "" */
    /* other options: another program */
    assert_int_equal(hst_program_build(be, 1, &twice_src, "-DUNUSED_OPTION=1", &other),
                     HST_SUCCESS);
    assert_ptr_not_equal(other, prog);
    run_twice(be, other, &local64);
    hst_program_release(again);
    hst_program_release(again);
    hst_program_release(other);
    /* still cached after the caller's references are gone */
    assert_int_equal(hst_program_build(be, 1, &twice_src, "", &again), HST_SUCCESS);
    assert_ptr_equal(again, prog);
    run_twice(be, again, &local64);
    hst_program_release(again);
    hst_program_release(prog);
}

static void test_program_errors(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    static const char *const bad_src = "__kernel void bad(__global int *o) { o[0] = ; }\n";
    hst_program *prog = NULL, *bad = (hst_program *)&prog;
    hst_kernel *k = NULL, *none = (hst_kernel *)&prog;
    const size_t g[4] = {16, 16, 16, 16};
    NEED_OPENCL(be);
    assert_int_equal(hst_program_build(be, 1, &bad_src, "", &bad), -11);
    assert_null(bad);
    assert_int_equal(f->log.counts[HST_LOGITEM_BUILD_FAILED], 1);
    assert_int_equal(f->log.last_item, HST_LOGITEM_BUILD_FAILED);
    assert_true(contains_nocase(f->log.last_message, "error"));
    /* a failed build is not cached: it fails again, and logs again */
    assert_int_equal(hst_program_build(be, 1, &bad_src, "", &bad), -11);
    assert_int_equal(f->log.counts[HST_LOGITEM_BUILD_FAILED], 2);

    assert_int_equal(hst_program_build(be, 1, &twice_src, "", &prog), HST_SUCCESS);
    cap_reset(&f->log);
    assert_int_equal(hst_kernel_create(prog, "no_such_kernel", &none), -46);
    assert_null(none);
    assert_true(f->log.total >= 1);
    assert_int_equal(hst_kernel_create(prog, "twice", &k), HST_SUCCESS);
    cap_reset(&f->log);
    assert_result_logged(hst_launch(q, k, 0, g, NULL, 0, NULL, NULL), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_result_logged(hst_launch(q, k, 4, g, NULL, 0, NULL, NULL), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_result_logged(hst_launch(q, k, 1, NULL, NULL, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_NULL_ARGUMENT);
    {
        const size_t zero = 0;
        assert_result_logged(hst_launch(q, k, 1, &zero, NULL, 0, NULL, NULL),
                             HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_ZERO_SIZE);
    }
    {
        const size_t huge = SIZE_MAX, l = 64;
        assert_result_logged(hst_launch(q, k, 1, &huge, &l, 0, NULL, NULL), HST_ERROR_OVERFLOW,
                             &f->log, HST_LOGITEM_SIZE_OVERFLOW);
    }
    assert_result_logged(hst_program_build(be, 0, &twice_src, "", &bad),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_ZERO_SIZE);
    assert_non_null(strstr(f->log.last_message, "count is 0"));
    assert_result_logged(hst_program_build(be, 1, NULL, "", &bad),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_NULL_ARGUMENT);
    assert_non_null(strstr(f->log.last_message, "sources is NULL"));
    hst_kernel_destroy(k);
    hst_program_release(prog);
}

/* ---- disk cache ---------------------------------------------------------------------------- */
typedef void (*file_fn)(const char *path);

/* Calls fn for every regular file in dir; returns how many. */
static int for_each_file(const char *dir, file_fn fn)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    char path[1200];
    struct stat st;
    if (!d) return 0;
    while ((e = readdir(d)) != NULL) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
        if (fn) fn(path);
        n++;
    }
    closedir(d);
    return n;
}

static void garble_file(const char *path)
{
    unsigned char junk[4096];
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    memset(junk, 0x5a, sizeof junk);
    assert_int_equal(fwrite(junk, 1, sizeof junk, fp), sizeof junk);
    fclose(fp);
}

static void truncate_file(const char *path)
{
    unsigned char head[10];
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    assert_int_equal(fread(head, 1, sizeof head, fp), sizeof head);
    fclose(fp);
    fp = fopen(path, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(head, 1, sizeof head, fp), sizeof head);
    fclose(fp);
}

static void remove_file(const char *path) { remove(path); }

static void remove_dir(const char *dir)
{
    for_each_file(dir, remove_file);
    rmdir(dir);
}

/* Builds `twice` on a new backend with cache_dir = dir, runs it, and returns the log. */
static void build_in_cache(const char *dir, cap_log *log)
{
    hst_backend_desc desc = cap_desc(log);
    hst_backend *be = NULL;
    hst_program *prog = NULL;
    const size_t local64 = 64;
    cap_reset(log);
    desc.cache_dir = dir;
    assert_int_equal(hst_backend_create(&desc, &be), HST_SUCCESS);
    assert_int_equal(hst_program_build(be, 1, &twice_src, "-DCACHE_TEST=1", &prog), HST_SUCCESS);
    run_twice(be, prog, &local64);
    hst_program_release(prog);
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
}

static void test_program_disk_cache(void **state)
{
    fixture *f = FIX(state);
    char dir[] = "/tmp/hst_test_backend_XXXXXX";
    cap_log log;
    NEED_OPENCL(f->be);
    assert_non_null(mkdtemp(dir));

    build_in_cache(dir, &log);                       /* a fresh directory: a miss */
    assert_int_equal(log.counts[HST_LOGITEM_CACHE_HIT], 0);
    assert_int_equal(log.counts[HST_LOGITEM_CACHE_CORRUPT], 0);
    assert_int_equal(log.counts[HST_LOGITEM_CACHE_WRITE_FAILED], 0);
    assert_int_equal(for_each_file(dir, NULL), 1);   /* one entry, no temporary left */

    build_in_cache(dir, &log);                       /* a new backend: a hit */
    assert_int_equal(log.counts[HST_LOGITEM_CACHE_HIT], 1);
    assert_int_equal(log.counts[HST_LOGITEM_CACHE_CORRUPT], 0);

    assert_int_equal(for_each_file(dir, garble_file), 1);
    build_in_cache(dir, &log);                       /* garbage: a logged miss, rewritten */
    assert_int_equal(log.counts[HST_LOGITEM_CACHE_CORRUPT], 1);
    assert_int_equal(log.counts[HST_LOGITEM_CACHE_HIT], 0);
    build_in_cache(dir, &log);
    assert_int_equal(log.counts[HST_LOGITEM_CACHE_HIT], 1);
    assert_int_equal(log.counts[HST_LOGITEM_CACHE_CORRUPT], 0);

    assert_int_equal(for_each_file(dir, truncate_file), 1);
    build_in_cache(dir, &log);                       /* truncated: a logged miss, rewritten */
    assert_int_equal(log.counts[HST_LOGITEM_CACHE_CORRUPT], 1);
    assert_int_equal(log.counts[HST_LOGITEM_CACHE_HIT], 0);
    build_in_cache(dir, &log);
    assert_int_equal(log.counts[HST_LOGITEM_CACHE_HIT], 1);
    assert_int_equal(log.counts[HST_LOGITEM_CACHE_CORRUPT], 0);
    assert_int_equal(for_each_file(dir, NULL), 1);

    remove_dir(dir);
}

/* no_disk_cache: nothing is written, nothing is read. */
static void test_program_no_disk_cache(void **state)
{
    fixture *f = FIX(state);
    char dir[] = "/tmp/hst_test_backend_XXXXXX";
    cap_log log;
    hst_backend_desc desc = cap_desc(&log);
    hst_backend *be = NULL;
    hst_program *prog = NULL;
    NEED_OPENCL(f->be);
    assert_non_null(mkdtemp(dir));
    cap_reset(&log);
    desc.cache_dir = dir;
    desc.no_disk_cache = 1;
    assert_int_equal(hst_backend_create(&desc, &be), HST_SUCCESS);
    assert_int_equal(hst_program_build(be, 1, &twice_src, "-DNO_DISK=1", &prog), HST_SUCCESS);
    hst_program_release(prog);
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
    assert_int_equal(for_each_file(dir, NULL), 0);
    assert_int_equal(log.counts[HST_LOGITEM_CACHE_HIT], 0);
    remove_dir(dir);
}

/* ============================================================================================
   Error paths: each rejection returns its code AND logs its item (NULL arguments, zero sizes,
   misaligned or out-of-range sub-buffers, size_t overflow, overlapping copies, objects of two
   backends mixed). */
static void test_errors_null_and_zero(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    hst_buffer *buf = NULL, *b = (hst_buffer *)&buf;
    unsigned char data[16] = {0};

    assert_int_equal(hst_buffer_create(be, 16, 0, &buf), HST_SUCCESS);
    cap_reset(&f->log);
    assert_result_logged(hst_buffer_create(be, 16, 0, NULL), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_NULL_ARGUMENT);
    assert_result_logged(hst_pinned_create(be, 16, NULL), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_NULL_ARGUMENT);
    assert_result_logged(hst_write(q, buf, 0, NULL, 4, 1, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_NULL_ARGUMENT);
    assert_result_logged(hst_read(q, buf, 0, NULL, 4, 1, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_NULL_ARGUMENT);
    assert_result_logged(hst_write(q, NULL, 0, data, 4, 1, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_NULL_ARGUMENT);
    assert_result_logged(hst_copy(q, buf, 0, NULL, 0, 4, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_NULL_ARGUMENT);
    assert_result_logged(hst_fill(q, buf, NULL, 4, 0, 4, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_NULL_ARGUMENT);
    assert_result_logged(hst_queue_create(be, NULL), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_NULL_ARGUMENT);
    assert_result_logged(hst_buffer_create_sub(buf, 0, 8, NULL), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_NULL_ARGUMENT);
    /* zero sizes */
    assert_result_logged(hst_buffer_create(be, 0, 0, &b), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_ZERO_SIZE);
    assert_null(b);
    b = (hst_buffer *)&buf;
    assert_result_logged(hst_pinned_create(be, 0, &b), HST_ERROR_INVALID_ARGUMENT, &f->log,
                         HST_LOGITEM_ZERO_SIZE);
    assert_null(b);
    b = (hst_buffer *)&buf;
    assert_result_logged(hst_buffer_create_sub(buf, 0, 0, &b), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_ZERO_SIZE);
    assert_null(b);
    {
        const size_t region[3] = {4, 0, 1};
        assert_result_logged(hst_write_rect(q, buf, NULL, data, NULL, region, 1, 0, NULL, NULL),
                             HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_ZERO_SIZE);
    }
    hst_buffer_destroy(buf);
}

/* hst_backend_create's own rejections (out NULL, a half-set allocator, a bad log level; the
   wrap_context / wrap_queue half is test_backend_wrap_half): the result, and the desc's logger
   hears of each ("Every
   rejected argument ... goes to the logger"; desc.logger NULL alone means stderr). */
static void test_errors_backend_desc(void **state)
{
    fixture *f = FIX(state);
    cap_log log;
    hst_backend_desc desc = cap_desc(&log);
    hst_backend *nb = (hst_backend *)&log;
    unsigned expected = 0;
    assert_non_null(f->be);
    cap_reset(&log);
    assert_int_equal(hst_backend_create(&desc, NULL), HST_ERROR_INVALID_ARGUMENT);
    expected++;
    desc.allocator.alloc = NULL;
    desc.allocator.free = free_stub_for_tests;
    assert_int_equal(hst_backend_create(&desc, &nb), HST_ERROR_INVALID_ARGUMENT);
    assert_null(nb);
    expected++;
    desc = cap_desc(&log);
    desc.log_level = (hst_log_level)9;
    nb = (hst_backend *)&log;
    assert_int_equal(hst_backend_create(&desc, &nb), HST_ERROR_INVALID_ARGUMENT);
    assert_null(nb);
    expected++;
    /* the codes above are right; now the logging: out NULL, the allocator half-set (an
       inconsistent pair), the log level outside hst_log_level */
    assert_int_equal(expected, 3);
    assert_int_equal(log.counts[HST_LOGITEM_NULL_ARGUMENT], 1);
    assert_int_equal(log.counts[HST_LOGITEM_BAD_ARGUMENT], 1);
    assert_int_equal(log.counts[HST_LOGITEM_OUT_OF_RANGE], 1);
    assert_int_equal(log.last_item, HST_LOGITEM_OUT_OF_RANGE);
    assert_non_null(strstr(log.last_message, "desc.log_level"));
}

static void test_errors_sub_buffer(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    size_t align = hst_backend_device(be)->mem_base_addr_align_bytes;
    hst_buffer *parent = NULL, *sub = (hst_buffer *)&parent;
    if (hst_backend_is_host(be)) assert_int_equal(align, 128);
    assert_int_equal(hst_buffer_create(be, 4 * align, 0, &parent), HST_SUCCESS);
    cap_reset(&f->log);
    assert_result_logged(hst_buffer_create_sub(parent, 1, 16, &sub), HST_ERROR_ALIGNMENT,
                         &f->log, HST_LOGITEM_MISALIGNED);
    assert_null(sub);
    if (align > 1) {
        assert_result_logged(hst_buffer_create_sub(parent, align / 2, 16, &sub),
                             HST_ERROR_ALIGNMENT, &f->log, HST_LOGITEM_MISALIGNED);
    }
    /* out of range: past the end by one byte, and an origin at the end */
    assert_result_logged(hst_buffer_create_sub(parent, align, 3 * align + 1, &sub),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_result_logged(hst_buffer_create_sub(parent, 4 * align, 1, &sub),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_OUT_OF_RANGE);
    assert_null(sub);
    /* exactly the tail fits */
    assert_int_equal(hst_buffer_create_sub(parent, 3 * align, align, &sub), HST_SUCCESS);
    hst_buffer_destroy(sub);
    hst_buffer_destroy(parent);
}

static void test_errors_overflow(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    hst_buffer *buf = NULL, *other = NULL;
    unsigned char data[4096];
    hst_rect r;
    size_t region[3] = {16, 2, 1};
    memset(data, 0, sizeof data);
    assert_int_equal(hst_buffer_create(be, 4096, 0, &buf), HST_SUCCESS);
    assert_int_equal(hst_buffer_create(be, 4096, 0, &other), HST_SUCCESS);
    cap_reset(&f->log);
    /* origin z times the slice pitch overflows */
    memset(&r, 0, sizeof r);
    r.origin[2] = SIZE_MAX / 8;
    r.row_pitch = 16; r.slice_pitch = 64;
    assert_result_logged(hst_write_rect(q, buf, &r, data, NULL, region, 1, 0, NULL, NULL),
                         HST_ERROR_OVERFLOW, &f->log, HST_LOGITEM_SIZE_OVERFLOW);
    assert_result_logged(hst_read_rect(q, buf, &r, data, NULL, region, 1, 0, NULL, NULL),
                         HST_ERROR_OVERFLOW, &f->log, HST_LOGITEM_SIZE_OVERFLOW);
    assert_result_logged(hst_copy_rect(q, other, NULL, buf, &r, region, 0, NULL, NULL),
                         HST_ERROR_OVERFLOW, &f->log, HST_LOGITEM_SIZE_OVERFLOW);
    /* origin y times a huge row pitch overflows */
    memset(&r, 0, sizeof r);
    r.origin[1] = 3;
    r.row_pitch = SIZE_MAX / 2; r.slice_pitch = SIZE_MAX / 2;
    region[1] = 1;
    assert_result_logged(hst_write_rect(q, buf, &r, data, NULL, region, 1, 0, NULL, NULL),
                         HST_ERROR_OVERFLOW, &f->log, HST_LOGITEM_SIZE_OVERFLOW);
    /* a tight slice pitch (rows x row pitch) that overflows */
    memset(&r, 0, sizeof r);
    r.row_pitch = SIZE_MAX / 2;
    region[1] = 3;
    assert_result_logged(hst_write_rect(q, buf, &r, data, NULL, region, 1, 0, NULL, NULL),
                         HST_ERROR_OVERFLOW, &f->log, HST_LOGITEM_SIZE_OVERFLOW);
    /* the region's own volume overflows */
    region[0] = SIZE_MAX / 2; region[1] = 4; region[2] = 1;
    assert_result_logged(hst_write_rect(q, buf, NULL, data, NULL, region, 1, 0, NULL, NULL),
                         HST_ERROR_OVERFLOW, &f->log, HST_LOGITEM_SIZE_OVERFLOW);
    /* linear offsets */
    assert_result_logged(hst_write(q, buf, SIZE_MAX, data, 4, 1, 0, NULL, NULL),
                         HST_ERROR_OVERFLOW, &f->log, HST_LOGITEM_SIZE_OVERFLOW);
    assert_result_logged(hst_read(q, buf, SIZE_MAX - 1, data, 8, 1, 0, NULL, NULL),
                         HST_ERROR_OVERFLOW, &f->log, HST_LOGITEM_SIZE_OVERFLOW);
    assert_result_logged(hst_copy(q, other, SIZE_MAX, buf, 0, 16, 0, NULL, NULL),
                         HST_ERROR_OVERFLOW, &f->log, HST_LOGITEM_SIZE_OVERFLOW);
    {
        const unsigned pat = 7;
        assert_result_logged(hst_fill(q, buf, &pat, 4, SIZE_MAX - 3, 8, 0, NULL, NULL),
                             HST_ERROR_OVERFLOW, &f->log, HST_LOGITEM_SIZE_OVERFLOW);
    }
    /* nothing was written by any of them */
    {
        unsigned char got[4096];
        memset(got, 1, sizeof got);
        assert_int_equal(hst_write(q, buf, 0, data, 4096, 1, 0, NULL, NULL), HST_SUCCESS);
        assert_int_equal(hst_read(q, buf, 0, got, 4096, 1, 0, NULL, NULL), HST_SUCCESS);
        assert_memory_equal(got, data, 4096);
    }
    hst_buffer_destroy(buf);
    hst_buffer_destroy(other);
}

static void test_errors_overlap(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    hst_queue *q = hst_backend_queue(be);
    size_t align = hst_backend_device(be)->mem_base_addr_align_bytes;
    hst_buffer *a = NULL, *sub = NULL;
    unsigned char src[512], got[512];
    fill_pattern(src, sizeof src, 51);
    assert_int_equal(hst_buffer_create(be, 2 * align + 512, 0, &a), HST_SUCCESS);
    assert_int_equal(hst_write(q, a, 0, src, 512, 1, 0, NULL, NULL), HST_SUCCESS);
    cap_reset(&f->log);
    assert_result_logged(hst_copy(q, a, 50, a, 0, 100, 0, NULL, NULL), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_BAD_ARGUMENT);
    assert_result_logged(hst_copy(q, a, 0, a, 99, 100, 0, NULL, NULL), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_BAD_ARGUMENT);
    assert_result_logged(hst_copy(q, a, 10, a, 10, 1, 0, NULL, NULL), HST_ERROR_INVALID_ARGUMENT,
                         &f->log, HST_LOGITEM_BAD_ARGUMENT);
    /* a sub-buffer overlaps its parent: sub [0, 100) is the parent's [align, align + 100),
       the source [align + 50, align + 150) */
    assert_int_equal(hst_buffer_create_sub(a, align, 256, &sub), HST_SUCCESS);
    assert_result_logged(hst_copy(q, sub, 0, a, align + 50, 100, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_BAD_ARGUMENT);
    assert_result_logged(hst_copy(q, a, align + 255, sub, 255, 1, 0, NULL, NULL),
                         HST_ERROR_INVALID_ARGUMENT, &f->log, HST_LOGITEM_BAD_ARGUMENT);
    /* adjacent ranges do not overlap, and nothing was changed before */
    assert_int_equal(hst_copy(q, a, 100, a, 0, 100, 0, NULL, NULL), HST_SUCCESS);
    assert_int_equal(hst_read(q, a, 0, got, 512, 1, 0, NULL, NULL), HST_SUCCESS);
    assert_memory_equal(got, src, 100);
    assert_memory_equal(got + 100, src, 100);
    assert_memory_equal(got + 200, src + 200, 312);
    hst_buffer_destroy(sub);
    hst_buffer_destroy(a);
}

static void test_errors_two_backends(void **state)
{
    fixture *f = FIX(state);
    hst_backend *a = f->be, *b = NULL;
    cap_log blog;
    hst_backend_desc desc = cap_desc(&blog);
    hst_buffer *ba = NULL, *bb = NULL;
    unsigned char data[64];
    const unsigned pat = 1;
    hst_buffer *list[1];
    memset(data, 0, sizeof data);
    cap_reset(&blog);
    assert_int_equal(hst_backend_create(&desc, &b), HST_SUCCESS);
    assert_int_equal(hst_buffer_create(a, 64, 0, &ba), HST_SUCCESS);
    assert_int_equal(hst_buffer_create(b, 64, 0, &bb), HST_SUCCESS);
    cap_reset(&blog);
    assert_result_logged(hst_write(hst_backend_queue(b), ba, 0, data, 64, 1, 0, NULL, NULL),
                         HST_ERROR_SHAPE, &blog, HST_LOGITEM_SHAPE_MISMATCH);
    assert_result_logged(hst_read(hst_backend_queue(b), ba, 0, data, 64, 1, 0, NULL, NULL),
                         HST_ERROR_SHAPE, &blog, HST_LOGITEM_SHAPE_MISMATCH);
    assert_result_logged(hst_copy(hst_backend_queue(b), bb, 0, ba, 0, 64, 0, NULL, NULL),
                         HST_ERROR_SHAPE, &blog, HST_LOGITEM_SHAPE_MISMATCH);
    list[0] = ba;
    assert_result_logged(hst_migrate(hst_backend_queue(b), 1, list, 0, 0, NULL, NULL),
                         HST_ERROR_SHAPE, &blog, HST_LOGITEM_SHAPE_MISMATCH);
    cap_reset(&f->log);
    assert_result_logged(hst_fill(hst_backend_queue(a), bb, &pat, 4, 0, 64, 0, NULL, NULL),
                         HST_ERROR_SHAPE, &f->log, HST_LOGITEM_SHAPE_MISMATCH);
    {
        const size_t region[3] = {8, 2, 1};
        assert_result_logged(hst_copy_rect(hst_backend_queue(a), ba, NULL, bb, NULL, region,
                                           0, NULL, NULL),
                             HST_ERROR_SHAPE, &f->log, HST_LOGITEM_SHAPE_MISMATCH);
    }
    hst_buffer_destroy(ba);
    hst_buffer_destroy(bb);
    assert_int_equal(hst_backend_destroy(b), HST_SUCCESS);
}

/* ============================================================================================
   Out of memory: (1) a host allocator that fails after k calls never crashes or leaks, and
   reports HST_ERROR_OUT_OF_HOST_MEMORY with its log item; (2) a request over the device's
   largest allocation fails up front; (3) under a device-memory budget, the pool frees held
   blocks to satisfy a request, and fails cleanly when even that is not enough. */
typedef struct counting_alloc {
    size_t calls, allowed, allocs, frees;
} counting_alloc;

static void *counting_alloc_fn(size_t bytes, void *user)
{
    counting_alloc *c = (counting_alloc *)user;
    void *p;
    if (bytes == 0) fail_msg("%s", "the allocator was asked for 0 bytes");
    if (c->calls++ >= c->allowed) return NULL;
    p = malloc(bytes);
    if (p) c->allocs++;
    return p;
}

static void counting_free_fn(void *ptr, void *user)
{
    counting_alloc *c = (counting_alloc *)user;
    if (ptr) { c->frees++; free(ptr); }
}

static void test_oom_allocator(void **state)
{
    size_t k;
    int backend_failed = 0, buffer_failed = 0, all_ok = 0;
    (void)state;
    for (k = 0; k <= 20; k++) {
        counting_alloc c;
        cap_log log;
        hst_backend_desc desc = cap_desc(&log);
        hst_backend *be = NULL;
        hst_buffer *buf = NULL;
        hst_result r;
        memset(&c, 0, sizeof c);
        c.allowed = k;
        cap_reset(&log);
        desc.allocator.alloc = counting_alloc_fn;
        desc.allocator.free = counting_free_fn;
        desc.allocator.user = &c;
        r = hst_backend_create(&desc, &be);
        if (r != HST_SUCCESS) {
            assert_int_equal(r, HST_ERROR_OUT_OF_HOST_MEMORY);
            assert_int_equal(log.counts[HST_LOGITEM_OUT_OF_HOST_MEMORY], 1);
            assert_null(be);
            backend_failed++;
        } else {
            r = hst_buffer_create(be, 4096, 0, &buf);
            if (r != HST_SUCCESS) {
                assert_int_equal(r, HST_ERROR_OUT_OF_HOST_MEMORY);
                assert_int_equal(log.counts[HST_LOGITEM_OUT_OF_HOST_MEMORY], 1);
                assert_int_equal(log.last_item, HST_LOGITEM_OUT_OF_HOST_MEMORY);
                assert_null(buf);
                assert_int_equal(hst_backend_device_bytes(be), 0);
                buffer_failed++;
            } else {
                unsigned char in[4096], out[4096];
                fill_pattern(in, sizeof in, (unsigned)k);
                assert_int_equal(hst_write(hst_backend_queue(be), buf, 0, in, 4096, 1, 0, NULL,
                                           NULL), HST_SUCCESS);
                assert_int_equal(hst_read(hst_backend_queue(be), buf, 0, out, 4096, 1, 0, NULL,
                                          NULL), HST_SUCCESS);
                assert_memory_equal(in, out, 4096);
                assert_int_equal(log.counts[HST_LOGITEM_OUT_OF_HOST_MEMORY], 0);
                hst_buffer_destroy(buf);
                all_ok++;
            }
            assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
        }
        if (c.allocs != c.frees)
            fail_msg("k = %zu: %zu allocations, %zu frees", k, c.allocs, c.frees);
    }
    assert_true(backend_failed >= 1);   /* k = 0 at least */
    assert_true(buffer_failed >= 1);    /* the buffer's struct is the next allocation */
    assert_true(all_ok >= 1);           /* and 20 is plenty */
}

static void test_oom_oversized(void **state)
{
    fixture *f = FIX(state);
    hst_backend *be = f->be;
    uint64_t max = hst_backend_device(be)->max_alloc_bytes;
    hst_buffer *b = (hst_buffer *)&max;
    uint64_t before = hst_backend_device_bytes(be);
    hst_result r;
    if (max >= (uint64_t)SIZE_MAX) { skip(); return; }
    r = hst_buffer_create(be, (size_t)max + 1, 0, &b);
    assert_result_logged(r, HST_ERROR_OUT_OF_DEVICE_MEMORY, &f->log, HST_LOGITEM_OUT_OF_DEVICE_MEMORY);
    assert_true(hst_result_is_out_of_memory(r));
    assert_null(b);
    assert_int_equal(hst_backend_device_bytes(be), before);
    cap_reset(&f->log);
    assert_result_logged(hst_pinned_create(be, (size_t)max + 1, &b), HST_ERROR_OUT_OF_DEVICE_MEMORY,
                         &f->log, HST_LOGITEM_OUT_OF_DEVICE_MEMORY);
    cap_reset(&f->log);
    assert_result_logged(hst_pool_alloc(hst_backend_pool(be), (size_t)max + 1, &b),
                         HST_ERROR_OUT_OF_DEVICE_MEMORY, &f->log, HST_LOGITEM_OUT_OF_DEVICE_MEMORY);
    assert_null(b);
    assert_int_equal(hst_backend_device_bytes(be), before);
}

static void test_oom_pool_recovery(void **state)
{
    cap_log log;
    hst_backend_desc desc = cap_desc(&log);
    hst_backend *be = NULL;
    hst_pool *pool;
    hst_buffer *blk[3] = {NULL, NULL, NULL}, *big = NULL, *huge = (hst_buffer *)&log, *plain;
    hst_pool_stats s;
    unsigned i;
    const size_t mib = 1024 * 1024;
    (void)state;
    cap_reset(&log);
    desc.device_memory_limit_bytes = mib;
    assert_int_equal(hst_backend_create(&desc, &be), HST_SUCCESS);
    pool = hst_backend_pool(be);
    for (i = 0; i < 3; i++) assert_int_equal(hst_pool_alloc(pool, 256 * 1024, &blk[i]), HST_SUCCESS);
    assert_int_equal(hst_backend_device_bytes(be), 3 * 256 * 1024);
    for (i = 0; i < 3; i++) hst_buffer_destroy(blk[i]);
    s = hst_pool_get_stats(pool);
    assert_int_equal(s.held_blocks, 3);
    assert_int_equal(s.active_blocks, 0);
    assert_int_equal(hst_backend_device_bytes(be), 3 * 256 * 1024);   /* held: still charged */
    /* a plain buffer over the budget fails (the pool does not rescue it) */
    plain = (hst_buffer *)&log;
    assert_result_logged(hst_buffer_create(be, 512 * 1024, 0, &plain),
                         HST_ERROR_OUT_OF_DEVICE_MEMORY, &log, HST_LOGITEM_OUT_OF_DEVICE_MEMORY);
    assert_null(plain);
    /* 900 KiB (bin 928 KiB) fits only once every held block is gone */
    cap_reset(&log);
    assert_int_equal(hst_pool_alloc(pool, 900 * 1024, &big), HST_SUCCESS);
    assert_non_null(big);
    assert_true(log.counts[HST_LOGITEM_POOL_RELEASED_HELD] >= 1);
    assert_int_equal(log.counts[HST_LOGITEM_POOL_RELEASED_HELD], 3);
    s = hst_pool_get_stats(pool);
    assert_true(s.held_blocks < 3);
    assert_int_equal(s.held_blocks, 0);
    assert_int_equal(s.active_blocks, 1);
    assert_int_equal(s.active_bytes, hst_pool_bin_bytes(900 * 1024));
    assert_true(hst_backend_device_bytes(be) <= mib);
    assert_int_equal(hst_backend_device_bytes(be), hst_pool_bin_bytes(900 * 1024));
    /* 2 MiB cannot fit at all */
    cap_reset(&log);
    assert_result_logged(hst_pool_alloc(pool, 2 * mib, &huge), HST_ERROR_OUT_OF_DEVICE_MEMORY,
                         &log, HST_LOGITEM_OUT_OF_DEVICE_MEMORY);
    assert_null(huge);
    s = hst_pool_get_stats(pool);
    assert_int_equal(s.active_blocks, 1);
    assert_true(hst_backend_device_bytes(be) <= mib);
    hst_buffer_destroy(big);
    hst_pool_free_held(pool);
    assert_int_equal(hst_backend_device_bytes(be), 0);
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
}

/* ============================================================================================
   Regressions from review: a pool destroyed with blocks in use detaches them (freed later, no
   use after free, device bytes back to where they were); a zero-byte fill or copy on an OpenCL
   device neither blocks on its wait list nor loses its out event; images are charged to the
   device-memory limit; a request over the largest allocation fails without emptying the pool. */
static void test_pool_destroy_detaches(void **state)
{
    fixture *f = FIX(state);
    hst_pool *pool = NULL;
    hst_buffer *a = NULL, *b = NULL;
    uint64_t before = hst_backend_device_bytes(f->be);
    assert_int_equal(hst_pool_create(f->be, &pool), HST_SUCCESS);
    assert_int_equal(hst_pool_alloc(pool, 1000, &a), HST_SUCCESS);
    assert_int_equal(hst_pool_alloc(pool, 5000, &b), HST_SUCCESS);
    hst_buffer_destroy(b);                       /* held */
    hst_pool_destroy(pool);                      /* a is still active: detached, warned */
    assert_int_equal(f->log.last_item, HST_LOGITEM_BAD_STATE);
    assert_int_equal(f->log.last_level, HST_LOG_WARN);
    assert_int_equal(hst_backend_device_bytes(f->be), before + hst_pool_bin_bytes(1000));
    hst_buffer_destroy(a);                       /* a plain buffer now */
    assert_int_equal(hst_backend_device_bytes(f->be), before);
}

static void test_zero_bytes_do_not_block(void **state)
{
    fixture *f = FIX(state);
    hst_buffer *a = NULL, *b = NULL;
    hst_event ev = NULL, ev2 = NULL;
    unsigned char pat = 7;
    assert_int_equal(hst_buffer_create(f->be, 256, 0, &a), HST_SUCCESS);
    assert_int_equal(hst_buffer_create(f->be, 256, 0, &b), HST_SUCCESS);
#ifndef HST_NO_OPENCL
    if (!hst_backend_is_host(f->be)) {
        cl_int err;
        cl_event user_cl = clCreateUserEvent(hst_backend_cl_context(f->be), &err);
        hst_event user = hst_event_from_cl(user_cl);
        assert_int_equal(err, CL_SUCCESS);
        /* the user event is incomplete: a host wait here would hang the test */
        assert_int_equal(hst_fill(hst_backend_queue(f->be), a, &pat, 1, 0, 0, 1, &user, &ev), HST_SUCCESS);
        assert_int_equal(hst_copy(hst_backend_queue(f->be), b, 0, a, 0, 0, 1, &user, &ev2), HST_SUCCESS);
        assert_non_null(ev);
        assert_non_null(ev2);
        assert_int_equal(clSetUserEventStatus(user_cl, CL_COMPLETE), CL_SUCCESS);
        assert_int_equal(hst_event_wait(1, &ev), HST_SUCCESS);
        assert_int_equal(hst_event_wait(1, &ev2), HST_SUCCESS);
        hst_event_release(ev);
        hst_event_release(ev2);
        clReleaseEvent(user_cl);
    } else
#endif
    {
        assert_int_equal(hst_fill(hst_backend_queue(f->be), a, &pat, 1, 0, 0, 0, NULL, &ev), HST_SUCCESS);
        assert_int_equal(hst_copy(hst_backend_queue(f->be), b, 0, a, 0, 0, 0, NULL, &ev2), HST_SUCCESS);
        assert_null(ev);
        assert_null(ev2);
    }
    hst_buffer_destroy(a);
    hst_buffer_destroy(b);
}

static void test_image_charged_to_limit(void **state)
{
    cap_log log;
    hst_backend_desc desc = cap_desc(&log);
    hst_backend *be = NULL;
    hst_image *img = NULL;
    size_t shape[2] = {1024, 1024};             /* 4 MiB of f32 */
    (void)state;
    desc.device_memory_limit_bytes = 1 << 20;
    assert_int_equal(hst_backend_create(&desc, &be), HST_SUCCESS);
    if (!hst_backend_device(be)->images) { assert_int_equal(hst_backend_destroy(be), HST_SUCCESS); skip(); return; }
    cap_reset(&log);
    assert_int_equal(hst_image_from_array(be, HST_F32, 1, 0, 2, shape, NULL, &img), HST_ERROR_OUT_OF_DEVICE_MEMORY);
    assert_null(img);
    assert_int_equal(log.last_item, HST_LOGITEM_OUT_OF_DEVICE_MEMORY);
    shape[0] = 128;                              /* 512 KiB fits and is charged */
    assert_int_equal(hst_image_from_array(be, HST_F32, 1, 0, 2, shape, NULL, &img), HST_SUCCESS);
    assert_int_equal(hst_backend_device_bytes(be), 128 * 1024 * 4);
    hst_image_destroy(img);
    assert_int_equal(hst_backend_device_bytes(be), 0);
    assert_int_equal(hst_backend_destroy(be), HST_SUCCESS);
}

static void test_pool_impossible_keeps_held(void **state)
{
    fixture *f = FIX(state);
    hst_pool *pool = hst_backend_pool(f->be);
    hst_buffer *a = NULL, *b = NULL;
    hst_pool_stats st;
    uint64_t max = hst_backend_device(f->be)->max_alloc_bytes;
    assert_int_equal(hst_pool_alloc(pool, 3000, &a), HST_SUCCESS);
    hst_buffer_destroy(a);
    st = hst_pool_get_stats(pool);
    assert_true(st.held_blocks >= 1);
    if (max < SIZE_MAX) {
        assert_int_equal(hst_pool_alloc(pool, (size_t)max + 1, &b), HST_ERROR_OUT_OF_DEVICE_MEMORY);
        assert_null(b);
        assert_int_equal(f->log.counts[HST_LOGITEM_POOL_RELEASED_HELD], 0);
        assert_int_equal(hst_pool_get_stats(pool).held_blocks, st.held_blocks);
    }
    hst_pool_free_held(pool);
}

/* ============================================================================================
   fork(): a child made after the parent initialised OpenCL never calls OpenCL (PoCL's child
   waited for ever for its parent's device threads): every call on an inherited OpenCL object,
   and every selector that needs OpenCL, fails at once with HST_ERROR_FORKED (logged as FORKED,
   naming the parent's pid); auto takes the host device with a warning; the host device works,
   inherited or new; destroying inherited objects returns. The child runs under alarm(): a hang
   ends it with SIGALRM, which the parent reports. */
#define FORK_CHILD_TIMEOUT_S 60

/* The child's checks: no cmocka there (its failures would unwind into the child's copy of the
   test runner); a failed check names its line on stderr and exits with status 1. */
#define CHILD_CHECK(cond) do {                                                               \
        if (!(cond)) { fprintf(stderr, "fork child: line %d: %s\n", __LINE__, #cond); _exit(1); } \
    } while (0)

/* 4 KiB written to a new buffer of be and read back: 1 when it came back. */
static int round_trip(hst_backend *be)
{
    static unsigned char src[4096], dst[4096];
    hst_buffer *buf = NULL;
    hst_result r;
    fill_pattern(src, sizeof src, 7);
    memset(dst, 0, sizeof dst);
    if (hst_buffer_create(be, sizeof src, 0, &buf) != HST_SUCCESS) return 0;
    r = hst_write(hst_backend_queue(be), buf, 0, src, sizeof src, 1, 0, NULL, NULL);
    if (r == HST_SUCCESS) r = hst_read(hst_backend_queue(be), buf, 0, dst, sizeof dst, 1, 0, NULL, NULL);
    hst_buffer_destroy(buf);
    return r == HST_SUCCESS && !memcmp(src, dst, sizeof src);
}

/* A backend made in the child on `device`, its result, its log in *log. */
static hst_result child_backend(const char *device, cap_log *log, hst_backend **be)
{
    hst_backend_desc desc = cap_desc(log);
    cap_reset(log);
    desc.device = device;
    return hst_backend_create(&desc, be);
}

#ifndef HST_NO_OPENCL
/* r is HST_ERROR_FORKED, logged last as FORKED naming the parent's pid. */
static int forked_refusal(hst_result r, const cap_log *log, long parent)
{
    char pid[32];
    snprintf(pid, sizeof pid, "process %ld", parent);
    return r == HST_ERROR_FORKED && log->last_item == HST_LOGITEM_FORKED &&
           log->last_level == HST_LOG_ERROR && strstr(log->last_message, pid) != NULL &&
           strstr(log->last_message, "fork()") != NULL;
}

/* What an OpenCL backend of the parent's gives the child: refusals, at once. */
static void child_inherited_opencl(fixture *f, long parent, hst_program *prog, hst_buffer *buf,
                                   hst_event ev)
{
    hst_queue *q = hst_backend_queue(f->be);
    hst_buffer *b2 = NULL;
    hst_program *p2 = NULL;
    hst_kernel *k = NULL;
    hst_event user = NULL;
    unsigned char byte = 1;
    cap_log log;
    hst_backend *be = NULL;
    cap_reset(&f->log);
    CHILD_CHECK(forked_refusal(hst_write(q, buf, 0, &byte, 1, 1, 0, NULL, NULL), &f->log, parent));
    CHILD_CHECK(forked_refusal(hst_read(q, buf, 0, &byte, 1, 1, 0, NULL, NULL), &f->log, parent));
    CHILD_CHECK(forked_refusal(hst_queue_finish(q), &f->log, parent));
    CHILD_CHECK(forked_refusal(hst_buffer_create(f->be, 64, 0, &b2), &f->log, parent) && !b2);
    CHILD_CHECK(forked_refusal(hst_program_build(f->be, 1, &twice_src, "-DFORKED", &p2), &f->log, parent) && !p2);
    CHILD_CHECK(forked_refusal(hst_kernel_create(prog, "twice", &k), &f->log, parent) && !k);
    CHILD_CHECK(forked_refusal(hst_user_event_create(f->be, &user), &f->log, parent) && !user);
    CHILD_CHECK(hst_event_wait(1, &ev) == HST_ERROR_FORKED);   /* logged to stderr: no backend */
    /* the parent's device by its selector: refused, not opened */
    CHILD_CHECK(forked_refusal(child_backend(hst_backend_device(f->be)->selector, &log, &be), &log,
                               parent) && !be);
}
#endif

/* 1 when hst_parallel(n = 6) ran each share once, three calls over. */
static void count_share(void *ctx, unsigned k, unsigned n)
{
    if (n == 6 && k < 6) (void)hst_atomic_add(&((volatile long *)ctx)[k], 1);
}

static int parallel_counts(void)
{
    volatile long runs[6] = {0, 0, 0, 0, 0, 0};
    int i, ok = 1;
    for (i = 0; i < 3; i++) hst_parallel(count_share, (void *)runs, 6);
    for (i = 0; i < 6; i++) ok &= runs[i] == 3;
    return ok;
}

static void child_checks(fixture *f, long parent, hst_program *prog, hst_buffer *buf, hst_event ev)
{
    cap_log log;
    hst_backend *be = NULL;
    size_t n = 0;
    alarm(FORK_CHILD_TIMEOUT_S);
#ifndef HST_NO_OPENCL
    /* OpenCL was initialised by the parent's first listing, whatever its device */
    CHILD_CHECK(hst_devices(NULL, 0, &n) == HST_SUCCESS && n == 1);
    if (!hst_backend_is_host(f->be)) child_inherited_opencl(f, parent, prog, buf, ev);
    /* auto: the host device, with a warning */
    CHILD_CHECK(child_backend("auto", &log, &be) == HST_SUCCESS && hst_backend_is_host(be));
    CHILD_CHECK(log.counts[HST_LOGITEM_FORKED] == 1 && log.errors[HST_LOGITEM_FORKED] == 0);
    CHILD_CHECK(round_trip(be) && hst_backend_destroy(be) == HST_SUCCESS);
    CHILD_CHECK(forked_refusal(child_backend("gpu", &log, &be), &log, parent) && !be);
#else
    (void)parent;
    CHILD_CHECK(hst_devices(NULL, 0, &n) == HST_SUCCESS && n == 1);
#endif
    /* hst_parallel's kept workers are the parent's: the child's calls start its own */
    CHILD_CHECK(parallel_counts());
    /* the host device: made here, and the parent's when that is one */
    CHILD_CHECK(child_backend("host", &log, &be) == HST_SUCCESS);
    CHILD_CHECK(log.counts[HST_LOGITEM_FORKED] == 0 && round_trip(be));
    CHILD_CHECK(hst_backend_destroy(be) == HST_SUCCESS);
    if (hst_backend_is_host(f->be)) CHILD_CHECK(round_trip(f->be));
    /* the parent's objects released and destroyed here (OpenCL's: without calling OpenCL) */
    hst_event_release(ev);
    hst_buffer_destroy(buf);
    hst_program_release(prog);
    CHILD_CHECK(hst_backend_destroy(f->be) == HST_SUCCESS);   /* the child's copy of it */
    _exit(0);
}

static void test_fork_child(void **state)
{
    fixture *f = FIX(state);
    hst_program *prog = NULL;
    hst_buffer *buf = NULL;
    hst_event ev = NULL;
    int status = 0;
    pid_t pid;
    assert_true(round_trip(f->be));   /* the parent's device has run work */
    assert_true(parallel_counts());   /* and hst_parallel has its workers */
    assert_int_equal(hst_buffer_create(f->be, 64, 0, &buf), HST_SUCCESS);
    assert_int_equal(hst_queue_marker(hst_backend_queue(f->be), 0, NULL, &ev), HST_SUCCESS);
    assert_int_equal(hst_event_wait(1, &ev), HST_SUCCESS);
    if (!hst_backend_is_host(f->be))
        assert_int_equal(hst_program_build(f->be, 1, &twice_src, "", &prog), HST_SUCCESS);
    fflush(NULL);   /* nothing buffered is written twice */
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) child_checks(f, (long)getppid(), prog, buf, ev);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status))
        fail_msg("the child was killed by signal %d%s", WTERMSIG(status),
                 WTERMSIG(status) == SIGALRM ? ": it hung" : "");
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);   /* else its stderr names the failed check */
    /* the parent carries on */
    assert_true(round_trip(f->be));
    if (prog) { run_twice(f->be, prog, NULL); hst_program_release(prog); }
    hst_event_release(ev);
    hst_buffer_destroy(buf);
}

int main(void)
{
    const struct CMUnitTest basics[] = {
        cmocka_unit_test(test_result_strings),
        cmocka_unit_test(test_log_item_names),
        cmocka_unit_test(test_result_out_of_memory),
        cmocka_unit_test(test_devices_list),
    };
    const struct CMUnitTest devices[] = {
        cmocka_unit_test_setup(test_device_select, reset_log),
        cmocka_unit_test_setup(test_backend_unknown_device, reset_log),
        cmocka_unit_test_setup(test_backend_device, reset_log),
        cmocka_unit_test(test_backend_extensions),
        cmocka_unit_test_setup(test_fork_child, reset_log),
#ifndef HST_NO_OPENCL
        cmocka_unit_test_setup(test_backend_wrap, reset_log),
        cmocka_unit_test_setup(test_backend_wrap_half, reset_log),
#endif
    };
    const struct CMUnitTest memory[] = {
        cmocka_unit_test_setup(test_queue_events, reset_log),
        cmocka_unit_test_setup(test_buffer_basics, reset_log),
        cmocka_unit_test_setup(test_buffer_sub, reset_log),
        cmocka_unit_test_setup(test_buffer_pinned, reset_log),
        cmocka_unit_test_setup(test_buffer_fill, reset_log),
        cmocka_unit_test_setup(test_buffer_write_read_copy, reset_log),
        cmocka_unit_test_setup(test_buffer_rect, reset_log),
        cmocka_unit_test_setup(test_buffer_map, reset_log),
        cmocka_unit_test_setup(test_buffer_wrap, reset_log),
        cmocka_unit_test_setup(test_buffer_migrate_resident, reset_log),
        cmocka_unit_test_setup(test_buffer_svm, reset_log),
    };
    const struct CMUnitTest images_pool[] = {
        cmocka_unit_test_setup(test_image_u8_2d, reset_log),
        cmocka_unit_test_setup(test_image_f32, reset_log),
        cmocka_unit_test_setup(test_image_sampler_errors, reset_log),
        cmocka_unit_test(test_pool_bins),
        cmocka_unit_test_setup(test_pool_stats, reset_log),
        cmocka_unit_test_setup(test_pool_destroy_detaches, reset_log),
        cmocka_unit_test_setup(test_pool_impossible_keeps_held, reset_log),
        cmocka_unit_test_setup(test_zero_bytes_do_not_block, reset_log),
        cmocka_unit_test(test_image_charged_to_limit),
    };
    const struct CMUnitTest programs[] = {
        cmocka_unit_test_setup(test_program_host_unsupported, reset_log),
        cmocka_unit_test_setup(test_program_build_launch, reset_log),
        cmocka_unit_test_setup(test_program_errors, reset_log),
        cmocka_unit_test_setup(test_program_disk_cache, reset_log),
        cmocka_unit_test_setup(test_program_no_disk_cache, reset_log),
    };
    const struct CMUnitTest errors[] = {
        cmocka_unit_test_setup(test_errors_null_and_zero, reset_log),
        cmocka_unit_test_setup(test_errors_backend_desc, reset_log),
        cmocka_unit_test_setup(test_errors_sub_buffer, reset_log),
        cmocka_unit_test_setup(test_errors_overflow, reset_log),
        cmocka_unit_test_setup(test_errors_overlap, reset_log),
        cmocka_unit_test_setup(test_errors_two_backends, reset_log),
        cmocka_unit_test(test_oom_allocator),
        cmocka_unit_test_setup(test_oom_oversized, reset_log),
        cmocka_unit_test(test_oom_pool_recovery),
    };
    int failed = 0;
    failed += cmocka_run_group_tests_name("results_logging", basics, NULL, NULL);
    failed += cmocka_run_group_tests_name("devices_backend", devices, setup, teardown);
    failed += cmocka_run_group_tests_name("queues_buffers", memory, setup, teardown);
    failed += cmocka_run_group_tests_name("images_pool", images_pool, setup, teardown);
    failed += cmocka_run_group_tests_name("programs", programs, setup, teardown);
    failed += cmocka_run_group_tests_name("errors", errors, setup, teardown);
    return failed;
}
