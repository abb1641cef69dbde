# graphfuzz.mk - the long run of the differential graph fuzzer
# (tests/fuzz/graph/graphfuzz.js): random ONNX models through `paleozoic run`
# and ONNX Runtime for GRAPHFUZZ_TIME seconds (default 600), from seed
# GRAPHFUZZ_SEED (default: the time), 2 concurrent models per core; prints
# the models run, the per-op counts and the findings, and writes minimized
# regressions to tests/fuzz/graph/regress/.
#
#   make graphfuzz GRAPHFUZZ_TIME=600
GRAPHFUZZ_TIME ?= 600
GRAPHFUZZ_SEED ?= $(shell date +%s)

.PHONY: graphfuzz
graphfuzz: $(B)/paleozoic $(B)/libpzio.a $(SDK_HDRS) $(B)/sdk.flags $(B)/libpzimage.a $(B)/image.flags
	node tests/fuzz/graph/graphfuzz.js --pz $(B)/paleozoic --time $(GRAPHFUZZ_TIME) \
	    --seed $(GRAPHFUZZ_SEED) --stats --jobs 4 --max-minimize 20 2>&1 | grep -v -E 'onnxruntime:|^\s*$$'
