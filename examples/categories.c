/*
 * categories.c - categories with their levels in a file that an operator
 * edits while the service runs (reloaded on a signal), and a sink that
 * takes only some categories:
 *
 *   - every file of the service names its category with LLOG_CATEGORY, or
 *     a call names its own (LOG_DEBUG_CAT);
 *   - llog_config.levels_file holds "info,db=debug"; a new spec renamed
 *     over it and SIGUSR1 (levels_signal) apply it at once (a change is
 *     logged as "llog: levels changed ...", category "llog");
 *   - the console gets everything, a second console (here stdout) only
 *     "db" and its children (llog_sink_options.categories).
 *
 * The example checks what it shows and exits 1 when something differs.
 */
#include <llog.h>
#include <llog/sinks.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Writes spec into a new file and renames it over path (what an operator
 * or a config tool does: the flusher never reads half a file). */
static int write_levels(const char *path, const char *spec)
{
	char tmp[256];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.new", path);
	f = fopen(tmp, "w");
	if (f == NULL || fprintf(f, "# levels of the example service\n%s\n", spec) < 0 ||
	    fclose(f) != 0)
		return -1;
	return rename(tmp, path);
}

int main(void)
{
	char dir[] = "/tmp/llog_categories_XXXXXX", path[256];
	struct llog_config cfg = {.levels_signal = SIGUSR1};
	struct llog_console_options all = {.fd = 2}, db_only = {.fd = 1};
	struct llog_sink_options db = {.categories = "db"};
	int ok = 1;

	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(path, sizeof(path), "%s/levels", dir);
	if (write_levels(path, "info,db=debug") != 0)
		return 1;
	cfg.levels_file = path;
	if (llog_add_sink(llog_console_sink(&all)) != 0 ||
	    llog_add_sink_opts(llog_console_sink(&db_only), &db) != 0 || llog_init(&cfg) != 0)
		return 1;

	LOG_DEBUG_CAT("db.pool", "checked out connection %d", 3); /* db=debug: shown */
	LOG_DEBUG_CAT("net", "hidden: net is at info");
	LOG_INFO_CAT("net", "peer %s connected", "10.0.0.7");
	ok &= llog_category_level("db.pool") == LLOG_DEBUG;

	/* The operator turns db down and net up, and signals the service. */
	if (write_levels(path, "info,db=warn,net=debug") != 0)
		return 1;
	raise(SIGUSR1);
	llog_flush(); /* the reload happens in the flusher's round */
	LOG_DEBUG_CAT("db.pool", "hidden now: db is at warn");
	LOG_DEBUG_CAT("net", "shown now: handshake took %d ms", 12);
	ok &= llog_category_level("db.pool") == LLOG_WARN;
	ok &= llog_category_level("net") == LLOG_DEBUG;

	llog_shutdown();
	unlink(path);
	rmdir(dir);
	if (!ok)
		fprintf(stderr, "categories: the levels file was not applied as expected\n");
	return ok ? 0 : 1;
}
