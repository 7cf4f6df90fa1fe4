# Cairn's commands. `make run` and `make test` install what they need on a fresh machine.
SHELL := /bin/bash
.DEFAULT_GOAL := run
# The electron package is used for its types and for building; its binary cannot be downloaded on
# every machine, and `make run` falls back to web mode without it.
export ELECTRON_SKIP_BINARY_DOWNLOAD := 1
NPM_STAMP := node_modules/.cairn-installed

.PHONY: run test build lint typecheck unit bench eval screenshots deps sysdeps agent-clis clean

$(NPM_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	@touch $@

deps: $(NPM_STAMP)

# Debian packages the test suites drive for real: Chromium (end-to-end tests of the UI), OpenSSH's
# sshd and ssh-keygen (the SSH suites start their own sshd), and perl (the SSH remote helper runs
# on it, and its test checks it with perl -c; Debian's perl-base is essential, so rarely missing).
# Installed when missing (as root, as on CI); otherwise says what to install.
SYSDEPS := $(if $(wildcard /usr/bin/chromium),,chromium) $(if $(wildcard /usr/sbin/sshd),,openssh-server) $(if $(wildcard /usr/bin/ssh-keygen),,openssh-client) $(if $(wildcard /usr/bin/perl),,perl)
sysdeps:
	@if [ -n "$(strip $(SYSDEPS))" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    echo "Installing $(strip $(SYSDEPS)) (Debian packages) for the end-to-end and SSH tests..."; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(SYSDEPS) >/dev/null; \
	  else \
	    echo "make test needs: sudo apt-get install $(strip $(SYSDEPS))" >&2; exit 1; \
	  fi; \
	fi

# The agents' published CLIs (tests/agents/clis, exact versions) that tests/agents drives: installed
# once per lock file into ~/.cache/cairn-agent-clis, outside the checkout.
agent-clis: deps
	npx tsx tests/support/agent-clis.ts --install

build: deps
	npx electron-vite build --logLevel warn

typecheck: deps
	npx tsc --noEmit -p tsconfig.json

lint: deps
	npx eslint --max-warnings 0 .

unit: build
	npx vitest run

# Lint and typecheck are part of the test run; a failure anywhere fails it.
test: sysdeps agent-clis build typecheck lint
	npx vitest run

# BASE=<rev> adds the CLI's waits of this build beside that revision's, spawns alternating.
bench: build
	BENCH_BASE=$(BASE) npx tsx bench/run.ts

# Relevance of what agents receive (eval/run.ts): recall, MRR and characters injected per labelled
# set, beside MiniSearch; tables and eval/results/latest.json. Not part of `make test`.
eval: deps
	npx tsx eval/run.ts

# The README's pictures of the app (docs/*.png), from a sample memory in real Chromium.
screenshots: sysdeps build
	npx tsx scripts/screenshots.ts

run: build
	bash scripts/run.sh

clean:
	rm -rf out node_modules
