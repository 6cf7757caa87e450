/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * Value syntax shared by the configuration front-ends: the opafm.xml forms
 * of ServiceIDs, MGIDs, GUIDs, P_Keys, MTUs, rates, times and percents.
 * Each parser takes the whole text (surrounding blanks allowed) and
 * returns 0 or -EINVAL; on error *why names what was expected.
 */
#ifndef VF_VALUES_H
#define VF_VALUES_H

#include <stdbool.h>
#include <stdint.h>

#include "partition/config.h"

int vf_parse_u64(const char *s, int base, uint64_t *out, const char **why);
int vf_parse_hex64(const char *s, uint64_t *out, const char **why);
int vf_parse_bool(const char *s, bool *out, const char **why);
int vf_parse_int(const char *s, long lo, long hi, long *out,
		 const char **why);
int vf_parse_sid_rule(const char *s, enum vf_match_kind kind,
		      struct vf_sid_rule *out, const char **why);
int vf_parse_mgid_rule(const char *s, enum vf_match_kind kind,
		       struct vf_mgid_rule *out, const char **why);
/* P_Key 0x0001-0x7fff, as the FM (a value with bit 15 set is an error) */
int vf_parse_pkey(const char *s, int *out, const char **why);
/*
 * MTU in bytes (256-4096) or Unlimited (0).  Returns 1 for an Omni-Path
 * MTU (8192, 10240): *out is 4096 and *why says so, for a warning.
 */
int vf_parse_mtu(const char *s, unsigned *out, const char **why);
/*
 * Rate as "40g", "100G", ... or Unlimited (0); out is the IB rate code.
 * Returns 1 for an Omni-Path rate IB lacks (12.5g, 37.5g, 75g): *out is
 * the fastest IB rate not above it and *why says which, for a warning.
 */
int vf_parse_rate(const char *s, unsigned *out, const char **why);
/* A rate code's place among the IB rates by speed (1 slowest), 0 unknown. */
unsigned vf_rate_rank(unsigned code);
/* The slower of two rate codes, where 0 means no limit. */
unsigned vf_rate_lower(unsigned a, unsigned b);

/* "N%" with 1 <= N <= 100 */
int vf_parse_percent(const char *s, unsigned *out, const char **why);
/* a time ("4ms", "500us", "infinite") as the 4.096 us * 2^n exponent */
int vf_parse_hoq_life(const char *s, int *out, const char **why);

/* The words of Application Select, DeviceGroup Select and NodeType
 * (case-insensitive) as their enum bits; 0 or -EINVAL. */
int vf_parse_app_select(const char *s, unsigned *bit);
int vf_parse_dg_select(const char *s, unsigned *bit);
int vf_parse_node_type(const char *s, unsigned *bit);

#endif /* VF_VALUES_H */
