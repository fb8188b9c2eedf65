/* cli_os.h — the operating-system calls of the command-line programs under examples/ (esrrf.c
   and its image files, image_io.h) on POSIX systems and on Windows: files by descriptor,
   temporary files renamed into place, file identity, terminals, and the signals that end a
   run. Not part of the library (the library's own OS shim is backend.h's ">>os shim"); a
   single-file module of static functions, so every file that includes it gets its own copy.

       #define _POSIX_C_SOURCE 200809L     (POSIX: before any include; Windows ignores it)
       #include "cli_os.h"
       char tmp[64] = "out.tif.tmp-XXXXXX";
       int fd = cli_mkstemp(tmp);                   (like mkstemp; -1 with errno)
       ... cli_write(fd, buf, n) ... cli_close(fd);
       if (!cli_replace(tmp, "out.tif")) ...        (the old out.tif replaced in one step)

   POSIX half: the POSIX.1-2008 calls themselves (pread, mkstemp, fchmod, faccessat, readlink,
   sigaction, pthread_sigmask), with the signal policy examples/esrrf.c describes ("signals").
   Windows half (mingw-w64; MSVC untested): descriptors of the C runtime in binary mode, 64-bit
   offsets and sizes, pread through ReadFile at an offset, temporary files opened with
   FILE_SHARE_DELETE (so the handler of an end signal can remove them while they are open, as
   unlink does on POSIX), rename through MoveFileEx (replacing), a file's identity from its
   volume serial number and file index (st_ino is 0 there), no symbolic links followed by hand
   (the system follows them), no user ids (every owner check passes) and no permission bits
   set on new files (they inherit their directory's ACL). Signals: Ctrl-C, Ctrl-Break and the
   console's close, logoff and shutdown events (SetConsoleCtrlHandler) and the C standard
   SIGINT, SIGTERM (raise) end a run; SIGSEGV, SIGILL, SIGFPE, SIGABRT are faults. Windows has
   no signal masks: cli_hold_signals and cli_release_signals do nothing there.

   Not done: wide-character (UTF-16) paths on Windows (names go through the ANSI code page). */
#ifndef CLI_OS_H
#define CLI_OS_H

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__GNUC__) || defined(__clang__)
#  define CLI__FN static __attribute__((unused))
#else
#  define CLI__FN static
#endif

#if defined(_WIN32)
#  ifndef WIN32_LEAN_AND_MEAN
#    define WIN32_LEAN_AND_MEAN
#  endif
#  ifndef NOMINMAX
#    define NOMINMAX
#  endif
#  include <windows.h>
#  include <fcntl.h>
#  include <io.h>
#  include <sys/stat.h>
#  include <sys/types.h>
typedef struct _stat64 cli_stat;
#  ifndef S_ISLNK
#    define S_ISLNK(m) 0   /* the system follows links itself: none is seen */
#  endif
#  ifndef S_ISSOCK
#    define S_ISSOCK(m) 0
#  endif
#  ifndef S_ISFIFO
#    define S_ISFIFO(m) (((m) & S_IFMT) == _S_IFIFO)
#  endif
#  ifndef S_ISBLK
#    define S_ISBLK(m) 0
#  endif
#  ifndef S_IWGRP
#    define S_IWGRP 0
#    define S_IWOTH 0
#  endif
#  define CLI_SIGPIPE (-1)   /* no such signal: never a signal number */
#else
#  include <fcntl.h>
#  include <pthread.h>   /* pthread_sigmask */
#  include <sys/stat.h>
#  include <sys/types.h>
#  include <unistd.h>
#  if defined(__linux__)
#    include <sys/sysmacros.h>   /* major, minor: the file's device in sysfs */
#  endif
typedef struct stat cli_stat;
#  ifndef S_ISVTX
#    define S_ISVTX 01000   /* the sticky bit (XSI's name; the same bit everywhere) */
#  endif
#  define CLI_SIGPIPE SIGPIPE
#endif

/* ------------------------------------------------------------------------------ files */
/* stat, lstat (Windows: stat) and fstat with 64-bit sizes: 0, or -1 with errno. */
CLI__FN int cli_stat_path(const char *path, cli_stat *sb)
{
#if defined(_WIN32)
    return _stat64(path, sb);
#else
    return stat(path, sb);
#endif
}

CLI__FN int cli_lstat(const char *path, cli_stat *sb)
{
#if defined(_WIN32)
    return _stat64(path, sb);
#else
    return lstat(path, sb);
#endif
}

CLI__FN int cli_fstat(int fd, cli_stat *sb)
{
#if defined(_WIN32)
    return _fstat64(fd, sb);
#else
    return fstat(fd, sb);
#endif
}

/* path opened for reading, binary; POSIX: O_NONBLOCK, so a FIFO given by mistake fails its
   later checks instead of waiting for a writer. A descriptor, or -1 with errno. */
CLI__FN int cli_open_read(const char *path)
{
#if defined(_WIN32)
    return _open(path, _O_RDONLY | _O_BINARY);
#else
    return open(path, O_RDONLY | O_NONBLOCK);
#endif
}

CLI__FN int cli_close(int fd)
{
#if defined(_WIN32)
    return _close(fd);
#else
    return close(fd);
#endif
}

/* The most bytes one read-ahead request (posix_fadvise WILLNEED) of a file on the device of sb
   starts reading: Linux reads at most the larger of the device's read-ahead window and its
   largest request per call (mm/readahead.c, force_page_cache_ra) and drops the rest silently
   (a 1 GiB request read 8 MiB: read_ahead_kb 8192), so longer ranges are asked for in pieces of
   this size. From sysfs (/sys/dev/block/M:m/queue/read_ahead_kb, max_sectors_kb; a partition's
   in its disk's queue/); elsewhere, or unreadable: CLI_ADVICE_MIN, Linux's default window. */
#define CLI_ADVICE_MIN ((uint64_t)128 << 10)

#if defined(__linux__)
/* A number in KiB from the first of two sysfs files that can be read; 0 when neither can. */
CLI__FN uint64_t cli__sysfs_kib(const char *fmt, unsigned maj, unsigned min, const char *name)
{
    char path[128];
    unsigned long long kib = 0;
    const char *up[2] = { "", "../" };   /* the device's queue, or its disk's (a partition) */
    int i;
    for (i = 0; i < 2 && !kib; i++) {
        FILE *f;
        snprintf(path, sizeof path, fmt, maj, min, up[i], name);
        if (!(f = fopen(path, "r"))) continue;
        if (fscanf(f, "%llu", &kib) != 1) kib = 0;
        fclose(f);
    }
    return (uint64_t)kib;
}
#endif

CLI__FN uint64_t cli_advice_bytes(const cli_stat *sb)
{
    uint64_t kib = 0;
#if defined(__linux__)
    const char *fmt = "/sys/dev/block/%u:%u/%squeue/%s";
    uint64_t ra = cli__sysfs_kib(fmt, major(sb->st_dev), minor(sb->st_dev), "read_ahead_kb");
    uint64_t req = cli__sysfs_kib(fmt, major(sb->st_dev), minor(sb->st_dev), "max_sectors_kb");
    kib = ra > req ? ra : req;
#else
    (void)sb;
#endif
    return kib > (UINT64_MAX >> 10) || (kib << 10) < CLI_ADVICE_MIN ? CLI_ADVICE_MIN : kib << 10;
}

/* Up to n bytes at byte offset off, the file position untouched: the bytes read (0 at the
   end), or -1 with errno (EINTR: try again). */
CLI__FN int64_t cli_pread(int fd, void *buf, size_t n, uint64_t off)
{
#if defined(_WIN32)
    OVERLAPPED ov;
    DWORD got = 0;
    HANDLE h = (HANDLE)_get_osfhandle(fd);
    if (h == INVALID_HANDLE_VALUE) { errno = EBADF; return -1; }
    memset(&ov, 0, sizeof ov);
    ov.Offset = (DWORD)off;
    ov.OffsetHigh = (DWORD)(off >> 32);
    if (n > (1u << 30)) n = 1u << 30;   /* a DWORD count; the caller loops */
    if (!ReadFile(h, buf, (DWORD)n, &got, &ov)) {
        if (GetLastError() == ERROR_HANDLE_EOF) return 0;
        errno = EIO;
        return -1;
    }
    return (int64_t)got;
#else
    return (int64_t)pread(fd, buf, n, (off_t)off);
#endif
}

/* read and write at the file position: the bytes moved, or -1 with errno. */
CLI__FN int64_t cli_read(int fd, void *buf, size_t n)
{
#if defined(_WIN32)
    return _read(fd, buf, n > (1u << 30) ? 1u << 30 : (unsigned)n);
#else
    return (int64_t)read(fd, buf, n);
#endif
}

CLI__FN int64_t cli_write(int fd, const void *buf, size_t n)
{
#if defined(_WIN32)
    return _write(fd, buf, n > (1u << 30) ? 1u << 30 : (unsigned)n);
#else
    return (int64_t)write(fd, buf, n);
#endif
}

/* lseek with 64-bit offsets: the new position, or -1 with errno. */
CLI__FN int64_t cli_seek(int fd, int64_t off, int whence)
{
#if defined(_WIN32)
    return _lseeki64(fd, off, whence);
#else
    return (int64_t)lseek(fd, (off_t)off, whence);
#endif
}

/* unlink: async-signal-safe on POSIX; on Windows an open temporary file of cli_mkstemp is
   removed when its last descriptor closes (at the latest when the process ends). */
CLI__FN int cli_remove(const char *path)
{
#if defined(_WIN32)
    return _unlink(path);
#else
    return unlink(path);
#endif
}

#if defined(_WIN32)
/* errno for the Win32 error of a failed file call (the messages are strerror's). */
static int cli__errno_of(DWORD e)
{
    switch (e) {
    case ERROR_FILE_NOT_FOUND: case ERROR_PATH_NOT_FOUND: case ERROR_INVALID_NAME: return ENOENT;
    case ERROR_ACCESS_DENIED: case ERROR_SHARING_VIOLATION: case ERROR_WRITE_PROTECT: return EACCES;
    case ERROR_FILE_EXISTS: case ERROR_ALREADY_EXISTS: return EEXIST;
    case ERROR_DISK_FULL: case ERROR_HANDLE_DISK_FULL: return ENOSPC;
    case ERROR_NOT_SAME_DEVICE: return EXDEV;
    default: return EIO;
    }
}
#endif

/* Renames from over to, replacing an existing to in one step: 1, or 0 with errno. */
CLI__FN int cli_replace(const char *from, const char *to)
{
#if defined(_WIN32)
    if (MoveFileExA(from, to, MOVEFILE_REPLACE_EXISTING)) return 1;
    errno = cli__errno_of(GetLastError());
    return 0;
#else
    return rename(from, to) == 0;
#endif
}

/* mkstemp: the trailing XXXXXX of tmpl replaced by a name nobody has, that file created
   (read-write, binary, only this user on POSIX: 0600) and its descriptor returned; -1 with
   errno. Windows: the file may be removed while open (FILE_SHARE_DELETE). */
CLI__FN int cli_mkstemp(char *tmpl)
{
#if defined(_WIN32)
    static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    static volatile LONG serial;
    size_t len = strlen(tmpl), k;
    unsigned tries;
    if (len < 6 || strcmp(tmpl + len - 6, "XXXXXX")) { errno = EINVAL; return -1; }
    for (tries = 0; tries < 100; tries++) {
        /* process id, time and a counter: names differ between processes and calls */
        uint64_t v = ((uint64_t)GetCurrentProcessId() << 32) ^ GetTickCount64() * 2654435761u ^
                     (uint64_t)InterlockedIncrement(&serial) * 0x9E3779B97F4A7C15ull;
        HANDLE h;
        int fd;
        for (k = 0; k < 6; k++, v /= 36) tmpl[len - 6 + k] = digits[v % 36];
        h = CreateFileA(tmpl, GENERIC_READ | GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                        NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
        if (h == INVALID_HANDLE_VALUE) {
            DWORD e = GetLastError();
            if (e == ERROR_FILE_EXISTS || e == ERROR_ALREADY_EXISTS) continue;
            errno = cli__errno_of(e);
            return -1;
        }
        if ((fd = _open_osfhandle((intptr_t)h, _O_RDWR | _O_BINARY)) < 0) {
            CloseHandle(h);
            DeleteFileA(tmpl);
            return -1;
        }
        return fd;
    }
    errno = EEXIST;
    return -1;
#else
    return mkstemp(tmpl);
#endif
}

/* The permission bits of a file made by cli_mkstemp: mode & 0777 where mode is not 0 (the file
   it replaces), else 0666 less the umask. A failure keeps 0600 (still the owner's). Windows:
   nothing (the file has its directory's ACL). */
CLI__FN void cli_set_new_mode(int fd, unsigned mode)
{
#if defined(_WIN32)
    (void)fd;
    (void)mode;
#else
    mode_t mask = umask(0);
    umask(mask);
    if (fchmod(fd, mode ? (mode_t)(mode & 0777) : 0666 & ~mask) != 0) {
        /* keeps 0600 */
    }
#endif
}

/* readlink: the bytes of path's link target written to buf (not terminated), or -1 with errno
   (Windows: EINVAL, never a link: cli_lstat sees none). */
CLI__FN int64_t cli_readlink(const char *path, char *buf, size_t n)
{
#if defined(_WIN32)
    (void)path;
    (void)buf;
    (void)n;
    errno = EINVAL;
    return -1;
#else
    return (int64_t)readlink(path, buf, n);
#endif
}

/* Whether this user may write path, by the effective ids (root included): 1 or 0. */
CLI__FN int cli_writable(const char *path)
{
#if defined(_WIN32)
    return _access(path, 2) == 0;
#else
    return faccessat(AT_FDCWD, path, W_OK, AT_EACCESS) == 0;
#endif
}

/* Whether an existing file (sb) in directory dsb may not be replaced by this user: the
   directory is sticky (/tmp), this user is not root and owns neither. Windows: 0 (no sticky
   directories). */
CLI__FN int cli_sticky_refuses(const cli_stat *dsb, const cli_stat *sb)
{
#if defined(_WIN32)
    (void)dsb;
    (void)sb;
    return 0;
#else
    return (dsb->st_mode & S_ISVTX) && geteuid() != 0 && sb->st_uid != geteuid() && dsb->st_uid != geteuid();
#endif
}

/* Which file path names, as two numbers equal for the same file only (links and hard links of
   one file included): POSIX the device and inode, Windows the volume serial number and the
   file index. 1, or 0 when the file cannot be looked at (errno). */
CLI__FN int cli_file_key(const char *path, uint64_t key[2])
{
#if defined(_WIN32)
    BY_HANDLE_FILE_INFORMATION fi;
    HANDLE h = CreateFileA(path, 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, NULL, OPEN_EXISTING,
                           FILE_FLAG_BACKUP_SEMANTICS, NULL);   /* BACKUP_SEMANTICS: directories too */
    int ok;
    if (h == INVALID_HANDLE_VALUE) { errno = cli__errno_of(GetLastError()); return 0; }
    ok = GetFileInformationByHandle(h, &fi) != 0;
    CloseHandle(h);
    if (!ok) { errno = EIO; return 0; }
    key[0] = fi.dwVolumeSerialNumber;
    key[1] = ((uint64_t)fi.nFileIndexHigh << 32) | fi.nFileIndexLow;
    return 1;
#else
    struct stat sb;
    if (stat(path, &sb) != 0) return 0;
    key[0] = (uint64_t)sb.st_dev;
    key[1] = (uint64_t)sb.st_ino;
    return 1;
#endif
}

/* Whether f is a terminal (a console on Windows): 1 or 0. */
CLI__FN int cli_is_terminal(FILE *f)
{
#if defined(_WIN32)
    return _isatty(_fileno(f)) != 0;
#else
    return isatty(fileno(f));
#endif
}

/* _exit: ends the process at once (no atexit handlers, no stdio flush); async-signal-safe. */
CLI__FN void cli_exit_now(int status)
{
    _exit(status);
}

/* ------------------------------------------------------------------------------ signals */
/* cli_catch_signals(on_end, on_fault) installs the handlers: on_end(sig) for a signal sent to
   end the program (it may be called again for a second one: the caller decides, and it must
   be async-signal-safe); on_fault() for a defect (a fault signal) just before the signal
   goes on to the disposition it had before this program's, which ends the program as that
   signal does. Called again (after a driver may have installed handlers of its own) it puts
   them back; the fault signals' earlier dispositions are kept the first time only.
   POSIX end signals: HUP, INT, QUIT, PIPE, ALRM, TERM, USR1, USR2, VTALRM, PROF, XCPU, POLL,
   PWR, STKFLT where the system has them, and the real-time signals no library has taken;
   faults: SEGV, BUS, FPE, ILL, TRAP, ABRT, SYS; SIGXFSZ ignored (a write past a file size
   limit fails with EFBIG instead). cli_hold_signals blocks the end signals in the calling
   thread (and the threads it starts), cli_release_signals restores the mask (a signal held
   meanwhile is delivered then). cli_signal_name names a signal ("SIGINT", "SIGRTMIN+3"). */
#if defined(_WIN32)
typedef int cli_sigmask;   /* no masks */
#  ifndef SIGBREAK
#    define SIGBREAK 21
#  endif
static const struct { int sig; const char *name; } cli__end_signals[] = {
    { SIGINT, "SIGINT" }, { SIGTERM, "SIGTERM" }, { SIGBREAK, "SIGBREAK" },
};
static const int cli__fault_signals[] = { SIGSEGV, SIGILL, SIGFPE, SIGABRT };
#else
typedef sigset_t cli_sigmask;
static const struct { int sig; const char *name; } cli__end_signals[] = {
    { SIGHUP, "SIGHUP" }, { SIGINT, "SIGINT" }, { SIGQUIT, "SIGQUIT" }, { SIGPIPE, "SIGPIPE" },
    { SIGALRM, "SIGALRM" }, { SIGTERM, "SIGTERM" }, { SIGUSR1, "SIGUSR1" }, { SIGUSR2, "SIGUSR2" },
    { SIGVTALRM, "SIGVTALRM" }, { SIGPROF, "SIGPROF" }, { SIGXCPU, "SIGXCPU" },
#ifdef SIGPOLL
    { SIGPOLL, "SIGPOLL" },
#endif
#ifdef SIGPWR
    { SIGPWR, "SIGPWR" },
#endif
#ifdef SIGSTKFLT
    { SIGSTKFLT, "SIGSTKFLT" },
#endif
};
static const int cli__fault_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS };
#endif
#define CLI__NUM_END (sizeof cli__end_signals / sizeof cli__end_signals[0])
#define CLI__NUM_FAULT (sizeof cli__fault_signals / sizeof cli__fault_signals[0])

static void (*volatile cli__on_end)(int);
static void (*volatile cli__on_fault)(void);

CLI__FN void cli_signal_name(int sig, char *name, size_t bytes)
{
    size_t k;
#if defined(SIGRTMIN)
    snprintf(name, bytes, "SIGRTMIN+%d", sig - SIGRTMIN);
#else
    snprintf(name, bytes, "signal %d", sig);
#endif
    for (k = 0; k < CLI__NUM_END; k++)
        if (cli__end_signals[k].sig == sig) snprintf(name, bytes, "%s", cli__end_signals[k].name);
}

#if defined(_WIN32)
static void cli__on_end_signal(int sig)
{
    signal(sig, cli__on_end_signal);   /* Windows resets a handler to SIG_DFL before calling it */
    cli__on_end(sig);
}

static void cli__on_fault_signal(int sig)
{
    cli__on_fault();
    signal(sig, SIG_DFL);   /* the default: the program ends as the signal does */
    raise(sig);
}

/* The console's events, on a thread of their own: Ctrl-C and Ctrl-Break as SIGINT and SIGBREAK
   (the run stops; TRUE: handled). Close, logoff and shutdown end the process when this
   returns, so the temporary files are removed here (they go when their descriptors close). */
static BOOL WINAPI cli__on_console(DWORD event)
{
    if (event == CTRL_C_EVENT || event == CTRL_BREAK_EVENT) {
        cli__on_end(event == CTRL_C_EVENT ? SIGINT : SIGBREAK);
        return TRUE;
    }
    cli__on_end(SIGTERM);
    cli__on_fault();
    return FALSE;
}

CLI__FN void cli_catch_signals(void (*on_end)(int), void (*on_fault)(void))
{
    static int console;
    size_t k;
    cli__on_end = on_end;
    cli__on_fault = on_fault;
    signal(SIGINT, cli__on_end_signal);
    signal(SIGTERM, cli__on_end_signal);
    for (k = 0; k < CLI__NUM_FAULT; k++) signal(cli__fault_signals[k], cli__on_fault_signal);
    if (!console) console = SetConsoleCtrlHandler(cli__on_console, TRUE) != 0;   /* once: a list */
}

CLI__FN void cli_hold_signals(cli_sigmask *old) { *old = 0; }
CLI__FN void cli_release_signals(const cli_sigmask *old) { (void)old; }
#else
static struct sigaction cli__fault_before[CLI__NUM_FAULT];   /* the dispositions before ours */

static void cli__on_end_signal(int sig) { cli__on_end(sig); }

static void cli__on_fault_signal(int sig, siginfo_t *si, void *context)
{
    size_t k;
    (void)context;
    cli__on_fault();
    for (k = 0; k < CLI__NUM_FAULT; k++)
        if (cli__fault_signals[k] == sig) sigaction(sig, &cli__fault_before[k], NULL);
    /* sent (kill, raise, abort): raised again, delivered to that disposition when this
       returns; a fault: the instruction runs again on return and meets that disposition */
    if (si->si_code <= 0) raise(sig);
}

/* Whether sig's disposition is ours or the default (a real-time signal no library has taken). */
static int cli__free_or_ours(int sig)
{
    struct sigaction cur;
    if (sigaction(sig, NULL, &cur) != 0) return 0;
    return !(cur.sa_flags & SA_SIGINFO) && (cur.sa_handler == SIG_DFL || cur.sa_handler == cli__on_end_signal);
}

CLI__FN void cli_catch_signals(void (*on_end)(int), void (*on_fault)(void))
{
    static int kept;
    struct sigaction sa;
    size_t k;
    int s;
    cli__on_end = on_end;
    cli__on_fault = on_fault;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = cli__on_end_signal;
    for (k = 0; k < CLI__NUM_END; k++) sigaction(cli__end_signals[k].sig, &sa, NULL);
    for (s = SIGRTMIN; s <= SIGRTMAX; s++)
        if (cli__free_or_ours(s)) sigaction(s, &sa, NULL);
    sa.sa_handler = SIG_IGN;
    sigaction(SIGXFSZ, &sa, NULL);
    sa.sa_flags = SA_SIGINFO;
    sa.sa_sigaction = cli__on_fault_signal;
    for (k = 0; k < CLI__NUM_FAULT; k++) sigaction(cli__fault_signals[k], &sa, kept ? NULL : &cli__fault_before[k]);
    kept = 1;
}

CLI__FN void cli_hold_signals(cli_sigmask *old)
{
    sigset_t set;
    size_t k;
    int s;
    sigemptyset(&set);
    for (k = 0; k < CLI__NUM_END; k++) sigaddset(&set, cli__end_signals[k].sig);
    for (s = SIGRTMIN; s <= SIGRTMAX; s++) sigaddset(&set, s);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

CLI__FN void cli_release_signals(const cli_sigmask *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}
#endif

#endif /* CLI_OS_H */
