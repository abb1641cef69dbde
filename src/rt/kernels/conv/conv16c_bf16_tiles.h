/* conv16c_bf16_tiles.h - the tile shapes of the bf16 direct conv's
 * micro-kernel sets (conv16c_bf16.c, conv16c_bf16_avx512bf16.c), one list
 * for both so the driver plans the same calls for the twin: the includer
 * defines SK(RM, RW) and SK2(RM, RW) (functions sk_RM_RW, sk2_RM_RW: one
 * row, and tiles of two rows) and gets SK_TABLE[rm][rw] (rm 1..4, rw up to
 * 14, 14, 9, 6: rwmax) and SK_TABLE2[rm][rw] (rm 1..2, rw 1..7: rw2max),
 * and their pickers for a pz_conv16c_ukset (any pixel stride). */
#define SK_1TO6(RM) SK(RM, 1) SK(RM, 2) SK(RM, 3) SK(RM, 4) SK(RM, 5) SK(RM, 6)
#define SK_1TO9(RM) SK_1TO6(RM) SK(RM, 7) SK(RM, 8) SK(RM, 9)
#define SK_1TO14(RM) SK_1TO9(RM) SK(RM, 10) SK(RM, 11) SK(RM, 12) SK(RM, 13) SK(RM, 14)
#define SK2_1TO7(RM) SK2(RM, 1) SK2(RM, 2) SK2(RM, 3) SK2(RM, 4) SK2(RM, 5) SK2(RM, 6) \
    SK2(RM, 7)
SK_1TO14(1) SK_1TO14(2) SK_1TO9(3) SK_1TO6(4)
SK2_1TO7(1) SK2_1TO7(2)

#define SK_ROW6(RM) NULL, sk_##RM##_1, sk_##RM##_2, sk_##RM##_3, sk_##RM##_4, sk_##RM##_5, \
    sk_##RM##_6
#define SK_ROW9(RM) SK_ROW6(RM), sk_##RM##_7, sk_##RM##_8, sk_##RM##_9
#define SK_ROW14(RM) SK_ROW9(RM), sk_##RM##_10, sk_##RM##_11, sk_##RM##_12, sk_##RM##_13, \
    sk_##RM##_14
#define SK_ROW7_2(RM) NULL, sk2_##RM##_1, sk2_##RM##_2, sk2_##RM##_3, sk2_##RM##_4, \
    sk2_##RM##_5, sk2_##RM##_6, sk2_##RM##_7
static const pz_conv16c_uk SK_TABLE[5][15] = {
    {NULL}, {SK_ROW14(1)}, {SK_ROW14(2)}, {SK_ROW9(3)}, {SK_ROW6(4)},
};
static const pz_conv16c_uk SK_TABLE2[3][8] = {{NULL}, {SK_ROW7_2(1)}, {SK_ROW7_2(2)}};

static pz_conv16c_uk sk_pick(int psk, int rm, int rw)
{
    (void)psk;
    return SK_TABLE[rm][rw];
}

static pz_conv16c_uk sk_pick2(int psk, int rm, int rw)
{
    (void)psk;
    return SK_TABLE2[rm][rw];
}
