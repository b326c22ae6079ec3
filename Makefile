# act - build, test, install.
#
#   make                      build target/bin/act_{storage,index,prep}
#   make test                 build and run every test (tests/run.sh)
#   make test SANITIZE=1      the same under AddressSanitizer + UBSan
#   make demo                 a 20-second act_storage run on a temporary file
#   make install PREFIX=/usr/local DESTDIR=
#   make clean
#
# The user's CFLAGS / CPPFLAGS / LDFLAGS are kept; our warning flags and the
# language standard are added to them.

CC ?= cc
CFLAGS ?= -O2 -g
PREFIX ?= /usr/local
DESTDIR ?=

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wpointer-arith -Wformat=2
ACT_CFLAGS := -std=gnu11 -pthread -D_GNU_SOURCE $(WARN) -Isrc/common \
	-Isrc/storage -Isrc/index
ACT_LDFLAGS := -pthread -lm

ifeq ($(SANITIZE),1)
ACT_CFLAGS += -fsanitize=address,undefined -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
ACT_LDFLAGS += -fsanitize=address,undefined
endif

ALL_CFLAGS = $(ACT_CFLAGS) $(CPPFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(ACT_LDFLAGS) $(LDFLAGS)

TARGET := target
OBJ := $(TARGET)/obj
BIN := $(TARGET)/bin
TBIN := $(TARGET)/tests

COMMON_SRC := $(wildcard src/common/*.c)
COMMON_OBJ := $(COMMON_SRC:src/%.c=$(OBJ)/%.o)
LIB := $(TARGET)/lib/libact.a

STORAGE_LIB_SRC := src/storage/storage_cfg.c
STORAGE_LIB_OBJ := $(STORAGE_LIB_SRC:src/%.c=$(OBJ)/%.o)
STORAGE_OBJ := $(OBJ)/storage/act_storage.o $(STORAGE_LIB_OBJ)

INDEX_LIB_SRC := src/index/index_cfg.c
INDEX_LIB_OBJ := $(INDEX_LIB_SRC:src/%.c=$(OBJ)/%.o)

PROGRAMS := $(BIN)/act_storage $(BIN)/act_index $(BIN)/act_prep

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(TBIN)/%)

# Rebuild everything when the flags change (e.g. SANITIZE=1 and back).
FLAGS_STAMP := $(TARGET)/.flags
FLAGS_NOW := $(CC) $(ALL_CFLAGS) $(ALL_LDFLAGS)

.PHONY: all test unit demo install uninstall clean force

all: $(PROGRAMS)

$(FLAGS_STAMP): force
	@mkdir -p $(TARGET)
	@if [ "$$(cat $@ 2>/dev/null)" != "$(FLAGS_NOW)" ]; then \
		echo "$(FLAGS_NOW)" > $@; fi

$(OBJ)/%.o: src/%.c $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

$(LIB): $(COMMON_OBJ)
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

# Each program's config table refers to the other's (items of the other
# program are reported as such), so both link both config objects.
$(BIN)/act_storage: $(STORAGE_OBJ) $(INDEX_LIB_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(ALL_LDFLAGS)

$(BIN)/act_index: $(OBJ)/index/act_index.o $(INDEX_LIB_OBJ) \
		$(STORAGE_LIB_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(ALL_LDFLAGS)

$(BIN)/act_prep: $(OBJ)/prep/act_prep.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(ALL_LDFLAGS)

$(TBIN)/%: tests/unit/%.c tests/unit/unit.h $(STORAGE_LIB_OBJ) \
		$(INDEX_LIB_OBJ) $(LIB) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -Itests/unit $< $(STORAGE_LIB_OBJ) $(INDEX_LIB_OBJ) \
		$(LIB) -o $@ $(ALL_LDFLAGS)

# The test shim (tests/shim): LD_PRELOADed by integration tests to trace,
# slow down, hang or fail the programs' I/O. Never sanitized: it is loaded
# into the programs before any sanitizer runtime.
SHIM := $(TBIN)/libact_shim.so

$(SHIM): tests/shim/act_shim.c
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -fPIC -shared $(WARN) $< -o $@ -ldl -pthread

unit: $(UNIT_BIN) $(SHIM)

test: all unit
	@tests/run.sh

demo: all
	@scripts/demo.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin \
		$(DESTDIR)$(PREFIX)/share/act/config/examples
	install -m 755 $(PROGRAMS) analysis/act_latency.py \
		config/act_config_helper.py $(DESTDIR)$(PREFIX)/bin/
	install -m 644 config/*.conf $(DESTDIR)$(PREFIX)/share/act/config/
	install -m 644 config/examples/*.conf \
		$(DESTDIR)$(PREFIX)/share/act/config/examples/

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,act_storage act_index \
		act_prep act_latency.py act_config_helper.py)
	rm -rf $(DESTDIR)$(PREFIX)/share/act

clean:
	rm -rf $(TARGET)

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)
