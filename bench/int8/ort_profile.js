#!/usr/bin/env node
// ort_profile.js - ONNX Runtime's own per-node times of one model (session
// option enableProfiling), for set-by-set comparison with our `EXE --profile`:
//   node bench/int8/ort_profile.js ORT_DIR MODEL.onnx IN.pb... [--runs K] [--threads N]
// ORT_DIR: the folder whose node_modules holds onnxruntime-node. Graph
// optimization 'all', one warm-up run, then K runs; prints `NODE name op ms`
// (the median over the K runs of each node's kernel time) and `TOTAL`. The
// inputs go to the model's inputs in order (BERT: ids, then mask).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const {readTensor, ORT_TYPES} = require('../../tests/e2e/tensorproto');

async function main() {
    const a = process.argv.slice(2);
    const ortDir = a.shift(), model = a.shift(), inputs = [];
    let runs = 30, threads = 1;
    while (a.length) {
        const k = a.shift();
        if (!k.startsWith('--')) { inputs.push(k); continue; }
        const v = parseInt(a.shift(), 10);
        if (k === '--runs' && v > 0) runs = v;
        else if (k === '--threads' && v > 0) threads = v;
        else throw new Error(`unknown option or bad value: ${k}`);
    }
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ortprof-'));
    const ort = require(path.resolve(ortDir, 'node_modules/onnxruntime-node'));
    const s = await ort.InferenceSession.create(model, {graphOptimizationLevel: 'all',
        executionMode: 'sequential', intraOpNumThreads: threads, interOpNumThreads: 1,
        enableProfiling: true, profileFilePrefix: path.join(dir, 'p')});
    if (inputs.length !== s.inputNames.length)
        throw new Error(`${model} takes ${s.inputNames.length} inputs, ${inputs.length} given`);
    const feeds = {};
    s.inputNames.forEach((name, i) => {
        const t = readTensor(inputs[i]);
        feeds[name] = new ort.Tensor(ORT_TYPES[t.dtype], t.data, t.dims);
    });
    for (let i = 0; i <= runs; i++) await s.run(feeds);
    s.endProfiling();
    const files = fs.readdirSync(dir).map(f => path.join(dir, f));
    const ev = JSON.parse(fs.readFileSync(files[0], 'utf8'));
    files.forEach(f => fs.unlinkSync(f));
    fs.rmdirSync(dir);
    const nodes = new Map();
    for (const e of ev) {
        if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
        const n = e.name.slice(0, -'_kernel_time'.length);
        if (!nodes.has(n)) nodes.set(n, {op: e.args.op_name, d: []});
        nodes.get(n).d.push(e.dur);
    }
    let total = 0;
    for (const [n, v] of nodes) {
        const d = v.d.slice(1).sort((x, y) => x - y);   /* the warm-up run left out */
        const ms = d[d.length >> 1] / 1000;
        total += ms;
        console.log(`NODE ${n} ${v.op} ${ms.toFixed(4)}`);
    }
    console.log(`TOTAL ${total.toFixed(3)}`);
}
main().catch(e => { console.error('ort_profile.js: error: ' + (e.message || e)); process.exit(2); });
