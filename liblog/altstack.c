/*
 * altstack.c - alternate signal stacks with a guard page. See altstack.h.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stddef.h>
#include <sys/mman.h>
#include <unistd.h>

#include "altstack.h"

void *llog__altstack_new(void)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, pg + LLOG__ALTSTACK_BYTES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	if (mprotect(p, pg, PROT_NONE) != 0) {
		munmap(p, pg + LLOG__ALTSTACK_BYTES);
		return NULL;
	}
	return p + pg;
}

void llog__altstack_delete(void *mem)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);

	if (mem != NULL)
		munmap((char *)mem - pg, pg + LLOG__ALTSTACK_BYTES);
}

int llog__altstack_install(void *mem)
{
	stack_t cur, ss = {.ss_sp = mem, .ss_size = LLOG__ALTSTACK_BYTES, .ss_flags = 0};

	if (sigaltstack(NULL, &cur) != 0 || !(cur.ss_flags & SS_DISABLE))
		return 0;
	return sigaltstack(&ss, NULL) == 0;
}

int llog__altstack_remove(void *mem)
{
	stack_t cur, off = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};

	if (mem == NULL || sigaltstack(NULL, &cur) != 0 || cur.ss_sp != mem ||
	    (cur.ss_flags & SS_DISABLE))
		return 1;
	if (cur.ss_flags & SS_ONSTACK)
		return 0; /* running on it (pthread_exit from a handler) */
	return sigaltstack(&off, NULL) == 0;
}

int llog__altstack_missing(void)
{
	stack_t cur;

	return sigaltstack(NULL, &cur) == 0 && (cur.ss_flags & SS_DISABLE);
}
