/*
 * shim.h - what the test shim's files share (act_shim.c: the I/O trace and
 * faults, and loading; shim_nvme.c: the fake NVMe drive). Hidden from the
 * programs the shim is preloaded into: only the wrapped calls (pread,
 * pwrite, ioctl...) are exported.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

typedef int (*shim_ioctl_fn)(int, unsigned long, ...);

// An errno name a rule may give.
typedef struct errno_name_s {
	const char* name;
	int e;
} errno_name;

// ACT_SHIM_TRACE's descriptor, or -1.
extern int g_shim_trace_fd;

// CLOCK_MONOTONIC in nanoseconds; a sleep that EINTR does not cut short.
uint64_t shim_now_ns(void);
void shim_sleep_ns(uint64_t ns);

// A rule that can't be read: `act_shim: bad rule 'RULE': WHAT` on stderr
// and exit status 97 (at load time).
void shim_bad_rule(const char* rule_text, const char* fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

// The next key=value of a rule's text, cut in place (*text: the text,
// then NULL); false at its end; a piece without '=' refuses the rule.
bool shim_next_kv(const char* rule_text, char** text, char** save,
		const char** k, const char** v);

// A whole decimal number of key k, or the rule is refused.
uint64_t shim_parse_num(const char* rule_text, const char* k, const char* v);

// An errno by one of names (NULL-terminated; listed as such in the
// message) or by number, or the rule is refused.
int shim_parse_errno(const char* rule_text, const char* v,
		const errno_name* names, const char* listed);

// shim_nvme.c: one ACT_SHIM_NVME rule (its text as given, a copy to cut).
void shim_nvme_parse_rule(const char* rule_text, char* text);

// shim_nvme.c: bytes of a pread ('r') or pwrite ('w') on fd, counted to
// the fake drive whose path fd has.
void shim_nvme_count(int fd, int op, uint64_t bytes);

// shim_nvme.c: an NVMe ioctl (type 'N'): answered by the fake drive whose
// path fd has, else by real; traced (ACT_SHIM_TRACE).
int shim_nvme_ioctl(shim_ioctl_fn real, int fd, unsigned long req,
		void* arg);

#pragma GCC visibility pop
