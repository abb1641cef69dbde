/* resnet.c - ResNet-18 and ResNet-50 as torchvision builds them
 * (torchvision.models.resnet, "v1.5": a Bottleneck strides in its 3x3 conv).
 *
 *   conv1 7x7/2 64, bn1, relu, maxpool 3x3/2
 *   layer1..layer4: blocks of 64, 128, 256, 512 planes, the first block of
 *                   layer2..4 strides 2; a block whose input differs in shape
 *                   from its output gets downsample = conv 1x1/s + bn
 *   avgpool (global), flatten, fc (512 * expansion -> 1000)
 */
#include "builder.h"

static int conv_bn(zoo_builder *b, int x, const char *conv, const char *bn, int64_t c, int k,
                   int s, int p)
{
    return zoo_conv_bn_act(b, x, conv, bn, NULL, c, k, s, p, 1, ZOO_ACT_NONE);
}

/* out = relu(branch(x) + shortcut(x)) */
static int residual(zoo_builder *b, int x, int y, int64_t c_out, int stride)
{
    int id = x;
    if (stride != 1 || zoo_channels(b, x) != c_out)
        id = conv_bn(b, x, "downsample.0", "downsample.1", c_out, 1, stride, 0);
    y = zoo_add(b, "add", y, id);
    return zoo_relu(b, "relu", y); /* torch's shared `relu` module, called again: relu_1 */
}

/* BasicBlock (expansion 1): conv3x3/s, bn, relu, conv3x3, bn. */
static int basic_block(zoo_builder *b, int x, int64_t planes, int stride)
{
    int y = conv_bn(b, x, "conv1", "bn1", planes, 3, stride, 1);
    y = zoo_relu(b, "relu", y);
    y = conv_bn(b, y, "conv2", "bn2", planes, 3, 1, 1);
    return residual(b, x, y, planes, stride);
}

/* Bottleneck (expansion 4): conv1x1, bn, relu, conv3x3/s, bn, relu, conv1x1 (4x), bn. */
static int bottleneck(zoo_builder *b, int x, int64_t planes, int stride)
{
    int y = conv_bn(b, x, "conv1", "bn1", planes, 1, 1, 0);
    y = zoo_relu(b, "relu", y);
    y = conv_bn(b, y, "conv2", "bn2", planes, 3, stride, 1);
    y = zoo_relu(b, "relu", y);
    y = conv_bn(b, y, "conv3", "bn3", planes * 4, 1, 1, 0);
    return residual(b, x, y, planes * 4, stride);
}

static void resnet(zoo_builder *b, int (*block)(zoo_builder *, int, int64_t, int),
                   const int layers[4])
{
    int x = zoo_input(b, "input", 3, 224, 224);
    x = conv_bn(b, x, "conv1", "bn1", 64, 7, 2, 3);
    x = zoo_relu(b, "relu", x);
    x = zoo_maxpool(b, "maxpool", x, 3, 2, 1);
    for (int l = 0; l < 4; l++)
        for (int i = 0; i < layers[l]; i++) {
            zoo_scope_push(b, "layer%d.%d", l + 1, i);
            x = block(b, x, (int64_t)64 << l, l > 0 && i == 0 ? 2 : 1);
            zoo_scope_pop(b);
        }
    x = zoo_global_avgpool(b, "avgpool", x);
    x = zoo_flatten(b, "flatten", x);
    x = zoo_linear(b, "fc", x, 1000);
    zoo_output(b, x, "output");
}

void zoo_build_resnet18(zoo_builder *b)
{
    resnet(b, basic_block, (const int[]){2, 2, 2, 2});
}

void zoo_build_resnet50(zoo_builder *b)
{
    resnet(b, bottleneck, (const int[]){3, 4, 6, 3});
}
