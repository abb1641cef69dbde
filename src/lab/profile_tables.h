/* profile_tables.h - what a target profile measured, beyond the fitted
 * numbers of pz_machine: each synthesized layer's time at each MP (the
 * profile's "layers") and each fused chain's gain over the same chain
 * unfused (its "fusion"). Algorithm 1 (src/opt/alg1.c) checks its models
 * against them: no fused block of a chain kind that fusing slowed down, no
 * MP that the profile measured slower for that kind of layer.
 *
 *   lab_profile_tables t;
 *   if (lab_profile_tables_load(path, &t, &err)) ...;   // path NULL: the default
 *   ... t.gain[LAB_CHAIN_IR] ...
 *   lab_profile_tables_free(&t);
 */
#ifndef PZ_LAB_PROFILE_TABLES_H
#define PZ_LAB_PROFILE_TABLES_H

#include "../ir/status.h"

/* The layer kinds the profile times one by one. */
typedef enum { LAB_LAYER_CONV, LAB_LAYER_DEPTHWISE, LAB_LAYER_FC, LAB_N_LAYER_KINDS } lab_layer_kind;
/* The chain kinds it fuses: 3x3 dense convs, MobileNetV2's inverted residuals. */
typedef enum { LAB_CHAIN_CONV, LAB_CHAIN_IR, LAB_N_CHAIN_KINDS } lab_chain_kind;

#define LAB_TABLE_MAX_MP 16

typedef struct {
    lab_layer_kind kind;
    double log2_c;             /* log2 of sqrt(C_in C_out) (FC: sqrt(K N)) */
    double log2_ops;
    int kernel;                /* conv: k of k x k; FC: 0 */
    double ms[LAB_TABLE_MAX_MP];   /* per entry of mp[], NAN when not timed */
} lab_layer_point;

typedef struct {
    int n_mp;
    int mp[LAB_TABLE_MAX_MP];  /* the profile's "mp_list" */
    lab_layer_point *pts;      /* [n_pts], owned */
    int n_pts;
    /* Per chain kind: how many chains were timed fused at the largest MP of
     * the study, and the median over them of each chain's best gain over
     * its blocks of more than one layer; NAN when none was. */
    int n_chains[LAB_N_CHAIN_KINDS];
    double gain[LAB_N_CHAIN_KINDS];
} lab_profile_tables;

/* Reads the tables of the profile at path (NULL: the cached default, see
 * lab_default_profile_path). Missing "layers" or "fusion" arrays, or
 * entries without the fields, leave the tables empty (n_pts 0, gain NAN):
 * a profile written by hand need only hold pz_machine's numbers. An
 * unreadable file or bad JSON is an error. t is always safe to free. */
pz_status lab_profile_tables_load(const char *path, lab_profile_tables *t, pz_err *err);
void lab_profile_tables_free(lab_profile_tables *t);

/* Whether the profile shows fusion paying for chains of kind k: a gain of
 * at least LAB_FUSE_GAIN_MIN measured. A kind not measured (or t NULL)
 * does not. */
int lab_fusion_pays(const lab_profile_tables *t, lab_chain_kind k);

#endif
