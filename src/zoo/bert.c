/* bert.c - a BERT-base-class encoder (nn.TransformerEncoder, 12 layers):
 *
 *   inputs ids, mask: int64 [1, S], S the symbolic dim "sequence"
 *   embeddings.word_embeddings (30522 x 768) of ids, plus the first S rows
 *   of embeddings.position_embeddings (512 x 768), embeddings.LayerNorm
 *   mask: (1 - mask) * -10000 as [1, 1, 1, S], added to every head's scores
 *   encoder.layers.0..11, post-norm:
 *       x = norm1(x + self_attn(x))           12 heads of 64
 *       x = norm2(x + linear2(gelu(linear1(x))))   768 -> 3072 -> 768
 *   output: the last hidden state [1, S, 768]
 *
 * LayerNorm epsilon 1e-12 (BERT's). No token-type embedding and no pooler:
 * an encoder of BERT-base's shape, not a BERT checkpoint's layout.
 */
#include "builder.h"

void zoo_build_bert_base(zoo_builder *b)
{
    const int64_t seq = ZOO_DIM_SEQ;
    int ids = zoo_input_tensor(b, "ids", ONNX__TENSOR_PROTO__DATA_TYPE__INT64, 1, &seq);
    int mask = zoo_input_tensor(b, "mask", ONNX__TENSOR_PROTO__DATA_TYPE__INT64, 1, &seq);
    int x = zoo_embedding(b, "embeddings.word_embeddings", ids, 30522, 768);
    x = zoo_position_embedding(b, "embeddings.position_embeddings", x, ids, 512);
    x = zoo_layernorm(b, "embeddings.LayerNorm", x, 1e-12f);
    int m = zoo_attention_mask(b, "extended_mask", mask);
    for (int i = 0; i < 12; i++) {
        zoo_scope_push(b, "encoder.layers.%d", i);
        int y = zoo_self_attention(b, "self_attn", x, 12, m);
        x = zoo_layernorm(b, "norm1", zoo_add(b, "add", x, y), 1e-12f);
        y = zoo_dense(b, "linear1", x, 3072);
        y = zoo_gelu(b, "activation", y);
        y = zoo_dense(b, "linear2", y, 768);
        x = zoo_layernorm(b, "norm2", zoo_add(b, "add", x, y), 1e-12f);
        zoo_scope_pop(b);
    }
    zoo_output(b, x, "output");
}
