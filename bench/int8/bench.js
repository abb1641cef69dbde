#!/usr/bin/env node
// bench.js - the int8 benchmark (issue 41): on each network, ours in fp32 and
// in int8 (the executables `paleozoic build` makes of the float model and of
// the QDQ model `paleozoic quantize` writes) against ONNX Runtime 1.30 on the
// float model and on the same QDQ model, interleaved, at each thread count.
// run.sh prepares the models and executables, then calls this:
//
//   node bench.js --dir DIR --nets a,b --threads 1,2 --rounds R --runs K --out DIR
//
// DIR holds NET.onnx (float), NET.q.onnx (QDQ), NET.input.pb, NET.fp32 and
// NET.int8 (our executables). Per net and thread count a probe checks that
// our int8 output agrees with ORT's run of the QDQ model (cosine >= 0.999)
// and reports int8 against fp32 (cosine, top-1); then R rounds run each of the
// four once (K timed runs after a warm-up, one process each) and keep each
// process's median; the table gives the median over rounds and the ratios.
// Writes OUT/int8.md and OUT/int8.json.
'use strict';
const fs = require('fs');
const path = require('path');
const {spawnSync} = require('child_process');
const {readTensor} = require('../../tests/e2e/tensorproto');

const ORT = path.join(__dirname, '../transformers/ort130');
const ORT_TIME = path.join(__dirname, '../transformers/ort_time.js');

function fail(msg) { console.error(`bench/int8: error: ${msg}`); process.exit(1); }

function run(argv, what) {
    const r = spawnSync(argv[0], argv.slice(1), {encoding: 'utf8', maxBuffer: 1 << 26, timeout: 1800e3});
    if (r.status !== 0) fail(`${what}: exit ${r.status}: ${(r.stderr || '').slice(-400)}`);
    return r.stdout + r.stderr;
}
function latency(out, what) {
    const m = /latency_ms median=([0-9.]+)/.exec(out);
    if (!m) fail(`${what}: no latency_ms line in: ${out.slice(-300)}`);
    return parseFloat(m[1]);
}
const median = xs => { const s = [...xs].sort((a, b) => a - b); return s[s.length >> 1]; };
function cosine(a, b) {
    let ab = 0, aa = 0, bb = 0;
    for (let i = 0; i < a.length; i++) ab += a[i] * b[i], aa += a[i] * a[i], bb += b[i] * b[i];
    return ab / Math.sqrt(aa * bb);
}
const argmax = a => a.reduce((bi, v, i) => (v > a[bi] ? i : bi), 0);

function main() {
    const o = {dir: null, nets: 'resnet18', threads: '1,2', rounds: 5, runs: 10, out: 'bench/int8/out'};
    const a = process.argv.slice(2);
    for (let i = 0; i < a.length; i += 2) o[a[i].replace(/^--/, '')] = a[i + 1];
    const rows = [];
    for (const th of o.threads.split(',').map(Number))
        for (const net of o.nets.split(',')) {
            const d = o.dir, x = `${d}/${net}.input.pb`;
            const ours = (p, k, save) => [`${d}/${net}.${p}`, '--input', x, '--threads', `${th}`,
                                          '--repeat', `${k}`, ...(save ? ['--output', save] : [])];
            const ort = (m, k, save) => ['node', ORT_TIME, ORT, `${d}/${m}`, x, '--threads', `${th}`,
                                         '--runs', `${k}`, ...(save ? ['--save', save] : [])];
            // probe: agreement of the outputs
            run(ours('int8', 1, `${d}/${net}.pz8.pb`), `${net} ours int8`);
            run(ours('fp32', 1, `${d}/${net}.pz32.pb`), `${net} ours fp32`);
            run(ort(`${net}.q.onnx`, 1, `${d}/${net}.ort8.pb`), `${net} ORT int8`);
            const p8 = readTensor(`${d}/${net}.pz8.pb`).data, p32 = readTensor(`${d}/${net}.pz32.pb`).data;
            const o8 = readTensor(`${d}/${net}.ort8.pb`).data;
            const agree = cosine(p8, o8), acc = cosine(p8, p32);
            if (!(agree >= 0.999)) fail(`${net}: our int8 output against ORT's on the QDQ model: cosine ${agree}`);
            const t = {pz32: [], pz8: [], ort32: [], ort8: []};
            for (let r = 0; r < o.rounds; r++) {
                t.pz32.push(latency(run(ours('fp32', o.runs), `${net} ours fp32`), 'ours fp32'));
                t.pz8.push(latency(run(ours('int8', o.runs), `${net} ours int8`), 'ours int8'));
                t.ort32.push(latency(run(ort(`${net}.onnx`, o.runs), `${net} ORT fp32`), 'ORT fp32'));
                t.ort8.push(latency(run(ort(`${net}.q.onnx`, o.runs), `${net} ORT int8`), 'ORT int8'));
            }
            const row = {net, threads: th, ours_fp32_ms: median(t.pz32), ours_int8_ms: median(t.pz8),
                         ort_fp32_ms: median(t.ort32), ort_int8_ms: median(t.ort8),
                         cos_int8_vs_ort_int8: agree, cos_int8_vs_fp32: acc,
                         top1_same: argmax(p8) === argmax(p32)};
            rows.push(row);
            console.log(JSON.stringify(row));
        }
    const f = v => v.toFixed(2), r = v => v.toFixed(2) + 'x';
    const geo = xs => Math.exp(xs.reduce((s, v) => s + Math.log(v), 0) / xs.length);
    let md = '| net | threads | ours fp32 ms | ours int8 ms | ORT fp32 ms | ORT int8 ms | int8/fp32 (ours) | ORT int8 / ours int8 | ORT fp32 / ours int8 | cos(int8, ORT int8) | cos(int8, fp32) | top-1 |\n' +
             '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n';
    for (const w of rows)
        md += `| ${w.net} | ${w.threads} | ${f(w.ours_fp32_ms)} | ${f(w.ours_int8_ms)} | ${f(w.ort_fp32_ms)} | ` +
              `${f(w.ort_int8_ms)} | ${r(w.ours_fp32_ms / w.ours_int8_ms)} | ${r(w.ort_int8_ms / w.ours_int8_ms)} | ` +
              `${r(w.ort_fp32_ms / w.ours_int8_ms)} | ${w.cos_int8_vs_ort_int8.toFixed(5)} | ` +
              `${w.cos_int8_vs_fp32.toFixed(4)} | ${w.top1_same ? 'same' : 'differs'} |\n`;
    for (const th of [...new Set(rows.map(w => w.threads))]) {
        const rs = rows.filter(w => w.threads === th);
        md += `\ngeomean at ${th} thread(s): ours int8 vs fp32 ${r(geo(rs.map(w => w.ours_fp32_ms / w.ours_int8_ms)))}, ` +
              `vs ORT int8 ${r(geo(rs.map(w => w.ort_int8_ms / w.ours_int8_ms)))}, ` +
              `vs ORT fp32 ${r(geo(rs.map(w => w.ort_fp32_ms / w.ours_int8_ms)))}\n`;
    }
    fs.mkdirSync(o.out, {recursive: true});
    fs.writeFileSync(`${o.out}/int8.md`, md);
    fs.writeFileSync(`${o.out}/int8.json`, JSON.stringify(rows, null, 1));
    console.log(md);
}
main();
