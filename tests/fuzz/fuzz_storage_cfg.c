/*
 * Description: fuzz target - act_storage's config parser, from text as a
 * config file would give it: parse, validate, derive, and on success echo
 * the configuration as the log would. Built with libFuzzer by `make fuzz`;
 * replayed over tests/fuzz/corpus and tests/fuzz/crashes by `make test`.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/strbuf.h"
#include "storage/storage_cfg.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	char* text = malloc(size + 1);
	static storage_cfg c;
	char err[1024];

	if (text == NULL) {
		return 0;
	}

	memcpy(text, data, size);
	text[size] = '\0';

	if (storage_cfg_load_text(&c, text, 8, err, sizeof(err)) == 0) {
		strbuf sb;

		sb_init_grow(&sb);
		storage_cfg_echo(&c, &sb);
		sb_free(&sb);
	}

	free(text);

	return 0;
}
