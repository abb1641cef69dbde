#!/usr/bin/env node
// ort_run.js - runs a model in ONNX Runtime 1.17 (onnxruntime-node) on inputs
// read from TensorProto files and writes each output as a TensorProto file.
//   node tests/e2e/ort_run.js MODEL.onnx [--ort DIR] --threads N IN.pb... -- OUT.pb...
// --ort DIR: the onnxruntime-node under DIR/node_modules instead (e.g.
// bench/transformers/ort130, ONNX Runtime 1.30, which loads IR version 10).
// Graph optimization level "all", sequential execution (DESIGN.md's peer).
'use strict';
const path = require('path');
const {readTensor, writeTensor, ORT_TYPES} = require('./tensorproto');

async function main() {
    const args = process.argv.slice(2);
    const model = args.shift();
    let threads = 1, dir = path.join(__dirname, '../..');
    if (args[0] === '--ort') { args.shift(); dir = path.resolve(args.shift()); }
    const ort = require(path.join(dir, 'node_modules/onnxruntime-node'));
    if (args[0] === '--threads') { args.shift(); threads = parseInt(args.shift(), 10); }
    const sep = args.indexOf('--');
    const ins = sep < 0 ? args : args.slice(0, sep), outs = sep < 0 ? [] : args.slice(sep + 1);
    const session = await ort.InferenceSession.create(model, {
        graphOptimizationLevel: 'all', executionMode: 'sequential',
        intraOpNumThreads: threads, interOpNumThreads: 1});
    const feeds = {};
    session.inputNames.forEach((name, i) => {
        const t = readTensor(ins[i]);
        feeds[name] = new ort.Tensor(ORT_TYPES[t.dtype], t.data, t.dims);
    });
    const res = await session.run(feeds);
    session.outputNames.forEach((name, i) => {
        if (i >= outs.length) return;
        const t = res[name];
        const dtype = Number(Object.keys(ORT_TYPES).find(k => ORT_TYPES[k] === t.type));
        writeTensor(outs[i], name, dtype, t.dims, t.data);
    });
}
main().catch(e => { console.error('ort_run.js: ' + e.message); process.exit(1); });
