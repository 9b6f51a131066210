# containment-lab — plain Makefile. `make` builds ./containment-lab,
# `make test` runs the whole suite, `make bench` the benchmark.
PREFIX ?= /usr/local
DESTDIR ?=
BINDIR = $(PREFIX)/bin
SHAREDIR = $(PREFIX)/share/containment-lab
MANDIR = $(PREFIX)/share/man/man1
# Completion: bash-completion's folder; zsh's vendor folder under /usr (as
# Debian's zsh reads it), its site-functions elsewhere.
BASHCOMPDIR = $(PREFIX)/share/bash-completion/completions
ZSHCOMPDIR = $(if $(filter /usr,$(PREFIX)),$(PREFIX)/share/zsh/vendor-completions,$(PREFIX)/share/zsh/site-functions)

CC ?= cc
PKGS = ncursesw libseccomp libcap-ng inih
DEB_PKGS = libncurses-dev libseccomp-dev libcap-ng-dev libinih-dev pkg-config python3

WARN = -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wformat=2
CFLAGS ?= -O2 -g
LAB_CFLAGS = -std=gnu11 $(WARN) -DLAB_SHAREDIR='"$(SHAREDIR)"' $(INCLUDES)

# The folders, lowest first: a file uses only its own folder's and lower
# ones' (tests/layout_test.sh checks it); docs/layers.md says what each is.
SRC_DIRS = src/base src/inputs src/engine src/engine/layers src/engine/boxes src/engine/run src/judge src/matrix \
           src/report src/screen src/cli
SRCS = $(foreach d,$(SRC_DIRS),$(wildcard $(d)/*.c))
HDRS = $(foreach d,$(SRC_DIRS) src/vm,$(wildcard $(d)/*.h))
INCLUDES = -Isrc $(SRC_DIRS:%=-I%)
OBJS = $(SRCS:src/%.c=build/%.o)
SAN_OBJS = $(SRCS:src/%.c=build/san/%.o)
SAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -O1 -g

# The libraries' flags come from build/pkg.mk, which the `deps` step
# writes: it checks the libraries (and the snippets' /usr/bin/python3),
# installs the missing ones when root with apt-get, or says the exact
# command and stops. Nothing is checked or installed while this file is
# parsed, so `make clean` (and the other goals that build nothing) works
# for any user on any machine.
.DEFAULT_GOAL := all
NOBUILD_GOALS = clean uninstall test-deps lint-deps install-apparmor deb
DEPS_CMD = sudo apt-get install -y $(DEB_PKGS)
build/pkg.mk: | build
	@ok() { pkg-config --exists $(PKGS) 2>/dev/null && test -x /usr/bin/python3; }; \
	if ! ok; then \
		missing=""; for p in $(PKGS); do pkg-config --exists $$p 2>/dev/null || missing="$$missing $$p"; done; \
		test -x /usr/bin/python3 || missing="$$missing /usr/bin/python3"; \
		echo "containment-lab: missing:$$missing"; \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "containment-lab: installing them with apt-get ..."; \
			DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null 2>&1; \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEB_PKGS) >/dev/null 2>&1; \
		fi; \
		ok || { echo "containment-lab: missing libraries; run:  $(DEPS_CMD)"; exit 1; }; \
	fi; \
	libs=$$(pkg-config --libs $(PKGS)); \
	if [ "$(STATIC)" = 1 ]; then \
		names=$$(pkg-config --libs-only-l $(PKGS) | sed 's/-l//g'); all=1; \
		for l in $$names; do case "$$($(CC) -print-file-name=lib$$l.a)" in /*) ;; *) all=0;; esac; done; \
		[ $$all = 1 ] && libs="$$(pkg-config --libs-only-L $(PKGS)) -Wl,-Bstatic $$(for l in $$names; do printf -- '-l%s ' $$l; done)-Wl,-Bdynamic"; \
	fi; \
	{ echo "PKG_CFLAGS := $$(pkg-config --cflags $(PKGS))"; echo "PKG_LIBS := $$libs"; } >$@.tmp && mv $@.tmp $@
ifneq ($(filter-out $(NOBUILD_GOALS),$(or $(MAKECMDGOALS),all)),)
-include build/pkg.mk
endif
# The libraries are linked statically when their archives are installed (the
# -dev packages ship them): five fewer shared objects to map and relocate
# cuts ~0.6 ms off every sandbox start (see `make bench`). STATIC=0 opts out
# (then `rm build/pkg.mk`).
STATIC ?= 1
# The trace makes the caller's connect() on a thread of the lab's (trace.c).
THREAD_FLAGS = -pthread

.PHONY: FORCE all check clean deb install install-apparmor uninstall test test-deps test-unit spec-update test-hosts test-load test-deb test-apparmor bench sanitize run lint lint-deps

# The microvm rung's guest init (src/vm/init.c) runs as PID 1 of a guest
# that has no libraries of its own: it is built static, and only where
# glibc's static archive is installed (libc6-dev); without it the microvm
# rung says so, as an ERROR.
VM_LIBC := $(filter /%,$(shell $(CC) -print-file-name=libc.a))
VM_INIT := $(if $(VM_LIBC),build/vm-init)
ifeq ($(VM_LIBC),)
$(info containment-lab: no static libc (libc6-dev): the microvm rung's guest init is not built)
endif

all: containment-lab $(VM_INIT)

containment-lab: $(OBJS)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJS) $(PKG_LIBS) $(THREAD_FLAGS)

# -MMD -MP: each object depends on the headers it includes (build/*.d)
DEPFLAGS = -MMD -MP
build/%.o: src/%.c build/pkg.mk | build
	@mkdir -p $(dir $@)
	$(CC) $(LAB_CFLAGS) $(DEPFLAGS) $(PKG_CFLAGS) $(THREAD_FLAGS) $(CFLAGS) -c -o $@ $<

# Every object is built with the install location (LAB_SHAREDIR: config.c
# finds layers.ini and the snippets there, box_microvm.c the guest init):
# all are rebuilt when PREFIX changes.
build/prefix.stamp: FORCE | build
	@echo '$(SHAREDIR)' | cmp -s - $@ || echo '$(SHAREDIR)' > $@
$(OBJS) $(SAN_OBJS): build/prefix.stamp
-include $(OBJS:.o=.d) $(SAN_OBJS:.o=.d)
# inprocess.c builds the app server's source in (.incbin)
build/engine/run/inprocess.o build/san/engine/run/inprocess.o build/lint/engine/run/inprocess.o: src/engine/run/app_server.py
# tools.c builds the sandbox's client in (.incbin)
build/engine/tools.o build/san/engine/tools.o build/lint/engine/tools.o: src/engine/labtools.py
FORCE:

build/san/%.o: src/%.c build/pkg.mk | build/san
	@mkdir -p $(dir $@)
	$(CC) $(LAB_CFLAGS) $(DEPFLAGS) $(PKG_CFLAGS) $(THREAD_FLAGS) $(SAN_FLAGS) -c -o $@ $<

build build/san:
	mkdir -p $@

# The same program built with ASan+UBSan; the tests run it where they can.
build/containment-lab-san: $(SAN_OBJS)
	$(CC) $(SAN_FLAGS) -o $@ $(SAN_OBJS) $(PKG_LIBS) $(THREAD_FLAGS)
sanitize: build/containment-lab-san

build/unit: tests/unit.c $(filter-out build/san/cli/main.o,$(SAN_OBJS)) build/pkg.mk
	$(CC) $(LAB_CFLAGS) $(PKG_CFLAGS) $(THREAD_FLAGS) $(SAN_FLAGS) -o $@ $(filter %.c %.o,$^) $(PKG_LIBS) $(THREAD_FLAGS)

# The syscall probe (tests/syscall_test.sh) runs inside the sandbox, where
# only the system's libraries are bound: static when glibc's archive is there.
PROBE_STATIC := $(if $(filter /%,$(shell $(CC) -print-file-name=libc.a)),-static)
build/syscall_probe: tests/syscall_probe.c | build
	$(CC) -std=gnu11 $(WARN) -O1 -g $(PROBE_STATIC) -o $@ $<

build/vm-init: src/vm/init.c src/vm/guest.h | build
	$(CC) -std=gnu11 $(WARN) -Os -static -o $@ $<

test-unit: build/unit
	./build/unit

# `make spec-update`: the unit suite's renderings of the run spec
# (build/spec/, written by build/unit) become the reviewed snapshots in
# tests/spec/; read `git diff tests/spec` before committing them.
spec-update: build/unit
	-./build/unit >/dev/null
	mkdir -p tests/spec
	cp build/spec/*.txt tests/spec/

# The suite drives the TUI through tmux, drops to uid 65534 with setpriv and
# runs the snippets with Debian's python3.
# The CI reports are checked with xmllint (JUnit against tests/junit.xsd)
# and prove (TAP).
TEST_TOOLS = tmux:tmux setpriv:util-linux /usr/bin/python3:python3 pgrep:procps xmllint:libxml2-utils prove:perl
# What the CI-report tests use when they can have it (they skip, saying
# why, without): the JSON schema's validator (python3-jsonschema, checked
# apart), zsh for completion, chromium for the HTML report's screenshot;
# firejail for audit's preset of it.
# lintian, mmdebstrap and dpkg-shlibdeps for the .deb's test (tests/deb_test.sh).
# srt (sandbox-runtime) is an npm package (npm itself from Debian where
# there is none); it runs its sandbox with bubblewrap, ripgrep and socat
SRT_PKGS = bubblewrap ripgrep socat
TEST_EXTRA = firejail:firejail zsh:zsh chromium:chromium lintian:lintian mmdebstrap:mmdebstrap dpkg-shlibdeps:dpkg-dev
# The microvm rung's tests need QEMU and a guest kernel: installed when root
# (tests/microvm_test.sh skips, saying why, where they are missing).
MICROVM_PKGS = qemu-system-x86 linux-image-amd64
test-deps:
	@missing=""; for t in $(TEST_TOOLS); do command -v $${t%%:*} >/dev/null || missing="$$missing $${t##*:}"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "containment-lab: installing$$missing for the tests"; \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || \
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; }; \
		else \
			echo "containment-lab: the tests need:$$missing; run:  sudo apt-get install -y$$missing"; exit 1; \
		fi; \
	fi; \
	if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		missing=""; /usr/bin/python3 -c 'import jsonschema' 2>/dev/null || missing="$$missing python3-jsonschema"; \
		for t in $(TEST_EXTRA); do command -v $${t%%:*} >/dev/null || missing="$$missing $${t##*:}"; done; \
		if [ -n "$$missing" ]; then \
			echo "containment-lab: installing$$missing for the CI-report tests"; \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null 2>&1 || \
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null 2>&1; } || \
			echo "containment-lab: could not install$$missing: those checks will say skipped"; \
		fi; \
	fi; \
	if ! command -v runsc >/dev/null && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "containment-lab: installing runsc for the gvisor rung's tests"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq runsc >/dev/null 2>&1 || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq runsc >/dev/null 2>&1; } || \
		echo "containment-lab: runsc could not be installed: the gvisor tests will say skipped"; \
	fi
	@if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null && \
	    { ! command -v qemu-system-x86_64 >/dev/null || ! ls /boot/vmlinuz-* >/dev/null 2>&1; }; then \
		echo "containment-lab: installing $(MICROVM_PKGS) for the microvm rung's tests"; \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(MICROVM_PKGS) >/dev/null 2>&1 || \
		{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(MICROVM_PKGS) >/dev/null 2>&1; } || \
		echo "containment-lab: could not install $(MICROVM_PKGS): the microvm tests will be skipped"; \
	fi
	@if ! command -v srt >/dev/null && [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		pkgs="$(SRT_PKGS)"; command -v npm >/dev/null || pkgs="$$pkgs npm"; \
		echo "containment-lab: installing srt (npm's @anthropic-ai/sandbox-runtime, with $$pkgs) for audit's srt card"; \
		{ DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$pkgs >/dev/null 2>&1 || \
		  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$pkgs >/dev/null 2>&1; }; } && \
		timeout 300 npm install -g --no-audit --no-fund @anthropic-ai/sandbox-runtime >/dev/null 2>&1 || \
		echo "containment-lab: srt could not be installed: audit's srt checks will say skipped"; \
	fi

test: test-deps containment-lab build/containment-lab-san build/unit build/syscall_probe $(VM_INIT)
	tests/run_all.sh

# `make check`: the fast tier, for a change in progress: the unit suite
# (with the spec snapshots), the layout of the code, layers.ini, the
# command line, the matrix's faces, the twin and the screen in tmux (all
# but the screen's matrix: two runs of 128 cells, which `make test` keeps),
# all under ASan+UBSan. The whole of `make test` still decides.
CHECK_ONLY = ^(unit tests|the layout|layers\.ini|command line|matrix faces|twin:|TUI in tmux \(ASan)
check: test-deps containment-lab build/containment-lab-san build/unit build/syscall_probe
	CL_TUI_QUICK=1 CL_TEST_ONLY='$(CHECK_ONLY)' tests/run_all.sh

# `make test-hosts`: the lab on a real cgroup-v2 host (tests/hosts/run.sh):
# Debian's kernel booted twice under QEMU microvm (TCG) as a small machine
# with our own static init, cgroup2 alone and a systemd-style delegated
# subtree for uid 1000; results in build/hosts/. 2 min (quiet) to 17 (loaded) here, at most 25.
# Skipped, saying why, without QEMU, a guest kernel or static glibc.
HOSTS_INIT := $(if $(VM_LIBC),build/hosts-init)
build/hosts-init: tests/hosts/init.c | build
	$(CC) -std=gnu11 $(WARN) -Os -static -o $@ $<

test-hosts: containment-lab $(HOSTS_INIT)
	tests/hosts/run.sh

# `make test-deb`: the .deb built, lintian, apt-get install in a fresh
# Debian 12 root (mmdebstrap) and the installed lab's matrix there
# (tests/deb_test.sh, 6-15 min: a download and a matrix); not in `make test`,
# which stays well under 10 minutes. .ci/run runs it.
test-deb: test-deps containment-lab
	tests/deb_test.sh

# `make test-apparmor`: the AppArmor profile compiled by AppArmor 4's parser
# (Ubuntu 23.10+'s userns rule), fetched from Debian's archive into build/aa4
# (tests/apparmor_test.sh); skipped, saying why, without the archive.
test-apparmor:
	tests/apparmor_test.sh

# `make test-load`: the class server (tests/load_test.sh): 30 labs of 30
# uids run `matrix` at once, sharing the machine through [safety] slots
# (CL_LOAD_SLOTS, 4); every cell as the truth table says, nothing left
# behind. Long (tens of minutes on 2 cores): not part of `make test`.
test-load: containment-lab
	tests/load_test.sh

# `make lint`: the program and the probe built with -Werror (in build/lint,
# apart from the normal build), clang-tidy's bugprone-* and clang-analyzer-*
# checks, and clang-format --dry-run --Werror against .clang-format.
# Checks switched off, each because it does not fit this C code:
#  bugprone-easily-swappable-parameters: flags every f(int, int); C has no
#    strong typedefs to act on it.
#  bugprone-reserved-identifier: fires on _GNU_SOURCE and the header guards'
#    feature macros that glibc asks us to define.
#  clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling:
#    wants Annex K's memcpy_s/snprintf_s, which glibc does not provide.
#  clang-analyzer-valist.Uninitialized: a false positive with clang 14 and
#    glibc's va_list, reported on every correct va_start ... va_end.
#  bugprone-narrowing-conversions: fires on every int-to-char of a letter
#    table and every long-to-double of a figure we print; in C these are
#    meant, and -Wconversion is the tool for the ones that are not.
TIDY_CHECKS = -*,bugprone-*,clang-analyzer-*,-bugprone-easily-swappable-parameters,-bugprone-reserved-identifier,-clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling,-clang-analyzer-valist.Uninitialized,-bugprone-narrowing-conversions
LINT_SRCS = $(SRCS) src/vm/init.c tests/hosts/init.c tests/syscall_probe.c tests/unit.c
FORMAT_FILES = $(SRCS) $(HDRS) src/vm/init.c $(wildcard tests/*.c tests/hosts/*.c)
LINT_TOOLS = clang-tidy:clang-tidy clang-format:clang-format
lint-deps:
	@missing=""; for t in $(LINT_TOOLS); do command -v $${t%%:*} >/dev/null || missing="$$missing $${t##*:}"; done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
			echo "containment-lab: installing$$missing for make lint"; \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || \
			{ apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; }; \
		else \
			echo "containment-lab: make lint needs:$$missing; run:  sudo apt-get install -y$$missing"; exit 1; \
		fi; \
	fi

build/lint:
	mkdir -p $@
build/lint/%.o: src/%.c $(HDRS) build/prefix.stamp build/pkg.mk | build/lint
	@mkdir -p $(dir $@)
	$(CC) $(LAB_CFLAGS) $(PKG_CFLAGS) $(THREAD_FLAGS) -O2 -Werror -c -o $@ $<
build/lint/containment-lab: $(SRCS:src/%.c=build/lint/%.o)
	$(CC) -o $@ $^ $(PKG_LIBS) $(THREAD_FLAGS)
build/lint/syscall_probe: tests/syscall_probe.c | build/lint
	$(CC) -std=gnu11 $(WARN) -O2 -Werror -o $@ $<
build/lint/vm-init.o: src/vm/init.c src/vm/guest.h | build/lint
	$(CC) -std=gnu11 $(WARN) -O2 -Werror -c -o $@ $<
build/lint/unit.o: tests/unit.c $(HDRS) build/pkg.mk | build/lint
	$(CC) $(LAB_CFLAGS) $(PKG_CFLAGS) $(THREAD_FLAGS) -Isrc -O2 -Werror -c -o $@ $<

# Both tools always run, so one look shows every finding; lint fails if
# either found something.
lint: lint-deps build/lint/containment-lab build/lint/syscall_probe build/lint/unit.o build/lint/vm-init.o
	@echo "lint: clang-tidy ($(TIDY_CHECKS))"; \
	tidy=0; clang-tidy --quiet --warnings-as-errors='*' --checks='$(TIDY_CHECKS)' $(LINT_SRCS) -- \
		$(LAB_CFLAGS) $(PKG_CFLAGS) $(THREAD_FLAGS) -Isrc 2>/dev/null || tidy=1; \
	echo "lint: clang-format --dry-run --Werror"; \
	fmt=0; clang-format --dry-run --Werror $(FORMAT_FILES) 2>&1 | grep -E '^[^ ]+:[0-9]+:[0-9]+: error' || fmt=$$?; \
	[ "$$fmt" = 1 ] && fmt=0 || fmt=1; \
	[ $$tidy = 0 ] || echo "lint: clang-tidy found problems (above)"; \
	[ $$fmt = 0 ] || echo "lint: files differ from .clang-format (above; clang-format -i FILE fixes them)"; \
	[ $$tidy = 0 ] && [ $$fmt = 0 ] && echo "lint: clean"

# `make deb`: build/containment-lab_VERSION_ARCH.deb, made with dpkg-deb
# from a staged install for /usr in a copy of the tree (packaging/deb.sh
# says what goes where); tests/deb_test.sh runs lintian on it and installs
# it in a fresh Debian root.
deb:
	packaging/deb.sh build

bench: containment-lab
	tests/bench.sh

# everything the rungs need (the microvm rung's guest init too), then the screen
run: all
	./containment-lab

install: containment-lab $(VM_INIT)
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SHAREDIR)/snippets $(DESTDIR)$(MANDIR)
	install -m 0755 containment-lab $(DESTDIR)$(BINDIR)/containment-lab
	install -m 0644 snippets/*.py snippets/*.csv $(DESTDIR)$(SHAREDIR)/snippets/
	install -d $(DESTDIR)$(SHAREDIR)/snippets/data
	install -m 0644 snippets/data/corpus.tsv snippets/data/make_corpus.py $(DESTDIR)$(SHAREDIR)/snippets/data/
	install -d $(DESTDIR)$(SHAREDIR)/snippets/audit
	install -m 0644 snippets/audit/*.py $(DESTDIR)$(SHAREDIR)/snippets/audit/
	install -m 0644 layers.ini $(DESTDIR)$(SHAREDIR)/layers.ini
	install -m 0644 docs/containment-lab.1 $(DESTDIR)$(MANDIR)/containment-lab.1
	install -d $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(ZSHCOMPDIR)
	install -m 0644 completion/containment-lab.bash $(DESTDIR)$(BASHCOMPDIR)/containment-lab
	install -m 0644 completion/_containment-lab $(DESTDIR)$(ZSHCOMPDIR)/_containment-lab
	install -m 0644 docs/containment-lab.schema.json $(DESTDIR)$(SHAREDIR)/containment-lab.schema.json
	$(if $(VM_INIT),install -m 0755 build/vm-init $(DESTDIR)$(SHAREDIR)/vm-init)
	@if [ -e $(APPARMOR_RULE) ]; then $(MAKE) --no-print-directory install-apparmor; fi

# The AppArmor profile (docs/apparmor/): only where the kernel restricts
# unprivileged user namespaces through AppArmor (Ubuntu 23.10+), and loaded
# only by root into a running AppArmor, with nothing staged in DESTDIR.
APPARMOR_DIR = /etc/apparmor.d
APPARMOR_RULE = /proc/sys/kernel/apparmor_restrict_unprivileged_userns
install-apparmor:
	install -d $(DESTDIR)$(APPARMOR_DIR)
	sed 's|@BINDIR@|$(BINDIR)|g' docs/apparmor/containment-lab.in >$(DESTDIR)$(APPARMOR_DIR)/containment-lab
	chmod 0644 $(DESTDIR)$(APPARMOR_DIR)/containment-lab
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ] && command -v apparmor_parser >/dev/null && \
	    [ -d /sys/kernel/security/apparmor ]; then \
		echo "apparmor_parser -r $(APPARMOR_DIR)/containment-lab"; \
		apparmor_parser -r $(APPARMOR_DIR)/containment-lab; \
	else \
		echo "containment-lab: profile written to $(DESTDIR)$(APPARMOR_DIR)/containment-lab; load it with: sudo apparmor_parser -r $(APPARMOR_DIR)/containment-lab"; \
	fi

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/containment-lab $(DESTDIR)$(MANDIR)/containment-lab.1
	rm -f $(DESTDIR)$(BASHCOMPDIR)/containment-lab $(DESTDIR)$(ZSHCOMPDIR)/_containment-lab
	rm -f $(DESTDIR)$(APPARMOR_DIR)/containment-lab
	rm -rf $(DESTDIR)$(SHAREDIR)

clean:
	rm -rf build containment-lab
