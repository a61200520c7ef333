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
STAMP := build/.deps-ok

# The build a release record freezes (baseline record): the commit, "-dirty" with local
# changes. build/build-id changes only when it does, so only cli.o is rebuilt then.
BUILD_ID := $(shell git describe --always --dirty 2>/dev/null || echo unknown)

.PHONY: all run test check bench asan lint install clean deps unit cli example FORCE

all: roofcost

build:
	@mkdir -p build

# Installs the Debian packages that are missing (needs root or sudo, and apt).
deps: $(STAMP)
$(STAMP): | build
	@missing=""; for p in $(DEB_PACKAGES); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq $$missing >/dev/null || exit 1; \
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

install: roofcost
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/roofcost
	install -m 755 roofcost $(DESTDIR)$(PREFIX)/bin/roofcost
	cp -r models workloads catalogs $(DESTDIR)$(PREFIX)/share/roofcost/

clean:
	rm -rf build/*.o build/*.d $(TESTBIN) roofcost

-include $(OBJ:.o=.d)
