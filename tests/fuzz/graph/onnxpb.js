// onnxpb.js - a small protobuf encoder for onnx.ModelProto (and the messages
// in it), enough for the graph fuzzer: ModelProto, GraphProto, NodeProto,
// AttributeProto, ValueInfoProto, TensorProto, OperatorSetIdProto.
//   const {encodeModel, encodeTensor} = require('./onnxpb');
//   const bytes = encodeModel({opset, nodes, inits, inputs, outputs});   // a Buffer
// Field numbers are onnx.proto's (ONNX 1.14).
'use strict';

function varint(out, v) {
    v = BigInt.asUintN(64, BigInt(v));
    while (v >= 0x80n) { out.push(Number(v & 0x7fn) | 0x80); v >>= 7n; }
    out.push(Number(v));
}
function key(out, field, wt) { varint(out, (field << 3) | wt); }

class W {
    constructor() { this.parts = []; this.cur = []; }
    flush() { if (this.cur.length) { this.parts.push(Buffer.from(this.cur)); this.cur = []; } }
    int(field, v) { key(this.cur, field, 0); varint(this.cur, v); return this; }
    float(field, v) { key(this.cur, field, 5); const b = Buffer.alloc(4); b.writeFloatLE(v); this.cur.push(...b); return this; }
    bytes(field, buf) {
        key(this.cur, field, 2); varint(this.cur, buf.length); this.flush(); this.parts.push(Buffer.from(buf)); return this;
    }
    str(field, s) { return this.bytes(field, Buffer.from(String(s), 'utf8')); }
    msg(field, w) { return this.bytes(field, w.done()); }
    packedInts(field, vs) { const o = []; for (const v of vs) varint(o, v); return this.bytes(field, Buffer.from(o)); }
    packedFloats(field, vs) {
        const b = Buffer.alloc(4 * vs.length); vs.forEach((v, i) => b.writeFloatLE(v, 4 * i)); return this.bytes(field, b);
    }
    done() { this.flush(); return Buffer.concat(this.parts); }
}

// t: {name, dtype, dims, data: typed array}  (raw_data, little endian)
function tensorMsg(t) {
    const w = new W();
    for (const d of t.dims) w.int(1, d);
    w.int(2, t.dtype);
    if (t.name) w.str(8, t.name);
    const d = t.data;
    w.bytes(9, Buffer.from(d.buffer, d.byteOffset, d.byteLength));
    return w;
}

// AttributeProto.AttributeType: FLOAT 1, INT 2, STRING 3, TENSOR 4, GRAPH 5, FLOATS 6, INTS 7
function attrMsg(name, a) {
    const w = new W().str(1, name);
    switch (a.type) {
    case 'f': w.float(2, a.v).int(20, 1); break;
    case 'i': w.int(3, a.v).int(20, 2); break;
    case 's': w.str(4, a.v).int(20, 3); break;
    case 't': w.msg(5, tensorMsg(a.v)).int(20, 4); break;
    case 'fs': w.packedFloats(7, a.v).int(20, 6); break;
    case 'is': w.packedInts(8, a.v).int(20, 7); break;
    case 'g': w.msg(6, graphMsg(a.v)).int(20, 5); break;   // a subgraph (If, Loop)
    default: throw new Error('attribute type ' + a.type);
    }
    return w;
}

function valueInfoMsg(v) {
    const shape = new W();
    // a string dim is a dim_param (symbolic); dims null: no shape at all
    if (!v.dims) return new W().str(1, v.name).msg(2, new W().msg(1, new W().int(1, v.dtype)));
    for (const d of v.dims) shape.msg(1, typeof d === 'string' ? new W().str(2, d) : new W().int(1, d));
    const tt = new W().int(1, v.dtype).msg(2, shape);
    const type = new W().msg(1, tt);
    return new W().str(1, v.name).msg(2, type);
}

// node: {op, name, inputs: [names ('' = omitted)], outputs: [names], attrs: {name: {type, v}}}
function nodeMsg(n) {
    const w = new W();
    for (const i of n.inputs) w.str(1, i);
    for (const o of n.outputs) w.str(2, o);
    w.str(3, n.name).str(4, n.op);
    for (const [k, a] of Object.entries(n.attrs || {})) w.msg(5, attrMsg(k, a));
    return w;
}

// graph: {nodes, inits: [tensor], inputs: [{name, dtype, dims}], outputs: [...], name}
function graphMsg(m) {
    const g = new W();
    for (const n of m.nodes) g.msg(1, nodeMsg(n));
    g.str(2, m.name || 'graphfuzz');
    for (const t of m.inits || []) g.msg(5, tensorMsg(t));
    for (const v of m.inputs) g.msg(11, valueInfoMsg(v));
    for (const v of m.outputs) g.msg(12, valueInfoMsg(v));
    return g;
}

// model: a graph and its opset
function encodeModel(m) {
    const g = graphMsg(m);
    const w = new W();
    w.int(1, m.opset >= 19 ? 9 : 8);
    w.str(2, 'graphfuzz');
    w.msg(7, g);
    w.msg(8, new W().str(1, '').int(2, m.opset));
    return w.done();
}

function encodeTensor(t) { return tensorMsg(t).done(); }

module.exports = {encodeModel, encodeTensor};
