/* registry.c - the op table: one entry per line of op_list.h, indexed by op_kind. */
#include <string.h>

#include "op.h"

#define OP(name, sym) extern const op_def op_##sym;
#include "op_list.h"
#undef OP

/* Sized by its initializer, so the assert below sees what was written. */
const op_def *const OPS[] = {
#define OP(name, sym) [OP_##sym] = &op_##sym,
#include "op_list.h"
#undef OP
};

_Static_assert(PZ_ARRAY_LEN(OPS) == OP_COUNT, "OPS must have one entry per op in op_list.h");

const op_def *op_find(const char *op_type)
{
    /* Called once per node at load time; the table is small. */
    for (int k = 0; k < OP_COUNT; k++)
        if (!OPS[k]->domain && strcmp(OPS[k]->name, op_type) == 0) return OPS[k];
    return NULL;
}

const op_def *op_find_in(const char *domain, const char *op_type)
{
    for (int k = 0; k < OP_COUNT; k++)
        if (OPS[k]->domain && !strcmp(OPS[k]->domain, domain) && !strcmp(OPS[k]->name, op_type))
            return OPS[k];
    return NULL;
}

op_kind op_kind_of(const op_def *op)
{
    for (int k = 0; k < OP_COUNT; k++)
        if (OPS[k] == op) return (op_kind)k;
    PZ_ASSERT(!"op not in the table");
    return OP_COUNT;
}
