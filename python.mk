# python.mk - act's Python tools as single-file zipapps (included by the
# Makefile's last line; needs its BIN, PREFIX and DESTDIR).
#
#   make                  also builds target/bin/<tool>.py for each tool in
#                         PY_APPS: a zip archive of the act package
#                         (analysis/act) with a __main__ that exits with
#                         the tool's entry's status, and the shebang
#                         /usr/bin/env python3 - one file to copy to a
#                         server, stdlib only (python3 runs a zip archive
#                         whatever its name)
#   make install          installs them in $(PREFIX)/bin under the same
#                         names
#
# A tool is added by naming it in PY_APPS and its entry in
# PY_ENTRY_<tool> (module:function).

PY_DIR := analysis
PY_APPS := act_latency act_certify act_config_helper
PY_ENTRY_act_latency := act.latency.main:main
PY_ENTRY_act_certify := act.certify.main:main
PY_ENTRY_act_config_helper := act.sizing.main:main

PY_BIN ?= $(BIN)
PY_APP_FILES := $(PY_APPS:%=$(PY_BIN)/%.py)
PY_SOURCES := $(shell find $(PY_DIR)/act -name '*.py' 2>/dev/null)

.PHONY: python-apps install-python-apps

all: python-apps
python-apps: $(PY_APP_FILES)

# The archive holds act/**/*.py and a __main__ that exits with the entry's
# return value (scripts/mkzipapp.py).
$(PY_BIN)/%.py: $(PY_SOURCES) scripts/mkzipapp.py python.mk
	@mkdir -p $(dir $@)
	@test -n "$(PY_ENTRY_$*)" || { echo "python.mk: no PY_ENTRY_$*" >&2; \
		exit 1; }
	python3 scripts/mkzipapp.py $@ $(PY_ENTRY_$*) $(PY_DIR)

install: install-python-apps
install-python-apps: $(PY_APP_FILES)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(PY_APP_FILES) $(DESTDIR)$(PREFIX)/bin/
