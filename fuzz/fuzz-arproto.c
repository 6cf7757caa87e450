// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Adaptive-routing MADs (class 0x0A, routing/arproto.c): the request
 * checks an agent runs, and every decoder the plugin runs on replies,
 * on the input as one MAD (shorter ones zero-padded: the decoders read a
 * whole MAD, their callers check the length first).
 */
#include <string.h>

#include "fuzz/fuzz.h"
#include "routing/arproto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t mad[VF_ARP_MAD_SIZE] = { 0 };
	struct vf_ar_mask m[VF_ARP_GROUPS_PER_BLOCK];
	uint16_t nb[VF_ARP_NEIGHBORS_PER_BLOCK];
	uint32_t loads[VF_ARP_PORTS_PER_BLOCK];
	uint8_t lids[VF_ARP_LIDS_PER_BLOCK];
	struct vf_arp_control c;
	struct vf_arp_egress e;
	struct vf_arp_lost l;
	struct vf_arp_info i;
	struct vf_arp_hdr h;
	char buf[8];
	uint16_t st;

	memset(&l, 0, sizeof(l));	/* compared below, padding too */
	memcpy(mad, data, size < sizeof(mad) ? size : sizeof(mad));
	st = vf_arp_check_request(mad, size, &h);
	vf_arp_status_name(st);
	vf_arp_attr_name(h.attr_id, buf);
	vf_arp_get_hdr(mad, &h);
	vf_arp_get_control(mad, &c);
	vf_arp_get_info(mad, &i);
	vf_arp_get_groups(mad, m);
	vf_arp_get_lids(mad, lids);
	vf_arp_get_loads(mad, loads);
	vf_arp_get_egress(mad, &e);
	vf_arp_get_neighbors(mad, nb);
	vf_arp_get_lost(mad, &l);
	vf_arp_check_neighbors(h.attr_mod, 36, nb);
	vf_arp_check_neighbors(h.attr_mod, 36, NULL);
	vf_arp_check_lost(h.attr_mod, 0xc000, &l);
	/* what decodes must encode to the same bytes' meaning */
	{
		uint8_t out[VF_ARP_MAD_SIZE] = { 0 };
		struct vf_arp_lost l2 = { 0 };
		uint16_t nb2[VF_ARP_NEIGHBORS_PER_BLOCK];

		vf_arp_put_neighbors(out, nb);
		vf_arp_get_neighbors(out, nb2);
		VF_FUZZ_CHECK(!memcmp(nb, nb2, sizeof(nb)),
			      "ARNeighbors round trip");
		vf_arp_put_lost(out, &l);
		vf_arp_get_lost(out, &l2);
		VF_FUZZ_CHECK(!memcmp(&l, &l2, sizeof(l)),
			      "ARLostRoutes round trip");
	}
	return 0;
}
