/*
 * file_rotation.c - log to a compressed file that rotates.
 *
 * The newest records are always in app.log.zst; when it would pass 64 KiB
 * it is renamed to app.log.<UTC time>.zst and a new one starts; only the
 * 3 newest rotated files are kept. Read them with `zstdcat` or `llogcat`.
 * This example works in a temporary directory and removes it at the end.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <llog.h>
#include <llog/sinks.h>

static int remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char p[512];
	int files = 0;

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, de->d_name);
		printf("  %s\n", de->d_name);
		unlink(p);
		files++;
	}
	closedir(d);
	rmdir(dir);
	return files;
}

int main(void)
{
	char dir[] = "/tmp/llog_example_XXXXXX";
	char path[64];
	struct llog_file_options opt = {0};
	struct llog_sink *sink;
	int files;

	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(path, sizeof(path), "%s/app.log.zst", dir);
	opt.path = path;
	opt.max_bytes = 64 * 1024; /* rotate past 64 KiB */
	opt.max_files = 3;         /* keep the 3 newest rotated files */
	sink = llog_file_sink(&opt);
	if (sink == NULL) {
		fprintf(stderr, "file sink: %s\n", llog_file_sink_error());
		remove_dir(dir);
		return 1;
	}
	if (llog_add_sink(sink) != 0 || llog_init(NULL) != 0)
		return 1;

	for (int i = 0; i < 50000; i++) {
		LOG_INFO("request %d took %.3f ms from %s", i, (i % 977) / 10.0, "10.0.0.1");
		if (i % 1000 == 999)
			llog_flush(); /* one zstd frame per flusher batch */
	}

	llog_shutdown(); /* writes the last frame and closes the file */
	printf("files in %s:\n", dir);
	files = remove_dir(dir);
	return files == 4 ? 0 : 1; /* app.log.zst + 3 rotated */
}
