#!/bin/sh
# bench/bcast/int_ab.sh OLD_PALEOZOIC NEW_PALEOZOIC [DIR] - the integer
# BINARY and COMPARE fast kernels in whole models of 1x64x112x112: int64
# Add (two tensors), int64 Mul by a scalar, int32 Div, int64 Less -> Where,
# float32 Less against 0 -> Where, bool And. Each model's `run --repeat 20 --threads
# 1` median, OLD and NEW interleaved, three rounds. Under the lock:
#   flock /tmp/pz_bench.lock sh bench/bcast/int_ab.sh /work/main/build/paleozoic build/paleozoic
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
OLD=$1 NEW=$2 D=${3:-/tmp/pz_int_ab}
mkdir -p "$D"
cd "$D"
/usr/bin/python3 - <<'PYEOF'
import numpy as np, onnx
from onnx import helper as h, TensorProto as T, numpy_helper as nh
S=[1,64,112,112]
rng=np.random.default_rng(0)
def save(name, nodes, ins, outs, inits, feeds):
    g=h.make_graph(nodes,name,ins,outs,inits)
    m=h.make_model(g,opset_imports=[h.make_opsetid("",13)]); m.ir_version=8
    onnx.save(m,f"{name}.onnx")
    for k,v in feeds.items(): open(f"{name}.{k}.pb","wb").write(nh.from_array(v,k).SerializeToString())
a=rng.integers(-1000,1000,S).astype(np.int64); b=rng.integers(-1000,1000,S).astype(np.int64)
vi=lambda n,t,s: h.make_tensor_value_info(n,t,s)
save("add_i64",[h.make_node("Add",["a","b"],["y"])],[vi("a",T.INT64,S),vi("b",T.INT64,S)],[vi("y",T.INT64,S)],[],{"a":a,"b":b})
save("mul_i64s",[h.make_node("Mul",["a","s"],["y"])],[vi("a",T.INT64,S)],[vi("y",T.INT64,S)],[nh.from_array(np.array(3,np.int64),"s")],{"a":a})
save("div_i32",[h.make_node("Div",["a","b"],["y"])],[vi("a",T.INT32,S),vi("b",T.INT32,S)],[vi("y",T.INT32,S)],[],{"a":a.astype(np.int32),"b":(b|1).astype(np.int32)})
save("less_where_i64",[h.make_node("Less",["a","b"],["c"]),h.make_node("Where",["c","a","b"],["y"])],[vi("a",T.INT64,S),vi("b",T.INT64,S)],[vi("y",T.INT64,S)],[],{"a":a,"b":b})
save("and_bool",[h.make_node("And",["a","b"],["y"])],[vi("a",T.BOOL,S),vi("b",T.BOOL,S)],[vi("y",T.BOOL,S)],[],{"a":a>0,"b":b>0})
af=rng.standard_normal(S).astype(np.float32)
save("less_where_f32",[h.make_node("Less",["a","z"],["c"]),h.make_node("Where",["c","a","z"],["y"])],[vi("a",T.FLOAT,S)],[vi("y",T.FLOAT,S)],[nh.from_array(np.array(0,np.float32),"z")],{"a":af})
PYEOF
. "$HERE/ab_rounds.sh"
ab_rounds "$OLD" "$NEW" "$D" add_i64 mul_i64s div_i32 less_where_i64 less_where_f32 and_bool
