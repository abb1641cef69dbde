#!/usr/bin/env node
// dynbatch.js - rewrites a model's leading dim of every graph input and
// output into the symbolic dim "N" (so `--batch N` can bind it), and writes
// a batch input: image 0 from a given .pb, the others seeded N(0,1).
//   node dynbatch.js MODEL.onnx OUT.onnx [IN.pb BATCH OUT_IN.pb]
// The protobuf is edited field by field (ModelProto.graph = 7, GraphProto
// input = 11 / output = 12, ValueInfoProto.type = 2, TypeProto.tensor_type = 1,
// Tensor.shape = 2, TensorShapeProto.dim = 1, Dimension dim_value = 1 /
// dim_param = 2); everything else is copied byte for byte.
'use strict';
const fs = require('fs');
const {readTensor, writeTensor} = require('./tensorproto');

function varint(buf, pos) {
    let v = 0, mul = 1;
    for (;;) {
        const b = buf[pos.i++];
        v += (b & 0x7f) * mul;
        if (!(b & 0x80)) return v;
        mul *= 128;
    }
}
function encVarint(v) {
    const out = [];
    while (v >= 0x80) { out.push((v % 128) | 0x80); v = Math.floor(v / 128); }
    out.push(v);
    return Buffer.from(out);
}
// [{field, wt, raw (whole field bytes), body (payload for wt 2)}]
function fields(buf) {
    const pos = {i: 0}, out = [];
    while (pos.i < buf.length) {
        const start = pos.i, key = varint(buf, pos), field = Math.floor(key / 8), wt = key & 7;
        let body = null;
        if (wt === 0) varint(buf, pos);
        else if (wt === 1) pos.i += 8;
        else if (wt === 5) pos.i += 4;
        else if (wt === 2) { const n = varint(buf, pos); body = buf.subarray(pos.i, pos.i + n); pos.i += n; }
        else throw new Error('bad wire type');
        out.push({field, wt, raw: buf.subarray(start, pos.i), body});
    }
    return out;
}
function lenField(field, body) {
    return Buffer.concat([encVarint(field * 8 + 2), encVarint(body.length), body]);
}
// Rewrites the fields on `path` (a list of field numbers); at the end, fn(body) -> body.
function edit(buf, path, fn, firstOnly) {
    const parts = [];
    let done = false;
    for (const f of fields(buf)) {
        if (f.wt === 2 && f.field === path[0] && !(firstOnly && path.length === 1 && done)) {
            const body = path.length === 1 ? fn(f.body) : edit(f.body, path.slice(1), fn, firstOnly);
            parts.push(lenField(f.field, body));
            if (path.length === 1) done = true;
        } else parts.push(f.raw);
    }
    return Buffer.concat(parts);
}
const symbolic = () => lenField(2, Buffer.from('N'));
function dims(io) {
    // the first dim of the shape only
    return edit(io, [2, 1, 2], shape => edit(shape, [1], () => symbolic(), true));
}

const [model, out, inPb, batch, outIn] = process.argv.slice(2);
let m = fs.readFileSync(model);
m = edit(m, [7], g => edit(edit(g, [11], dims), [12], dims));
fs.writeFileSync(out, m);
if (inPb) {
    const t = readTensor(inPb), n = Number(batch);
    const per = t.data.length, data = new Float32Array(per * n);
    data.set(t.data, 0);
    let s = 12345;
    const rnd = () => { s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0; return (s + 0.5) / 4294967296; };
    for (let i = per; i < per * n; i += 2) {   // Box-Muller
        const r = Math.sqrt(-2 * Math.log(rnd())), a = 2 * Math.PI * rnd();
        data[i] = r * Math.cos(a);
        if (i + 1 < per * n) data[i + 1] = r * Math.sin(a);
    }
    writeTensor(outIn, t.name, t.dtype, [n, ...t.dims.slice(1)], data);
}
