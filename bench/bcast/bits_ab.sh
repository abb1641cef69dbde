#!/bin/sh
# bench/bcast/bits_ab.sh OLD_PALEOZOIC NEW_PALEOZOIC [DIR] - the integer
# BINARY's bitwise functions, shifts and Pow and BitwiseNot in whole models
# of 1x64x112x112 (opset 18): int64 BitwiseAnd (two tensors), uint8
# BitwiseXor (two tensors), uint32 BitShift LEFT by a scalar, int32 Pow
# (bases -9..9, exponents 0..9, two tensors), int32 BitwiseNot. Each
# model's `run --repeat 20 --threads 1` median, OLD and NEW interleaved,
# three rounds. Under the lock:
#   flock /tmp/pz_bench.lock sh bench/bcast/bits_ab.sh /work/main/build/paleozoic build/paleozoic
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OLD=$1 NEW=$2 D=${3:-/tmp/pz_bits_ab}
mkdir -p "$D"
cd "$D"
/usr/bin/python3 - <<'PYEOF'
import numpy as np, onnx
from onnx import helper as h, TensorProto as T, numpy_helper as nh
S=[1,64,112,112]
rng=np.random.default_rng(0)
vi=lambda n,t,s: h.make_tensor_value_info(n,t,s)
def save(name, op, t, dt, a, b, scalar=False, **kw):
    ins=[vi("a",t,S)] + ([] if scalar or b is None else [vi("b",t,S)])
    inits=[nh.from_array(np.array(b,dt),"b")] if scalar else []
    node=h.make_node(op,["a"] if b is None else ["a","b"],["y"],**kw)
    m=h.make_model(h.make_graph([node],name,ins,[vi("y",t,S)],inits),
                   opset_imports=[h.make_opsetid("",18)]); m.ir_version=8
    onnx.save(m,f"{name}.onnx")
    feeds={"a":a} if scalar or b is None else {"a":a,"b":b}
    for k,v in feeds.items(): open(f"{name}.{k}.pb","wb").write(nh.from_array(v.astype(dt),k).SerializeToString())
big=lambda dt: rng.integers(np.iinfo(dt).min,np.iinfo(dt).max,S,dtype=dt,endpoint=True)
save("and_i64","BitwiseAnd",T.INT64,np.int64,big(np.int64),big(np.int64))
save("xor_u8","BitwiseXor",T.UINT8,np.uint8,big(np.uint8),big(np.uint8))
save("shl_u32s","BitShift",T.UINT32,np.uint32,big(np.uint32),5,scalar=True,direction="LEFT")
save("pow_i32","Pow",T.INT32,np.int32,rng.integers(-9,10,S),rng.integers(0,10,S))
save("not_i32","BitwiseNot",T.INT32,np.int32,big(np.int32),None)
PYEOF
. "$HERE/ab_rounds.sh"
ab_rounds "$OLD" "$NEW" "$D" and_i64 xor_u8 shl_u32s pow_i32 not_i32
