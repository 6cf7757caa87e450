// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Codec between our AR model and the public AR attribute layouts of
 * Omni-Path (STL) and NVIDIA switches (routing/arhw.h,
 * docs/ar-real-switches.md).  Written from the layouts, not from either
 * vendor's code.
 */
#include <string.h>

#include "routing/internal/arhw.h"

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) << 32 | get32(p + 4);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)(v >> 32));
	put32(p + 4, (uint32_t)v);
}

const char *vf_hw_status_name(int status)
{
	switch (status) {
	case VF_HW_OK:
		return "ok";
	case VF_HW_SHORT:
		return "buffer too short";
	case VF_HW_RANGE:
		return "value out of range";
	case VF_HW_PORTS:
		return "port beyond the layout's mask";
	case VF_HW_RESERVED:
		return "reserved bits set";
	}
	return "unknown status";
}

/* ---- STL SwitchInfo ------------------------------------------------ */

int vf_stl_ar_encode(const struct vf_arp_control *c, uint16_t *field)
{
	uint16_t v = 0;

	if (c->algorithm > VF_AR_GREEDY_RANDOM || c->frequency > 7 ||
	    c->threshold > 7)
		return VF_HW_RANGE;
	if (c->enable)
		v |= VF_STL_AR_ENABLE;
	if (c->pause)
		v |= VF_STL_AR_PAUSE;
	v |= (uint16_t)(c->algorithm << VF_STL_AR_ALG_SHIFT);
	v |= (uint16_t)(c->frequency << VF_STL_AR_FREQ_SHIFT);
	if (c->lost_route_only)
		v |= VF_STL_AR_LOST_ONLY;
	v |= (uint16_t)(c->threshold << VF_STL_AR_THRESH_SHIFT);
	*field = v;
	return VF_HW_OK;
}

int vf_stl_ar_decode(uint16_t field, struct vf_arp_control *c)
{
	unsigned alg = field >> VF_STL_AR_ALG_SHIFT & 7;

	if (field & VF_STL_AR_RESERVED)
		return VF_HW_RESERVED;
	if (alg > VF_AR_GREEDY_RANDOM)
		return VF_HW_RANGE;
	c->enable = field & VF_STL_AR_ENABLE;
	c->pause = field & VF_STL_AR_PAUSE;
	c->algorithm = (uint8_t)alg;
	c->frequency = field >> VF_STL_AR_FREQ_SHIFT & 7;
	c->lost_route_only = field & VF_STL_AR_LOST_ONLY;
	c->threshold = field >> VF_STL_AR_THRESH_SHIFT & 7;
	return VF_HW_OK;
}

int vf_stl_si_get_ar(const uint8_t *si, size_t len, struct vf_stl_si_ar *a)
{
	if (!si || len < VF_STL_SI_SIZE)
		return VF_HW_SHORT;
	a->ar_supported = get16(si + VF_STL_SI_CAP_MASK) &
			  VF_STL_CAP_AR_SUPPORTED;
	a->pg_fdb_cap = get32(si + VF_STL_SI_PG_FDB_CAP);
	a->pg_cap = si[VF_STL_SI_PG_CAP];
	a->pg_top = si[VF_STL_SI_PG_TOP];
	a->ar = get16(si + VF_STL_SI_AR);
	return VF_HW_OK;
}

int vf_stl_si_put_ar(uint8_t *si, size_t len, const struct vf_arp_control *c)
{
	uint16_t field;
	int rc;

	if (!si || len < VF_STL_SI_SIZE)
		return VF_HW_SHORT;
	if (c->group_top > 255)
		return VF_HW_RANGE;
	rc = vf_stl_ar_encode(c, &field);
	if (rc)
		return rc;
	si[VF_STL_SI_PG_TOP] = (uint8_t)c->group_top;
	put16(si + VF_STL_SI_AR, field);
	return VF_HW_OK;
}

void vf_stl_si_to_info(const struct vf_stl_si_ar *a, struct vf_arp_info *i)
{
	memset(i, 0, sizeof(*i));
	i->supported = a->ar_supported;
	i->group_cap = a->pg_cap;
	i->lid_cap = a->pg_fdb_cap;
	i->groups_per_block = VF_STL_PGT_PER_BLOCK;
	i->lids_per_block = VF_STL_PGFT_PER_BLOCK;
	/* Reserved bits or an undefined algorithm: leave the control 0. */
	if (vf_stl_ar_decode(a->ar, &i->control) != VF_HW_OK)
		memset(&i->control, 0, sizeof(i->control));
	i->control.group_top = a->pg_top;
}

/* ---- STL attribute modifiers ---------------------------------------- */

static int amod_common(const struct vf_stl_amod *m, uint32_t max_block)
{
	if (m->nblocks < 1 || m->nblocks > VF_STL_MAX_BLOCKS_PER_MAD ||
	    m->block > max_block || m->block + m->nblocks - 1 > max_block)
		return VF_HW_RANGE;
	return VF_HW_OK;
}

int vf_stl_pgt_amod(const struct vf_stl_amod *m, uint32_t *amod)
{
	int rc = amod_common(m, VF_STL_PGT_MAX_BLOCK);

	if (rc)
		return rc;
	if (m->position > 3)
		return VF_HW_RANGE;
	*amod = (uint32_t)m->nblocks << 24 | (uint32_t)m->position << 22 |
		(m->all ? 1u << 5 : 0) | m->block;
	return VF_HW_OK;
}

int vf_stl_pgt_amod_decode(uint32_t amod, struct vf_stl_amod *m)
{
	struct vf_stl_amod d;

	if (amod & 0x003FFFC0u)		/* bits 21-6 */
		return VF_HW_RESERVED;
	d.nblocks = amod >> 24;
	d.position = amod >> 22 & 3;
	d.all = amod >> 5 & 1;
	d.block = amod & 0x1F;
	if (amod_common(&d, VF_STL_PGT_MAX_BLOCK))
		return VF_HW_RANGE;
	*m = d;
	return VF_HW_OK;
}

int vf_stl_pgft_amod(const struct vf_stl_amod *m, uint32_t *amod)
{
	int rc = amod_common(m, VF_STL_PGFT_MAX_BLOCK);

	if (rc)
		return rc;
	if (m->position)
		return VF_HW_RANGE;
	*amod = (uint32_t)m->nblocks << 24 | (m->all ? 1u << 18 : 0) |
		m->block;
	return VF_HW_OK;
}

int vf_stl_pgft_amod_decode(uint32_t amod, struct vf_stl_amod *m)
{
	struct vf_stl_amod d;

	if (amod & 0x00F80000u)		/* bits 23-19 */
		return VF_HW_RESERVED;
	d.nblocks = amod >> 24;
	d.position = 0;
	d.all = amod >> 18 & 1;
	d.block = amod & VF_STL_PGFT_MAX_BLOCK;
	if (amod_common(&d, VF_STL_PGFT_MAX_BLOCK))
		return VF_HW_RANGE;
	*m = d;
	return VF_HW_OK;
}

/* ---- STL tables ------------------------------------------------------ */

static unsigned blocks_of(unsigned n, unsigned per)
{
	return (n + per - 1) / per;
}

int vf_stl_pgt_put(uint8_t *buf, size_t len, const struct vf_ar_mask *m,
		   unsigned n, unsigned *blocks)
{
	unsigned nb = blocks_of(n, VF_STL_PGT_PER_BLOCK);

	if (n < 1 || nb > VF_STL_MAX_BLOCKS_PER_MAD ||
	    n > (VF_STL_PGT_MAX_BLOCK + 1) * VF_STL_PGT_PER_BLOCK)
		return VF_HW_RANGE;
	if (!buf || len < (size_t)nb * VF_STL_PGT_BLOCK_BYTES)
		return VF_HW_SHORT;
	for (unsigned i = 0; i < n; i++)
		for (unsigned w = 1; w < VF_AR_MASK_WORDS; w++)
			if (m[i].w[w])
				return VF_HW_PORTS;
	memset(buf, 0, (size_t)nb * VF_STL_PGT_BLOCK_BYTES);
	for (unsigned i = 0; i < n; i++)
		put64(buf + 8 * i, m[i].w[0]);
	if (blocks)
		*blocks = nb;
	return VF_HW_OK;
}

int vf_stl_pgt_get(const uint8_t *buf, size_t len, struct vf_ar_mask *m,
		   unsigned n)
{
	if (n > (VF_STL_PGT_MAX_BLOCK + 1) * VF_STL_PGT_PER_BLOCK)
		return VF_HW_RANGE;
	if (!buf || len < (size_t)n * 8)
		return VF_HW_SHORT;
	for (unsigned i = 0; i < n; i++) {
		memset(&m[i], 0, sizeof(m[i]));
		m[i].w[0] = get64(buf + 8 * i);
	}
	return VF_HW_OK;
}

static int pgft_check(const uint8_t *g, unsigned n, unsigned pg_top)
{
	for (unsigned k = 0; k < n; k++)
		if (g[k] != VF_STL_NO_GROUP && g[k] >= pg_top)
			return VF_HW_RANGE;
	return VF_HW_OK;
}

int vf_stl_pgft_put(uint8_t *buf, size_t len, const uint8_t *g, unsigned n,
		    unsigned pg_top, unsigned *blocks)
{
	unsigned nb = blocks_of(n, VF_STL_PGFT_PER_BLOCK);

	if (n < 1 || nb > VF_STL_MAX_BLOCKS_PER_MAD || pg_top > 255)
		return VF_HW_RANGE;
	if (!buf || len < (size_t)nb * VF_STL_PGFT_PER_BLOCK)
		return VF_HW_SHORT;
	if (pgft_check(g, n, pg_top))
		return VF_HW_RANGE;
	memset(buf, VF_STL_NO_GROUP, (size_t)nb * VF_STL_PGFT_PER_BLOCK);
	memcpy(buf, g, n);
	if (blocks)
		*blocks = nb;
	return VF_HW_OK;
}

int vf_stl_pgft_get(const uint8_t *buf, size_t len, uint8_t *g, unsigned n,
		    unsigned pg_top)
{
	if (pg_top > 255)
		return VF_HW_RANGE;
	if (!buf || len < n)
		return VF_HW_SHORT;
	if (pgft_check(buf, n, pg_top))
		return VF_HW_RANGE;
	memcpy(g, buf, n);
	return VF_HW_OK;
}

/* ---- NVIDIA ---------------------------------------------------------- */

int vf_nv_ar_info_get(const uint8_t *buf, size_t len,
		      struct vf_nv_ar_info *i)
{
	uint32_t gi;

	if (!buf || len < VF_NV_AR_INFO_SIZE)
		return VF_HW_SHORT;
	i->cap_fields = buf[0];
	i->dir_num_supp = buf[1];
	i->sub_grps_active = buf[2] & 0x0F;
	i->grp_tbl_copy_sup = buf[2] >> 4;
	i->enable = buf[3] & 1;
	i->features = buf[3] >> 1 & 0x1F;
	gi = get32(buf + 4);
	i->group_cap = gi & 0xFFF;
	i->group_top = gi >> 12 & 0xFFF;
	i->group_table_cap = gi >> 24 & 0xF;
	i->string_width_cap = gi >> 28;
	i->enable_by_sl_mask = get16(buf + 8);
	i->sub_grps_sup = buf[10];
	i->ar_version_cap = buf[11] & 0x0F;
	i->rn_version_cap = buf[11] >> 4;
	i->by_trns_disable = buf[15];
	i->ageing_time = get32(buf + 16);
	return VF_HW_OK;
}

int vf_nv_ar_info_put(uint8_t *buf, size_t len,
		      const struct vf_nv_ar_info *i)
{
	if (!buf || len < VF_NV_AR_INFO_SIZE)
		return VF_HW_SHORT;
	if (i->sub_grps_active > 0xF || i->grp_tbl_copy_sup > 0xF ||
	    i->features > 0x1F || i->group_cap > 0xFFF ||
	    i->group_top > 0xFFF || i->group_table_cap > 0xF ||
	    i->string_width_cap > 0xF || i->ar_version_cap > 0xF ||
	    i->rn_version_cap > 0xF)
		return VF_HW_RANGE;
	buf[0] = i->cap_fields;
	buf[1] = i->dir_num_supp;
	buf[2] = (uint8_t)(i->grp_tbl_copy_sup << 4 | i->sub_grps_active);
	buf[3] = (uint8_t)((buf[3] & 0xC0) | i->features << 1 |
			   (i->enable ? 1 : 0));
	put32(buf + 4, (uint32_t)i->string_width_cap << 28 |
			       (uint32_t)i->group_table_cap << 24 |
			       (uint32_t)i->group_top << 12 | i->group_cap);
	put16(buf + 8, i->enable_by_sl_mask);
	buf[10] = i->sub_grps_sup;
	buf[11] = (uint8_t)(i->rn_version_cap << 4 | i->ar_version_cap);
	buf[15] = i->by_trns_disable;
	put32(buf + 16, i->ageing_time);
	return VF_HW_OK;
}

int vf_nv_ar_lft_from_model(const uint8_t *g, const uint8_t *p, unsigned n,
			    uint8_t grouped_state,
			    struct vf_nv_ar_lft_entry *e)
{
	if (n > VF_NV_AR_LFT_PER_BLOCK ||
	    (grouped_state != VF_NV_LID_BOUNDED &&
	     grouped_state != VF_NV_LID_FREE))
		return VF_HW_RANGE;
	for (unsigned k = 0; k < n; k++) {
		bool grouped = g[k] != VF_AR_NO_GROUP;

		e[k].state = grouped ? grouped_state : VF_NV_LID_STATIC;
		e[k].table = 0;
		e[k].port = p[k];
		e[k].group = grouped ? g[k] : 0;
	}
	return VF_HW_OK;
}

int vf_nv_ar_lft_put(uint8_t *buf, size_t len,
		     const struct vf_nv_ar_lft_entry *e, unsigned n)
{
	if (n > VF_NV_AR_LFT_PER_BLOCK)
		return VF_HW_RANGE;
	if (!buf || len < VF_NV_AR_LFT_BLOCK_BYTES)
		return VF_HW_SHORT;
	for (unsigned k = 0; k < n; k++)
		if (e[k].state > 3 || e[k].table > 0xF)
			return VF_HW_RANGE;
	memset(buf, 0, VF_NV_AR_LFT_BLOCK_BYTES);
	for (unsigned k = 0; k < n; k++) {
		uint8_t *q = buf + 4 * k;

		q[0] = (uint8_t)(e[k].state << 6 | e[k].table);
		q[1] = e[k].port;
		put16(q + 2, e[k].group);
	}
	return VF_HW_OK;
}

int vf_nv_ar_lft_get(const uint8_t *buf, size_t len,
		     struct vf_nv_ar_lft_entry e[VF_NV_AR_LFT_PER_BLOCK])
{
	if (!buf || len < VF_NV_AR_LFT_BLOCK_BYTES)
		return VF_HW_SHORT;
	for (unsigned k = 0; k < VF_NV_AR_LFT_PER_BLOCK; k++)
		if (buf[4 * k] & 0x30)
			return VF_HW_RESERVED;
	for (unsigned k = 0; k < VF_NV_AR_LFT_PER_BLOCK; k++) {
		const uint8_t *q = buf + 4 * k;

		e[k].state = q[0] >> 6;
		e[k].table = q[0] & 0x0F;
		e[k].port = q[1];
		e[k].group = get16(q + 2);
	}
	return VF_HW_OK;
}
