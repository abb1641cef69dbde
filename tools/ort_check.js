#!/usr/bin/env node
// ort_check.js - loads an ONNX model in ONNX Runtime (onnxruntime-node), runs it on a
// seeded random input, and prints the output's shape, a few values and statistics.
// Exits 1 if ORT refuses the model or any output value is not finite.
//
//   node tools/ort_check.js MODEL.onnx [--seed N] [--save-input F] [--save-output F]
//
// Every graph input (float32, shape [1,3,224,224] or $ORT_CHECK_SHAPE) gets values U(-sqrt3, sqrt3) (mean 0,
// variance 1) from a seeded xorshift generator; --save-* write raw little-endian
// float32 (the first input, the first output) for comparison with other runtimes.
// Setup: npm install --no-save onnxruntime-node@1.17.0
'use strict';
const fs = require('fs');
const ort = require('onnxruntime-node');

function usage() {
    console.error('usage: node tools/ort_check.js MODEL.onnx [--seed N] [--save-input F] [--save-output F]');
    process.exit(2);
}

function parseArgs(argv) {
    const a = {model: null, seed: 1, saveInput: null, saveOutput: null};
    for (let i = 0; i < argv.length; i++) {
        const k = argv[i];
        const need = () => (i + 1 < argv.length ? argv[++i] : usage());
        if (k === '--seed') a.seed = parseInt(need(), 10);
        else if (k === '--save-input') a.saveInput = need();
        else if (k === '--save-output') a.saveOutput = need();
        else if (k.startsWith('-') || a.model) usage();
        else a.model = k;
    }
    if (!a.model || !Number.isFinite(a.seed)) usage();
    return a;
}

// xorshift32 -> U[0, 1)
function rng(seed) {
    let s = (seed >>> 0) || 0x9e3779b9;
    return () => {
        s ^= s << 13; s >>>= 0;
        s ^= s >>> 17;
        s ^= s << 5; s >>>= 0;
        return s / 4294967296;
    };
}

function stats(data) {
    let min = Infinity, max = -Infinity, sum = 0, sq = 0, bad = 0;
    for (const v of data) {
        if (!Number.isFinite(v)) { bad++; continue; }
        if (v < min) min = v;
        if (v > max) max = v;
        sum += v;
        sq += v * v;
    }
    const n = data.length - bad;
    const mean = n ? sum / n : NaN;
    return {min, max, mean, std: n ? Math.sqrt(Math.max(sq / n - mean * mean, 0)) : NaN, bad};
}

async function main() {
    const a = parseArgs(process.argv.slice(2));
    const t0 = Date.now();
    const session = await ort.InferenceSession.create(a.model, {graphOptimizationLevel: 'all'});
    const t1 = Date.now();
    // The Node API does not expose declared input shapes: the zoo's networks take
    // [1,3,224,224]; set ORT_CHECK_SHAPE=D0,D1,... for other models.
    const shape = (process.env.ORT_CHECK_SHAPE || '1,3,224,224').split(',').map(Number);
    const next = rng(a.seed);
    const feeds = {};
    let first = null;
    for (const name of session.inputNames) {
        const n = shape.reduce((x, y) => x * y, 1);
        const buf = new Float32Array(n);
        for (let i = 0; i < n; i++) buf[i] = (2 * next() - 1) * Math.sqrt(3);
        feeds[name] = new ort.Tensor('float32', buf, shape);
        if (!first) first = buf;
    }
    if (a.saveInput) fs.writeFileSync(a.saveInput, Buffer.from(first.buffer));
    const results = await session.run(feeds);
    const t2 = Date.now();
    let ok = true;
    session.outputNames.forEach((name, k) => {
        const out = results[name];
        const s = stats(out.data);
        const head = Array.from(out.data.slice(0, 5)).map((v) => v.toPrecision(6)).join(' ');
        console.log(`output ${name}: ${out.type} [${out.dims.join(',')}]  first: ${head}`);
        console.log(`  min ${s.min.toPrecision(5)} max ${s.max.toPrecision(5)} mean ` +
                    `${s.mean.toPrecision(5)} std ${s.std.toPrecision(5)}  non-finite: ${s.bad}`);
        if (s.bad) ok = false;
        if (k === 0 && a.saveOutput) fs.writeFileSync(a.saveOutput, Buffer.from(out.data.buffer));
    });
    console.log(`${ok ? 'ok' : 'FAIL'}: ${a.model} (load ${t1 - t0} ms, run ${t2 - t1} ms)`);
    process.exit(ok ? 0 : 1);
}

main().catch((e) => {
    console.error(`ort_check: ${e.message || e}`);
    process.exit(1);
});
