/* vgg.c - VGG-16 and VGG-19 (configurations D and E, no batch norm) as
 * torchvision builds them:
 *
 *   features.i: conv 3x3/1 pad 1 with bias, ReLU; "M" is max pool 2x2/2
 *   avgpool: adaptive 7x7, an identity at 224x224 (omitted)
 *   flatten, classifier.0 Linear(25088, 4096), .1 ReLU, (.2 Dropout),
 *            classifier.3 Linear(4096, 4096), .4 ReLU, (.5 Dropout),
 *            classifier.6 Linear(4096, 1000)
 */
#include "builder.h"

#define M (-1) /* max pool */

static void vgg(zoo_builder *b, const int *cfg, int n)
{
    int x = zoo_input(b, "input", 3, 224, 224);
    char name[32];
    int i = 0; /* index in torchvision's `features` Sequential */
    for (int j = 0; j < n; j++) {
        if (cfg[j] == M) {
            snprintf(name, sizeof name, "features.%d", i++);
            x = zoo_maxpool(b, name, x, 2, 2, 0);
            continue;
        }
        snprintf(name, sizeof name, "features.%d", i++);
        x = zoo_conv(b, name, x, cfg[j], 3, 1, 1, 1, 1);
        snprintf(name, sizeof name, "features.%d", i++);
        x = zoo_relu(b, name, x);
    }
    x = zoo_flatten(b, "flatten", x);
    x = zoo_linear(b, "classifier.0", x, 4096);
    x = zoo_relu(b, "classifier.1", x);
    x = zoo_linear(b, "classifier.3", x, 4096);
    x = zoo_relu(b, "classifier.4", x);
    x = zoo_linear(b, "classifier.6", x, 1000);
    zoo_output(b, x, "output");
}

void zoo_build_vgg16(zoo_builder *b)
{
    static const int cfg[] = {64, 64, M, 128, 128, M, 256, 256, 256, M,
                              512, 512, 512, M, 512, 512, 512, M};
    vgg(b, cfg, (int)PZ_ARRAY_LEN(cfg));
}

void zoo_build_vgg19(zoo_builder *b)
{
    static const int cfg[] = {64, 64, M, 128, 128, M, 256, 256, 256, 256, M,
                              512, 512, 512, 512, M, 512, 512, 512, 512, M};
    vgg(b, cfg, (int)PZ_ARRAY_LEN(cfg));
}
