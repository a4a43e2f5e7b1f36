# SPDX-License-Identifier: MIT
#
# Linux 7.2 (Debian sid's linux-source-7.2) as a base of its own, beside 6.12's: its tree,
# build directories and apt state live in the cache.  `make test` (CI) runs tree-7.2,
# checkpatch-7.2, kunit-7.2-prod, prove-7.2 and replay-7.2 (one UML kernel, built cold once,
# then incrementally on each branch) and selftest-qemu-7.2 (x86_64 under qemu); test-7.2
# adds the debug config, each patch alone and the x86_64 modules.  Included by Makefile.
#
#   make -C kernel tree-7.2       fetch the pinned linux-source-7.2 through a private apt
#                                 state (fetch-sid-source.sh), unpack and commit it as a
#                                 pristine base (tag vramlab-base), git am ../patches/linux-7.2/
#                                 on branch vramlab; a moved sid that the series no longer
#                                 applies to says REBASE NEEDED and fails no build by itself
#   make -C kernel checkpatch-7.2 7.2's checkpatch.pl --strict on every patch of the series
#   make -C kernel kunit-7.2      radeon's KUnit suite under UML, twice: with the debug config
#                                 (lockdep, DEBUG_MUTEXES, KASAN) and a production-like one
#                                 (no DEBUG_MUTEXES: fence slots are not re-checked at unlock)
#   make -C kernel kunit-7.2-prod the production-like run alone (CI); kunit-7.2-debug the other
#   make -C kernel modules-7.2    x86_64 radeon.ko and radeon_kunit_test.ko with W=1 on the
#                                 files the series touches, at every patch of the series
#   make -C kernel each-7.2       the UML kernel built at every patch of the series
#   make -C kernel test-7.2       tree-7.2 + checkpatch-7.2 + kunit-7.2 + each-7.2 + modules-7.2
#   make -C kernel prove-7.2      the suite alone (the series' last patch) on the pristine
#                                 base, production-like config: it must fail there; the
#                                 output goes to $(BUILD72)/prove/
#   make -C kernel replay-7.2     the lab's trace replay (../patches/linux-7.2-lab/) on 7.2's
#                                 own code: branch lab (the series + the lab) and branch
#                                 lab-stock (the same with the two fixes reverted), each
#                                 must match vramlab's kernel model counter for counter
#                                 (7.2+fix and 7.2); the header is checked against the model
#   make -C kernel selftest-qemu-7.2  the allocator's KUnit suites as modules in a booted
#                                 x86_64 kernel of the series under qemu (as selftest-qemu)
#   make -C kernel export-7.2-lab ../patches/linux-7.2-lab/ from branch lab
#   make -C kernel deb-7.2        not in `make test`: the series as a Debian kernel package
#                                 (sid's amd64 config), for vramlab-hw prepare --kernel 7.2
#   make -C kernel evict-cost-7.2 lab, not in `make test`: lab/ttm_evict_cost_test.c on the
#                                 series before window eviction (EVICT_COST72_BASE) and with
#                                 it (EVICT_COST72_SERIES), UML and x86_64 under qemu: a failed
#                                 allocation's time, the scan's and the A1 LRU cursor's

# The one place the 7.2 base is pinned: sid's package and version at the time of writing
K72_PKG       := linux-source-7.2
K72_VERSION   := 7.2.13-1

KDIR72        := $(VRAMLAB_CACHE)/linux-7.2
BUILD72       := $(VRAMLAB_CACHE)/build-7.2
PATCHDIR72    := $(abspath $(HERE)/../patches/linux-7.2)
GITID72       := -c user.name="$$(git config --global user.name || echo vramlab)" \
                 -c user.email="$$(git config --global user.email || echo vramlab@localhost)"
GIT72         := git -C $(KDIR72) $(GITID72)
KUNIT72       := $(HERE)/kunitconfig-7.2
# The series' patches in order, without a cover letter: one part per destination tree, files
# NAME-NNNN-*.patch, applied in the order of MAIL72; each part's last commit is tagged
# vramlab-72-NAME in the tree.  1-radeon: the two 6.14 fixes and radeon's KUnit suite (amd-gfx,
# Cc stable); 2-drm-misc: the fit rule, the drm_mm scan test, window eviction and radeon's opt-in; 3-kselftest: drm_mm.sh's removal
MAIL72        := 1-radeon 2-drm-misc 3-kselftest
part72         = $(filter-out %0000-cover-letter.patch,$(sort $(wildcard $(PATCHDIR72)/$(1)-[0-9]*.patch)))
SERIES72       = $(foreach n,$(MAIL72),$(call part72,$(n)))
RADEON72       = $(call part72,1-radeon)
# The lab on top of it (not for mailing): the trace replay
LABDIR72      := $(abspath $(HERE)/../patches/linux-7.2-lab)
LAB72          = $(sort $(wildcard $(LABDIR72)/[0-9]*.patch))

.PHONY: tree-7.2 checkpatch-7.2 kunit-7.2 modules-7.2 test-7.2 prove-7.2 export-7.2 each-7.2 \
        replay-7.2 replay-header-7.2 export-7.2-lab kunit-7.2-prod kunit-7.2-debug lab-7.2 prove-fit-7.2 \
        selftest-qemu-7.2

test-7.2: tree-7.2 checkpatch-7.2 kunit-7.2 each-7.2 modules-7.2 prove-7.2 replay-7.2

# Unpacks and commits only when the tree is missing or holds another package than the one
# fetched; re-applies the series only when it changed (stamp, as `tree` does for 6.12).
tree-7.2: deps
	@mkdir -p $(VRAMLAB_CACHE) $(BUILD72)
	@deb=$$($(HERE)/fetch-sid-source.sh $(VRAMLAB_CACHE) $(K72_PKG) $(K72_VERSION) | tail -1) || { \
		echo "tree-7.2: SKIP: no linux-source-7.x could be had (no network, nothing cached)"; \
		rm -f $(BUILD72)/status; echo skip > $(BUILD72)/status; exit 0; }; \
	pkg=$$(basename $$deb .deb); pkg=$${pkg%_all}; \
	if [ "$$(cat $(KDIR72)/.git/vramlab-package 2>/dev/null)" != "$$pkg" ] || \
	   ! $(GIT72) rev-parse -q --verify refs/tags/$(BASE_TAG) >/dev/null 2>&1; then \
		echo "tree-7.2: unpacking $$pkg into $(KDIR72)"; \
		rm -rf $(KDIR72) $(KDIR72).tmp; mkdir -p $(KDIR72).tmp; \
		src=$${pkg%%_*}; \
		dpkg-deb --fsys-tarfile $$deb | tar -xO ./usr/src/$$src.tar.xz | tar -C $(KDIR72).tmp -xJ; \
		mv $(KDIR72).tmp/$$src $(KDIR72); rmdir $(KDIR72).tmp; \
		git -C $(KDIR72) init -q -b master; \
		$(GIT72) add -A -f; \
		$(GIT72) commit -q -m "$$pkg: Linux $$($(MAKE) -s --no-print-directory -C $(KDIR72) kernelversion) (Debian sid, pristine)"; \
		$(GIT72) tag $(BASE_TAG); \
		echo $$pkg > $(KDIR72)/.git/vramlab-package; \
	fi; \
	echo "tree-7.2: base $$pkg (pinned: $(K72_PKG)_$(K72_VERSION))"; \
	p=( $(SERIES72) ); \
	sum=$$(cat /dev/null $${p[@]} | sha256sum | cut -d' ' -f1); \
	stamp=$(KDIR72)/.git/vramlab-series; \
	if [ -z "$(FORCE)" ] && [ -f $$stamp ] && [ "$$(cat $$stamp)" = "$$sum $$($(GIT72) rev-parse HEAD)" ] && \
	   [ -z "$$($(GIT72) status --porcelain --ignored=no)" ]; then \
		$(TAG72); echo "tree-7.2: $(KDIR72) up to date ($${#p[@]} patches)"; echo ok > $(BUILD72)/status; exit 0; \
	fi; \
	rm -f $$stamp; \
	$(GIT72) am --abort >/dev/null 2>&1 || true; \
	$(GIT72) checkout -q -f -B $(BRANCH) $(BASE_TAG); \
	$(GIT72) clean -q -fdx; \
	if [ $${#p[@]} -gt 0 ] && ! $(GIT72) am -q --whitespace=error-all $${p[@]}; then \
		$(GIT72) am --abort >/dev/null 2>&1 || true; \
		if [ "$$pkg" = "$(K72_PKG)_$(K72_VERSION)" ]; then \
			echo "tree-7.2: the series does not apply to the pinned $$pkg"; exit 1; fi; \
		echo "tree-7.2: ************************************************************"; \
		echo "tree-7.2: REBASE NEEDED: the series does not apply to $$pkg"; \
		echo "tree-7.2: (pinned: $(K72_PKG)_$(K72_VERSION)); the 7.2 suites are skipped"; \
		echo "tree-7.2: ************************************************************"; \
		echo rebase > $(BUILD72)/status; exit 0; \
	fi; \
	$(TAG72); \
	echo "$$sum $$($(GIT72) rev-parse HEAD)" > $$stamp; echo ok > $(BUILD72)/status; \
	echo "tree-7.2: $(KDIR72) at $$($(GIT72) describe --tags --always) ($${#p[@]} patches applied)"

# Each part's last commit of the applied series tagged vramlab-72-NAME (HEAD: the series' end)
TAG72 = at=0; for n in $(MAIL72); do \
		c=$$(ls $(PATCHDIR72)/$$n-[0-9]*.patch 2>/dev/null | grep -vc 0000-cover-letter || true); \
		at=$$((at + c)); [ $$c -gt 0 ] || continue; \
		$(GIT72) tag -f vramlab-72-$$n $$($(GIT72) rev-list --reverse $(BASE_TAG)..HEAD | sed -n "$${at}p") >/dev/null; \
	done

# The 7.2 targets below run only on a tree the series applied to (tree-7.2's status)
define need72
	@st=$$(cat $(BUILD72)/status 2>/dev/null || echo missing); \
	if [ "$$st" != ok ]; then echo "$@: SKIP (tree-7.2: $$st)"; exit 0; fi; \
	echo "$@: base $$(cat $(KDIR72)/.git/vramlab-package) (pinned: $(K72_PKG)_$(K72_VERSION))"
endef

# Ignored: MISSING_SIGN_OFF (the checked-in patches carry none; `make export` adds the
# submitter's) and UNKNOWN_COMMIT_ID (Debian's tree has no upstream history to look the
# Fixes: id up in).  Fails on an error or a check; warnings are printed.
checkpatch-7.2:
	@test -d $(KDIR72)/.git || { echo "no 7.2 tree; run make tree-7.2"; exit 1; }
	$(call apt_need,python3-ply python3-git)
	@FAIL_ON=error,check $(HERE)/checkpatch-series.sh $(KDIR72) MISSING_SIGN_OFF,UNKNOWN_COMMIT_ID $(SERIES72) $(LAB72)

# One UML kernel per config; each run fails on a failed case.  The kernel's console goes to
# its raw log (KUNIT_UML), which kunit.py parses; the target also fails on what lockdep, KASAN
# or a BUG() said there (KERNEL_REPORTS, as `kunit` for 6.12)
KUNIT72_RUN = nice -n 10 $(KUNIT_UML) --jobs=$(JOBS) --timeout=$(KUNIT_TIMEOUT) \
	--kunitconfig=$(KUNIT72) --kunitconfig=$(KUNIT72).$(2) --json=$(BUILD72)/$(1).json \
	$(KDIR72) $(BUILD72)/$(1) $(BUILD72)/$(1).raw.log 2>&1 | tee $(BUILD72)/$(1).log; \
	if grep -nE '$(KERNEL_REPORTS)|kernel BUG' $(BUILD72)/$(1).raw.log; then \
		echo "kunit-7.2 ($(2)): the kernel reported the above ($(BUILD72)/$(1).raw.log)"; exit 1; fi

kunit-7.2: kunit-7.2-debug kunit-7.2-prod

kunit-7.2-debug:
	$(need72)
	@if [ "$$(cat $(BUILD72)/status 2>/dev/null)" = ok ]; then \
		set -e; mkdir -p $(BUILD72); $(GIT72) checkout -q -f $(BRANCH); \
		$(call KUNIT72_RUN,kunit-um-debug,debug); fi

kunit-7.2-prod:
	$(need72)
	@if [ "$$(cat $(BUILD72)/status 2>/dev/null)" = ok ]; then \
		set -e; mkdir -p $(BUILD72); $(GIT72) checkout -q -f $(BRANCH); \
		$(call KUNIT72_RUN,kunit-um-prod,prod); fi

modules-7.2: deps
	$(need72)
	@if [ "$$(cat $(BUILD72)/status 2>/dev/null)" = ok ]; then \
		nice -n 10 $(HERE)/build-modules-7.2.sh $(KDIR72) $(BUILD72)/modules $(JOBS) $(BASE_TAG); fi

# Every patch on its own under UML: the production-like build directory at each commit of
# the series in the 7.2 tree (only what a commit changes is rebuilt), then back on the
# series.  kunit-7.2 runs the suite at the last one.  Not to be run beside kunit-7.2.
each-7.2:
	$(need72)
	@if [ "$$(cat $(BUILD72)/status 2>/dev/null)" = ok ]; then \
		set -e; test -f $(BUILD72)/kunit-um-prod/.config || \
			{ echo "each-7.2: no UML build yet; run make kunit-7.2 first"; exit 1; }; \
		rc=0; for rev in $$($(GIT72) rev-list --reverse $(BASE_TAG)..$(BRANCH)); do \
			$(GIT72) checkout -q -f --detach $$rev; s=$$(date +%s); \
			cat $(KUNIT72) $(KUNIT72).prod >>$(BUILD72)/kunit-um-prod/.config; \
			$(MAKE) -s -C $(KDIR72) ARCH=um O=$(BUILD72)/kunit-um-prod olddefconfig >/dev/null 2>&1; \
			if nice -n 10 $(MAKE) -s -C $(KDIR72) ARCH=um O=$(BUILD72)/kunit-um-prod -j$(JOBS) \
				>$(BUILD72)/each-um.log 2>&1; then \
				echo "UML builds ($$(( $$(date +%s) - s ))s): $$($(GIT72) log -1 --format=%s)"; \
			else echo "UML FAILS: $$($(GIT72) log -1 --format=%s)"; tail -20 $(BUILD72)/each-um.log; rc=1; fi; \
		done; $(GIT72) checkout -q -f $(BRANCH); exit $$rc; fi

# The allocator's KUnit suites (drm_mm, TTM, radeon) as modules on a booted minimal x86_64
# kernel of the series under qemu: the runner and script of 6.12's selftest-qemu, no lab
# parameters (the series has none), production-like as kunit-7.2-prod
# (config.selftest-x86_64.prod).  On 7.2 an allnoconfig kernel has
# KUNIT_AUTORUN_ENABLED off, and a module's suites would load without running:
# kunit.autorun=1.  The TAP in $(BUILD72)/selftest-x86_64.tap; about 6 min cold, 15 s warm.
selftest-qemu-7.2: deps
	$(need72)
	$(call apt_need,qemu-system-x86 busybox-static kmod)
	@if [ "$$(cat $(BUILD72)/status 2>/dev/null)" = ok ]; then \
		set -e; $(GIT72) checkout -q -f $(BRANCH); \
		SELFTEST_KARGS=kunit.autorun=1 SELFTEST_CONFIG=$(HERE)/config.selftest-x86_64.prod \
			nice -n 10 $(HERE)/selftest-qemu.sh $(KDIR72) $(BUILD72) $(JOBS); fi

# The suite on stock 7.2: branch `prove` of the 7.2 tree is the base with only the suite's
# patch (the last of the series) applied; it is built in kunit-7.2's build directories (only
# the files that differ are rebuilt) and must FAIL, or the kernel die, there: with the
# production-like config, and with the debug one if kunit-7.2 has built it.  Raw logs in
# $(BUILD72)/prove/.  The tree is back on the series afterwards.  Not beside kunit-7.2.
PROVE72_RUN = nice -n 10 $(KUNIT_UML) --jobs=$(JOBS) --timeout=$(KUNIT_TIMEOUT) \
	--kunitconfig=$(KUNIT72) --kunitconfig=$(KUNIT72).$(1) --filter_glob='radeon*' --no-parse \
	$(KDIR72) $(BUILD72)/kunit-um-$(1) $(BUILD72)/prove/stock-7.2-$(1).log \
	>$(BUILD72)/prove/stock-7.2-$(1).build.log 2>&1 || true; \
	echo "== stock 7.2, $(1) config:"; \
	grep -E '^ *(not )?ok [0-9]|a fence list|^ *Expected|kernel BUG|BUG: failure|Kernel panic' \
		$(BUILD72)/prove/stock-7.2-$(1).log | sed -n '1,40p'; \
	if ! grep -qE '^ *not ok|Kernel panic|kernel BUG' $(BUILD72)/prove/stock-7.2-$(1).log; then \
		echo "prove-7.2: the suite PASSED on stock 7.2 ($(1)): it does not show the bugs"; fail=1; fi

prove-7.2:
	$(need72)
	@if [ "$$(cat $(BUILD72)/status 2>/dev/null)" = ok ]; then \
		set -e; fail=0; last=$(lastword $(RADEON72)); \
		$(GIT72) am --abort >/dev/null 2>&1 || true; \
		$(GIT72) checkout -q -f -B prove $(BASE_TAG); $(GIT72) clean -q -fdx; \
		$(GIT72) am -q $$last; \
		mkdir -p $(BUILD72)/prove; \
		$(call PROVE72_RUN,prod); \
		if [ -f $(BUILD72)/kunit-um-debug/.config ]; then $(call PROVE72_RUN,debug); fi; \
		$(GIT72) checkout -q -f $(BRANCH); \
		[ $$fail = 0 ] || exit 1; \
		echo "prove-7.2: the suite fails on stock 7.2, as it must ($(BUILD72)/prove/)"; fi
	@$(MAKE) -s --no-print-directory prove-fit-7.2

# The fit rule's test without the fit rule: branch prove-fit is the radeon part and the fit
# rule's patch (the first of 2-drm-misc) with every file it changes outside tests/ back as on
# the base, so only its KUnit case is new; ttm_bo_validate must fail there (the impossible
# layouts evict their range's fillers), production-like config.
prove-fit-7.2:
	$(need72)
	@if [ "$$(cat $(BUILD72)/status 2>/dev/null)" = ok ] && \
	    $(GIT72) rev-parse -q --verify refs/tags/vramlab-72-2-drm-misc >/dev/null; then \
		set -e; fit=$$($(GIT72) rev-list --reverse vramlab-72-1-radeon..vramlab-72-2-drm-misc | sed -n 1p); \
		$(GIT72) checkout -q -f -B prove-fit vramlab-72-1-radeon; $(GIT72) clean -q -fdx; \
		$(GIT72) cherry-pick $$fit >/dev/null; \
		core=$$($(GIT72) diff --name-only HEAD~1 HEAD | grep -v '/tests/'); \
		$(GIT72) checkout HEAD~1 -- $$core; $(GIT72) commit -q -m "prove-fit: the fit rule's test alone"; \
		mkdir -p $(BUILD72)/prove; log=$(BUILD72)/prove/fit-stock-7.2.log; \
		nice -n 10 $(KUNIT_UML) --jobs=$(JOBS) --timeout=$(KUNIT_TIMEOUT) \
			--kunitconfig=$(KUNIT72) --kunitconfig=$(KUNIT72).prod --filter_glob='ttm_bo_validate' \
			--no-parse $(KDIR72) $(BUILD72)/kunit-um-prod $$log >$$log.build 2>&1 || true; \
		$(GIT72) checkout -q -f $(BRANCH); \
		grep -E '^ *(not )?ok [0-9]+ (BO|Place|Aligned)' $$log | sed -n '1,20p'; \
		grep -qE '^ *not ok [0-9]+ (BO|Place)' $$log || \
			{ echo "prove-fit-7.2: the fit rule's test PASSED without the fit rule ($$log)"; exit 1; }; \
		echo "prove-fit-7.2: the fit rule's test fails without it, as it must ($$log)"; fi

# ../patches/linux-7.2/ from the tree, one series per part of MAIL72 (the tags vramlab-72-NAME
# bound them), To:/Cc: from 7.2's get_maintainer.pl on the part's patches, Cc: stable for the
# radeon fixes, the cover letter's subject and text from linux-7.2-cover-NAME.txt.  The checked-in copies carry no Signed-off-by;
# with SUBMITTER= and ASSISTED_BY= (as `export`) signed copies to mail go to $(MAILDIR)/linux-7.2.
export-7.2:
	@test -d $(KDIR72)/.git || { echo "no 7.2 tree; run make tree-7.2"; exit 1; }
	@mkdir -p $(PATCHDIR72); rm -f $(PATCHDIR72)/*.patch; first=$(BASE_TAG); \
	for n in $(MAIL72); do \
		$(GIT72) rev-parse -q --verify refs/tags/vramlab-72-$$n >/dev/null || continue; \
		last=vramlab-72-$$n; tmp=$$(mktemp -d); stable=; \
		$(GIT72) format-patch -q --no-signature --zero-commit -o $$tmp $$first..$$last; \
		to=$$(cd $(KDIR72) && $(GETMAINT) --m --no-r --no-l $$tmp/*.patch 2>/dev/null); \
		cc=$$(cd $(KDIR72) && $(GETMAINT) --no-m --r --l $$tmp/*.patch 2>/dev/null); \
		rm -rf $$tmp; mkdir $$tmp; \
		[ $$n != 1-radeon ] || stable=--cc=stable@vger.kernel.org; \
		prefix=PATCH; [ $$n = 1-radeon ] || prefix="PATCH v5"; \
		$(GIT72) format-patch -q --no-signature --zero-commit --cover-letter --subject-prefix="$$prefix" \
			--to="$$to" --cc="$$cc" $$stable -o $$tmp $$first..$$last; \
		for f in $$tmp/*.patch; do mv $$f $(PATCHDIR72)/$$n-$$(basename $$f); done; rmdir $$tmp; \
		$(PYTHON) -c 'import sys; p, t = sys.argv[1:]; s = open(p).read(); subj, body = open(t).read().split("\n\n", 1); \
			s = s.replace("*** SUBJECT HERE ***", subj.strip()).replace("*** BLURB HERE ***", body.strip()); \
			open(p, "w").write(s)' $(PATCHDIR72)/$$n-0000-cover-letter.patch $(HERE)/linux-7.2-cover-$${n#*-}.txt; \
		first=$$last; \
	done
	@ls $(PATCHDIR72)
	@$(SIGN_OFF) --unsigned $(PATCHDIR72)
	@$(SIGN_OFF) --mail $(MAILDIR) $(PATCHDIR72)

# The lab's replay on 7.2 (../patches/linux-7.2-lab/): radeon_replay_test runs the traces of
# REPLAY72_TRACES through radeon's ioctls on the radeon fixes (branch lab), on branch lab-stock,
# where the two fixes are reverted (stock 7.2 but for the suite and the lab's counters), and on
# the whole series (lab-series: the fit rule too), against the counters the model predicts for
# each (radeon_replay_test.kernel says which).  Built in kunit-7.2's production-like build directory: the debug config's
# ww_mutex slowpath makes TTM pass BOs by at random points (the suite skips under it).
REPLAY72_HEADER := drivers/gpu/drm/radeon/tests/radeon_replay_traces.h
# 6.12's traces and one of bursts (harness/tests/data/make_burst_trace.py), whose predicted
# cases take the gap prediction of radeon.evict_predict (no 6.12 patch has it)
REPLAY72_TRACES := $(REPLAY_TRACES) $(ROOT)/harness/tests/data/bursts.vrl
REPLAY72_RUN = nice -n 10 $(KUNIT_UML) --jobs=$(JOBS) --timeout=$(KUNIT_TIMEOUT) \
	--kunitconfig=$(KUNIT72) --kunitconfig=$(KUNIT72).prod --kernel_args='radeon_replay_test.kernel=$(2)' \
	--filter_glob='radeon_replay' --json=$(BUILD72)/replay-$(1).json \
	$(KDIR72) $(BUILD72)/kunit-um-prod $(BUILD72)/replay-$(1).raw.log >$(BUILD72)/replay-$(1).log 2>&1 || \
	{ grep -E 'FAILED|Expected|ERROR' $(BUILD72)/replay-$(1).log | sed -n '1,30p'; \
	  echo "replay-7.2: $(1) differs from the model ($(BUILD72)/replay-$(1).log)"; fail=1; }; \
	grep -E 'Testing complete' $(BUILD72)/replay-$(1).log | sed 's/^/replay-7.2 ($(1)): /'

replay-header-7.2:
	$(need72)
	@test -x $(VRAMLAB) || { echo "no $(VRAMLAB); run make build at the top"; exit 1; }
	@mkdir -p $(BUILD72)
	@$(VRAMLAB) trace export --kunit --kernel 7.2 --max-cs $(REPLAY_CS) \
		-o $(BUILD72)/radeon_replay_traces.h $(REPLAY72_TRACES)
	@$(GIT72) show lab:$(REPLAY72_HEADER) | diff -u - $(BUILD72)/radeon_replay_traces.h \
		>$(BUILD72)/replay-header.diff || { head -30 $(BUILD72)/replay-header.diff; \
		echo "the kernel model and the 7.2 lab's $(REPLAY72_HEADER) differ: copy"; \
		echo "$(BUILD72)/radeon_replay_traces.h into branch lab, rerun, export-7.2-lab"; exit 1; }
	@echo "replay-header-7.2: the kernel model predicts exactly the 7.2 lab's header"

# Branch lab: the radeon fixes part (tag vramlab-72-1-radeon) and the lab; lab-stock: lab with
# that part's fixes (every patch but its last, the KUnit suite the lab builds on) reverted;
# lab-series: the whole series and the lab (the fit rule too)
lab-7.2:
	$(need72)
	@$(GIT72) am --abort >/dev/null 2>&1 || true
	@$(GIT72) checkout -q -f -B lab vramlab-72-1-radeon && $(GIT72) clean -q -fdx
	@$(GIT72) am -q --whitespace=error-all $(LAB72)
	@$(GIT72) checkout -q -f -B lab-stock lab
	@$(GIT72) revert --no-edit $$($(GIT72) rev-list $(BASE_TAG)..vramlab-72-1-radeon~1) >/dev/null
	@$(GIT72) checkout -q -f -B lab-series $(BRANCH)
	@$(GIT72) am -q --whitespace=error-all $(LAB72)
	@$(GIT72) checkout -q -f $(BRANCH)
	@echo "lab-7.2: branches lab ($$($(GIT72) rev-list --count vramlab-72-1-radeon..lab) lab patches on the fixes), lab-stock (fixes reverted), lab-series (on the whole series)"

replay-7.2: lab-7.2 replay-header-7.2
	@if [ "$$(cat $(BUILD72)/status 2>/dev/null)" = ok ]; then \
		fail=0; \
		$(GIT72) checkout -q -f lab; $(call REPLAY72_RUN,fixes,1); \
		$(GIT72) checkout -q -f lab-stock; $(call REPLAY72_RUN,stock,0); \
		$(GIT72) checkout -q -f lab-series; $(call REPLAY72_RUN,series,2); \
		$(GIT72) checkout -q -f $(BRANCH); \
		[ $$fail = 0 ] || exit 1; \
		echo "replay-7.2: stock 7.2, 7.2 with the fixes and with the series match the kernel model on every case"; fi

export-7.2-lab:
	@test -d $(KDIR72)/.git || { echo "no 7.2 tree; run make tree-7.2"; exit 1; }
	@mkdir -p $(LABDIR72); rm -f $(LABDIR72)/*.patch
	@$(GIT72) format-patch -q --no-signature --zero-commit --subject-prefix="PATCH lab" \
		-o $(LABDIR72) vramlab-72-1-radeon..lab
	@ls $(LABDIR72)
	@$(SIGN_OFF) --unsigned $(LABDIR72)

# ---- fix-module-7.2: opt-in, in no other target and not in `make test` ----
# harness/hw/vramlab-hw fix-module end to end on 7.2, as a user of a 6.14+ kernel runs it:
# stock 7.2's radeon from a tarball laid out as Debian's linux-source-7.2 (git archive of the
# pristine base: its top Makefile and drivers/gpu/drm/radeon/) gets both fixes and is built
# into radeon.ko against modules-7.2's x86_64 build directory, whose release it is built for.
# That directory is only prepared: modules_prepare adds what an external module needs
# (scripts/module.lds); it has no vmlinux, so no Module.symvers, and modpost's unresolved
# drm and TTM symbols are warnings here (KBUILD_MODPOST_WARN=1), which Debian's linux-headers,
# with their Module.symvers, do not need.  The module's vermagic must be that release.
# About 1.5 minutes at -j2.  Output: $(BUILD72)/fix-module/work/drivers/gpu/drm/radeon/radeon.ko
.PHONY: fix-module-7.2
fix-module-7.2:
	@$(GIT72) rev-parse -q --verify refs/tags/$(BASE_TAG) >/dev/null 2>&1 || \
		{ echo "fix-module-7.2: no 7.2 tree at $(KDIR72); run make tree-7.2"; exit 1; }
	@test -f $(BUILD72)/modules/x86_64/.config || \
		{ echo "fix-module-7.2: no x86_64 build directory; run make modules-7.2"; exit 1; }
	@set -eo pipefail; out=$(BUILD72)/fix-module; hdr=$(BUILD72)/modules/x86_64; \
	mkdir -p $$out; \
	nice -n 10 $(MAKE) -s -C $$hdr -j$(JOBS) modules_prepare; \
	. $(HERE)/../ci/safe-write.sh; \
	safe_write_begin tar $$out/linux-source-7.2.tar.xz; \
	$(GIT72) archive --format=tar --prefix=linux-source-7.2/ $(BASE_TAG) Makefile \
		drivers/gpu/drm/radeon | xz -1 -T1 >$$tar; \
	safe_write_commit $$tar $$out/linux-source-7.2.tar.xz; \
	rel=$$(sed -n 's/^#define UTS_RELEASE "\(.*\)"$$/\1/p' $$hdr/include/generated/utsrelease.h); \
	start=$$(date +%s); \
	KBUILD_MODPOST_WARN=1 nice -n 10 $(PYTHON) $(HERE)/../harness/hw/vramlab-hw fix-module \
		--release "$$rel" --source $$out/linux-source-7.2.tar.xz --headers $$hdr \
		--work $$out/work --jobs $(JOBS) 2>&1 | grep -v 'modpost: ".*" \[.*\] undefined!'; \
	ko=$$out/work/drivers/gpu/drm/radeon/radeon.ko; \
	vm=$$(tr '\0' '\n' <$$ko | sed -n 's/^vermagic=\([^ ]*\).*/\1/p'); \
	[ "$$vm" = "$$rel" ] || { echo "fix-module-7.2: $$ko has vermagic '$$vm', not $$rel"; exit 1; }; \
	echo "fix-module-7.2: stock 7.2's radeon with both fixes built into $$ko for $$rel" \
		"($$(( $$(date +%s) - start ))s)"

# ---- deb-7.2: the series as a Debian kernel package, for a real Radeon box (not in `make test`) ----
# The tree's branch vramlab (the fixes, the fit rule, window eviction and the predicted window,
# all but the fixes opt-in) built with sid's own amd64 config: linux-config-7.2 of the package
# the tree was unpacked from, through the same private apt state as the source; the kernel
# deb_build (Makefile) makes of it.  vramlab-hw prepare --kernel 7.2 installs it.  Hours on 2
# cores; DEB_CONFIG_ONLY=1 stops after the config (a minute).  Where sid no longer serves the
# config of the source's version (a cached source older than sid), its newest linux-config-7.2,
# with a NOTICE: olddefconfig takes it to the tree.
.PHONY: deb-7.2
deb-7.2: tree-7.2
	@st=$$(cat $(BUILD72)/status 2>/dev/null || echo missing); [ "$$st" = ok ] || \
		{ echo "deb-7.2: the series is not applied (tree-7.2: $$st): no package"; exit 1; }
	$(call apt_need,dpkg-dev kmod debhelper)
	@set -e; pkg=$$(cat $(KDIR72)/.git/vramlab-package); ver=$${pkg#*_}; src=$${pkg%%_*}; \
	cfgpkg=linux-config-$${src#linux-source-}; mkdir -p $(BUILD72); \
	deb=$$($(ROOT)/ci/apt-private.sh --newest-pkg $$cfgpkg --label $$cfgpkg $(VRAMLAB_CACHE)/apt-sid \
		sid $$cfgpkg $$ver | tail -1) || { echo "deb-7.2: no $$cfgpkg from sid or the cache" \
		"(the network?): no config for $$pkg"; exit 1; }; \
	dpkg-deb --fsys-tarfile $$deb | tar -xO ./usr/src/$$cfgpkg/config.amd64_none_amd64.xz \
		>$(BUILD72)/config.amd64.xz.vramlab-tmp; \
	mv $(BUILD72)/config.amd64.xz.vramlab-tmp $(BUILD72)/config.amd64.xz; \
	echo "deb-7.2: $$(basename $$deb)'s amd64 config for $$pkg"; \
	$(GIT72) checkout -q -f $(BRANCH)
	$(call deb_build,$(KDIR72),$(BUILD72)/deb,$(BUILD72)/config.amd64.xz)

# ---- bisect-7.2: every patch of the series builds and passes on its own (not in `make test`) ----
# The production-like UML kernel built at each commit of the series (as each-7.2) and its KUnit
# suites run there (kunit-uml.py --no-build: the kernel just built, every suite present at that commit;
# the kunitconfig fragments are merged again at each commit, since a commit before a suite's
# Kconfig symbol exists drops it from .config);
# fails on a build error, a failed case or a kernel report.  Logs: $(BUILD72)/bisect/.
.PHONY: bisect-7.2
bisect-7.2:
	$(need72)
	@if [ "$$(cat $(BUILD72)/status 2>/dev/null)" = ok ]; then \
		set -e; test -f $(BUILD72)/kunit-um-prod/.config || \
			{ echo "bisect-7.2: no UML build yet; run make kunit-7.2-prod first"; exit 1; }; \
		mkdir -p $(BUILD72)/bisect; rc=0; n=0; \
		for rev in $$($(GIT72) rev-list --reverse $(BASE_TAG)..$(BRANCH)); do \
			n=$$((n + 1)); log=$(BUILD72)/bisect/$$n.log; \
			$(GIT72) checkout -q -f --detach $$rev; subj=$$($(GIT72) log -1 --format=%s); \
			cat $(KUNIT72) $(KUNIT72).prod >>$(BUILD72)/kunit-um-prod/.config; \
			$(MAKE) -s -C $(KDIR72) ARCH=um O=$(BUILD72)/kunit-um-prod olddefconfig >$$log 2>&1; \
			if ! nice -n 10 $(MAKE) -s -C $(KDIR72) ARCH=um O=$(BUILD72)/kunit-um-prod -j$(JOBS) \
				>>$$log 2>&1; then echo "bisect-7.2: $$n does not build: $$subj"; rc=1; continue; fi; \
			$(KUNIT_UML) --timeout=$(KUNIT_TIMEOUT) --no-build --no-parse \
				$(KDIR72) $(BUILD72)/kunit-um-prod $$log.console >>$$log 2>&1 || true; \
			cat $$log.console >>$$log; \
			ok=$$(grep -cE '^ *ok [0-9]' $$log || true); bad=$$(grep -cE '^ *not ok [0-9]' $$log || true); \
			if [ "$$bad" != 0 ] || [ "$$ok" = 0 ] || grep -qE '$(KERNEL_REPORTS)|kernel BUG' $$log; then \
				echo "bisect-7.2: $$n FAILS ($$bad not ok, $$ok ok): $$subj ($$log)"; rc=1; \
			else echo "bisect-7.2: $$n builds and passes ($$ok ok lines): $$subj"; fi; \
		done; $(GIT72) checkout -q -f $(BRANCH); exit $$rc; fi

# ---- evict-cost-7.2: lab, in no other target and not in `make test` ----
# lab/evict-cost.sh on 7.2: lab/ttm_evict_cost_test.c in two worktrees of the 7.2 tree,
# $(VRAMLAB_CACHE)/linux-7.2-cost-{base,series}: the base (built with
# -DTTM_EVICT_COST_NO_WINDOW: the series up to the drm_mm scan test, 2-drm-misc's patch 2, found
# by its place after the radeon part, so that a patch added at the end does not move it) and the
# series' window eviction with the driver's order (patches 3-7: design B1c, and the ordered
# scan radeon.evict_predict uses, the test's "ordered" cases; EVICT_COST72_SERIES=REV for
# another, e.g. the design-B2 branch docs/window-eviction.md measured).  The series is run only if its rev exists and has
# ttm_range_man_set_evict_window(); else the base alone, which says so.  Each under UML and
# as x86_64 under qemu (TCG; KVM with VRAMLAB_KVM=1); build directories, logs and the JSON
# in $(BUILD72)/evict-cost/.  Prints every case and the lock-hold table: TTM's walk, the
# series' scan and the A1 LRU cursor walk per walk and per LRU entry.
EVICT_COST72_BASE   ?=
EVICT_COST72_SERIES ?= vramlab-72-2-drm-misc
.PHONY: evict-cost-7.2
evict-cost-7.2: deps
	@$(GIT72) rev-parse -q --verify refs/tags/$(BASE_TAG) >/dev/null 2>&1 || \
		{ echo "evict-cost-7.2: no 7.2 tree at $(KDIR72); run make tree-7.2"; exit 1; }
	$(call apt_need,qemu-system-x86 dwarves)
	@base='$(EVICT_COST72_BASE)'; [ -n "$$base" ] || base=$$($(GIT72) rev-list --reverse \
		vramlab-72-1-radeon..vramlab-72-2-drm-misc | sed -n 2p); \
	[ -n "$$base" ] || { echo "evict-cost-7.2: no second 2-drm-misc patch in the tree"; exit 1; }; \
	echo "evict-cost-7.2: base $$($(GIT72) log -1 --format='%h %s' $$base)"; \
	$(HERE)/lab/evict-cost.sh 7.2 $(KDIR72) $(VRAMLAB_CACHE) $(BUILD72)/evict-cost $(JOBS) \
		$$base $(EVICT_COST72_SERIES)
