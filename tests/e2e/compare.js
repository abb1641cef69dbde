#!/usr/bin/env node
// compare.js - compares tensors in TensorProto files; prints one line and
// exits 0 if they agree, 1 if not.
//   node compare.js --bitwise A.pb B.pb          same type, shape and bytes
//   node compare.js --rel 1e-4 [--top 5] GOT.pb REF.pb
//        max|got-ref| / max|ref| <= tol, and the top-K of each row the same
//   node compare.js --close RTOL ATOL GOT.pb REF.pb
//        |got-ref| <= atol + rtol*|ref| elementwise (the ONNX test-data rule)
//   node compare.js --close RTOL ATOL --peaks K GOT.pb REF.pb
//        the same, but up to K elements may be 0 on one side only: the
//        output of a peak test (x * (x == maxpool(x))), where two neighbours
//        that tie within rounding in one runtime are a peak in one, not both
//   node compare.js --cosine MIN GOT.pb REF.pb
//        cosine similarity of the two as vectors >= MIN (a lower precision
//        against float32: int8, bf16)
//   node compare.js --qstep STEP FRAC GOT.pb REF.pb
//        a quantized result: every |got-ref| <= STEP (one quantization step;
//        1 for integer outputs), and at least FRAC of the elements equal
// More GOT REF pairs may follow the first: each compared in turn, the
// first that disagrees failing the whole (one node start for many files).
'use strict';
const {readTensor} = require('./tensorproto');

function topk(row, k) {
    return Array.from(row.keys()).sort((a, b) => row[b] - row[a] || a - b).slice(0, k);
}

let mode, tol = 0, atol = 0, top = 0, frac = 0, peaks = 0;

function main() {
    const a = process.argv.slice(2);
    mode = a.shift();
    if (mode === '--rel' || mode === '--cosine') tol = parseFloat(a.shift());
    if (mode === '--close') { tol = parseFloat(a.shift()); atol = parseFloat(a.shift()); }
    if (mode === '--qstep') { atol = parseFloat(a.shift()); frac = parseFloat(a.shift()); }
    if (a[0] === '--top') { a.shift(); top = parseInt(a.shift(), 10); }
    if (a[0] === '--peaks') { a.shift(); peaks = parseInt(a.shift(), 10); }
    if (a.length < 2 || a.length % 2) fail('compare.js: GOT.pb REF.pb pairs expected');
    for (let k = 0; k < a.length; k += 2) comparePair(a[k], a[k + 1]);
    process.exit(0);
}

function comparePair(gf, rf) {
    let flipped = 0;
    const g = readTensor(gf), r = readTensor(rf);
    const what = `${gf} vs ${rf}`;
    if (g.dtype !== r.dtype || g.dims.join(',') !== r.dims.join(','))
        return fail(`${what}: type/shape ${g.dtype} [${g.dims}] vs ${r.dtype} [${r.dims}]`);
    if (g.dtype === 8) {   // strings: equal element by element, whatever the mode
        const i = r.data.findIndex((s, k) => s !== g.data[k]);
        if (i >= 0) return fail(`${what}: string ${i} is ${JSON.stringify(g.data[i])}, expected ${JSON.stringify(r.data[i])}`);
        return ok(`${what}: equal (${g.data.length} strings)`);
    }
    if (mode === '--bitwise') {
        const gb = Buffer.from(g.data.buffer, g.data.byteOffset, g.data.byteLength);
        const rb = Buffer.from(r.data.buffer, r.data.byteOffset, r.data.byteLength);
        if (!gb.equals(rb)) {
            let i = 0;
            while (i < g.data.length && Object.is(g.data[i], r.data[i])) i++;   // -0 vs 0 differ
            return fail(`${what}: not bitwise equal (first difference at element ${i}: ${g.data[i]} vs ${r.data[i]})`);
        }
        return ok(`${what}: bitwise equal (${g.data.length} elements)`);
    }
    const n = g.data.length;
    if (mode === '--cosine') {
        let gg = 0, rr = 0, gr = 0;
        for (let i = 0; i < n; i++) {
            const x = Number(g.data[i]), y = Number(r.data[i]);
            gg += x * x, rr += y * y, gr += x * y;
        }
        const cos = gg && rr ? gr / Math.sqrt(gg * rr) : (gg === rr ? 1 : 0);
        if (!(cos >= tol)) return fail(`${what}: cosine ${cos.toFixed(6)} < ${tol}`);
        return ok(`${what}: cosine ${cos.toFixed(6)}`);
    }
    let maxerr = 0, maxref = 0, bad = -1;
    for (let i = 0; i < n; i++) {
        const x = Number(g.data[i]), y = Number(r.data[i]);
        if (Number.isNaN(x) !== Number.isNaN(y)) { bad = i; maxerr = Infinity; break; }
        if (Number.isNaN(x)) continue;
        const e = x === y ? 0 : Math.abs(x - y);
        if (e > maxerr) maxerr = e;
        if (Math.abs(y) > maxref) maxref = Math.abs(y);
        if (mode === '--close' && !(e <= atol + tol * Math.abs(y)) && bad < 0) {
            if ((x === 0) !== (y === 0) && flipped < peaks) flipped++;
            else bad = i;
        }
    }
    if (mode === '--qstep') {
        let same = 0, over = -1;
        for (let i = 0; i < n; i++) {
            const e = Math.abs(Number(g.data[i]) - Number(r.data[i]));
            if (e === 0) same++;
            else if (!(e <= atol * (1 + 1e-5)) && over < 0) over = i;
        }
        const share = n ? same / n : 1;
        if (over >= 0) return fail(`${what}: element ${over} is ${g.data[over]}, expected ${r.data[over]} (more than one step ${atol})`);
        if (share < frac) return fail(`${what}: ${(100 * share).toFixed(3)}% equal, want >= ${100 * frac}%`);
        return ok(`${what}: all within one step, ${(100 * share).toFixed(3)}% equal`);
    }
    if (mode === '--close') {
        if (bad >= 0) return fail(`${what}: element ${bad} is ${g.data[bad]}, expected ${r.data[bad]} (rtol ${tol}, atol ${atol})`);
        return ok(`${what}: close (max abs err ${maxerr.toExponential(2)})${peaks ? `, ${flipped} peaks flipped` : ''}`);
    }
    const rel = maxref ? maxerr / maxref : maxerr;
    if (!(rel <= tol)) return fail(`${what}: max abs err / max|ref| = ${rel.toExponential(3)} > ${tol}`);
    if (top) {
        const classes = g.dims[g.dims.length - 1];
        for (let b = 0; b < n / classes; b++) {
            const tg = topk(g.data.subarray(b * classes, (b + 1) * classes), top);
            const tr = topk(r.data.subarray(b * classes, (b + 1) * classes), top);
            if (tg.join() !== tr.join()) return fail(`${what}: image ${b} top-${top} ${tg} vs ${tr}`);
        }
    }
    return ok(`${what}: max abs err / max|ref| = ${rel.toExponential(3)}${top ? `, top-${top} same` : ''}`);
}

function ok(msg) { console.log(msg); }
function fail(msg) { console.log(msg); process.exit(1); }
main();
