/*
 * Description: replays fuzz inputs through a fuzz target without
 * libFuzzer: `replay_<target> FILE-OR-DIR...` calls
 * LLVMFuzzerTestOneInput once per file (directories: every file in them)
 * and prints how many it ran. A crash or a sanitizer report fails it.
 * `make test` runs it over the seed corpus and every past crash input.
 */

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

static int
run_file(const char* path)
{
	FILE* f = fopen(path, "rb");

	if (f == NULL) {
		perror(path);
		return -1;
	}

	size_t cap = 4096;
	size_t len = 0;
	uint8_t* buf = malloc(cap);
	size_t n;

	while (buf != NULL && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;

		if (len == cap) {
			uint8_t* bigger = realloc(buf, cap * 2);

			if (bigger == NULL) {
				free(buf);
			}

			buf = bigger;
			cap *= 2;
		}
	}

	fclose(f);

	if (buf == NULL) {
		fprintf(stderr, "out of memory reading %s\n", path);
		return -1;
	}

	LLVMFuzzerTestOneInput(buf, len);
	free(buf);

	return 0;
}

int
main(int argc, char* argv[])
{
	unsigned n = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;

		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			return 1;
		}

		if (! S_ISDIR(st.st_mode)) {
			if (run_file(argv[i]) != 0) {
				return 1;
			}

			n++;
			continue;
		}

		DIR* d = opendir(argv[i]);

		if (d == NULL) {
			perror(argv[i]);
			return 1;
		}

		struct dirent* e;

		while ((e = readdir(d)) != NULL) {
			char path[4096];

			if (e->d_name[0] == '.') {
				continue;
			}

			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);

			if (run_file(path) != 0) {
				closedir(d);
				return 1;
			}

			n++;
		}

		closedir(d);
	}

	printf("%u inputs replayed\n", n);

	return 0;
}
