/* mobilenet_v2.c - MobileNetV2 (width 1.0) as torchvision builds it:
 *
 *   features.0: Conv2dNormActivation 3x3/2 (32): conv, bn, ReLU6
 *   features.1..17: InvertedResidual blocks (t, c, n, s table below):
 *       conv.0  1x1 expand to t*C_in, bn, ReLU6    (absent when t == 1)
 *       conv.1  3x3/s depthwise, bn, ReLU6
 *       conv.2  1x1 project to c (linear), conv.3 bn
 *       + x when s == 1 and C_in == c
 *   features.18: Conv2dNormActivation 1x1 (1280)
 *   global average pool, flatten, (classifier.0 Dropout),
 *   classifier.1 Linear(1280, 1000)
 * ReLU6 is Clip(x, 0, 6).
 */
#include "builder.h"

static int inverted_residual(zoo_builder *b, int x, int64_t c_out, int stride, int t)
{
    int64_t c_in = zoo_channels(b, x), hidden = c_in * t;
    int y = x, m = 0; /* m: index in the block's `conv` Sequential */
    char cn[32], bn[32], an[32];
    if (t != 1) {
        snprintf(cn, sizeof cn, "conv.%d.0", m);
        snprintf(bn, sizeof bn, "conv.%d.1", m);
        snprintf(an, sizeof an, "conv.%d.2", m++);
        y = zoo_conv_bn_act(b, y, cn, bn, an, hidden, 1, 1, 0, 1, ZOO_ACT_RELU6);
    }
    snprintf(cn, sizeof cn, "conv.%d.0", m);
    snprintf(bn, sizeof bn, "conv.%d.1", m);
    snprintf(an, sizeof an, "conv.%d.2", m++);
    y = zoo_conv_bn_act(b, y, cn, bn, an, hidden, 3, stride, 1, (int)hidden, ZOO_ACT_RELU6);
    snprintf(cn, sizeof cn, "conv.%d", m++);
    snprintf(bn, sizeof bn, "conv.%d", m++);
    y = zoo_conv_bn_act(b, y, cn, bn, NULL, c_out, 1, 1, 0, 1, ZOO_ACT_NONE);
    if (stride == 1 && c_in == c_out) y = zoo_add(b, "add", x, y);
    return y;
}

void zoo_build_mobilenet_v2(zoo_builder *b)
{
    static const int setting[][4] = {/* t, c, n, s */
        {1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
        {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1},
    };
    int x = zoo_input(b, "input", 3, 224, 224);
    x = zoo_conv_bn_act(b, x, "features.0.0", "features.0.1", "features.0.2", 32, 3, 2, 1, 1,
                        ZOO_ACT_RELU6);
    int f = 1;
    for (size_t i = 0; i < PZ_ARRAY_LEN(setting); i++)
        for (int j = 0; j < setting[i][2]; j++) {
            zoo_scope_push(b, "features.%d", f++);
            x = inverted_residual(b, x, setting[i][1], j == 0 ? setting[i][3] : 1, setting[i][0]);
            zoo_scope_pop(b);
        }
    x = zoo_conv_bn_act(b, x, "features.18.0", "features.18.1", "features.18.2", 1280, 1, 1, 0,
                        1, ZOO_ACT_RELU6);
    x = zoo_global_avgpool(b, "avgpool", x);
    x = zoo_flatten(b, "flatten", x);
    x = zoo_linear(b, "classifier.1", x, 1000);
    zoo_output(b, x, "output");
}
