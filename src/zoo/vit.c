/* vit.c - ViT-B/16 as torchvision builds it (torchvision.models.vit_b_16)
 * at 224x224:
 *
 *   conv_proj 16x16/16 768 -> 14x14 patches as 196 tokens of 768
 *   class_token prepended (197 tokens), encoder.pos_embedding added
 *   encoder.layers.encoder_layer_0..11, pre-norm:
 *       x = x + self_attention(ln_1(x))       12 heads of 64
 *       x = x + mlp(ln_2(x))                  768 -> 3072, GELU, -> 768
 *   encoder.ln, the class token's row, heads.head (768 -> 1000)
 *
 * LayerNorm epsilon 1e-6. Dropouts are identities at inference and left out.
 */
#include "builder.h"

void zoo_build_vit_b_16(zoo_builder *b)
{
    int x = zoo_input(b, "input", 3, 224, 224);
    x = zoo_conv(b, "conv_proj", x, 768, 16, 16, 0, 1, 1);
    x = zoo_tokens(b, "flatten", x);
    x = zoo_class_token(b, "cat", "class_token", x);
    x = zoo_add_embedding(b, "encoder.add", "encoder.pos_embedding", x);
    for (int i = 0; i < 12; i++) {
        zoo_scope_push(b, "encoder.layers.encoder_layer_%d", i);
        int y = zoo_layernorm(b, "ln_1", x, 1e-6f);
        y = zoo_self_attention(b, "self_attention", y, 12, -1);
        x = zoo_add(b, "add", x, y);
        y = zoo_layernorm(b, "ln_2", x, 1e-6f);
        y = zoo_dense(b, "mlp.0", y, 3072);
        y = zoo_gelu(b, "mlp.1", y);
        y = zoo_dense(b, "mlp.3", y, 768);
        x = zoo_add(b, "add", x, y);
        zoo_scope_pop(b);
    }
    x = zoo_layernorm(b, "encoder.ln", x, 1e-6f);
    x = zoo_select_token(b, "class_row", x, 0);
    x = zoo_linear(b, "heads.head", x, 1000);
    zoo_output(b, x, "output");
}
