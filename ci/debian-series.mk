# The tree / unpack / export targets shared by mesa/Makefile and libdrm/Makefile: a Debian
# source package committed pristine in a cache outside the clone, with a patch series applied.
#
# The including Makefile sets: SRC (the source tree), GIT (git -C $(SRC) with an identity),
# PKG and PKG_VERSION (the Debian source package), PATCHDIR, BASE_TAG, BRANCH, SUBJECT_PREFIX,
# HERE (its own directory, holding cover-letter.txt), ROOT, VRAMLAB_CACHE, BUILD, PREFIX,
# MESON_OPTS, JOBS, and a `deps` target.
#
# Optional: FIXES_DIR, FIXES_TAG and FIXES_SUBJECT_PREFIX, a series of standalone fixes (its own cover letter,
# COVER_FIXES) applied first and tagged FIXES_TAG; PATCHDIR follows on top.  COVER (default
# $(HERE)/cover-letter.txt) is the series' cover text; MESON and NINJA default to Debian's.
#
# `export` writes the series without a Signed-off-by (docs/series.md, "Who signs off"); with
# SUBMITTER='Name <address>' and ASSISTED_BY='AGENT:MODEL [TOOL...]' (or none) it also writes
# copies to send into $(MAILDIR)/<the patch directory's name>: the submitter their author,
# with the Assisted-by, a Co-developed-by and Signed-off-by pair for each of
# CO_DEVELOPED_BY='Name <address>; ...' and the submitter's Signed-off-by (ci/sign-off.py).
#
# `tree` is idempotent: the source is unpacked and tagged once; the branch is rebuilt from the
# tag only when the series changed (a stamp in .git records the checksum of the applied
# patches), so an unchanged series touches no file and the build has nothing to redo.

SERIES = shopt -s nullglob; f=( $(if $(FIXES_DIR),$(FIXES_DIR)/0*.patch) ); \
         f=( $${f[@]/*0000-cover-letter.patch} ); \
         p=( $(PATCHDIR)/0*.patch ); p=( $${p[@]/*0000-cover-letter.patch} )

.PHONY: tree unpack export build

MAILDIR ?= $(VRAMLAB_CACHE)/mail
COVER ?= $(HERE)/cover-letter.txt
COVER_FIXES ?= $(HERE)/cover-letter-fixes.txt
MESON ?= meson
NINJA ?= ninja

tree: deps
	@mkdir -p $(VRAMLAB_CACHE)
	@if ! git -C $(SRC) rev-parse -q --verify refs/tags/$(BASE_TAG) >/dev/null 2>&1; then \
		$(MAKE) -s --no-print-directory unpack; \
	fi
	@$(SERIES); sum=$$(cat /dev/null $${f[@]} $${p[@]} | sha256sum | cut -d' ' -f1); \
	if [ "$$(cat $(SRC)/.git/vramlab-series 2>/dev/null)" = "$$sum" ] && \
	   [ "$$($(GIT) symbolic-ref -q --short HEAD)" = "$(BRANCH)" ] && \
	   [ -z "$$($(GIT) status --porcelain --untracked-files=no)" ]; then \
		echo "tree: $(SRC) up to date at $$($(GIT) describe --tags --always) ($${#f[@]} + $${#p[@]} patches)"; \
		exit 0; \
	fi; \
	$(GIT) am --abort >/dev/null 2>&1 || true; \
	$(GIT) checkout -q -f -B $(BRANCH) $(BASE_TAG); \
	if [ $${#f[@]} -gt 0 ]; then $(GIT) am -q --whitespace=error-all $${f[@]}; fi; \
	$(if $(FIXES_TAG),$(GIT) tag -f $(FIXES_TAG) >/dev/null;) \
	if [ $${#p[@]} -gt 0 ]; then $(GIT) am -q --whitespace=error-all $${p[@]}; fi; \
	echo "$$sum" > $(SRC)/.git/vramlab-series; \
	echo "tree: $(SRC) at $$($(GIT) describe --tags --always) ($${#f[@]} + $${#p[@]} patches)"

unpack:
	@$(ROOT)/ci/deb-src.sh $(PKG)
	@echo "apt-get source $(PKG) into $(SRC)"
	@rm -rf $(SRC) $(SRC).tmp; mkdir -p $(SRC).tmp
	@cd $(SRC).tmp && apt-get source -q $(PKG) >/dev/null
	@d=$$(ls -d $(SRC).tmp/$(PKG)-$(PKG_VERSION)); mv $$d $(SRC); rm -rf $(SRC).tmp
	@rm -rf $(SRC)/.pc
	@git -C $(SRC) init -q -b master
	@$(GIT) add -A -f
	@$(GIT) commit -q -m "$(PKG) $(PKG_VERSION) (Debian source, pristine)"
	@$(GIT) tag $(BASE_TAG)

export:
	@[ -z "$${SUBMITTER:-}" ] || [ -n "$${ASSISTED_BY:-}" ] || \
		{ echo "export: SUBMITTER needs ASSISTED_BY='AGENT_NAME:MODEL_VERSION [TOOL...]'"; \
		  echo "  (submitting-patches.rst, 'Using Assisted-by:'), or ASSISTED_BY=none if no coding tool helped"; \
		  exit 1; }
	@test -d $(SRC)/.git || { echo "no tree; run make tree"; exit 1; }
	@n=$$($(GIT) log --format=%B $(BASE_TAG)..HEAD | grep -ci '^signed-off-by:' || true); [ "$$n" = 0 ] || \
		{ echo "the commits in $(SRC) carry a Signed-off-by, which the checked-in copies must not:"; \
		  echo "drop it (make tree re-applies the checked-in copies when they changed); SUBMITTER= adds one"; \
		  exit 1; }
	@mkdir -p $(PATCHDIR) $(FIXES_DIR)
	@rm -f $(PATCHDIR)/*.patch $(if $(FIXES_DIR),$(FIXES_DIR)/*.patch)
	@$(if $(FIXES_DIR),$(GIT) rev-parse -q --verify refs/tags/$(FIXES_TAG) >/dev/null || \
		{ echo "no tag $(FIXES_TAG): tag the last fix"; exit 1; }; \
	$(GIT) format-patch -q --no-signature --cover-letter --zero-commit \
		--subject-prefix="$(FIXES_SUBJECT_PREFIX)" -o $(FIXES_DIR) $(BASE_TAG)..$(FIXES_TAG); \
	$(ROOT)/mesa/cover-letter.sh $(FIXES_DIR)/0000-cover-letter.patch $(COVER_FIXES))
	@$(GIT) format-patch -q --no-signature --cover-letter --zero-commit \
		--subject-prefix="$(SUBJECT_PREFIX)" -o $(PATCHDIR) $(or $(FIXES_TAG),$(BASE_TAG))..HEAD
	@$(ROOT)/mesa/cover-letter.sh $(PATCHDIR)/0000-cover-letter.patch $(COVER)
	@$(SERIES); cat /dev/null $${f[@]} $${p[@]} | sha256sum | cut -d' ' -f1 > $(SRC)/.git/vramlab-series
	@ls $(FIXES_DIR) $(PATCHDIR)
	@$(ROOT)/ci/sign-off.py --unsigned $(FIXES_DIR) $(PATCHDIR)
	@$(ROOT)/ci/sign-off.py --mail $(MAILDIR) $(FIXES_DIR) $(PATCHDIR)

# meson configures once; later runs are incremental. The build time is printed.
# BUILD_TARGETS: a command that prints what ninja builds (default: everything).
build:
	@test -d $(SRC)/.git || { echo "no tree; run make tree"; exit 1; }
	@if [ ! -f $(BUILD)/build.ninja ]; then \
		$(MESON) setup $(BUILD) $(SRC) --prefix=$(PREFIX) --libdir=lib $(MESON_OPTS); \
	fi
	@t0=$$(date +%s); targets=$$($(BUILD_TARGETS)); $(NINJA) -C $(BUILD) -j$(JOBS) $$targets; \
	$(MESON) install -C $(BUILD) --quiet --no-rebuild >/dev/null; \
	echo "build: $$(( $$(date +%s) - t0 )) s, installed into $(PREFIX)"
