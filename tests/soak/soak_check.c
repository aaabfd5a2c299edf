/*
 * soak_check.c - the soak service's checks at the end of a run (soak.h):
 * the counter identities of include/llog.h and include/llog/sinks.h, the
 * file sink's records against what it was handed and lost, and the
 * console's output. Each failed check prints one line "VIOLATION: ..."
 * on stdout and counts in soak_violations().
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "soak.h"

#define MAX_FILES 100000

static int violations;

void soak_violation(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	printf("VIOLATION: ");
	vprintf(fmt, ap);
	printf("\n");
	va_end(ap);
	violations++;
}

int soak_violations(void)
{
	return violations;
}

/*
 * The identities of include/llog.h and include/llog/sinks.h, in one place
 * (adjust here when their definitions change). st is read after
 * llog_shutdown(); each sink's counters after it when llog keeps them
 * readable (has_post), else just before it (then the entries still queued
 * at shutdown are not known, and the identities that need them are
 * checked as bounds).
 */
void soak_check_counters(const struct llog_stats *st, const struct soak_sink_view *v, int n)
{
	uint64_t qdropped = 0, undelivered = 0, attributed = 0;
	int exact = 1;

	/* llog.h, "Statistics": after llog_flush(), no concurrent logging. */
	if (st->logged != st->written + st->dropped)
		soak_violation("logged %" PRIu64 " != written %" PRIu64 " + dropped %" PRIu64, st->logged,
			  st->written, st->dropped);
	/* llog.h, "Statistics": the backtrace's ring is emptied at shutdown. */
	if (st->backtrace_captured != st->backtrace_written + st->backtrace_discarded)
		soak_violation("backtrace_captured %" PRIu64 " != written %" PRIu64
			  " + discarded %" PRIu64,
			  st->backtrace_captured, st->backtrace_written, st->backtrace_discarded);
	for (int i = 0; i < n; i++) {
		const struct llog_sink_stats *s = v[i].has_post ? &v[i].post : &v[i].pre;

		exact &= v[i].has_post;
		qdropped += s->dropped;
		undelivered += s->undelivered;
		/* sinks.h, llog_sink_stats: each entry queued is delivered
		 * or left undelivered at shutdown. */
		if (v[i].has_post ? s->queued != s->delivered + s->undelivered
				  : s->queued < s->delivered + s->undelivered)
			soak_violation("sink %s: queued %" PRIu64 " %s delivered %" PRIu64
				  " + undelivered %" PRIu64,
				  v[i].name, s->queued, v[i].has_post ? "!=" : "<", s->delivered,
				  s->undelivered);
		if (v[i].has_post && s->queue_bytes != 0)
			soak_violation("sink %s: %" PRIu64 " bytes still queued after shutdown", v[i].name,
				  s->queue_bytes);
	}
	/* llog.h: queue_dropped is the sum over the sinks' queues. */
	if (exact ? st->queue_dropped != qdropped : st->queue_dropped < qdropped)
		soak_violation("queue_dropped %" PRIu64 " %s the sinks' dropped %" PRIu64,
			  st->queue_dropped, exact ? "!=" : "<", qdropped);
	/* llog.h: sink_lost is the sinks' own losses (each known here by its
	 * wrapper, soak_tag.c) and their queues' undelivered entries. */
	for (int t = 0; t < SOAK_NTAGS; t++)
		attributed += soak_tag_lost((enum soak_tag)t);
	if (exact ? st->sink_lost != attributed + undelivered
		  : st->sink_lost < attributed + undelivered)
		soak_violation("sink_lost %" PRIu64 " %s the sinks' own %" PRIu64 " + undelivered %" PRIu64,
			  st->sink_lost, exact ? "!=" : "<", attributed, undelivered);
	if (!exact)
		printf("note: sink counters not readable after llog_shutdown(): read after the "
		       "last llog_flush(), the identities that need their final values checked "
		       "as bounds; sink_lost - (own + undelivered) = %" PRIu64
		       ", queue_dropped - dropped = %" PRIu64 " (counted at shutdown)\n",
		       st->sink_lost - attributed - undelivered, st->queue_dropped - qdropped);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The file sink's files in the order written: the archive's rotated files
 * by name (their names sort by rotation time), then the current file. */
static int list_files(const struct soak_file_run *r, char ***out)
{
	char **v = malloc(MAX_FILES * sizeof(*v));
	struct dirent *de;
	DIR *d;
	int n = 0;

	if (v == NULL || (d = opendir(r->archive)) == NULL) {
		free(v);
		return -1;
	}
	while ((de = readdir(d)) != NULL && n < MAX_FILES - 1)
		if (strncmp(de->d_name, "soak.log.", 9) == 0)
			v[n++] = strdup(de->d_name);
	closedir(d);
	qsort(v, (size_t)n, sizeof(*v), cmp_str);
	for (int i = 0; i < n; i++) {
		char *p;

		if (asprintf(&p, "%s/%s", r->archive, v[i]) < 0)
			p = NULL;
		free(v[i]);
		v[i] = p;
	}
	if (asprintf(&v[n], "%s", r->current) < 0)
		v[n] = NULL;
	*out = v;
	return n + 1;
}

/*
 * The file sink's records: read back from every file, against what its
 * wrapper handed it, its sink_lost and the calls made:
 *   lines == handed entries - sink_lost (file)          (all entries)
 *   per thread: no record twice or out of order, in the handed stream and
 *   in the files; handed <= calls, found <= handed;
 *   sum(calls - handed) == dropped (every drop is a worker's record: the
 *   service logs nothing else that can be dropped)
 *   sum(handed - found) <= sink_lost (file) (the rest: llog's own entries)
 */
uint64_t soak_check_file(const struct llog_stats *st, const struct soak_file_run *r,
			 struct soak_found *f)
{
	const struct soak_seen *seen = r->seen;
	uint64_t lost = soak_tag_lost(SOAK_TAG_FILE), not_handed = 0, not_found = 0;
	char **files;
	int n = list_files(r, &files);

	soak_found_init(f);
	if (n < 0) {
		soak_violation("cannot list %s", r->archive);
		return 0;
	}
	for (int i = 0; i < n; i++) {
		struct stat sb;

		if (files[i] == NULL)
			continue;
		if (i == n - 1 && stat(files[i], &sb) != 0) {
			free(files[i]);
			continue; /* never made (a full file system), or rotated last */
		}
		if (soak_read_zst(files[i], 0, f) != 0)
			soak_violation("%s", f->first_error);
		free(files[i]);
	}
	free(files);
	if (f->disorder != 0 || f->bad_lines != 0 || f->foreign != 0)
		soak_violation("file: %" PRIu64 " records out of order or twice, %" PRIu64
			  " bad lines, %" PRIu64 " of children; first: %s",
			  f->disorder, f->bad_lines, f->foreign, f->first_error);
	if (seen->disorder != 0 || seen->seq_disorder != 0)
		soak_violation("file sink handed %" PRIu64 " records out of thread order, %" PRIu64
			  " entries out of seq order",
			  seen->disorder, seen->seq_disorder);
	if (f->lines != seen->entries - lost)
		soak_violation("file: %" PRIu64 " lines in the files, but %" PRIu64
			  " entries handed - %" PRIu64 " lost = %" PRIu64,
			  f->lines, seen->entries, lost, seen->entries - lost);
	for (int t = 0; t < r->threads; t++) {
		uint64_t c = r->calls[t];

		if (seen->records[t] > c || f->records[t] > seen->records[t])
			soak_violation("thread %d: %" PRIu64 " calls, %" PRIu64 " handed, %" PRIu64
				  " in the files",
				  t, c, seen->records[t], f->records[t]);
		not_handed += c - seen->records[t];
		not_found += seen->records[t] - f->records[t];
	}
	if (not_handed != st->dropped)
		soak_violation("%" PRIu64 " worker records never reached the file sink, but dropped is %" PRIu64,
			  not_handed, st->dropped);
	if (not_found > lost)
		soak_violation("%" PRIu64 " worker records handed to the file sink are not in its files, "
			  "but it lost %" PRIu64 " entries",
			  not_found, lost);
	return not_handed + not_found;
}

/* The console's output: each worker's records at most once, in order. */
int soak_check_console(const char *path)
{
	struct soak_found f;
	uint64_t total = 0;

	soak_found_init(&f);
	if (soak_read_plain(path, 0, &f) != 0) {
		printf("VIOLATION: %s\n", f.first_error);
		return 1;
	}
	for (int t = 0; t < SOAK_MAX_THREADS; t++)
		total += f.records[t];
	printf("console: %" PRIu64 " lines, %" PRIu64 " worker records, %" PRIu64
	       " out of order or twice\n",
	       f.lines, total, f.disorder);
	if (f.disorder != 0) {
		printf("VIOLATION: console: %s\n", f.first_error);
		return 1;
	}
	return 0;
}
