#!/usr/bin/env node
// vs_ort.js - our int8 executables against ONNX Runtime 1.30 and 1.17 on the
// same QDQ models (issue 41): per net and thread count, one `flock
// /tmp/pz_bench.lock` around R rounds of the three (order rotated each round,
// K timed runs a process), each process's median; the table gives the median
// over rounds, the ratios, the load average before and after, and the geomean.
//
//   node bench/int8/vs_ort.js [--dir build/int8] [--nets a,b] [--threads 1,2]
//                             [--rounds 5] [--runs 10]
//
// DIR as bench/int8/run.sh leaves it: NET.int8, NET.q.onnx, NET.input.pb.
// ORT 1.30: bench/transformers/ort130 (run.sh installs it); 1.17: the
// repository's node_modules.
'use strict';
const path = require('path');
const {spawnSync} = require('child_process');

const ROOT = path.join(__dirname, '../..');
const OT = path.join(ROOT, 'bench/transformers/ort_time.js');
const o = {dir: 'build/int8', nets: 'resnet18,resnet50,mobilenet_v2,vgg16,vgg19,alexnet',
           threads: '1,2', rounds: '5', runs: '10'};
const a = process.argv.slice(2);
for (let i = 0; i < a.length; i += 2) {
    const k = a[i].replace(/^--/, '');
    if (!(k in o) || a[i + 1] === undefined) {
        console.error(`vs_ort.js: unknown option or missing value: ${a[i]}`);
        process.exit(2);
    }
    o[k] = a[i + 1];
}
const med = xs => {
    const s = [...xs].sort((x, y) => x - y), n = s.length;
    return n % 2 ? s[n >> 1] : (s[n / 2 - 1] + s[n / 2]) / 2;
};
const q = s => `'${s.replace(/'/g, `'\\''`)}'`;
const rows = [];
console.log('| net | threads | ours int8 ms | ORT 1.30 int8 ms | ORT 1.17 int8 ms | ORT 1.30 / ours | ORT 1.17 / ours | load |');
console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
for (const th of o.threads.split(','))
    for (const net of o.nets.split(',')) {
        const d = path.resolve(o.dir), x = q(`${d}/${net}.input.pb`), m = q(`${d}/${net}.q.onnx`);
        const cmds = {
            ours: `${q(`${d}/${net}.int8`)} --input ${x} --threads ${th} --repeat ${o.runs}`,
            ort130: `node ${q(OT)} ${q(path.join(ROOT, 'bench/transformers/ort130'))} ${m} ${x} --threads ${th} --runs ${o.runs}`,
            ort117: `node ${q(OT)} ${q(ROOT)} ${m} ${x} --threads ${th} --runs ${o.runs}`,
        };
        const names = Object.keys(cmds);
        let sh = 'set -e; cut -d" " -f1 /proc/loadavg\n';
        for (let r = 0; r < +o.rounds; r++)
            for (let i = 0; i < 3; i++) {
                const n = names[(i + r) % 3];
                sh += `echo "@${n}"; ${cmds[n]} 2>&1 | grep latency_ms\n`;
            }
        sh += 'cut -d" " -f1 /proc/loadavg\n';
        const p = spawnSync('flock', ['/tmp/pz_bench.lock', 'sh', '-c', sh],
                            {encoding: 'utf8', maxBuffer: 1 << 24});
        if (p.status !== 0) {
            console.error(`vs_ort.js: ${net} at ${th} threads failed: ${(p.stderr || '').slice(-300)}`);
            process.exit(1);
        }
        const t = {ours: [], ort130: [], ort117: []}, loads = [];
        let cur = null;
        for (const l of p.stdout.split('\n')) {
            const mm = /median=([0-9.]+)/.exec(l);
            if (l.startsWith('@')) cur = l.slice(1);
            else if (mm) t[cur].push(+mm[1]);
            else if (/^[0-9.]+$/.test(l)) loads.push(l);
        }
        const r = {net, th, ours: med(t.ours), ort130: med(t.ort130), ort117: med(t.ort117)};
        rows.push(r);
        console.log(`| ${net} | ${th} | ${r.ours.toFixed(2)} | ${r.ort130.toFixed(2)} | ${r.ort117.toFixed(2)} | ` +
                    `${(r.ort130 / r.ours).toFixed(2)}x | ${(r.ort117 / r.ours).toFixed(2)}x | ${loads.join('-')} |`);
    }
for (const th of o.threads.split(',')) {
    const rs = rows.filter(r => r.th === th);
    const g = k => Math.exp(rs.reduce((s, r) => s + Math.log(r[k] / r.ours), 0) / rs.length);
    console.log(`\nGeomean at ${th} thread(s): ORT 1.30 / ours ${g('ort130').toFixed(2)}x, ORT 1.17 / ours ${g('ort117').toFixed(2)}x.`);
}
