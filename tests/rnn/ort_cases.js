#!/usr/bin/env node
// ort_cases.js DIR... - runs each case DIR's ref.onnx in ONNX Runtime 1.17 on
// its in_K.pb and writes ort_K.pb (one process for all cases; a case ORT
// refuses gets the file ort_error with the reason).
'use strict';
const fs = require('fs');
const path = require('path');
const ort = require(path.join(__dirname, '../../node_modules/onnxruntime-node'));
const {readTensor, writeTensor, ORT_TYPES} = require('../e2e/tensorproto');

async function one(dir) {
    const session = await ort.InferenceSession.create(path.join(dir, 'ref.onnx'),
        {executionMode: 'sequential', intraOpNumThreads: 1, interOpNumThreads: 1});
    const feeds = {};
    session.inputNames.forEach((name, i) => {
        const t = readTensor(path.join(dir, `in_${i}.pb`));
        feeds[name] = new ort.Tensor(ORT_TYPES[t.dtype], t.data, t.dims);
    });
    const res = await session.run(feeds);
    session.outputNames.forEach((name, i) => {
        const t = res[name];
        writeTensor(path.join(dir, `ort_${i}.pb`), name, 1, t.dims, t.data);
    });
}

async function main() {
    for (const dir of process.argv.slice(2)) {
        try { await one(dir); } catch (e) { fs.writeFileSync(path.join(dir, 'ort_error'), e.message); }
    }
}
main();
