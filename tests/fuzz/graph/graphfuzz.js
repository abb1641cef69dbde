#!/usr/bin/env node
// graphfuzz.js - differential graph fuzzer: random valid ONNX models (gen.js)
// run through `paleozoic run` under random knobs and through ONNX Runtime
// 1.17 (in-process), outputs compared with a per-tensor tolerance.
//
//   node tests/fuzz/graph/graphfuzz.js [--count N | --time SECONDS] [--seed S]
//        [--pz build/paleozoic] [--jobs J] [--build-every K] [--regress DIR]
//        [--no-minimize] [--stats]
//   node tests/fuzz/graph/graphfuzz.js replay [--pz build/paleozoic] [--regress DIR]
//
// Model i of a run with --seed S has seed S + i, printed with every finding:
// `--seed S+i --count 1` regenerates it (same model, same knobs, same inputs).
// ORT runs with graphOptimizationLevel 'disabled': the reference is ONNX's
// per-node semantics, not ORT's own fusions (which round differently and
// would hide, or add, differences). A mismatch, a crash (signal, sanitizer
// report, exit 1) or a refusal (exit 2) of a model ORT runs is a finding; it
// is minimized (nodes dropped, cut tensors made graph inputs; input dims
// shrunk) and written to DIR/NAME.{onnx,json,inK.pb,refK.pb} for `replay`.
// Every model 1 in K (--build-every, default 100; model 0 always) is also
// built with `paleozoic build` and its executable must match `run` bitwise.
// The last line is `graphfuzz: N passed, N failed`.
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const {execFile} = require('child_process');
const {generate, numel, F32, I64} = require('./gen');
const {encodeModel, encodeTensor} = require('./onnxpb');
const {readTensor, writeTensor, ORT_TYPES} = require('../../e2e/tensorproto');
const ort = require(path.join(__dirname, '../../../node_modules/onnxruntime-node'));

const ROOT = path.join(__dirname, '../../..');
const args = process.argv.slice(2);
const opt = {mode: 'run', seed: 1, count: null, time: null, pz: path.join(ROOT, 'build/paleozoic'),
    jobs: 3, buildEvery: 100, regress: path.join(__dirname, 'regress'), minimize: true, stats: false,
    maxMin: 8, verbose: false};
for (let i = 0; i < args.length; i++) {
    const a = args[i], v = () => args[++i];
    if (a === 'replay') opt.mode = 'replay';
    else if (a === '--seed') opt.seed = parseInt(v(), 10);
    else if (a === '--count') opt.count = parseInt(v(), 10);
    else if (a === '--time') opt.time = parseFloat(v());
    else if (a === '--pz') opt.pz = path.resolve(v());
    else if (a === '--jobs') opt.jobs = parseInt(v(), 10);
    else if (a === '--build-every') opt.buildEvery = parseInt(v(), 10);
    else if (a === '--regress') opt.regress = path.resolve(v());
    else if (a === '--no-minimize') opt.minimize = false;
    else if (a === '--max-minimize') opt.maxMin = parseInt(v(), 10);
    else if (a === '--stats') opt.stats = true;
    else if (a === '--opset') opt.opset = parseInt(v(), 10);
    else if (a === '--big') opt.big = true;   // every model big (16-64 channels)
    else if (a === '--only') opt.only = v().split(',');   // generators of gen.js only (e.g. lnWritten,gate)
    else if (a === '-v' || a === '--verbose') opt.verbose = true;
    else { console.error(`graphfuzz: unknown argument ${a}`); process.exit(2); }
}
if (opt.count === null && opt.time === null) opt.count = 100;
const TMP = fs.mkdtempSync(path.join(os.tmpdir(), 'graphfuzz-'));
process.on('exit', () => fs.rmSync(TMP, {recursive: true, force: true}));

// Runs cmd; a spawn error (the binary missing or busy while a make relinks
// it) is waited out, up to a minute, rather than counted as a crash.
async function run(cmd, argv, timeoutMs = 120000, env) {
    for (let tries = 0; ; tries++) {
        const r = await run1(cmd, argv, timeoutMs, env);
        if (!r.spawnError || tries >= 30) return r;
        await new Promise(res => setTimeout(res, 2000));
    }
}
function run1(cmd, argv, timeoutMs, env) {
    return new Promise(resolve => {
        execFile(cmd, argv, {timeout: timeoutMs, maxBuffer: 1 << 24, encoding: 'utf8', env: env ? {...process.env, ...env} : process.env}, (err, stdout, stderr) => {
            const code = err ? (typeof err.code === 'number' ? err.code : null) : 0;
            const spawnError = err && typeof err.code === 'string' && err.code !== 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER';
            resolve({code, signal: err && err.signal, stdout, stderr: stderr || (err && !err.signal ? String(err.message) : ''), killed: err && err.killed, spawnError});
        });
    });
}

// ---- knobs -------------------------------------------------------------
function mulberry(a) { return require('./gen').mulberry32(a); }
function pickKnobs(seed) {
    const r = mulberry(seed ^ 0x6b6e6f62);
    const threads = r() < 0.5 ? 1 : 2;
    // PZ_WINOGRAD=0|1 overrides the algorithm of every conv (README "The algorithm knob")
    const w = r(), env = w < 0.2 ? {PZ_WINOGRAD: '0'} : w < 0.4 ? {PZ_WINOGRAD: '1'} : undefined;
    const c = r();
    if (c < 0.4) return {threads, env};
    if (c < 0.7) return {threads, env, strategy: ['none', 'fixed-mp', 'fuse-all', 'fuse-all'][Math.floor(r() * 4)]};
    return {threads, env, schedule: Math.floor(r() * 2 ** 31)};
}
// a random schedule over the model's layers (as tests/parts/schedule_ref.py gen)
async function scheduleFile(modelPath, schedSeed, out, threads, wino) {
    const res = await run(opt.pz, ['inspect', modelPath, '--json', '--strategy', 'none']);
    if (res.code !== 0) return null;
    const info = JSON.parse(res.stdout);
    const layers = info.blocks.map(b => b.layers[0]), local = info.blocks.map(b => b.row_local);
    const r = mulberry(schedSeed);
    const blocks = [];
    for (let i = 0; i < layers.length;) {
        const count = 1 + Math.floor(r() * Math.min(layers.length - i, r() < 0.3 ? layers.length : 4));
        const rowLocal = local.slice(i, i + count).every(Boolean);
        const splits = rowLocal ? ['auto', 'bands', 'channels'] : ['auto', 'channels'];
        const last = layers[i + count - 1];
        const b = {first: i, count, mp: r() < 0.6 ? threads : 1, split: splits[Math.floor(r() * splits.length)],
            strip: r() < 0.6 || !last.rows ? 0 : 1 + Math.floor(r() * last.rows)};
        if (r() < 0.3) { b.first_node = layers[i].name; b.last_node = last.name; }
        if (wino && r() < 0.5) b.winograd = layers.slice(i, i + count).map((l, j) => (wino(l.name) ? i + j : -1)).filter(j => j >= 0 && r() < 0.7);
        blocks.push(b);
        i += count;
    }
    fs.writeFileSync(out, JSON.stringify({version: 1, model: info.model, layers: layers.length,
        strategy: 'graphfuzz', blocks}, null, 1));
    return out;
}
// Which conv layers a schedule may list under "winograd": 2-D, 3x3, stride 1,
// dilation 1, group 1, at least 16 input channels (README, schedule files)
function winogradOk(m) {
    const ok = new Set();
    for (const n of m.nodes) {
        if (n.op !== 'Conv') continue;
        const w = m.inits.find(t => t.name === n.inputs[1]), x = m.info && m.info.get(n.inputs[0]);
        const a = n.attrs || {}, all1 = v => !v || v.v.every(e => e === 1);
        if (w && x && w.dims.length === 4 && w.dims[2] === 3 && w.dims[3] === 3 && all1(a.strides) &&
            all1(a.dilations) && (!a.group || a.group.v === 1) && x.dims[1] >= 16) ok.add(n.name);
    }
    return name => ok.has(name);
}
function knobArgs(k, schedPath, maxShape) {
    const a = ['--threads', String(k.threads)];
    if (maxShape) a.push('--max-shape', maxShape);   // an open batch (gendyn.js openBatch)
    if (k.strategy) a.push('--strategy', k.strategy);
    if (schedPath) a.push('--schedule', schedPath);
    return a;
}
function knobStr(k) {
    return (k.env ? `PZ_WINOGRAD=${k.env.PZ_WINOGRAD} ` : '') + `--threads ${k.threads}` + (k.strategy ? ` --strategy ${k.strategy}` : '') + (k.schedule !== undefined ? ` --schedule (random, seed ${k.schedule})` : '');
}

// ---- values ------------------------------------------------------------
function halfToFloat(h) {
    const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    if (e === 0) return s * m * 2 ** -24;
    if (e === 31) return m ? NaN : s * Infinity;
    return s * (1 + m / 1024) * 2 ** (e - 15);
}
function asNumbers(dtype, data) {
    if (dtype === 10) return Float64Array.from(data, halfToFloat);
    if (data instanceof BigInt64Array || data instanceof BigUint64Array) return data;
    return data;
}
// ref: {dtype, dims, data}; got: the same; tol: relative to max |ref|; 0 = exact
function compare(ref, got, tol) {
    if (ref.dtype !== got.dtype) return `element type ${got.dtype}, ORT ${ref.dtype}`;
    if (ref.dims.join() !== got.dims.join()) return `shape [${got.dims}], ORT [${ref.dims}]`;
    const a = asNumbers(ref.dtype, ref.data), b = asNumbers(got.dtype, got.data);
    if (typeof a[0] === 'bigint' || ref.dtype !== 1 && ref.dtype !== 10 && ref.dtype !== 11) {
        for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return `element ${i}: ${b[i]}, ORT ${a[i]} (exact)`;
        return null;
    }
    let maxRef = 0;
    for (let i = 0; i < a.length; i++) if (Number.isFinite(a[i])) maxRef = Math.max(maxRef, Math.abs(a[i]));
    const lim = tol * Math.max(maxRef, 0.25);   // values near 0 from O(1) intermediates
    let worst = -1, werr = 0;
    for (let i = 0; i < a.length; i++) {
        const x = a[i], y = b[i];
        if (Number.isNaN(x) || Number.isNaN(y)) { if (Number.isNaN(x) !== Number.isNaN(y)) return `element ${i}: ${y}, ORT ${x}`; continue; }
        if (!Number.isFinite(x) || !Number.isFinite(y)) { if (x !== y) return `element ${i}: ${y}, ORT ${x}`; continue; }
        const e = Math.abs(x - y);
        if (tol === 0 ? x !== y : e > lim) { if (e > werr) { werr = e; worst = i; } }
    }
    if (worst >= 0) return `element ${worst}: ${b[worst]}, ORT ${a[worst]}; |err| ${werr.toPrecision(3)} > ${tol === 0 ? 'exact' : lim.toPrecision(3)} (max|ref| ${maxRef.toPrecision(3)}, tol ${tol.toPrecision(2)})`;
    return null;
}

// The reference model: m with every LayerNormalization written out as the
// primitive ops of its definition (mean, deviation, mean of squares, eps,
// sqrt, divide, scale, bias). ORT 1.17's own LayerNormalization kernel takes
// the variance as E[x^2] - E[x]^2 in float, which loses every digit on rows
// of small variance around a large mean (0.09 off a float64 reference where
// Paleozoic was 1e-5 off, seed 2026119918); its ReduceMean, Sub and Mul do
// not. A node whose input's rank is unknown stays as it is.
function refModel(m) {
    if (!m.nodes.some(n => n.op === 'LayerNormalization')) return m;
    const info = tensorInfo(m, m.info || []);
    const nodes = [], inits = m.inits.slice();
    let k = 0;
    for (const n of m.nodes) {
        const x = info.get(n.inputs[0]);
        if (n.op !== 'LayerNormalization' || !x || n.outputs.length !== 1) { nodes.push(n); continue; }
        const r = x.dims.length, a0 = n.attrs && n.attrs.axis ? n.attrs.axis.v : -1;
        const a = a0 < 0 ? a0 + r : a0, axes = [];
        for (let i = a; i < r; i++) axes.push(i);
        const eps = n.attrs && n.attrs.epsilon ? n.attrs.epsilon.v : 1e-5;
        const p = `${n.outputs[0]}__ln${k++}_`, t = s2 => p + s2;
        const mean = (src, dst) => {
            if (m.opset >= 18) {
                inits.push({name: t('axes'), dtype: I64, dims: [axes.length], data: BigInt64Array.from(axes.map(BigInt))});
                nodes.push({op: 'ReduceMean', name: dst, inputs: [src, t('axes')], outputs: [dst], attrs: {keepdims: {type: 'i', v: 1}}});
            } else {
                nodes.push({op: 'ReduceMean', name: dst, inputs: [src], outputs: [dst], attrs: {axes: {type: 'is', v: axes}, keepdims: {type: 'i', v: 1}}});
            }
        };
        const op = (o, ins, out) => nodes.push({op: o, name: out, inputs: ins, outputs: [out], attrs: {}});
        inits.push({name: t('eps'), dtype: F32, dims: [], data: Float32Array.from([eps])});
        mean(n.inputs[0], t('mu'));
        op('Sub', [n.inputs[0], t('mu')], t('d'));
        op('Mul', [t('d'), t('d')], t('sq'));
        mean(t('sq'), t('var'));
        op('Add', [t('var'), t('eps')], t('ve'));
        op('Sqrt', [t('ve')], t('sd'));
        op('Div', [t('d'), t('sd')], t('n'));
        const hasB = n.inputs.length > 2 && n.inputs[2];
        op('Mul', [t('n'), n.inputs[1]], hasB ? t('y') : n.outputs[0]);
        if (hasB) op('Add', [t('y'), n.inputs[2]], n.outputs[0]);
    }
    return {...m, nodes, inits};
}

async function ortRun(bytes, feeds) {
    let s;
    try {
        s = await ort.InferenceSession.create(bytes, {graphOptimizationLevel: 'disabled',
            executionMode: 'sequential', intraOpNumThreads: 1, interOpNumThreads: 1});
        const f = {};
        for (const t of feeds) f[t.name] = new ort.Tensor(ORT_TYPES[t.dtype], t.data, t.dims);
        const res = await s.run(f);
        return {outs: s.outputNames.map(n => {
            const t = res[n];
            const dtype = Number(Object.keys(ORT_TYPES).find(k => ORT_TYPES[k] === t.type));
            return {dtype, dims: Array.from(t.dims, Number), data: t.data};
        })};
    } catch (e) {
        return {error: String(e.message || e).split('\n')[0]};
    } finally {
        if (s && s.release) try { await s.release(); } catch (e) { /* ignore */ }
    }
}

const BAD = /AddressSanitizer|LeakSanitizer|runtime error:|internal error/;

// Runs model m (gen.js form) under knobs k in dir; returns
// {status: 'pass'|'fail'|'skip', kind, detail, ref, outPaths}
async function check(m, k, dir, wantBuild, refGiven) {
    fs.mkdirSync(dir, {recursive: true});
    const modelPath = path.join(dir, 'model.onnx');
    const bytes = encodeModel(m);
    fs.writeFileSync(modelPath, bytes);
    const inPaths = m.feeds.map((t, i) => {
        const p = path.join(dir, `in${i}.pb`);
        writeTensor(p, t.name, t.dtype, t.dims, t.data);
        return p;
    });
    let ref = refGiven;
    if (!ref) {
        const o = await ortRun(encodeModel(refModel(m)), m.feeds);
        if (o.error) return {status: 'skip', kind: 'ort', detail: o.error};
        ref = o.outs;
    }
    let sched = null;
    if (k.schedule !== undefined) {
        sched = k.schedulePath || await scheduleFile(modelPath, k.schedule, path.join(dir, 'schedule.json'), k.threads, winogradOk(m));
        if (!sched) {
            const r = await run(opt.pz, ['inspect', modelPath, '--json', '--strategy', 'none']);
            return classify(r, 'inspect', ref);
        }
    }
    const outPaths = m.outputs.map((t, i) => path.join(dir, `out${i}.pb`));
    const argv = ['run', modelPath, ...inPaths.flatMap(p => ['--input', p]), ...outPaths.flatMap(p => ['--output', p]), ...knobArgs(k, sched, m.maxShape)];
    const r = await run(opt.pz, argv, 120000, k.env);
    const c = classify(r, 'run', ref);
    if (c) return c;
    for (let i = 0; i < m.outputs.length; i++) {
        let got;
        try { got = readTensor(outPaths[i]); } catch (e) { return {status: 'fail', kind: 'mismatch', detail: `output ${i}: ${e.message}`, ref}; }
        const d = compare(ref[i], got, m.outputs[i].tol);
        if (d) return {status: 'fail', kind: 'mismatch', detail: `output ${i} (${m.outputs[i].name}): ${d}`, ref, out: i};
    }
    if (wantBuild) {
        const exe = path.join(dir, 'exe');
        const b = await run(opt.pz, ['build', modelPath, '-o', exe, ...knobArgs(k, sched, m.maxShape)], 300000, k.env);
        const cb = classify(b, 'build', ref);
        if (cb) return cb;
        const exeOuts = outPaths.map((p, i) => path.join(dir, `exe_out${i}.pb`));
        const e = await run(exe, [...inPaths.flatMap(p => ['--input', p]), ...exeOuts.flatMap(p => ['--output', p]), '--threads', String(k.threads)], 120000, k.env);
        const ce = classify(e, 'built executable', ref);
        if (ce) return ce;
        for (let i = 0; i < outPaths.length; i++) {
            const x = readTensor(outPaths[i]), y = readTensor(exeOuts[i]);
            if (x.dtype !== y.dtype || x.dims.join() !== y.dims.join() || Buffer.compare(Buffer.from(x.data.buffer, x.data.byteOffset, x.data.byteLength), Buffer.from(y.data.buffer, y.data.byteOffset, y.data.byteLength)))
                return {status: 'fail', kind: 'build-differs', detail: `output ${i}: the built executable differs from paleozoic run`, ref};
        }
    }
    return {status: 'pass', ref};
}
function classify(r, what, ref) {
    const lines = (r.stderr || '').split('\n').filter(Boolean);
    const key = lines.filter(l => /error|Sanitizer|runtime error/.test(l));
    const tail = (key.length ? key.slice(0, 2) : lines.slice(-3)).join(' | ');
    if (r.signal || r.code === null) return {status: 'fail', kind: 'crash', detail: `${what}: signal ${r.signal}${r.killed ? ' (timeout)' : ''}: ${tail}`, ref};
    if (BAD.test(r.stderr)) return {status: 'fail', kind: 'crash', detail: `${what}: ${(r.stderr.match(BAD) || [])[0]}: ${tail}`, ref};
    if (r.code === 1) return {status: 'fail', kind: 'crash', detail: `${what}: exit 1: ${tail}`, ref};
    if (r.code === 2) return {status: 'fail', kind: 'refusal', detail: `${what}: exit 2: ${tail}`, ref};
    if (r.code !== 0) return {status: 'fail', kind: 'crash', detail: `${what}: exit ${r.code}: ${tail}`, ref};
    return null;
}

// ---- minimization ---------------------------------------------------------
function cloneModel(m) {
    return {...m, nodes: m.nodes.map(n => ({...n, inputs: n.inputs.slice(), outputs: n.outputs.slice()})),
        inits: m.inits.slice(), inputs: m.inputs.map(x => ({...x})), feeds: m.feeds.slice(), outputs: m.outputs.map(x => ({...x}))};
}
// types and shapes of every tensor of m (from the generator's record)
function tensorInfo(m, info) {
    const map = new Map(info);
    for (const t of m.inputs) map.set(t.name, t);
    for (const t of m.outputs) map.set(t.name, t);
    return map;
}
// m without nodes `drop` (indices): cut tensors become graph inputs
function without(m, drop, info, rnd) {
    const c = cloneModel(m);
    const dropped = new Set(drop);
    const gone = c.nodes.filter((n, i) => dropped.has(i));
    c.nodes = c.nodes.filter((n, i) => !dropped.has(i));
    const produced = new Set(c.nodes.flatMap(n => n.outputs));
    const goneOut = new Set(gone.flatMap(n => n.outputs));
    for (const n of c.nodes) for (const x of [...n.inputs, ...n.implicit || []]) {
        if (x && goneOut.has(x) && !c.inputs.some(t => t.name === x)) {
            const t = info.get(x);
            // a run-time shape known only by its symbolic dims: not an input to feed
            if (!t || t.dims.some(d => typeof d !== 'number')) return null;
            c.inputs.push({name: x, dtype: t.dtype, dims: t.dims});
            c.feeds.push({name: x, dtype: t.dtype, dims: t.dims, data: randomData(t.dtype, numel(t.dims), rnd)});
        }
    }
    c.outputs = c.outputs.filter(o => produced.has(o.name));
    return prune(c);
}
function prune(c) {
    if (!c.outputs.length) return null;
    const need = new Set(c.outputs.map(o => o.name));
    const keep = [];
    for (let i = c.nodes.length - 1; i >= 0; i--) {
        const n = c.nodes[i];
        if (n.outputs.some(o => need.has(o))) { keep.push(n); for (const x of [...n.inputs, ...n.implicit || []]) if (x) need.add(x); }
    }
    c.nodes = keep.reverse();
    c.inits = c.inits.filter(t => need.has(t.name));
    c.feeds = c.feeds.filter(t => need.has(t.name) && c.inputs.some(i => i.name === t.name));
    c.inputs = c.inputs.filter(t => need.has(t.name));
    if (!c.nodes.length) return null;
    return c;
}
function randomData(dtype, n, rnd) {
    const {ARR} = require('./gen');
    const d = new ARR[dtype](n);
    for (let i = 0; i < n; i++) {
        const v = (rnd() - 0.5) * 4;
        if (dtype === 1 || dtype === 11) d[i] = v;
        else if (dtype === 10) d[i] = require('./gen').toHalf(v);
        else if (dtype === 7) d[i] = BigInt(Math.round(v));
        else if (dtype === 9) d[i] = v > 0 ? 1 : 0;
        else d[i] = Math.round(Math.abs(v));
    }
    return d;
}
// the output shapes from an ORT run, so that shrunk inputs give a valid model
function withRefShapes(m, ref) {
    m.outputs.forEach((o, i) => { o.dims = ref[i].dims.slice(); });
    return m;
}

async function minimize(m0, k, res0, dir, info0, wantBuild) {
    const rnd = mulberry(m0.seed ^ 0x51515151);
    const info = tensorInfo(m0, info0);
    let m = m0, runs = 0;
    const same = async c => {
        if (!c || runs > 400) return false;
        runs++;
        const r = await check(c, {...k}, path.join(dir, 'min'), wantBuild);
        if (r.status !== 'fail' || r.kind !== res0.kind) return false;
        if (r.kind === 'refusal' && firstWords(r.detail) !== firstWords(res0.detail)) return false;
        c.lastRes = r;
        return true;
    };
    // 1. fewer outputs
    for (let i = m.outputs.length - 1; i >= 0 && m.outputs.length > 1; i--) {
        const c = cloneModel(m); c.outputs.splice(i, 1);
        const p = prune(c);
        if (await same(p)) m = p;
    }
    // 2. drop nodes: chunks, then one by one, until nothing goes
    for (let chunk = Math.max(1, m.nodes.length >> 1); chunk >= 1; chunk >>= 1) {
        let progress = true;
        while (progress) {
            progress = false;
            for (let i = m.nodes.length - chunk; i >= 0; i -= chunk) {
                const c = without(m, Array.from({length: chunk}, (x, j) => i + j), info, rnd);
                if (await same(c)) { m = c; progress = true; break; }
            }
        }
    }
    // 3. fewer outputs again
    for (let i = m.outputs.length - 1; i >= 0 && m.outputs.length > 1; i--) {
        const c = cloneModel(m); c.outputs.splice(i, 1);
        const p = prune(c);
        if (await same(p)) m = p;
    }
    // 4. smaller input dims (valid when ORT still runs the model)
    for (let i = 0; i < m.inputs.length; i++) {
        for (let d = 0; d < m.inputs[i].dims.length; d++) {
            if (typeof m.inputs[i].dims[d] === 'string') continue;   // an open dim: its bound stays
            for (const cand of [1, 2, 3, Math.floor(m.inputs[i].dims[d] / 2)]) {
                if (cand >= m.inputs[i].dims[d] || cand < 1) continue;
                const c = cloneModel(m);
                const dims = c.inputs[i].dims.slice(); dims[d] = cand;
                c.inputs[i] = {...c.inputs[i], dims};
                c.feeds = c.feeds.map(f => (f.name === c.inputs[i].name ? {...f, dims, data: randomData(f.dtype, numel(dims), rnd)} : f));
                const o = await ortRun(encodeModel(refModel(c)), c.feeds);
                if (o.error) continue;
                withRefShapes(c, o.outs);
                if (await same(c)) { m = c; break; }
            }
        }
    }
    return {m, runs};
}
function firstWords(s) { return (s || '').replace(/"[^"]*"/g, '""').replace(/[0-9]+/g, 'N').slice(0, 60); }

// ---- regressions ------------------------------------------------------------
async function writeRegression(m, k, res, dir) {
    fs.mkdirSync(opt.regress, {recursive: true});
    const ops = [...new Set(m.nodes.map(n => n.op))].join('-');
    const name = `${res.kind}-${ops}`.slice(0, 60).replace(/[^A-Za-z0-9_-]/g, '') + `-s${m.seed}`;
    const base = path.join(opt.regress, name);
    fs.writeFileSync(base + '.onnx', encodeModel(m));
    m.feeds.forEach((t, i) => writeTensor(`${base}.in${i}.pb`, t.name, t.dtype, t.dims, t.data));
    const ref = res.ref || (await ortRun(encodeModel(refModel(m)), m.feeds)).outs;
    ref.forEach((t, i) => writeTensor(`${base}.ref${i}.pb`, m.outputs[i].name, t.dtype, t.dims, t.data));
    let schedule = null;
    if (k.schedule !== undefined) {
        const p = path.join(dir, 'min', 'schedule.json');
        if (fs.existsSync(p)) { fs.copyFileSync(p, base + '.schedule.json'); schedule = path.basename(base) + '.schedule.json'; }
    }
    fs.writeFileSync(base + '.json', JSON.stringify({seed: m.seed, kind: res.kind, detail: res.detail,
        threads: k.threads, strategy: k.strategy || null, env: k.env || null, schedule, build: !!m.viaBuild, inputs: m.feeds.length, maxShape: m.maxShape || null,
        outputs: m.outputs.map(o => ({name: o.name, tol: o.tol}))}, null, 1) + '\n');
    return name;
}

async function replay() {
    let pass = 0, fail = 0;
    const dir = opt.regress;
    const names = fs.existsSync(dir) ? fs.readdirSync(dir).filter(f => f.endsWith('.json') && !f.endsWith('.schedule.json')).sort() : [];
    for (const f of names) {
        const base = path.join(dir, f.slice(0, -5));
        const meta = JSON.parse(fs.readFileSync(base + '.json', 'utf8'));
        const ins = Array.from({length: meta.inputs}, (x, i) => `${base}.in${i}.pb`);
        const outs = meta.outputs.map((o, i) => path.join(TMP, `replay_out${i}.pb`));
        const k = {threads: meta.threads, strategy: meta.strategy || undefined, env: meta.env || undefined};
        const argv = ['run', base + '.onnx', ...ins.flatMap(p => ['--input', p]), ...outs.flatMap(p => ['--output', p]),
            ...knobArgs(k, meta.schedule ? path.join(dir, meta.schedule) : null, meta.maxShape)];
        const r = await run(opt.pz, argv, 120000, k.env);
        let d = classify(r, 'run');
        d = d && d.detail;
        if (!d && meta.build) {   // a finding of `paleozoic build`: the executable too, bitwise equal to run
            const exe = path.join(TMP, 'replay_exe');
            const sched = meta.schedule ? path.join(dir, meta.schedule) : null;
            const b = await run(opt.pz, ['build', base + '.onnx', '-o', exe, ...knobArgs(k, sched, meta.maxShape)], 300000, k.env);
            d = classify(b, 'build');
            d = d && d.detail;
            const eo = outs.map((o, i) => path.join(TMP, `replay_exe_out${i}.pb`));
            if (!d) {
                const e = await run(exe, [...ins.flatMap(p => ['--input', p]), ...eo.flatMap(p => ['--output', p]), '--threads', String(k.threads)], 120000, k.env);
                d = classify(e, 'built executable');
                d = d && d.detail;
            }
            // the same tensors (type, dims, bytes); the two may encode dims packed or not
            for (let i = 0; !d && i < outs.length; i++) {
                const x = readTensor(outs[i]), y = readTensor(eo[i]);
                const bx = Buffer.from(x.data.buffer, x.data.byteOffset, x.data.byteLength);
                const by = Buffer.from(y.data.buffer, y.data.byteOffset, y.data.byteLength);
                if (x.dtype !== y.dtype || x.dims.join() !== y.dims.join() || !bx.equals(by))
                    d = `output ${i}: the built executable differs from paleozoic run`;
            }
        }
        for (let i = 0; !d && i < outs.length; i++) {
            try { d = compare(readTensor(`${base}.ref${i}.pb`), readTensor(outs[i]), meta.outputs[i].tol); } catch (e) { d = e.message; }
            if (d) d = `output ${i}: ${d}`;
        }
        if (d) { fail++; console.log(`FAIL replay ${f.slice(0, -5)}: ${d}`); }
        else { pass++; console.log(`ok   replay ${f.slice(0, -5)}`); }
    }
    console.log(`graphfuzz: ${pass} passed, ${fail} failed`);
    process.exitCode = fail ? 1 : 0;
}

// ---- the run ----------------------------------------------------------------
async function fuzz() {
    const t0 = Date.now();
    const stats = {pass: 0, fail: 0, skip: 0, built: 0, ops: {}, kinds: {}, skips: {}, knobs: {}};
    const findings = [];
    const sigs = new Set();
    let next = 0, minimized = 0;
    const more = () => (opt.count !== null ? next < opt.count : (Date.now() - t0) / 1000 < opt.time);
    async function worker(w) {
        while (more()) {
            const i = next++;
            const seed = opt.seed + i;
            const m = generate(seed, {only: opt.only, opset: opt.opset, big: opt.big});
            const k = pickKnobs(seed);
            // a schedule names compile-time layers: none in a model planned at run time
            if (m.dynamic && k.schedule !== undefined) { delete k.schedule; k.strategy = 'none'; }
            const wantBuild = opt.buildEvery > 0 && i % opt.buildEvery === 0;
            const dir = path.join(TMP, `w${w}`);
            let res;
            try { res = await check(m, k, dir, wantBuild); } catch (e) { res = {status: 'fail', kind: 'fuzzer', detail: e.stack}; }
            if (res.status === 'skip') {
                stats.skip++;
                const key = res.detail.replace(/[0-9]+/g, 'N').slice(0, 140);
                stats.skips[key] = (stats.skips[key] || 0) + 1;
                if (opt.verbose) console.log(`skip seed ${seed}: ORT: ${res.detail}`);
                continue;
            }
            if (wantBuild) stats.built++;
            for (const n of m.nodes) stats.ops[n.op] = (stats.ops[n.op] || 0) + 1;
            const kk = k.strategy ? `strategy ${k.strategy}` : k.schedule !== undefined ? 'schedule' : 'default';
            stats.knobs[kk] = (stats.knobs[kk] || 0) + 1;
            if (res.status === 'pass') { stats.pass++; continue; }
            stats.fail++;
            stats.kinds[res.kind] = (stats.kinds[res.kind] || 0) + 1;
            console.log(`FAIL seed ${seed} (${knobStr(k)}; ${m.nodes.length} nodes: ${[...new Set(m.nodes.map(n => n.op))].join(' ')}): ${res.kind}: ${res.detail}`);
            const f = {seed, kind: res.kind, detail: res.detail, knobs: knobStr(k)};
            findings.push(f);
            if (opt.minimize && minimized < opt.maxMin && res.kind !== 'fuzzer') {
                minimized++;
                const viaBuild = /^(build|built executable)/.test(res.detail) || res.kind === 'build-differs';
                const {m: small, runs} = await minimize(m, k, res, path.join(TMP, `w${w}`), m.info, viaBuild);
                small.viaBuild = viaBuild;
                const ops = [...new Set(small.nodes.map(n => n.op))].sort().join('-');
                const sig = `${res.kind}:${ops}:${firstWords(res.detail.replace(/^output N \([^)]*\): /, '').replace(/element.*/, ''))}`;
                if (sigs.has(sig)) { console.log(`     minimized to ${small.nodes.length} nodes (${ops}; ${runs} runs): same as an earlier finding`); continue; }
                sigs.add(sig);
                const resSmall = small.lastRes || res;
                const name = await writeRegression(small, k, resSmall, path.join(TMP, `w${w}`));
                f.regression = name;
                console.log(`     minimized to ${small.nodes.length} nodes (${runs} runs): ${opt.regress}/${name}.onnx: ${resSmall.detail}`);
            }
        }
    }
    await Promise.all(Array.from({length: opt.jobs}, (x, w) => worker(w)));
    const secs = (Date.now() - t0) / 1000;
    if (opt.stats || opt.time !== null) {
        console.log(`models: ${stats.pass + stats.fail} run (+${stats.skip} that ORT refused) in ${secs.toFixed(1)} s, ${((stats.pass + stats.fail) / secs).toFixed(1)} models/s; ${stats.built} built`);
        console.log('knobs: ' + Object.entries(stats.knobs).map(([a, b]) => `${a} ${b}`).join(', '));
        console.log('ops: ' + Object.entries(stats.ops).sort((a, b) => b[1] - a[1]).map(([a, b]) => `${a} ${b}`).join(', '));
        if (stats.skip) console.log('ORT refusals: ' + JSON.stringify(stats.skips));
        console.log('findings: ' + (Object.entries(stats.kinds).map(([a, b]) => `${a} ${b}`).join(', ') || 'none'));
    }
    console.log(`graphfuzz: ${stats.pass} passed, ${stats.fail} failed`);
    process.exitCode = stats.fail ? 1 : 0;
}

(opt.mode === 'replay' ? replay() : fuzz()).catch(e => { console.error(e.stack); process.exit(1); });
