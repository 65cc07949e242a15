# SPDX-License-Identifier: GPL-2.0
#
# pfcwd build.  See README.md.
#
#   make                 pfcwd.ko and the tools for the running kernel, where
#                        its headers are installed; else as make KVER=6.1
#   make KVER=6.1        pfcwd.ko, pfcsim.ko and the tools for the test VM's
#                        Debian 6.1 (installs the test harness first)
#   make KVER=6.12       the same for Debian's 6.12
#   make KVER=RELEASE    pfcwd.ko and the tools for an installed kernel's
#                        headers (/lib/modules/RELEASE/build); no test harness
#   make check           deps, both kernels, unit tests, VM selftests
#   make demo            a storm story on a simulated port, in a VM
#   make lint            W=1, sparse (C=2), checkpatch --strict
#   make bench           benchmarks in a VM
#   make debug-kernel    the KASAN/kmemleak/lockdep kernel (cached; ~1 h once)
#   make KVER=debug      the modules for it
#   make check-debug     the selftests on it, then a kmemleak scan
#   make install         install what make built (DESTDIR=, KVER=); uninstall
#   make dkms-src        the DKMS source tree in /usr/src/pfcwd-<version>
#   make deb             pfcwd-dkms and pfcwd-tools packages in build/deb/
#
# Kernel modules are built in a shadow tree per kernel, build/<KVER>/, so the
# two kernels' objects never mix; their .ko files are also installed into
# the VM kernel tree (build/kernels/<release>/lib/modules/<release>/extra)
# so that modprobe and qdisc autoload work in the guest.

# Without KVER: the running kernel where its headers are installed (a
# production host), else the test harness's 6.1 (a development machine).
KRELEASE ?= $(shell uname -r)
ifeq ($(origin KVER),undefined)
KVER := $(if $(wildcard /lib/modules/$(KRELEASE)/build/Makefile),$(KRELEASE),6.1)
endif
TOP := $(CURDIR)
BUILD := $(TOP)/build
OUT ?= $(BUILD)/$(KVER)

# A test kernel (6.1, 6.12, debug: booted in the VM, set up by the test
# harness), or an installed kernel's release (its headers, nothing else).
ifeq ($(filter 6.1 6.12 debug,$(KVER)),)
HOST_KERNEL := 1
ifeq ($(wildcard /lib/modules/$(KVER)/build/Makefile),)
$(error KVER must be 6.1, 6.12, debug or an installed kernel's release with its headers (/lib/modules/$(KVER)/build), not '$(KVER)')
endif
endif

ifdef HOST_KERNEL
REL = $(KVER)
KDIR = /lib/modules/$(KVER)/build
else
REL = $(shell cat $(BUILD)/kernels/$(KVER).release 2>/dev/null)
endif
ifeq ($(KVER),debug)
# The debug kernel's own build tree (scripts/debug-kernel).
KDIR = $(BUILD)/kernels/$(REL)/lib/modules/$(REL)/build
else ifndef HOST_KERNEL
KDIR = /lib/modules/$(REL)/build
endif

KSRC := Kbuild VERSION include pfcwd net_sched tools/testing/pfcsim
KSRC_FILES := $(shell find $(KSRC) -type f 2>/dev/null)

CFLAGS_USER := -O2 -g -Wall -Wextra -Werror -I$(TOP)/include
# The one version number, for pfcwd -V (a packager's CFLAGS_USER keeps it).
VERSION_DEF := -DPFCWD_VERSION='"$(shell cat $(TOP)/VERSION)"'
SELFTEST_DIR := tools/testing/selftests/pfcwd
SELFTEST_BINS := $(BUILD)/tools/pfcwd-pkt
UNIT_DIR := tools/testing/unit

.PHONY: all modules tools test-tools deps install-vm unit check demo lint bench soak clean \
	debug-kernel check-debug install install-tools uninstall dkms-src deb

ifdef HOST_KERNEL
# The module for that kernel and the user's tools: nothing of the tests.
all: modules tools
else
all: modules tools test-tools install-vm
endif

deps:
	@scripts/deps.sh

$(BUILD)/kernels/6.1.release $(BUILD)/kernels/6.12.release:
	@scripts/deps.sh

$(BUILD)/kernels/debug.release:
	@scripts/debug-kernel

# An installed kernel's build makes pfcwd.ko alone (no pfcsim).
modules: $(if $(HOST_KERNEL),,$(BUILD)/kernels/$(KVER).release)
	@mkdir -p $(OUT)/src
	@find $(OUT)/src -xtype l -delete
	@cd $(OUT)/src && for f in $(KSRC_FILES); do \
		mkdir -p "$$(dirname "$$f")"; \
		ln -sfn "$(TOP)/$$f" "$$f"; \
	done
	$(MAKE) -C $(KDIR) M=$(OUT)/src modules $(if $(HOST_KERNEL),PFCWD_ONLY=1) \
		$(if $(W),W=$(W)) $(if $(C),C=$(C) CHECK="sparse -Wno-unknown-attribute")
	@cp $(OUT)/src/pfcwd.ko $(if $(HOST_KERNEL),,$(OUT)/src/tools/testing/pfcsim/pfcsim.ko) $(OUT)/

# Make the modules visible to modprobe (and qdisc autoload) in the VM.
install-vm: modules
	@d=$(BUILD)/kernels/$(REL)/lib/modules/$(REL)/extra; \
	mkdir -p $$d && cp $(OUT)/pfcwd.ko $(OUT)/pfcsim.ko $$d/ && \
	depmod -b $(BUILD)/kernels/$(REL) $(REL)

# The test suite's own programs: never installed, not in make tools.
test-tools: $(SELFTEST_BINS)

# The pfcwd command (tools/pfcwd, libmnl); shares pfcwd/prio_list.c with
# the module.
tools: $(BUILD)/tools/pfcwd
PFCWD_CLI_SRCS := $(addprefix tools/pfcwd/,main.c genl.c port.c show.c set.c \
	monitor.c headroom.c headroom_cmd.c json.c table.c util.c check.c stats.c ports_get.c \
	metrics.c exporter.c conf.c apply.c rtnl.c links.c history.c) pfcwd/prio_list.c
PFCWD_CLI_HDRS := tools/pfcwd/cli.h tools/pfcwd/headroom.h pfcwd/prio_list.h \
	pfcwd/pure.h include/uapi/linux/pfcwd.h

$(BUILD)/tools/pfcwd: $(PFCWD_CLI_SRCS) $(PFCWD_CLI_HDRS) VERSION
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_USER) $(VERSION_DEF) -I$(TOP)/include/uapi -o $@ $(PFCWD_CLI_SRCS) \
		$$(pkg-config --cflags --libs libmnl)

# The tc plugin: tc dlopen()s it and provides the helpers it calls.
TC_PLUGIN_SRCS := tools/pfcwd/q_pfcwd.c pfcwd/prio_list.c
tools: $(BUILD)/tools/q_pfcwd.so
$(BUILD)/tools/q_pfcwd.so: $(TC_PLUGIN_SRCS) tools/pfcwd/tc_iproute2.h \
		pfcwd/prio_list.h pfcwd/pure.h include/uapi/linux/pfcwd.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_USER) -fPIC -shared -o $@ $(TC_PLUGIN_SRCS)

$(BUILD)/tools/%: $(SELFTEST_DIR)/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_USER) -o $@ $<

unit: deps
	@$(MAKE) -s -C $(UNIT_DIR) OUT=$(BUILD)/unit run

check:
	@scripts/check

debug-kernel:
	@scripts/debug-kernel

check-debug:
	@scripts/check-debug

demo:
	@scripts/demo

lint:
	@scripts/lint

bench:
	@scripts/bench

soak:
	@scripts/soak

# Installation of what make built (never builds; see scripts/install),
# DKMS and Debian packages (scripts/make-deb).  The version is VERSION's.
install install-tools uninstall dkms-src:
	@DESTDIR="$(DESTDIR)" KVER="$(KVER)" scripts/install $@

deb:
	@scripts/make-deb

clean:
	rm -rf $(BUILD)/6.1 $(BUILD)/6.12 $(BUILD)/debug $(BUILD)/unit $(BUILD)/results \
		$(BUILD)/deb
