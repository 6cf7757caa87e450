// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Ethernet management MADs (class 0x3B) from the wire, both ways:
 * - the endpoint's agent (vnic/ema-agent.c) answers the input cut into
 *   256-byte MADs, in order (a Set then the Gets that read it back), the
 *   last one possibly short;
 * - every decoder the Ethernet Manager (plugin/em.c) runs on replies and
 *   traps gets each of those MADs as a reply of that length.
 * The agent's reply is a GetResp of full size echoing the TID, or none;
 * a refused request changes nothing in the agent (but its scratch space).
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
	       st == VF_EMA_BAD_FIELD;
}

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
	struct vf_ema_cpi c;
	struct vf_ema_hdr h;
	struct vf_vport v;
	struct vf_vesw w;
	char buf[8];

	vf_ema_get_hdr(mad, len, &h);
	vf_ema_attr_name(h.attr_id, buf);
	vf_ema_status_name(h.status);
	VF_FUZZ_CHECK(known_status(vf_ema_get_cpi(mad, len, &c)), "cpi");
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

/* Where a and b differ, outside the agent's scratch space; n if nowhere. */
static size_t first_difference(const struct vf_ema_agent *a,
			       const struct vf_ema_agent *b)
{
	size_t lo = offsetof(struct vf_ema_agent, scratch);
	size_t hi = lo + sizeof(a->scratch), n = sizeof(*a);

	if (!memcmp(a, b, lo) && !memcmp((const uint8_t *)a + hi,
					 (const uint8_t *)b + hi, n - hi))
		return n;	/* the common case, fast */
	for (size_t i = 0; i < n; i++)
		if ((i < lo || i >= hi) &&
		    ((const uint8_t *)a)[i] != ((const uint8_t *)b)[i])
			return i;
	return n;
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
	n = vf_ema_agent_handle(&agent, copy, len, reply, sizeof(reply));
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
	for (size_t off = 0; off < size || !size; off += VF_EMA_MAD_SIZE) {
		size_t len = size - off < VF_EMA_MAD_SIZE ? size - off :
			     VF_EMA_MAD_SIZE;

		answer(data + off, len);
		if (!size)
			break;
	}
	return 0;
}
