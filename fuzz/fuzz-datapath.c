// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The VNIC receive path from the wire: data MADs into vf_dp_rx() (the
 * reassembly, vnic/encap.c's decapsulation, the vport checks).  The input
 * is a sequence of records: one control byte (source LID 1-8, and how
 * many 100 ms pass before it, so reassembly timeouts happen) and a data
 * MAD of up to 224 bytes.  Each complete frame must fit; the whole input
 * also goes to vf_16b_decap() as one packet, and a packet that decodes
 * (to a frame of at least 60 bytes) must encode back into one that
 * decodes to the same header and frame.
 */
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "vnic/datapath.h"
#include "vnic/ema-agent.h"
#include "vnic/encap.h"

static struct vf_vport vp;
static struct vf_dp dp;
static uint8_t frame[VF_16B_MAX_LEN], pkt[VF_16B_MAX_LEN + 64];

static void vport(void)
{
	memset(&vp, 0, sizeof(vp));
	vp.vesw.vesw_id = 1;
	vp.vesw.pkey = 0x8001;
	vp.vesw.eth_mtu = 1500;
	vp.encap_slid = 9;
	vf_dp_lmac(0, 1, 9, vp.base_mac);
	vp.exists = true;
	vp.config_state = VF_VPORT_FORWARDING;
	vp.admin_up = true;
	vf_ema_vport_update_state(&vp);
}

static void decap_round_trip(const uint8_t *data, size_t size)
{
	struct vf_16b h, h2;
	const uint8_t *f, *f2;
	size_t len, len2, n;

	memset(&h, 0, sizeof(h));	/* compared below, padding too */
	memset(&h2, 0, sizeof(h2));
	/*
	 * A frame under 60 bytes decodes (the data path counts it as a
	 * runt) but is one encap never makes: it pads to 60.
	 */
	if (vf_16b_decap(data, size, &h, &f, &len) != VF_16B_OK ||
	    len < VF_16B_MIN_FRAME)
		return;
	VF_FUZZ_CHECK(f >= data && f + len <= data + size,
		      "frame outside the packet");
	n = vf_16b_encap(&h, f, len, pkt, sizeof(pkt));
	VF_FUZZ_CHECK(n, "a decoded packet does not encode again");
	VF_FUZZ_CHECK(vf_16b_decap(pkt, n, &h2, &f2, &len2) == VF_16B_OK &&
		      len2 == len && !memcmp(f, f2, len) &&
		      !memcmp(&h, &h2, sizeof(h)),
		      "re-encoded packet differs");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t now = 1000;
	size_t off = 0;

	vport();
	vf_dp_init(&dp, &vp);
	while (off < size) {
		uint8_t ctl = data[off++];
		size_t len = size - off < VF_DP_MAD_USED ? size - off :
			     VF_DP_MAD_USED;
		uint8_t *mad = malloc(len ? len : 1);
		size_t got;

		if (!mad)
			abort();
		memcpy(mad, data + off, len);	/* exact size for ASan */
		now += (ctl >> 3) * 100u;
		vf_dp_expire(&dp, now);
		got = vf_dp_rx(&dp, 1 + (ctl & 7), mad, len, now, frame,
			       sizeof(frame));
		VF_FUZZ_CHECK(got <= sizeof(frame), "frame of %zu bytes", got);
		VF_FUZZ_CHECK(vf_dp_partials(&dp) <= VF_DP_PARTIALS,
			      "%u packets in reassembly", vf_dp_partials(&dp));
		free(mad);
		off += len;
	}
	decap_round_trip(data, size);
	return 0;
}
