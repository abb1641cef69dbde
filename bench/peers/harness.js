#!/usr/bin/env node
// harness.js - the peer benchmark: ONNX Runtime 1.17 against our executable, side
// by side, interleaved, on the same input. bench/peers/run.sh prepares what this
// needs (ORT installed, paleozoic built, the peak program built) and runs it; see
// run.sh for the options.
//
// For each thread count T and each network:
//   1. ours is built once: `paleozoic build MODEL -o EXE --strategy S --threads T`
//      (until `build` exists: `paleozoic run MODEL ... --threads T`, in-process,
//      labelled so in every output);
//   2. a probe round: each engine runs once on the input, its first output is
//      saved, and the two outputs are compared (max |ours - ort| / max |ort|
//      must be <= --tol, default 1e-3: timing a wrong answer is meaningless);
//      the probe's time sets the runs per round, so that a round of each engine
//      takes about --round-time seconds (at least 1 run, at most 200);
//   3. --rounds rounds, each one ORT process and one of ours, alternating which
//      goes first; every process is a fresh one under /usr/bin/time -f %M (peak
//      RSS) and `timeout`; each prints `latency_ms median=X ...` after one
//      untimed warm-up run;
//   4. the FMA peak at T threads is probed (bench/peers/peak) before each
//      network, so that "% of peak" is measured in the same run, under the
//      same load.
// An engine's time is the median of its per-round medians; its RSS the highest
// of its processes. GFLOP/s = 2 x MACs (`paleozoic inspect --json`) / time.
//
// Output: the tables on stdout and, in --out (default bench/peers/out),
// peers.json, peers.md and peers.svg, written to temporary names and renamed only
// when the whole run succeeded (with --keep-going, failed networks are rows
// marked FAILED, the files say "complete": false, and the exit code is 1).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const {spawnSync} = require('child_process');
const {readTensor, writeTensor} = require('./tensor_pb');

const ROOT = path.resolve(__dirname, '..', '..');
const ALL_NETS = ['resnet18', 'resnet50', 'vgg16', 'vgg19', 'alexnet', 'mobilenet_v2'];
// by name only (--nets): other torchvision classifiers, from export_torchvision.py
const MORE_NETS = ['regnet_y_400mf', 'resnext50_32x4d', 'mobilenet_v3_small', 'efficientnet_b0',
                   'shufflenet_v2_x1_0', 'squeezenet1_0', 'densenet121', 'googlenet'];
// by name only (--nets): recurrent networks, from bench/peers/lstm_model.py
// (PyTorch): lstm2_h256 is nn.LSTM(64, 256, 2) over 100 steps, batch 1
const RNN_NETS = ['lstm2_h256'];

class BenchError extends Error {}

function die(msg, code = 1) {
    console.error(`bench/peers: error: ${msg}`);
    process.exit(code);
}

// ---- options ---------------------------------------------------------------

function usage() {
    console.error(
        'usage: bench/peers/run.sh [--quick] [--nets a,b,...] [--threads 1,2] [--rounds R]\n' +
        '           [--round-time S] [--out DIR] [--build DIR] [--models DIR] [--strategy S]\n' +
        '           [--tol X] [--timeout S] [--keep-going] [--no-make] [--ort DIR]');
    process.exit(2);
}

function parseArgs(argv) {
    const o = {
        nets: ALL_NETS.slice(), threads: [1, 2], rounds: 5, roundTime: 3, quick: false,
        out: path.join(ROOT, 'bench', 'peers', 'out'), build: path.join(ROOT, 'build'),
        models: path.join(ROOT, 'build', 'test-models'), strategy: null, tol: 1e-3, timeout: 900,
        keepGoing: false, ort: null,
    };
    let netsGiven = false, roundsGiven = false, timeGiven = false;
    for (let i = 0; i < argv.length; i++) {
        const k = argv[i];
        const need = () => (i + 1 < argv.length ? argv[++i] : die(`${k} needs a value`, 2));
        const num = (lo) => {
            const s = need(), v = Number(s);
            if (!Number.isFinite(v) || v < lo) die(`${k} wants a number >= ${lo} (got "${s}")`, 2);
            return v;
        };
        if (k === '--quick') o.quick = true;
        else if (k === '--keep-going') o.keepGoing = true;
        else if (k === '--no-make') { /* run.sh's */ }
        else if (k === '--nets') {
            o.nets = need().split(',').filter(Boolean);
            netsGiven = true;
            for (const n of o.nets)
                if (!ALL_NETS.includes(n) && !MORE_NETS.includes(n) && !RNN_NETS.includes(n))
                    die(`--nets: unknown network "${n}" (known: ${ALL_NETS.concat(MORE_NETS, RNN_NETS).join(' ')})`, 2);
        } else if (k === '--threads') {
            o.threads = need().split(',').map(Number);
            if (!o.threads.length || o.threads.some((t) => !Number.isInteger(t) || t < 1 || t > 256))
                die('--threads wants a list of positive integers, e.g. 1,2', 2);
        } else if (k === '--rounds') { o.rounds = Math.round(num(1)); roundsGiven = true; }
        else if (k === '--round-time') { o.roundTime = num(0); timeGiven = true; }
        else if (k === '--out') o.out = path.resolve(need());
        else if (k === '--build') o.build = path.resolve(need());
        else if (k === '--models') o.models = path.resolve(need());
        else if (k === '--strategy') o.strategy = need();
        else if (k === '--tol') o.tol = num(0);
        else if (k === '--ort') o.ort = path.resolve(need());
        else if (k === '--timeout') o.timeout = Math.round(num(1));
        else if (k === '-h' || k === '--help') usage();
        else die(`unknown option ${k}`, 2);
    }
    if (o.quick) {
        // a smoke run: two small networks, short rounds
        if (!netsGiven) o.nets = ['resnet18', 'mobilenet_v2'];
        if (!roundsGiven) o.rounds = 2;
        if (!timeGiven) o.roundTime = 0.5;
    }
    return o;
}

// ---- processes ----------------------------------------------------------------

// Runs argv[0] with argv[1..] under `timeout` and /usr/bin/time; returns
// {rc, stdout, stderr, rssKb, timedOut}.
function runMeasured(argv, o, cwd = ROOT) {
    const rssFile = path.join(os.tmpdir(), `peers-rss-${process.pid}-${Math.random().toString(36).slice(2)}`);
    // timeout starts its own process group and kills all of it
    const r = spawnSync('timeout', ['-s', 'KILL', String(o.timeout), '/usr/bin/time', '-f', '%M', '-o', rssFile, ...argv],
                        {cwd, encoding: 'utf8', maxBuffer: 64 << 20});
    let rssKb = NaN;
    try {
        const lines = fs.readFileSync(rssFile, 'utf8').trim().split('\n');
        rssKb = Number(lines[lines.length - 1]);
        fs.unlinkSync(rssFile);
    } catch (e) { /* killed before time wrote it */ }
    return {rc: r.status, stdout: r.stdout || '', stderr: r.stderr || '', rssKb,
            timedOut: r.status === 137 || r.status === 124 || r.signal === 'SIGKILL'};
}

function run(argv, what, cwd = ROOT) {
    const r = spawnSync(argv[0], argv.slice(1), {cwd, encoding: 'utf8', maxBuffer: 256 << 20});
    if (r.error) throw new BenchError(`${what}: cannot run ${argv[0]}: ${r.error.message}`);
    return r;
}

function lastLines(s, n = 4) {
    return s.trim().split('\n').slice(-n).join(' | ');
}

// `latency_ms median=X min=Y max=Z runs=N` -> {median, min, max, runs}
function parseLatency(out, what) {
    const m = /latency_ms median=([0-9.]+) min=([0-9.]+) max=([0-9.]+) runs=([0-9]+)/.exec(out);
    if (!m) throw new BenchError(`${what}: no "latency_ms ..." line in its output`);
    return {median: +m[1], min: +m[2], max: +m[3], runs: +m[4]};
}

function median(v) {
    const s = v.slice().sort((a, b) => a - b), n = s.length;
    return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

function geomean(v) {
    return v.length ? Math.exp(v.reduce((a, x) => a + Math.log(x), 0) / v.length) : NaN;
}

// ---- preparation -------------------------------------------------------------

// models/NAME.onnx and NAME.input.pb: from tools/export_torchvision.py when
// PyTorch is there, else `paleozoic zoo` plus a seeded input written here.
function ensureModel(o, name, pz) {
    const onnx = path.join(o.models, `${name}.onnx`), input = path.join(o.models, `${name}.input.pb`);
    if (fs.existsSync(onnx) && fs.existsSync(input)) return {onnx, input};
    fs.mkdirSync(o.models, {recursive: true});
    const exporter = path.join(ROOT, 'tools', 'export_torchvision.py');
    const py = process.env.PYTHON || '/usr/bin/python3';
    if (RNN_NETS.includes(name)) {
        console.log(`  exporting ${name} with bench/peers/lstm_model.py`);
        const r = run([py, path.join(__dirname, 'lstm_model.py'), o.models], 'lstm_model.py');
        if (r.status !== 0) throw new BenchError(`lstm_model.py failed: ${lastLines(r.stderr)}`);
        return {onnx, input};
    }
    if (!fs.existsSync(onnx) && fs.existsSync(exporter) &&
        run([py, '-c', 'import torch, torchvision, onnx'], 'python').status === 0) {
        console.log(`  exporting ${name} with tools/export_torchvision.py`);
        const r = run([py, exporter, o.models, name], 'export_torchvision.py');
        if (r.status !== 0) throw new BenchError(`export_torchvision.py ${name} failed: ${lastLines(r.stderr)}`);
    }
    if (!fs.existsSync(onnx) && MORE_NETS.includes(name))
        throw new BenchError(`${name}: no ${onnx}, and only tools/export_torchvision.py (PyTorch) makes it`);
    if (!fs.existsSync(onnx)) {
        console.log(`  writing ${name} with paleozoic zoo`);
        const tmp = `${onnx}.tmp.${process.pid}`;
        const r = run([pz, 'zoo', name, '-o', tmp], 'paleozoic zoo');
        if (r.status !== 0) {
            fs.rmSync(tmp, {force: true});
            throw new BenchError(`paleozoic zoo ${name} failed: ${lastLines(r.stderr)}`);
        }
        fs.renameSync(tmp, onnx);
    }
    if (!fs.existsSync(input)) {
        // a seeded U(-sqrt3, sqrt3) input (mean 0, variance 1) of [1,3,224,224]
        let s = 0x9e3779b9 >>> 0;
        const x = new Float32Array(3 * 224 * 224);
        for (let i = 0; i < x.length; i++) {
            s ^= s << 13; s >>>= 0; s ^= s >>> 17; s ^= s << 5; s >>>= 0;
            x[i] = (2 * (s / 4294967296) - 1) * Math.sqrt(3);
        }
        writeTensor(input, 'input', [1, 3, 224, 224], x);
    }
    return {onnx, input};
}

function macsOf(pz, onnx) {
    const r = run([pz, 'inspect', '--json', onnx], 'paleozoic inspect');
    if (r.status !== 0) throw new BenchError(`paleozoic inspect ${onnx}: ${lastLines(r.stderr)}`);
    let j;
    try {
        j = JSON.parse(r.stdout);
    } catch (e) {
        throw new BenchError(`paleozoic inspect --json ${onnx}: not JSON (${e.message})`);
    }
    if (!j.total || !(j.total.macs > 0)) throw new BenchError(`paleozoic inspect --json ${onnx}: no total.macs`);
    return j.total.macs;
}

function probePeak(o, threads) {
    const r = run([o.peak, '--threads', String(threads), '--ms', '150'], 'peak');
    const m = /total=([0-9.]+)/.exec(r.stdout);
    if (r.status !== 0 || !m) throw new BenchError(`the peak program failed: ${lastLines(r.stderr + r.stdout)}`);
    return +m[1];
}

// How ours is run: 'build' (the executable) or 'run' (paleozoic run, in-process),
// and with which --strategy. Decided once, on the first network.
function decideOurs(o, pz, model, work) {
    const want = o.strategy || process.env.PZ_PEERS_STRATEGY || 'best';
    const exe = path.join(work, 'probe-build');
    const tryBuild = (strategy) => run([pz, 'build', model, '-o', exe, ...(strategy ? ['--strategy', strategy] : [])], 'paleozoic build');
    let r = tryBuild(want);
    let strategy = want;
    const unknownStrategy = (s) => /unknown strategy|strateg.*(not|un)known/i.test(s);
    if (r.status !== 0 && /not implemented/i.test(r.stderr)) {
        // no `build` yet: paleozoic run, which takes the same knobs
        const rr = run([pz, 'run', model, '--repeat', '1', ...(want ? ['--strategy', want] : [])], 'paleozoic run');
        if (rr.status !== 0 && unknownStrategy(rr.stderr) && !o.strategy) strategy = null;
        else if (rr.status !== 0) throw new BenchError(`paleozoic run ${model} --strategy ${want}: ${lastLines(rr.stderr)}`);
        const label = `paleozoic run (in-process; \`build\` is not implemented yet), strategy ${strategy || 'default (fixed-mp; "best" unknown)'}`;
        return {mode: 'run', strategy, label};
    }
    if (r.status !== 0 && unknownStrategy(r.stderr) && !o.strategy) {
        strategy = null;
        r = tryBuild(null);
    }
    if (r.status !== 0) throw new BenchError(`paleozoic build ${model}: ${lastLines(r.stderr)}`);
    fs.rmSync(exe, {force: true});
    return {mode: 'build', strategy,
            label: `executable from paleozoic build --strategy ${strategy || 'default ("best" unknown)'}`};
}

// ---- one network at one thread count -----------------------------------------------

// The argv that runs ours R times (+ warm-up) at T threads, writing its output
// to outPb when given.
function oursArgv(o, ours, net, exe, threads, runs, outPb) {
    const io = ['--input', net.input, ...(outPb ? ['--output', outPb] : []), '--repeat', String(runs), '--threads', String(threads)];
    if (ours.mode === 'build') return [exe, ...io];
    return [o.pz, 'run', net.onnx, ...io, ...(ours.strategy ? ['--strategy', ours.strategy] : [])];
}

function ortArgv(o, net, threads, runs, outRaw) {
    return [process.execPath, path.join(__dirname, 'ort_bench.js'), net.onnx, net.input, '--threads', String(threads),
            '--runs', String(runs), ...(outRaw ? ['--save-output', outRaw] : []), ...(o.ort ? ['--ort', o.ort] : [])];
}

function measureOnce(argv, what, o) {
    const r = runMeasured(argv, o);
    if (r.timedOut) throw new BenchError(`${what}: killed after ${o.timeout} s (--timeout)`);
    if (r.rc !== 0) throw new BenchError(`${what}: exit code ${r.rc}: ${lastLines(r.stderr)}`);
    return {lat: parseLatency(r.stdout, what), rssKb: r.rssKb};
}

function benchNet(o, ours, net, threads, work) {
    const tag = `${net.name} @${threads}t`;
    let exe = null;
    if (ours.mode === 'build') {
        exe = path.join(work, `${net.name}-t${threads}`);
        const r = run([o.pz, 'build', net.onnx, '-o', exe, '--threads', String(threads),
                       ...(ours.strategy ? ['--strategy', ours.strategy] : [])], 'paleozoic build');
        if (r.status !== 0) throw new BenchError(`${tag}: paleozoic build: ${lastLines(r.stderr)}`);
    }
    const peak = probePeak(o, threads);

    // probe round: one run each, outputs compared
    const ortRaw = path.join(work, `${net.name}.ort.raw`), oursPb = path.join(work, `${net.name}.ours.pb`);
    const p0 = measureOnce(ortArgv(o, net, threads, 1, ortRaw), `${tag} ONNX Runtime`, o);
    const p1 = measureOnce(oursArgv(o, ours, net, exe, threads, 1, oursPb), `${tag} ours`, o);
    const buf = fs.readFileSync(ortRaw);
    const ref = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
    const got = readTensor(oursPb).data;
    if (got.length !== ref.length)
        throw new BenchError(`${tag}: ours gives ${got.length} output values, ONNX Runtime ${ref.length}`);
    let dmax = 0, rmax = 0;
    for (let i = 0; i < ref.length; i++) {
        const d = Math.abs(got[i] - ref[i]);
        if (!(d <= dmax)) dmax = Number.isNaN(d) ? Infinity : d;
        rmax = Math.max(rmax, Math.abs(ref[i]));
    }
    const err = rmax > 0 ? dmax / rmax : dmax;
    if (!(err <= o.tol))
        throw new BenchError(`${tag}: outputs disagree: max |ours - ort| / max |ort| = ${err.toExponential(2)} > --tol ${o.tol}`);

    // runs per round from the probe (its time includes no load: latency only)
    const perRound = (ms) => Math.max(1, Math.min(200, Math.ceil(o.roundTime * 1000 / Math.max(ms, 1e-3))));
    const rOrt = perRound(p0.lat.median), rOurs = perRound(p1.lat.median);
    const res = {ort: {med: [], rss: [p0.rssKb], runs: rOrt}, ours: {med: [], rss: [p1.rssKb], runs: rOurs}, peaks: [peak]};
    for (let k = 0; k < o.rounds; k++) {
        const order = k % 2 === 0 ? ['ort', 'ours'] : ['ours', 'ort'];
        for (const e of order) {
            const m = e === 'ort'
                ? measureOnce(ortArgv(o, net, threads, rOrt, null), `${tag} ONNX Runtime`, o)
                : measureOnce(oursArgv(o, ours, net, exe, threads, rOurs, null), `${tag} ours`, o);
            res[e].med.push(m.lat.median);
            res[e].rss.push(m.rssKb);
        }
        if (process.stdout.isTTY) process.stdout.write(`\r  ${tag}: round ${k + 1}/${o.rounds}`);
    }
    res.peaks.push(probePeak(o, threads));
    process.stdout.write(`${process.stdout.isTTY ? '\r' : ''}  ${tag}: ${o.rounds} rounds done\n`);
    if (exe) fs.rmSync(exe, {force: true});
    const peakMed = median(res.peaks);
    const row = {network: net.name, threads, macs: net.macs, check_err: err, peak_gflops: peakMed};
    for (const e of ['ort', 'ours']) {
        const ms = median(res[e].med);
        const gf = 2 * net.macs / (ms * 1e-3) * 1e-9;
        row[e] = {median_ms: ms, round_medians_ms: res[e].med, runs_per_round: res[e].runs, gflops: gf,
                  pct_peak: 100 * gf / peakMed, rss_mb: Math.max(...res[e].rss.filter(Number.isFinite)) / 1024};
    }
    row.ratio = row.ort.median_ms / row.ours.median_ms;
    return row;
}

// ---- reports ---------------------------------------------------------------------

function fmt(v, d) {
    return Number.isFinite(v) ? v.toFixed(d) : '-';
}

function tableLines(rows, threads, summary) {
    const head = ['network', 'ORT ms', 'ours ms', 'ORT GFLOP/s', 'ours GFLOP/s', 'ORT %peak', 'ours %peak',
                  'ORT RSS MB', 'ours RSS MB', 'ORT/ours', 'check'];
    const body = rows.filter((r) => r.threads === threads).map((r) => r.failed
        ? [r.network, 'FAILED', r.failed, '', '', '', '', '', '', '', '']
        : [r.network, fmt(r.ort.median_ms, 2), fmt(r.ours.median_ms, 2), fmt(r.ort.gflops, 1), fmt(r.ours.gflops, 1),
           fmt(r.ort.pct_peak, 1), fmt(r.ours.pct_peak, 1), fmt(r.ort.rss_mb, 0), fmt(r.ours.rss_mb, 0),
           fmt(r.ratio, 3), r.check_err.toExponential(1)]);
    const s = summary[threads];
    body.push(['geomean', '', '', '', '', '', '', '', '', fmt(s.geomean_ratio, 3), '']);
    return {head, body};
}

function markdown(res) {
    const out = [`# Peer benchmark: ONNX Runtime ${res.ort_version} vs Paleozoic`, '',
                 `- ours: ${res.ours}`, `- peer: ONNX Runtime ${res.ort_version} (onnxruntime-node), graph optimization 'all', sequential, intra-op threads = T`,
                 `- ${res.rounds} interleaved rounds per network, each a fresh process of each engine; time = median of the per-round medians; RSS = peak over the processes`,
                 `- batch 1, the input models/NAME.input.pb for both; outputs checked to agree (max |ours - ort| / max |ort| <= ${res.tol})`,
                 `- ${res.date}, ${res.cpu}, load average at start ${res.loadavg}`, ''];
    for (const t of res.threads) {
        const {head, body} = tableLines(res.rows, t, res.summary);
        out.push(`## ${t} thread${t > 1 ? 's' : ''} (FMA peak measured in this run: ${fmt(res.summary[t].peak_gflops, 1)} GFLOP/s)`, '');
        out.push(`| ${head.join(' | ')} |`, `|${head.map(() => ' --- ').join('|')}|`);
        for (const b of body) out.push(`| ${b.join(' | ')} |`);
        out.push('');
    }
    if (!res.complete) out.push('**Incomplete: some networks failed (rows marked FAILED).**', '');
    return out.join('\n');
}

function printTables(res) {
    for (const t of res.threads) {
        const {head, body} = tableLines(res.rows, t, res.summary);
        console.log(`\n${t} thread${t > 1 ? 's' : ''}: ORT ${res.ort_version} vs ours (${res.ours}); FMA peak ${fmt(res.summary[t].peak_gflops, 1)} GFLOP/s`);
        const w = head.map((h, i) => Math.max(h.length, ...body.map((b) => String(b[i]).length)));
        const line = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(w[i]) : String(c).padStart(w[i]))).join('  ');
        console.log(line(head));
        for (const b of body) console.log(line(b));
    }
}

function esc(s) {
    return String(s).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

// A grouped bar chart, one panel per thread count: GFLOP/s of each engine per
// network, the ratio ORT/ours above each pair, the peak as a dashed line.
function svg(res) {
    const W = 880, panelH = 300, top = 50, left = 60, right = 20, gap = 60;
    const H = top + res.threads.length * (panelH + gap);
    const o = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="sans-serif" font-size="12">`,
               `<rect width="${W}" height="${H}" fill="white"/>`,
               `<text x="${W / 2}" y="22" text-anchor="middle" font-size="16">${esc(`GFLOP/s, batch 1: ONNX Runtime ${res.ort_version} vs Paleozoic`)}</text>`,
               `<rect x="${W - 250}" y="30" width="12" height="12" fill="#7f7f7f"/><text x="${W - 234}" y="40">ONNX Runtime</text>`,
               `<rect x="${W - 140}" y="30" width="12" height="12" fill="#1f77b4"/><text x="${W - 124}" y="40">ours</text>`];
    res.threads.forEach((t, pi) => {
        const rows = res.rows.filter((r) => r.threads === t);
        const y0 = top + pi * (panelH + gap) + 20, ph = panelH - 40, pw = W - left - right;
        const peak = res.summary[t].peak_gflops;
        const vmax = Math.max(peak || 0, ...rows.filter((r) => !r.failed).map((r) => Math.max(r.ort.gflops, r.ours.gflops)), 1) * 1.1;
        const Y = (v) => y0 + ph - (v / vmax) * ph;
        o.push(`<text x="${left}" y="${y0 - 6}" font-size="14">${t} thread${t > 1 ? 's' : ''} (geomean ORT/ours ${fmt(res.summary[t].geomean_ratio, 2)})</text>`);
        for (let k = 0; k <= 4; k++) {
            const v = vmax * k / 4;
            o.push(`<line x1="${left}" x2="${left + pw}" y1="${Y(v).toFixed(1)}" y2="${Y(v).toFixed(1)}" stroke="#ddd"/>`,
                   `<text x="${left - 6}" y="${(Y(v) + 4).toFixed(1)}" text-anchor="end">${v.toFixed(0)}</text>`);
        }
        if (peak) o.push(`<line x1="${left}" x2="${left + pw}" y1="${Y(peak).toFixed(1)}" y2="${Y(peak).toFixed(1)}" stroke="#d62728" stroke-dasharray="6,4"/>`,
                         `<text x="${left + pw}" y="${(Y(peak) - 4).toFixed(1)}" text-anchor="end" fill="#d62728">FMA peak ${peak.toFixed(0)}</text>`);
        const slot = pw / Math.max(rows.length, 1), bw = Math.min(40, slot / 3);
        rows.forEach((r, i) => {
            const cx = left + slot * (i + 0.5);
            o.push(`<text x="${cx.toFixed(1)}" y="${y0 + ph + 16}" text-anchor="middle">${esc(r.network)}</text>`);
            if (r.failed) {
                o.push(`<text x="${cx.toFixed(1)}" y="${y0 + ph - 10}" text-anchor="middle" fill="#d62728">FAILED</text>`);
                return;
            }
            [['ort', '#7f7f7f', -bw], ['ours', '#1f77b4', 0]].forEach(([e, col, dx]) => {
                const v = r[e].gflops, y = Y(v);
                o.push(`<rect x="${(cx + dx).toFixed(1)}" y="${y.toFixed(1)}" width="${bw.toFixed(1)}" height="${(y0 + ph - y).toFixed(1)}" fill="${col}"><title>${esc(`${e === 'ort' ? 'ONNX Runtime' : 'ours'} ${r.network}: ${fmt(r[e].median_ms, 2)} ms, ${fmt(v, 1)} GFLOP/s`)}</title></rect>`);
            });
            const ytop = Y(Math.max(r.ort.gflops, r.ours.gflops)) - 6;
            o.push(`<text x="${cx.toFixed(1)}" y="${ytop.toFixed(1)}" text-anchor="middle" fill="${r.ratio >= 1 ? '#2ca02c' : '#d62728'}">${fmt(r.ratio, 2)}x</text>`);
        });
        o.push(`<line x1="${left}" x2="${left + pw}" y1="${y0 + ph}" y2="${y0 + ph}" stroke="black"/>`);
    });
    o.push('</svg>');
    return o.join('\n') + '\n';
}

// ---- main ----------------------------------------------------------------------------

function main() {
    const o = parseArgs(process.argv.slice(2));
    const loadStart = os.loadavg().map((v) => v.toFixed(2)).join(' ');
    o.pz = path.join(o.build, 'paleozoic');
    o.peak = process.env.PZ_PEERS_PEAK || path.join(o.build, 'bench_peers_peak');
    for (const [f, what] of [[o.pz, 'paleozoic'], [o.peak, 'the peak program']])
        if (!fs.existsSync(f)) die(`${what} is not built: ${f} (run bench/peers/run.sh, which builds it)`);
    if (!fs.existsSync('/usr/bin/time')) die('/usr/bin/time is missing (apt-get install time)');
    let ortVersion;
    try {
        ortVersion = require(o.ort ? path.join(o.ort, 'node_modules', 'onnxruntime-node', 'package.json')
                                   : 'onnxruntime-node/package.json').version;
    } catch (e) {
        die(o.ort ? `--ort: no onnxruntime-node under ${o.ort}/node_modules`
                  : 'onnxruntime-node is not installed (bench/peers/run.sh installs it)');
    }

    fs.mkdirSync(o.out, {recursive: true});
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'peers-'));
    const cleanup = () => fs.rmSync(work, {recursive: true, force: true});
    process.on('exit', cleanup);
    process.on('SIGINT', () => process.exit(130));
    process.on('SIGTERM', () => process.exit(143));

    const rows = [];
    let ours;
    try {
        console.log(`bench/peers: networks ${o.nets.join(' ')}; threads ${o.threads.join(',')}; ${o.rounds} rounds of ~${o.roundTime} s`);
        const nets = [];
        for (const name of o.nets) {
            const f = ensureModel(o, name, o.pz);
            nets.push({name, onnx: f.onnx, input: f.input, macs: macsOf(o.pz, f.onnx)});
        }
        ours = decideOurs(o, o.pz, nets[0].onnx, work);
        console.log(`bench/peers: ours = ${ours.label}`);
        for (const t of o.threads)
            for (const net of nets) {
                try {
                    rows.push(benchNet(o, ours, net, t, work));
                } catch (e) {
                    if (!(e instanceof BenchError) || !o.keepGoing) throw e;
                    console.error(`bench/peers: error: ${e.message} (--keep-going: the row is marked FAILED)`);
                    rows.push({network: net.name, threads: t, failed: e.message});
                }
            }
    } catch (e) {
        if (e instanceof BenchError) die(`${e.message}\nbench/peers: nothing written to ${o.out}`);
        throw e;
    }

    const summary = {};
    for (const t of o.threads) {
        const ok = rows.filter((r) => r.threads === t && !r.failed);
        summary[t] = {geomean_ratio: geomean(ok.map((r) => r.ratio)), min_ratio: Math.min(...ok.map((r) => r.ratio)),
                      peak_gflops: median(ok.map((r) => r.peak_gflops))};
    }
    const complete = rows.every((r) => !r.failed);
    const res = {
        ort_version: ortVersion, ours: ours.label, ours_mode: ours.mode, strategy: ours.strategy,
        threads: o.threads, networks: o.nets, rounds: o.rounds, round_time_s: o.roundTime, tol: o.tol,
        date: new Date().toISOString(), cpu: (os.cpus()[0] || {}).model || 'unknown', cores: os.cpus().length,
        loadavg: loadStart, complete, summary, rows,
    };
    printTables(res);
    // all three files, or none: temporary names first, then renames
    const files = {'peers.json': JSON.stringify(res, null, 1) + '\n', 'peers.md': markdown(res), 'peers.svg': svg(res)};
    for (const [n, text] of Object.entries(files)) fs.writeFileSync(path.join(o.out, `${n}.tmp.${process.pid}`), text);
    for (const n of Object.keys(files)) fs.renameSync(path.join(o.out, `${n}.tmp.${process.pid}`), path.join(o.out, n));
    console.log(`\nbench/peers: wrote ${Object.keys(files).map((n) => path.join(o.out, n)).join(', ')}`);
    if (!complete) {
        console.error('bench/peers: error: some networks failed (rows marked FAILED)');
        process.exit(1);
    }
}

main();
