/* rt_dynamic.c - run-time shapes through the runtime API (pz_rt.h): NONZERO,
 * UNIQUE, COMPRESS and NMS set their outputs' dims when they run (read back
 * by pz_net_output_shape), a dynamic region (CAST, UNARY after one) runs at
 * them, two runs of one net with different counts each give their own
 * shape, SHAPE gives the run's dims, and a layer kind without run_shape
 * reading one is refused at compile naming the layer. Expected values
 * written out by hand. */
#include <string.h>

#include "rt/pz_rt.h"
#include "test_check.h"

/* Compiles net at 2 threads; 1 on failure (the message in err). */
static int compile(pz_net *net, char *err, size_t n)
{
    return pz_net_compile(net, 2, NULL, err, n);
}

static void test_nonzero_region(void)
{
    pz_net *net = pz_net_new("nz");
    int x = pz_net_input(net, "x", PZ_F32, 2, (int64_t[]){2, 3});
    int i = pz_net_tensor(net, "i", PZ_I64, 2, (int64_t[]){2, 6});
    int f = pz_net_tensor(net, "f", PZ_F32, 2, (int64_t[]){2, 6});
    int y = pz_net_tensor(net, "y", PZ_F32, 2, (int64_t[]){2, 6});
    pz_net_layer(net, "nonzero", PZ_OP_NONZERO, NULL, 0, &x, 1, &i, 1);
    pz_cast_params cp = {0};
    pz_net_layer(net, "cast", PZ_OP_CAST, &cp, sizeof cp, &i, 1, &f, 1);
    pz_unary_params up = {.func = PZ_UN_NEG};
    pz_net_layer(net, "neg", PZ_OP_UNARY, &up, sizeof up, &f, 1, &y, 1);
    /* SHAPE ends the region: its [2] is static, its values the run's */
    int s = pz_net_tensor(net, "s", PZ_I64, 1, (int64_t[]){2});
    pz_shape_params sp = {.start = 0, .end = 2};
    pz_net_layer(net, "shape", PZ_OP_SHAPE, &sp, sizeof sp, &y, 1, &s, 1);
    pz_net_output(net, i);
    pz_net_output(net, y);
    pz_net_output(net, s);
    char err[256];
    CHECK(compile(net, err, sizeof err) == 0);
    /* two runs: 3 nonzeros, then 1 */
    const float a[6] = {0, 2, 0, -1, 0, 5}, b[6] = {0, 0, 0, 0, 7, 0};
    int64_t iv[12], sv[2];
    float yv[12];
    void *outs[3] = {iv, yv, sv};
    const void *ins[1] = {a};
    pz_net_run(net, ins, outs);
    int64_t dims[PZ_MAX_RANK];
    CHECK(pz_net_output_shape(net, 0, dims) == 2 && dims[0] == 2 && dims[1] == 3);
    CHECK(pz_net_output_shape(net, 1, dims) == 2 && dims[0] == 2 && dims[1] == 3);
    const int64_t want[6] = {0, 1, 1, 1, 0, 2};
    CHECK(!memcmp(iv, want, sizeof want));
    for (int k = 0; k < 6; k++) checkf(yv[k] == -(float)want[k], "neg %d: %g", k, yv[k]);
    CHECK(sv[0] == 2 && sv[1] == 3);
    CHECK(pz_net_output_shape(net, 2, dims) == 1 && dims[0] == 2);
    ins[0] = b;
    pz_net_run(net, ins, outs);
    CHECK(pz_net_output_shape(net, 1, dims) == 2 && dims[1] == 1);
    CHECK(iv[0] == 1 && iv[1] == 1 && yv[0] == -1 && yv[1] == -1 && sv[1] == 1);
    CHECK(pz_net_output_shape(net, 3, dims) == -1);
    pz_net_free(net);
}

static void test_unique_compress(void)
{
    pz_net *net = pz_net_new("uc");
    int x = pz_net_input(net, "x", PZ_I32, 2, (int64_t[]){2, 4});
    int c = pz_net_input(net, "c", PZ_BOOL, 1, (int64_t[]){4});
    int o[4], y;
    o[0] = pz_net_tensor(net, "u", PZ_I32, 2, (int64_t[]){2, 4});
    for (int k = 1; k < 4; k++)
        o[k] = pz_net_tensor(net, k == 1 ? "i" : k == 2 ? "v" : "n", PZ_I64, 1, (int64_t[]){4});
    y = pz_net_tensor(net, "y", PZ_I32, 2, (int64_t[]){2, 4});
    pz_unique_params up = {.axis = 1, .sorted = 0};
    pz_net_layer(net, "unique", PZ_OP_UNIQUE, &up, sizeof up, &x, 1, o, 4);
    pz_compress_params cp = {.axis = 1};
    pz_net_layer(net, "compress", PZ_OP_COMPRESS, &cp, sizeof cp, (int[]){x, c}, 2, &y, 1);
    for (int k = 0; k < 4; k++) pz_net_output(net, o[k]);
    pz_net_output(net, y);
    char err[256];
    CHECK(compile(net, err, sizeof err) == 0);
    /* columns (3,1) (2,0) (3,1) (1,1): first-occurrence order */
    const int32_t xv[8] = {3, 2, 3, 1, 1, 0, 1, 1};
    const uint8_t cv[4] = {0, 1, 1, 0};
    int32_t u[8], yv[8];
    int64_t iv[4], vv[4], nv[4], dims[PZ_MAX_RANK];
    void *outs[5] = {u, iv, vv, nv, yv};
    pz_net_run(net, (const void *[]){xv, cv}, outs);
    CHECK(pz_net_output_shape(net, 0, dims) == 2 && dims[0] == 2 && dims[1] == 3);
    const int32_t wu[6] = {3, 2, 1, 1, 0, 1};
    const int64_t wi[3] = {0, 1, 3}, wv[4] = {0, 1, 0, 2}, wn[3] = {2, 1, 1};
    CHECK(!memcmp(u, wu, sizeof wu) && !memcmp(iv, wi, sizeof wi) && !memcmp(vv, wv, sizeof wv) &&
          !memcmp(nv, wn, sizeof wn));
    CHECK(pz_net_output_shape(net, 2, dims) == 1 && dims[0] == 4);
    CHECK(pz_net_output_shape(net, 3, dims) == 1 && dims[0] == 3);
    CHECK(pz_net_output_shape(net, 4, dims) == 2 && dims[0] == 2 && dims[1] == 2);
    const int32_t wy[4] = {2, 3, 0, 1};
    CHECK(!memcmp(yv, wy, sizeof wy));
    pz_net_free(net);
}

static void test_nms(void)
{
    pz_net *net = pz_net_new("nms");
    int b = pz_net_input(net, "b", PZ_F32, 3, (int64_t[]){1, 4, 4});
    int s = pz_net_input(net, "s", PZ_F32, 3, (int64_t[]){1, 1, 4});
    int t = pz_net_input(net, "iou", PZ_F32, 1, (int64_t[]){1});
    int y = pz_net_tensor(net, "y", PZ_I64, 2, (int64_t[]){3, 3});
    pz_nms_params np = {.center_point_box = 0, .max_out = 3};
    pz_net_layer(net, "nms", PZ_OP_NMS, &np, sizeof np, (int[]){b, s, t}, 3, &y, 1);
    pz_net_output(net, y);
    char err[256];
    CHECK(compile(net, err, sizeof err) == 0);
    /* box 1 overlaps box 0 (IoU 0.81), box 2 flipped corners, box 3 apart */
    const float bx[16] = {0, 0, 1, 1, 0, 0.1f, 1, 1.1f, 11, 11, 10, 10, 5, 5, 6, 6};
    const float sc[4] = {0.9f, 0.95f, 0.5f, 0.7f}, iou = 0.5f;
    int64_t yv[9], dims[PZ_MAX_RANK];
    pz_net_run(net, (const void *[]){bx, sc, &iou}, (void *[]){yv});
    CHECK(pz_net_output_shape(net, 0, dims) == 2 && dims[0] == 3 && dims[1] == 3);
    const int64_t want[9] = {0, 0, 1, 0, 0, 3, 0, 0, 2};
    CHECK(!memcmp(yv, want, sizeof want));
    pz_net_free(net);
}

static void test_refused(void)
{
    pz_net *net = pz_net_new("bad");
    int x = pz_net_input(net, "x", PZ_F32, 1, (int64_t[]){4});
    int i = pz_net_tensor(net, "i", PZ_I64, 2, (int64_t[]){1, 4});
    int f = pz_net_tensor(net, "f", PZ_F32, 2, (int64_t[]){1, 4});
    int y = pz_net_tensor(net, "y", PZ_F32, 2, (int64_t[]){1, 4});
    pz_net_layer(net, "nonzero", PZ_OP_NONZERO, NULL, 0, &x, 1, &i, 1);
    pz_cast_params cp = {0};   /* to the output's type */
    pz_net_layer(net, "cast", PZ_OP_CAST, &cp, sizeof cp, &i, 1, &f, 1);
    /* LRN takes no run-time shape (no run_shape): refused by name */
    pz_lrn_params lp = {.size = 1, .alpha = 1e-4f, .beta = 0.75f, .bias = 1.0f};
    pz_net_layer(net, "lrn", PZ_OP_LRN, &lp, sizeof lp, &f, 1, &y, 1);
    pz_net_output(net, y);
    char err[256] = "";
    CHECK(compile(net, err, sizeof err) != 0);
    checkf(strstr(err, "\"lrn\"") && strstr(err, "run time"), "refusal: %s", err);
    pz_net_free(net);
}

int main(void)
{
    test_nonzero_region();
    test_unique_compress();
    test_nms();
    test_refused();
    return test_summary("rt_dynamic");
}
