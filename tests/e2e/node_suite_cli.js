#!/usr/bin/env node
// node_suite_cli.js - the ONNX node suite as a user runs it: for each case,
// `paleozoic run CASE/model.onnx --input input_0.pb ... --output Y0.pb ...`
// with the case's inputs as given, then each output against output_i.pb
// (floats |got-ref| <= 1e-5 + 1e-3*|ref|, NaN where NaN; integers, bools and
// the one-byte small types exactly; sequences and optionals element by
// element).
//   node tests/e2e/node_suite_cli.js PALEOZOIC ROOT [--every K]
// Random cases: outputs drawn from numpy's generator cannot agree bit for bit
// with any other (ONNX Runtime's runner excludes them), so a case whose
// model holds one of RANDOM_OPS (found by their op_type bytes) is checked
// by properties instead: each output's dtype and shape exactly, and
//   Bernoulli (and its expanded RandomUniformLike form): every value 0 or 1;
//   Dropout with training_mode true: every element 0 or x/(1 - ratio)
//     within the float tolerance, the mask true where the element is kept
//     and false where dropped, and the dropped count within 5 sigma of
//     n * ratio (binomial).
// Such a case prints `passed (random: properties) CASE`, and the summary
// counts them apart.
// A case is: passed (exit 0, outputs agree), refused (exit 2 with a message
// naming a node, an op or a type: `paleozoic: error: ...`), WRONG (exit 0,
// an output differs) or CRASHED (any other exit, a signal, or exit 2 without
// such a message). --every K runs every K-th case (a sample). Prints the
// wrong and crashed cases, the refusals counted by reason, and the line
// `node suite (CLI): P passed, R refused, W wrong, C crashed`; exits 1 on
// any wrong or crashed case.
//   --build: each case is built instead (`paleozoic build CASE/model.onnx
//   --input ... -o EXE`: the inputs are examples that fix the shapes, a
//   sequence's length, an optional's presence and the values a shape needs),
//   and EXE runs on them; an input whose value the build bound (it says "its
//   value is built into the program") is not given to EXE. A refusal by
//   either counts as refused.
//   --containers: only the cases whose model has a sequence or an optional
//   graph input or output (the summary line says `(build+containers)`).
//   --other-length (with --build --containers): only the cases with an input
//   file holding a sequence of 2 or more tensors; each is built from examples
//   where such a sequence is cut to its first tensor, and the program then
//   runs on the case's own inputs (another length and element shapes than
//   the build's: planned at run time), its outputs checked against the
//   case's (the summary line says `+other-length`; --every K takes every K-th
//   such case).
'use strict';
const fs = require('fs');
const os = require('os');
const path = require('path');
const {spawnSync} = require('child_process');
const {readValue, fields} = require('./tensorproto');

// A SequenceProto's bytes cut to its first tensor: fields 1 (name) and 2
// (elem_type) kept, the tensors (3) after the first dropped.
function firstOnly(buf) {
    let seen = 0;
    const out = [];
    for (const f of fields(buf)) {
        if (f.field === 3 && seen++) continue;
        const key = [], len = [];
        for (let v = (f.field << 3) | f.wt; ; v >>= 7) { key.push((v & 0x7f) | (v > 0x7f ? 0x80 : 0)); if (v <= 0x7f) break; }
        if (f.wt === 0) {
            for (let v = f.value; ; v = Math.floor(v / 128)) { len.push((v & 0x7f) | (v > 0x7f ? 0x80 : 0)); if (v <= 0x7f) break; }
            out.push(Buffer.from(key), Buffer.from(len));
        } else {
            for (let v = f.body.length; ; v >>= 7) { len.push((v & 0x7f) | (v > 0x7f ? 0x80 : 0)); if (v <= 0x7f) break; }
            out.push(Buffer.from(key), Buffer.from(len), f.body);
        }
    }
    return Buffer.concat(out);
}

function half(h) {
    const s = h & 0x8000 ? -1 : 1, e = (h >> 10) & 31, m = h & 1023;
    if (e === 0) return s * m * 2 ** -24;
    if (e === 31) return m ? NaN : s * Infinity;
    return s * (1 + m / 1024) * 2 ** (e - 15);
}
function bf16(h) {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(h << 16 >>> 0);
    return b.readFloatLE(0);
}
const FLOAT = {1: x => x, 11: x => x, 10: half, 16: bf16};

function agree(got, ref) {
    if (got.dtype !== ref.dtype || got.dims.join() !== ref.dims.join())
        return `type/shape ${got.dtype} [${got.dims}], expected ${ref.dtype} [${ref.dims}]`;
    const f = FLOAT[ref.dtype];
    for (let i = 0; i < ref.data.length; i++) {
        if (f) {
            const x = f(Number(got.data[i])), y = f(Number(ref.data[i]));
            if (Number.isNaN(y) && Number.isNaN(x)) continue;
            if (x === y) continue;
            if (!(Math.abs(x - y) <= 1e-5 + 1e-3 * Math.abs(y))) return `element ${i} is ${x}, expected ${y}`;
        } else if (got.data[i] !== ref.data[i]) {
            return `element ${i} is ${got.data[i]}, expected ${ref.data[i]}`;
        }
    }
    return null;
}

// Sequences and optionals (readValue): the same kind, count and tensors.
function agreeValues(got, ref) {
    if (got.container !== ref.container || got.tensors.length !== ref.tensors.length)
        return `${got.tensors.length} tensor(s)${got.container ? ' in a sequence/optional' : ''}, expected ` +
               `${ref.tensors.length}${ref.container ? ' in a sequence/optional' : ''}`;
    for (let k = 0; k < ref.tensors.length; k++) {
        const why = agree(got.tensors[k], ref.tensors[k]);
        if (why) return ref.container ? `element ${k}: ${why}` : why;
    }
    return null;
}

// The op kinds whose cases are checked by properties, and the checker of each.
const RANDOM_OPS = {Bernoulli: 'bernoulli', RandomUniformLike: 'bernoulli', Dropout: 'dropout'};

// Which RANDOM_OPS rule a model needs: an op_type is NodeProto field 4
// (tag 0x22), a length, the name. Dropout only in training (input 2 true)
// with a ratio other than 0 (ratio 0 keeps all: compared by values).
function randomRule(model, ins) {
    const buf = fs.readFileSync(model);
    for (const [op, rule] of Object.entries(RANDOM_OPS)) {
        const pat = Buffer.concat([Buffer.from([0x22, op.length]), Buffer.from(op)]);
        if (buf.indexOf(pat) < 0) continue;
        if (rule === 'dropout' && !(ins.length > 2 && readValue(ins[2]).tensors[0].data[0] &&
                                    Number(readValue(ins[1]).tensors[0].data[0]) !== 0)) continue;
        return rule;
    }
    return null;
}

function sameType(got, ref) {
    if (got.dtype !== ref.dtype || got.dims.join() !== ref.dims.join())
        return `type/shape ${got.dtype} [${got.dims}], expected ${ref.dtype} [${ref.dims}]`;
    return null;
}

function checkBernoulli(got, ref) {
    for (let k = 0; k < ref.length; k++) {
        const g = got[k].tensors[0], why = sameType(g, ref[k].tensors[0]);
        if (why) return `output ${k}: ${why}`;
        for (let i = 0; i < g.data.length; i++)
            if (Number(g.data[i]) !== 0 && Number(g.data[i]) !== 1)
                return `output ${k}: element ${i} is ${g.data[i]}, expected 0 or 1`;
    }
    return null;
}

function checkDropout(got, ref, ins) {
    const x = readValue(ins[0]).tensors[0], f = FLOAT[x.dtype];
    const r = ins.length > 1 ? Number(readValue(ins[1]).tensors[0].data[0]) : 0.5;
    for (let k = 0; k < ref.length; k++) {
        const why = sameType(got[k].tensors[0], ref[k].tensors[0]);
        if (why) return `output ${k}: ${why}`;
    }
    const y = got[0].tensors[0].data, mask = got.length > 1 ? got[1].tensors[0].data : null;
    let dropped = 0;
    for (let i = 0; i < y.length; i++) {
        const s = f(Number(x.data[i])) / (1 - r), v = f(Number(y[i]));
        const kept = Math.abs(v - s) <= 1e-5 + 1e-3 * Math.abs(s), gone = v === 0;
        if (!kept && !gone) return `output 0: element ${i} is ${v}, expected 0 or ${s}`;
        if (mask && kept !== gone && Boolean(Number(mask[i])) !== kept)
            return `output 1: element ${i} is ${mask[i]}, the output is ${kept ? 'kept' : 'dropped'}`;
        if (gone && !kept) dropped++;
    }
    const n = y.length, sigma = Math.sqrt(n * r * (1 - r));
    if (Math.abs(dropped - n * r) > 5 * sigma + 1e-9)
        return `${dropped} of ${n} dropped, expected ${n * r} within 5 sigma (${sigma.toFixed(2)})`;
    return null;
}

// 1 when a graph input or output of the model is typed a sequence or an
// optional: ModelProto.graph (7) -> input (11) / output (12) ValueInfoProto
// -> type (2) TypeProto -> sequence_type (4) or optional_type (9).
function hasContainerIO(model) {
    const graph = fields(fs.readFileSync(model)).find(f => f.field === 7 && f.wt === 2);
    if (!graph) return false;
    return fields(graph.body).some(vi => (vi.field === 11 || vi.field === 12) && vi.wt === 2 &&
        fields(vi.body).some(t => t.field === 2 && t.wt === 2 &&
            fields(t.body).some(k => k.field === 4 || k.field === 9)));
}

// --build: the case built into exe (its inputs as examples), then exe run
// with args; a spawnSync result as `paleozoic run` gives one.
// examples: the files the build is given (ins unless --other-length).
function buildAndRun(pz, model, ins, outs, exe, examples) {
    const b = spawnSync(pz, ['build', model, ...examples.flatMap(f => ['--input', f]), '-o', exe],
                        {encoding: 'utf8', timeout: 300000});
    if (b.status !== 0) return b;
    const bound = new Set([...(b.stderr || '').matchAll(
        /^paleozoic: --input (.*): its value is built into the program/mg)].map(m => m[1]));
    const args = ['--threads', '1'];
    ins.filter((f, i) => !bound.has(examples[i])).forEach(f => args.push('--input', f));
    outs.forEach(f => args.push('--output', f));
    const r = spawnSync(exe, args, {encoding: 'utf8', timeout: 120000});
    fs.rmSync(exe, {force: true});
    fs.rmSync(exe + '.weights', {force: true});
    return r;
}

function reason(msg) {
    let m = /unsupported op (\S+)/.exec(msg);
    if (m) return `op ${m[1]}`;
    m = /\(([A-Za-z0-9]+)\)/.exec(msg);
    if (m) return `op ${m[1]}: ${msg.replace(/node "[^"]*" /, '').replace(/"[^"]*"/g, '*').slice(0, 90)}`;
    return msg.replace(/"[^"]*"/g, '*').slice(0, 100);
}

function main() {
    const a = process.argv.slice(2);
    const pz = a.shift(), root = a.shift();
    let every = 1, build = false, containers = false, other = false;
    while (a.length) {
        const o = a.shift();
        if (o === '--every') every = parseInt(a.shift(), 10);
        else if (o === '--build') build = true;
        else if (o === '--containers') containers = true;
        else if (o === '--other-length') other = true;
        else throw new Error(`unknown option ${o}`);
    }
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pz-node-'));
    const cases = fs.readdirSync(root).filter(d => fs.existsSync(path.join(root, d, 'model.onnx')))
        .filter(d => !containers || hasContainerIO(path.join(root, d, 'model.onnx'))).sort();
    let pass = 0, refused = 0, wrong = 0, crashed = 0, random = 0;
    const reasons = new Map();
    let eligible = 0;   // --other-length: --every K counts the cases it takes
    cases.forEach((c, idx) => {
        if (!other && idx % every) return;
        const dir = path.join(root, c), data = path.join(dir, 'test_data_set_0');
        if (!fs.existsSync(data)) return;
        const ins = [], refs = [];
        for (let i = 0; fs.existsSync(path.join(data, `input_${i}.pb`)); i++) ins.push(path.join(data, `input_${i}.pb`));
        for (let i = 0; fs.existsSync(path.join(data, `output_${i}.pb`)); i++) refs.push(path.join(data, `output_${i}.pb`));
        // --other-length: the sequences of 2 or more tensors cut to 1 for the build
        const examples = ins.map((f, i) => {
            const v = readValue(f);
            if (!other || !v.container || v.tensors.length < 2) return f;
            const cut = path.join(tmp, `x${i}.pb`);
            fs.writeFileSync(cut, firstOnly(fs.readFileSync(f)));
            return cut;
        });
        if (other && (examples.every((f, i) => f === ins[i]) || eligible++ % every)) return;
        const outs = refs.map((_, i) => path.join(tmp, `y${i}.pb`));
        outs.forEach(o => fs.rmSync(o, {force: true}));
        const args = ['run', path.join(dir, 'model.onnx'), '--threads', '1'];
        ins.forEach(f => args.push('--input', f));
        outs.forEach(f => args.push('--output', f));
        const r = build ? buildAndRun(pz, path.join(dir, 'model.onnx'), ins, outs, path.join(tmp, 'exe'), examples)
                        : spawnSync(pz, args, {encoding: 'utf8', timeout: 120000});
        const err = (r.stderr || '').trim();
        if (r.status === 2 && /^paleozoic: error: /m.test(err)) {
            refused++;
            const k = reason(err.replace(/^[\s\S]*paleozoic: error: /, ''));
            if (!reasons.has(k)) reasons.set(k, {n: 0, ex: c});
            reasons.get(k).n++;
            return;
        }
        if (r.status !== 0) {
            crashed++;
            console.log(`CRASHED ${c}: exit ${r.status} signal ${r.signal}: ${err.slice(-300)}`);
            return;
        }
        const rule = randomRule(path.join(dir, 'model.onnx'), ins);
        if (rule) {
            let why;
            try {
                const got = outs.map(readValue), ref = refs.map(readValue);
                why = rule === 'bernoulli' ? checkBernoulli(got, ref) : checkDropout(got, ref, ins);
            } catch (e) { why = e.message; }
            if (why) {
                wrong++;
                console.log(`WRONG ${c} (random: properties): ${why}`);
                return;
            }
            console.log(`passed (random: properties) ${c}`);
            random++;
            pass++;
            return;
        }
        for (let i = 0; i < refs.length; i++) {
            let why;
            try { why = agreeValues(readValue(outs[i]), readValue(refs[i])); } catch (e) { why = e.message; }
            if (why) {
                wrong++;
                console.log(`WRONG ${c}: output ${i}: ${why}`);
                return;
            }
        }
        pass++;
    });
    fs.rmSync(tmp, {recursive: true, force: true});
    console.log('refused, by reason:');
    [...reasons.entries()].sort((x, y) => y[1].n - x[1].n)
        .forEach(([k, v]) => console.log(`  ${String(v.n).padStart(5)}  ${k}  (e.g. ${v.ex})`));
    if (random) console.log(`random cases checked by properties, not values: ${random} (in the passed count)`);
    console.log(`node suite (${build ? 'build' : 'CLI'}${containers ? '+containers' : ''}${other ? '+other-length' : ''}): ${pass} passed, ${refused} refused, ${wrong} wrong, ${crashed} crashed`);
    process.exit(wrong || crashed ? 1 : 0);
}
main();
