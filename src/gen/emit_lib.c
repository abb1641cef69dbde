/* emit_lib.c - what `paleozoic build --lib` and --embed-weights add around
 * NAME.c: the assembler file that links NAME.weights in, the version script
 * of libNAME.so, and the commands that make libNAME.a and libNAME.so. */
#include <stdio.h>
#include <string.h>

#include "emit.h"

/* FILE.S: the file n.ext linked in as the symbols sym .. sym_end. .incbin
 * copies it at assembly time (fast for any size); the symbols are hidden:
 * two models in one program keep their own. */
static void incbin_asm(gen_text *t, const char *n, const char *file, const char *ext,
                       const char *sym, const char *why)
{
    gt_printf(t, "/* %s_%s.S - %s.%s linked in (%s). */\n"
                 "    .section .rodata\n"
                 "    .balign %u\n"
                 "    .globl %s%s\n    .hidden %s%s\n"
                 "    .globl %s%s_end\n    .hidden %s%s_end\n"
                 "%s%s:\n"
                 "    .incbin \"%s.%s\"\n"
                 "%s%s_end:\n"
                 "    .section .note.GNU-stack,\"\",@progbits\n",
              n, file, n, ext, why, 64u, n, sym, n, sym, n, sym, n, sym, n, sym, n, ext, n, sym);
}

void gen_emit_weights_asm(gen_text *t, const gen_opts *o)
{
    incbin_asm(t, o->name, "weights", "weights", "_weights_blob", "paleozoic build --embed-weights");
}

void gen_emit_model_asm(gen_text *t, const gen_opts *o)
{
    incbin_asm(t, o->name, "model", "onnx", "_onnx",
               "a sequence of another length is planned at run time from it");
}

void gen_emit_version_script(gen_text *t, const gen_opts *o)
{
    /* the model's API by name (a glob NAME_* could catch the runtime's own
     * pz_* when NAME is "pz"); everything else, the runtime included, local */
    static const char *const API[] = {"create", "run", "output_shape", "output_data", "destroy",
                                      "net", "inputs", "outputs", "n_inputs", "n_outputs",
                                      "input_values", "output_values", "n_input_values",
                                      "n_output_values", "check_values"};
    gt_puts(t, "{\n  global:\n    paleozoic_model_name;\n");
    for (size_t i = 0; i < sizeof API / sizeof *API; i++)
        gt_printf(t, "    %s_%s;\n", o->name, API[i]);
    static const char *const OPEN_API[] = {"create_at", "open_names", "open_max", "input_open"};
    for (size_t i = 0; o->n_open && i < sizeof OPEN_API / sizeof *OPEN_API; i++)
        gt_printf(t, "    %s_%s;\n", o->name, OPEN_API[i]);
    if (o->replan) gt_printf(t, "    %s_run_values;\n", o->name);
    gt_puts(t, "  local: *;\n};\n");
}

void gen_lib_command(gen_text *t, const gen_opts *o, const char *cc, const char *cflags,
                     const char *dir)
{
    const char *n = o->name;
    char wobj[2 * 4096 + 600] = "";   /* two objects' paths */
    gt_printf(t, "%s %s -std=c99 -Wall -Wextra -fPIC -I%s/include -c -o %s%s.o %s%s.c", cc, cflags,
              o->sdk, dir, n, dir, n);
    if (o->embed) {
        /* the assembler finds NAME.weights in the sources' directory */
        gt_printf(t, " && %s -c -Wa,-I%s -o %s%s_weights.o %s%s_weights.S", cc, dir, dir, n, dir, n);
        snprintf(wobj, sizeof wobj, " %s%s_weights.o", dir, n);
    }
    if (o->replan) {
        /* the model's bytes, for NAME_run_values (pz_replan_values) */
        size_t w = strlen(wobj);
        gt_printf(t, " && %s -c -Wa,-I%s -o %s%s_model.o %s%s_model.S", cc, dir, dir, n, dir, n);
        snprintf(wobj + w, sizeof wobj - w, " %s%s_model.o", dir, n);
    }
    gt_printf(t, " && rm -f %slib%s.a && ar rcs %slib%s.a %s%s.o%s", dir, n, dir, n, dir, n, wobj);
    /* self-contained: the runtime's archives linked in and hidden */
    gt_printf(t, " && %s %s -shared -fPIC -o %slib%s.so -Wl,-soname,lib%s.so "
                 "-Wl,--version-script=%s%s.map -Wl,--exclude-libs,ALL %s%s.o%s ",
              cc, cflags, dir, n, n, dir, n, dir, n, wobj);
    if (o->replan) gt_printf(t, "%s/libpaleozoic.a ", o->sdk);
    gen_emit_link_libs(t, o);
    if (o->replan) gt_puts(t, " -lprotobuf-c");
}
