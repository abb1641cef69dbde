#!/usr/bin/env node
// qdq_check.js - how close a quantized (QDQ) model stays to its float model
// in ONNX Runtime, and how close `paleozoic run` of the QDQ model stays to
// ONNX Runtime's run of it.
//
//   node tools/qdq_check.js FLOAT.onnx QDQ.onnx [--ort DIR] [--n 16] [--seed S]
//        [--shape 1,3,224,224] [--save DIR] [--ours DIR] [--min-cos C]
//
// Draws n seeded N(0,1) inputs (Box-Muller over xorshift32, seed S + i),
// runs both models in ORT (DIR: an onnxruntime-node package, default the
// repository's 1.17) and prints, over the n samples:
//   cosine(QDQ, float) min and mean, top-1 agreement, ORT's version;
// --save DIR writes DIR/in_i.pb (the inputs) and DIR/ort_i.pb (ORT's QDQ
// outputs); --ours DIR reads DIR/ours_i.pb (paleozoic run of the QDQ model
// on in_i.pb) and prints max|ours - ort| / max|ort|, the fraction of
// outputs with |ours - ort| <= 1e-3 max|ort| + 1e-5, the fraction within
// 1e-2 max|ort|, and top-1 agreement of ours with ORT's QDQ run.
// Exits 1 when the minimum cosine is below --min-cos (default 0).
'use strict';
const path = require('path');
const fs = require('fs');
const {readTensor, writeTensor} = require('../tests/e2e/tensorproto');

function parse(argv) {
    const a = {float: null, qdq: null, ort: path.join(__dirname, '../node_modules/onnxruntime-node'),
               n: 16, seed: 100, shape: [1, 3, 224, 224], save: null, ours: null, minCos: 0};
    const pos = [];
    for (let i = 0; i < argv.length; i++) {
        const k = argv[i], v = () => argv[++i];
        if (k === '--ort') a.ort = path.resolve(v());
        else if (k === '--n') a.n = parseInt(v(), 10);
        else if (k === '--seed') a.seed = parseInt(v(), 10);
        else if (k === '--shape') a.shape = v().split(',').map(Number);
        else if (k === '--save') a.save = v();
        else if (k === '--ours') a.ours = v();
        else if (k === '--min-cos') a.minCos = parseFloat(v());
        else pos.push(k);
    }
    [a.float, a.qdq] = pos;
    if (!a.float || !a.qdq) {
        console.error('usage: node tools/qdq_check.js FLOAT.onnx QDQ.onnx [--ort DIR] [--n N] ' +
                      '[--seed S] [--shape D0,..] [--save DIR] [--ours DIR] [--min-cos C]');
        process.exit(2);
    }
    return a;
}

function normal(seed, n) {
    let s = (seed * 2654435761 >>> 0) || 0x9e3779b9;
    const u = () => {
        s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
        return (s + 0.5) / 4294967296;
    };
    const x = new Float32Array(n);
    for (let i = 0; i < n; i++) x[i] = Math.sqrt(-2 * Math.log(u())) * Math.cos(2 * Math.PI * u());
    return x;
}

function cosine(a, b) {
    let ab = 0, aa = 0, bb = 0;
    for (let i = 0; i < a.length; i++) { ab += a[i] * b[i]; aa += a[i] * a[i]; bb += b[i] * b[i]; }
    return ab / Math.sqrt(aa * bb);
}

function argmax(a) {
    let k = 0;
    for (let i = 1; i < a.length; i++) if (a[i] > a[k]) k = i;
    return k;
}

async function main() {
    const a = parse(process.argv.slice(2));
    const ort = require(a.ort);
    const opts = {graphOptimizationLevel: 'all', executionMode: 'sequential', intraOpNumThreads: 2};
    const sf = await ort.InferenceSession.create(a.float, opts);
    const sq = await ort.InferenceSession.create(a.qdq, opts);
    const n = a.shape.reduce((x, y) => x * y, 1);
    let cmin = Infinity, csum = 0, agree = 0;
    let oursMax = 0, within = 0, within2 = 0, total = 0, oursAgree = 0;
    for (let i = 0; i < a.n; i++) {
        const x = normal(a.seed + i, n);
        const feed = {[sf.inputNames[0]]: new ort.Tensor('float32', x, a.shape)};
        const yf = (await sf.run(feed))[sf.outputNames[0]].data;
        const yq = (await sq.run({[sq.inputNames[0]]: feed[sf.inputNames[0]]}))[sq.outputNames[0]].data;
        const c = cosine(yf, yq);
        cmin = Math.min(cmin, c);
        csum += c;
        agree += argmax(yf) === argmax(yq);
        if (a.save) {
            fs.mkdirSync(a.save, {recursive: true});
            writeTensor(path.join(a.save, `in_${i}.pb`), sf.inputNames[0], 1, a.shape, x);
            writeTensor(path.join(a.save, `ort_${i}.pb`), sq.outputNames[0], 1, [1, yq.length], yq);
        }
        if (a.ours) {
            const yo = readTensor(path.join(a.ours, `ours_${i}.pb`)).data;
            let m = 0, d = 0;
            for (let j = 0; j < yq.length; j++) m = Math.max(m, Math.abs(yq[j]));
            for (let j = 0; j < yq.length; j++) {
                const e = Math.abs(yo[j] - yq[j]);
                d = Math.max(d, e);
                within += e <= 1e-3 * m + 1e-5;
                within2 += e <= 1e-2 * m;
            }
            total += yq.length;
            oursMax = Math.max(oursMax, d / m);
            oursAgree += argmax(yo) === argmax(yq);
        }
    }
    console.log(`ort ${ort.env.versions ? ort.env.versions.common : '?'}: cosine(qdq, float) ` +
                `min=${cmin.toFixed(5)} mean=${(csum / a.n).toFixed(5)} ` +
                `top1_agree=${agree}/${a.n}`);
    if (a.ours)
        console.log(`paleozoic run vs ort (qdq): max_rel=${oursMax.toExponential(3)} ` +
                    `within_1e-3=${(within / total).toFixed(5)} within_1e-2=${(within2 / total).toFixed(5)} ` +
                    `top1_agree=${oursAgree}/${a.n}`);
    if (!(cmin >= a.minCos)) process.exit(1);
}
main().catch(e => { console.error('qdq_check.js: ' + e.message); process.exit(1); });
