// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Ethernet management MADs (class 0x3B) from the wire, both ways:
 * - the endpoint's agent (vnic/ema-agent.c) answers the input cut into
 *   256-byte MADs, in order (a Set then the Gets that read it back), the
 *   last one possibly short;
 * - every decoder the Ethernet Manager (plugin/em.c) runs on replies and
 *   traps gets each of those MADs as a reply of that length.
 * The agent's reply is a GetResp of full size echoing the TID, or none,
 * and never carries a key in its header; a refused request changes
 * nothing in the agent (but its scratch space and the refusal counters
 * and lease timer of its auth state).
 *
 * Who sends (docs/ema-protocol.md, "Authentication"): byte 24 of each
 * MAD (RMPP version, 0 in every real request) picks its SLID, bits 0-1:
 * 0 and 3 the master SM's LID, 1 a host's, 2 SLID 0; bit 0 of byte 25
 * of the first MAD makes the agent start holding FUZZ_KEY with a lease
 * of 3 s.  The clock moves 1 s per MAD, so leases run out.  Seeds with
 * those bytes 0 are answered as before keys existed.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "common/mad.h"
#include "fuzz/fuzz.h"
#include "vnic/ema-agent.h"
#include "vnic/ema.h"

static bool known_status(uint16_t st)
{
	return st == VF_EMA_OK || st == VF_EMA_BAD_VERSION ||
	       st == VF_EMA_BAD_METHOD || st == VF_EMA_BAD_ATTR ||
	       st == VF_EMA_BAD_FIELD || st == VF_EMA_NOT_SM ||
	       st == VF_EMA_BAD_KEY;
}

#define FUZZ_KEY 0x0123456789abcdefull
#define FUZZ_SM_LID 1
#define FUZZ_HOST_LID 9

/* What plugin/em.c does with a reply or an unsolicited MAD. */
static void decode_as_reply(const uint8_t *mad, size_t len)
{
	struct vf_vport_mac e[VF_EMA_MACS_PER_MAD];
	struct vf_ema_mac_slice s;
	struct vf_ema_mac_list l;
	struct vf_ema_summary sum;
	struct vf_ema_errors err;
	struct vf_ema_ctr_id id;
	struct vf_ema_limits lim;
	struct vf_ema_trap t;
	struct vf_ema_key_info k;
	struct vf_ema_cpi c;
	struct vf_ema_hdr h;
	struct vf_vport v;
	struct vf_vesw w;
	char buf[8];

	vf_ema_get_hdr(mad, len, &h);
	vf_ema_attr_name(h.attr_id, buf);
	vf_ema_status_name(h.status);
	VF_FUZZ_CHECK(known_status(vf_ema_get_cpi(mad, len, &c)), "cpi");
	VF_FUZZ_CHECK(known_status(vf_ema_get_key_info(mad, len, &k)), "key");
	vf_ema_get_key(mad, len);
	VF_FUZZ_CHECK(known_status(vf_ema_get_vesw(mad, len, &w)), "vesw");
	VF_FUZZ_CHECK(known_status(vf_ema_get_vport(mad, len, &v, &lim)),
		      "vport");
	if (!vf_ema_get_mac_entries(mad, len, &s, e))
		VF_FUZZ_CHECK(s.num <= VF_EMA_MACS_PER_MAD &&
			      s.offset + s.num <= VF_VPORT_MAC_TABLE,
			      "MAC slice %u+%u taken", s.offset, s.num);
	for (int request = 0; request < 2; request++)
		if (!vf_ema_get_mac_list(mad, len, request, &l))
			VF_FUZZ_CHECK(l.num <= VF_EMA_LIST_PER_MAD,
				      "MAC list of %u taken", l.num);
	for (unsigned part = 0; part < 3; part++) {
		uint16_t a = vf_ema_get_summary(mad, len, part, &id, &sum);
		uint16_t b = vf_ema_get_errors(mad, len, part, &id, &err);

		VF_FUZZ_CHECK(part < VF_EMA_CTR_PARTS ||
			      (a == VF_EMA_BAD_FIELD && b == VF_EMA_BAD_FIELD),
			      "counter part %u accepted", part);
	}
	if (!vf_ema_get_trap(mad, len, &t))
		VF_FUZZ_CHECK(t.opcode >= VF_EMA_TRAP_UCAST_MACS &&
			      t.opcode <= VF_EMA_TRAP_LINK,
			      "trap opcode %u taken", t.opcode);
}

static struct vf_ema_agent agent, before;
static struct vf_ema_src src;

/* May byte i of the agent change on a refused request? */
static bool may_change(size_t i)
{
	size_t s = offsetof(struct vf_ema_agent, scratch);
	size_t k = offsetof(struct vf_ema_agent, auth);

	return (i >= s && i < s + sizeof(agent.scratch)) ||
	       (i >= k && i < k + sizeof(agent.auth));
}

/* Where a and b differ, outside what may change; n if nowhere. */
static size_t first_difference(const struct vf_ema_agent *a,
			       const struct vf_ema_agent *b)
{
	size_t n = sizeof(*a);

	for (size_t i = 0; i < n; i++)
		if (!may_change(i) &&
		    ((const uint8_t *)a)[i] != ((const uint8_t *)b)[i])
			return i;
	return n;
}

/* The sender of a MAD, from its byte 24 (see the top). */
static uint16_t slid_of(const uint8_t *req, size_t len)
{
	static const uint16_t lids[4] = { FUZZ_SM_LID, FUZZ_HOST_LID, 0,
					  FUZZ_SM_LID };

	return lids[len > 24 ? req[24] & 3 : 0];
}

static void answer(const uint8_t *req, size_t len)
{
	uint8_t *copy = malloc(len ? len : 1), reply[VF_EMA_MAD_SIZE + 8];
	struct vf_ema_hdr rq, rp;
	size_t n;

	if (!copy)
		abort();
	memcpy(copy, req, len);		/* exact size: ASan sees overreads */
	before = agent;
	src.slid = slid_of(copy, len);
	src.now_ms += 1000;
	n = vf_ema_agent_handle(&agent, copy, len, &src, reply, sizeof(reply));
	/* an answer to every request of at least a MAD header, to no other */
	VF_FUZZ_CHECK(!n == (len < 24 || (copy[3] & 0x80) ||
			     copy[3] == VF_EMA_TRAP ||
			     copy[3] == VF_EMA_TRAP_REPRESS),
		      "%s a MAD of %zu bytes, method 0x%02x",
		      n ? "answered" : "did not answer", len,
		      len > 3 ? copy[3] : 0);
	if (n) {
		uint16_t st = (uint16_t)(reply[4] << 8 | reply[5]);

		VF_FUZZ_CHECK(n == VF_EMA_MAD_SIZE, "reply of %zu bytes", n);
		VF_FUZZ_CHECK(reply[3] == VF_EMA_GET_RESP ||
			      reply[3] == (copy[3] | 0x80),
			      "reply method 0x%02x", reply[3]);
		VF_FUZZ_CHECK(!memcmp(reply + 8, copy + 8, 10),
			      "reply does not echo the TID and attribute");
		VF_FUZZ_CHECK(known_status(st), "reply status 0x%04x", st);
		VF_FUZZ_CHECK(!vf_ema_get_key(reply, n) && !reply[26],
			      "a reply carries a key or RMPP flags");
		VF_FUZZ_CHECK(st != VF_EMA_OK || copy[3] != VF_EMA_SET ||
			      src.slid == FUZZ_SM_LID,
			      "a Set from LID %u (not the master SM) done",
			      src.slid);
		VF_FUZZ_CHECK(st != VF_EMA_OK || copy[3] != VF_EMA_SET ||
			      !before.auth.mkey.key ||
			      agent.auth.expired != before.auth.expired ||
			      vf_ema_get_key(copy, len) == before.auth.mkey.key,
			      "a Set without the key held done");
		VF_FUZZ_CHECK(st || !vf_ema_get_hdr(copy, len, &rq),
			      "a MAD that is not ours answered OK");
		if (st) {
			size_t at = first_difference(&agent, &before);

			VF_FUZZ_CHECK(at == sizeof(agent),
				      "a refused request (attr 0x%04x, status 0x%04x) changed the agent at byte %zu",
				      (unsigned)(copy[16] << 8 | copy[17]), st,
				      at);
		}
		vf_ema_get_hdr(reply, n, &rp);
		decode_as_reply(reply, n);
	}
	decode_as_reply(copy, len);
	free(copy);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	memset(&agent, 0, sizeof(agent));
	if (vf_ema_agent_init(&agent, 1, 4))
		abort();
	src = (struct vf_ema_src){ .sm_lid = FUZZ_SM_LID };
	if (size > 25 && data[25] & 1) {	/* keyed from the start */
		agent.auth.mkey.key = FUZZ_KEY;
		agent.auth.mkey.lease_s = 3;
	}
	for (size_t off = 0; off < size || !size; off += VF_EMA_MAD_SIZE) {
		size_t len = size - off < VF_EMA_MAD_SIZE ? size - off :
			     VF_EMA_MAD_SIZE;

		answer(data + off, len);
		if (!size)
			break;
	}
	return 0;
}
