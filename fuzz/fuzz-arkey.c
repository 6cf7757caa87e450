// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Who may change a switch's AR (routing/arproto.c vf_arp_authorize, with
 * the AR_Key of routing/mgmtkey.c), as the switch agent applies it: the
 * input is a run of requests, each a 56-byte record
 *   0       flags: bit 0 the SLID is the master SM's, bit 1 a key lapse
 *           check before it (the agent does one per request and per turn)
 *   1-2     milliseconds since the last record (big-endian)
 *   3-10    the AR_Key the request carries
 *   11-55   the first 45 bytes of the MAD: header, generation, and for an
 *           ARKeyInfo Set the key and lease the agent would take
 * and after each, what must hold whatever the input:
 *   - a request only the master SM may make is never taken from another
 *     port, nor, while a key is held, without it;
 *   - every refusal for the key is counted, and only a refusal of a Set
 *     from the master SM's port starts the lease (a host cannot run a key
 *     out, nor can a notice);
 *   - the key changes only by an ARKeyInfo Set that was taken, or by its
 *     lease running out, and only once the lease's end has passed.
 */
#include <string.h>

#include "common/mad.h"
#include "fuzz/fuzz.h"
#include "routing/arproto.h"
#include "routing/mgmtkey.h"

#define RECORD 56
#define MAD_PART 45

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vf_mkey k = { 0 };
	uint64_t now = 1000;

	for (size_t at = 0; at + RECORD <= size; at += RECORD) {
		const uint8_t *r = data + at;
		uint8_t mad[VF_ARP_MAD_SIZE] = { 0 };
		bool from_sm = r[0] & 1;
		uint64_t carried = (uint64_t)vf_get32(r + 3) << 32 |
				   vf_get32(r + 7);
		struct vf_mkey before;
		struct vf_arp_hdr h;
		uint16_t st;

		now += vf_get16(r + 1);
		memcpy(mad, r + 11, MAD_PART);
		if (vf_arp_check_request(mad, VF_ARP_USED, &h))
			continue;	/* refused before anyone looks at keys */
		if (r[0] & 2) {
			before = k;
			if (vf_mkey_expire(&k, now))
				VF_FUZZ_CHECK(before.key && before.lease_end_ms &&
					      now >= before.lease_end_ms &&
					      !k.key, "a key lapses at its end");
			else
				VF_FUZZ_CHECK(k.key == before.key,
					      "no lapse, no change");
		}
		before = k;
		st = vf_arp_authorize(&h, from_sm, carried, &k, now);
		VF_FUZZ_CHECK(st == VF_ARP_OK || st == VF_ARP_NOT_SM ||
			      st == VF_ARP_BAD_KEY, "a known status");
		VF_FUZZ_CHECK(k.key == before.key && k.lease_s == before.lease_s,
			      "checking a request never changes the key");
		if (vf_arp_sm_only(&h)) {
			VF_FUZZ_CHECK(from_sm || st == VF_ARP_NOT_SM,
				      "only the master SM's port");
			VF_FUZZ_CHECK(!from_sm || !before.key ||
				      (st == VF_ARP_OK) ==
				      (carried == before.key),
				      "with a key held, only with the key");
		} else {
			VF_FUZZ_CHECK(st != VF_ARP_NOT_SM,
				      "anyone may Get, or send a notice");
		}
		VF_FUZZ_CHECK(k.refused == before.refused +
			      (st == VF_ARP_BAD_KEY), "each refusal counted");
		if (!from_sm)
			VF_FUZZ_CHECK(k.lease_end_ms == before.lease_end_ms,
				      "another port never moves the lease");
		if (st == VF_ARP_BAD_KEY && from_sm && vf_arp_sm_only(&h) &&
		    before.lease_s && !before.lease_end_ms)
			VF_FUZZ_CHECK(k.lease_end_ms ==
				      now + before.lease_s * 1000ull,
				      "the master SM's refusal starts the lease");
		if (!st && h.attr_id == VF_ARP_KEY_INFO &&
		    h.method == VF_ARP_SET) {
			struct vf_arp_keyinfo ki;

			vf_arp_get_keyinfo(mad, &ki);
			vf_mkey_set(&k, ki.key, ki.lease_s);
			VF_FUZZ_CHECK(k.key == ki.key && !k.lease_end_ms,
				      "a taken ARKeyInfo Set puts the key");
		}
		VF_FUZZ_CHECK(vf_mkey_lease_left_s(&k, now) <= k.lease_s ||
			      !k.lease_end_ms, "no more lease left than given");
	}
	return 0;
}
