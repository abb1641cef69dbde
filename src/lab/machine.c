/* machine.c - the machine a target profile describes: the CPU model, the
 * online CPUs, the cache sizes of cpu0 and the instruction sets the kernels
 * are chosen by. A profile measured on another machine (or by an older
 * study that recorded none) does not describe this one: its timings, MP
 * model and OpCount_critical are another machine's. */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "quality.h"
#include "rt/kernels/kernels.h"

static void trim(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t')) s[--n] = 0;
    size_t k = strspn(s, " \t");
    memmove(s, s + k, strlen(s + k) + 1);
}

/* The first line of a small sysfs file into buf ("" if unreadable). */
static void read_line(const char *path, char *buf, size_t n)
{
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (!fgets(buf, (int)n, f)) buf[0] = 0;
    fclose(f);
    trim(buf);
}

void lab_machine_read(lab_machine *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->cpu, sizeof m->cpu, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            char *colon = strchr(line, ':');
            if (!colon || strncmp(line, "model name", 10)) continue;
            snprintf(m->cpu, sizeof m->cpu, "%s", colon + 1);
            trim(m->cpu);
            break;
        }
        fclose(f);
    }
    for (char *p = m->cpu; *p; p++)   /* the record is a JSON string */
        if (*p == '"' || *p == '\\' || (unsigned char)*p < 0x20) *p = ' ';
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    m->logical_cores = n > 0 ? (int)n : 1;
    for (int i = 0; i < 8; i++) {
        char path[128], level[16], type[32], size[32];
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/level", i);
        read_line(path, level, sizeof level);
        if (!level[0]) break;
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/type", i);
        read_line(path, type, sizeof type);
        snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/size", i);
        read_line(path, size, sizeof size);
        int lv = level[0] - '0', kib = 0;
        if (!strcmp(type, "Instruction") || lv < 1 || lv > 3) continue;
        sscanf(size, "%d", &kib);
        if (strchr(size, 'M')) kib *= 1024;
        m->cache_kib[lv == 1 ? 0 : lv - 1] = kib;
    }
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    static const char *const ISA[] = {"avx2", "fma", "avx512f", "avx512bw", "avx512vnni",
                                      "avx512bf16", "avxvnni"};
    int has[7] = {__builtin_cpu_supports("avx2"), __builtin_cpu_supports("fma"),
                  __builtin_cpu_supports("avx512f"), __builtin_cpu_supports("avx512bw"),
                  __builtin_cpu_supports("avx512vnni"), __builtin_cpu_supports("avx512bf16"),
                  pz_cpu_host_avxvnni()};
    for (int i = 0; i < 7; i++)
        if (has[i]) {
            size_t len = strlen(m->isa);
            snprintf(m->isa + len, sizeof m->isa - len, "%s%s", len ? " " : "", ISA[i]);
        }
#endif
    if (!m->isa[0]) snprintf(m->isa, sizeof m->isa, "none");
}

void lab_machine_json(gen_text *b, const lab_machine *m)
{
    gt_printf(b, "  \"machine\": {\"cpu\": \"%s\", \"logical_cores\": %d, \"cache_kib\": {\"l1d\": %d, "
              "\"l2\": %d, \"l3\": %d}, \"isa\": \"%s\"}", m->cpu, m->logical_cores, m->cache_kib[0],
              m->cache_kib[1], m->cache_kib[2], m->isa);
}

static int get_int(const json_value *o, const char *key, int *out)
{
    const json_value *v = o ? json_get(o, key) : NULL;
    if (!v || v->type != JSON_NUMBER) return -1;
    *out = (int)v->num;
    return 0;
}

static int get_str(const json_value *o, const char *key, char *out, size_t n)
{
    const json_value *v = o ? json_get(o, key) : NULL;
    if (!v || v->type != JSON_STRING) return -1;
    snprintf(out, n, "%s", v->str);
    return 0;
}

int lab_machine_parse(const json_value *root, lab_machine *m)
{
    memset(m, 0, sizeof *m);
    const json_value *r = json_get(root, "machine");
    if (!r || r->type != JSON_OBJECT) return -1;
    const json_value *c = json_get(r, "cache_kib");
    if (get_str(r, "cpu", m->cpu, sizeof m->cpu) || get_int(r, "logical_cores", &m->logical_cores) ||
        get_str(r, "isa", m->isa, sizeof m->isa) || !c || c->type != JSON_OBJECT ||
        get_int(c, "l1d", &m->cache_kib[0]) || get_int(c, "l2", &m->cache_kib[1]) ||
        get_int(c, "l3", &m->cache_kib[2]))
        return -1;
    return 0;
}

int lab_machine_differs(const lab_machine *here, const lab_machine *prof, char *why, size_t n)
{
    static const char *const LEVEL[] = {"L1d", "L2", "L3"};
    if (strcmp(here->cpu, prof->cpu)) {
        snprintf(why, n, "CPU \"%s\" here, \"%s\" in the profile", here->cpu, prof->cpu);
        return 1;
    }
    if (here->logical_cores != prof->logical_cores) {
        snprintf(why, n, "%d logical cores here, %d in the profile", here->logical_cores,
                 prof->logical_cores);
        return 1;
    }
    for (int i = 0; i < 3; i++)
        if (here->cache_kib[i] != prof->cache_kib[i]) {
            snprintf(why, n, "%s cache %d KiB here, %d KiB in the profile", LEVEL[i],
                     here->cache_kib[i], prof->cache_kib[i]);
            return 1;
        }
    if (strcmp(here->isa, prof->isa)) {
        snprintf(why, n, "instruction sets \"%s\" here, \"%s\" in the profile", here->isa, prof->isa);
        return 1;
    }
    return 0;
}
