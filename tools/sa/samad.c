// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * SA header, PathRecord and MCMemberRecord at their IBA byte offsets.
 * Done by hand, byte by byte, rather than with packed structs and
 * bitfields, whose layout is the compiler's to choose.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mad.h"
#include "tools/sa/samad.h"

/* Selector in the top two bits, value in the low six. */
static uint8_t selval(uint8_t sel, uint8_t val)
{
	return (uint8_t)((sel & 3) << 6 | (val & 0x3f));
}

void vf_sa_hdr_encode(uint8_t *mad, const struct vf_sa_hdr *h)
{
	mad[2] = h->class_version;
	mad[3] = h->method;
	vf_put16(mad + 4, h->status);
	vf_put64(mad + 8, h->tid);
	vf_put16(mad + 16, h->attr_id);
	vf_put32(mad + 20, h->attr_mod);
	mad[24] = h->rmpp_version;
	mad[25] = h->rmpp_type;
	mad[26] = h->rmpp_flags;
	mad[27] = h->rmpp_status;
	vf_put32(mad + 28, h->rmpp_seg);
	vf_put32(mad + 32, h->rmpp_paylen);
	vf_put64(mad + 36, h->sm_key);
	vf_put16(mad + 44, h->attr_offset);
	vf_put64(mad + 48, h->comp_mask);
}

void vf_sa_hdr_decode(const uint8_t *mad, struct vf_sa_hdr *h)
{
	h->class_version = mad[2];
	h->method = mad[3];
	h->status = vf_get16(mad + 4);
	h->tid = vf_get64(mad + 8);
	h->attr_id = vf_get16(mad + 16);
	h->attr_mod = vf_get32(mad + 20);
	h->rmpp_version = mad[24];
	h->rmpp_type = mad[25];
	h->rmpp_flags = mad[26];
	h->rmpp_status = mad[27];
	h->rmpp_seg = vf_get32(mad + 28);
	h->rmpp_paylen = vf_get32(mad + 32);
	h->sm_key = vf_get64(mad + 36);
	h->attr_offset = vf_get16(mad + 44);
	h->comp_mask = vf_get64(mad + 48);
}

void vf_sa_request(uint8_t *mad, const struct vf_sa_hdr *h)
{
	memset(mad, 0, VF_MAD_SIZE);
	mad[0] = 1;			/* base version */
	mad[1] = VF_SA_CLASS;
	vf_sa_hdr_encode(mad, h);
}

void vf_pr_encode(uint8_t *rec, const struct vf_path_rec *pr)
{
	memset(rec, 0, VF_PR_SIZE);
	vf_put64(rec, pr->service_id);
	memcpy(rec + 8, pr->dgid, 16);
	memcpy(rec + 24, pr->sgid, 16);
	vf_put16(rec + 40, pr->dlid);
	vf_put16(rec + 42, pr->slid);
	/* RawTraffic 1, reserved 3, FlowLabel 20, HopLimit 8 */
	vf_put32(rec + 44, (uint32_t)pr->raw_traffic << 31 |
	      (pr->flow_label & 0xfffff) << 8 | pr->hop_limit);
	rec[48] = pr->tclass;
	rec[49] = (uint8_t)(pr->reversible << 7 | (pr->numb_path & 0x7f));
	vf_put16(rec + 50, pr->pkey);
	vf_put16(rec + 52, (uint16_t)((pr->qos_class & 0xfff) << 4 |
				   (pr->sl & 0xf)));
	rec[54] = selval(pr->mtu_sel, pr->mtu);
	rec[55] = selval(pr->rate_sel, pr->rate);
	rec[56] = selval(pr->life_sel, pr->life);
	rec[57] = pr->preference;
}

void vf_mpr_encode(uint8_t *rec, const struct vf_path_rec *pr,
		   const uint8_t (*gids)[16], unsigned nsgid, unsigned ndgid)
{
	memset(rec, 0, VF_MPR_FIXED + 16 * (size_t)(nsgid + ndgid));
	vf_put32(rec, (uint32_t)pr->raw_traffic << 31 |
	      (pr->flow_label & 0xfffff) << 8 | pr->hop_limit);
	rec[4] = pr->tclass;
	rec[5] = (uint8_t)(pr->reversible << 7 | (pr->numb_path & 0x7f));
	vf_put16(rec + 6, pr->pkey);
	vf_put16(rec + 8, (uint16_t)((pr->qos_class & 0xfff) << 4 |
				  (pr->sl & 0xf)));
	rec[10] = selval(pr->mtu_sel, pr->mtu);
	rec[11] = selval(pr->rate_sel, pr->rate);
	rec[12] = selval(pr->life_sel, pr->life);
	rec[13] = (uint8_t)(pr->service_id >> 56);
	rec[15] = (uint8_t)nsgid;
	rec[16] = (uint8_t)ndgid;
	for (int i = 0; i < 7; i++)
		rec[17 + i] = (uint8_t)(pr->service_id >> (48 - 8 * i));
	memcpy(rec + VF_MPR_FIXED, gids, 16 * (size_t)(nsgid + ndgid));
}

void vf_pr_decode(const uint8_t *rec, struct vf_path_rec *pr)
{
	uint32_t hfr = vf_get32(rec + 44);
	uint16_t qs = vf_get16(rec + 52);

	memset(pr, 0, sizeof(*pr));
	pr->service_id = vf_get64(rec);
	memcpy(pr->dgid, rec + 8, 16);
	memcpy(pr->sgid, rec + 24, 16);
	pr->dlid = vf_get16(rec + 40);
	pr->slid = vf_get16(rec + 42);
	pr->raw_traffic = hfr >> 31;
	pr->flow_label = (hfr >> 8) & 0xfffff;
	pr->hop_limit = hfr & 0xff;
	pr->tclass = rec[48];
	pr->reversible = rec[49] >> 7;
	pr->numb_path = rec[49] & 0x7f;
	pr->pkey = vf_get16(rec + 50);
	pr->qos_class = qs >> 4;
	pr->sl = qs & 0xf;
	pr->mtu_sel = rec[54] >> 6;
	pr->mtu = rec[54] & 0x3f;
	pr->rate_sel = rec[55] >> 6;
	pr->rate = rec[55] & 0x3f;
	pr->life_sel = rec[56] >> 6;
	pr->life = rec[56] & 0x3f;
	pr->preference = rec[57];
}

void vf_mcr_encode(uint8_t *rec, const struct vf_mcmember_rec *mr)
{
	memset(rec, 0, VF_MCR_SIZE);
	memcpy(rec, mr->mgid, 16);
	memcpy(rec + 16, mr->port_gid, 16);
	vf_put32(rec + 32, mr->qkey);
	vf_put16(rec + 36, mr->mlid);
	rec[38] = selval(mr->mtu_sel, mr->mtu);
	rec[39] = mr->tclass;
	vf_put16(rec + 40, mr->pkey);
	rec[42] = selval(mr->rate_sel, mr->rate);
	rec[43] = selval(mr->life_sel, mr->life);
	/* SL 4, FlowLabel 20, HopLimit 8 */
	vf_put32(rec + 44, (uint32_t)(mr->sl & 0xf) << 28 |
	      (mr->flow_label & 0xfffff) << 8 | mr->hop_limit);
	rec[48] = (uint8_t)((mr->scope & 0xf) << 4 | (mr->join_state & 0xf));
	rec[49] = (uint8_t)(mr->proxy_join << 7);
}

void vf_mcr_decode(const uint8_t *rec, struct vf_mcmember_rec *mr)
{
	uint32_t sfh = vf_get32(rec + 44);

	memset(mr, 0, sizeof(*mr));
	memcpy(mr->mgid, rec, 16);
	memcpy(mr->port_gid, rec + 16, 16);
	mr->qkey = vf_get32(rec + 32);
	mr->mlid = vf_get16(rec + 36);
	mr->mtu_sel = rec[38] >> 6;
	mr->mtu = rec[38] & 0x3f;
	mr->tclass = rec[39];
	mr->pkey = vf_get16(rec + 40);
	mr->rate_sel = rec[42] >> 6;
	mr->rate = rec[42] & 0x3f;
	mr->life_sel = rec[43] >> 6;
	mr->life = rec[43] & 0x3f;
	mr->sl = sfh >> 28;
	mr->flow_label = (sfh >> 8) & 0xfffff;
	mr->hop_limit = sfh & 0xff;
	mr->scope = rec[48] >> 4;
	mr->join_state = rec[48] & 0xf;
	mr->proxy_join = rec[49] >> 7;
}

unsigned vf_sa_record_count(const struct vf_sa_hdr *h, size_t len,
			    bool *truncated)
{
	size_t rec = (size_t)h->attr_offset * 8, data;

	*truncated = false;
	if (h->status || len < VF_SA_HDR_SIZE)
		return 0;
	if ((h->method & 0x7f) != VF_METHOD_GETTABLE &&
	    (h->method & 0x7f) != VF_METHOD_GETMULTI)
		return 1;
	if (!rec)
		return 0;
	data = len - VF_SA_HDR_SIZE;
	/*
	 * The SA sizes a table answer to its records exactly, and an RMPP
	 * layer that reassembles segments cuts the last one to PayloadLength;
	 * a remainder means the tail was lost in transit.  PayloadLength
	 * counts from the SA header (byte 36) on, in the first segment.
	 */
	if (data % rec)
		*truncated = true;
	if ((h->rmpp_flags & (VF_RMPP_ACTIVE | VF_RMPP_FIRST)) ==
	    (VF_RMPP_ACTIVE | VF_RMPP_FIRST) && h->rmpp_paylen &&
	    len < 36 + (size_t)h->rmpp_paylen)
		*truncated = true;
	return (unsigned)(data / rec);
}

const char *vf_sa_status_name(uint16_t status)
{
	static const char *const sa[] = {
		"SUCCESS", "NO_RESOURCES", "REQ_INVALID", "NO_RECORDS",
		"TOO_MANY_RECORDS", "INVALID_GID", "INSUF_COMPS", "DENIED",
		"PRIO_SUGGESTED",
	};

	if (status >> 8) {
		/* class-specific (SA) codes are in the high byte */
		if ((status & 0xff) == 0 && (status >> 8) < 9)
			return sa[status >> 8];
		return "UNKNOWN";
	}
	switch (status) {
	case 0x0000: return "SUCCESS";
	case 0x0001: return "BUSY";
	case 0x0002: return "REDIRECT";
	case 0x0004: return "UNSUP_CLASS_VER";
	case 0x0008: return "UNSUP_METHOD";
	case 0x000c: return "UNSUP_METHOD_ATTR";
	case 0x001c: return "INVALID_FIELD";
	default: return "UNKNOWN";
	}
}

int vf_parse_selector(const char *s, bool mtu, uint8_t *sel, uint8_t *val)
{
	unsigned long v;
	char *end;

	if (!strcmp(s, "best")) {
		*sel = VF_SEL_BEST;
		*val = 0;
		return 0;
	}
	*sel = VF_SEL_EQ;
	if (*s == '>' || *s == '<' || *s == '=')
		*sel = *s == '>' ? VF_SEL_GT : *s == '<' ? VF_SEL_LT : VF_SEL_EQ,
		s++;
	if (!isdigit((unsigned char)*s))
		return -1;
	v = strtoul(s, &end, 0);
	if (*end)
		return -1;
	if (mtu) {
		*val = vf_mtu_code((unsigned)v);
		return *val ? 0 : -1;
	}
	if (v > 0x3f)
		return -1;
	*val = (uint8_t)v;
	return 0;
}

int vf_parse_gid(const char *s, uint8_t gid[16])
{
	unsigned long long guid;
	char *end;

	if (strchr(s, ':'))
		return inet_pton(AF_INET6, s, gid) == 1 ? 0 : -1;
	if (!isxdigit((unsigned char)*s))
		return -1;
	guid = strtoull(s, &end, 16);
	if (*end || !guid)
		return -1;
	vf_put64(gid, 0xfe80000000000000ull);
	vf_put64(gid + 8, guid);
	return 0;
}

const char *vf_gid_str(const uint8_t gid[16], char *buf, size_t len)
{
	if (!inet_ntop(AF_INET6, gid, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}
