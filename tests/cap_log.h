/* tests/cap_log.h — a logger that captures what the library logs, so tests can assert on the
   item ids (and the text) of rejected arguments and fallbacks. Include after the headers. */
#ifndef HST_TESTS_CAP_LOG_H
#define HST_TESTS_CAP_LOG_H

#include <string.h>

#if defined(__GNUC__)
#  define CAP_FN static __attribute__((unused))
#else
#  define CAP_FN static
#endif

typedef struct cap_log {
    hst_log_item last_item;
    hst_log_level last_level;
    char last_message[4096];
    unsigned counts[HST_LOGITEM_COUNT];   /* per item */
    unsigned errors[HST_LOGITEM_COUNT];   /* per item, those at HST_LOG_ERROR */
    unsigned total;
} cap_log;

CAP_FN void cap_logger(void *user, hst_log_level level, hst_log_item item, const char *message)
{
    cap_log *c = (cap_log *)user;
    c->last_item = item;
    c->last_level = level;
    if ((unsigned)item < HST_LOGITEM_COUNT) {
        c->counts[item]++;
        if (level == HST_LOG_ERROR) c->errors[item]++;
    }
    c->total++;
    strncpy(c->last_message, message ? message : "", sizeof c->last_message - 1);
    c->last_message[sizeof c->last_message - 1] = '\0';
}

CAP_FN void cap_reset(cap_log *c) { memset(c, 0, sizeof *c); }

/* The rejected arguments logged, whatever their item (HST_LOGITEM_LIST's rejection items). */
CAP_FN unsigned rejections(const cap_log *c)
{
    return c->counts[HST_LOGITEM_BAD_ARGUMENT] + c->counts[HST_LOGITEM_NULL_ARGUMENT] +
           c->counts[HST_LOGITEM_ZERO_SIZE] + c->counts[HST_LOGITEM_OUT_OF_RANGE] +
           c->counts[HST_LOGITEM_BAD_STATE];
}

/* A backend desc with the capturing logger and the device from HST_DEVICE. */
CAP_FN hst_backend_desc cap_desc(cap_log *log)
{
    hst_backend_desc desc;
    memset(&desc, 0, sizeof desc);
    desc.logger = cap_logger;
    desc.log_user = log;
    return desc;
}
#endif
