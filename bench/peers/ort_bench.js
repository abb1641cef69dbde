#!/usr/bin/env node
// ort_bench.js - the peer: times ONNX Runtime 1.17 (onnxruntime-node) on one model.
//
//   node bench/peers/ort_bench.js MODEL.onnx INPUT.pb [--threads N] [--runs K]
//                                 [--warmup W] [--save-output F.raw] [--ort DIR]
//
// Loads the model once (graph optimization 'all', intra-op threads N, inter-op 1,
// sequential execution), feeds INPUT.pb (a float32 onnx.TensorProto) to the
// model's first input, runs W untimed warm-up runs (default 1), then K timed runs
// (default 10), and prints one line per run `run_ms X` and then
// `latency_ms median=X min=Y max=Z runs=K` (the line `paleozoic run` prints).
// --save-output writes the first output as raw little-endian float32 (for the
// harness's agreement check). --ort DIR takes the onnxruntime-node installed
// under DIR/node_modules (e.g. bench/transformers/ort130: ONNX Runtime 1.30)
// instead of the repository's (1.17). Errors: `ort_bench: error: ...`, exit 2 (usage)
// or 1 (ORT refused the model or failed).
'use strict';
const fs = require('fs');
const {readTensor} = require('./tensor_pb');

function fail(code, msg) {
    console.error(`ort_bench: error: ${msg}`);
    process.exit(code);
}

function parseArgs(argv) {
    const a = {model: null, input: null, threads: 1, runs: 10, warmup: 1, save: null, ort: null};
    const pos = [];
    for (let i = 0; i < argv.length; i++) {
        const k = argv[i];
        const need = () => (i + 1 < argv.length ? argv[++i] : fail(2, `${k} needs a value`));
        const int = (lo) => {
            const s = need(), v = Number(s);
            if (!Number.isInteger(v) || v < lo) fail(2, `${k} wants an integer >= ${lo} (got "${s}")`);
            return v;
        };
        if (k === '--threads') a.threads = int(1);
        else if (k === '--runs') a.runs = int(1);
        else if (k === '--warmup') a.warmup = int(0);
        else if (k === '--save-output') a.save = need();
        else if (k === '--ort') a.ort = need();
        else if (k.startsWith('-')) fail(2, `unknown option ${k}`);
        else pos.push(k);
    }
    if (pos.length !== 2) fail(2, 'usage: ort_bench.js MODEL.onnx INPUT.pb [--threads N] [--runs K] [--warmup W] [--save-output F]');
    [a.model, a.input] = pos;
    return a;
}

async function main() {
    const a = parseArgs(process.argv.slice(2));
    let ort;   // resolved from the repository's node_modules (walking up from here)
    const where = a.ort ? require('path').resolve(a.ort, 'node_modules', 'onnxruntime-node') : 'onnxruntime-node';
    try {
        ort = require(where);
    } catch (e) {
        fail(1, a.ort ? `no onnxruntime-node under ${a.ort}/node_modules`
                      : 'onnxruntime-node is not installed (npm install --no-save onnxruntime-node@1.17.0)');
    }
    let x;
    try {
        x = readTensor(a.input);
    } catch (e) {
        fail(2, e.message);
    }
    let session;
    try {
        session = await ort.InferenceSession.create(a.model, {
            graphOptimizationLevel: 'all',
            executionMode: 'sequential',
            intraOpNumThreads: a.threads,
            interOpNumThreads: 1,
        });
    } catch (e) {
        fail(1, `ONNX Runtime refused ${a.model}: ${e.message || e}`);
    }
    const feeds = {[session.inputNames[0]]: new ort.Tensor('float32', x.data, x.dims)};
    let out;
    for (let i = 0; i < a.warmup; i++) out = await session.run(feeds);
    const t = [];
    for (let i = 0; i < a.runs; i++) {
        const t0 = process.hrtime.bigint();
        out = await session.run(feeds);
        t.push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
    for (const v of t) console.log(`run_ms ${v.toFixed(3)}`);
    const s = t.slice().sort((p, q) => p - q);
    console.log(`latency_ms median=${s[Math.floor(s.length / 2)].toFixed(3)} min=${s[0].toFixed(3)} ` +
                `max=${s[s.length - 1].toFixed(3)} runs=${s.length}`);
    if (a.save) {
        const y = out[session.outputNames[0]].data;
        const tmp = `${a.save}.tmp.${process.pid}`;
        fs.writeFileSync(tmp, Buffer.from(y.buffer, y.byteOffset, y.byteLength));
        fs.renameSync(tmp, a.save);
    }
}

main().catch((e) => fail(1, e.message || String(e)));
