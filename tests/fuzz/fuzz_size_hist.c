/*
 * Description: fuzz target - the size-histogram parser
 * (storage-read-histogram / storage-write-histogram values), then the
 * size distribution built from it and a few draws from it. Built with
 * libFuzzer by `make fuzz`; replayed by `make test`.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/cfg.h"
#include "storage/storage_cfg.h"

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
	char* text = malloc(size + 1);
	char err[512];
	cfg_size_hist h;

	if (text == NULL) {
		return 0;
	}

	memcpy(text, data, size);
	text[size] = '\0';

	if (cfg_parse_size_hist("storage-read-histogram", text, &h, err,
			sizeof(err)) == 0) {
		static const uint32_t OFFSETS[] = { 1, 100, 1000 };
		static const double DRAWS[] = { 0.0, 0.25, 0.5, 0.999999, 1.0 };

		for (size_t i = 0; i < 3; i++) {
			storage_sizes s;

			storage_sizes_build(&s, &h, OFFSETS[i]);

			for (size_t k = 0; k < 5; k++) {
				uint32_t ix = storage_sizes_pick(&s, DRAWS[k]);

				if (ix >= s.n || s.size[ix] > STORAGE_MAX_RECORD_BYTES) {
					abort();
				}
			}
		}
	}

	free(text);

	return 0;
}
