/* alexnet.c - AlexNet as torchvision builds it (the one-GPU variant of
 * "One weird trick", 64-192-384-256-256 channels):
 *
 *   features.0 conv 11x11/4 pad 2 (64), .1 ReLU, .2 max pool 3x3/2,
 *   features.3 conv 5x5 pad 2 (192),   .4 ReLU, .5 max pool 3x3/2,
 *   features.6 conv 3x3 pad 1 (384),   .7 ReLU,
 *   features.8 conv 3x3 pad 1 (256),   .9 ReLU,
 *   features.10 conv 3x3 pad 1 (256), .11 ReLU, .12 max pool 3x3/2 -> 256x6x6
 *   avgpool: adaptive 6x6, an identity at 224x224 (omitted)
 *   flatten, (classifier.0 Dropout), classifier.1 Linear(9216, 4096), .2 ReLU,
 *   (.3 Dropout), classifier.4 Linear(4096, 4096), .5 ReLU,
 *   classifier.6 Linear(4096, 1000)
 */
#include "builder.h"

void zoo_build_alexnet(zoo_builder *b)
{
    int x = zoo_input(b, "input", 3, 224, 224);
    x = zoo_conv(b, "features.0", x, 64, 11, 4, 2, 1, 1);
    x = zoo_relu(b, "features.1", x);
    x = zoo_maxpool(b, "features.2", x, 3, 2, 0);
    x = zoo_conv(b, "features.3", x, 192, 5, 1, 2, 1, 1);
    x = zoo_relu(b, "features.4", x);
    x = zoo_maxpool(b, "features.5", x, 3, 2, 0);
    x = zoo_conv(b, "features.6", x, 384, 3, 1, 1, 1, 1);
    x = zoo_relu(b, "features.7", x);
    x = zoo_conv(b, "features.8", x, 256, 3, 1, 1, 1, 1);
    x = zoo_relu(b, "features.9", x);
    x = zoo_conv(b, "features.10", x, 256, 3, 1, 1, 1, 1);
    x = zoo_relu(b, "features.11", x);
    x = zoo_maxpool(b, "features.12", x, 3, 2, 0);
    x = zoo_flatten(b, "flatten", x);
    x = zoo_linear(b, "classifier.1", x, 4096);
    x = zoo_relu(b, "classifier.2", x);
    x = zoo_linear(b, "classifier.4", x, 4096);
    x = zoo_relu(b, "classifier.5", x);
    x = zoo_linear(b, "classifier.6", x, 1000);
    zoo_output(b, x, "output");
}
