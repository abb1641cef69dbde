/* gemm.c - the installed runtime from a C program, found by pkg-config:
 *
 *   make install PREFIX=/usr/local
 *   cc gemm.c $(pkg-config --cflags --libs paleozoic) -o gemm && ./gemm
 *
 * Builds a one-layer net with the middle-layer API (pz_rt.h): y = relu(x W^T
 * + b), 3x5 by 5x4, compiles and runs it on 2 threads, and checks y against
 * the same sum written out below; then writes y as a TensorProto file and
 * reads it back with pz_io.h. Prints "gemm: ok" and exits 0, or says what
 * differed and exits 1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pz_io.h>
#include <pz_rt.h>

enum { M = 3, K = 5, N = 4 };

int main(int argc, char **argv)
{
    const char *pb = argc > 1 ? argv[1] : "gemm_y.pb";
    float x[M * K], w[N * K], b[N], y[M * N], want[M * N];
    for (int i = 0; i < M * K; i++) x[i] = (float)((i * 7) % 11) - 5.0f;
    for (int i = 0; i < N * K; i++) w[i] = (float)((i * 5) % 7) * 0.25f - 0.5f;
    for (int i = 0; i < N; i++) b[i] = (float)i - 1.5f;
    /* the reference: want[m][n] = max(0, sum_k x[m][k] w[n][k] + b[n]) */
    for (int m = 0; m < M; m++)
        for (int n = 0; n < N; n++) {
            float s = b[n];
            for (int k = 0; k < K; k++) s += x[m * K + k] * w[n * K + k];
            want[m * N + n] = s > 0 ? s : 0;
        }

    char err[256];
    pz_net *net = pz_net_new("gemm");
    int tx = pz_net_input(net, "x", PZ_F32, 2, (const int64_t[]){M, K});
    int tw = pz_net_const(net, "W", PZ_F32, 2, (const int64_t[]){N, K}, w);
    int tb = pz_net_const(net, "b", PZ_F32, 1, (const int64_t[]){N}, b);
    int ty = pz_net_tensor(net, "y", PZ_F32, 2, (const int64_t[]){M, N});
    pz_gemm_params gp = {.trans_b = 1, .alpha = 1.0f, .beta = 1.0f, .act = {.kind = PZ_ACT_RELU}};
    pz_net_layer(net, "fc", PZ_OP_GEMM, &gp, sizeof gp, (const int[]){tx, tw, tb}, 3,
                 (const int[]){ty}, 1);
    pz_net_output(net, ty);
    if (pz_net_compile(net, 2, NULL, err, sizeof err)) {
        fprintf(stderr, "gemm: compile: %s\n", err);
        return 1;
    }
    pz_net_run(net, (const void *const[]){x}, (void *const[]){y});
    pz_net_free(net);
    for (int i = 0; i < M * N; i++)
        if (fabsf(y[i] - want[i]) > 1e-5f * (1 + fabsf(want[i]))) {
            fprintf(stderr, "gemm: y[%d] = %g, want %g\n", i, y[i], want[i]);
            return 1;
        }

    pz_io_tensor t;
    if (pz_io_write_tensor(pb, "y", PZ_F32, 2, (const int64_t[]){M, N}, y, err, sizeof err) ||
        pz_io_read_tensor(pb, &t, err, sizeof err)) {
        fprintf(stderr, "gemm: %s\n", err);
        return 1;
    }
    int same = t.dtype == PZ_F32 && t.rank == 2 && t.nbytes == sizeof y && !memcmp(t.data, y, sizeof y);
    pz_io_tensor_free(&t);
    if (!same) {
        fprintf(stderr, "gemm: %s read back differs from what was written\n", pb);
        return 1;
    }
    printf("gemm: ok (%dx%d outputs match the reference; %s round trip)\n", M, N, pb);
    return 0;
}
