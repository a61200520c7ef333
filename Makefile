# roofcost: one plain Makefile. `make run` and `make test` install what is missing first.
PREFIX ?= /usr/local
CC ?= gcc
PKGS := inih libcjson sqlite3
CPPFLAGS += -D_POSIX_C_SOURCE=200809L -MMD -MP -Isrc
CFLAGS ?= -O2 -g
CFLAGS += -std=c11 -Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-format-truncation
ifeq ($(CI),true)
CFLAGS += -Werror
endif
WERROR ?= 1
ifeq ($(WERROR),1)
CFLAGS += -Werror
endif
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
LDLIBS += $(PKG_LIBS) -lcsv -lnettle -lm -lpthread

SRC := $(wildcard src/*/*.c)
OBJ := $(SRC:src/%.c=build/%.o)
LIBOBJ := $(filter-out build/cli/%,$(OBJ))
CLIOBJ := $(filter build/cli/%,$(OBJ))
# The library (src/roofcost.h): everything but the CLI, static and shared (position-independent
# objects apart in build/pic, only roofcost.h's functions exported).
LIBA := build/libroofcost.a
LIBSO := build/libroofcost.so
PICOBJ := $(LIBOBJ:build/%.o=build/pic/%.o)
# The Python binding (src/python/roofcost), installed where Debian's python3 looks under PREFIX.
PYVER := $(shell python3 -c 'import sys; print("python%d.%d" % sys.version_info[:2])' 2>/dev/null || echo python3)
PYTHON_SITE ?= $(PREFIX)/lib/$(PYVER)/dist-packages
TESTSRC := $(wildcard tests/unit/test_*.c)
TESTBIN := build/unit_tests

# Debian packages the build, the tests and the plots need.
DEB_PACKAGES := gcc make pkg-config libsqlite3-dev libcsv-dev libcriterion-dev libinih-dev \
	libcjson-dev nettle-dev gnuplot-nox sqlite3 libxml2-utils clang libclang-rt-dev python3 parallel
STAMP ?= build/.deps-ok
APT_GET ?= apt-get
# Seconds make waits while another apt or dpkg holds the package lock (an unattended upgrade on
# a fresh machine), before it gives up with a message.
APT_LOCK_WAIT ?= 300
SUDO ?= $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DOCS := build/roofcost.1 build/roofcost.bash

# The build a release record freezes (baseline record): the commit, "-dirty" with local
# changes. build/build-id changes only when it does, so only cli.o and lib/roofcost.o are
# rebuilt then.
BUILD_ID := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

.PHONY: all run test check bench asan lint install clean deps unit props cli hostile fuzz readme example FORCE

all: roofcost $(LIBA) $(LIBSO) $(DOCS)

build:
	@mkdir -p build

# Installs the Debian packages that are missing (needs root or sudo, and apt). apt_get runs
# one apt-get command and, while another process holds apt's lock, tries again every second
# for up to APT_LOCK_WAIT seconds.
deps: $(STAMP)
$(STAMP): | build
	@apt_get() { \
		waited=0; \
		while :; do \
			out=$$($(SUDO) env DEBIAN_FRONTEND=noninteractive $(APT_GET) "$$@" 2>&1) && return 0; \
			case "$$out" in \
			*"Could not get lock"*|*"Unable to acquire the dpkg frontend lock"*|*"Unable to lock"*) ;; \
			*) printf '%s\n' "$$out" >&2; return 1 ;; \
			esac; \
			if [ "$$waited" -ge "$(APT_LOCK_WAIT)" ]; then \
				echo "make: apt is still locked by another process after $(APT_LOCK_WAIT) s:" >&2; \
				printf '%s\n' "$$out" | grep -i lock | head -2 >&2; \
				echo "make: run make again when it has finished (or wait longer: make APT_LOCK_WAIT=900 ...)" >&2; \
				return 1; \
			fi; \
			[ "$$waited" -eq 0 ] && echo "make: another process holds the apt lock; waiting up to $(APT_LOCK_WAIT) s" >&2; \
			sleep 1; waited=$$((waited + 1)); \
		done; \
	}; \
	missing=""; for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		apt_get update -qq && apt_get install -y -qq $$missing || exit 1; \
	fi; touch $@

build/%.o: src/%.c | build
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -c $< -o $@

# The tool and the library's face name the commit they were built from (a release record keeps it).
build/cli/cli.o build/lib/roofcost.o build/pic/lib/roofcost.o: CPPFLAGS += -DROOFCOST_BUILD='"$(BUILD_ID)"'
build/cli/cli.o build/lib/roofcost.o build/pic/lib/roofcost.o: build/build-id
build/build-id: FORCE | build
	@echo '$(BUILD_ID)' | cmp -s - $@ || echo '$(BUILD_ID)' > $@
FORCE:

# The tool is the CLI's objects over the static library.
roofcost: $(CLIOBJ) $(LIBA)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(CLIOBJ) $(LIBA) $(LDLIBS)

$(LIBA): $(LIBOBJ)
	rm -f $@
	$(AR) rcs $@ $(LIBOBJ)

build/pic/%.o: src/%.c | build
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(LIBSO): $(PICOBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -shared -Wl,-soname,libroofcost.so -o $@ $(PICOBJ) $(LDLIBS)

run: deps
	@$(MAKE) --no-print-directory roofcost
	./roofcost compare -w llama3-70b-serve -s trn2.48xlarge,p5.48xlarge,p5en.48xlarge,tpu-v6e

$(TESTBIN): $(LIBOBJ) $(TESTSRC) | build
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -Wno-missing-prototypes -o $@ $(TESTSRC) $(LIBOBJ) \
		$(LDLIBS) -lcriterion

unit: $(TESTBIN)
	./$(TESTBIN) --jobs 2

# The property suite (issue 23): bounds every answer must keep, over every shipped system and
# workload, every compare row and a seeded sample of --set variations (tests/props/props.c).
PROPS := build/props
$(PROPS): tests/props/props.c $(LIBOBJ) | build
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ tests/props/props.c $(LIBOBJ) $(LDLIBS)

props: $(PROPS)
	./$(PROPS)

cli: roofcost
	sh tests/cli/run.sh

# The hostile corpus (tests/hostile/cases.txt): exit code, message, time and clean output.
hostile: roofcost
	sh tests/hostile/run.sh

test: deps
	@$(MAKE) --no-print-directory roofcost $(TESTBIN) $(PROPS) $(LIBSO) build/face_test
	sh tests/layers.sh
	./$(TESTBIN) --jobs 2
	./$(PROPS)
	sh tests/cli/run.sh
	sh tests/hostile/run.sh
	sh tests/library.sh
	@$(MAKE) --no-print-directory fuzz FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS) FUZZ_OPTIONAL=1

check: test

# The library's face from C, linked against the shared library as a user would.
build/face_test: tests/face/face_test.c src/roofcost.h $(LIBSO) | build
	$(CC) -D_POSIX_C_SOURCE=200809L $(CFLAGS) -Isrc -o $@ tests/face/face_test.c -Lbuild -lroofcost -Wl,-rpath,'$$ORIGIN'

build/bench: tests/bench/bench.c $(LIBOBJ) | build
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ tests/bench/bench.c $(LIBOBJ) $(LDLIBS)

bench: deps
	@$(MAKE) --no-print-directory roofcost build/bench
	sh tests/bench.sh

# Sanitizers: ASan and UBSan, every report fatal (no recovery, halt_on_error) with exit code
# SAN_EXIT, which no roofcost exit (0-3) or signal (128+) shares, over the unit tests, the CLI
# cases and the hostile corpus. Built apart in build/asan/, so the normal build is untouched.
SAN_EXIT := 86
SAN_FLAGS := -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
SAN_ENV := ASAN_OPTIONS=halt_on_error=1:exitcode=$(SAN_EXIT):detect_leaks=1 \
	UBSAN_OPTIONS=halt_on_error=1:exitcode=$(SAN_EXIT):print_stacktrace=1
SAN_OBJ := $(SRC:src/%.c=build/asan/%.o)
SAN_LIBOBJ := $(filter-out build/asan/cli/%,$(SAN_OBJ))

# -Wno-error: instrumented code at -O1 draws false warnings (-Wrestrict); the normal build is
# where warnings are errors.
build/asan/%.o: src/%.c
	@mkdir -p $(@D)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) $(SAN_FLAGS) -Wno-error -c $< -o $@

build/asan/cli/cli.o: CPPFLAGS += -DROOFCOST_BUILD='"$(BUILD_ID)"'
build/asan/cli/cli.o: build/build-id

build/asan/roofcost: $(SAN_OBJ)
	$(CC) $(SAN_FLAGS) -o $@ $(SAN_OBJ) $(LDLIBS)

build/asan/unit_tests: $(SAN_LIBOBJ) $(TESTSRC)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) $(SAN_FLAGS) -Wno-error -Wno-missing-prototypes -o $@ $(TESTSRC) \
		$(SAN_LIBOBJ) $(LDLIBS) -lcriterion

build/asan/props: tests/props/props.c $(SAN_LIBOBJ)
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) $(SAN_FLAGS) -Wno-error -o $@ tests/props/props.c $(SAN_LIBOBJ) $(LDLIBS)

asan: deps
	@$(MAKE) --no-print-directory build/asan/roofcost build/asan/unit_tests build/asan/props
	$(SAN_ENV) ./build/asan/unit_tests --jobs 2
	$(SAN_ENV) ./build/asan/props --quiet
	$(SAN_ENV) ROOFCOST=build/asan/roofcost sh tests/cli/run.sh
	$(SAN_ENV) ROOFCOST=build/asan/roofcost HOSTILE_SECONDS=20 sh tests/hostile/run.sh

# libFuzzer (Debian's clang) on the INI loaders, the CSV readers and the option parsers, seeded
# from the shipped files: `make fuzz` runs each FUZZ_SECONDS (60), `make test` FUZZ_SMOKE_SECONDS
# (3) and skips with a note where clang has no libFuzzer. Findings: build/fuzz/crash-*.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 3
FUZZERS := ini csv opt
FUZZ_FLAGS := -std=c11 -O1 -g -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
FUZZ_LIBOBJ := $(LIBOBJ:build/%.o=build/fuzz/%.o)

build/fuzz/%.o: src/%.c
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CPPFLAGS) $(PKG_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -c $< -o $@

build/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(FUZZ_LIBOBJ)
	$(FUZZ_CC) $(CPPFLAGS) $(PKG_CFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -o $@ $< $(FUZZ_LIBOBJ) $(LDLIBS)

.SECONDARY: $(SAN_OBJ) $(FUZZ_LIBOBJ)

fuzz: deps
	@mkdir -p build/fuzz
	@if ! printf 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }\n' | \
		$(FUZZ_CC) -fsanitize=fuzzer -x c - -o build/fuzz/probe >/dev/null 2>&1; then \
		echo "fuzz: skipped: $(FUZZ_CC) with libFuzzer is not installed (apt-get install clang)"; \
		[ "$(FUZZ_OPTIONAL)" = 1 ]; exit; \
	fi; \
	$(MAKE) --no-print-directory $(FUZZERS:%=build/fuzz/fuzz_%) && \
	$(SAN_ENV) sh tests/fuzz/run.sh $(FUZZ_SECONDS) $(FUZZERS)

# The committed example report (README): regenerate it when the engine's numbers change.
example: roofcost
	rm -rf reports/example
	ROOFCOST_DB=build/example.db ./roofcost report -w llama3-70b-serve -s trn2.48xlarge,p5en.48xlarge \
		-o reports/example
	rm -f build/example.db build/example.db-wal build/example.db-shm

# rank_cost takes exactly one of a training or a serving result and branches on which;
# cppcheck reads each NULL argument as reaching the other branch, so those two checks are off
# for that one file.
lint:
	cppcheck --quiet --enable=warning,performance,portability --error-exitcode=1 \
		--suppress=missingIncludeSystem --suppress=nullPointer:src/engine/rank.c \
		--suppress=ctunullpointer:src/engine/rank.c --inline-suppr -Isrc src

# The man page and the bash completion, from the same usage texts as --help.
build/roofcost.1: roofcost | build
	./roofcost help --man > $@
build/roofcost.bash: roofcost | build
	./roofcost help --bash-completion > $@

# Rewrites the README's "$ ./roofcost ..." examples from the real output (tests/readme.sh).
readme: roofcost
	sh tests/readme.sh --rewrite

install: roofcost $(LIBA) $(LIBSO) $(DOCS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/roofcost $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include \
		$(DESTDIR)$(PYTHON_SITE)/roofcost
	install -m 755 roofcost $(DESTDIR)$(PREFIX)/bin/roofcost
	install -m 644 build/roofcost.1 $(DESTDIR)$(PREFIX)/share/man/man1/roofcost.1
	install -m 644 build/roofcost.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/roofcost
	cp -r models workloads catalogs $(DESTDIR)$(PREFIX)/share/roofcost/
	install -m 644 $(LIBA) $(DESTDIR)$(PREFIX)/lib/libroofcost.a
	install -m 755 $(LIBSO) $(DESTDIR)$(PREFIX)/lib/libroofcost.so
	install -m 644 src/roofcost.h $(DESTDIR)$(PREFIX)/include/roofcost.h
	install -m 644 src/python/roofcost/*.py $(DESTDIR)$(PYTHON_SITE)/roofcost/
	install -m 755 $(LIBSO) $(DESTDIR)$(PYTHON_SITE)/roofcost/libroofcost.so
	printf '# Written by make install: where this copy of roofcost keeps its data.\nHOME = %s\n' \
		"'$(PREFIX)/share/roofcost'" > $(DESTDIR)$(PYTHON_SITE)/roofcost/_install.py

clean:
	rm -rf $(OBJ) $(OBJ:.o=.d) build/asan build/fuzz build/pic $(LIBA) $(LIBSO) build/face_test $(TESTBIN) $(PROPS) \
		$(DOCS) roofcost

-include $(OBJ:.o=.d) $(wildcard build/asan/*/*.d build/fuzz/*/*.d build/pic/*/*.d)
