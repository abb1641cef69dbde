#!/usr/bin/env node
// bench.js - the transformer benchmark (issue 42): ours against ONNX Runtime 1.30
// (the newest on npm, its transformer fusions on) and 1.17, side by side,
// interleaved, on the same inputs, at each thread count. run.sh prepares the
// peers, the models and our executables, then calls this:
//
//   node bench.js --pz PZ --models DIR --exe-dir DIR --nets a,b --threads 1,2
//                 --precisions fp32,bf16 --rounds R --runs K --out DIR --peak CMD
//
// Per net and thread count: a probe round checks that our first output agrees
// with ONNX Runtime 1.30's (max|ours - ort| / max|ort| <= 1e-3; bf16: 3e-2,
// int8-dynamic: 6e-2, and
// the cosine), then R rounds each run ours (one executable per precision:
// EXE_DIR/NET, EXE_DIR/NET.bf16), ORT 1.30 and ORT 1.17 (fp32) once (K timed runs after a warm-up in
// one process each) and keep each process's median; the table gives the median
// over rounds, GFLOP/s (MACs from `paleozoic inspect --json`), % of the FMA
// peak probed in the same run at that thread count, and the ratios. Writes
// OUT/transformers.md and OUT/transformers.json.
'use strict';
const fs = require('fs');
const path = require('path');
const {spawnSync} = require('child_process');
const {readTensor} = require('../../tests/e2e/tensorproto');

const HERE = __dirname;

function fail(msg) {
    console.error(`bench/transformers: error: ${msg}`);
    process.exit(1);
}

function args() {
    const o = {nets: ['vit_b_16', 'bert_base_128', 'bert_base_384'], threads: [1, 2], precisions: ['fp32'], rounds: 5,
               runs: 5, out: path.join(HERE, 'out')};
    const a = process.argv.slice(2);
    for (let i = 0; i < a.length; i++) {
        const k = a[i], v = a[++i];
        if (v === undefined) fail(`${k} needs a value`);
        if (k === '--pz') o.pz = v;
        else if (k === '--models') o.models = v;
        else if (k === '--exe-dir') o.exeDir = v;
        else if (k === '--nets') o.nets = v.split(',');
        else if (k === '--threads') o.threads = v.split(',').map(Number);
        else if (k === '--precisions') o.precisions = v.split(',');
        else if (k === '--rounds') o.rounds = Number(v);
        else if (k === '--runs') o.runs = Number(v);
        else if (k === '--out') o.out = v;
        else if (k === '--peak') o.peak = v;
        else fail(`unknown option ${k}`);
    }
    for (const k of ['pz', 'models', 'exeDir', 'peak']) if (!o[k]) fail(`--${k} is needed`);
    return o;
}

function run(argv, what) {
    const r = spawnSync(argv[0], argv.slice(1), {encoding: 'utf8', maxBuffer: 1 << 26, timeout: 1800e3});
    if (r.status !== 0)
        fail(`${what}: exit ${r.status}: ${((r.stderr || '') + (r.stdout || '')).slice(-600)}`);
    return r.stdout;
}

function latency(out, what) {
    const m = /latency_ms median=([0-9.]+)/.exec(out);
    if (!m) fail(`${what}: no latency_ms line in: ${out.slice(-300)}`);
    return Number(m[1]);
}

function median(xs) {
    const s = [...xs].sort((a, b) => a - b), n = s.length;
    return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

function inputsOf(o, net) {
    const ins = [];
    for (let k = 0; fs.existsSync(path.join(o.models, `${net}.in_${k}.pb`)); k++)
        ins.push(path.join(o.models, `${net}.in_${k}.pb`));
    if (!ins.length) fail(`${net}: no inputs ${net}.in_0.pb in ${o.models}`);
    return ins;
}

// max|a - b| / max|b| and the cosine of a and b
function agreement(a, b) {
    const x = readTensor(a).data, y = readTensor(b).data;
    if (x.length !== y.length) return {err: Infinity, cos: 0};
    let d = 0, m = 0, xy = 0, xx = 0, yy = 0;
    for (let i = 0; i < x.length; i++) {
        d = Math.max(d, Math.abs(x[i] - y[i]));
        m = Math.max(m, Math.abs(y[i]));
        xy += x[i] * y[i], xx += x[i] * x[i], yy += y[i] * y[i];
    }
    return {err: m > 0 ? d / m : d, cos: xx > 0 && yy > 0 ? xy / Math.sqrt(xx * yy) : 1};
}

function main() {
    const o = args();
    fs.mkdirSync(o.out, {recursive: true});
    const tmp = fs.mkdtempSync(path.join(o.out, '.probe-'));
    const rows = [];
    for (const th of o.threads) {
        const peak = Number(/total=([0-9.]+)/.exec(run([o.peak, '--threads', String(th)], 'peak probe'))[1]);
        for (const net of o.nets) for (const prec of o.precisions) {
            const model = path.join(o.models, `${net}.onnx`), ins = inputsOf(o, net);
            const exe = path.join(o.exeDir, prec === 'fp32' ? net : `${net}.${prec}`);
            const insArgs = ins.flatMap(f => ['--input', f]);
            const macs = JSON.parse(run([o.pz, 'inspect', '--json', model], 'inspect')).total.macs;
            const ours = (k, save) => [exe, ...insArgs, '--repeat', String(k), '--threads', String(th),
                                       ...(save ? ['--output', save] : [])];
            const ort = (dir, k, save) => [process.execPath, path.join(HERE, 'ort_time.js'), dir, model,
                                           ...ins, '--threads', String(th), '--runs', String(k),
                                           ...(save ? ['--save', save] : [])];
            const ort130 = path.join(HERE, 'ort130'), ort117 = path.join(HERE, '../..');
            // probe: the outputs agree
            const yo = path.join(tmp, 'ours.pb'), yr = path.join(tmp, 'ort.pb');
            run(ours(1, yo), `${net} ours`);
            run(ort(ort130, 1, yr), `${net} ORT 1.30`);
            const {err, cos} = agreement(yo, yr);
            // int8-dynamic: activations quantized per row, a few steps of 1/127
            if (!(err <= (prec === 'fp32' ? 1e-3 : prec.startsWith('int8') ? 6e-2 : 3e-2)))
                fail(`${net} ${prec}: ours and ORT 1.30 disagree: max err / max|ref| = ${err}`);
            const t = {ours: [], ort130: [], ort117: []};
            for (let r = 0; r < o.rounds; r++) {
                t.ours.push(latency(run(ours(o.runs), `${net} ours`), 'ours'));
                t.ort130.push(latency(run(ort(ort130, o.runs), `${net} ORT 1.30`), 'ORT 1.30'));
                t.ort117.push(latency(run(ort(ort117, o.runs), `${net} ORT 1.17`), 'ORT 1.17'));
            }
            const row = {net, precision: prec, threads: th, macs, peak_gflops: peak, err, cos,
                         ours_ms: median(t.ours), ort130_ms: median(t.ort130), ort117_ms: median(t.ort117),
                         rounds: t};
            row.gflops = 2 * macs / row.ours_ms / 1e6;
            row.pct_peak = 100 * row.gflops / peak;
            rows.push(row);
            console.log(`${net} ${prec} @${th}t: ours ${row.ours_ms.toFixed(1)} ms (${row.pct_peak.toFixed(0)}% of peak), ` +
                        `ORT 1.30 ${row.ort130_ms.toFixed(1)} (${(row.ort130_ms / row.ours_ms).toFixed(2)}x), ` +
                        `ORT 1.17 ${row.ort117_ms.toFixed(1)} (${(row.ort117_ms / row.ours_ms).toFixed(2)}x)`);
        }
    }
    fs.rmSync(tmp, {recursive: true, force: true});
    const md = ['| net | ours | threads | ours ms | GFLOP/s | % fp32 peak | ORT 1.30 ms | ORT 1.30 / ours | ORT 1.17 ms | ORT 1.17 / ours | cosine to ORT |',
                '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
                ...rows.map(r => `| ${r.net} | ${r.precision} | ${r.threads} | ${r.ours_ms.toFixed(1)} | ${r.gflops.toFixed(0)} | ` +
                            `${r.pct_peak.toFixed(0)} | ${r.ort130_ms.toFixed(1)} | ${(r.ort130_ms / r.ours_ms).toFixed(2)}x | ` +
                            `${r.ort117_ms.toFixed(1)} | ${(r.ort117_ms / r.ours_ms).toFixed(2)}x | ${r.cos.toFixed(6)} |`)];
    fs.writeFileSync(path.join(o.out, 'transformers.md'), md.join('\n') + '\n');
    fs.writeFileSync(path.join(o.out, 'transformers.json'), JSON.stringify(rows, null, 1) + '\n');
    console.log(md.join('\n'));
}

main();
