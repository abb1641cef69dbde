#!/usr/bin/env node
// ort_time.js - times one model in an ONNX Runtime build of onnxruntime-node.
//   node ort_time.js ORT_DIR MODEL.onnx IN.pb... [--threads N] [--runs K] [--save Y.pb]
// ORT_DIR is the folder whose node_modules holds that onnxruntime-node. Graph
// optimization 'all' (ORT's transformer fusions on), sequential, one warm-up
// run, then K timed runs; prints `latency_ms median=X min=Y runs=K` as our
// executables do. --save writes the first output as a TensorProto.
'use strict';
const path = require('path');
const {readTensor, writeTensor, ORT_TYPES} = require('../../tests/e2e/tensorproto');

async function main() {
    const args = process.argv.slice(2);
    const ortDir = args.shift(), model = args.shift();
    let threads = 1, runs = 10, save = null;
    const ins = [];
    while (args.length) {
        const a = args.shift();
        if (a === '--threads') threads = parseInt(args.shift(), 10);
        else if (a === '--runs') runs = parseInt(args.shift(), 10);
        else if (a === '--save') save = args.shift();
        else ins.push(a);
    }
    const ort = require(path.resolve(ortDir, 'node_modules/onnxruntime-node'));
    const s = await ort.InferenceSession.create(model, {graphOptimizationLevel: 'all',
        executionMode: 'sequential', intraOpNumThreads: threads, interOpNumThreads: 1});
    const feeds = {};
    s.inputNames.forEach((name, i) => {
        const t = readTensor(ins[i]);
        feeds[name] = new ort.Tensor(ORT_TYPES[t.dtype], t.data, t.dims);
    });
    let out = await s.run(feeds);
    const t = [];
    for (let i = 0; i < runs; i++) {
        const t0 = process.hrtime.bigint();
        out = await s.run(feeds);
        t.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    t.sort((a, b) => a - b);
    const med = t.length % 2 ? t[(t.length - 1) / 2] : (t[t.length / 2 - 1] + t[t.length / 2]) / 2;
    console.log(`latency_ms median=${med.toFixed(3)} min=${t[0].toFixed(3)} runs=${runs}`);
    if (save) {
        const y = out[s.outputNames[0]];
        const dt = Number(Object.keys(ORT_TYPES).find(k => ORT_TYPES[k] === y.type));
        writeTensor(save, s.outputNames[0], dt, y.dims, y.data);
    }
}
main().catch(e => { console.error('ort_time.js: error: ' + (e.message || e)); process.exit(1); });
