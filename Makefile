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

SRC := $(wildcard src/*.c)
OBJ := $(SRC:src/%.c=build/%.o)
LIBOBJ := $(filter-out build/cli.o build/cmd_%.o,$(OBJ))
TESTSRC := $(wildcard tests/unit/test_*.c)
TESTBIN := build/unit_tests

# Debian packages the build, the tests and the plots need.
DEB_PACKAGES := gcc make pkg-config libsqlite3-dev libcsv-dev libcriterion-dev libinih-dev \
	libcjson-dev nettle-dev gnuplot-nox sqlite3 libxml2-utils
STAMP ?= build/.deps-ok
APT_GET ?= apt-get
# Seconds make waits while another apt or dpkg holds the package lock (an unattended upgrade on
# a fresh machine), before it gives up with a message.
APT_LOCK_WAIT ?= 300
SUDO ?= $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DOCS := build/roofcost.1 build/roofcost.bash

# The build a release record freezes (baseline record): the commit, "-dirty" with local
# changes. build/build-id changes only when it does, so only cli.o is rebuilt then.
BUILD_ID := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

.PHONY: all run test check bench asan lint install clean deps unit cli readme example FORCE

all: roofcost $(DOCS)

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
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -c $< -o $@

build/cli.o: CPPFLAGS += -DROOFCOST_BUILD='"$(BUILD_ID)"'
build/cli.o: build/build-id
build/build-id: FORCE | build
	@echo '$(BUILD_ID)' | cmp -s - $@ || echo '$(BUILD_ID)' > $@
FORCE:

roofcost: $(OBJ)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJ) $(LDLIBS)

run: deps
	@$(MAKE) --no-print-directory roofcost
	./roofcost compare -w llama3-70b-serve -s trn2.48xlarge,p5.48xlarge,p5en.48xlarge,tpu-v6e

$(TESTBIN): $(LIBOBJ) $(TESTSRC) | build
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -Wno-missing-prototypes -o $@ $(TESTSRC) $(LIBOBJ) \
		$(LDLIBS) -lcriterion

unit: $(TESTBIN)
	./$(TESTBIN) --jobs 2

cli: roofcost
	sh tests/cli/run.sh

test: deps
	@$(MAKE) --no-print-directory roofcost $(TESTBIN)
	./$(TESTBIN) --jobs 2
	sh tests/cli/run.sh

check: test

build/bench: tests/bench/bench.c $(LIBOBJ) | build
	$(CC) $(CPPFLAGS) $(PKG_CFLAGS) $(CFLAGS) -o $@ tests/bench/bench.c $(LIBOBJ) $(LDLIBS)

bench: deps
	@$(MAKE) --no-print-directory roofcost build/bench
	sh tests/bench.sh

asan: deps
	$(MAKE) --no-print-directory clean
	$(MAKE) --no-print-directory roofcost $(TESTBIN) CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer" \
		LDFLAGS="-fsanitize=address,undefined"
	ASAN_OPTIONS=detect_leaks=1 ./$(TESTBIN) --jobs 1
	sh tests/cli/run.sh
	$(MAKE) --no-print-directory clean

# The committed example report (README): regenerate it when the engine's numbers change.
example: roofcost
	rm -rf reports/example
	ROOFCOST_DB=build/example.db ./roofcost report -w llama3-70b-serve -s trn2.48xlarge,p5en.48xlarge \
		-o reports/example
	rm -f build/example.db build/example.db-wal build/example.db-shm

lint:
	cppcheck --quiet --enable=warning,performance,portability --error-exitcode=1 \
		--suppress=missingIncludeSystem --inline-suppr -Isrc src

# The man page and the bash completion, from the same usage texts as --help.
build/roofcost.1: roofcost | build
	./roofcost help --man > $@
build/roofcost.bash: roofcost | build
	./roofcost help --bash-completion > $@

# Rewrites the README's "$ ./roofcost ..." examples from the real output (tests/readme.sh).
readme: roofcost
	sh tests/readme.sh --rewrite

install: roofcost $(DOCS)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/roofcost $(DESTDIR)$(PREFIX)/share/man/man1 \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions
	install -m 755 roofcost $(DESTDIR)$(PREFIX)/bin/roofcost
	install -m 644 build/roofcost.1 $(DESTDIR)$(PREFIX)/share/man/man1/roofcost.1
	install -m 644 build/roofcost.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/roofcost
	cp -r models workloads catalogs $(DESTDIR)$(PREFIX)/share/roofcost/

clean:
	rm -rf build/*.o build/*.d $(TESTBIN) $(DOCS) roofcost

-include $(OBJ:.o=.d)
