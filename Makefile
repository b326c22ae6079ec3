# act - build, test, install.
#
#   make                      build target/bin/act_{storage,index,prep} and
#                             the zipapps target/bin/act_latency.py,
#                             act_certify.py, act_config_helper.py (python.mk)
#   make test                 build and run every test (tests/run.sh)
#   make test SANITIZE=1      the same under AddressSanitizer + UBSan
#                             (SANITIZE=address,undefined | address |
#                             undefined | thread), built in target/san-*
#   make check                what CI runs: make test, then the unit and
#                             integration tests under ASan + UBSan
#   make check-thread         the multi-threaded scenarios under TSan
#   make fuzz                 libFuzzer targets (needs clang), FUZZ_SECONDS
#                             each (default 60), then the act_latency.py
#                             mutation fuzzer
#   make man                  regenerate man/*.1 (man/mkman.py: --help,
#                             man/*.sections, docs/README.md's exit statuses)
#   make dist                 target/act-VERSION.tar.gz of what git tracks
#   make demo                 a 20-second act_storage run on a temporary file
#   make certify-demo         an act_certify campaign of seconds-long steps
#   make install PREFIX=/usr/local DESTDIR=
#   make clean
#   make help                 every target, one line each
#
# The user's CFLAGS / CPPFLAGS / LDFLAGS are kept; our warning flags and the
# language standard are added to them.

CC ?= cc
CFLAGS ?= -O2 -g
PREFIX ?= /usr/local
DESTDIR ?=

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wpointer-arith -Wformat=2
# One include root: files name what they use by its folder ("common/x.h",
# "storage/storage_cfg.h"), so the layering shows in every #include.
ACT_CFLAGS := -std=gnu11 -pthread -D_GNU_SOURCE $(WARN) -Isrc
ACT_LDFLAGS := -pthread -lm

# SANITIZE: which sanitizers; each build has its own directory, so a
# sanitized build never replaces the normal one.
SANITIZE ?=
SAN := $(SANITIZE)
ifeq ($(SAN),1)
SAN := address,undefined
endif
ifneq ($(SAN),)
ifeq ($(filter $(SAN),address undefined address,undefined undefined,address thread),)
$(error SANITIZE=$(SANITIZE) is not one of 1, address,undefined, address, undefined, thread)
endif
ACT_CFLAGS += -fsanitize=$(SAN) -fno-omit-frame-pointer \
	-fno-sanitize-recover=undefined
ACT_LDFLAGS += -fsanitize=$(SAN)
TARGET ?= target/san-$(subst $(comma),-,$(SAN))
endif
comma := ,

ALL_CFLAGS = $(ACT_CFLAGS) $(CPPFLAGS) $(CFLAGS)
ALL_LDFLAGS = $(ACT_LDFLAGS) $(LDFLAGS)

TARGET ?= target
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

.PHONY: all test check check-thread unit fuzz man dist demo certify-demo install uninstall clean force help

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

# Each program links only its own config code (the other program's item
# names are a checked list in its table, see test_cfg_tables).
$(BIN)/act_storage: $(STORAGE_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(ALL_LDFLAGS)

$(BIN)/act_index: $(OBJ)/index/act_index.o $(INDEX_LIB_OBJ) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(ALL_LDFLAGS)

$(BIN)/act_prep: $(OBJ)/prep/act_prep.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $^ -o $@ $(ALL_LDFLAGS)

$(TBIN)/%: tests/unit/%.c tests/unit/unit.h $(STORAGE_LIB_OBJ) \
		$(INDEX_LIB_OBJ) $(LIB) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) -MMD -MP -MF $@.d -Itests/unit $< \
		$(STORAGE_LIB_OBJ) $(INDEX_LIB_OBJ) $(LIB) -o $@ $(ALL_LDFLAGS)

# The test shim (tests/shim): LD_PRELOADed by integration tests to trace,
# slow down, hang or fail the programs' I/O. Never sanitized: it is loaded
# into the programs before any sanitizer runtime.
SHIM := $(TBIN)/libact_shim.so

$(SHIM): tests/shim/act_shim.c tests/shim/shim_nvme.c tests/shim/shim.h
	@mkdir -p $(dir $@)
	$(CC) -std=gnu11 -O2 -g -fPIC -shared $(WARN) $(filter %.c,$^) -o $@ \
		-ldl -pthread -lm

# Fuzz targets (tests/fuzz): replayed over their corpus and past crashes
# by make test (built with the normal compiler and flags), fuzzed by
# make fuzz (clang's libFuzzer).
FUZZ_TARGETS := storage_cfg index_cfg size_hist
FUZZ_REPLAY := $(FUZZ_TARGETS:%=$(TBIN)/replay_%)
FUZZ_SECONDS ?= 60
FUZZ_SRC := $(COMMON_SRC) $(STORAGE_LIB_SRC) $(INDEX_LIB_SRC)

$(TBIN)/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c \
		$(STORAGE_LIB_OBJ) $(INDEX_LIB_OBJ) $(LIB) $(FLAGS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(ALL_CFLAGS) $< tests/fuzz/replay.c $(STORAGE_LIB_OBJ) \
		$(INDEX_LIB_OBJ) $(LIB) -o $@ $(ALL_LDFLAGS)

unit: $(UNIT_BIN) $(SHIM) $(FUZZ_REPLAY)

test: all unit
	@ACT_TARGET=$(TARGET) tests/run.sh

# CI: every test, then the unit and integration tests again under ASan and
# UBSan (their own build in target/san-address-undefined).
check: test
	@$(MAKE) --no-print-directory SANITIZE=1 all unit
	@ACT_TARGET=target/san-address-undefined tests/run.sh unit/ integration/

# The multi-threaded scenarios under ThreadSanitizer (target/san-thread).
check-thread:
	@$(MAKE) --no-print-directory SANITIZE=thread all unit
	@ACT_TARGET=target/san-thread tests/run.sh test_sanitizer_runs

# The man pages (man/mkman.py): SYNOPSIS and OPTIONS from the programs'
# --help, the other sections from man/*.sections, EXIT STATUS from
# docs/README.md's table. Installed under the names users type: `man
# act_latency.py` finds act_latency.py.1; act_certify.py.1 is a .so link
# to act_certify.1 (the program is installed under both names).
MAN_PAGES := man/act_storage.1 man/act_index.1 man/act_prep.1 \
	man/act_latency.py.1 man/act_certify.1 man/act_certify.py.1 \
	man/act_config_helper.py.1

man: all
	@python3 man/mkman.py --bin $(BIN)

# A versioned source tarball of what git tracks: target/act-VERSION.tar.gz.
VERSION = $(shell sed -n 's/^\#define ACT_VERSION "\(.*\)"/\1/p' \
	src/common/version.h)

dist:
	@mkdir -p $(TARGET)
	@git rev-parse --git-dir >/dev/null 2>&1 || { echo "make dist needs" \
		"a git checkout"; exit 2; }
	git archive --format=tar.gz --prefix=act-$(VERSION)/ \
		-o $(TARGET)/act-$(VERSION).tar.gz HEAD
	@echo "$(TARGET)/act-$(VERSION).tar.gz"

fuzz:
	@command -v clang >/dev/null || { echo "make fuzz needs clang" \
		"(Debian/Ubuntu: sudo apt-get install clang)"; exit 2; }
	@mkdir -p $(TARGET)/fuzz
	@set -e; for t in $(FUZZ_TARGETS); do \
		echo "== fuzz_$$t: building with clang -fsanitize=fuzzer"; \
		clang -std=gnu11 -D_GNU_SOURCE -O1 -g -Isrc \
			-fsanitize=fuzzer,address,undefined \
			-fno-sanitize-recover=undefined tests/fuzz/fuzz_$$t.c \
			$(FUZZ_SRC) -o $(TARGET)/fuzz/fuzz_$$t -lm -pthread; \
		mkdir -p $(TARGET)/fuzz/corpus_$$t $(TARGET)/fuzz/crashes_$$t; \
		cp tests/fuzz/corpus/$$t/* $(TARGET)/fuzz/corpus_$$t/; \
		echo "== fuzz_$$t: $(FUZZ_SECONDS) s"; \
		rc=0; $(TARGET)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECONDS) \
			-print_final_stats=1 -artifact_prefix=$(TARGET)/fuzz/crashes_$$t/ \
			$(TARGET)/fuzz/corpus_$$t > $(TARGET)/fuzz/fuzz_$$t.log 2>&1 \
			|| rc=$$?; \
		grep -E "^(stat::|Done|==[0-9]+==ERROR|SUMMARY)" \
			$(TARGET)/fuzz/fuzz_$$t.log || true; \
		if [ $$rc -ne 0 ]; then echo "fuzz_$$t found a crash (see" \
			"$(TARGET)/fuzz/fuzz_$$t.log): copy the input from" \
			"$(TARGET)/fuzz/crashes_$$t/ to tests/fuzz/crashes/$$t/"; \
			exit 1; fi; \
	done
	@echo "== act_latency.py: $(FUZZ_SECONDS) s"
	@python3 tests/fuzz/fuzz_act_latency.py --seconds $(FUZZ_SECONDS)

demo: all
	@scripts/demo.sh

certify-demo: all
	@scripts/certify-demo.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin \
		$(DESTDIR)$(PREFIX)/share/act/config/examples \
		$(DESTDIR)$(PREFIX)/share/man/man1
	install -m 644 $(MAN_PAGES) $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 755 $(PROGRAMS) $(DESTDIR)$(PREFIX)/bin/
	install -m 644 config/*.conf $(DESTDIR)$(PREFIX)/share/act/config/
	install -m 644 config/examples/*.conf \
		$(DESTDIR)$(PREFIX)/share/act/config/examples/
	ln -sf act_certify.py $(DESTDIR)$(PREFIX)/bin/act_certify

uninstall:
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,act_storage act_index \
		act_prep act_latency.py act_certify.py act_certify \
		act_config_helper.py)
	rm -rf $(DESTDIR)$(PREFIX)/share/act
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/share/man/man1/,$(notdir \
		$(MAN_PAGES)) act_latency.1 act_config_helper.1)

clean:
	rm -rf $(TARGET)

# Every target (each .PHONY one, here and in python.mk), one line each:
# tests/integration/test_make_help.py fails when one is missing.
help:
	@printf '%s\n' \
	"act $(VERSION) - make targets:" \
	"  all                  (default) build act_storage, act_index, act_prep" \
	"                       and the Python zipapps in $(BIN)" \
	"  python-apps          only the zipapps act_latency.py, act_certify.py," \
	"                       act_config_helper.py (python.mk)" \
	"  unit                 build the unit tests, the test shim and the fuzz" \
	"                       replayers" \
	"  test                 build, then run every test (tests/run.sh)" \
	"  check                what CI runs: make test, then the unit and" \
	"                       integration tests under ASan + UBSan" \
	"  check-thread         the multi-threaded scenarios under TSan" \
	"  fuzz                 libFuzzer on the parsers (needs clang), then" \
	"                       act_latency.py's mutation fuzzer" \
	"  man                  regenerate man/*.1 (man/mkman.py)" \
	"  dist                 $(TARGET)/act-$(VERSION).tar.gz of what git tracks" \
	"  demo                 a 20-second act_storage run on a temporary file" \
	"  certify-demo         an act_certify campaign of seconds-long steps" \
	"  install              install programs, man pages and example configs" \
	"                       under DESTDIR+PREFIX ($(DESTDIR)$(PREFIX))" \
	"  install-python-apps  install only the zipapps (python.mk)" \
	"  uninstall            remove what install installed" \
	"  clean                remove $(TARGET)" \
	"  force                (internal) makes the build flags checked each run" \
	"  help                 this list" \
	"" \
	"Variables: SANITIZE=1|address|undefined|thread (test, all, unit)," \
	"FUZZ_SECONDS=60, PREFIX=/usr/local, DESTDIR=, CC, CFLAGS, LDFLAGS."

# Header dependencies (-MMD) of the objects and unit tests.
-include $(shell find $(OBJ) $(TBIN) -name '*.d' 2>/dev/null)

# The Python tools as zipapps (make, make install).
include python.mk
