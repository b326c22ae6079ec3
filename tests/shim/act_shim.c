/*
 * act_shim.c - an LD_PRELOAD library for the integration tests: it sees
 * every pread/pwrite of the program as the kernel would, records them, and
 * can make them slow, hang or fail.
 *
 * Description: wraps pread, pread64, pwrite and pwrite64.
 *
 *   ACT_SHIM_TRACE=FILE   append one line per I/O:
 *                           <issue_ns> <done_ns> <tid> <fd> <r|w> <offset>
 *                           <size> <result>
 *                         times from CLOCK_MONOTONIC, issue_ns taken just
 *                         before the real call (after any injected delay).
 *   ACT_SHIM_FAULT=RULES  RULE[;RULE...], each RULE key=value[,key=value]:
 *                           op=read|write|any   which I/Os (default any)
 *                           size=N              only I/Os of N bytes
 *                           offset=N            only I/Os at offset N
 *                           path=TEXT           only fds whose path has TEXT
 *                           after_ms=N          from N ms after the first
 *                                               I/O the shim sees
 *                           every=N             every Nth matching I/O
 *                           count=N             at most N times (0 = no limit)
 *                           delay_ms=N          sleep N ms, then do the I/O
 *                                               (a hang: a large N)
 *                           errno=E             fail with E (EIO, ENOSPC,
 *                                               EROFS, EPIPE, EINVAL, ENXIO
 *                                               or a number > 0)
 *                         The first rule that matches an I/O applies.
 *                         A rule the shim can't read - an unknown key or
 *                         op, a value that is not a number, an unknown
 *                         errno, no '=', more than 8 rules - is refused
 *                         when the program loads: `act_shim: bad rule
 *                         'RULE': WHAT` on stderr and exit status 97, so
 *                         a test with a typo fails instead of passing
 *                         without its fault.
 *   ACT_SHIM_NVME=RULES   a fake NVMe drive: see shim_nvme.c.
 *
 * Test-only code: not installed, not linked into the programs.
 */

#define _GNU_SOURCE

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "shim.h"

//==========================================================
// Typedefs & constants.
//

#define MAX_RULES 8
#define MAX_FDS 4096

// The exit status of a program given a rule the shim can't read.
#define BAD_RULE_EXIT 97

typedef ssize_t (*pread_fn)(int, void*, size_t, off_t);
typedef ssize_t (*pwrite_fn)(int, const void*, size_t, off_t);

typedef struct rule_s {
	int op;                 // 0 any, 'r', 'w'
	uint64_t size;          // 0 any
	bool any_offset;
	uint64_t offset;
	char path[128];         // "" any
	uint64_t after_ns;
	uint64_t every;         // 0 or 1: every one
	uint64_t count;         // 0: no limit
	uint64_t delay_ns;
	int err;                // 0: no error
	atomic_uint_fast64_t seen;
	atomic_uint_fast64_t applied;
} rule;

//==========================================================
// Globals.
//

static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static pread_fn g_pread;
static pwrite_fn g_pwrite;
static shim_ioctl_fn g_ioctl;
int g_shim_trace_fd = -1;
static rule g_rules[MAX_RULES];
static int g_n_rules;
static atomic_uint_fast64_t g_first_ns;
// Per fd: 0 unknown, 1 path matches rule r (bit r), set once.
static atomic_uint_fast32_t g_fd_match[MAX_FDS];

//==========================================================
// Helpers shim_nvme.c shares (shim.h).
//

uint64_t
shim_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);

	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

void
shim_sleep_ns(uint64_t ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(ns / 1000000000ULL),
		.tv_nsec = (long)(ns % 1000000000ULL)
	};

	while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
	}
}

// A rule that can't be read: say which and what is wrong, and end the
// program (at load time) - a typo must not make a test pass without its
// fault.
void
shim_bad_rule(const char* rule_text, const char* fmt, ...)
{
	char what[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	dprintf(STDERR_FILENO, "act_shim: bad rule '%s': %s\n", rule_text, what);
	_exit(BAD_RULE_EXIT);
}

// The next key=value of a rule's text (*text: the text, then NULL as
// strtok_r wants), cut in place; false at its end. A piece without '=' is
// refused.
bool
shim_next_kv(const char* rule_text, char** text, char** save, const char** k,
		const char** v)
{
	char* kv = strtok_r(*text, ",", save);

	*text = NULL;

	if (kv == NULL) {
		return false;
	}

	char* eq = strchr(kv, '=');

	if (eq == NULL) {
		shim_bad_rule(rule_text, "'%s' is not key=value", kv);
	}

	*eq = '\0';
	*k = kv;
	*v = eq + 1;

	return true;
}

// A whole decimal number, or the rule is refused.
uint64_t
shim_parse_num(const char* rule_text, const char* k, const char* v)
{
	char* end = NULL;

	errno = 0;

	unsigned long long n = strtoull(v, &end, 10);

	if (v[0] < '0' || v[0] > '9' || errno != 0 || *end != '\0') {
		shim_bad_rule(rule_text, "%s=%s is not a whole number", k, v);
	}

	return (uint64_t)n;
}

// An errno by one of names' names (listed as such in the message) or by
// number.
int
shim_parse_errno(const char* rule_text, const char* v, const errno_name* names,
		const char* listed)
{
	for (size_t i = 0; names[i].name != NULL; i++) {
		if (strcmp(v, names[i].name) == 0) {
			return names[i].e;
		}
	}

	if (v[0] < '0' || v[0] > '9') {
		shim_bad_rule(rule_text, "errno=%s is not one of %s or a number", v,
				listed);
	}

	uint64_t n = shim_parse_num(rule_text, "errno", v);

	if (n == 0 || n > 4095) {
		shim_bad_rule(rule_text, "errno=%s is not an errno (1 to 4095)", v);
	}

	return (int)n;
}

//==========================================================
// Local helpers.
//

static const errno_name IO_ERRNOS[] = {
	{ "EIO", EIO }, { "ENOSPC", ENOSPC }, { "EROFS", EROFS },
	{ "EPIPE", EPIPE }, { "EINVAL", EINVAL }, { "ENXIO", ENXIO }, { NULL, 0 }
};

// One rule; rule_text is its text as given (for the message), text a copy
// to cut up.
static void
parse_rule(const char* rule_text, char* text)
{
	if (g_n_rules == MAX_RULES) {
		shim_bad_rule(rule_text, "more than %d rules", MAX_RULES);
	}

	rule* r = &g_rules[g_n_rules++];
	char* save = NULL;

	r->any_offset = true;

	const char* k;
	const char* v;

	while (shim_next_kv(rule_text, &text, &save, &k, &v)) {
		if (strcmp(k, "op") == 0) {
			if (strcmp(v, "read") == 0) {
				r->op = 'r';
			}
			else if (strcmp(v, "write") == 0) {
				r->op = 'w';
			}
			else if (strcmp(v, "any") == 0) {
				r->op = 0;
			}
			else {
				shim_bad_rule(rule_text, "op=%s is not read, write or any", v);
			}
		}
		else if (strcmp(k, "size") == 0) {
			r->size = shim_parse_num(rule_text, k, v);
		}
		else if (strcmp(k, "offset") == 0) {
			r->offset = shim_parse_num(rule_text, k, v);
			r->any_offset = false;
		}
		else if (strcmp(k, "path") == 0) {
			if (v[0] == '\0' || strlen(v) >= sizeof(r->path)) {
				shim_bad_rule(rule_text, "path= must have 1 to %zu characters",
						sizeof(r->path) - 1);
			}

			snprintf(r->path, sizeof(r->path), "%s", v);
		}
		else if (strcmp(k, "after_ms") == 0) {
			r->after_ns = shim_parse_num(rule_text, k, v) * 1000000ULL;
		}
		else if (strcmp(k, "every") == 0) {
			r->every = shim_parse_num(rule_text, k, v);
		}
		else if (strcmp(k, "count") == 0) {
			r->count = shim_parse_num(rule_text, k, v);
		}
		else if (strcmp(k, "delay_ms") == 0) {
			r->delay_ns = shim_parse_num(rule_text, k, v) * 1000000ULL;
		}
		else if (strcmp(k, "errno") == 0) {
			r->err = shim_parse_errno(rule_text, v, IO_ERRNOS,
					"EIO, ENOSPC, EROFS, EPIPE, EINVAL, ENXIO");
		}
		else {
			shim_bad_rule(rule_text, "unknown key '%s' (op, size, offset, path, "
					"after_ms, every, count, delay_ms, errno)", k);
		}
	}
}

// The rules of the variable name (RULE[;RULE...]), each to parse (its
// text as given, and a copy to cut up).
static void
parse_rules(const char* name, void (*parse)(const char* rule_text,
		char* text))
{
	const char* rules = getenv(name);

	if (rules == NULL || *rules == '\0') {
		return;
	}

	char* copy = strdup(rules);
	char* save = NULL;

	for (char* r = strtok_r(copy, ";", &save); r != NULL;
			r = strtok_r(NULL, ";", &save)) {
		char* one = strdup(r);

		parse(r, one);
		free(one);
	}

	free(copy);
}

static void
init(void)
{
	g_pread = (pread_fn)dlsym(RTLD_NEXT, "pread64");
	g_pwrite = (pwrite_fn)dlsym(RTLD_NEXT, "pwrite64");
	g_ioctl = (shim_ioctl_fn)dlsym(RTLD_NEXT, "ioctl");

	const char* trace = getenv("ACT_SHIM_TRACE");

	if (trace != NULL && *trace != '\0') {
		g_shim_trace_fd = open(trace, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
				0644);
	}

	parse_rules("ACT_SHIM_FAULT", parse_rule);
	parse_rules("ACT_SHIM_NVME", shim_nvme_parse_rule);
}

// Read the rules when the program loads, before it does anything: a bad
// one ends it at once.
__attribute__((constructor))
static void
load(void)
{
	pthread_once(&g_once, init);
}

// Whether fd's path contains text (looked up once per fd and rule).
static bool
path_matches(int fd, int ix, const char* text)
{
	if (fd < 0 || fd >= MAX_FDS) {
		return false;
	}

	uint32_t bits = (uint32_t)atomic_load(&g_fd_match[fd]);
	uint32_t known = 1u << (16 + ix);
	uint32_t yes = 1u << ix;

	if ((bits & known) == 0) {
		char link[64];
		char path[512];

		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);

		ssize_t n = readlink(link, path, sizeof(path) - 1);

		path[n < 0 ? 0 : n] = '\0';
		bits = known | (strstr(path, text) != NULL ? yes : 0);
		atomic_fetch_or(&g_fd_match[fd], bits);
	}

	return (bits & yes) != 0;
}

// The rule that applies to this I/O, or NULL.
static rule*
match(int fd, int op, size_t size, off_t off, uint64_t now)
{
	uint64_t expected = 0;

	atomic_compare_exchange_strong(&g_first_ns, &expected, now);

	uint64_t first = atomic_load(&g_first_ns);

	for (int i = 0; i < g_n_rules; i++) {
		rule* r = &g_rules[i];

		if ((r->op != 0 && r->op != op) || (r->size != 0 && r->size != size) ||
				(! r->any_offset && r->offset != (uint64_t)off) ||
				now - first < r->after_ns ||
				(r->path[0] != '\0' && ! path_matches(fd, i, r->path))) {
			continue;
		}

		uint64_t n = atomic_fetch_add(&r->seen, 1) + 1;

		if (r->every > 1 && n % r->every != 0) {
			continue;
		}

		if (r->count != 0 && atomic_fetch_add(&r->applied, 1) >= r->count) {
			continue;
		}

		return r;
	}

	return NULL;
}

static void
trace(uint64_t issue, uint64_t done, int fd, int op, off_t off, size_t size,
		ssize_t res)
{
	if (g_shim_trace_fd < 0) {
		return;
	}

	char line[160];
	int n = snprintf(line, sizeof(line), "%llu %llu %ld %d %c %lld %zu %zd\n",
			(unsigned long long)issue, (unsigned long long)done,
			(long)syscall(SYS_gettid), fd, op, (long long)off, size, res);

	if (write(g_shim_trace_fd, line, (size_t)n) != n) {
		// Nothing to do: the test will find the trace short.
	}
}

static ssize_t
do_io(int fd, void* rbuf, const void* wbuf, size_t size, off_t off)
{
	pthread_once(&g_once, init);

	int op = rbuf != NULL ? 'r' : 'w';
	rule* r = g_n_rules == 0 ? NULL : match(fd, op, size, off, shim_now_ns());

	if (r != NULL && r->delay_ns != 0) {
		shim_sleep_ns(r->delay_ns);
	}

	uint64_t issue = shim_now_ns();
	ssize_t res;

	if (r != NULL && r->err != 0) {
		errno = r->err;
		res = -1;
	}
	else {
		res = rbuf != NULL ? g_pread(fd, rbuf, size, off) :
				g_pwrite(fd, wbuf, size, off);
	}

	int e = errno;

	trace(issue, shim_now_ns(), fd, op, off, size, res);

	if (res > 0) {
		shim_nvme_count(fd, op, (uint64_t)res);
	}

	errno = e;

	return res;
}

//==========================================================
// The wrapped calls.
//

ssize_t
pread(int fd, void* buf, size_t count, off_t offset)
{
	return do_io(fd, buf, NULL, count, offset);
}

ssize_t
pread64(int fd, void* buf, size_t count, off_t offset)
{
	return do_io(fd, buf, NULL, count, offset);
}

ssize_t
pwrite(int fd, const void* buf, size_t count, off_t offset)
{
	return do_io(fd, NULL, buf, count, offset);
}

ssize_t
pwrite64(int fd, const void* buf, size_t count, off_t offset)
{
	return do_io(fd, NULL, buf, count, offset);
}

int
ioctl(int fd, unsigned long req, ...)
{
	va_list ap;

	va_start(ap, req);

	void* arg = va_arg(ap, void*);

	va_end(ap);
	pthread_once(&g_once, init);

	return _IOC_TYPE(req) == 'N' ? shim_nvme_ioctl(g_ioctl, fd, req, arg) :
			g_ioctl(fd, req, arg);
}
