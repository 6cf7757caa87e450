// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The VNIC data path (docs/vnic-datapath.md): DLID selection (reference/
 * vnic-ema.md 5.2-5.3 and head-end replication), SC and RC, the data MAD
 * format written here independently of the code, segmentation and
 * reassembly round trips for every frame size 60-1514 (random, seeded),
 * out-of-order, duplicate and lost segments, the bound on packets in
 * reassembly, the receive checks and the counters.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vnic/datapath.h"
#include "vnic/dp-ema.h"
#include "vnic/ema-agent.h"
#include "taptest.h"

#define MAX_MADS 4096

/* What the data path emitted. */
static struct {
	unsigned n;
	uint32_t dlid[MAX_MADS];
	size_t len[MAX_MADS];
	uint8_t mad[MAX_MADS][VF_DP_MAD_USED];
} out;

static void capture(void *arg, uint32_t dlid, const uint8_t *mad, size_t len)
{
	if (out.n == MAX_MADS || len > VF_DP_MAD_USED)
		abort();
	out.dlid[out.n] = dlid;
	out.len[out.n] = len;
	memcpy(out.mad[out.n++], mad, len);
}

static struct vf_vport vpa, vpb;
static struct vf_dp dpa, dpb;
static uint8_t rx[VF_16B_MAX_LEN];

static uint32_t rng = 12345;

static uint8_t rnd(void)
{
	rng = rng * 1103515245u + 12345u;
	return (uint8_t)(rng >> 16);
}

static void vport(struct vf_vport *vp, uint32_t lid, uint16_t vesw,
		  uint16_t pkey, uint16_t mtu)
{
	memset(vp, 0, sizeof(*vp));
	vp->vesw.vesw_id = vesw;
	vp->vesw.pkey = pkey;
	vp->vesw.eth_mtu = mtu;
	vp->encap_slid = lid;
	vf_dp_lmac(0, vesw, lid, vp->base_mac);
	vp->exists = true;
	vp->config_state = VF_VPORT_FORWARDING;
	vp->admin_up = true;
	vf_ema_vport_update_state(vp);
}

/* A: LID 5, B: LID 9, both vESW 1, P_Key 0x8001, MTU 1500. */
static void reset(void)
{
	vport(&vpa, 5, 1, 0x8001, 1500);
	vport(&vpb, 9, 1, 0x8001, 1500);
	vf_dp_init(&dpa, &vpa);
	vf_dp_init(&dpb, &vpb);
	out.n = 0;
}

static void add_mac(struct vf_vport *vp, unsigned i, const uint8_t *mac,
		    uint32_t dlid, uint8_t sd)
{
	memcpy(vp->macs[i].mac, mac, 6);
	memset(vp->macs[i].mask, 0xff, 6);
	vp->macs[i].dlid_sd = dlid << 8 | sd;
}

/* An Ethernet frame to dst from src, type, random payload: len bytes. */
static void frame(uint8_t *f, size_t len, const uint8_t *dst,
		  const uint8_t *src, uint16_t type)
{
	memcpy(f, dst, 6);
	memcpy(f + 6, src, 6);
	f[12] = (uint8_t)(type >> 8);
	f[13] = (uint8_t)type;
	for (size_t i = 14; i < len; i++)
		f[i] = rnd();
}

/* Feed out.mad[i] for i in order[0..n) to dp from slid; frames out. */
static unsigned feed(struct vf_dp *dp, uint32_t slid, const unsigned *order,
		     unsigned n, uint64_t now, size_t *len)
{
	unsigned got = 0;

	for (unsigned k = 0; k < n; k++) {
		unsigned i = order ? order[k] : k;
		size_t l = vf_dp_rx(dp, slid, out.mad[i], out.len[i], now, rx,
				    sizeof(rx));

		if (l) {
			got++;
			*len = l;
		}
	}
	return got;
}

static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t gmac[6] = { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 };

/* (The vport state machine is the agent's: tests/unit/t-ema.c.) */
static void lmac(void)
{
	uint8_t mac[6];

	vf_dp_lmac(0x301, 2, 5, mac);
	OK(!memcmp(mac, "\x06\x2c\x00\x05\x00\x00", 6),
	   "section 8 MAC: fabric 0x301, vESW 2, LID 5 -> 06:2c:00:05:00:00");
}

static unsigned dlids_of(const uint8_t *dst, uint32_t *d, unsigned max)
{
	uint8_t f[64], e;

	frame(f, 64, dst, vpa.base_mac, 0x0800);
	return vf_dp_dlids(&dpa, f, 64, d, max, &e);
}

static void dlid_selection(void)
{
	uint8_t lmac[6], mmac[6] = { 0x01, 0x00, 0x5e, 0, 0, 1 }, f[128], e;
	uint32_t d[8];
	unsigned n, seen100 = 0, seen300 = 0;

	reset();
	add_mac(&vpa, 0, gmac, 0x1234, 0);
	n = dlids_of(gmac, d, 8);
	OK(n == 1 && d[0] == 0x1234, "MAC table hit: the entry's DLID");
	vpa.macs[0].dlid_sd |= VF_VPORT_SD_SMAC;
	OK(dlids_of(gmac, d, 8) == 0,
	   "an SMAC entry is skipped: unknown global, no default port");
	vf_dp_lmac(0, 1, 11, lmac);
	add_mac(&vpa, 3, lmac, 11, 0);
	add_mac(&vpa, 4, lmac, 7, 0);		/* a second MAC on LID 7 */
	vpa.macs[4].mac[5] = 1;
	add_mac(&vpa, 7, lmac, 7, 0);
	vpa.macs[7].mac[5] = 2;
	add_mac(&vpa, 8, vpa.base_mac, 5, 0);	/* ourselves */
	add_mac(&vpa, 9, mmac, 0xC001, 0);	/* a multicast mapping */
	n = dlids_of(bcast, d, 8);
	OK(n == 2 && d[0] == 7 && d[1] == 11,
	   "broadcast: replicated to every unicast DLID of the table once, "
	   "not to ourselves, not to multicast entries");
	dpa.replicate = false;
	vpa.vesw.u_mcast_dlid = 0xC002;
	n = dlids_of(bcast, d, 8);
	OK(n == 1 && d[0] == 0xC002, "replication off: u_mcast_dlid");
	vpa.vesw.u_mcast_dlid = 0;
	n = dlids_of(bcast, d, 8);
	OK(n == 2, "replication off but no u_mcast_dlid: replicated");
	n = dlids_of(mmac, d, 8);
	OK(n == 1 && d[0] == 0xC001, "a multicast MAC in the table: its DLID");
	OK(dlids_of(bcast, d, 1) == 1, "replicas bounded by the caller");
	dpa.replicate = true;
	vf_dp_lmac(0, 1, 0x30201, lmac);
	n = dlids_of(lmac, d, 8);
	OK(n == 1 && d[0] == 0x30201,
	   "locally administered: the 24-bit LID from bytes 3..5");
	lmac[3] = lmac[4] = lmac[5] = 0;
	OK(dlids_of(lmac, d, 8) == 0, "locally administered LID 0: none");
	vpa.macs[0].dlid_sd = 0;
	memset(vpa.macs[0].mac, 0, 6);
	OK(dlids_of(gmac, d, 8) == 0, "unknown global, no default port: none");
	vpa.vesw.def_port_mask = 1u << 1 | 1u << 3;
	vpa.vesw.u_ucast_dlid[1] = 100;
	vpa.vesw.u_ucast_dlid[3] = 300;
	vpa.vesw.u_ucast_dlid[0] = 999;		/* not in the mask */
	for (unsigned i = 0; i < 64; i++) {
		frame(f, 128, gmac, vpa.base_mac, 0x0800);
		f[14] = 0x45;
		f[23] = 17;			/* UDP: ports in the hash */
		f[26] = (uint8_t)i;		/* source address */
		n = vf_dp_dlids(&dpa, f, 128, d, 8, &e);
		seen100 += n == 1 && d[0] == 100;
		seen300 += n == 1 && d[0] == 300;
	}
	OK(seen100 + seen300 == 64 && seen100 && seen300,
	   "unknown global with default ports 1 and 3: every flow on one of "
	   "them, both used");
	n = vf_dp_dlids(&dpa, f, 128, d, 1, &e);
	OK(n == 1 && vf_dp_dlids(&dpa, f, 128, d + 1, 1, &e) == 1 &&
	   d[0] == d[1], "... the same flow, the same DLID");
}

static void sc_rc(void)
{
	uint8_t f[128];

	reset();
	vpa.pcp_to_sc_uc[5] = 7;
	vpa.pcp_to_sc_mc[5] = 9;
	vpa.non_vlan_sc_uc = 3;
	vpa.non_vlan_sc_mc = 0x24;		/* over 5 bits: masked */
	vpa.vesw.rc = 1 << 0 | 2 << 4 | 3 << 8 | 4 << 12 | 5 << 16 |
		      6 << 20 | 7 << 24;
	frame(f, 128, gmac, vpa.base_mac, 0x8100);
	f[14] = 5 << 5;
	f[16] = 0x08;
	f[17] = 0x00;
	f[18] = 0x45;
	f[27] = 6;
	OK(vf_dp_sc(&vpa, f, 128) == 7, "VLAN PCP 5, unicast: pcp_to_sc_uc");
	OK(vf_dp_rc(&vpa, f, 128) == 4, "VLAN-tagged IPv4 TCP: RC field 12");
	f[0] = 1;
	OK(vf_dp_sc(&vpa, f, 128) == 9, "VLAN PCP 5, multicast: pcp_to_sc_mc");
	frame(f, 128, gmac, vpa.base_mac, 0x0800);
	f[14] = 0x45;
	f[23] = 17;
	OK(vf_dp_sc(&vpa, f, 128) == 3, "untagged unicast: non_vlan_sc_uc");
	OK(vf_dp_rc(&vpa, f, 128) == 3, "IPv4 UDP: RC field 8");
	f[23] = 1;
	OK(vf_dp_rc(&vpa, f, 128) == 2, "IPv4 ICMP: RC field 4");
	f[0] = 1;
	OK(vf_dp_sc(&vpa, f, 128) == 4, "untagged multicast: non_vlan_sc_mc, "
	   "masked to 5 bits");
	frame(f, 128, gmac, vpa.base_mac, 0x86DD);
	f[20] = 6;
	OK(vf_dp_rc(&vpa, f, 128) == 6, "IPv6 TCP: RC field 20");
	f[20] = 17;
	OK(vf_dp_rc(&vpa, f, 128) == 7, "IPv6 UDP: RC field 24");
	f[20] = 58;
	OK(vf_dp_rc(&vpa, f, 128) == 5, "IPv6 other: RC field 16");
	frame(f, 60, gmac, vpa.base_mac, 0x0806);
	OK(vf_dp_rc(&vpa, f, 60) == 1, "ARP: RC field 0");
}

/* The data MAD format, read here without the code's help. */
static int mad_format_ok(unsigned i, uint32_t id, unsigned idx,
			 unsigned count, unsigned total)
{
	const uint8_t *m = out.mad[i], *s = m + 40;

	return m[0] == 1 && m[1] == 0x3C && m[2] == 1 && m[3] == 0x03 &&
	       m[37] == 0x00 && m[38] == 0x06 && m[39] == 0x6A &&
	       (uint32_t)(s[0] << 24 | s[1] << 16 | s[2] << 8 | s[3]) == id &&
	       s[4] == idx && s[5] == count &&
	       (unsigned)(s[6] << 8 | s[7]) == total &&
	       out.len[i] == 48 + (idx + 1 < count ? 176 : total - idx * 176);
}

static void round_trips(void)
{
	static uint8_t f[2048];
	unsigned bad = 0, badfmt = 0, sizes = 0;
	uint8_t lmac[6];

	reset();
	vf_dp_lmac(0, 1, 9, lmac);
	for (size_t len = 60; len <= 1514; len++) {
		size_t got = 0, total = vf_16b_size(len);
		unsigned segs = (unsigned)((total + 175) / 176);

		out.n = 0;
		frame(f, len, lmac, vpa.base_mac, 0x0800);
		if (vf_dp_tx(&dpa, f, len, capture, NULL) != 1 || out.n != segs)
			bad++;
		for (unsigned i = 0; i < out.n; i++)
			if (out.dlid[i] != 9 ||
			    !mad_format_ok(i, dpa.next_id - 1, i, segs,
					   (unsigned)total))
				badfmt++;
		if (feed(&dpb, 5, NULL, out.n, 0, &got) != 1 || got != len ||
		    memcmp(rx, f, len))
			bad++;
		sizes++;
	}
	EQ_U(sizes, 1455, "frames of 60..1514 bytes sent");
	EQ_U(bad, 0, "every one arrives whole, once, after its last segment");
	EQ_U(badfmt, 0, "every data MAD: class 0x3C v1, Send, OUI 00-06-6A, "
	     "packet id, index, count, length, 176 bytes a segment");
	EQ_U(dpb.c.rx_packets, 1455, "rx_packets");
	EQ_U(dpa.c.tx_packets, 1455, "tx_packets");
	EQ_U(dpa.c.tx_bytes, dpb.c.rx_bytes, "tx_bytes = rx_bytes");
	EQ_U(dpa.c.tx_mads, dpb.c.rx_mads, "tx_mads = rx_mads");
	EQ_U(vf_dp_partials(&dpb), 0, "nothing left in reassembly");
	EQ_U(dpa.c.tx_size[5], 1514 - 1020 + 1, "1024-1518 bucket (with FCS)");
	EQ_U(vf_dp_rx_errors(&dpb.c) + vf_dp_tx_errors(&dpa.c), 0,
	     "no errors");

	out.n = 0;
	frame(f, 42, lmac, vpa.base_mac, 0x0806);
	vf_dp_tx(&dpa, f, 42, capture, NULL);
	{
		size_t got = 0;

		feed(&dpb, 5, NULL, out.n, 0, &got);
		OK(got == 60 && !memcmp(rx, f, 42) &&
		   !memcmp(rx + 42, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0", 18),
		   "a 42-byte ARP frame arrives padded to 60 with zeros");
	}
}

static void order_dups_loss(void)
{
	static uint8_t f[1514];
	unsigned order[16] = { 0 }, n;
	uint8_t lmac[6];
	size_t got = 0;

	reset();
	vf_dp_lmac(0, 1, 9, lmac);
	frame(f, 1514, lmac, vpa.base_mac, 0x0800);
	vf_dp_tx(&dpa, f, 1514, capture, NULL);
	n = out.n;
	EQ_U(n, 9, "1514 bytes: 1544 on the wire, 9 segments");
	for (unsigned i = 0; i < n; i++)
		order[i] = n - 1 - i;
	OK(feed(&dpb, 5, order, n, 0, &got) == 1 && got == 1514 &&
	   !memcmp(rx, f, 1514), "segments in reverse order: reassembled");
	for (unsigned i = 0; i < n; i++)
		order[i] = i;
	for (unsigned i = n - 1; i > 0; i--) {
		unsigned j = rnd() % (i + 1), t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	OK(feed(&dpb, 5, order, n, 0, &got) == 1 && !memcmp(rx, f, 1514),
	   "segments shuffled: reassembled");
	order[0] = 0;
	order[1] = 0;
	order[2] = 3;
	order[3] = 3;
	OK(feed(&dpb, 5, order, 4, 0, &got) == 0 && dpb.c.rx_dup_seg == 2,
	   "duplicate segments counted and ignored");
	for (unsigned i = 0; i < n; i++)
		order[i] = i;
	OK(feed(&dpb, 5, order, n, 10, &got) == 1 && dpb.c.rx_dup_seg == 4,
	   "... and the packet still completes once");

	/* a lost segment */
	reset();
	vf_dp_tx(&dpa, f, 1514, capture, NULL);
	order[0] = 0, order[1] = 1, order[2] = 2;
	for (unsigned i = 4; i < n; i++)
		order[i - 1] = i;
	OK(feed(&dpb, 5, order, n - 1, 1000, &got) == 0 &&
	   vf_dp_partials(&dpb) == 1, "segment 3 lost: nothing delivered");
	vf_dp_expire(&dpb, 1000 + VF_DP_TIMEOUT_MS - 1);
	OK(vf_dp_partials(&dpb) == 1 && dpb.c.rx_reasm_timeout == 0,
	   "... kept until the timeout");
	vf_dp_expire(&dpb, 1000 + VF_DP_TIMEOUT_MS);
	OK(vf_dp_partials(&dpb) == 0 && dpb.c.rx_reasm_timeout == 1,
	   "... then dropped and counted (rx_reasm_timeout)");
	order[0] = 3;
	OK(feed(&dpb, 5, order, 1, 1000 + VF_DP_TIMEOUT_MS, &got) == 0,
	   "the late segment alone delivers nothing");
	OK(vf_dp_rx_errors(&dpb.c) >= 1, "rx_errors counts the timeout");

	/* the same packet id from two sources */
	reset();
	vf_dp_tx(&dpa, f, 1514, capture, NULL);
	for (unsigned i = 0; i < n; i++)
		order[i] = i;
	feed(&dpb, 5, order, n - 1, 0, &got);
	OK(feed(&dpb, 6, order, n, 0, &got) == 1 &&
	   vf_dp_partials(&dpb) == 1,
	   "the same packet id from another LID is another packet");
	order[0] = n - 1;
	OK(feed(&dpb, 5, order, 1, 0, &got) == 1 && vf_dp_partials(&dpb) == 0,
	   "... and the first one completes on its own");
}

static void bounded(void)
{
	static uint8_t f[400];
	unsigned first_mads = 0, most = 0;
	uint8_t lmac[6];
	size_t got = 0;

	reset();
	vf_dp_lmac(0, 1, 9, lmac);
	frame(f, 400, lmac, vpa.base_mac, 0x0800);
	/* 20 packets of 3 segments each; the last segment held back */
	for (unsigned p = 0; p < 20; p++) {
		unsigned base = out.n;

		vf_dp_tx(&dpa, f, 400, capture, NULL);
		if (!p)
			first_mads = out.n;
		for (unsigned i = base; i + 1 < out.n; i++)
			vf_dp_rx(&dpb, 5, out.mad[i], out.len[i], p, rx,
				 sizeof(rx));
		if (vf_dp_partials(&dpb) > most)
			most = vf_dp_partials(&dpb);
	}
	EQ_U(first_mads, 3, "400 bytes: 3 segments");
	EQ_U(most, VF_DP_PARTIALS, "at most 16 packets in reassembly");
	EQ_U(dpb.c.rx_reasm_evicted, 4, "4 oldest evicted and counted");
	{
		unsigned last[1] = { 2 };

		OK(feed(&dpb, 5, last, 1, 20, &got) == 0,
		   "the evicted first packet cannot complete");
		last[0] = 59;
		OK(feed(&dpb, 5, last, 1, 20, &got) == 1 && got == 400,
		   "the newest one can");
	}
}

/* Wrap 16B packet pkt[0..n) (n <= 176) in one data MAD, by hand. */
static size_t wrap(uint8_t *mad, const uint8_t *pkt, size_t n, uint32_t id)
{
	memset(mad, 0, VF_DP_MAD_USED);
	mad[0] = 1;
	mad[1] = 0x3C;
	mad[2] = 1;
	mad[3] = 0x03;
	mad[38] = 0x06;
	mad[39] = 0x6A;
	mad[43] = (uint8_t)id;
	mad[45] = 1;
	mad[46] = (uint8_t)(n >> 8);
	mad[47] = (uint8_t)n;
	memcpy(mad + 48, pkt, n);
	return 48 + n;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

static void receive_checks(void)
{
	static uint8_t f[2000];
	uint8_t lmac[6], pkt[256], mad[VF_DP_MAD_USED];
	struct vf_16b h = { .slid = 5, .dlid = 9, .pkey = 0x8001,
			    .vesw_id = 1 };
	size_t got = 0, n, ml;

	reset();
	vf_dp_lmac(0, 1, 9, lmac);
	frame(f, 200, lmac, vpa.base_mac, 0x0800);

	vpa.vesw.vesw_id = 2;
	vf_dp_tx(&dpa, f, 200, capture, NULL);
	OK(feed(&dpb, 5, NULL, out.n, 0, &got) == 0 &&
	   dpb.c.rx_bad_veswid == 1, "another vESW id: rx_bad_veswid");
	vpa.vesw.vesw_id = 1;
	vpa.vesw.pkey = 0x8002;
	out.n = 0;
	vf_dp_tx(&dpa, f, 200, capture, NULL);
	OK(feed(&dpb, 5, NULL, out.n, 0, &got) == 0 && dpb.c.rx_bad_pkey == 1,
	   "another P_Key: rx_bad_pkey");
	vpa.vesw.pkey = 0x0001;
	out.n = 0;
	vf_dp_tx(&dpa, f, 200, capture, NULL);
	OK(feed(&dpb, 5, NULL, out.n, 0, &got) == 1,
	   "a limited member's P_Key of the same partition: delivered");
	vpb.vesw.pkey = 0x0001;
	out.n = 0;
	vf_dp_tx(&dpa, f, 200, capture, NULL);
	OK(feed(&dpb, 5, NULL, out.n, 0, &got) == 0 && dpb.c.rx_bad_pkey == 2,
	   "limited to limited in one partition: rx_bad_pkey (IBA 10.9.3)");
	OK(dpb.c.rx_bad_pkey && vf_dp_rx_errors(&dpb.c) >= 2,
	   "... an rx error the EMA error counters report (rx_logic)");
	vpb.vesw.pkey = 0x8001;
	vpa.vesw.pkey = 0x8001;

	vpb.admin_up = false;
	vf_ema_vport_update_state(&vpb);
	out.n = 0;
	vf_dp_tx(&dpa, f, 200, capture, NULL);
	OK(feed(&dpb, 5, NULL, out.n, 0, &got) == 0 &&
	   dpb.c.rx_drop_state == 1, "receiver down: rx_drop_state");
	vpb.admin_up = true;
	vf_ema_vport_update_state(&vpb);
	vpa.config_state = VF_VPORT_INIT;
	vf_ema_vport_update_state(&vpa);
	out.n = 0;
	OK(vf_dp_tx(&dpa, f, 200, capture, NULL) == 0 && out.n == 0 &&
	   dpa.c.tx_drop_state == 1, "sender not forwarding: tx_drop_state, "
	   "nothing sent");
	vpa.config_state = VF_VPORT_FORWARDING;
	vf_ema_vport_update_state(&vpa);

	OK(vf_dp_tx(&dpa, f, 1519, capture, NULL) == 0 &&
	   dpa.c.tx_oversize == 1, "a frame over MTU + 18 from the host: "
	   "tx_oversize");
	vpa.vesw.eth_mtu = 9000;
	out.n = 0;
	frame(f, 2000, lmac, vpa.base_mac, 0x0800);
	vf_dp_tx(&dpa, f, 2000, capture, NULL);
	OK(feed(&dpb, 5, NULL, out.n, 0, &got) == 0 && dpb.c.rx_oversize == 1,
	   "2000 bytes to an MTU of 1500: rx_oversize");
	vpa.vesw.eth_mtu = 1500;

	out.n = 0;
	frame(f, 600, lmac, vpa.base_mac, 0x0800);
	vf_dp_tx(&dpa, f, 600, capture, NULL);
	out.mad[1][100] ^= 0x10;
	OK(feed(&dpb, 5, NULL, out.n, 0, &got) == 0 && dpb.c.rx_bad_icrc == 1,
	   "a bit flipped in a middle segment: rx_bad_icrc");

	/* a runt: a 16B packet of a 52-byte frame, made by hand */
	n = vf_16b_encap(&h, f, 60, pkt, sizeof(pkt));
	put_le32(pkt, 5 | 10u << 20);		/* SLID 5, 10 quad words */
	memset(pkt + 20 + 52, 0, 3);		/* pad 3 */
	put_le32(pkt + 75, vf_crc32(pkt, 75));
	pkt[79] = 0x40 | 3;
	ml = wrap(mad, pkt, 80, 77);
	OK(n == 88 && !vf_dp_rx(&dpb, 5, mad, ml, 0, rx, sizeof(rx)) &&
	   dpb.c.rx_runt == 1, "a 52-byte frame: rx_runt");
	pkt[79] = 0x80 | 3;			/* not a tail flit */
	ml = wrap(mad, pkt, 80, 78);
	OK(!vf_dp_rx(&dpb, 5, mad, ml, 0, rx, sizeof(rx)) &&
	   dpb.c.rx_bad_16b == 1, "no tail flit: rx_bad_16b");

	/* malformed data MADs */
	n = vf_16b_encap(&h, f, 100, pkt, sizeof(pkt));
	ml = wrap(mad, pkt, n, 80);
	OK(vf_dp_rx(&dpb, 5, mad, ml, 0, rx, sizeof(rx)) == 100,
	   "a hand-made data MAD is delivered");
	mad[39] = 0x6B;
	OK(!vf_dp_rx(&dpb, 5, mad, ml, 0, rx, sizeof(rx)), "wrong OUI: dropped");
	mad[39] = 0x6A;
	mad[3] = 0x01;
	OK(!vf_dp_rx(&dpb, 5, mad, ml, 0, rx, sizeof(rx)), "not Send: dropped");
	mad[3] = 0x03;
	mad[45] = 0;
	OK(!vf_dp_rx(&dpb, 5, mad, ml, 0, rx, sizeof(rx)), "count 0: dropped");
	mad[45] = 2;
	OK(!vf_dp_rx(&dpb, 5, mad, ml, 0, rx, sizeof(rx)),
	   "count that does not fit the length: dropped");
	mad[45] = 1;
	mad[44] = 1;
	OK(!vf_dp_rx(&dpb, 5, mad, ml, 0, rx, sizeof(rx)),
	   "index past the count: dropped");
	mad[44] = 0;
	OK(!vf_dp_rx(&dpb, 5, mad, ml - 1, 0, rx, sizeof(rx)),
	   "MAD shorter than its segment: dropped");
	EQ_U(dpb.c.rx_bad_mad, 6, "rx_bad_mad counts the 6");

	/* a packet that changes its size midway */
	reset();
	frame(f, 600, lmac, vpa.base_mac, 0x0800);
	vf_dp_tx(&dpa, f, 600, capture, NULL);
	dpa.next_id--;
	vf_dp_tx(&dpa, f, 900, capture, NULL);	/* same id, other size */
	vf_dp_rx(&dpb, 5, out.mad[0], out.len[0], 0, rx, sizeof(rx));
	OK(!vf_dp_rx(&dpb, 5, out.mad[5], out.len[5], 0, rx, sizeof(rx)) &&
	   dpb.c.rx_bad_mad == 1 && vf_dp_partials(&dpb) == 0,
	   "same packet id, another length: dropped, counted");
}

static void counters(void)
{
	static uint8_t f[1514];
	char buf[8192];
	FILE *mem;

	reset();
	add_mac(&vpa, 0, vpb.base_mac, 9, 0);
	add_mac(&vpa, 1, gmac, 12, 0);
	frame(f, 60, bcast, vpa.base_mac, 0x0806);
	OK(vf_dp_tx(&dpa, f, 60, capture, NULL) == 2,
	   "an ARP broadcast: 2 copies (LIDs 9 and 12)");
	frame(f, 100, vpb.base_mac, vpa.base_mac, 0x0800);
	vf_dp_tx(&dpa, f, 100, capture, NULL);
	frame(f, 100, (const uint8_t *)"\x00\x99\x99\x99\x99\x99",
	      vpa.base_mac, 0x0800);
	vf_dp_tx(&dpa, f, 100, capture, NULL);
	OK(dpa.c.tx_packets == 2 && dpa.c.tx_copies == 3 &&
	   dpa.c.tx_mcastbcast == 1 && dpa.c.tx_unicast == 1 &&
	   dpa.c.tx_untagged == 2 && dpa.c.tx_dlid_zero == 1 &&
	   dpa.c.tx_size[0] == 1 && dpa.c.tx_size[1] == 1,
	   "tx counters: packets, copies, broadcast/unicast, untagged, "
	   "dlid_zero, size buckets");
	EQ_U(vf_dp_tx_errors(&dpa.c), 1, "tx_errors = dlid_zero");
	mem = fmemopen(buf, sizeof(buf), "w");
	vf_dp_print_counters(&dpa.c, "x.", mem);
	fclose(mem);
	OK(strstr(buf, "x.tx_copies 3\n") && strstr(buf, "x.tx_errors 1\n") &&
	   strstr(buf, "x.tx_64 1\n") && strstr(buf, "x.rx_bad_veswid 0\n"),
	   "counters printed as name value lines");
}

/* The EMA counters an endpoint reports are the data path's. */
static void ema_counters(void)
{
	struct vf_dp_counters c = { 0 };
	struct vf_ema_summary s;
	struct vf_ema_errors e;

	memset(&s, 0xff, sizeof(s));
	memset(&e, 0xff, sizeof(e));
	c.tx_packets = 7;
	c.rx_bytes = 1000;
	c.tx_size[0] = 3;
	c.tx_size[6] = 4;
	c.rx_size[5] = 2;
	c.tx_dlid_zero = 1;
	c.tx_oversize = 2;
	c.rx_bad_veswid = 5;
	c.rx_bad_pkey = 6;
	c.rx_bad_icrc = 1;
	vf_dp_ema_counters(&c, &s, &e);
	OK(s.tx_packets == 7 && s.rx_bytes == 1000 && s.tx_64 == 3 &&
	   s.tx_1519_max == 4 && s.rx_1024_1518 == 2 && s.rx_64 == 0,
	   "EMA summary: packets, bytes, size buckets");
	OK(s.tx_errors == 3 && e.tx_errors == 3 && s.rx_errors == 12 &&
	   e.rx_errors == 12, "EMA tx/rx_errors: the data path's sums");
	OK(e.tx_dlid_zero == 1 && e.tx_logic == 2 && e.rx_bad_veswid == 5 &&
	   e.rx_logic == 7 && e.tx_smac_filt == 0 && e.rx_eth_down == 0,
	   "EMA error kinds; ours without a counter of their own are logic");
	EQ_U(e.tx_dlid_zero + e.tx_logic + e.tx_drop_state + e.tx_smac_filt,
	     e.tx_errors, "EMA tx_errors is the sum of its kinds");
	EQ_U(e.rx_bad_veswid + e.rx_runt + e.rx_oversize + e.rx_eth_down +
	     e.rx_drop_state + e.rx_logic, e.rx_errors,
	     "EMA rx_errors is the sum of its kinds");
}

int main(void)
{
	lmac();
	dlid_selection();
	sc_rc();
	round_trips();
	order_dups_loss();
	bounded();
	receive_checks();
	counters();
	ema_counters();
	return tap_done();
}
