/* tests/fuzz/fuzz_tiff.c — the examples' TIFF reader (examples/image_io.h) on arbitrary bytes:
   it must answer every file with a stack or a message, never crash, leak, read out of bounds or
   allocate more than the file's size allows (IO_MAX_INFLATE times its bytes, 4 times more when
   converted to float32, and libtiff's working buffers). Each input is read as a whole stack,
   then as channel 2 of a hyperstack limited to one frame. Seeds: tests/fuzz/corpus/tiff (small
   valid stacks of every layout the reader takes, and broken ones: page chain cut, strips past
   the end, ImageJ frame counts too high). */
#define _POSIX_C_SOURCE 200809L
#define IMAGE_IO_IMPLEMENTATION
#include "../../examples/image_io.h"

static void check_one(const uint8_t *data, size_t size, unsigned channel, uint64_t max_frames)
{
    io_stack st;
    char err[700];
    uint64_t bytes, limit = (uint64_t)size * IO_MAX_INFLATE * 4 + ((uint64_t)4 << 20);
    memset(err, 0x5A, sizeof err);
    if (!io_read_stack_memory(data, size, "fuzz.tif", channel, max_frames, &st, err, sizeof err)) {
        /* a failure says why, in a terminated sentence, and returns nothing */
        if (!memchr(err, '\0', sizeof err) || !err[0] || st.data || st.frames) __builtin_trap();
        return;
    }
    bytes = st.frames * st.rows * st.cols * io_dtype_bytes(st.dtype);
    if (!st.rows || !st.cols || !io_dtype_bytes(st.dtype) || (st.frames && !st.data) || bytes > limit ||
        (max_frames && st.frames > max_frames) || !memchr(st.kind, '\0', sizeof st.kind))
        __builtin_trap();
    if (bytes) {   /* every sample readable (ASan checks the whole block) */
        volatile uint8_t sink = ((const uint8_t *)st.data)[0] ^ ((const uint8_t *)st.data)[bytes - 1];
        (void)sink;
    }
    io_stack_free(&st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_one(data, size, 0, 0);
    check_one(data, size, 2, 1);
    return 0;
}
