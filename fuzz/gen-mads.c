// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Writes the MAD seeds of the fuzz corpora (fuzz/gen-seeds.sh runs it):
 * valid requests of each kind, encoded by the project's own encoders, in
 * each target's input format.  Usage: gen-mads CORPUS_DIR
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/mad.h"
#include "fuzz/fuzz.h"
#include "routing/arproto.h"
#include "vnic/datapath.h"
#include "vnic/ema-agent.h"
#include "vnic/ema.h"

static const char *dir;

static void put(const char *target, const char *name, const void *p,
		size_t n)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", dir, target, name);
	f = fopen(path, "wb");
	if (!f || fwrite(p, 1, n, f) != n || fclose(f)) {
		perror(path);
		exit(1);
	}
}

/* --- EMA: sequences of 256-byte MADs to the agent --- */

static uint8_t seq[16][VF_EMA_MAD_SIZE];
static unsigned nseq;

static uint8_t *next(uint8_t method, uint16_t attr, uint32_t amod)
{
	uint8_t *m = seq[nseq++];

	vf_ema_init(m, method, 0x100 + nseq, attr, amod);
	return m;
}

static void flush(const char *name)
{
	put("ema", name, seq, nseq * (size_t)VF_EMA_MAD_SIZE);
	nseq = 0;
}

/*
 * Keyed and unkeyed Sets, right and wrong key, wrong SLID (fuzz/
 * fuzz-ema.c: byte 24 picks the sender, byte 25 of the first MAD starts
 * the agent with FUZZ_KEY, lease 3 s; the clock moves 1 s a MAD).
 */
#define FUZZ_KEY 0x0123456789abcdefull	/* fuzz/fuzz-ema.c's */

static uint8_t *keyed(uint8_t *m, uint64_t key, uint8_t sender)
{
	vf_ema_put_key(m, key);
	m[24] = sender;		/* 0 the master SM, 1 a host, 2 SLID 0 */
	return m;
}

static void auth_seeds(const struct vf_vesw *w)
{
	struct vf_ema_key_info k = { .key = 0x5a5a5a5a5a5a5a5aull,
				     .lease_s = 2 };
	uint8_t *m;

	m = keyed(next(VF_EMA_SET, VF_EMA_VESWPORT_INFO, vf_ema_amod(0, 0)),
		  FUZZ_KEY, 0);
	vf_ema_put_vesw(m, w);
	m[25] = 1;		/* the agent holds FUZZ_KEY */
	keyed(next(VF_EMA_GET, VF_EMA_KEY_INFO, 0), FUZZ_KEY, 0);
	keyed(next(VF_EMA_GET, VF_EMA_KEY_INFO, 0), 0, 1);
	flush("auth-right-key");
	m = keyed(next(VF_EMA_SET, VF_EMA_VESWPORT_INFO, vf_ema_amod(0, 0)),
		  0x1111, 0);
	vf_ema_put_vesw(m, w);
	m[25] = 1;
	for (int i = 0; i < 4; i++)	/* the lease of 3 s runs out */
		vf_ema_put_vesw(keyed(next(VF_EMA_SET, VF_EMA_VESWPORT_INFO,
					   vf_ema_amod(0, 0)), 0x1111, 0), w);
	vf_ema_put_key_info(keyed(next(VF_EMA_SET, VF_EMA_KEY_INFO, 0),
				  0x1111, 0), &k);
	flush("auth-wrong-key-lease");
	vf_ema_put_vesw(keyed(next(VF_EMA_SET, VF_EMA_VESWPORT_INFO,
				   vf_ema_amod(0, 0)), 0, 1), w);
	vf_ema_put_vesw(keyed(next(VF_EMA_SET, VF_EMA_VESWPORT_INFO,
				   vf_ema_amod(0, 0)), 0, 2), w);
	vf_ema_put_key_info(keyed(next(VF_EMA_SET, VF_EMA_KEY_INFO, 0), 0, 1),
			    &k);
	next(VF_EMA_SET, VF_EMA_DELETE_VESW, vf_ema_amod(0, 1))[24] = 1;
	flush("auth-host-slid");
	vf_ema_put_key_info(next(VF_EMA_SET, VF_EMA_KEY_INFO, 0), &k);
	vf_ema_put_vesw(next(VF_EMA_SET, VF_EMA_VESWPORT_INFO,
			     vf_ema_amod(0, 0)), w);
	vf_ema_put_vesw(keyed(next(VF_EMA_SET, VF_EMA_VESWPORT_INFO,
				   vf_ema_amod(0, 0)), k.key, 0), w);
	keyed(next(VF_EMA_GET, VF_EMA_KEY_INFO, 0), k.key, 0);
	flush("auth-set-key");
}

static void ema_seeds(void)
{
	static const uint16_t gets[] = {
		VF_EMA_CLASS_PORT_INFO, VF_EMA_VESWPORT_INFO,
		VF_EMA_MAC_ENTRIES, VF_EMA_IFACE_UCAST_MACS,
		VF_EMA_IFACE_MCAST_MACS, VF_EMA_SUMMARY_COUNTERS,
		VF_EMA_ERROR_COUNTERS,
	};
	struct vf_ema_cpi cpi = { .trap_lid = 1, .trap_sl = 0 };
	struct vf_ema_mac_slice s = { .offset = 0, .num = 2,
				      .digest = 0x1234 };
	struct vf_vport_mac e[2] = {
		{ { 2, 0, 0, 0, 0, 1 }, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		  5u << 8 },
		{ { 2, 0, 0, 0, 0, 2 }, { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		  7u << 8 },
	};
	struct vf_ema_mac_list l = { .start_idx = 0, .num = 0 };
	struct vf_vport v;
	char name[64];

	for (unsigned i = 0; i < sizeof(gets) / sizeof(gets[0]); i++) {
		for (unsigned part = 0; part < 2; part++) {
			uint8_t *m = next(VF_EMA_GET, gets[i],
					  vf_ema_amod(0, part));

			if (gets[i] == VF_EMA_MAC_ENTRIES)
				vf_ema_put_mac_entries(m, &s, NULL);
			if (gets[i] == VF_EMA_IFACE_UCAST_MACS ||
			    gets[i] == VF_EMA_IFACE_MCAST_MACS)
				vf_ema_put_mac_list(m, &l);
			snprintf(name, sizeof(name), "get-%s-%u",
				 vf_ema_attr_name(gets[i], name + 40), part);
			flush(name);
		}
	}
	/* a vport configured the way the EM does it, then read back */
	memset(&v, 0, sizeof(v));
	v.vesw.fabric_id = 1;
	v.vesw.vesw_id = 7;
	v.vesw.pkey = 0x8001;
	v.vesw.eth_mtu = 1500;
	v.vesw.u_mcast_dlid = 0;
	v.port_num = 3;
	v.config_state = VF_VPORT_FORWARDING;
	v.encap_slid = 9;
	v.base_mac[0] = 2;
	v.base_mac[5] = 9;
	vf_ema_put_cpi(next(VF_EMA_SET, VF_EMA_CLASS_PORT_INFO, 0), &cpi);
	vf_ema_put_vesw(next(VF_EMA_SET, VF_EMA_VESWPORT_INFO,
			     vf_ema_amod(1, VF_EMA_PART_VESW)), &v.vesw);
	vf_ema_put_vport(next(VF_EMA_SET, VF_EMA_VESWPORT_INFO,
			      vf_ema_amod(1, VF_EMA_PART_VPORT)), &v);
	vf_ema_put_mac_entries(next(VF_EMA_SET, VF_EMA_MAC_ENTRIES,
				    vf_ema_amod(1, 0)), &s, e);
	vf_ema_put_mac_entries(next(VF_EMA_GET, VF_EMA_MAC_ENTRIES,
				    vf_ema_amod(1, 0)), &s, NULL);
	next(VF_EMA_GET, VF_EMA_VESWPORT_INFO,
	     vf_ema_amod(1, VF_EMA_PART_VPORT));
	next(VF_EMA_GET, VF_EMA_SUMMARY_COUNTERS, vf_ema_amod(1, 1));
	next(VF_EMA_SET, VF_EMA_DELETE_VESW, vf_ema_amod(1, 0));
	flush("configure-vport");
	/* a trap, as the EM receives one */
	{
		struct vf_ema_trap t = { .issuer_lid = 9, .vesw_id = 7,
					 .port_num = 3, .phys_port = 1,
					 .vport_index = 1,
					 .opcode = VF_EMA_TRAP_LINK };

		vf_ema_put_trap(next(VF_EMA_TRAP, VF_EMA_NOTICE, 0), &t);
		flush("trap-link");
	}
	auth_seeds(&v.vesw);
}

/* --- the data path: [control byte][data MAD] records --- */

static uint8_t dp_buf[64 * (1 + VF_DP_MAD_USED)];
static size_t dp_len;

static void dp_emit(void *arg, uint32_t dlid, const uint8_t *mad, size_t len)
{
	if (dp_len + 1 + len > sizeof(dp_buf))
		return;
	dp_buf[dp_len++] = 5 - 1;	/* from LID 5, no time passes */
	memcpy(dp_buf + dp_len, mad, len);
	dp_len += len;
}

static void dp_seeds(void)
{
	static const size_t sizes[] = { 60, 200, 1514, 4000 };
	struct vf_vport vp;
	struct vf_dp dp;
	uint8_t frame[4000];
	char name[32];

	memset(&vp, 0, sizeof(vp));
	vp.vesw.vesw_id = 1;
	vp.vesw.pkey = 0x8001;
	vp.vesw.eth_mtu = 9000;
	vp.encap_slid = 5;
	vf_dp_lmac(0, 1, 5, vp.base_mac);
	vp.exists = true;
	vp.config_state = VF_VPORT_FORWARDING;
	vp.admin_up = true;
	vf_ema_vport_update_state(&vp);
	/* to LID 9, the receiving vport of fuzz-datapath.c */
	vf_dp_lmac(0, 1, 9, vp.macs[0].mac);
	memset(vp.macs[0].mask, 0xff, 6);
	vp.macs[0].dlid_sd = 9u << 8;
	for (unsigned i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		vf_dp_init(&dp, &vp);
		memcpy(frame, vp.macs[0].mac, 6);
		memcpy(frame + 6, vp.base_mac, 6);
		frame[12] = 0x08;
		frame[13] = 0x00;
		for (size_t j = 14; j < sizes[i]; j++)
			frame[j] = (uint8_t)(j * 7);
		dp_len = 0;
		vf_dp_tx(&dp, frame, sizes[i], dp_emit, NULL);
		snprintf(name, sizeof(name), "frame-%zu", sizes[i]);
		put("datapath", name, dp_buf, dp_len);
	}
}

/* --- adaptive routing --- */

static void ar_seeds(void)
{
	for (uint16_t attr = VF_ARP_INFO; attr <= VF_ARP_KEY_INFO; attr++) {
		uint8_t m[VF_ARP_MAD_SIZE];
		char name[32], buf[8];

		vf_arp_init(m, attr == VF_ARP_LOST_ROUTES ? VF_ARP_SET :
			    VF_ARP_GET, 0x42, attr, 0, 1);
		snprintf(name, sizeof(name), "%s",
			 vf_arp_attr_name(attr, buf));
		put("arproto", name, m, sizeof(m));
	}
}

/* --- who may: runs of [flags][ms][AR_Key][first 45 MAD bytes] --- */

#define AK_RECORD 56
#define AK_SM 1
#define AK_LAPSE 2

static uint8_t ak_run[8 * AK_RECORD];
static unsigned ak_n;

static void ak_add(uint8_t flags, uint16_t ms, uint64_t key, uint8_t method,
		   uint16_t attr, const struct vf_arp_keyinfo *ki)
{
	uint8_t *r = ak_run + ak_n++ * AK_RECORD, m[VF_ARP_MAD_SIZE];

	vf_arp_init(m, method, 0x42, attr, 0, 1);
	if (ki)
		vf_arp_put_keyinfo(m, ki);
	r[0] = flags;
	vf_put16(r + 1, ms);
	vf_put32(r + 3, (uint32_t)(key >> 32));
	vf_put32(r + 7, (uint32_t)key);
	memcpy(r + 11, m, AK_RECORD - 11);
}

static void ak_flush(const char *name)
{
	put("arkey", name, ak_run, ak_n * (size_t)AK_RECORD);
	ak_n = 0;
}

static void arkey_seeds(void)
{
	const uint64_t a = 0xA11CE5EC12E7C0DEull, b = 0xB0B5EC12E7C0FFEEull;
	struct vf_arp_keyinfo ka = { .key = a, .lease_s = 2 };
	struct vf_arp_keyinfo kb = { .key = b, .lease_s = 60 };

	/* the SM keys a switch, programs it; a host tries without and with */
	ak_add(AK_SM, 0, 0, VF_ARP_SET, VF_ARP_KEY_INFO, &ka);
	ak_add(AK_SM, 10, a, VF_ARP_SET, VF_ARP_CONTROL, NULL);
	ak_add(0, 10, 0, VF_ARP_SET, VF_ARP_CONTROL, NULL);
	ak_add(0, 10, a, VF_ARP_SET, VF_ARP_GROUPS, NULL);
	ak_add(0, 10, 0, VF_ARP_SET, VF_ARP_LOST_ROUTES, NULL);
	ak_add(0, 10, a, VF_ARP_SET, VF_ARP_LOST_ROUTES, NULL);
	ak_add(0, 10, 0, VF_ARP_GET, VF_ARP_KEY_INFO, NULL);
	ak_flush("host-attacks");
	/* a new SM with another key: refused, lease runs out, it takes over */
	ak_add(AK_SM, 0, 0, VF_ARP_SET, VF_ARP_KEY_INFO, &ka);
	ak_add(AK_SM, 100, b, VF_ARP_SET, VF_ARP_KEY_INFO, &kb);
	ak_add(AK_LAPSE, 1000, 0, VF_ARP_GET, VF_ARP_INFO, NULL);
	ak_add(AK_SM | AK_LAPSE, 1500, b, VF_ARP_SET, VF_ARP_KEY_INFO, &kb);
	ak_add(AK_SM, 10, b, VF_ARP_SET, VF_ARP_LIDS, NULL);
	ak_flush("takeover");
	/* a host's garbage never starts the lease */
	ak_add(AK_SM, 0, 0, VF_ARP_SET, VF_ARP_KEY_INFO, &ka);
	for (unsigned i = 0; i < 6; i++)
		ak_add(AK_LAPSE, 1000, i, VF_ARP_SET, VF_ARP_CONTROL, NULL);
	ak_add(AK_SM, 10, a, VF_ARP_SET, VF_ARP_NEIGHBORS, NULL);
	ak_flush("host-garbage");
}

/* --- SA requests: [flags][requester LID][SA MAD] --- */

struct sa_in {
	uint8_t flags, lid_hi, lid_lo;
	uint8_t mad[256];
};

static void sa_put(const char *name, uint8_t flags, uint16_t req_lid,
		   uint8_t method, uint16_t attr, uint64_t comp,
		   const void *rec, size_t rec_len)
{
	struct sa_in in;
	uint8_t *m = in.mad;

	memset(&in, 0, sizeof(in));
	in.flags = flags;
	in.lid_hi = (uint8_t)(req_lid >> 8);
	in.lid_lo = (uint8_t)req_lid;
	m[0] = 1;			/* base version */
	m[1] = 0x03;			/* SA class */
	m[2] = 2;			/* class version */
	m[3] = method;
	vf_put64(m + 8, 0x1234);	/* TID */
	vf_put16(m + 16, attr);
	vf_put64(m + 48, comp);	/* component mask */
	memcpy(m + 56, rec, rec_len);
	if (method == 0x14) {		/* GetMulti travels by RMPP */
		m[24] = 1;		/* RMPP version */
		m[25] = 1;		/* DATA */
		m[26] = 0x07;		/* active, first, last */
	}
	put("sa", name, &in, sizeof(in));
}

static void sa_seeds(void)
{
	const struct vf_fabric *f = vf_fuzz_fabric(1);
	uint64_t gids[8];
	uint16_t lids[8];
	unsigned n = 0;
	char name[64];

	for (uint32_t i = 0; i < f->num_nodes && n < 8; i++) {
		const struct vf_node *nd = &f->nodes[i];

		if (nd->type != VF_NODE_CA)
			continue;
		gids[n] = f->ports[nd->first_port + 1].guid;
		lids[n++] = f->ports[nd->first_port + 1].base_lid;
	}
	for (unsigned i = 0; i < n; i++) {
		for (unsigned j = 0; j < n; j += 3) {
			uint8_t pr[64] = { 0 };

			/* PathRecord Get by GIDs, GetTable by LIDs */
			vf_put64(pr + 8, 0xfe80000000000000ull);
			vf_put64(pr + 16, gids[j]);
			vf_put64(pr + 24, 0xfe80000000000000ull);
			vf_put64(pr + 32, gids[i]);
			pr[49] = 0x80 | 1;	/* reversible, NumbPath 1 */
			snprintf(name, sizeof(name), "pr-get-gid-%u-%u", i, j);
			sa_put(name, (uint8_t)(i & 3), lids[i], 0x01, 0x35,
			       1u << 2 | 1u << 3 | 1u << 11 | 1u << 12, pr,
			       sizeof(pr));
			memset(pr, 0, sizeof(pr));
			vf_put16(pr + 40, lids[j]);	/* DLID */
			vf_put16(pr + 42, lids[i]);	/* SLID */
			vf_put64(pr, 0x10603DB);	/* Lustre */
			snprintf(name, sizeof(name), "pr-gettable-lid-%u-%u",
				 i, j);
			sa_put(name, (uint8_t)(4 | (j & 3)), lids[i], 0x12,
			       0x35, 3u | 1u << 4 | 1u << 5, pr, sizeof(pr));
		}
	}
	{	/* every path from one port; with MTU and rate selectors */
		uint8_t pr[64] = { 0 };

		vf_put64(pr + 24, 0xfe80000000000000ull);
		vf_put64(pr + 32, gids[0]);
		pr[54] = 2 << 6 | 4;	/* MTU exactly 2048 */
		pr[55] = 1 << 6 | 7;	/* rate below 40 Gb/s */
		sa_put("pr-gettable-selectors", 1, lids[0], 0x12, 0x35,
		       1u << 3 | 1u << 16 | 1u << 17 | 1u << 18 | 1u << 19,
		       pr, sizeof(pr));
		sa_put("pr-set", 0, lids[0], 0x02, 0x35, 0, pr, sizeof(pr));
	}
	{	/* MultiPathRecord: 2 SGIDs x 2 DGIDs */
		uint8_t mp[200] = { 0 };

		mp[15] = 2;	/* sgid_count */
		mp[16] = 2;	/* dgid_count */
		for (unsigned k = 0; k < 4; k++) {
			vf_put64(mp + 24 + 16 * k, 0xfe80000000000000ull);
			vf_put64(mp + 32 + 16 * k, gids[k * 2 % n]);
		}
		sa_put("mpr-getmulti", 2, lids[0], 0x14, 0x3A,
		       1u << 19 | 1u << 20, mp, sizeof(mp));
	}
	/*
	 * MCMemberRecord joins of the IPoIB group fuzz-sa.c creates
	 * (Compute_A's P_Key, 0xbf49 as assigned from the VF's name): by a
	 * member, by a port of another tenant; and a create on Compute_B's.
	 */
	for (unsigned i = 0; i < 3; i++) {
		static const uint16_t pkeys[] = { 0xbf49, 0xbf49, 0xb9b6 };
		static const unsigned who[] = { 0, 5, 5 };
		uint8_t mc[52] = { 0 };

		mc[0] = 0xff;
		mc[1] = 0x12;
		mc[2] = 0x40;
		mc[3] = 0x1b;
		vf_put16(mc + 4, pkeys[i]);
		memset(mc + 12, 0xff, 4);
		vf_put64(mc + 16, 0xfe80000000000000ull);
		vf_put64(mc + 24, gids[who[i] % n]);
		vf_put16(mc + 40, pkeys[i]);	/* P_Key */
		mc[38] = 2 << 6 | 4;	/* MTU 2048 */
		mc[42] = 2 << 6 | 3;	/* 10 Gb/s */
		mc[48] = 2 << 4 | 1;	/* scope link-local, full member */
		snprintf(name, sizeof(name), "mcmr-join-%u", i);
		sa_put(name, 0, lids[who[i] % n], 0x02, 0x38,
		       1u << 0 | 1u << 1 | 1u << 5 | 1u << 7 | 1u << 9 |
		       1u << 16, mc, sizeof(mc));
	}
	/*
	 * ServiceRecord Set and Delete (sa_service.c): a port registering
	 * for itself in Compute_A, a port of another tenant deleting it
	 * without the P_Key bit, and one registering for another's GID.
	 */
	for (unsigned i = 0; i < 3; i++) {
		static const unsigned who[] = { 0, 5, 5 };
		static const uint8_t method[] = { 0x02, 0x15, 0x02 };
		static const uint64_t comp[] = { 7, 3, 3 };
		uint8_t sr[176] = { 0 };

		vf_put64(sr, 0x1122334455667788ull);	/* ServiceID */
		vf_put64(sr + 8, 0xfe80000000000000ull);
		vf_put64(sr + 16, gids[0]);		/* ServiceGID */
		vf_put16(sr + 24, 0xbf49 | 0x8000);	/* ServiceP_Key */
		memset(sr + 28, 0xff, 4);		/* lease: forever */
		memcpy(sr + 48, "vfsec", 5);		/* ServiceName */
		snprintf(name, sizeof(name), "sr-%u", i);
		sa_put(name, 0, lids[who[i] % n], method[i], 0x31, comp[i],
		       sr, sizeof(sr));
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s CORPUS_DIR\n", argv[0]);
		return 2;
	}
	dir = argv[1];
	ema_seeds();
	dp_seeds();
	ar_seeds();
	arkey_seeds();
	sa_seeds();
	return 0;
}

/* gen-mads is linked with fuzz/support.c, which wants a target */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	return 0;
}
