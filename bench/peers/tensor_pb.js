// tensor_pb.js - read and write a serialized onnx.TensorProto (.pb), float32 only:
// the format of the ONNX test data, of models/NAME.input.pb, and of `paleozoic run
// --output`. No protobuf library: a TensorProto is a flat message, and only four of
// its fields matter here.
//
//   const {readTensor, writeTensor} = require('./tensor_pb');
//   const t = readTensor('x.pb');   // {name, dims: [1,3,224,224], data: Float32Array}
//   writeTensor('y.pb', 'input', [1, 3, 224, 224], data);
//
// Fields (onnx.proto): 1 dims (int64, repeated, packed or not), 2 data_type
// (1 = FLOAT), 4 float_data (packed floats), 8 name, 9 raw_data (little-endian
// bytes). Any other field is skipped by its wire type. Throws an Error naming the
// file on anything malformed or not float32.
'use strict';
const fs = require('fs');

// A protobuf varint at buf[pos]: [value, next pos]. Values above 2^53 are not
// needed here (dims, tags, lengths) and are refused.
function varint(buf, pos, file) {
    let v = 0, mul = 1;
    for (let i = 0; i < 10; i++) {
        if (pos >= buf.length) throw new Error(`${file}: truncated varint`);
        const b = buf[pos++];
        v += (b & 0x7f) * mul;
        if (!(b & 0x80)) {
            if (v > Number.MAX_SAFE_INTEGER) throw new Error(`${file}: varint too large`);
            return [v, pos];
        }
        mul *= 128;
    }
    throw new Error(`${file}: varint longer than 10 bytes`);
}

function readTensor(file) {
    const buf = fs.readFileSync(file);
    const dims = [];
    let dtype = 0, name = '', raw = null, floats = [];
    let pos = 0;
    while (pos < buf.length) {
        let key;
        [key, pos] = varint(buf, pos, file);
        const field = Math.floor(key / 8), wire = key & 7;
        if (wire === 0) {
            let v;
            [v, pos] = varint(buf, pos, file);
            if (field === 1) dims.push(v);
            else if (field === 2) dtype = v;
        } else if (wire === 2) {
            let len;
            [len, pos] = varint(buf, pos, file);
            if (pos + len > buf.length) throw new Error(`${file}: field ${field} runs past the end`);
            const body = buf.subarray(pos, pos + len);
            pos += len;
            if (field === 1) {              // packed dims
                let p = 0;
                while (p < body.length) {
                    let v;
                    [v, p] = varint(body, p, file);
                    dims.push(v);
                }
            } else if (field === 4) {       // packed float_data
                if (len % 4) throw new Error(`${file}: float_data length ${len} is not a multiple of 4`);
                for (let p = 0; p < len; p += 4) floats.push(body.readFloatLE(p));
            } else if (field === 8) {
                name = body.toString('utf8');
            } else if (field === 9) {
                raw = body;
            }
        } else if (wire === 5) {
            if (field === 4) floats.push(buf.readFloatLE(pos));
            pos += 4;
        } else if (wire === 1) {
            pos += 8;
        } else {
            throw new Error(`${file}: unsupported protobuf wire type ${wire} (field ${field})`);
        }
    }
    if (dtype !== 1) throw new Error(`${file}: data_type ${dtype}, only FLOAT (1) is supported`);
    const n = dims.reduce((a, b) => a * b, 1);
    let data;
    if (raw) {
        if (raw.length !== n * 4)
            throw new Error(`${file}: raw_data has ${raw.length} bytes, dims [${dims}] want ${n * 4}`);
        data = new Float32Array(n);
        for (let i = 0; i < n; i++) data[i] = raw.readFloatLE(i * 4);
    } else {
        if (floats.length !== n)
            throw new Error(`${file}: float_data has ${floats.length} values, dims [${dims}] want ${n}`);
        data = Float32Array.from(floats);
    }
    return {name, dims, data};
}

function encVarint(v) {
    const out = [];
    do {
        let b = v % 128;
        v = Math.floor(v / 128);
        if (v > 0) b |= 0x80;
        out.push(b);
    } while (v > 0);
    return Buffer.from(out);
}

function lenField(field, body) {
    return Buffer.concat([encVarint(field * 8 + 2), encVarint(body.length), body]);
}

// Writes to a temporary name and renames, so a file that exists is complete.
function writeTensor(file, name, dims, data) {
    const parts = [];
    for (const d of dims) parts.push(encVarint(1 * 8 + 0), encVarint(d));
    parts.push(encVarint(2 * 8 + 0), encVarint(1));
    parts.push(lenField(8, Buffer.from(name, 'utf8')));
    const raw = Buffer.alloc(data.length * 4);
    for (let i = 0; i < data.length; i++) raw.writeFloatLE(data[i], i * 4);
    parts.push(lenField(9, raw));
    const tmp = `${file}.tmp.${process.pid}`;
    fs.writeFileSync(tmp, Buffer.concat(parts));
    fs.renameSync(tmp, file);
}

module.exports = {readTensor, writeTensor};
