# flashpress developer and CI targets. Everything Python lives in $(VENV), built from
# requirements/lock.txt; targets are idempotent (stamp files skip work that is up to date).

PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
LOCK := requirements/lock.txt
VENV_STAMP := $(VENV)/.installed-lock
DEVELOP_STAMP := $(VENV)/.installed-flashpress
RUST_SOURCES := $(shell find crates configs -name '*.rs' -o -name '*.toml' 2>/dev/null) Cargo.toml Cargo.lock pyproject.toml
PYTEST_ARGS ?=
# Real data the codec tests and report compress (downloaded with apt, no root needed); the
# tests find it through FLASHPRESS_TESTDATA.
FLASHPRESS_TESTDATA ?= $(CURDIR)/target/testdata
export FLASHPRESS_TESTDATA
TESTDATA := $(FLASHPRESS_TESTDATA)
# Headless Chromium for the HTML report's test: Debian's packages unpacked here by `make chromium`
# (no root); the test runs $(FLASHPRESS_CHROMIUM).
CHROMIUM_DIR ?= $(CURDIR)/target/chromium
FLASHPRESS_CHROMIUM := $(CHROMIUM_DIR)/chromium
export FLASHPRESS_CHROMIUM
GCIDE_DEB_VERSION := 0.48.5+nmu2
GCIDE_SHA256 := 802beb667e1fb666203e750f1faea60d5c202ac5430c2083c4180494609f10a7
FIO_EXAMPLES_DEB_VERSION := 3.33-3
FIO_EXAMPLES_DEB_SHA256 := 753af4393ee9d4e69e4a0deacf235015c30f523b299c94e85e2e4556bfbcfd95

.PHONY: venv develop run test test-rust test-python lint docs test-slow testdata-full bench bench-lossy bench-waltz bench-scale bench-scale-64t codec-report testdata chromium lock clean

## venv: create $(VENV) and install the pinned Python dependencies (redone when the lock changes)
venv: $(VENV_STAMP)

$(VENV_STAMP): $(LOCK)
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-input -r $(LOCK)
	touch $@

## develop: build the extension (release) and install flashpress into $(VENV)
develop: $(DEVELOP_STAMP)

$(DEVELOP_STAMP): $(VENV_STAMP) $(RUST_SOURCES)
	VIRTUAL_ENV=$(abspath $(VENV)) PATH=$(abspath $(BIN)):$$PATH $(BIN)/maturin develop --release --quiet
	touch $@

## run: run the default preset and print its summary
run: develop
	$(BIN)/flashpress run

## test: every check CI runs (formatting, lints, types, Rust and Python tests, the docs)
test: test-rust lint docs test-python

test-rust: testdata
	cargo fmt --all --check
	cargo clippy --workspace --all-targets -- -D warnings
	cargo test --workspace

lint: venv
	$(BIN)/ruff check python tests/python testdata scripts benchmarks
	$(BIN)/ruff format --check python tests/python testdata scripts benchmarks
	$(BIN)/mypy python/flashpress

## docs: the documentation site from docs/ into site/ (MkDocs, Material theme; --strict: a broken
## link or a page that does not build fails) and the Rust API docs (cargo doc; a broken
## intra-doc link fails)
docs: venv
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet
	RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --workspace --quiet

test-python: develop testdata chromium
	$(BIN)/pytest tests/python -m "not slow" $(PYTEST_ARGS)

## test-slow: the slow Python tests (long runs, real job files on larger devices, the CAGC releases)
test-slow: develop testdata-full
	$(BIN)/pytest tests/python -m slow $(PYTEST_ARGS)

## bench: the core speed benchmark, random 4 KiB writes on bench-mlc-2g (Rust core alone, then the Python path), then the demand-paged map at a 100% hit ratio against the full map on its trace (callgrind instructions; target <= 1.3x); prints JSON
bench: develop
	$(BIN)/python benchmarks/bench_core.py
	$(BIN)/python benchmarks/bench_map_cache.py

## bench-lossy: lossy codec speed on real fields (SZx, SZ3, ZFP at 1e-3 x range); prints JSON
bench-lossy: develop testdata
	$(BIN)/python benchmarks/bench_lossy.py

## bench-waltz: the full-scale 20-minute Baseline run of the waltz preset (target: 60 s of wall time)
bench-waltz:
	cargo run --release -p flashpress-core --example bench_waltz

## bench-scale: memory and speed of 1-64 TiB devices at 4/16/64 KiB mapping units (estimate, peak RSS, fill time, requests/s); prints JSON
bench-scale:
	python3 benchmarks/bench_scale.py

## bench-scale-64t: a 64 TiB QLC device at 64 KiB units aged to steady state (0.6 overwrites), then 1M random 4 KiB writes; WAF by window, peak RSS (about 30 min)
bench-scale-64t:
	python3 benchmarks/bench_scale.py --points 64:64 --page-kib 16 --cell qlc --aging 0.6

## codec-report: codec ratio and throughput on gcide and /usr/lib binaries; prints Markdown
codec-report: develop testdata
	$(BIN)/python benchmarks/codec_report.py --testdata $(TESTDATA)

## testdata: the real files the default tests read, each checked by SHA-256 (about 400 MB of downloads):
## $(TESTDATA)/gcide.dict, ~40 MB of English dictionary text from Debian's dict-gcide (dictzip is
## gzip-compatible); $(TESTDATA)/fio-examples, the 86 example job files of Debian's fio-examples
## $(FIO_EXAMPLES_DEB_VERSION) (fio's own examples/ folder); the PR-SSD workloads' ext4 images of real files
## ($(TESTDATA)/prssd, testdata/prssd.toml: ~280 MB of pinned Debian and PyPI packages, each checked
## by SHA-256, then the images by theirs); two consecutive releases of Python 3.11's standard library laid
## out flat, the small real duplicate data of the default dedup tests ($(TESTDATA)/cagc-small,
## testdata/cagc-small.toml: 2 x 1.8 MB packages); and the lossy-compression fields, netCDF files of real
## scientific data ($(TESTDATA)/lossy, testdata/lossy.toml: 84 MB of Ferret's and NCL's Debian data
## packages and Iris's PyPI sample data, 82 MB of files, each checked by SHA-256)
testdata: $(TESTDATA)/gcide.dict $(TESTDATA)/fio-examples/.complete $(TESTDATA)/prssd/images.json \
	$(TESTDATA)/cagc-small/images.json $(TESTDATA)/lossy/images.json

## testdata-full: `testdata` plus the CAGC reproduction's six consecutive linux-source-6.1 releases laid
## out flat ($(TESTDATA)/cagc, testdata/cagc.toml: 6 x 139 MB packages, 6 x 1.49 GB images, each checked
## by SHA-256); `make test-slow` and `flashpress reproduce cagc` need it
testdata-full: testdata $(TESTDATA)/cagc/images.json

$(TESTDATA)/cagc-small/images.json: testdata/cagc-small.toml testdata/fetch.py
	$(PYTHON) testdata/fetch.py --manifest testdata/cagc-small.toml --out $(TESTDATA)/cagc-small

$(TESTDATA)/fio-examples/.complete:
	rm -rf $(TESTDATA)/fio-examples.tmp $(TESTDATA)/fio-examples && mkdir -p $(TESTDATA)/fio-examples.tmp
	cd $(TESTDATA)/fio-examples.tmp && apt-get download -q fio-examples=$(FIO_EXAMPLES_DEB_VERSION)
	echo "$(FIO_EXAMPLES_DEB_SHA256)  $$(ls $(TESTDATA)/fio-examples.tmp/fio-examples_*.deb)" | sha256sum --check --quiet
	dpkg-deb -x $(TESTDATA)/fio-examples.tmp/fio-examples_*.deb $(TESTDATA)/fio-examples.tmp/root
	mkdir -p $(TESTDATA)/fio-examples.tmp/out
	cp $(TESTDATA)/fio-examples.tmp/root/usr/share/doc/fio/examples/*.fio $(TESTDATA)/fio-examples.tmp/out/
	touch $(TESTDATA)/fio-examples.tmp/out/.complete
	mv $(TESTDATA)/fio-examples.tmp/out $(TESTDATA)/fio-examples
	rm -rf $(TESTDATA)/fio-examples.tmp

$(TESTDATA)/prssd/images.json: testdata/prssd.toml testdata/fetch.py
	$(PYTHON) testdata/fetch.py --manifest testdata/prssd.toml --out $(TESTDATA)/prssd

$(TESTDATA)/cagc/images.json: testdata/cagc.toml testdata/fetch.py
	$(PYTHON) testdata/fetch.py --manifest testdata/cagc.toml --out $(TESTDATA)/cagc

$(TESTDATA)/lossy/images.json: testdata/lossy.toml testdata/fetch.py
	$(PYTHON) testdata/fetch.py --manifest testdata/lossy.toml --out $(TESTDATA)/lossy

$(TESTDATA)/gcide.dict:
	rm -rf $(TESTDATA)/gcide.tmp && mkdir -p $(TESTDATA)/gcide.tmp
	cd $(TESTDATA)/gcide.tmp && apt-get download -q dict-gcide=$(GCIDE_DEB_VERSION)
	dpkg-deb -x $(TESTDATA)/gcide.tmp/dict-gcide_*.deb $(TESTDATA)/gcide.tmp/root
	gzip -dc $(TESTDATA)/gcide.tmp/root/usr/share/dictd/gcide.dict.dz > $(TESTDATA)/gcide.tmp/gcide.dict
	echo "$(GCIDE_SHA256)  $(TESTDATA)/gcide.tmp/gcide.dict" | sha256sum --check --quiet
	mv $(TESTDATA)/gcide.tmp/gcide.dict $@
	rm -rf $(TESTDATA)/gcide.tmp

## chromium: Debian 12's chromium, chromium-common and the libraries of theirs a Debian machine lacks
## (testdata/chromium.toml: 18 packages, ~105 MB, each checked by SHA-256), unpacked into $(CHROMIUM_DIR)
## without root; $(FLASHPRESS_CHROMIUM) runs it. The HTML report's test opens the report in it.
chromium: $(CHROMIUM_DIR)/chromium.json

$(CHROMIUM_DIR)/chromium.json: testdata/chromium.toml testdata/chromium.py testdata/fetch.py
	$(PYTHON) testdata/chromium.py --manifest testdata/chromium.toml --out $(CHROMIUM_DIR)

## lock: re-resolve the Python dependencies (latest allowed versions) into $(LOCK)
lock:
	rm -rf .lock-venv
	$(PYTHON) -m venv .lock-venv
	.lock-venv/bin/python -m pip install --quiet --upgrade pip
	.lock-venv/bin/python -m pip install --quiet "maturin>=1.8,<2" pandas pyarrow tqdm matplotlib "dask[distributed]" pysz "zfpy==1.0.1" netCDF4 h5py pytest hypothesis ruff mypy pandas-stubs types-tqdm mkdocs mkdocs-material "mkdocstrings[python]"
	{ echo "# Every Python dependency of flashpress (runtime, test, lint, build), pinned."; \
	  echo "# Resolved with pip in a scratch Python 3.11 venv and written with pip freeze;"; \
	  echo "# regenerate with: make lock"; \
	  .lock-venv/bin/python -m pip freeze; } > $(LOCK)
	rm -rf .lock-venv

clean:
	rm -rf $(VENV) python/flashpress/*.so site
