# OpenBench builds engines with `make EXE=<name>`; plain `make` builds `brudno`.
EXE ?= brudno

.PHONY: all
all:
	cargo build --release
	cp target/release/brudno $(EXE)
