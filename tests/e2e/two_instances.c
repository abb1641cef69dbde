/* two_instances.c - two instances of one generated network, run at the same
 * time from two threads, must each give the output a lone run gives, bit for
 * bit (no shared mutable state between instances).
 *
 *   cc -DNET=resnet18 -DNET_UP=RESNET18 -IDIR -I$SDK/include two_instances.c DIR/resnet18.c \
 *      $SDK/libpzio.a $SDK/libpzrt.a -lm -lpthread && ./a.out DIR/resnet18.weights
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STR_(x) #x
#define STR(x) STR_(x)
#define CAT_(a, b) a##b
#define CAT(a, b) CAT_(a, b)
#include STR(NET.h)

#define N_IN CAT(NET_UP, _N_INPUTS)
#define N_OUT CAT(NET_UP, _N_OUTPUTS)
#define ROUNDS 3

typedef struct {
    NET *net;
    const void *in[N_IN + 1];
    void *out[N_OUT + 1];
    int same;
    void *const *ref;
} job;

static size_t bytes(const CAT(NET, _io) *io)
{
    size_t n = pz_dtype_size(io->dtype);
    for (int i = 0; i < io->rank; i++) n *= (size_t)io->dims[i];
    return n;
}

static void *work(void *arg)
{
    job *j = arg;
    j->same = 1;
    for (int r = 0; r < ROUNDS; r++) {
        CAT(NET, _run)(j->net, j->in, j->out);
        for (int i = 0; i < N_OUT; i++)
            j->same &= !memcmp(j->out[i], j->ref[i], bytes(&CAT(NET, _outputs)[i]));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    char err[512];
    if (argc < 2) return 2;
    NET *a = CAT(NET, _create)(argv[1], 1, NULL, err, sizeof err);
    NET *b = CAT(NET, _create)(argv[1], 1, NULL, err, sizeof err);
    if (!a || !b) {
        fprintf(stderr, "create: %s\n", err);
        return 1;
    }
    const void *in[N_IN + 1];
    void *ref[N_OUT + 1];
    unsigned s = 12345;
    for (int i = 0; i < N_IN; i++) {
        size_t n = bytes(&CAT(NET, _inputs)[i]);
        unsigned char *x = malloc(n + 1);
        for (size_t k = 0; k < n; k++) {
            s = s * 1103515245u + 12345u;
            x[k] = (unsigned char)(s >> 16);
        }
        if (CAT(NET, _inputs)[i].dtype == PZ_F32)   /* finite floats in [-1, 1) */
            for (size_t k = 0; k < n / 4; k++) ((float *)x)[k] = (float)((s = s * 1103515245u + 12345u) >> 8) / 8388608.0f - 1.0f;
        in[i] = x;
    }
    for (int i = 0; i < N_OUT; i++) ref[i] = calloc(bytes(&CAT(NET, _outputs)[i]) + 1, 1);
    CAT(NET, _run)(a, in, ref);
    job j[2];
    pthread_t th[2];
    for (int k = 0; k < 2; k++) {
        memset(&j[k], 0, sizeof j[k]);
        j[k].net = k ? b : a;
        j[k].ref = ref;
        for (int i = 0; i < N_IN; i++) j[k].in[i] = in[i];
        for (int i = 0; i < N_OUT; i++) j[k].out[i] = calloc(bytes(&CAT(NET, _outputs)[i]) + 1, 1);
        pthread_create(&th[k], NULL, work, &j[k]);
    }
    int ok = 1;
    for (int k = 0; k < 2; k++) {
        pthread_join(th[k], NULL);
        ok &= j[k].same;
        for (int i = 0; i < N_OUT; i++) free(j[k].out[i]);
    }
    for (int i = 0; i < N_IN; i++) free((void *)in[i]);
    for (int i = 0; i < N_OUT; i++) free(ref[i]);
    CAT(NET, _destroy)(a);
    CAT(NET, _destroy)(b);
    printf("two instances at once, %d rounds each: %s\n", ROUNDS, ok ? "outputs bitwise equal to a lone run" : "OUTPUTS DIFFER");
    return ok ? 0 : 1;
}
