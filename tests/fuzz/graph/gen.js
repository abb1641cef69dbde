// gen.js - random valid ONNX graphs for the differential graph fuzzer.
//   const {generate} = require('./gen');
//   const m = generate(seed);   // {seed, opset, nodes, inits, inputs, outputs, feeds, tol, opsUsed}
// Everything comes from one seeded PRNG: generate(seed) is reproducible.
// Shapes are computed here (the ONNX rules); each tensor carries `tol`, the
// error budget of its value relative to max |ref| (0: must be exact).
'use strict';

function mulberry32(a) {
    return function () {
        a |= 0; a = a + 0x6D2B79F5 | 0;
        let t = Math.imul(a ^ a >>> 15, 1 | a);
        t = t + Math.imul(t ^ t >>> 7, 61 | t) ^ t;
        return ((t ^ t >>> 14) >>> 0) / 4294967296;
    };
}

const F32 = 1, U8 = 2, I8 = 3, I32 = 6, I64 = 7, BOOL = 9, F16 = 10, F64 = 11;
const ARR = {1: Float32Array, 2: Uint8Array, 3: Int8Array, 6: Int32Array, 7: BigInt64Array,
    9: Uint8Array, 10: Uint16Array, 11: Float64Array};
const isFloat = dt => dt === F32 || dt === F16 || dt === F64;
const isInt = dt => dt === U8 || dt === I8 || dt === I32 || dt === I64;
const numel = dims => dims.reduce((a, b) => a * b, 1);

// error budgets (relative to max |ref|), added per op on top of the inputs'
const TOL = {simple: 2e-6, trans: 1e-5, acc: 2e-5, long: 1e-4};

// float32 -> float16 bits (round to nearest even)
const f32buf = new Float32Array(1), u32buf = new Uint32Array(f32buf.buffer);
function toHalf(v) {
    f32buf[0] = v;
    const x = u32buf[0], sign = (x >>> 16) & 0x8000;
    let e = ((x >>> 23) & 0xff) - 127 + 15, m = x & 0x7fffff;
    if (e <= 0) return sign;
    if (e >= 31) return sign | 0x7c00;
    let h = sign | (e << 10) | (m >>> 13);
    const rest = m & 0x1fff;
    if (rest > 0x1000 || (rest === 0x1000 && (h & 1))) h++;
    return h;
}

class Gen {
    constructor(seed, opts = {}) {
        this.seed = seed;
        this.rnd = mulberry32(seed * 2654435761 ^ 0x5eed);
        this.opts = opts;
        this.nodes = []; this.inits = []; this.inputs = []; this.feeds = [];
        this.t = new Map();     // name -> {name, dtype, dims, tol, konst, readers, producer}
        this.nid = 0; this.tid = 0;
        this.opsUsed = {};
        this.forced = new Set();   // tensors that must be graph outputs
    }
    r() { return this.rnd(); }
    int(a, b) { return a + Math.floor(this.r() * (b - a + 1)); }
    pick(a) { return a[Math.floor(this.r() * a.length)]; }
    chance(p) { return this.r() < p; }
    shuffle(a) { for (let i = a.length - 1; i > 0; i--) { const j = this.int(0, i); [a[i], a[j]] = [a[j], a[i]]; } return a; }
    normal() { let u = 0, v = 0; while (u === 0) u = this.r(); v = this.r(); return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v); }
    dim() { return this.pick([1, 1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17]); }
    name(p) { return `${p}${this.tid++}`; }

    data(dtype, n, how = {}) {
        const A = ARR[dtype], d = new A(n);
        for (let i = 0; i < n; i++) {
            if (isFloat(dtype)) {
                let v = how.uniform ? how.uniform[0] + this.r() * (how.uniform[1] - how.uniform[0]) : this.normal() * (how.scale || 1);
                if (how.away) v = (this.chance(0.5) ? -1 : 1) * (0.5 + this.r() * 1.5);
                d[i] = dtype === F16 ? toHalf(v) : v;
            } else if (dtype === BOOL) d[i] = this.chance(0.5) ? 1 : 0;
            else {
                let lo = how.lo ?? -6, hi = how.hi ?? 6;
                if (dtype === U8) lo = Math.max(lo, 0);
                let v = this.int(lo, hi);
                if (how.nonzero && v === 0) v = 1;
                d[i] = dtype === I64 ? BigInt(v) : v;
            }
        }
        return d;
    }
    // dyn: a shape known only at run time (dims: its value for these feeds);
    // open: it follows the open batch (--max-shape), kept out of find()
    reg(name, dtype, dims, tol, konst, producer, dyn = false, open = false) {
        const t = {name, dtype, dims: dims.slice(), tol, konst, readers: 0, producer, dyn, open};
        this.t.set(name, t);
        return t;
    }
    input(dtype, dims, how) { return this.inputWith(dtype, dims, this.data(dtype, numel(dims), how)); }
    // an input fed data (typed array); sym: the declared dims (strings: dim_param)
    inputWith(dtype, dims, data, sym) {
        const name = this.name('in');
        this.inputs.push({name, dtype, dims: (sym || dims).slice()});
        this.feeds.push({name, dtype, dims: dims.slice(), data});
        return this.reg(name, dtype, dims, 0, false, -1, false, !!sym);
    }
    // a constant: an initializer or a Constant node
    konst(dtype, dims, data, forceInit) {
        if (!forceInit && this.chance(0.3)) {
            const name = this.name('c');
            this.nodes.push({op: 'Constant', name: `n${this.nid++}_Constant`, inputs: [], outputs: [name],
                attrs: {value: {type: 't', v: {name: '', dtype, dims, data}}}});
            this.count('Constant');
            return this.reg(name, dtype, dims, 0, true, this.nodes.length - 1);
        }
        const name = this.name('w');
        this.inits.push({name, dtype, dims: dims.slice(), data});
        return this.reg(name, dtype, dims, 0, true, -1);
    }
    ints(v, dtype = I64) { return this.konst(dtype, [v.length], dtype === I64 ? BigInt64Array.from(v.map(BigInt)) : Int32Array.from(v), true); }
    scalarF(v, rank0 = true) { return this.konst(F32, rank0 ? [] : [1], Float32Array.from([v])); }
    count(op) { this.opsUsed[op] = (this.opsUsed[op] || 0) + 1; }
    // node with outputs [{dtype, dims, tol}]; returns the output tensors
    // (o.dyn: that output's shape depends on values; implicit: outer-scope
    // tensors the node's subgraphs read)
    node(op, ins, outs, attrs = {}, implicit = []) {
        const names = outs.map(() => this.name('t'));
        const all = [...ins, ...implicit].filter(i => i !== '').map(i => this.t.get(i));
        const konst = all.every(t => t.konst) && !outs.some(o => o.dyn);
        const dyn = all.some(t => t.dyn), open = all.some(t => t.open);
        for (const t of all) t.readers++;
        this.nodes.push({op, name: `n${this.nid++}_${op}`, inputs: ins, outputs: names, attrs, implicit});
        this.count(op);
        return outs.map((o, k) => this.reg(names[k], o.dtype, o.dims, o.tol, konst, this.nodes.length - 1, dyn || !!o.dyn, open));
    }
    // a run-time tensor that satisfies f, or undefined; prefers recent ones
    find(f) {
        // (not run-time-shaped ones: the dynamic generators follow their own
        // with the ops Paleozoic plans at run time; a run-time dim moved off axis 0
        // into a MaxPool, LayerNormalization or Conv is refused, exit 2)
        const all = [...this.t.values()].filter(t => !t.konst && !t.open && !t.dyn && f(t));
        if (!all.length) return undefined;
        if (this.chance(0.6)) return all[all.length - 1 - Math.floor(this.r() * Math.min(3, all.length))];
        return this.pick(all);
    }
    // a float32 tensor of rank in [lo, hi], or a new input
    fx(lo = 1, hi = 5, maxNumel = 60000) {
        const t = this.find(t => t.dtype === F32 && t.dims.length >= lo && t.dims.length <= hi && numel(t.dims) <= maxNumel);
        if (t) return t;
        const rank = this.int(Math.max(lo, 1), Math.min(hi, 4));
        return this.input(F32, this.shape(rank));
    }
    shape(rank) {
        if (this.big && rank === 4) return [this.pick([1, 1, 2]), this.pick([16, 24, 32, 48, 64]), this.int(6, 36), this.int(6, 36)];
        if (rank >= 3) return [this.pick([1, 1, 2]), this.int(1, 20), ...Array.from({length: rank - 2}, () => this.dim())];
        return Array.from({length: rank}, () => this.dim());
    }
    // a tensor broadcastable to dims (for the second operand of a binary op)
    bshape(dims) {
        let drop = this.chance(0.3) ? this.int(0, dims.length) : 0;
        return dims.slice(drop).map(d => (this.chance(0.3) ? 1 : d));
    }
    // operand of dtype/dims: an existing tensor of that shape, a new input or a constant
    operand(dtype, dims, how = {}) {
        const c = this.r();
        if (!how.away && !how.positive && c < 0.3) {
            const t = this.find(t => t.dtype === dtype && t.dims.length === dims.length && t.dims.every((d, i) => d === dims[i]));
            if (t) return t;
        }
        if (c < 0.55 && !how.away && !how.positive) return this.input(dtype, dims);
        if (how.positive && isFloat(dtype)) return this.konst(dtype, dims, this.data(dtype, numel(dims), {uniform: [0.2, 2]}));
        return this.konst(dtype, dims, this.data(dtype, numel(dims), how));
    }
    // a second reader of t (a pass must then keep t), or t as a graph output
    extraReader(t) {
        if (this.chance(0.5)) this.forced.add(t.name);
        else this.node(isFloat(t.dtype) ? 'Relu' : 'Identity', [t.name], [{dtype: t.dtype, dims: t.dims, tol: t.tol}]);
    }
    // positive float tensor derived from x: Add(Sigmoid(x), c)
    positive(x) {
        const [s] = this.node('Sigmoid', [x.name], [{dtype: F32, dims: x.dims, tol: x.tol + TOL.trans}]);
        const c = this.scalarF(0.05 + this.r());
        return this.node('Add', [s.name, c.name], [{dtype: F32, dims: x.dims, tol: s.tol + TOL.simple}])[0];
    }
}

function bcast(a, b) {
    const r = Math.max(a.length, b.length), out = [];
    for (let i = 0; i < r; i++) {
        const x = a[a.length - r + i] ?? 1, y = b[b.length - r + i] ?? 1;
        if (x !== y && x !== 1 && y !== 1) return null;
        out.push(x === 1 ? y : x);
    }
    return out;
}

// Whether nearest Resize picks a different input index on one axis when the
// source coordinate is computed in float32 (ORT 1.17) and in double (the ONNX
// reference, Paleozoic): a coordinate on a rounding boundary (an integer for
// floor/ceil, a half for the round modes) that the two land on either side of.
// Such models are not generated: neither result is wrong.
function nearestAmbiguous(coord, nm, inn, out, scale) {
    const f = Math.fround;
    const at = (o, F, s) => {
        switch (coord) {
        case 'align_corners': return out === 1 ? 0 : F(F(o * (inn - 1)) / (out - 1));
        case 'asymmetric': return F(o / s);
        case 'pytorch_half_pixel': return out > 1 ? F(F(F(o + 0.5) / s) - 0.5) : 0;
        case 'half_pixel_symmetric': {
            const adj = F(out / F(s * inn)), off = F(F(inn / 2) * F(1 - adj));
            return F(off + F(F(F(o + 0.5) / s) - 0.5));
        }
        default: return F(F(F(o + 0.5) / s) - 0.5);
        }
    };
    const pick = v => {
        let i;
        if (nm === 'floor') i = Math.floor(v); else if (nm === 'ceil') i = Math.ceil(v);
        else if (nm === 'round_prefer_ceil') i = Math.floor(v + 0.5);
        else i = Math.ceil(v - 0.5);
        return Math.min(Math.max(i, 0), inn - 1);
    };
    // exact in both: a power-of-two scale in the plain modes
    const exact = Number.isInteger(Math.log2(scale)) && ['asymmetric', 'half_pixel', 'pytorch_half_pixel'].includes(coord);
    const edge = nm === 'floor' || nm === 'ceil' ? v => Math.abs(v - Math.round(v)) : v => Math.abs(v - Math.floor(v) - 0.5);
    for (let o = 0; o < out; o++) {
        const a = at(o, Math.fround, Math.fround(scale)), b = at(o, v => v, scale);
        if (pick(a) !== pick(b)) return true;
        // on a boundary the last bit of either computation decides (half_pixel_symmetric
        // 13 -> 27, floor: ORT's float gives 6.0, Paleozoic's double 5.99...)
        if (!exact && (edge(a) < 1e-4 || edge(b) < 1e-4)) return true;
    }
    return false;
}

// ---- op generators: each adds one node (or a few) and returns nothing -------
const UNARY = ['Relu', 'LeakyRelu', 'Sigmoid', 'Tanh', 'HardSigmoid', 'HardSwish', 'Elu', 'Selu',   // HardSwish: opset 14+
    'Softplus', 'Erf', 'Identity'];

function unary(g, op, x) {
    x = x || g.fx();
    const attrs = {};
    let tol = x.tol + (op === 'Relu' || op === 'Identity' ? 0 : ['LeakyRelu', 'HardSigmoid', 'HardSwish'].includes(op) ? TOL.simple : TOL.trans);
    if (op === 'LeakyRelu' && g.chance(0.8)) attrs.alpha = {type: 'f', v: g.pick([0.01, 0.1, 0.2, -0.5, 1.5])};
    if (op === 'HardSigmoid' && g.chance(0.8)) { attrs.alpha = {type: 'f', v: g.pick([0.2, 1 / 6, 0.5])}; attrs.beta = {type: 'f', v: g.pick([0.5, 0.3])}; }
    if (op === 'Elu' && g.chance(0.7)) attrs.alpha = {type: 'f', v: g.pick([1, 0.5, 2])};
    if (op === 'Selu' && g.chance(0.5)) { attrs.alpha = {type: 'f', v: 1.5 }; attrs.gamma = {type: 'f', v: 1.1}; }
    if (op === 'Gelu' && g.chance(0.4)) attrs.approximate = {type: 's', v: 'tanh'};
    return g.node(op, [x.name], [{dtype: x.dtype, dims: x.dims, tol}], attrs)[0];
}

const GENS = {
    unary(g) { const op = g.pick(UNARY); return unary(g, op === 'HardSwish' && g.opset < 14 ? 'Relu' : op); },
    gelu(g) { if (g.opset < 20) return unary(g, 'Relu'); return unary(g, 'Gelu'); },
    sqrt(g) { const x = g.positive(g.fx()); return g.node('Sqrt', [x.name], [{dtype: F32, dims: x.dims, tol: x.tol + TOL.trans}])[0]; },
    dropout(g) {
        const x = g.fx();
        const ins = [x.name];
        if (g.chance(0.5)) { ins.push(g.scalarF(g.pick([0, 0.5, 0.1])).name); if (g.chance(0.5)) ins.push(g.konst(BOOL, [], Uint8Array.from([0]), true).name); }
        const outs = [{dtype: F32, dims: x.dims, tol: x.tol}];
        if (g.chance(0.2)) outs.push({dtype: BOOL, dims: x.dims, tol: 0});
        return g.node('Dropout', ins, outs)[0];
    },
    prelu(g) {
        const x = g.fx();
        let sd;
        if (x.dims.length >= 3 && g.chance(0.6)) sd = [x.dims[1], ...x.dims.slice(2).map(() => 1)];
        else if (g.chance(0.3)) sd = [1];
        else sd = g.bshape(x.dims).slice(-Math.max(1, x.dims.length - 1));
        if (!bcast(x.dims, sd) || bcast(x.dims, sd).join() !== x.dims.join()) sd = [1];
        const s = g.konst(F32, sd, g.data(F32, numel(sd), {scale: 0.5}));
        return g.node('PRelu', [x.name, s.name], [{dtype: F32, dims: x.dims, tol: x.tol + TOL.simple}])[0];
    },
    clip(g) {
        const x = g.find(t => (t.dtype === F32 || t.dtype === I32 || t.dtype === I64)) || g.fx();
        const lo = g.chance(0.7) ? -g.r() * 2 : null, hi = g.chance(0.7) ? g.r() * 3 : null;
        const mk = v => isFloat(x.dtype) ? g.konst(x.dtype, [], Float32Array.from([v])).name
            : g.konst(x.dtype, [], g.data(x.dtype, 1, {lo: Math.round(v), hi: Math.round(v)})).name;
        const ins = [x.name];
        if (g.opset < 11) {   // Clip-6: min and max attributes, floats only
            const attrs = {};
            if (lo !== null) attrs.min = {type: 'f', v: lo};
            if (hi !== null) attrs.max = {type: 'f', v: hi};
            const xf = isFloat(x.dtype) ? x : g.fx();
            return g.node('Clip', [xf.name], [{dtype: xf.dtype, dims: xf.dims, tol: xf.tol}], attrs)[0];
        }
        if (lo !== null || hi !== null) ins.push(lo !== null ? mk(lo) : '');
        if (hi !== null) ins.push(mk(hi));
        return g.node('Clip', ins, [{dtype: x.dtype, dims: x.dims, tol: x.tol}])[0];
    },
    binary(g) {
        const op = g.pick(['Add', 'Sub', 'Mul', 'Div', 'Pow', 'Max', 'Min', 'Add', 'Mul']);
        let a;
        if ((['Add', 'Sub', 'Mul', 'Div'].includes(op) || g.opset >= 12) && ['Add', 'Sub', 'Mul', 'Max', 'Min', 'Div'].includes(op) && g.chance(0.25)) a = g.find(t => isInt(t.dtype) && t.dtype !== U8 && t.dtype !== I8 && t.dims.length >= 1);
        if (!a) a = g.fx();
        const dt = a.dtype;
        if (op === 'Pow') {
            if (g.chance(0.5)) {   // integer-valued exponent: any base
                const ev = g.pick([2, 3, 1, 0, -1]);
                const e = g.konst(F32, g.chance(0.5) ? [] : [1], Float32Array.from([ev]));
                const base = ev >= 0 && g.chance(0.5) ? a : g.positive(a);
                return g.node('Pow', [base.name, e.name], [{dtype: F32, dims: base.dims, tol: base.tol * 3 + TOL.trans}])[0];
            }
            const base = g.positive(a);
            const ed = g.bshape(base.dims);
            const e = g.chance(0.5) ? g.konst(F32, ed, g.data(F32, numel(ed), {uniform: [-1.5, 2.5]}))
                : g.node('Tanh', [g.operand(F32, ed).name], [{dtype: F32, dims: ed, tol: TOL.trans}])[0];
            const od = bcast(base.dims, ed);
            return g.node('Pow', [base.name, e.name], [{dtype: F32, dims: od, tol: Math.max(base.tol, e.tol) * 3 + TOL.trans}])[0];
        }
        const bd = g.bshape(a.dims);
        let b;
        if (op === 'Div') {
            if (isFloat(dt) && g.chance(0.3)) b = g.positive(g.operand(F32, bd));
            else b = g.konst(dt, bd, g.data(dt, numel(bd), {away: true, nonzero: true, lo: 1, hi: 5}));
        } else b = g.operand(dt, bd, {scale: 1});
        let [x, y] = g.chance(0.3) ? [b, a] : [a, b];
        if (op === 'Div') [x, y] = [a, b];
        const od = bcast(x.dims, y.dims);
        const tol = isInt(dt) ? 0 : (op === 'Max' || op === 'Min') ? Math.max(x.tol, y.tol)
            : (op === 'Add' || op === 'Sub') ? 2 * Math.max(x.tol, y.tol) + TOL.simple : x.tol + y.tol + TOL.simple;
        return g.node(op, [x.name, y.name], [{dtype: dt, dims: od, tol}])[0];
    },
    variadic(g) {
        const op = g.pick(['Max', 'Min']);
        const a = g.fx();
        const n = g.int(1, 3), ins = [a];
        for (let i = 1; i < n; i++) ins.push(g.operand(F32, g.bshape(a.dims)));
        let od = a.dims;
        for (const t of ins) od = bcast(od, t.dims);
        return g.node(op, ins.map(t => t.name), [{dtype: F32, dims: od, tol: Math.max(...ins.map(t => t.tol))}])[0];
    },
    where(g) {   // a select under a constant mask, all three broadcast
        let x = g.chance(0.25) ? g.find(t => isInt(t.dtype) && t.dims.length >= 1) : null;
        if (!x) x = g.fx();
        const y = g.operand(x.dtype, g.bshape(x.dims), {scale: 1});
        const cd = g.bshape(x.dims);
        const c = g.konst(BOOL, cd, g.data(BOOL, numel(cd)));
        const [a, b] = g.chance(0.5) ? [x, y] : [y, x];
        const od = bcast(bcast(cd, a.dims), b.dims);
        return g.node('Where', [c.name, a.name, b.name], [{dtype: x.dtype, dims: od, tol: Math.max(a.tol, b.tol)}])[0];
    },
    conv(g, o = {}) {
        const x = o.x || g.fx(3, g.chance(0.1) ? 5 : 4, g.big ? 200000 : 20000);
        const nsp = x.dims.length - 2, C = x.dims[1];
        const divs = []; for (let d = 1; d <= C; d++) if (C % d === 0) divs.push(d);
        const group = o.group || (g.chance(0.2) ? C : g.chance(0.2) ? g.pick(divs) : 1);
        let M = o.M || (group === C && g.chance(0.7) ? C : group * g.int(1, group > 4 ? 2 : Math.max(1, Math.floor(24 / group))));
        if (g.big && !o.M && group === 1 && g.chance(0.7)) M = g.pick([16, 32, 48, 64]);   // the blocked (16c) kernels
        const k = [], s = [], dl = [], pb = [], pe = [], od = [];
        const auto = o.same ? o.auto : o.auto || (g.chance(0.15) ? g.pick(['SAME_UPPER', 'SAME_LOWER', 'VALID']) : null);
        for (let i = 0; i < nsp; i++) {
            const H = x.dims[2 + i];
            let kk = o.k || g.pick([1, 1, 3, 3, 3, 2, 5]);
            let dd = g.chance(0.15) && !(auto || '').startsWith('SAME') ? 2 : 1, ss = o.s || (g.chance(0.25) ? 2 : g.chance(0.05) ? 3 : 1);
            let ek = (kk - 1) * dd + 1;
            let a = o.pad !== undefined ? o.pad : g.chance(0.3) ? 0 : g.int(0, kk - 1), b = o.pad !== undefined ? o.pad : g.chance(0.7) ? a : g.int(0, kk - 1);
            if (auto === 'VALID') { a = b = 0; }
            while (ek > H + a + b) { if (dd > 1) dd = 1; else if (kk > 1) kk--; ek = (kk - 1) * dd + 1; }
            // SAME with a stride above ek + 1 pads negatively: Paleozoic refuses it (exit 2)
            if ((auto || '').startsWith('SAME') && ss > ek + 1) ss = ek + 1;
            if (o.same) { kk = o.same.k[i]; ss = o.same.s[i]; dd = o.same.dl[i]; a = o.same.pb[i]; b = o.same.pe[i]; ek = (kk - 1) * dd + 1; }
            let o2;
            if (auto === 'SAME_UPPER' || auto === 'SAME_LOWER') o2 = Math.ceil(H / ss);
            else o2 = Math.floor((H + a + b - ek) / ss) + 1;
            k.push(kk); s.push(ss); dl.push(dd); pb.push(a); pe.push(b); od.push(o2);
        }
        const fan = (C / group) * numel(k);
        const w = o.w || g.konst(F32, [M, C / group, ...k], g.data(F32, M * fan, {scale: 1 / Math.sqrt(fan)}), true);
        const ins = [x.name, w.name];
        if (o.b) ins.push(o.b.name);
        else if (o.bias !== false && g.chance(0.6)) ins.push(g.konst(F32, [M], g.data(F32, M, {scale: 0.3}), true).name);
        g.lastConv = {w, b: ins[2] ? g.t.get(ins[2]) : null, k, s, group, M, auto, pb, pe, dl};
        const attrs = {};
        if (g.chance(0.7) || k.some(v => v !== k[0])) attrs.kernel_shape = {type: 'is', v: k};
        if (s.some(v => v !== 1) || g.chance(0.2)) attrs.strides = {type: 'is', v: s};
        if (dl.some(v => v !== 1)) attrs.dilations = {type: 'is', v: dl};
        if (group !== 1) attrs.group = {type: 'i', v: group};
        if (auto) attrs.auto_pad = {type: 's', v: auto};
        else if (pb.some(v => v) || pe.some(v => v) || g.chance(0.2)) attrs.pads = {type: 'is', v: [...pb, ...pe]};
        return g.node('Conv', ins, [{dtype: F32, dims: [x.dims[0], M, ...od], tol: 2 * x.tol + TOL.acc * Math.sqrt(fan)}], attrs)[0];
    },
    convTranspose(g) {
        const x = g.fx(3, 4, 8000);
        const nsp = x.dims.length - 2, C = x.dims[1];
        const group = g.chance(0.2) && C > 1 ? C : 1;
        const M = group * g.int(1, group > 1 ? 1 : 8);
        const k = [], s = [], dl = [], pb = [], pe = [], op = [], od = [];
        for (let i = 0; i < nsp; i++) {
            const H = x.dims[2 + i];
            const kk = g.pick([1, 2, 3, 4]), ss = g.pick([1, 2, 2, 3]), dd = g.chance(0.15) ? 2 : 1;
            const ek = (kk - 1) * dd + 1;
            let a = g.int(0, kk - 1), b = g.int(0, kk - 1);
            // output_padding >= stride (allowed below the dilation) comes out garbled from
            // ORT 1.17 (checked against numpy; Paleozoic is right): not generated
            const opad = g.chance(0.3) ? g.int(0, ss - 1) : 0;
            let o2 = ss * (H - 1) + opad + ek - a - b;
            if (o2 < 1) { a = 0; b = 0; o2 = ss * (H - 1) + opad + ek; }
            k.push(kk); s.push(ss); dl.push(dd); pb.push(a); pe.push(b); op.push(opad); od.push(o2);
        }
        const fan = (C / group) * numel(k);
        const w = g.konst(F32, [C, M / group, ...k], g.data(F32, C * (M / group) * numel(k), {scale: 1 / Math.sqrt(fan)}), true);
        const ins = [x.name, w.name];
        if (g.chance(0.5)) ins.push(g.konst(F32, [M], g.data(F32, M, {scale: 0.3}), true).name);
        const attrs = {kernel_shape: {type: 'is', v: k}, strides: {type: 'is', v: s}, pads: {type: 'is', v: [...pb, ...pe]}};
        if (dl.some(v => v !== 1)) attrs.dilations = {type: 'is', v: dl};
        if (op.some(v => v)) attrs.output_padding = {type: 'is', v: op};
        if (group !== 1) attrs.group = {type: 'i', v: group};
        return g.node('ConvTranspose', ins, [{dtype: F32, dims: [x.dims[0], M, ...od], tol: 2 * x.tol + TOL.acc * Math.sqrt(fan)}], attrs)[0];
    },
    pool(g) {
        const op = g.pick(['MaxPool', 'AveragePool']);
        const x = g.fx(3, g.chance(0.1) ? 5 : 4);
        const nsp = x.dims.length - 2;
        const k = [], s = [], dl = [], pb = [], pe = [], od = [];
        let ceil = g.chance(0.3) && g.opset >= 10 ? 1 : 0, fires = false;
        for (let i = 0; i < nsp; i++) {
            const H = x.dims[2 + i];
            let kk = Math.min(g.pick([1, 2, 2, 3, 3, 5]), H + 2), dd = op === 'MaxPool' && g.opset >= 10 && g.chance(0.15) ? 2 : 1;
            const ss = g.pick([1, 2, 2, 3]);
            let a = g.chance(0.5) ? 0 : g.int(0, kk - 1), b = g.chance(0.6) ? a : g.int(0, kk - 1);
            // dilated windows could fall wholly into the padding: the max of nothing is
            // -FLT_MAX in ORT, -inf in Paleozoic (ONNX does not say): not generated
            if (dd > 1) a = b = 0;
            let ek = (kk - 1) * dd + 1;
            while (ek > H + a + b) { if (dd > 1) dd = 1; else kk--; ek = (kk - 1) * dd + 1; }
            if (a >= kk) a = kk - 1; if (b >= kk) b = kk - 1;
            while (ek > H + a + b) { kk--; ek = (kk - 1) * dd + 1; }
            const span = H + a + b - ek;
            let o2 = ceil ? Math.ceil(span / ss) + 1 : Math.floor(span / ss) + 1;
            // ONNX drops a ceil_mode window that starts in the right padding; ORT 1.17 keeps
            // it (a known ORT difference): not generated
            if (ceil && (o2 - 1) * ss >= H + a) fires = true;
            // a ceil_mode window that runs past the right padding: ORT divides by the whole
            // kernel (count_include_pad), Paleozoic by the part inside the padded input
            if (ceil && (o2 - 1) * ss + ek > H + a + b) fires = true;
            k.push(kk); s.push(ss); dl.push(dd); pb.push(a); pe.push(b); od.push(o2);
        }
        if (fires) {   // the same windows without ceil_mode
            ceil = 0;
            for (let i = 0; i < nsp; i++) od[i] = Math.floor((x.dims[2 + i] + pb[i] + pe[i] - (k[i] - 1) * dl[i] - 1) / s[i]) + 1;
        }
        const attrs = {kernel_shape: {type: 'is', v: k}};
        if (s.some(v => v !== 1) || g.chance(0.5)) attrs.strides = {type: 'is', v: s};
        if (pb.some(v => v) || pe.some(v => v)) attrs.pads = {type: 'is', v: [...pb, ...pe]};
        if (ceil) attrs.ceil_mode = {type: 'i', v: 1};
        if (dl.some(v => v !== 1)) attrs.dilations = {type: 'is', v: dl};
        if (op === 'AveragePool' && g.chance(0.4)) attrs.count_include_pad = {type: 'i', v: 1};
        return g.node(op, [x.name], [{dtype: F32, dims: [x.dims[0], x.dims[1], ...od], tol: x.tol + (op === 'MaxPool' ? 0 : TOL.trans)}], attrs)[0];
    },
    globalPool(g) {
        const x = g.fx(3, 5);
        const op = g.pick(['GlobalAveragePool', 'GlobalMaxPool']);
        return g.node(op, [x.name], [{dtype: F32, dims: [x.dims[0], x.dims[1], ...x.dims.slice(2).map(() => 1)], tol: x.tol + (op === 'GlobalMaxPool' ? 0 : TOL.acc)}])[0];
    },
    batchnorm(g, x) {
        x = x || g.fx(2, 5);
        const C = x.dims[1];
        const p = [g.data(F32, C, {uniform: [0.5, 1.5]}), g.data(F32, C, {scale: 0.3}), g.data(F32, C, {scale: 0.3}), g.data(F32, C, {uniform: [0.3, 2]})];
        const ins = [x.name, ...p.map(d => g.konst(F32, [C], d, g.chance(0.8)).name)];
        const attrs = g.chance(0.5) ? {epsilon: {type: 'f', v: g.pick([1e-5, 1e-3, 0.1])}} : {};
        return g.node('BatchNormalization', ins, [{dtype: F32, dims: x.dims, tol: x.tol * 2 + TOL.trans}], attrs)[0];
    },
    gemm(g) {
        let a = g.fx(2, 2, 20000);
        let [M, K] = a.dims;
        const transA = g.chance(0.3) ? 1 : 0;
        if (transA) [M, K] = [K, M];
        const N = g.int(1, 20), transB = g.chance(0.5) ? 1 : 0;
        const bd = transB ? [N, K] : [K, N];
        const b = g.chance(0.8) ? g.konst(F32, bd, g.data(F32, K * N, {scale: 1 / Math.sqrt(K)}), true) : g.operand(F32, bd);
        const ins = [a.name, b.name];
        if (g.chance(0.7) || g.opset < 11) {   // C is optional from opset 11
            const cd = g.pick([[N], [1, N], [M, N], [M, 1], [], [1]]);
            ins.push(g.konst(F32, cd, g.data(F32, numel(cd), {scale: 0.5})).name);
        }
        const attrs = {};
        if (transA) attrs.transA = {type: 'i', v: 1};
        if (transB) attrs.transB = {type: 'i', v: 1};
        if (g.chance(0.3)) attrs.alpha = {type: 'f', v: g.pick([0.5, 2, -1])};
        if (g.chance(0.3)) attrs.beta = {type: 'f', v: g.pick([0.5, 2, 0])};
        return g.node('Gemm', ins, [{dtype: F32, dims: [M, N], tol: 2 * Math.max(a.tol, b.tol) + TOL.acc * Math.sqrt(K)}], attrs)[0];
    },
    matmul(g) {
        const a = g.fx(1, 4, 20000);
        const K = a.dims[a.dims.length - 1];
        let bd, od;
        const N = g.int(1, 17);
        if (a.dims.length === 1 || g.chance(0.5)) { bd = [K, N]; od = [...a.dims.slice(0, -1), N]; }
        else if (g.chance(0.2)) { bd = [K]; od = a.dims.slice(0, -1); }
        else {
            const batch = a.dims.slice(0, -2).map(d => (g.chance(0.3) ? 1 : d));
            bd = [...batch, K, N]; od = [...a.dims.slice(0, -1), N];
            if (g.chance(0.3) && a.dims.length < 4) { bd = [2, ...bd]; od = [2, ...od]; }
        }
        const b = g.chance(0.6) ? g.konst(F32, bd, g.data(F32, numel(bd), {scale: 1 / Math.sqrt(K)}), true) : g.operand(F32, bd);
        return g.node('MatMul', [a.name, b.name], [{dtype: F32, dims: od, tol: 2 * Math.max(a.tol, b.tol) + TOL.acc * Math.sqrt(K)}])[0];
    },
    flatten(g) {
        const x = g.find(t => t.dims.length >= 1) || g.fx();
        const r = x.dims.length, axis = g.int(g.opset < 11 ? 0 : -r, r);   // negative axes from opset 11
        const a = axis < 0 ? axis + r : axis;
        const attrs = g.chance(0.8) ? {axis: {type: 'i', v: axis}} : {};
        const aa = attrs.axis ? a : 1;
        return g.node('Flatten', [x.name], [{dtype: x.dtype, dims: [numel(x.dims.slice(0, aa)), numel(x.dims.slice(aa))], tol: x.tol}], attrs)[0];
    },
    reshape(g) {
        const x = g.find(t => t.dims.length >= 1) || g.fx();
        const n = numel(x.dims);
        // factor n into 1 to 5 dims
        const f = [];
        let rest = n;
        for (let p = 2; p <= rest; p++) while (rest % p === 0) { f.push(p); rest /= p; }
        g.shuffle(f);
        const rank = g.int(1, 5), dims = Array(rank).fill(1);
        for (const p of f) dims[g.int(0, rank - 1)] *= p;
        const sh = dims.slice();
        if (g.chance(0.4)) sh[g.int(0, rank - 1)] = -1;
        for (let i = 0; i < rank && i < x.dims.length; i++) if (sh[i] === x.dims[i] && g.chance(0.3)) sh[i] = 0;
        let s;
        if (g.chance(0.1)) {   // the target shape from Shape(y) of another tensor of that shape
            const y = g.find(t => t.dims.join() === dims.join());
            if (y) s = g.node('Shape', [y.name], [{dtype: I64, dims: [rank], tol: 0}])[0];
        }
        if (!s) s = g.ints(sh);
        return g.node('Reshape', [x.name, s.name], [{dtype: x.dtype, dims, tol: x.tol}])[0];
    },
    transpose(g) {
        const x = g.find(t => t.dims.length >= 2) || g.fx(2);
        const perm = g.shuffle([...x.dims.keys()]);
        const attrs = g.chance(0.85) ? {perm: {type: 'is', v: perm}} : {};
        const p = attrs.perm ? perm : [...x.dims.keys()].reverse();
        return g.node('Transpose', [x.name], [{dtype: x.dtype, dims: p.map(i => x.dims[i]), tol: x.tol}], attrs)[0];
    },
    squeeze(g) {
        let x = g.find(t => t.dims.includes(1));
        if (!x) return GENS.unsqueeze(g);
        const ones = [...x.dims.keys()].filter(i => x.dims[i] === 1);
        const r = x.dims.length;
        let axes = g.chance(0.2) ? null : ones.filter(() => g.chance(0.6));
        if (axes && !axes.length) axes = [ones[0]];
        const drop = axes || ones;
        const ins = [x.name];
        if (axes) ins.push(g.ints(axes.map(a => (g.chance(0.3) ? a - r : a))).name);
        return g.node('Squeeze', ins, [{dtype: x.dtype, dims: x.dims.filter((d, i) => !drop.includes(i)), tol: x.tol}])[0];
    },
    unsqueeze(g) {
        const x = g.find(t => t.dims.length <= 4) || g.fx(1, 3);
        const n = g.int(1, Math.min(2, 5 - x.dims.length)), r = x.dims.length + n;
        const axes = g.shuffle([...Array(r).keys()]).slice(0, n);
        const od = [];
        for (let i = 0, j = 0; i < r; i++) od.push(axes.includes(i) ? 1 : x.dims[j++]);
        return g.node('Unsqueeze', [x.name, g.ints(axes.map(a => (g.chance(0.3) ? a - r : a))).name], [{dtype: x.dtype, dims: od, tol: x.tol}])[0];
    },
    concat(g) {
        const x = g.find(t => t.dims.length >= 1) || g.fx();
        const r = x.dims.length, axis = g.int(0, r - 1);
        const ins = [x];
        const n = g.int(1, 3);
        for (let i = 0; i < n; i++) {
            if (g.chance(0.25)) { ins.push(x); continue; }
            const d = x.dims.slice(); d[axis] = g.int(1, 6);
            const same = g.find(t => t !== x && t.dtype === x.dtype && t.dims.length === r && t.dims.every((v, k) => k === axis || v === x.dims[k]));
            ins.push(same && g.chance(0.5) ? same : g.operand(x.dtype, d));
        }
        g.shuffle(ins);
        const od = x.dims.slice(); od[axis] = ins.reduce((a, t) => a + t.dims[axis], 0);
        return g.node('Concat', ins.map(t => t.name), [{dtype: x.dtype, dims: od, tol: Math.max(...ins.map(t => t.tol))}], {axis: {type: 'i', v: g.chance(0.3) ? axis - r : axis}})[0];
    },
    split(g) {
        const x = g.find(t => t.dims.some(d => d >= 2));
        if (!x) return GENS.concat(g);
        const r = x.dims.length;
        const axes = [...x.dims.keys()].filter(i => x.dims[i] >= 2), axis = g.pick(axes), D = x.dims[axis];
        const attrs = {axis: {type: 'i', v: g.chance(0.3) ? axis - r : axis}};
        const ins = [x.name];
        let parts;
        const mode = g.r();
        if (mode < 0.5) {   // explicit sizes
            const n = g.int(2, Math.min(4, D));
            parts = Array(n).fill(1); for (let i = n; i < D; i++) parts[g.int(0, n - 1)]++;
            ins.push(g.ints(parts).name);
        } else if (g.opset >= 18 && mode < 0.75) {
            const n = g.int(2, Math.min(4, D));
            const c = Math.ceil(D / n);
            parts = []; for (let left = D; left > 0; left -= c) parts.push(Math.min(c, left));
            if (parts.length !== n) { parts = [D - 1, 1]; ins.push(g.ints(parts).name); }
            else attrs.num_outputs = {type: 'i', v: n};
        } else {
            const divs = []; for (let d = 2; d <= Math.min(D, 4); d++) if (D % d === 0) divs.push(d);
            if (!divs.length || g.opset >= 18) { parts = [1, D - 1]; ins.push(g.ints(parts).name); }
            else { const n = g.pick(divs); parts = Array(n).fill(D / n); }
        }
        const outs = g.node('Split', ins, parts.map(p => { const d = x.dims.slice(); d[axis] = p; return {dtype: x.dtype, dims: d, tol: x.tol}; }), attrs);
        return g.pick(outs);
    },
    slice(g) {
        const x = g.find(t => t.dims.length >= 1) || g.fx();
        const r = x.dims.length;
        const axes = g.shuffle([...x.dims.keys()]).slice(0, g.int(1, r));
        const st = [], en = [], sp = [], od = x.dims.slice();
        for (const a of axes) {
            const D = x.dims[a];
            let step = g.chance(0.7) ? 1 : g.pick([2, 3, -1, -2]);
            let s, e, n;
            for (let tries = 0; ; tries++) {
                s = g.chance(0.1) ? g.pick([-1000, 1000, -D, D]) : g.int(-D, D);
                e = g.chance(0.15) ? (step > 0 ? g.pick([1e9, 2 ** 31 - 1, D + 3]) : g.pick([-1e9, -D - 2])) : g.int(-D, D);
                // ONNX clamping
                const cl = (v, lo, hi) => Math.min(Math.max(v, lo), hi);
                let s2 = s < 0 ? s + D : s, e2 = e < 0 ? e + D : e;
                if (step > 0) { s2 = cl(s2, 0, D); e2 = cl(e2, 0, D); n = Math.max(0, Math.ceil((e2 - s2) / step)); }
                else { s2 = cl(s2, 0, D - 1); e2 = cl(e2, -1, D - 1); n = Math.max(0, Math.ceil((s2 - e2) / -step)); }
                if (n >= 1) break;
                if (tries > 8) { step = 1; s = 0; e = D; n = D; break; }
            }
            st.push(s); en.push(e); sp.push(step); od[a] = n;
        }
        const dt = g.chance(0.2) ? I32 : I64;
        const ins = [x.name, g.ints(st, dt).name, g.ints(en, dt).name];
        const natural = axes.every((a, i) => a === i) && axes.length === r;
        if (!natural || g.chance(0.5) || sp.some(v => v !== 1)) {
            ins.push(g.ints(axes.map(a => (g.chance(0.3) ? a - r : a)), dt).name);
            if (sp.some(v => v !== 1) || g.chance(0.3)) ins.push(g.ints(sp, dt).name);
        }
        return g.node('Slice', ins, [{dtype: x.dtype, dims: od, tol: x.tol}])[0];
    },
    pad(g, o = {}) {
        const x = o.x || g.find(t => t.dims.length >= 1) || g.fx();
        const r = x.dims.length;
        const modes = ['constant', 'constant', 'reflect', 'edge'];
        if (g.opset >= 19) modes.push('wrap');
        const mode = o.mode || g.pick(modes);
        const b = [], e = [], od = [];
        for (let i = 0; i < r; i++) {
            const D = x.dims[i];
            const lim = mode === 'reflect' ? D - 1 : mode === 'wrap' ? D : 3;
            let pb = o.zero ? 0 : g.chance(0.4) ? 0 : g.int(0, Math.min(3, lim));
            let pe = o.zero ? 0 : g.chance(0.4) ? 0 : g.int(0, Math.min(3, lim));
            if (!o.zero && mode === 'constant' && g.chance(0.1) && D > 2) pb = -1;
            if (o.spatialOnly && i < 2) pb = pe = 0;
            b.push(pb); e.push(pe); od.push(D + pb + pe);
        }
        const ins = [x.name, g.ints([...b, ...e]).name];
        if (mode === 'constant' && !o.zero && g.chance(0.4) && isFloat(x.dtype) && x.dtype === F32) ins.push(g.konst(F32, g.chance(0.5) ? [] : [1], Float32Array.from([g.pick([0, 1.5, -2])])).name);
        const attrs = mode !== 'constant' || g.chance(0.3) ? {mode: {type: 's', v: mode}} : {};
        return g.node('Pad', ins, [{dtype: x.dtype, dims: od, tol: x.tol}], attrs)[0];
    },
    gather(g) {
        const x = g.find(t => t.dims.length >= 1) || g.fx();
        const r = x.dims.length, axis = g.int(0, r - 1), D = x.dims[axis];
        const id = g.pick([[], [1], [g.int(1, 5)], [2, g.int(1, 3)]]);
        const dt = g.chance(0.3) ? I32 : I64;
        const idx = g.konst(dt, id, g.data(dt, numel(id), {lo: -D, hi: D - 1}), g.chance(0.5));
        const od = [...x.dims.slice(0, axis), ...id, ...x.dims.slice(axis + 1)];
        if (od.length > 6) return GENS.unary(g);
        const attrs = axis || g.chance(0.5) ? {axis: {type: 'i', v: g.chance(0.3) ? axis - r : axis}} : {};
        return g.node('Gather', [x.name, idx.name], [{dtype: x.dtype, dims: od, tol: x.tol}], attrs)[0];
    },
    shape(g) {
        const x = g.find(t => t.dims.length >= 1) || g.fx();
        const r = x.dims.length;
        const attrs = {};
        let s0 = 0, e0 = r;
        if (g.opset >= 15 && g.chance(0.4)) { s0 = g.int(0, r - 1); attrs.start = {type: 'i', v: g.chance(0.5) ? s0 - r : s0}; }
        if (g.opset >= 15 && g.chance(0.3)) { e0 = g.int(s0 + 1, r); attrs.end = {type: 'i', v: e0}; }
        const [s] = g.node('Shape', [x.name], [{dtype: I64, dims: [e0 - s0], tol: 0}], attrs);
        const sub = x.dims.slice(s0, e0);
        if (g.chance(0.5) && numel(sub) <= 4096) {   // ConstantOfShape(shape) combined with x
            const v = g.chance(0.7) ? {dtype: F32, data: Float32Array.from([g.pick([0, 1, 0.5, -2])])} : {dtype: I64, data: BigInt64Array.from([3n])};
            const attrs2 = g.chance(0.8) ? {value: {type: 't', v: {name: '', dtype: v.dtype, dims: [1], data: v.data}}} : {};
            const dt = attrs2.value ? v.dtype : F32;
            const [c] = g.node('ConstantOfShape', [s.name], [{dtype: dt, dims: sub, tol: 0}], attrs2);
            if (dt === x.dtype && bcast(x.dims, sub)) return g.node('Add', [x.name, c.name], [{dtype: x.dtype, dims: bcast(x.dims, sub), tol: x.tol + (isFloat(x.dtype) ? TOL.simple : 0)}])[0];
            return c;
        }
        // Reshape(x, Shape(x)): a no-op reshape through a shape chain
        if (s0 === 0 && e0 === r) return g.node('Reshape', [x.name, s.name], [{dtype: x.dtype, dims: x.dims, tol: x.tol}])[0];
        return s;
    },
    cast(g) {
        const x = g.find(t => t.tol === 0 || isFloat(t.dtype)) || g.fx();
        let to;
        if (isFloat(x.dtype) && x.tol > 0) to = g.pick([F32, F16, F64]);
        else to = g.pick([F32, F16, F64, I32, I64, I8, U8, BOOL, F32, I32]);
        // a negative float to uint8/int8 out of range is undefined (ORT wraps, Paleozoic
        // saturates): from floats only to the wide integers
        if (isFloat(x.dtype) && (to === U8 || to === I8)) to = I32;
        if (to === x.dtype) to = x.dtype === F32 ? I32 : F32;
        // ORT 1.17 (even with optimizations disabled) runs Cast(float -> int32) -> Cast(-> bool)
        // as one float -> bool Cast when the int is not a graph output: -0.43 -> true (Paleozoic
        // false, as ONNX says); no Cast of a Cast's output to bool
        if (to === BOOL && x.producer >= 0 && g.nodes[x.producer].op === 'Cast') to = F32;
        let tol = x.tol;
        if (to === F16) tol += 1e-3;
        const [y] = g.node('Cast', [x.name], [{dtype: to, dims: x.dims, tol}], {to: {type: 'i', v: to}});
        if (to === F16 || (to === BOOL && g.chance(0.5)) || (to === I8 && g.chance(0.5))) {   // and back, so later math can read it
            const back = g.chance(0.3) && x.dtype === F32 && to !== F16 && to !== BOOL && g.opset >= 15 ? 'CastLike' : 'Cast';
            if (back === 'CastLike') return g.node('CastLike', [y.name, x.name], [{dtype: x.dtype, dims: x.dims, tol}])[0];
            return g.node('Cast', [y.name], [{dtype: F32, dims: x.dims, tol}], {to: {type: 'i', v: F32}})[0];
        }
        return y;
    },
    castlike(g) {
        if (g.opset < 15) return GENS.cast(g);
        const x = g.find(t => t.dtype === I32 || t.dtype === I64 || (t.dtype === F32 && t.tol === 0)) || g.fx();
        let dt = g.pick([F32, F64, I32, I64]);
        if (dt === x.dtype) dt = F64;
        const like = g.konst(dt, [1], g.data(dt, 1));
        return g.node('CastLike', [x.name, like.name], [{dtype: dt, dims: x.dims, tol: x.tol}])[0];
    },
    resize(g) {
        const x = g.fx(3, 4, 6000);
        const r = x.dims.length;
        const mode = r === 4 ? g.pick(['nearest', 'linear', 'cubic', 'nearest']) : 'nearest';
        const coords = ['half_pixel', 'pytorch_half_pixel', 'align_corners', 'asymmetric'];
        if (g.opset >= 19) coords.push('half_pixel_symmetric');
        if (mode !== 'nearest') coords.push('tf_crop_and_resize');
        const coord = g.pick(coords);
        const attrs = {mode: {type: 's', v: mode}, coordinate_transformation_mode: {type: 's', v: coord}};
        if (mode === 'nearest' && g.chance(0.7)) attrs.nearest_mode = {type: 's', v: g.pick(['round_prefer_floor', 'round_prefer_ceil', 'floor', 'ceil'])};
        if (mode === 'cubic' && g.chance(0.5)) attrs.cubic_coeff_a = {type: 'f', v: g.pick([-0.5, -0.75])};
        if (mode === 'cubic' && g.chance(0.3)) attrs.exclude_outside = {type: 'i', v: 1};
        const ins = [x.name];
        ins.push(coord === 'tf_crop_and_resize' ? g.konst(F32, [2 * r], Float32Array.from([...Array(r).fill(0), ...Array(r).fill(1)].map((v, i) => (i % r >= 2 ? (v ? 0.9 : 0.1) : v))), true).name : '');
        const od = x.dims.slice();
        if (g.chance(0.5)) {
            const sc = [1, 1];
            for (let i = 2; i < r; i++) {
                sc.push(g.pick([2, 0.5, 1.5, 3, 1, 0.75])); od[i] = Math.floor(x.dims[i] * sc[i]);
                // these modes read the float output length in * scale: the ONNX reference
                // (and Paleozoic) use it unrounded, ORT 1.17 the integer length; generated
                // only where the two agree
                const fl = ['align_corners', 'tf_crop_and_resize', 'pytorch_half_pixel', 'half_pixel_symmetric'].includes(coord);
                if (od[i] < 1 || (fl && od[i] !== x.dims[i] * sc[i]) || (coord === 'tf_crop_and_resize' && sc[i] === 1)) { sc[i] = 2; od[i] = x.dims[i] * 2; }
            }
            ins.push(g.konst(F32, [r], Float32Array.from(sc), true).name);
        } else {
            for (let i = 2; i < r; i++) od[i] = g.int(1, 2 * x.dims[i] + 2);
            // ORT 1.17 (cubic at least) ignores the roi on an axis it does not resize
            if (coord === 'tf_crop_and_resize') for (let i = 2; i < r; i++) if (od[i] === x.dims[i]) od[i]++;
            ins.push('', g.ints(od).name);
        }
        const tol = x.tol + (mode === 'nearest' ? 0 : TOL.trans);
        // pytorch_half_pixel onto 1 element: ONNX's text (and ORT) x_original = 0, its
        // reference implementation (and Paleozoic) -0.5: not generated
        if (coord === 'pytorch_half_pixel' && od.some(d => d === 1)) return GENS.unary(g);
        if (mode === 'nearest') {
            const sc = ins[2] ? g.inits.find(t => t.name === ins[2]).data : null;
            const nm = attrs.nearest_mode ? attrs.nearest_mode.v : 'round_prefer_floor';
            for (let i = 2; i < r; i++)
                if (nearestAmbiguous(coord, nm, x.dims[i], od[i], sc ? sc[i] : od[i] / x.dims[i])) return GENS.unary(g);
        }
        return g.node('Resize', ins, [{dtype: F32, dims: od, tol}], attrs)[0];
    },
    // Upsample-9 (legacy models): scales a constant input, N and C kept
    upsample(g) {
        if (g.opset >= 10) return GENS.resize(g);
        const x = g.fx(4, 4, 6000);
        const mode = g.pick(['nearest', 'linear']);
        const sc = [1, 1, g.pick([1, 2, 3, 1.5]), g.pick([1, 2, 2.5])];
        const od = x.dims.map((d, i) => Math.floor(d * sc[i]));
        const attrs = g.chance(0.8) || mode !== 'nearest' ? {mode: {type: 's', v: mode}} : {};
        const s2 = g.konst(F32, [4], Float32Array.from(sc), true);
        return g.node('Upsample', [x.name, s2.name], [{dtype: F32, dims: od, tol: x.tol + (mode === 'nearest' ? 0 : TOL.trans)}], attrs)[0];
    },
    softmax(g) {
        const x = g.fx(1, 4);
        const op = g.pick(['Softmax', 'LogSoftmax']);
        const r = x.dims.length;
        const attrs = g.chance(0.8) ? {axis: {type: 'i', v: g.int(-r, r - 1)}} : {};
        return g.node(op, [x.name], [{dtype: F32, dims: x.dims, tol: x.tol * 4 + TOL.acc}], attrs)[0];
    },
    lrn(g) {
        const x = g.fx(4, 4);
        const attrs = {size: {type: 'i', v: g.pick([1, 3, 5])}};   // ORT: odd sizes only
        if (g.chance(0.5)) attrs.alpha = {type: 'f', v: g.pick([1e-4, 0.01, 0.5])};
        if (g.chance(0.5)) attrs.beta = {type: 'f', v: g.pick([0.75, 0.5, 1])};
        if (g.chance(0.5)) attrs.bias = {type: 'f', v: g.pick([1, 2])};
        return g.node('LRN', [x.name], [{dtype: F32, dims: x.dims, tol: x.tol * 2 + TOL.trans}], attrs)[0];
    },
    layernorm(g) {
        if (g.opset < 17) return GENS.reducemean(g);
        const x = g.fx(1, 4);
        const r = x.dims.length, axis = g.int(-r, r - 1), a = axis < 0 ? axis + r : axis;
        const nd = x.dims.slice(a);
        const sd = nd;   // ORT 1.17: scale and B have X.shape[axis:]'s size
        const ins = [x.name, g.konst(F32, sd, g.data(F32, numel(sd), {uniform: [0.5, 1.5]})).name];
        if (g.chance(0.6)) ins.push(g.konst(F32, sd, g.data(F32, numel(sd), {scale: 0.3})).name);
        const attrs = {axis: {type: 'i', v: axis}};
        if (g.chance(0.5)) attrs.epsilon = {type: 'f', v: g.pick([1e-5, 1e-3])};
        // graphfuzz.js gives ORT this node written out (refModel: its own kernel
        // loses digits on rows of small variance); a computed input of small
        // variance still amplifies its float rounding through d / sqrt(var + eps)
        const outs = [{dtype: F32, dims: x.dims, tol: x.tol * 4 + (x.producer >= 0 ? 1e-3 : TOL.long)}];
        return g.node('LayerNormalization', ins, outs, attrs)[0];
    },
    reducemean(g, o = {}) {
        const x = o.x || (g.chance(0.2) && g.find(t => t.dtype === I32 && t.dims.length)) || g.fx(1, 5);   // ORT: no int64 ReduceMean
        const r = x.dims.length;
        let axes = o.axes || [...x.dims.keys()].filter(() => g.chance(0.5));
        const keep = o.keep !== undefined ? o.keep : g.chance(0.7) ? 1 : 0;
        const all = !axes.length;
        const od = [];
        for (let i = 0; i < r; i++) if (all || axes.includes(i)) { if (keep) od.push(1); } else od.push(x.dims[i]);
        const attrs = {};
        if (keep === 0 || g.chance(0.3)) attrs.keepdims = {type: 'i', v: keep};
        const ins = [x.name];
        const ax = axes.map(a => (g.chance(0.3) ? a - r : a));
        if (!all) { if (g.opset >= 18) ins.push(g.ints(ax).name); else attrs.axes = {type: 'is', v: ax}; }
        const nred = numel(x.dims) / Math.max(1, numel(od));
        return g.node('ReduceMean', ins, [{dtype: x.dtype, dims: od, tol: isInt(x.dtype) ? 0 : x.tol + TOL.acc * Math.sqrt(nred)}], attrs)[0];
    },
    constant(g) {
        const x = g.fx();
        const d = g.bshape(x.dims);
        const c = g.konst(F32, d, g.data(F32, numel(d)), false);
        return g.node(g.pick(['Add', 'Mul', 'Sub']), [x.name, c.name], [{dtype: F32, dims: bcast(x.dims, d), tol: 2 * x.tol + TOL.simple}])[0];
    },
    identity(g) {
        const x = g.find(() => true) || g.fx();
        return g.node('Identity', [x.name], [{dtype: x.dtype, dims: x.dims, tol: x.tol}])[0];
    },

    // tensors of the other types Paleozoic runs (graph inputs of that type or a
    // Cast), through the ops that take them (probed against ORT 1.17): float64
    // unary/binary/Pow/MatMul/Softmax/ReduceMean/Clip/MaxPool, int32/int64
    // binary/MatMul/Clip/Pow (and int32 ReduceMean), int8/uint8 MaxPool/Clip
    typed(g) {
        if (g.opset < 13) return GENS.unary(g);   // int Clip/Min/Max/Pow: opset 12+
        const dt = g.pick([F64, F64, F64, I32, I32, I64, I64, I8, U8]);
        let x = g.find(t => t.dtype === dt && t.dims.length >= 1);
        if (!x) {
            if (g.chance(0.5) && dt !== I8 && dt !== U8) {   // (a negative float to (u)int8 is undefined)
                const f = g.fx(1, 4);
                x = g.node('Cast', [f.name], [{dtype: dt, dims: f.dims, tol: isFloat(dt) ? f.tol : 0}], {to: {type: 'i', v: dt}})[0];
                if (!isFloat(dt) && f.tol > 0) return x;   // truncation of rounded values: not compared further
            } else x = g.input(dt, g.shape(g.pick([2, 3, 4, 4])));
        }
        const r = x.dims.length;
        const c = g.r();
        const one = (op, ins, dims, tol, attrs) => g.node(op, ins.map(t => t.name), [{dtype: dt, dims, tol: isFloat(dt) ? tol : 0}], attrs)[0];
        if ((dt === I8 || dt === U8) || (c < 0.12 && r >= 3)) {
            if (r >= 3 && g.chance(0.6) && dt !== I32 && dt !== I64) {   // ORT: no int32/int64 MaxPool
                const k = x.dims.slice(2).map(d => Math.min(d, g.pick([1, 2, 3])));
                const od = x.dims.map((d, i) => (i < 2 ? d : d - k[i - 2] + 1));
                return one('MaxPool', [x], od, x.tol, {kernel_shape: {type: 'is', v: k}});
            }
            const lo = g.int(-3, 0), hi = g.int(1, 4);
            const mk = v => g.konst(dt, [], dt === F64 ? Float64Array.from([v]) : g.data(dt, 1, {lo: v, hi: v}));
            return one('Clip', [x, mk(dt === U8 ? 1 : lo), mk(hi)], x.dims, x.tol);
        }
        if (c < 0.3 && isFloat(dt)) return one(g.pick(['Relu', 'Sigmoid', 'Tanh']), [x], x.dims, x.tol + TOL.trans);
        if (c < 0.55) {
            const op = g.pick(['Add', 'Sub', 'Mul', 'Div', 'Max', 'Min']);
            const bd = g.bshape(x.dims);
            const b = op === 'Div' ? g.konst(dt, bd, g.data(dt, numel(bd), {away: true, nonzero: true, lo: 1, hi: 4})) : g.operand(dt, bd);
            const [p, q] = op !== 'Div' && g.chance(0.3) ? [b, x] : [x, b];
            return one(op, [p, q], bcast(p.dims, q.dims), 2 * Math.max(p.tol, q.tol) + TOL.simple);
        }
        if (c < 0.65) {   // Pow with a small whole exponent
            const e = g.konst(dt, [], dt === F64 ? Float64Array.from([g.pick([2, 3])]) : g.data(dt, 1, {lo: 2, hi: 3}));
            return one('Pow', [x, e], x.dims, 3 * x.tol + TOL.trans);
        }
        if (c < 0.8) {
            const K = x.dims[r - 1], N = g.int(1, 9);
            const w = g.konst(dt, [K, N], dt === F64 ? g.data(dt, K * N, {scale: 1 / Math.sqrt(K)}) : g.data(dt, K * N, {lo: -3, hi: 3}), true);
            return one('MatMul', [x, w], [...x.dims.slice(0, -1), N], 2 * x.tol + TOL.acc * Math.sqrt(K));
        }
        if (c < 0.9 && isFloat(dt)) { const a = g.int(-r, r - 1); return one('Softmax', [x], x.dims, 4 * x.tol + TOL.acc, {axis: {type: 'i', v: a}}); }
        if (dt === I64) return one('Clip', [x, g.konst(dt, [], g.data(dt, 1, {lo: -2, hi: -2}))], x.dims, 0);
        return GENS.reducemean(g, {x});
    },

    // ---- patterns for the graph passes ------------------------------------
    // written-out LayerNorm (norm.c), then Relu or Clip or nothing
    lnWritten(g) {
        const x = g.fx(2, 4);
        const r = x.dims.length, a = g.int(Math.max(1, r - 2), r - 1);
        const axes = [...Array(r - a).keys()].map(i => a + i);
        const F = (op, ins, dims, tol) => g.node(op, ins.map(t => t.name), [{dtype: F32, dims, tol}])[0];
        const m = GENS.reducemean(g, {x, axes, keep: 1});
        const d = F('Sub', [x, m], x.dims, x.tol * 2 + TOL.acc);
        const p = g.chance(0.7) ? F('Pow', [d, g.scalarF(2, g.chance(0.5))], x.dims, d.tol * 2 + TOL.simple) : F('Mul', [d, d], x.dims, d.tol * 2 + TOL.simple);
        const v = GENS.reducemean(g, {x: p, axes, keep: 1});
        const s = F('Sqrt', [F('Add', [v, g.scalarF(g.pick([1e-5, 1e-6, 1e-3]))], v.dims, v.tol)], v.dims, v.tol + TOL.trans);
        const n = F('Div', [d, s], x.dims, d.tol + s.tol + TOL.long);
        const nd = x.dims.slice(a);
        const gm = g.konst(F32, nd, g.data(F32, numel(nd), {uniform: [0.5, 1.5]}));
        const bt = g.konst(F32, nd, g.data(F32, numel(nd), {scale: 0.3}));
        const mul = g.chance(0.5) ? F('Mul', [n, gm], x.dims, n.tol) : F('Mul', [gm, n], x.dims, n.tol);
        const y = g.chance(0.5) ? F('Add', [mul, bt], x.dims, n.tol * 2) : F('Add', [bt, mul], x.dims, n.tol * 2);
        if (g.chance(0.2)) g.extraReader(g.pick([m, d, p, v, s, n, mul]));
        const c = g.r();
        if (c < 0.4) return unary(g, 'Relu', y);
        if (c < 0.7) return GENS.clipOf(g, y);
        return y;
    },
    clipOf(g, y) {
        const lo = g.pick([0, -1, -0.5]), hi = g.pick([6, 1, 0.5]);
        if (g.opset < 11) return g.node('Clip', [y.name], [{dtype: F32, dims: y.dims, tol: y.tol}], {min: {type: 'f', v: lo}, max: {type: 'f', v: hi}})[0];
        return g.node('Clip', [y.name, g.scalarF(lo).name, g.scalarF(hi).name], [{dtype: F32, dims: y.dims, tol: y.tol}])[0];
    },
    act(g, y) {
        const c = g.r();
        if (c < 0.45) return unary(g, 'Relu', y);
        if (c < 0.8) return GENS.clipOf(g, y);
        return y;
    },
    // Conv -> Add(residual) -> Relu | Clip
    residual(g) {
        const x = g.fx(4, 4, 10000);
        const c = GENS.conv(g, {x, M: x.dims[1], k: g.pick([1, 3]), s: 1, pad: undefined, auto: 'SAME_UPPER', group: 1});
        let z, zc = g.r();
        if (zc < 0.15) z = g.operand(F32, g.bshape(c.dims));                  // broadcast residual
        else if (zc < 0.25) z = g.operand(F32, [2, ...c.dims.slice(1)]);    // the residual enlarges the sum
        else z = c.dims.join() === x.dims.join() && g.chance(0.7) ? x : g.operand(F32, c.dims);
        const sd = bcast(c.dims, z.dims) || c.dims;
        if (!bcast(c.dims, z.dims)) z = g.operand(F32, c.dims);
        const [s] = g.node('Add', g.chance(0.5) ? [c.name, z.name] : [z.name, c.name], [{dtype: F32, dims: sd, tol: Math.max(c.tol, z.tol) * 2 + TOL.simple}]);
        if (g.chance(0.15)) g.extraReader(c);
        return GENS.act(g, s);
    },
    // Conv -> BatchNormalization, the conv output sometimes with other readers
    convBn(g) {
        const c = GENS.conv(g);
        const y = GENS.batchnorm(g, c);
        if (g.chance(0.5)) unary(g, g.pick(['Relu', 'Sigmoid']), c);   // a second reader
        return g.chance(0.5) ? GENS.act(g, y) : y;
    },
    // two Convs sharing W (and B), a BatchNormalization after one of them: the
    // BN fold must not change the other's weights
    sharedW(g) {
        const x = g.fx(4, 4, 10000);
        const c1 = GENS.conv(g, {x});
        const L = g.lastConv;
        const y = g.chance(0.5) ? x : g.input(F32, x.dims);
        const c2 = GENS.conv(g, {x: y, w: L.w, b: L.b, M: L.M, group: L.group, same: L, auto: L.auto, bias: !!L.b});
        void c2;
        const first = g.chance(0.5) ? c1 : c2;
        return GENS.act(g, GENS.batchnorm(g, first));
    },
    // Pad (zeros, constant mode) before a Conv
    padConv(g) {
        const x = g.fx(4, 4, 10000);
        const p = GENS.pad(g, {x, mode: 'constant', spatialOnly: true});
        return GENS.conv(g, {x: p});
    },
    // Conv | Gemm | Add | BN -> Relu | Clip
    epilogue(g) {
        const y = g.pick([GENS.conv, GENS.gemm, GENS.binary, GENS.batchnorm])(g);
        if (!isFloat(y.dtype)) return y;
        return GENS.act(g, y);
    },
    // MatMul(x, W) + bias -> Gelu (op or written erf form) | Relu | Clip
    linear(g) {
        const x = g.fx(2, 4, 20000);
        const K = x.dims[x.dims.length - 1], N = g.int(1, 24);
        const w = g.konst(F32, [K, N], g.data(F32, K * N, {scale: 1 / Math.sqrt(K)}), true);
        const [mm] = g.node('MatMul', [x.name, w.name], [{dtype: F32, dims: [...x.dims.slice(0, -1), N], tol: 2 * x.tol + TOL.acc * Math.sqrt(K)}]);
        const M = mm.dims[mm.dims.length - 2];
        let bd = g.pick([[N], [N], [1, N], [1], [], [M, 1], [M, N], [2, ...mm.dims.slice(-2)]]);
        if (!bcast(mm.dims, bd)) bd = [N];
        const b = g.konst(F32, bd, g.data(F32, numel(bd), {scale: 0.3}), g.chance(0.8));
        const od = bcast(mm.dims, bd);
        const [y] = g.node('Add', g.chance(0.5) ? [mm.name, b.name] : [b.name, mm.name], [{dtype: F32, dims: od, tol: mm.tol + TOL.simple}]);
        if (g.chance(0.1)) g.extraReader(mm);
        const c = g.r();
        if (c < 0.3 && g.opset >= 20) return unary(g, 'Gelu', y);
        if (c < 0.6) return GENS.geluWritten(g, y);
        return GENS.act(g, y);
    },
    // Mul(Mul(X, Add(Erf(Div(X, sqrt 2)), 1)), 0.5) and variants (gate.c)
    geluWritten(g, x) {
        x = x || g.fx();
        const F = (op, a, b, tol) => g.node(op, g.chance(0.5) || op === 'Div' ? [a.name, b.name] : [b.name, a.name], [{dtype: F32, dims: bcast(a.dims, b.dims), tol}])[0];
        const q = g.chance(0.5) ? F('Div', x, g.scalarF(Math.SQRT2, g.chance(0.5)), x.tol + TOL.simple) : F('Mul', x, g.scalarF(Math.SQRT1_2), x.tol + TOL.simple);
        const e = g.node('Erf', [q.name], [{dtype: F32, dims: q.dims, tol: q.tol + TOL.trans}])[0];
        const a = F('Add', e, g.scalarF(1), e.tol + TOL.simple);
        if (g.chance(0.15)) g.extraReader(g.pick([q, e, a]));
        if (g.chance(0.5)) return F('Mul', F('Mul', x, a, a.tol + TOL.simple), g.scalarF(0.5), a.tol + 2 * TOL.simple);
        return F('Mul', x, F('Mul', a, g.scalarF(0.5), a.tol + TOL.simple), a.tol + 2 * TOL.simple);
    },
    // Mul(X, Sigmoid(X)) and Mul(X, HardSigmoid(X; 1/6, 1/2))
    gate(g) {
        const x = g.fx();
        let s;
        if (g.chance(0.6)) s = g.node('Sigmoid', [x.name], [{dtype: F32, dims: x.dims, tol: x.tol + TOL.trans}])[0];
        else s = g.node('HardSigmoid', [x.name], [{dtype: F32, dims: x.dims, tol: x.tol + TOL.simple}], {alpha: {type: 'f', v: 1 / 6}, beta: {type: 'f', v: 0.5}})[0];
        if (g.chance(0.15)) unary(g, 'Relu', s);   // the gate with a second reader: not fused
        return g.node('Mul', g.chance(0.5) ? [x.name, s.name] : [s.name, x.name], [{dtype: F32, dims: x.dims, tol: s.tol + TOL.simple}])[0];
    },
    // channel shuffle: Reshape [N, g, C/g, H, W], Transpose(0 2 1 3 4), Reshape back
    shuffle(g) {
        let x = g.find(t => t.dims.length === 4 && t.dims[1] % 2 === 0 && t.dims[1] >= 2);
        if (!x) x = g.input(g.chance(0.8) ? F32 : I32, [g.int(1, 2), g.pick([2, 4, 6, 8, 12, 16]), g.dim(), g.dim()]);
        const [N, C, H, Wd] = x.dims;
        const divs = []; for (let d = 2; d <= C; d++) if (C % d === 0) divs.push(d);
        const gr = g.pick(divs);
        const [a] = g.node('Reshape', [x.name, g.ints([N, gr, C / gr, H, Wd]).name], [{dtype: x.dtype, dims: [N, gr, C / gr, H, Wd], tol: x.tol}]);
        const [b] = g.node('Transpose', [a.name], [{dtype: x.dtype, dims: [N, C / gr, gr, H, Wd], tol: x.tol}], {perm: {type: 'is', v: [0, 2, 1, 3, 4]}});
        if (g.chance(0.15)) g.extraReader(g.pick([a, b]));
        return g.node('Reshape', [b.name, g.ints(g.chance(0.5) ? [N, C, H, Wd] : [N, -1, H, Wd]).name], [{dtype: x.dtype, dims: [N, C, H, Wd], tol: x.tol}])[0];
    },
    // layers the eliminate pass removes: Identity, Dropout, a Pad of zeros
    eliminate(g) {
        const c = g.r();
        if (c < 0.4) return GENS.identity(g);
        if (c < 0.7) return GENS.dropout(g);
        return GENS.pad(g, {zero: true, mode: 'constant'});
    },
};

const WEIGHTS = {
    unary: 6, gelu: 1, sqrt: 1, dropout: 1, prelu: 2, clip: 2, binary: 8, variadic: 1, conv: 6,
    convTranspose: 2, pool: 3, globalPool: 1, batchnorm: 2, gemm: 2, matmul: 3, flatten: 1,
    reshape: 2, transpose: 2, squeeze: 1, unsqueeze: 1, concat: 2, split: 2, slice: 2, pad: 2,
    gather: 2, shape: 1, cast: 2, castlike: 0.5, resize: 2, softmax: 2, lrn: 1, layernorm: 1.5,
    reducemean: 2, constant: 1, identity: 0.5, upsample: 0, typed: 3, where: 1,
    lnWritten: 2, residual: 2, convBn: 2, sharedW: 1, padConv: 1, epilogue: 3, linear: 2, geluWritten: 1,
    gate: 1.5, shuffle: 1, eliminate: 1.5,
};
// the dynamic regions (gendyn.js, issue 40): opset 13 and up
const DYN = require('./gendyn')({F32, I64, I32, BOOL, TOL, numel, bcast, unary, GENS});
Object.assign(GENS, DYN.GENS);
Object.assign(WEIGHTS, DYN.WEIGHTS);

// What opset 9 models draw from: the generators whose ops have their opset 9
// form here (no Slice/Pad/Split/Squeeze inputs, no Resize, no Softmax (its
// opset 9 axis semantics), no Dropout ratio input); Upsample only here.
const LEGACY = ['unary', 'prelu', 'clip', 'binary', 'variadic', 'conv', 'convTranspose', 'pool',
    'globalPool', 'batchnorm', 'gemm', 'matmul', 'flatten', 'reshape', 'transpose', 'concat',
    'gather', 'shape', 'cast', 'lrn', 'reducemean', 'constant', 'identity', 'upsample', 'lnWritten',
    'residual', 'convBn', 'sharedW', 'epilogue', 'geluWritten', 'gate', 'shuffle', 'typed'];

function generate(seed, opts = {}) {
    const g = new Gen(seed, opts);
    g.opset = opts.opset || g.pick([9, 13, 13, 17, 17, 18, 18, 20, 20, 20]);
    // one model in six is "big": 16 to 64 channels, 6 to 36 pixels, so that the
    // blocked NCHW16c and Winograd kernels and the fused bands get their turn
    g.big = opts.big !== undefined ? opts.big : g.chance(1 / 6);
    const first = g.input(F32, g.shape(g.big ? 4 : g.pick([4, 4, 4, 2, 3, 3, 5])));
    void first;
    const steps = opts.steps || g.int(1, g.chance(0.2) ? 14 : 6);
    let names = Object.keys(WEIGHTS);
    const legacy = g.opset < 10;
    if (legacy) names = LEGACY;
    const W = k => (legacy && k === 'upsample' ? 4 : WEIGHTS[k]);
    const total = names.reduce((a, k) => a + W(k), 0);
    const chosen = [];
    for (let i = 0; i < steps; i++) {
        let u = g.r() * total, k = 0;
        while (u >= W(names[k])) u -= W(names[k++]);
        if (opts.only) {
            const ok = opts.only.filter(n => names.includes(n));
            k = ok.length ? names.indexOf(g.pick(ok)) : 0;
        }
        chosen.push(names[k]);
        GENS[names[k]](g);
    }
    // outputs: every run-time tensor nobody reads, plus some intermediates
    const inputs = new Set(g.inputs.map(i => i.name));
    let outs = [...g.t.values()].filter(t => t.producer >= 0 && !inputs.has(t.name) &&
        (t.readers === 0 || g.chance(0.12) || g.forced.has(t.name)) && numel(t.dims) > 0);
    // a constant-only result as an output is fine but rarely interesting
    outs = outs.filter(t => !t.konst || g.chance(0.3) || g.forced.has(t.name));
    outs = outs.filter(t => t.dtype !== F16);   // onnxruntime-node 1.17 cannot return float16 ("Invalid argument")
    if (!outs.length) {
        const rt = [...g.t.values()].filter(t => t.producer >= 0 && !t.konst);
        if (rt.length) outs = [rt[rt.length - 1]];
        else outs = [GENS.unary(g)];
    }
    // drop nodes that nobody needs (e.g. unread Constants)
    const need = new Set(outs.map(t => t.name));
    const keep = [];
    for (let i = g.nodes.length - 1; i >= 0; i--) {
        const n = g.nodes[i];
        if (n.outputs.some(o => need.has(o))) { keep.push(n); for (const x of [...n.inputs, ...n.implicit || []]) if (x) need.add(x); }
    }
    keep.reverse();
    const model = {
        seed, opset: g.opset,
        nodes: keep,
        inits: g.inits.filter(t => need.has(t.name)),
        inputs: g.inputs.filter(t => need.has(t.name)),
        feeds: g.feeds.filter(t => need.has(t.name)),
        // a run-time shape is declared symbolic (ORT and Paleozoic infer it)
        outputs: outs.map(t => ({name: t.name, dtype: t.dtype, dims: t.dyn || t.open ? t.dims.map((d, i) => `${t.name}_${i}`) : t.dims, tol: t.tol})),
        maxShape: g.openMax ? `batch=${g.openMax}` : undefined,
        // a dynamic region (gendyn.js): its layers are planned at run time
        dynamic: !!g.openMax || [...g.t.values()].some(t => t.dyn) || keep.some(n => n.op === 'If' || n.op === 'Loop'),
        chosen,
        info: new Map([...g.t.values()].map(t => [t.name, {name: t.name, dtype: t.dtype, dims: t.dims}])),
    };
    if (!model.inputs.length) {   // everything folded: add an unused-free input path
        return generate(seed + 0x10000000, opts);
    }
    return model;
}

module.exports = {generate, mulberry32, toHalf, ARR, numel, F32, I64, isFloat};
