// gendyn.js - generators of dynamic regions for gen.js (issue 40): shapes that
// only the run knows. Each takes its data-dependent values from graph inputs
// whose data it writes itself, so the shapes are known here (t.dims: their
// value for these feeds; t.dyn: declared symbolic) and downstream generators
// stay valid. K (rows kept) is 0, 1, all or any.
//   Object.assign(GENS, require('./gendyn')({F32, I64, ..., GENS}).GENS)
'use strict';

module.exports = function ({F32, I64, I32, BOOL, TOL, numel, bcast, unary, GENS: G}) {
    const i64 = v => BigInt64Array.from(v.map(BigInt));
    // a mask of n: none, one, all or any kept
    function mask(g, n) {
        const m = new Uint8Array(n), c = g.r();
        if (c < 0.15) return m;
        if (c < 0.3) { m[g.int(0, n - 1)] = 1; return m; }
        if (c < 0.45) return m.fill(1);
        for (let i = 0; i < n; i++) m[i] = g.chance(0.5) ? 1 : 0;
        return m;
    }
    const kept = m => m.reduce((a, b) => a + b, 0);
    // a float input of dims whose element i is nonzero (|v| >= 0.5) where m[i]
    function masked(g, dims, m) {
        const d = new Float32Array(numel(dims));
        for (let i = 0; i < d.length; i++) d[i] = m[i] ? (g.chance(0.5) ? -1 : 1) * (0.5 + g.r() * 1.5) : 0;
        return d;
    }
    // row indices (int64 [K], dyn) into an axis of n: NonZero of a mask
    function rowsOf(g, n) {
        const m = mask(g, n), K = kept(m);
        let src;
        const c = g.r();
        if (c < 0.4) src = g.inputWith(F32, [n], masked(g, [n], m));
        else if (c < 0.7) src = g.inputWith(BOOL, [n], m);
        else {   // a comparison of data: NonZero(Greater(x, 0))
            const d = Float32Array.from(m, b => (b ? 0.5 + g.r() : -0.5 - g.r()));
            const x = g.inputWith(F32, [n], d);
            src = g.node('Greater', [x.name, g.scalarF(0).name], [{dtype: BOOL, dims: [n], tol: 0}])[0];
        }
        const [nz] = g.node('NonZero', [src.name], [{dtype: I64, dims: [1, K], tol: 0, dyn: true}]);
        if (g.chance(0.5)) return g.node('Reshape', [nz.name, g.ints([-1]).name], [{dtype: I64, dims: [K], tol: 0}])[0];
        return g.node('Squeeze', [nz.name, g.ints([0]).name], [{dtype: I64, dims: [K], tol: 0}])[0];
    }
    // a data tensor of n rows: [n, C, H, W] or [n, F]
    function table(g, n) {
        if (g.chance(0.5)) return g.input(F32, [n, g.int(1, 6), g.int(1, 7), g.int(1, 7)]);
        return g.input(F32, [n, g.int(1, 12)]);
    }
    // 1 to 3 ops after a run-time-shaped x (its axis ra the kept rows; off
    // axis 0 after a Transpose or a Compress along another axis)
    function after(g, x, steps = g.int(1, 3), ra = 0) {
        for (let s = 0; s < steps; s++) {
            const c = g.r(), r = x.dims.length;
            if (x.dtype !== F32) return x;
            if (c < 0.2) x = unary(g, g.pick(['Relu', 'Sigmoid', 'Tanh', 'Identity']), x);
            else if (c < 0.3) {   // a constant over the trailing dims (1 along the rows)
                const bd = x.dims.map((d, i) => (i === 0 || i === ra ? 1 : d)).slice(g.int(0, 1));
                const b = g.konst(F32, bd, g.data(F32, numel(bd)), true);
                const op = g.pick(['Add', 'Mul', 'Sub']);
                x = g.node(op, [x.name, b.name], [{dtype: F32, dims: bcast(x.dims, bd), tol: x.tol * 2 + TOL.simple}])[0];
            } else if (c < 0.4 && r === 4 && ra === 0 && numel(x.dims.slice(1)) > 0) x = G.conv(g, {x, M: g.int(1, 6), group: 1});
            else if (c < 0.47 && r === 4 && ra <= 1 && x.dims[2] >= 2 && x.dims[3] >= 2) {
                // pools of run-time N or C (the spatial dims are planned)
                const st = g.pick([1, 2]), od = [...x.dims.slice(0, 2), ...x.dims.slice(2).map(d => Math.floor((d - 2) / st) + 1)];
                const op = g.pick(['MaxPool', 'AveragePool']);
                x = g.node(op, [x.name], [{dtype: F32, dims: od, tol: x.tol + (op === 'MaxPool' ? 0 : TOL.trans)}], {kernel_shape: {type: 'is', v: [2, 2]}, strides: {type: 'is', v: [st, st]}})[0];
            } else if (c < 0.53 && g.opset >= 17 && ra < r - 1 && numel(x.dims) > 0) {
                // LayerNormalization of rows the run's (the normalized dims after them)
                const a = g.int(ra + 1, r - 1), sd = x.dims.slice(a);
                const ins = [x.name, g.konst(F32, sd, g.data(F32, numel(sd), {uniform: [0.5, 1.5]})).name];
                if (g.chance(0.6)) ins.push(g.konst(F32, sd, g.data(F32, numel(sd), {scale: 0.3})).name);
                x = g.node('LayerNormalization', ins, [{dtype: F32, dims: x.dims, tol: x.tol * 4 + 1e-3}], {axis: {type: 'i', v: a}})[0];
            } else if (c < 0.65 && r >= 2 && x.dims[r - 1] > 0) {   // K the run's when ra is last
                const K = x.dims[r - 1], N = g.int(1, 8);
                const w = g.konst(F32, [K, N], g.data(F32, K * N, {scale: 1 / Math.sqrt(K)}), true);
                x = g.node('MatMul', [x.name, w.name], [{dtype: F32, dims: [...x.dims.slice(0, -1), N], tol: 2 * x.tol + TOL.acc * Math.sqrt(K)}])[0];
                if (ra === r - 1) ra = -1;   // the rows are summed away
            } else if (c < 0.75 && r >= 2 && numel(x.dims) > 0) {   // a mean of none: NaN here, ORT 0 or unreduced
                const axes = [...x.dims.keys()].filter(i => i !== 0 && i !== ra && g.chance(0.6));
                if (!axes.length) { if (ra === r - 1 || r - 1 === 0) continue; axes.push(r - 1); }
                const keep = g.chance(0.5) ? 1 : 0;
                x = G.reducemean(g, {x, axes, keep});
                if (!keep && ra > 0) ra -= axes.filter(i => i < ra).length;
            } else if (c < 0.85 && ra >= 0 && (ra === 0 || x.dims[ra] > 0)) {   // Concat along axis 0 with more rows: static or other kept rows
                const rest = x.dims.slice(1), d0 = ra === 0 ? null : x.dims[0];
                let other;
                if (g.chance(0.5) || ra !== 0) other = g.input(F32, [d0 === null ? g.int(1, 4) : g.int(1, 3), ...rest]);
                else {
                    const t = g.input(F32, [4, ...rest]), rows = rowsOf(g, 4);
                    other = g.node('Gather', [t.name, rows.name], [{dtype: F32, dims: [rows.dims[0], ...rest], tol: 0}], {axis: {type: 'i', v: 0}})[0];
                }
                const ins = g.chance(0.5) ? [x, other] : [other, x];
                x = g.node('Concat', ins.map(t => t.name), [{dtype: F32, dims: [x.dims[0] + other.dims[0], ...rest], tol: x.tol}], {axis: {type: 'i', v: 0}})[0];
            } else if (r >= 2) {   // any order: the rows may leave axis 0
                const perm = g.shuffle([...x.dims.keys()]);
                x = g.node('Transpose', [x.name], [{dtype: F32, dims: perm.map(i => x.dims[i]), tol: x.tol}], {perm: {type: 'is', v: perm}})[0];
                if (ra >= 0) ra = perm.indexOf(ra);
            }
        }
        return x;
    }
    // a permutation of distinct values (no ties for TopK)
    function distinct(g, n) {
        const p = g.shuffle([...Array(n).keys()]);
        return Float32Array.from(p, v => (v - n / 2) * 0.37 + 0.01);
    }

    const GENS = {
        // NonZero -> rows of a table (Gather axis 0: a run-time batch) -> Conv, MatMul, ...
        nonzero(g) {
            const n = g.int(1, 9);
            if (g.chance(0.25)) {   // NonZero of a 2-D input, both index rows out
                const a = g.int(1, 4), m = mask(g, a * n), K = kept(m);
                const x = g.inputWith(F32, [a, n], masked(g, [a, n], m));
                const [nz] = g.node('NonZero', [x.name], [{dtype: I64, dims: [2, K], tol: 0, dyn: true}]);
                return g.node('Transpose', [nz.name], [{dtype: I64, dims: [K, 2], tol: 0}])[0];
            }
            const rows = rowsOf(g, n), t = table(g, n);
            const [y] = g.node('Gather', [t.name, rows.name], [{dtype: F32, dims: [rows.dims[0], ...t.dims.slice(1)], tol: 0}], {axis: {type: 'i', v: 0}});
            return after(g, y);
        },
        // Compress along an axis (or flattened) by a bool input or a comparison
        compress(g) {
            const t = table(g, g.int(1, 8)), r = t.dims.length;
            const axis = g.chance(0.15) ? null : g.int(0, r - 1);
            const len = axis === null ? numel(t.dims) : t.dims[axis];
            const cl = g.chance(0.2) ? g.int(1, len) : len;   // a shorter condition drops the rest
            const m = mask(g, cl), K = kept(m);
            let cond = g.inputWith(BOOL, [cl], m);
            if (g.chance(0.3)) {
                const x = g.inputWith(F32, [cl], Float32Array.from(m, b => (b ? 0.5 + g.r() : -0.5 - g.r())));
                cond = g.node('Greater', [x.name, g.scalarF(0).name], [{dtype: BOOL, dims: [cl], tol: 0}])[0];
            }
            const od = axis === null ? [K] : t.dims.map((d, i) => (i === axis ? K : d));
            const attrs = axis === null ? {} : {axis: {type: 'i', v: g.chance(0.3) ? axis - r : axis}};
            let [y] = g.node('Compress', [t.name, cond.name], [{dtype: F32, dims: od, tol: 0, dyn: true}], attrs);
            if (axis && g.chance(0.5)) {   // the kept axis first
                const perm = [axis, ...[...od.keys()].filter(i => i !== axis)];
                y = g.node('Transpose', [y.name], [{dtype: F32, dims: perm.map(i => od[i]), tol: 0}], {perm: {type: 'is', v: perm}})[0];
                return after(g, y);
            }
            return after(g, y, g.int(1, 3), axis || 0);
        },
        // TopK with k a graph input or computed from a shape; its indices gather rows
        topk(g) {
            const n = g.int(1, 9), a = g.chance(0.5) ? g.int(1, 3) : 0;
            const dims = a ? [a, n] : [n];
            const d = new Float32Array(numel(dims));
            for (let i = 0; i < Math.max(a, 1); i++) d.set(distinct(g, n), i * n);
            const x = g.inputWith(F32, dims, d);
            let k, kv;
            if (a || g.chance(0.7)) {
                kv = g.pick([0, 1, n, g.int(0, n)]);
                k = g.inputWith(I64, [1], i64([kv]));
            } else {   // k = n / 2 from Shape
                kv = Math.floor(n / 2);
                const [s] = g.node('Shape', [x.name], [{dtype: I64, dims: [1], tol: 0}]);
                k = g.node('Div', [s.name, g.ints([2]).name], [{dtype: I64, dims: [1], tol: 0}])[0];
            }
            const od = [...dims.slice(0, -1), kv];
            const attrs = {axis: {type: 'i', v: g.chance(0.5) ? -1 : dims.length - 1}};
            if (g.chance(0.5)) attrs.largest = {type: 'i', v: g.int(0, 1)};
            const [v, idx] = g.node('TopK', [x.name, k.name], [{dtype: F32, dims: od, tol: 0, dyn: true}, {dtype: I64, dims: od, tol: 0, dyn: true}], attrs);
            if (a || g.chance(0.3)) return g.chance(0.5) ? after(g, g.node('Transpose', [v.name], [{dtype: F32, dims: od.slice().reverse(), tol: 0}])[0]) : idx;
            const t = table(g, n);
            const [y] = g.node('Gather', [t.name, idx.name], [{dtype: F32, dims: [kv, ...t.dims.slice(1)], tol: 0}], {axis: {type: 'i', v: 0}});
            return after(g, y);
        },
        // Unique (sorted or in order of appearance, flat or rows) and its four outputs
        unique(g) {
            const n = g.int(1, 10), fl = g.chance(0.5), axis0 = g.chance(0.3);
            const dims = axis0 ? [n, g.int(1, 2)] : [n], lo = -1, hi = g.pick([0, 1, 3]);
            const vals = Array.from({length: numel(dims)}, () => g.int(lo, hi));
            const x = fl ? g.inputWith(F32, dims, Float32Array.from(vals, v => v * 0.5)) : g.inputWith(I64, dims, i64(vals));
            const keys = axis0 ? Array.from({length: n}, (z, i) => vals.slice(i * dims[1], (i + 1) * dims[1]).join()) : vals.map(String);
            const K = new Set(keys).size;
            const attrs = {sorted: {type: 'i', v: g.int(0, 1)}};
            if (axis0) attrs.axis = {type: 'i', v: 0};
            const yd = axis0 ? [K, dims[1]] : [K];
            const outs = g.node('Unique', [x.name], [{dtype: x.dtype, dims: yd, tol: 0, dyn: true}, {dtype: I64, dims: [K], tol: 0, dyn: true},
                {dtype: I64, dims: [n], tol: 0}, {dtype: I64, dims: [K], tol: 0, dyn: true}], attrs);
            if (g.chance(0.3)) outs.slice(1).forEach(o => g.forced.add(o.name));
            if (g.chance(0.4)) {   // Y[inverse] is X again
                return g.node('Gather', [outs[0].name, outs[2].name], [{dtype: x.dtype, dims, tol: 0}], {axis: {type: 'i', v: 0}})[0];
            }
            return fl ? after(g, outs[0]) : outs[0];
        },
        // Reshape / Expand / Tile / Range / ConstantOfShape / Slice from run-time values
        runShape(g) {
            const c = g.r();
            if (c < 0.2) {   // Reshape to a shape input
                const x = g.fx(1, 4, 4000), n = numel(x.dims);
                const f = []; let m = n;
                for (let p = 2; p <= m; p++) while (m % p === 0) { f.push(p); m /= p; }
                const dims = Array(g.int(1, 4)).fill(1);
                for (const p of f) dims[g.int(0, dims.length - 1)] *= p;
                const sh = dims.slice();
                if (g.chance(0.4)) sh[g.int(0, sh.length - 1)] = -1;
                const s = g.inputWith(I64, [sh.length], i64(sh));
                return g.node('Reshape', [x.name, s.name], [{dtype: x.dtype, dims, tol: x.tol, dyn: true}])[0];
            }
            if (c < 0.4) {   // Expand or Tile by an input
                const x = g.fx(1, 3, 500);
                if (g.chance(0.5)) {
                    const sh = [...(g.chance(0.3) ? [g.int(1, 3)] : []), ...x.dims.map(d => (d === 1 ? g.pick([1, 2, 3, 0]) : g.pick([d, 1])))];
                    const od = bcast(x.dims, sh);
                    return after(g, g.node('Expand', [x.name, g.inputWith(I64, [sh.length], i64(sh)).name], [{dtype: F32, dims: od, tol: x.tol, dyn: true}])[0], g.int(0, 2));
                }
                const reps = x.dims.map(() => g.pick([1, 1, 2, 3, 0]));
                return after(g, g.node('Tile', [x.name, g.inputWith(I64, [reps.length], i64(reps)).name], [{dtype: F32, dims: x.dims.map((d, i) => d * reps[i]), tol: x.tol, dyn: true}])[0], g.int(0, 2));
            }
            if (c < 0.6) {   // Range of int64 inputs -> Cast -> ...
                const st = g.int(-4, 4), de = g.pick([1, 2, 3, -1, -2]), li = st + de * g.int(-1, 6);
                const n = Math.max(Math.ceil((li - st) / de), 0);
                const sc = v => g.inputWith(I64, [], i64([v]));
                const [rg] = g.node('Range', [sc(st).name, sc(li).name, sc(de).name], [{dtype: I64, dims: [n], tol: 0, dyn: true}]);
                if (g.chance(0.3)) return rg;
                const [f] = g.node('Cast', [rg.name], [{dtype: F32, dims: [n], tol: 0}], {to: {type: 'i', v: F32}});
                const [u] = g.node('Unsqueeze', [f.name, g.ints([1]).name], [{dtype: F32, dims: [n, 1], tol: 0}]);
                return after(g, u);
            }
            if (c < 0.75) {   // ConstantOfShape of an input shape
                const sh = [g.int(0, 4), g.int(1, 5)];
                const val = {name: '', dtype: F32, dims: [1], data: Float32Array.from([g.normal()])};
                const [y] = g.node('ConstantOfShape', [g.inputWith(I64, [2], i64(sh)).name], [{dtype: F32, dims: sh, tol: 0, dyn: true}], {value: {type: 't', v: val}});
                return after(g, y);
            }
            // Slice with run-time starts (and sometimes ends, steps)
            const x = g.fx(1, 4, 4000), r = x.dims.length, ax = g.int(0, r - 1), D = x.dims[ax];
            const st = g.int(-D - 2, D + 2), step = g.chance(0.7) ? 1 : g.pick([2, -1, -2]);
            const en = step > 0 ? g.pick([D, D + 5, g.int(-D, D)]) : g.pick([-D - 5, g.int(-D, D)]);
            const cl = (v, lo, hi) => Math.min(Math.max(v, lo), hi);
            let s0 = st < 0 ? st + D : st, e0 = en < 0 ? en + D : en;
            s0 = step > 0 ? cl(s0, 0, D) : cl(s0, 0, D - 1); e0 = step > 0 ? cl(e0, 0, D) : cl(e0, -1, D - 1);
            const len = Math.max(0, Math.ceil((e0 - s0) / step));
            const ins = [x.name, g.inputWith(I64, [1], i64([st])).name, (g.chance(0.5) ? g.inputWith(I64, [1], i64([en])) : g.ints([en])).name, g.ints([ax]).name];
            if (step !== 1 || g.chance(0.3)) ins.push(g.ints([step]).name);
            const [y] = g.node('Slice', ins, [{dtype: x.dtype, dims: x.dims.map((d, i) => (i === ax ? len : d)), tol: x.tol, dyn: true}]);
            return y;
        },
        // If on a bool input or a comparison of data; branches of 1-3 ops, same or
        // different shapes; a branch sometimes holds a second If
        iff(g, depth = 0) {
            const x = g.fx(1, 3, 2000);
            let cond, cv;
            if (g.chance(0.5)) { cv = g.chance(0.5); cond = g.inputWith(BOOL, [], Uint8Array.from([cv ? 1 : 0])); }
            else {   // ReduceMax(u) > 0 of an input u that is clearly one side
                cv = g.chance(0.5);
                const u = g.inputWith(F32, [3], Float32Array.from([0, 1, 2], () => (cv ? 0.5 : -2) + g.r()));
                const [mx] = g.node('ReduceMax', [u.name], [{dtype: F32, dims: [], tol: 0}], {keepdims: {type: 'i', v: 0}});
                cond = g.node('Greater', [mx.name, g.scalarF(0).name], [{dtype: BOOL, dims: [], tol: 0}])[0];
            }
            const same = g.chance(0.5);
            const mk = () => branch(g, x, same, depth);
            const th = mk(), el = mk();
            const pick = cv ? th : el;
            const implicit = [...new Set([...th.outer, ...el.outer])];
            const [y] = g.node('If', [cond.name], [{dtype: F32, dims: pick.dims, tol: Math.max(th.tol, el.tol), dyn: !same && th.dims.join() !== el.dims.join()}],
                {then_branch: {type: 'g', v: th.graph}, else_branch: {type: 'g', v: el.graph}}, implicit);
            return y;
        },
        // Loop with a run-time trip count, a carried value and a scan output
        loop(g) {
            const x = g.fx(1, 3, 500), M = g.pick([1, 2, 3, g.int(1, 5)]);   // 0: refused (README)
            const trip = g.inputWith(I64, [], i64([M]));
            const nm = p => g.name(p);
            const it = nm('it'), ci = nm('ci'), vi = nm('vi'), co = nm('co'), vo = nm('vo'), sc = nm('sc');
            const a = nm('a'), b = nm('b'), f = nm('f'), h = nm('h'), k = nm('k');
            const kk = {name: k, dtype: F32, dims: [], data: Float32Array.from([0.1 + g.r() * 0.3])};
            const nodes = [
                {op: 'Identity', name: nm('n'), inputs: [ci], outputs: [co], attrs: {}},
                {op: 'Cast', name: nm('n'), inputs: [it], outputs: [f], attrs: {to: {type: 'i', v: F32}}},
                {op: 'Mul', name: nm('n'), inputs: [f, k], outputs: [h], attrs: {}},
                {op: 'Add', name: nm('n'), inputs: [vi, x.name], outputs: [a], attrs: {}},
                {op: 'Add', name: nm('n'), inputs: [a, h], outputs: [b], attrs: {}},
                {op: 'Tanh', name: nm('n'), inputs: [b], outputs: [vo], attrs: {}},
                g.chance(0.5) ? {op: 'Relu', name: nm('n'), inputs: [vo], outputs: [sc], attrs: {}}
                    : {op: 'ReduceMean', name: nm('n'), inputs: [vo], outputs: [sc], attrs: {keepdims: {type: 'i', v: 1}}},
            ];
            const sd = nodes[6].op === 'Relu' ? x.dims : x.dims.map(() => 1);
            const body = {name: nm('body'), nodes, inits: [kk], inputs: [{name: it, dtype: I64, dims: []}, {name: ci, dtype: BOOL, dims: []}, {name: vi, dtype: F32, dims: x.dims}],
                outputs: [{name: co, dtype: BOOL, dims: []}, {name: vo, dtype: F32, dims: x.dims}, {name: sc, dtype: F32, dims: sd}]};
            const v0 = g.input(F32, x.dims);
            const tol = x.tol + Math.max(M, 1) * (2 * TOL.simple + TOL.trans) + (nodes[6].op === 'Relu' ? 0 : TOL.acc * Math.sqrt(numel(x.dims)));
            const useCond = g.chance(0.3);
            const ins = [trip.name, useCond ? g.inputWith(BOOL, [], Uint8Array.from([1])).name : '', v0.name];
            const [vf, scan] = g.node('Loop', ins, [{dtype: F32, dims: x.dims, tol}, {dtype: F32, dims: [M, ...sd], tol, dyn: true}],
                {body: {type: 'g', v: body}}, [x.name]);
            return g.chance(0.5) ? vf : scan;
        },
        // an open batch (--max-shape batch=B), fed at B or below: Conv/MatMul chain
        openBatch(g) {
            if (!g.openMax) { g.openMax = g.int(2, 8); g.openAt = g.chance(0.4) ? g.openMax : g.int(1, g.openMax - 1); }
            const b = g.openAt;
            const dims = g.chance(0.6) ? [b, g.int(1, 6), g.int(2, 9), g.int(2, 9)] : [b, g.int(1, 12)];
            let x = g.inputWith(F32, dims, g.data(F32, numel(dims)), ['batch', ...dims.slice(1)]);
            if (dims.length === 4) {
                x = G.conv(g, {x, M: g.int(1, 8), group: 1});
                x = unary(g, 'Relu', x);
                if (g.chance(0.5)) x = g.node('GlobalAveragePool', [x.name], [{dtype: F32, dims: [b, x.dims[1], 1, 1], tol: x.tol + TOL.acc}])[0];
                x = g.node('Flatten', [x.name], [{dtype: F32, dims: [b, numel(x.dims.slice(1))], tol: x.tol}])[0];
            }
            const K = x.dims[1], N = g.int(1, 10);
            const w = g.konst(F32, [K, N], g.data(F32, K * N, {scale: 1 / Math.sqrt(K)}), true);
            x = g.node('MatMul', [x.name, w.name], [{dtype: F32, dims: [b, N], tol: 2 * x.tol + TOL.acc * Math.sqrt(K)}])[0];
            if (g.chance(0.5)) x = g.node('Softmax', [x.name], [{dtype: F32, dims: x.dims, tol: x.tol * 2 + TOL.trans}], {axis: {type: 'i', v: -1}})[0];
            return x;
        },
    };

    // a branch of If over outer x: 1-3 ops (shape-keeping when same), Constant
    // nodes or initializers inside; {graph, dims, tol, outer, out}
    function branch(g, x, same, depth) {   // x: {name, dims, tol}
        const nodes = [], inits = [], outer = [x.name];
        let cur = x.name, dims = x.dims.slice(), tol = x.tol;
        const steps = g.int(1, 3);
        for (let s = 0; s < steps; s++) {
            const o = g.name('b'), c = g.r();
            if (depth === 0 && c < 0.15) {   // a nested If on its own input
                const cv = g.chance(0.5);
                const cin = g.inputWith(BOOL, [], Uint8Array.from([cv ? 1 : 0]));
                const th = branch(g, {name: cur, dims, tol}, true, 1), el = branch(g, {name: cur, dims, tol}, true, 1);
                nodes.push({op: 'If', name: g.name('nif'), inputs: [cin.name], outputs: [o],
                    attrs: {then_branch: {type: 'g', v: th.graph}, else_branch: {type: 'g', v: el.graph}}});
                outer.push(cin.name, ...th.outer.filter(n => n !== cur), ...el.outer.filter(n => n !== cur));
                tol = Math.max(th.tol, el.tol);
            } else if (c < 0.45 || (same && c < 0.8)) {
                const op = g.pick(['Relu', 'Sigmoid', 'Tanh', 'Neg', 'Abs']);
                nodes.push({op, name: g.name('n'), inputs: [cur], outputs: [o], attrs: {}});
                tol += ['Sigmoid', 'Tanh'].includes(op) ? TOL.trans : 0;
            } else if (same || c < 0.6) {
                const cn = g.name('k'), bd = dims.slice(g.int(0, dims.length));
                const t = {name: cn, dtype: F32, dims: bd, data: g.data(F32, numel(bd))};
                if (g.chance(0.5)) inits.push(t);
                else nodes.push({op: 'Constant', name: g.name('n'), inputs: [], outputs: [cn], attrs: {value: {type: 't', v: {...t, name: ''}}}});
                nodes.push({op: g.pick(['Add', 'Mul']), name: g.name('n'), inputs: [cur, cn], outputs: [o], attrs: {}});
                tol = tol * 2 + TOL.simple;
            } else if (c < 0.8) {   // a mean over the last axis
                const attrs = {keepdims: {type: 'i', v: 1}}, ins = [cur];
                if (g.opset < 18) attrs.axes = {type: 'is', v: [-1]};
                else {   // axes an input from opset 18
                    ins.push(g.name('ax'));
                    inits.push({name: ins[1], dtype: I64, dims: [1], data: i64([-1])});
                }
                nodes.push({op: 'ReduceMean', name: g.name('n'), inputs: ins, outputs: [o], attrs});
                tol += TOL.acc * Math.sqrt(dims[dims.length - 1]);
                dims = [...dims.slice(0, -1), 1];
            } else {
                const perm = [...dims.keys()].reverse();
                nodes.push({op: 'Transpose', name: g.name('n'), inputs: [cur], outputs: [o], attrs: {}});
                dims = perm.map(i => dims[i]);
            }
            cur = o;
        }
        const out = {name: cur, dtype: F32, dims: same ? dims : dims.map((d, i) => `${cur}_${i}`)};
        return {graph: {name: g.name('br'), nodes, inits, inputs: [], outputs: [out]}, dims, tol, outer, out};
    }

    const WEIGHTS = {nonzero: 1.2, compress: 1.2, topk: 1, unique: 0.8, runShape: 1.5, iff: 1.2, loop: 0.8, openBatch: 0.6};
    return {GENS, WEIGHTS};
};
