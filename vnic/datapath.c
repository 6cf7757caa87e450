// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/mad.h"
#include "vnic/datapath.h"

#define ETH_HLEN 14
#define ETH_P_8021Q 0x8100
#define ETH_P_IPV4 0x0800
#define ETH_P_IPV6 0x86DD
#define IPPROTO_TCP_ 6
#define IPPROTO_UDP_ 17

void vf_dp_init(struct vf_dp *dp, const struct vf_vport *vp)
{
	memset(dp, 0, sizeof(*dp));
	dp->vp = vp;
	dp->replicate = true;
	dp->timeout_ms = VF_DP_TIMEOUT_MS;
	dp->next_id = 1;
}

void vf_dp_lmac(uint16_t fabric_id, uint16_t vesw_id, uint32_t lid,
		uint8_t mac[6])
{
	uint32_t w = 0x2 | (uint32_t)(fabric_id & 0x3ff) << 2 |
		     (uint32_t)(vesw_id & 0xfff) << 12;

	for (int i = 0; i < 3; i++) {
		mac[i] = (uint8_t)(w >> 8 * i);
		mac[3 + i] = (uint8_t)(lid >> 8 * i);
	}
}

/* --- looking into the frame ---------------------------------------- */

/* The EtherType past an 802.1Q tag, and where the L3 header starts. */
static uint16_t ether_type(const uint8_t *f, size_t len, size_t *l3,
			   bool *vlan)
{
	uint16_t type = vf_get16(f + 12);

	*vlan = type == ETH_P_8021Q && len >= VF_DP_VLAN_HLEN;
	if (*vlan) {
		*l3 = VF_DP_VLAN_HLEN;
		return vf_get16(f + 16);
	}
	*l3 = ETH_HLEN;
	return type;
}

/* IP protocol (IPv4) or next header (IPv6), and the L4 offset; -1: none */
static int ip_proto(const uint8_t *f, size_t len, uint16_t type, size_t l3,
		    size_t *l4)
{
	if (type == ETH_P_IPV4 && len >= l3 + 20) {
		*l4 = l3 + (size_t)(f[l3] & 0xf) * 4;
		/* a later fragment has no L4 header */
		if (vf_get16(f + l3 + 6) & 0x1fff)
			*l4 = len;
		return f[l3 + 9];
	}
	if (type == ETH_P_IPV6 && len >= l3 + 40) {
		*l4 = l3 + 40;
		return f[l3 + 6];
	}
	return -1;
}

static uint32_t fnv(uint32_t h, const uint8_t *p, size_t n)
{
	while (n--)
		h = (h ^ *p++) * 16777619u;
	return h;
}

/*
 * The flow hash the kernel would give the frame (addresses, and ports
 * of TCP/UDP), folded to 8 bits as the VNIC does (5.1).
 */
static uint8_t entropy_of(const uint8_t *f, size_t len)
{
	uint32_t h = fnv(2166136261u, f, 12);
	size_t l3, l4 = len;
	bool vlan;
	uint16_t type = ether_type(f, len, &l3, &vlan);
	int proto = ip_proto(f, len, type, l3, &l4);

	if (type == ETH_P_IPV4 && proto >= 0)
		h = fnv(h, f + l3 + 12, 8);
	else if (type == ETH_P_IPV6 && proto >= 0)
		h = fnv(h, f + l3 + 8, 32);
	if ((proto == IPPROTO_TCP_ || proto == IPPROTO_UDP_) && l4 + 4 <= len)
		h = fnv(h, f + l4, 4);
	h ^= h >> 8;
	h ^= h >> 16;
	return (uint8_t)h;
}

uint8_t vf_dp_sc(const struct vf_vport *vp, const uint8_t *frame, size_t len)
{
	bool mc = frame[0] & 1, vlan;
	size_t l3;

	ether_type(frame, len, &l3, &vlan);
	if (vlan) {
		unsigned pcp = frame[14] >> 5;

		return (mc ? vp->pcp_to_sc_mc[pcp] : vp->pcp_to_sc_uc[pcp]) &
		       0x1f;
	}
	return (mc ? vp->non_vlan_sc_mc : vp->non_vlan_sc_uc) & 0x1f;
}

uint8_t vf_dp_rc(const struct vf_vport *vp, const uint8_t *frame, size_t len)
{
	size_t l3, l4;
	bool vlan;
	uint16_t type = ether_type(frame, len, &l3, &vlan);
	int proto = ip_proto(frame, len, type, l3, &l4), shift = 0;

	if (type == ETH_P_IPV4 && proto >= 0)
		shift = proto == IPPROTO_UDP_ ? 8 : proto == IPPROTO_TCP_ ? 12 : 4;
	else if (type == ETH_P_IPV6 && proto >= 0)
		shift = proto == IPPROTO_TCP_ ? 20 : proto == IPPROTO_UDP_ ? 24 : 16;
	return (uint8_t)(vp->vesw.rc >> shift & 7);
}

/* --- DLID selection (5.2, 5.3) --------------------------------------- */

static bool mac_zero(const uint8_t *m)
{
	return !(m[0] | m[1] | m[2] | m[3] | m[4] | m[5]);
}

static bool table_lookup(const struct vf_vport *vp, const uint8_t *mac,
			 uint32_t *dlid)
{
	for (unsigned i = 0; i < VF_VPORT_MAC_TABLE; i++) {
		const struct vf_vport_mac *e = &vp->macs[i];

		if (mac_zero(e->mac) || e->dlid_sd & VF_VPORT_SD_SMAC ||
		    memcmp(e->mac, mac, 6))
			continue;
		*dlid = e->dlid_sd >> 8;
		return true;
	}
	return false;
}

/* The flow table of def_port_mask, computed at the slot we need. */
static uint32_t default_dlid(const struct vf_vport *vp, uint8_t entropy)
{
	unsigned ports[VF_VPORT_DEFAULT_PORTS], k = 0;
	unsigned slot = ((entropy & 0xfu) + (entropy >> 4)) & 31;

	for (unsigned p = 0; p < VF_VPORT_DEFAULT_PORTS; p++)
		if (vp->vesw.def_port_mask & 1u << p)
			ports[k++] = p;
	return k ? vp->vesw.u_ucast_dlid[ports[slot % k]] : 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/* Every unicast DLID of the MAC table but our own, once each. */
static unsigned replicas(const struct vf_vport *vp, uint32_t *dlids,
			 unsigned max)
{
	uint32_t all[VF_VPORT_MAC_TABLE];
	unsigned n = 0, out = 0;

	for (unsigned i = 0; i < VF_VPORT_MAC_TABLE; i++) {
		const struct vf_vport_mac *e = &vp->macs[i];
		uint32_t d = e->dlid_sd >> 8;

		if (mac_zero(e->mac) || e->mac[0] & 1 ||
		    e->dlid_sd & VF_VPORT_SD_SMAC || !d || d == vp->encap_slid)
			continue;
		all[n++] = d;
	}
	qsort(all, n, sizeof(*all), cmp_u32);
	for (unsigned i = 0; i < n && out < max; i++)
		if (!i || all[i] != all[i - 1])
			dlids[out++] = all[i];
	return out;
}

unsigned vf_dp_dlids(const struct vf_dp *dp, const uint8_t *frame,
		     size_t len, uint32_t *dlids, unsigned max,
		     uint8_t *entropy)
{
	const struct vf_vport *vp = dp->vp;
	const uint8_t *da = frame;
	uint32_t d;

	*entropy = len >= ETH_HLEN ? entropy_of(frame, len) : 0;
	if (len < ETH_HLEN || !max)
		return 0;
	if (table_lookup(vp, da, &d))
		;
	else if (da[0] & 1) {
		if (dp->replicate || !vp->vesw.u_mcast_dlid)
			return replicas(vp, dlids, max);
		d = vp->vesw.u_mcast_dlid;
	} else if (da[0] & 2) {
		d = (uint32_t)da[5] << 16 | (uint32_t)da[4] << 8 | da[3];
	} else {
		d = default_dlid(vp, *entropy);
	}
	dlids[0] = d;
	return d ? 1 : 0;
}

/* --- transmit -------------------------------------------------------- */

static unsigned size_bucket(size_t len)
{
	static const size_t top[] = { 64, 127, 255, 511, 1023, 1518 };
	unsigned b = 0;

	/* frames are padded to 60 and the wire adds a 4-byte FCS */
	len = (len < VF_16B_MIN_FRAME ? VF_16B_MIN_FRAME : len) + 4;
	while (b < 6 && len > top[b])
		b++;
	return b;
}

static void mad_header(uint8_t *mad, uint32_t id, unsigned idx)
{
	memset(mad, 0, VF_DP_MAD_USED);
	mad[0] = VF_DP_BASE_VERSION;
	mad[1] = VF_DP_CLASS;
	mad[2] = VF_DP_CLASS_VERSION;
	mad[3] = VF_DP_METHOD_SEND;
	/* TID: only the low 32 bits are ours under umad2sim */
	vf_put32(mad + 12, id << 8 | idx);
	vf_put16(mad + 16, VF_DP_ATTR);
	mad[37] = VF_DP_OUI >> 16;
	mad[38] = VF_DP_OUI >> 8 & 0xff;
	mad[39] = VF_DP_OUI & 0xff;
}

/* Cut 16B packet pkt[0..n) into data MADs for dlid. */
static void segment(struct vf_dp *dp, uint32_t dlid, const uint8_t *pkt,
		    size_t n, vf_dp_emit_fn *emit, void *arg)
{
	unsigned count = (unsigned)((n + VF_DP_SEG_DATA - 1) / VF_DP_SEG_DATA);
	uint32_t id = dp->next_id++;
	uint8_t mad[VF_DP_MAD_USED];

	for (unsigned i = 0; i < count; i++) {
		size_t off = (size_t)i * VF_DP_SEG_DATA;
		size_t seg = n - off < VF_DP_SEG_DATA ? n - off : VF_DP_SEG_DATA;
		uint8_t *s = mad + VF_DP_MAD_HDR;

		mad_header(mad, id, i);
		vf_put32(s, id);
		s[4] = (uint8_t)i;
		s[5] = (uint8_t)count;
		vf_put16(s + 6, (uint16_t)n);
		memcpy(s + VF_DP_SEG_HDR, pkt + off, seg);
		emit(arg, dlid, mad, VF_DP_MAD_HDR + VF_DP_SEG_HDR + seg);
		dp->c.tx_mads++;
	}
}

unsigned vf_dp_tx(struct vf_dp *dp, const uint8_t *frame, size_t len,
		  vf_dp_emit_fn *emit, void *arg)
{
	const struct vf_vport *vp = dp->vp;
	struct vf_dp_counters *c = &dp->c;
	uint32_t dlids[VF_VPORT_MAC_TABLE];
	uint8_t pkt[VF_16B_MAX_LEN];
	struct vf_16b h;
	unsigned n, sent = 0;
	uint8_t entropy;
	size_t l3;
	bool vlan;

	if (vp->oper_state != VF_VPORT_FORWARDING) {
		c->tx_drop_state++;
		return 0;
	}
	if (len < ETH_HLEN) {
		c->tx_logic++;
		return 0;
	}
	if (len > (size_t)vp->vesw.eth_mtu + VF_DP_VLAN_HLEN) {
		c->tx_oversize++;
		return 0;
	}
	n = vf_dp_dlids(dp, frame, len, dlids, VF_VPORT_MAC_TABLE, &entropy);
	if (!n) {
		c->tx_dlid_zero++;
		return 0;
	}
	h = (struct vf_16b){
		.slid = vp->encap_slid, .sc = vf_dp_sc(vp, frame, len),
		.rc = vf_dp_rc(vp, frame, len), .pkey = vp->vesw.pkey,
		.entropy = entropy, .vesw_id = vp->vesw.vesw_id,
	};
	for (unsigned i = 0; i < n; i++) {
		size_t plen;

		h.dlid = dlids[i];
		plen = vf_16b_encap(&h, frame, len, pkt, sizeof(pkt));
		if (!plen) {
			c->tx_logic++;	/* a field does not fit its bits */
			continue;
		}
		segment(dp, h.dlid, pkt, plen, emit, arg);
		sent++;
	}
	if (!sent)
		return 0;
	c->tx_copies += sent;
	c->tx_packets++;
	c->tx_bytes += len;
	c->tx_size[size_bucket(len)]++;
	if (frame[0] & 1)
		c->tx_mcastbcast++;
	else
		c->tx_unicast++;
	ether_type(frame, len, &l3, &vlan);
	if (vlan)
		c->tx_vlan++;
	else
		c->tx_untagged++;
	return sent;
}

/* --- receive --------------------------------------------------------- */

static void part_free(struct vf_dp_partial *p)
{
	p->used = false;
}

unsigned vf_dp_partials(const struct vf_dp *dp)
{
	unsigned n = 0;

	for (unsigned i = 0; i < VF_DP_PARTIALS; i++)
		n += dp->part[i].used;
	return n;
}

void vf_dp_expire(struct vf_dp *dp, uint64_t now_ms)
{
	for (unsigned i = 0; i < VF_DP_PARTIALS; i++) {
		struct vf_dp_partial *p = &dp->part[i];

		if (p->used && now_ms - p->started_ms >= dp->timeout_ms) {
			part_free(p);
			dp->c.rx_reasm_timeout++;
		}
	}
}

/* The slot of (slid, id), or a new one (the oldest evicted if full). */
static struct vf_dp_partial *part_get(struct vf_dp *dp, uint32_t slid,
				      uint32_t id, bool *fresh)
{
	struct vf_dp_partial *free_p = NULL, *oldest = NULL;

	for (unsigned i = 0; i < VF_DP_PARTIALS; i++) {
		struct vf_dp_partial *p = &dp->part[i];

		if (!p->used) {
			free_p = free_p ? free_p : p;
			continue;
		}
		if (p->slid == slid && p->id == id) {
			*fresh = false;
			return p;
		}
		if (!oldest || p->started_ms < oldest->started_ms)
			oldest = p;
	}
	if (!free_p) {
		dp->c.rx_reasm_evicted++;
		free_p = oldest;
	}
	*fresh = true;
	return free_p;
}

/* A whole 16B packet: decapsulate, check against the vport, deliver. */
static size_t deliver(struct vf_dp *dp, const uint8_t *pkt, size_t n,
		      uint8_t *frame, size_t cap)
{
	const struct vf_vport *vp = dp->vp;
	struct vf_dp_counters *c = &dp->c;
	enum vf_16b_error err;
	const uint8_t *f;
	struct vf_16b h;
	size_t len, l3;
	bool vlan;

	err = vf_16b_decap(pkt, n, &h, &f, &len);
	if (err) {
		if (err == VF_16B_BAD_ICRC)
			c->rx_bad_icrc++;
		else
			c->rx_bad_16b++;
		return 0;
	}
	/* the order of the hfi1 receive path: vESW, state, then sizes */
	if (h.vesw_id != vp->vesw.vesw_id) {
		c->rx_bad_veswid++;
		return 0;
	}
	if (vp->oper_state != VF_VPORT_FORWARDING) {
		c->rx_drop_state++;
		return 0;
	}
	/*
	 * The HFI's P_Key check (IBA 10.9.3), which the simulated fabric
	 * does not make: the same partition, and not two limited members.
	 */
	if ((h.pkey & 0x7fff) != (vp->vesw.pkey & 0x7fff) ||
	    !((h.pkey | vp->vesw.pkey) & 0x8000)) {
		c->rx_bad_pkey++;
		return 0;
	}
	if (len > (size_t)vp->vesw.eth_mtu + VF_DP_VLAN_HLEN) {
		c->rx_oversize++;
		return 0;
	}
	if (len < VF_16B_MIN_FRAME) {
		c->rx_runt++;
		return 0;
	}
	if (len > cap) {
		c->rx_logic++;
		return 0;
	}
	memcpy(frame, f, len);
	c->rx_packets++;
	c->rx_bytes += len;
	c->rx_size[size_bucket(len)]++;
	if (f[0] & 1)
		c->rx_mcastbcast++;
	else
		c->rx_unicast++;
	ether_type(f, len, &l3, &vlan);
	if (vlan)
		c->rx_vlan++;
	else
		c->rx_untagged++;
	return len;
}

static bool mad_ok(const uint8_t *mad, size_t len)
{
	return len >= VF_DP_MAD_HDR + VF_DP_SEG_HDR &&
	       mad[0] == VF_DP_BASE_VERSION && mad[1] == VF_DP_CLASS &&
	       mad[2] == VF_DP_CLASS_VERSION && mad[3] == VF_DP_METHOD_SEND &&
	       (uint32_t)(mad[37] << 16 | mad[38] << 8 | mad[39]) == VF_DP_OUI;
}

size_t vf_dp_rx(struct vf_dp *dp, uint32_t slid, const uint8_t *mad,
		size_t len, uint64_t now_ms, uint8_t *frame, size_t cap)
{
	const uint8_t *s = mad + VF_DP_MAD_HDR, *data = s + VF_DP_SEG_HDR;
	struct vf_dp_counters *c = &dp->c;
	struct vf_dp_partial *p;
	unsigned idx, count, total;
	size_t seg, got;
	uint32_t id;
	bool fresh;

	c->rx_mads++;
	vf_dp_expire(dp, now_ms);
	if (!mad_ok(mad, len)) {
		c->rx_bad_mad++;
		return 0;
	}
	id = vf_get32(s);
	idx = s[4];
	count = s[5];
	total = vf_get16(s + 6);
	if (!count || idx >= count || !total || total > VF_16B_MAX_LEN ||
	    (total + VF_DP_SEG_DATA - 1) / VF_DP_SEG_DATA != count) {
		c->rx_bad_mad++;
		return 0;
	}
	seg = idx + 1 < count ? VF_DP_SEG_DATA :
				total - (size_t)idx * VF_DP_SEG_DATA;
	if (VF_DP_MAD_HDR + VF_DP_SEG_HDR + seg > len) {
		c->rx_bad_mad++;
		return 0;
	}
	if (count == 1)
		return deliver(dp, data, seg, frame, cap);
	p = part_get(dp, slid, id, &fresh);
	if (fresh) {
		p->used = true;
		p->slid = slid;
		p->id = id;
		p->total = (uint16_t)total;
		p->count = (uint8_t)count;
		p->got = 0;
		p->started_ms = now_ms;
		memset(p->have, 0, sizeof(p->have));
	} else if (p->total != total || p->count != count) {
		/* the same packet cannot change its size: drop it */
		part_free(p);
		c->rx_bad_mad++;
		return 0;
	}
	if (p->have[idx / 8] & 1u << idx % 8) {
		c->rx_dup_seg++;
		return 0;
	}
	p->have[idx / 8] |= (uint8_t)(1u << idx % 8);
	memcpy(p->data + (size_t)idx * VF_DP_SEG_DATA, data, seg);
	if (++p->got < p->count)
		return 0;
	got = deliver(dp, p->data, p->total, frame, cap);
	part_free(p);
	return got;
}

/* --- counters -------------------------------------------------------- */

uint64_t vf_dp_tx_errors(const struct vf_dp_counters *c)
{
	return c->tx_dlid_zero + c->tx_drop_state + c->tx_logic +
	       c->tx_oversize;
}

uint64_t vf_dp_rx_errors(const struct vf_dp_counters *c)
{
	return c->rx_bad_veswid + c->rx_runt + c->rx_oversize +
	       c->rx_drop_state + c->rx_logic + c->rx_bad_mad +
	       c->rx_bad_pkey + c->rx_bad_16b + c->rx_bad_icrc +
	       c->rx_reasm_timeout + c->rx_reasm_evicted;
}

#define CTR(f) { #f, offsetof(struct vf_dp_counters, f) }

void vf_dp_print_counters(const struct vf_dp_counters *c, const char *prefix,
			  FILE *out)
{
	static const struct { const char *name; size_t off; } ctr[] = {
		CTR(tx_packets), CTR(tx_bytes), CTR(tx_unicast),
		CTR(tx_mcastbcast), CTR(tx_untagged), CTR(tx_vlan),
		CTR(rx_packets), CTR(rx_bytes), CTR(rx_unicast),
		CTR(rx_mcastbcast), CTR(rx_untagged), CTR(rx_vlan),
		CTR(tx_dlid_zero), CTR(tx_drop_state), CTR(tx_logic),
		CTR(rx_bad_veswid), CTR(rx_runt), CTR(rx_oversize),
		CTR(rx_drop_state), CTR(rx_logic), CTR(tx_mads),
		CTR(tx_copies), CTR(tx_oversize), CTR(rx_mads),
		CTR(rx_bad_mad), CTR(rx_bad_pkey), CTR(rx_bad_16b),
		CTR(rx_bad_icrc), CTR(rx_dup_seg), CTR(rx_reasm_timeout),
		CTR(rx_reasm_evicted),
	};
	static const char *const bucket[VF_DP_SIZE_BUCKETS] = {
		"64", "65_127", "128_255", "256_511", "512_1023",
		"1024_1518", "1519_max",
	};

	fprintf(out, "%stx_errors %llu\n%srx_errors %llu\n", prefix,
		(unsigned long long)vf_dp_tx_errors(c), prefix,
		(unsigned long long)vf_dp_rx_errors(c));
	for (size_t i = 0; i < sizeof(ctr) / sizeof(ctr[0]); i++)
		fprintf(out, "%s%s %llu\n", prefix, ctr[i].name,
			(unsigned long long)*(const uint64_t *)
				((const char *)c + ctr[i].off));
	for (unsigned b = 0; b < VF_DP_SIZE_BUCKETS; b++)
		fprintf(out, "%stx_%s %llu\n%srx_%s %llu\n", prefix, bucket[b],
			(unsigned long long)c->tx_size[b], prefix, bucket[b],
			(unsigned long long)c->rx_size[b]);
}
