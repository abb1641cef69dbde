/* zoo.c - the table of networks and writing one to a file (see zoo.h). */
#include <string.h>
#include <sys/stat.h>

#include "builder.h"
#include "zoo.h"

typedef struct {
    const char *name;
    void (*build)(zoo_builder *b);
} zoo_net;

static const zoo_net NETS[] = {
    {"resnet18", zoo_build_resnet18},
    {"resnet50", zoo_build_resnet50},
    {"vgg16", zoo_build_vgg16},
    {"vgg19", zoo_build_vgg19},
    {"alexnet", zoo_build_alexnet},
    {"mobilenet_v2", zoo_build_mobilenet_v2},
    {"vit_b_16", zoo_build_vit_b_16},
    {"bert_base", zoo_build_bert_base},
};

int zoo_count(void)
{
    return (int)PZ_ARRAY_LEN(NETS);
}

const char *zoo_name(int i)
{
    PZ_ASSERT(i >= 0 && i < zoo_count());
    return NETS[i].name;
}

char *zoo_names_str(char *buf, size_t size)
{
    size_t k = 0;
    buf[0] = 0;
    for (int i = 0; i < zoo_count() && k < size; i++)
        k += (size_t)snprintf(buf + k, size - k, "%s%s", i ? ", " : "", NETS[i].name);
    return buf;
}

pz_status zoo_write(const char *name, const char *path, uint64_t seed, zoo_summary *sum,
                    pz_err *err)
{
    const zoo_net *net = NULL;
    for (int i = 0; i < zoo_count(); i++)
        if (!strcmp(name, NETS[i].name)) net = &NETS[i];
    if (!net) {
        char names[256];
        return pz_fail(err, PZ_ERR_INPUT, "zoo: unknown network \"%s\" (choose %s)", name,
                       zoo_names_str(names, sizeof names));
    }
    zoo_builder *b = zoo_builder_new(name, seed);
    net->build(b);
    zoo_summary s = {zoo_builder_params(b), zoo_builder_macs(b), zoo_builder_nodes(b), 0};
    Onnx__ModelProto *m = zoo_builder_finish(b);
    zoo_builder_free(b);
    pz_status st = onnx_pack_to_file(&m->base, path, err);
    onnx__model_proto__free_unpacked(m, NULL);
    if (st) return st;
    struct stat fst;
    if (stat(path, &fst) == 0) s.file_bytes = (int64_t)fst.st_size;
    if (sum) *sum = s;
    return PZ_OK;
}
