// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * vfabric-em's transport: vfabric-sa's (tools/sa/transport.h) with a
 * second agent for the EMA class.  A umad status ends a request at
 * once: under ibsim it is the bounce of a port where no client took
 * class 0x3B, that is a host without an endpoint.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/mad.h"
#include "tools/em/emtool.h"
#include "tools/sa/samad.h"

#define SA_ATTR_NODE_RECORD 0x0011
#define SA_NR_LID (1ull << 0)		/* NodeRecord component: LID */
#define SA_NR_SIZE 108
#define SA_STATUS_NO_RECORDS 0x0300
#define DISCOVER_GAP 64			/* LIDs past the last found */

int em_open(struct em *e, const struct em_opts *o)
{
	memset(e, 0, sizeof(*e));
	e->o = o;
	vf_sa_prog = "vfabric-em";
	if (vf_sa_open(&e->port, o->ca, o->port, o->sm_lid, o->timeout_ms,
		       o->retries) < 0)
		return -1;
	e->port.status_final = true;
	e->ema_agent = vf_sa_register(&e->port, VF_EMA_CLASS,
				      VF_EMA_CLASS_VERSION, VF_EMA_OUI);
	if (e->ema_agent < 0) {
		fprintf(stderr, "vfabric-em: cannot register class 0x%02x\n",
			VF_EMA_CLASS);
		vf_sa_close(&e->port);
		return -1;
	}
	return 0;
}

void em_close(struct em *e)
{
	vf_sa_close(&e->port);
}

void em_request(struct em *e, uint8_t *mad, uint8_t method, uint16_t attr,
		uint32_t amod)
{
	vf_ema_init(mad, method, vf_sa_new_tid(&e->port), attr, amod);
	vf_ema_put_key(mad, e->o->key);
}

int em_call(struct em *e, unsigned lid, uint8_t *mad, struct em_reply *r,
	    bool quiet)
{
	struct vf_sa_reply sr;
	int tries, rc;

	rc = vf_sa_query_to(&e->port, e->ema_agent, lid, mad, &sr, &tries);
	if (rc == -EHOSTUNREACH) {
		if (!quiet)
			fprintf(stderr, "vfabric-em: LID %u: no endpoint (umad status %d: nobody at that port takes class 0x%02x)\n",
				lid, sr.umad_status, VF_EMA_CLASS);
		return rc;
	}
	if (rc == -ETIMEDOUT) {
		if (!quiet)
			fprintf(stderr, "vfabric-em: LID %u: timeout: no answer after %d tries of %d ms\n",
				lid, tries, e->port.timeout_ms);
		return rc;
	}
	if (rc < 0) {
		if (!quiet)
			fprintf(stderr, "vfabric-em: LID %u: transport error: %s\n",
				lid, strerror(-rc));
		return rc;
	}
	memset(r->mad, 0, sizeof(r->mad));
	r->len = sr.len < sizeof(r->mad) ? sr.len : sizeof(r->mad);
	memcpy(r->mad, sr.mad, r->len);
	/*
	 * An answer echoes the request's versions and OUI, which raw may
	 * have made wrong: only a short answer, another class or a request
	 * is not one.
	 */
	if (vf_ema_get_hdr(r->mad, r->len, &r->h) == VF_EMA_BAD_FIELD ||
	    r->h.mgmt_class != VF_EMA_CLASS || !(r->h.method & 0x80)) {
		if (!quiet)
			fprintf(stderr, "vfabric-em: LID %u: the answer is not an EMA response\n",
				lid);
		return -EPROTO;
	}
	return 0;
}

int em_get(struct em *e, unsigned lid, uint16_t attr, uint32_t amod,
	   struct em_reply *r)
{
	uint8_t mad[VF_EMA_MAD_SIZE];
	char name[8];

	em_request(e, mad, VF_EMA_GET, attr, amod);
	if (em_call(e, lid, mad, r, false))
		return EM_EXIT_TRANSPORT;
	if (r->h.status) {
		fprintf(stderr, "vfabric-em: LID %u: Get %s (modifier 0x%x): status 0x%04x %s\n",
			lid, vf_ema_attr_name(attr, name), amod, r->h.status,
			vf_ema_status_name(r->h.status));
		return EM_EXIT_STATUS;
	}
	return EM_EXIT_OK;
}

int em_node(struct em *e, unsigned lid, struct em_node *n)
{
	uint8_t mad[VF_MAD_SIZE];
	struct vf_sa_hdr h = {
		.class_version = VF_SA_CLASS_VERSION, .method = VF_METHOD_GET,
		.tid = vf_sa_new_tid(&e->port),
		.attr_id = SA_ATTR_NODE_RECORD, .comp_mask = SA_NR_LID,
	};
	struct vf_sa_hdr rh;
	struct vf_sa_reply r;
	const uint8_t *rec, *ni;
	int tries, rc;

	vf_sa_request(mad, &h);
	vf_put16(mad + VF_SA_HDR_SIZE, (uint16_t)lid);
	rc = vf_sa_query(&e->port, mad, &r, &tries);
	if (rc < 0)
		return rc;
	vf_sa_hdr_decode(r.mad, &rh);
	if (rh.status || r.len < VF_SA_HDR_SIZE + SA_NR_SIZE)
		return rh.status == SA_STATUS_NO_RECORDS || !rh.status ?
			-ENOENT : -EIO;
	rec = r.mad + VF_SA_HDR_SIZE;
	ni = rec + 4;
	memset(n, 0, sizeof(*n));
	n->lid = vf_get16(rec);
	n->type = ni[2];
	n->node_guid = vf_get64(ni + 12);
	n->port_guid = vf_get64(ni + 20);
	memcpy(n->desc, rec + 44, 64);
	n->desc[64] = 0;
	return n->lid == lid ? 0 : -ENOENT;
}

int em_discover(struct em *e, unsigned max_lid, struct em_node *nodes,
		unsigned cap, unsigned *n)
{
	unsigned last = 0;

	*n = 0;
	for (unsigned lid = 1; lid <= max_lid; lid++) {
		struct em_node nd;
		int rc = em_node(e, lid, &nd);

		if (rc == -ENOENT) {
			if (lid > last + DISCOVER_GAP)
				break;
			continue;
		}
		if (rc < 0) {
			fprintf(stderr, "vfabric-em: the SA at LID %u did not answer for LID %u: %s\n",
				e->port.sm_lid, lid, strerror(-rc));
			return rc;
		}
		last = lid;
		if (nd.type == 1 && *n < cap)
			nodes[(*n)++] = nd;
	}
	return 0;
}

const char *em_state_name(unsigned s)
{
	static const char *const names[] = { "NOP", "DROP_ALL", "INIT",
					     "FORWARDING" };

	return s < 4 ? names[s] : "?";
}

const char *em_link_name(unsigned s)
{
	static const char *const names[] = { "unknown", "up", "down" };

	return s < 3 ? names[s] : "?";
}

void em_mac_str(const uint8_t *m, char *s)
{
	sprintf(s, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3],
		m[4], m[5]);
}
