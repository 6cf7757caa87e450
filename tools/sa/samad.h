/* SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB) */
/*
 * SA MADs as bytes: the SA header and the PathRecord and MCMemberRecord
 * attributes, encoded and decoded at the offsets of IBA 1.3 chapter 15
 * (no libibumad, no OpenSM headers: unit-tested on its own).  Multi-byte
 * fields are big-endian on the wire; the structs hold host order, except
 * GIDs, which stay as the 16 wire bytes.
 */
#ifndef VF_SAMAD_H
#define VF_SAMAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VF_MAD_SIZE		256
#define VF_SA_HDR_SIZE		56	/* MAD 24 + RMPP 12 + SA 20 bytes */
#define VF_SA_DATA_SIZE		(VF_MAD_SIZE - VF_SA_HDR_SIZE)
#define VF_SA_CLASS		0x03
#define VF_SA_CLASS_VERSION	2

#define VF_PR_SIZE		64	/* PathRecord */
#define VF_MCR_SIZE		56	/* MCMemberRecord, padded to 8 bytes */

enum vf_sa_method {
	VF_METHOD_GET = 0x01,
	VF_METHOD_SET = 0x02,
	VF_METHOD_GETTABLE = 0x12,
	VF_METHOD_GETMULTI = 0x14,
	VF_METHOD_DELETE = 0x15,
	VF_METHOD_RESP = 0x80,		/* bit set in every response */
};

enum vf_sa_attr {
	VF_ATTR_PATH_RECORD = 0x0035,
	VF_ATTR_MCMEMBER_RECORD = 0x0038,
	VF_ATTR_MULTIPATH_RECORD = 0x003a,
};

/* RMPP header flags (byte 26): what tells a reassembled answer apart. */
enum {
	VF_RMPP_ACTIVE = 0x01,
	VF_RMPP_FIRST = 0x02,
	VF_RMPP_LAST = 0x04,
};

/* PathRecord component mask bits (IBA 15.2.5.16). */
enum {
	VF_PR_SID = 3ull << 0,		/* both ServiceID halves */
	VF_PR_DGID = 1ull << 2,
	VF_PR_SGID = 1ull << 3,
	VF_PR_DLID = 1ull << 4,
	VF_PR_SLID = 1ull << 5,
	VF_PR_RAW = 1ull << 6,
	VF_PR_FLOWLABEL = 1ull << 8,
	VF_PR_HOPLIMIT = 1ull << 9,
	VF_PR_TCLASS = 1ull << 10,
	VF_PR_REVERSIBLE = 1ull << 11,
	VF_PR_NUMBPATH = 1ull << 12,
	VF_PR_PKEY = 1ull << 13,
	VF_PR_QOS_CLASS = 1ull << 14,
	VF_PR_SL = 1ull << 15,
	VF_PR_MTU_SEL = 1ull << 16,
	VF_PR_MTU = 1ull << 17,
	VF_PR_RATE_SEL = 1ull << 18,
	VF_PR_RATE = 1ull << 19,
	VF_PR_LIFE_SEL = 1ull << 20,
	VF_PR_LIFE = 1ull << 21,
	VF_PR_PREFERENCE = 1ull << 22,
};

/* MCMemberRecord component mask bits (IBA 15.2.5.17). */
enum {
	VF_MCR_MGID = 1ull << 0,
	VF_MCR_PORT_GID = 1ull << 1,
	VF_MCR_QKEY = 1ull << 2,
	VF_MCR_MLID = 1ull << 3,
	VF_MCR_MTU_SEL = 1ull << 4,
	VF_MCR_MTU = 1ull << 5,
	VF_MCR_TCLASS = 1ull << 6,
	VF_MCR_PKEY = 1ull << 7,
	VF_MCR_RATE_SEL = 1ull << 8,
	VF_MCR_RATE = 1ull << 9,
	VF_MCR_LIFE_SEL = 1ull << 10,
	VF_MCR_LIFE = 1ull << 11,
	VF_MCR_SL = 1ull << 12,
	VF_MCR_FLOWLABEL = 1ull << 13,
	VF_MCR_HOPLIMIT = 1ull << 14,
	VF_MCR_SCOPE = 1ull << 15,
	VF_MCR_JOIN_STATE = 1ull << 16,
	VF_MCR_PROXY_JOIN = 1ull << 17,
	/* what IBA (o15-0.2.3) asks of a join that may create the group */
	VF_MCR_CREATE = VF_MCR_MGID | VF_MCR_PORT_GID | VF_MCR_QKEY |
			VF_MCR_TCLASS | VF_MCR_PKEY | VF_MCR_FLOWLABEL |
			VF_MCR_SL | VF_MCR_JOIN_STATE,
};

/* MTU, rate and lifetime selectors (the top two bits of their byte). */
/* MultiPathRecord component mask bits (IBA 15.2.5.20) */
enum {
	VF_MPR_REVERSIBLE = 1ull << 5,
	VF_MPR_NUMBPATH = 1ull << 6,
	VF_MPR_PKEY = 1ull << 7,
	VF_MPR_SL = 1ull << 9,
	VF_MPR_MTU_SEL = 1ull << 10,
	VF_MPR_MTU = 1ull << 11,
	VF_MPR_RATE_SEL = 1ull << 12,
	VF_MPR_RATE = 1ull << 13,
	VF_MPR_LIFE_SEL = 1ull << 14,
	VF_MPR_LIFE = 1ull << 15,
	VF_MPR_SID = 1ull << 16 | 1ull << 21,	/* both ServiceID parts */
	VF_MPR_SGIDCOUNT = 1ull << 19,
	VF_MPR_DGIDCOUNT = 1ull << 20,
};

#define VF_MPR_FIXED		24	/* MultiPathRecord before its GIDs */
#define VF_MPR_MAX_GIDS		((VF_SA_DATA_SIZE - VF_MPR_FIXED) / 16)

enum vf_selector {
	VF_SEL_GT = 0, VF_SEL_LT = 1, VF_SEL_EQ = 2, VF_SEL_BEST = 3,
};

/* The SA header of a request or response. */
struct vf_sa_hdr {
	uint8_t class_version;
	uint8_t method;
	uint16_t status;
	uint64_t tid;
	uint16_t attr_id;
	uint32_t attr_mod;
	uint8_t rmpp_version, rmpp_type, rmpp_flags, rmpp_status;
	uint32_t rmpp_seg, rmpp_paylen;
	uint64_t sm_key;		/* 0 unless injected: a client has
					 * no SM_Key to send */
	uint16_t attr_offset;		/* in 8-byte words */
	uint64_t comp_mask;
};

struct vf_path_rec {
	uint64_t service_id;
	uint8_t dgid[16], sgid[16];
	uint16_t dlid, slid;
	bool raw_traffic;
	uint32_t flow_label;		/* 20 bits */
	uint8_t hop_limit, tclass;
	bool reversible;
	uint8_t numb_path;		/* 7 bits */
	uint16_t pkey;
	uint16_t qos_class;		/* 12 bits */
	uint8_t sl;			/* 4 bits */
	uint8_t mtu_sel, mtu;		/* selector 2 bits, code 6 bits */
	uint8_t rate_sel, rate;
	uint8_t life_sel, life;
	uint8_t preference;
};

struct vf_mcmember_rec {
	uint8_t mgid[16], port_gid[16];
	uint32_t qkey;
	uint16_t mlid;
	uint8_t mtu_sel, mtu, tclass;
	uint16_t pkey;
	uint8_t rate_sel, rate, life_sel, life;
	uint8_t sl;			/* 4 bits */
	uint32_t flow_label;		/* 20 bits */
	uint8_t hop_limit;
	uint8_t scope, join_state;	/* 4 bits each */
	bool proxy_join;
};

void vf_sa_hdr_encode(uint8_t *mad, const struct vf_sa_hdr *h);
void vf_sa_hdr_decode(const uint8_t *mad, struct vf_sa_hdr *h);
/* A request: zeroed MAD, base version 1, class 0x03, the header of h. */
void vf_sa_request(uint8_t *mad, const struct vf_sa_hdr *h);

void vf_pr_encode(uint8_t *rec, const struct vf_path_rec *pr);
void vf_pr_decode(const uint8_t *rec, struct vf_path_rec *pr);
void vf_mcr_encode(uint8_t *rec, const struct vf_mcmember_rec *mr);
/*
 * A MultiPathRecord: pr's ServiceID, TClass, Reversible, NumbPath, P_Key,
 * SL and selectors, then nsgid source and ndgid destination GIDs.
 */
void vf_mpr_encode(uint8_t *rec, const struct vf_path_rec *pr,
		   const uint8_t (*gids)[16], unsigned nsgid, unsigned ndgid);
void vf_mcr_decode(const uint8_t *rec, struct vf_mcmember_rec *mr);

/*
 * How many records a response of len bytes (header included) carries, and
 * whether it is cut short: a GetTable answer whose data is not a whole
 * number of records, or shorter than the RMPP payload length it states,
 * lost its tail (umad2sim delivers only the first 256 bytes).
 */
unsigned vf_sa_record_count(const struct vf_sa_hdr *h, size_t len,
			    bool *truncated);

/* "SUCCESS", "NO_RECORDS", ..., "UNKNOWN": the name of a MAD status. */
const char *vf_sa_status_name(uint16_t status);

/*
 * "V", "=V", ">V", "<V" or "best" into selector and value; mtu says V is
 * in bytes (converted to the IBA code).  Returns 0, or -1 if malformed.
 */
int vf_parse_selector(const char *s, bool mtu, uint8_t *sel, uint8_t *val);

/*
 * A GID: IPv6 text (fe80::2:c902:0:1), or a GUID alone (0x2c90200000001
 * or 2c90200000001 with no colon) meaning fe80::/64 plus that GUID.
 */
int vf_parse_gid(const char *s, uint8_t gid[16]);
/* IPv6 text of a GID into buf (at least 46 bytes). */
const char *vf_gid_str(const uint8_t gid[16], char *buf, size_t len);

#endif
