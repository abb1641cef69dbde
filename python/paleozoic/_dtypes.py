"""Element types of a compiled model's I/O tables, as numpy dtypes.

The numbers are the runtime's pz_dtype enum, listed in src/rt/pz_dtypes.h
(onnx.TensorProto.DataType's numbering); a new type there is one line here.
The small storage types (17 to 26) are held one element per byte in memory
(src/rt/pz_rt.h): their codes as uint8, the signed 4- and 2-bit ints as int8.
bfloat16 has no numpy type: its raw bits travel as uint16.
"""

import numpy as np

# PZ_MAX_RANK in src/rt/pz_rt.h: the length of NAME_io.dims.
MAX_RANK = 8

# pz_dtype value -> (numpy dtype, name as pz_dtype_name gives it)
_TABLE = {
    1: (np.float32, "float32"),
    2: (np.uint8, "uint8"),
    3: (np.int8, "int8"),
    4: (np.uint16, "uint16"),
    5: (np.int16, "int16"),
    6: (np.int32, "int32"),
    7: (np.int64, "int64"),
    9: (np.bool_, "bool"),
    10: (np.float16, "float16"),
    11: (np.float64, "float64"),
    12: (np.uint32, "uint32"),
    13: (np.uint64, "uint64"),
    16: (np.uint16, "bfloat16"),
    17: (np.uint8, "float8e4m3fn"),
    18: (np.uint8, "float8e4m3fnuz"),
    19: (np.uint8, "float8e5m2"),
    20: (np.uint8, "float8e5m2fnuz"),
    21: (np.uint8, "uint4"),
    22: (np.int8, "int4"),
    23: (np.uint8, "float4e2m1"),
    24: (np.uint8, "float8e8m0"),
    25: (np.uint8, "uint2"),
    26: (np.int8, "int2"),
}


def to_numpy(code):
    """The numpy dtype that holds pz_dtype `code`; ValueError for an unknown one."""
    try:
        return np.dtype(_TABLE[code][0])
    except KeyError:
        raise ValueError("unknown element type %d (not in src/rt/pz_dtypes.h)" % code) from None


def type_name(code):
    """The runtime's name of pz_dtype `code` ("float32", "bfloat16", ...)."""
    return _TABLE[code][1] if code in _TABLE else "type %d" % code
