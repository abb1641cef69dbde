// tensorproto.js - onnx.TensorProto files (.pb) decoded and encoded in plain
// JavaScript, independently of the C code under test.
//   const {readTensor, writeTensor} = require('./tensorproto');
//   const t = readTensor('x.pb');   // {name, dtype, dims, data: typed array}
// (strings, dtype 8: data is an Array of JS strings, UTF-8 decoded)
'use strict';
const fs = require('fs');

// onnx.TensorProto.DataType -> typed array constructor
const TYPES = {
    1: Float32Array, 2: Uint8Array, 3: Int8Array, 4: Uint16Array, 5: Int16Array, 6: Int32Array,
    7: BigInt64Array, 9: Uint8Array, 10: Uint16Array, 11: Float64Array, 12: Uint32Array,
    13: BigUint64Array, 16: Uint16Array,
    // float8 (17-20, 24): one byte each; 4-bit (21-23) and 2-bit (25, 26)
    // types packed, PACK of them a byte: data holds the packed bytes
    17: Uint8Array, 18: Uint8Array, 19: Uint8Array, 20: Uint8Array, 21: Uint8Array,
    22: Uint8Array, 23: Uint8Array, 24: Uint8Array, 25: Uint8Array, 26: Uint8Array,
};
const PACK = {21: 2, 22: 2, 23: 2, 25: 4, 26: 4};
const ORT_TYPES = {1: 'float32', 2: 'uint8', 3: 'int8', 4: 'uint16', 5: 'int16', 6: 'int32',
    7: 'int64', 8: 'string', 9: 'bool', 10: 'float16', 11: 'float64', 12: 'uint32', 13: 'uint64'};

function varint(buf, pos) {
    let v = 0n, shift = 0n;
    for (;;) {
        if (pos.i >= buf.length) throw new Error('truncated varint');
        const b = buf[pos.i++];
        v |= BigInt(b & 0x7f) << shift;
        if (!(b & 0x80)) return v;
        shift += 7n;
    }
}

function readTensor(path) {
    return tensorFromBuffer(fs.readFileSync(path), path);
}

// The top-level fields of a message: [{field, wt, value (varint) or body (bytes)}].
function fields(buf) {
    const pos = {i: 0}, out = [];
    while (pos.i < buf.length) {
        const key = Number(varint(buf, pos)), f = {field: key >> 3, wt: key & 7};
        if (f.wt === 0) f.value = Number(varint(buf, pos));
        else if (f.wt === 2) { const n = Number(varint(buf, pos)); f.body = buf.subarray(pos.i, pos.i + n); pos.i += n; }
        else if (f.wt === 1) pos.i += 8;
        else if (f.wt === 5) pos.i += 4;
        else throw new Error(`wire type ${f.wt}`);
        out.push(f);
    }
    return out;
}

// A test-data value: a TensorProto, or a SequenceProto / OptionalProto of
// tensors (the two share field numbers: 1 name, 2 elem_type, 3 tensors, 5 a
// sequence). Told apart by their fields: a container has an elem_type of 0
// (empty), 1 (tensor) or 3 (sequence) and only fields 1 (a string), 2, 3, 5;
// a tensor file has raw_data or a name (fields 8, 9) besides. Returns
// {container, tensors}.
function readValue(path) {
    const buf = fs.readFileSync(path);
    const walk = b => {
        let fs_;
        try { fs_ = fields(b); } catch (e) { return null; }
        const et = fs_.find(f => f.field === 2 && f.wt === 0);
        const ok = fs_.every(f => (f.field === 1 && f.wt === 2) || (f.field === 2 && f.wt === 0) ||
                                  ((f.field === 3 || f.field === 5) && f.wt === 2));
        if (!ok || (et && ![0, 1, 3].includes(et.value))) return null;
        if (fs_.some(f => f.field === 5) && (!et || et.value !== 3)) return null;
        const ts = [];
        for (const f of fs_) {
            if (f.field === 3) ts.push(tensorFromBuffer(f.body, path));
            if (f.field === 5) { const inner = walk(f.body); if (!inner) return null; ts.push(...inner); }
        }
        return ts;
    };
    const ts = walk(buf);
    return ts ? {container: true, tensors: ts} : {container: false, tensors: [tensorFromBuffer(buf, path)]};
}

function tensorFromBuffer(buf, path) {
    const pos = {i: 0};
    const dims = [];
    let dtype = 0, name = '', raw = null;
    const strs = [];   // string_data (field 6)
    const typed = [];  // values from float_data/int32_data/int64_data/double_data/uint64_data
    let typedField = 0;
    while (pos.i < buf.length) {
        const key = Number(varint(buf, pos));
        const field = key >> 3, wt = key & 7;
        const len = () => Number(varint(buf, pos));
        if (field === 1) {
            if (wt === 2) { const n = len(), end = pos.i + n; while (pos.i < end) dims.push(Number(BigInt.asIntN(64, varint(buf, pos)))); }
            else dims.push(Number(BigInt.asIntN(64, varint(buf, pos))));
        } else if (field === 2) dtype = Number(varint(buf, pos));
        else if (field === 8) { const n = len(); name = buf.subarray(pos.i, pos.i + n).toString('utf8'); pos.i += n; }
        else if (field === 9) { const n = len(); raw = buf.subarray(pos.i, pos.i + n); pos.i += n; }
        else if (field === 6 && wt === 2) { const n = len(); strs.push(buf.subarray(pos.i, pos.i + n).toString('utf8')); pos.i += n; }
        else if ([4, 5, 7, 10, 11].includes(field)) {
            typedField = field;
            const one = () => {
                if (field === 4) { const v = buf.readFloatLE(pos.i); pos.i += 4; return v; }
                if (field === 10) { const v = buf.readDoubleLE(pos.i); pos.i += 8; return v; }
                return varint(buf, pos);
            };
            if (wt === 2) { const n = len(), end = pos.i + n; while (pos.i < end) typed.push(one()); }
            else typed.push(one());
        } else {   // skip
            if (wt === 0) varint(buf, pos);
            else if (wt === 1) pos.i += 8;
            else if (wt === 5) pos.i += 4;
            else if (wt === 2) pos.i += len();
            else throw new Error(`${path}: bad wire type ${wt}`);
        }
    }
    if (dtype === 8) {   // strings: string_data, one entry per element (JS strings)
        const numel = dims.reduce((a, b) => a * b, 1);
        if (strs.length !== numel) throw new Error(`${path}: ${strs.length} strings, shape needs ${numel}`);
        return {name, dtype, dims, data: strs};
    }
    const T = TYPES[dtype];
    if (!T) throw new Error(`${path}: unsupported data type ${dtype}`);
    const numel = dims.reduce((a, b) => a * b, 1);
    let data;
    if (raw) {
        const copy = Buffer.from(raw);  // aligned copy
        data = new T(copy.buffer, copy.byteOffset, PACK[dtype] ? Math.ceil(numel / PACK[dtype]) : numel);
    } else if (PACK[dtype]) {
        // packed types in int32_data: one packed byte per value
        const count = Math.ceil(numel / PACK[dtype]);
        if (typed.length !== count) throw new Error(`${path}: ${typed.length} values in field ${typedField}, shape needs ${count} packed bytes`);
        data = Uint8Array.from(typed, v => Number(v) & 0xff);
    } else {
        data = new T(numel);
        for (let i = 0; i < numel; i++) {
            const v = typed[i];
            if (T === BigInt64Array) data[i] = BigInt.asIntN(64, v);
            else if (T === BigUint64Array) data[i] = BigInt.asUintN(64, v);
            else data[i] = typeof v === 'bigint' ? Number(BigInt.asIntN(64, v)) : v;
        }
        if (typed.length !== numel) throw new Error(`${path}: ${typed.length} values in field ${typedField}, shape needs ${numel}`);
    }
    return {name, dtype, dims, data};
}

function putVarint(out, v) {
    v = BigInt.asUintN(64, BigInt(v));
    while (v >= 0x80n) { out.push(Number(v & 0x7fn) | 0x80); v >>= 7n; }
    out.push(Number(v));
}

function writeTensor(path, name, dtype, dims, data) {
    const head = [];
    for (const d of dims) { putVarint(head, 1 << 3); putVarint(head, d); }
    putVarint(head, 2 << 3); putVarint(head, dtype);
    const nb = Buffer.from(name, 'utf8');
    putVarint(head, 8 << 3 | 2); putVarint(head, nb.length);
    if (dtype === 8) {   // strings: one string_data field each
        const parts = [Buffer.from(head), nb];
        for (const s of data) {
            const b = Buffer.from(s, 'utf8'), k = [];
            putVarint(k, 6 << 3 | 2); putVarint(k, b.length);
            parts.push(Buffer.from(k), b);
        }
        fs.writeFileSync(path, Buffer.concat(parts));
        return;
    }
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const mid = [];
    putVarint(mid, 9 << 3 | 2); putVarint(mid, bytes.length);
    fs.writeFileSync(path, Buffer.concat([Buffer.from(head), nb, Buffer.from(mid), bytes]));
}

module.exports = {readTensor, readValue, writeTensor, fields, TYPES, ORT_TYPES, PACK};
