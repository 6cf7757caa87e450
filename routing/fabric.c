// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The fabric model: building, indexing and small queries.  See fabric.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fabric.h"
#include "common/log.h"

struct vf_fabric *vf_fabric_create(void)
{
	struct vf_fabric *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	/* offset 0 is the empty string, so unset names read as "" */
	f->strings = calloc(1, 256);
	if (!f->strings) {
		free(f);
		return NULL;
	}
	f->strings_cap = 256;
	f->strings_len = 1;
	f->refs = 1;
	return f;
}

void vf_fabric_hold(struct vf_fabric *f)
{
	f->refs++;
}

void vf_fabric_destroy(struct vf_fabric *f)
{
	if (!f || --f->refs)
		return;
	free(f->nodes);
	free(f->ports);
	free(f->switches);
	free(f->lid_port);
	free(f->strings);
	free(f->aliases);
	free(f);
}

/* Grow an array of elem-sized items so that it holds need of them. */
static int grow(void **arr, uint32_t *cap, uint32_t need, size_t elem)
{
	uint32_t ncap = *cap ? *cap : 16;
	void *p;

	if (need <= *cap)
		return 0;
	while (ncap < need) {
		if (ncap > UINT32_MAX / 2)
			return -ENOMEM;
		ncap *= 2;
	}
	p = realloc(*arr, (size_t)ncap * elem);
	if (!p)
		return -ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}

int vf_fabric_add_alias(struct vf_fabric *f, uint32_t port, uint64_t guid)
{
	if (grow((void **)&f->aliases, &f->aliases_cap, f->num_aliases + 1,
		 sizeof(*f->aliases)))
		return -ENOMEM;
	f->aliases[f->num_aliases++] = (struct vf_alias){ guid, port };
	return 0;
}

int vf_fabric_reserve(struct vf_fabric *f, uint32_t nodes, uint32_t ports,
		      uint32_t string_bytes)
{
	void *n = f->nodes, *p = f->ports, *s = f->strings;
	int rc;

	rc = grow(&n, &f->nodes_cap, nodes, sizeof(*f->nodes));
	f->nodes = n;
	if (!rc)
		rc = grow(&p, &f->ports_cap, ports, sizeof(*f->ports));
	f->ports = p;
	if (!rc)
		rc = grow(&s, &f->strings_cap, f->strings_len + string_bytes, 1);
	f->strings = s;
	return rc;
}

static uint32_t intern(struct vf_fabric *f, const char *s, size_t max)
{
	size_t len = s ? strnlen(s, max) : 0;
	uint32_t off = f->strings_len;
	void *arr = f->strings;

	if (!len)
		return 0;
	if (grow(&arr, &f->strings_cap, off + len + 1, 1))
		return VF_NONE;
	f->strings = arr;
	memcpy(f->strings + off, s, len);
	f->strings[off + len] = '\0';
	f->strings_len += len + 1;
	return off;
}

uint32_t vf_fabric_add_node(struct vf_fabric *f, enum vf_node_type type,
			    uint64_t guid, uint64_t sysimg_guid,
			    unsigned num_ports, const char *name,
			    const char *desc)
{
	uint32_t n = f->num_nodes, first = f->num_ports;
	struct vf_node *node;
	void *arr;

	if (f->finalized || num_ports > VF_MAX_PORTS ||
	    (type != VF_NODE_CA && type != VF_NODE_SWITCH &&
	     type != VF_NODE_ROUTER))
		return VF_NONE;
	arr = f->nodes;
	if (grow(&arr, &f->nodes_cap, n + 1, sizeof(*f->nodes)))
		return VF_NONE;
	f->nodes = arr;
	arr = f->ports;
	if (grow(&arr, &f->ports_cap, first + num_ports + 1,
		 sizeof(*f->ports)))
		return VF_NONE;
	f->ports = arr;

	node = &f->nodes[n];
	memset(node, 0, sizeof(*node));
	node->guid = guid;
	node->sysimg_guid = sysimg_guid ? sysimg_guid : guid;
	node->type = type;
	node->num_ports = num_ports;
	node->first_port = first;
	node->sw = VF_NONE;
	node->name = intern(f, name, 256);
	node->desc = intern(f, desc && *desc ? desc : name, VF_DESC_LEN);
	if (node->name == VF_NONE || node->desc == VF_NONE)
		return VF_NONE;

	for (unsigned i = 0; i <= num_ports; i++) {
		struct vf_port *p = &f->ports[first + i];

		memset(p, 0, sizeof(*p));
		p->guid = type == VF_NODE_SWITCH ? guid : guid + i;
		p->node = n;
		p->remote = VF_NONE;
		p->num = i;
		p->healthy = true;
	}
	f->num_ports = first + num_ports + 1;
	f->num_nodes = n + 1;
	return n;
}

uint32_t vf_fabric_port(const struct vf_fabric *f, uint32_t node,
			unsigned num)
{
	if (node >= f->num_nodes || num > f->nodes[node].num_ports)
		return VF_NONE;
	return f->nodes[node].first_port + num;
}

int vf_fabric_link(struct vf_fabric *f, uint32_t a, uint32_t b)
{
	if (f->finalized || a >= f->num_ports || b >= f->num_ports || a == b)
		return -EINVAL;
	if (f->ports[a].num == 0 || f->ports[b].num == 0)
		return -EINVAL;
	if (f->ports[a].remote != VF_NONE || f->ports[b].remote != VF_NONE)
		return -EBUSY;
	f->ports[a].remote = b;
	f->ports[b].remote = a;
	return 0;
}

/* The ports that own LIDs: port 0 of switches, physical ports of CAs. */
static bool port_has_lid_slot(const struct vf_fabric *f,
			      const struct vf_port *p)
{
	return vf_is_switch(&f->nodes[p->node]) ? p->num == 0 : p->num > 0;
}

int vf_fabric_assign_lids(struct vf_fabric *f, unsigned lmc)
{
	unsigned next = 0, ca_lmc = lmc > 7 ? 7 : lmc;

	if (f->finalized)
		return -EINVAL;
	/* skip past LIDs the file already gave, so nothing collides */
	for (uint32_t i = 0; i < f->num_ports; i++) {
		const struct vf_port *p = &f->ports[i];
		unsigned end = p->base_lid + (1u << p->lmc);

		if (p->base_lid && end > next)
			next = end;
	}
	for (int pass = 0; pass < 2; pass++) {
		bool want_switch = pass == 0;

		for (uint32_t i = 0; i < f->num_ports; i++) {
			struct vf_port *p = &f->ports[i];
			bool sw = vf_is_switch(&f->nodes[p->node]);
			/* OpenSM reserves an aligned block for switches too */
			unsigned l = sw ? 0 : ca_lmc, size = 1u << ca_lmc, block;

			if (sw != want_switch || p->base_lid ||
			    !port_has_lid_slot(f, p))
				continue;
			/* an unlinked CA port has no LID in a live subnet */
			if (!sw && p->remote == VF_NONE)
				continue;
			block = (next + size - 1) & ~(size - 1);
			/* LID 0 is invalid: a CA skips block 0, a switch uses 1 */
			if (block == 0 && !sw)
				block = size;
			if (block + size - 1 > VF_MAX_LID)
				return -ERANGE;
			p->base_lid = block ? block : 1;
			p->lmc = l;
			/* a switch leaves the rest of its block unused */
			next = block + size > p->base_lid + 1u ? block + size
							      : p->base_lid + 1u;
		}
	}
	return 0;
}

static int fill_lid_table(struct vf_fabric *f)
{
	unsigned max = 0;

	for (uint32_t i = 0; i < f->num_ports; i++) {
		const struct vf_port *p = &f->ports[i];
		unsigned end;

		if (!p->base_lid)
			continue;
		end = p->base_lid + (1u << p->lmc) - 1;
		if (end > VF_MAX_LID) {
			vf_log(VF_LOG_ERROR,
			       "ERR VF0201: port 0x%016llx LID %u LMC %u is past the unicast range",
			       (unsigned long long)p->guid, p->base_lid,
			       p->lmc);
			return -ERANGE;
		}
		if (end > max)
			max = end;
	}
	f->max_lid = max;
	f->lid_port = malloc(((size_t)max + 1) * sizeof(*f->lid_port));
	if (!f->lid_port)
		return -ENOMEM;
	for (unsigned l = 0; l <= max; l++)
		f->lid_port[l] = VF_NONE;
	for (uint32_t i = 0; i < f->num_ports; i++) {
		const struct vf_port *p = &f->ports[i];

		if (!p->base_lid)
			continue;
		for (unsigned l = p->base_lid;
		     l < p->base_lid + (1u << p->lmc); l++) {
			if (f->lid_port[l] != VF_NONE) {
				vf_log(VF_LOG_ERROR,
				       "ERR VF0202: LID %u is used by port 0x%016llx and by port 0x%016llx",
				       l,
				       (unsigned long long)f->ports[f->lid_port[l]].guid,
				       (unsigned long long)p->guid);
				return -EEXIST;
			}
			f->lid_port[l] = i;
		}
	}
	return 0;
}

/* The LID table; on an error it is empty (max_lid 0). */
static int index_lids(struct vf_fabric *f)
{
	int rc;

	free(f->lid_port);
	f->lid_port = NULL;
	rc = fill_lid_table(f);
	if (rc)
		f->max_lid = 0;
	return rc;
}

int vf_fabric_finalize(struct vf_fabric *f)
{
	uint32_t nsw = 0;
	int rc;

	if (f->finalized)
		return 0;
	for (uint32_t n = 0; n < f->num_nodes; n++)
		nsw += vf_is_switch(&f->nodes[n]);
	f->switches = calloc(nsw ? nsw : 1, sizeof(*f->switches));
	if (!f->switches)
		return -ENOMEM;
	for (uint32_t n = 0; n < f->num_nodes; n++) {
		if (!vf_is_switch(&f->nodes[n]))
			continue;
		f->nodes[n].sw = f->num_switches;
		f->switches[f->num_switches++] = n;
	}
	rc = index_lids(f);
	if (rc)
		return rc;
	f->finalized = true;
	return 0;
}

int vf_fabric_reindex_lids(struct vf_fabric *f)
{
	return index_lids(f);
}

uint32_t vf_fabric_lid_node(const struct vf_fabric *f, unsigned lid)
{
	if (lid == 0 || lid > f->max_lid || f->lid_port[lid] == VF_NONE)
		return VF_NONE;
	return f->ports[f->lid_port[lid]].node;
}

uint32_t vf_fabric_find_guid(const struct vf_fabric *f, uint64_t node_guid)
{
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (f->nodes[n].guid == node_guid)
			return n;
	return VF_NONE;
}

uint32_t vf_fabric_end_port(const struct vf_fabric *f, uint64_t port_guid)
{
	for (uint32_t i = 0; i < f->num_ports; i++)
		if (f->ports[i].guid == port_guid &&
		    (!vf_is_switch(&f->nodes[f->ports[i].node]) ||
		     f->ports[i].num == 0))
			return i;
	return VF_NONE;
}

uint32_t vf_fabric_find_name(const struct vf_fabric *f, const char *name)
{
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (!strcmp(vf_node_name(f, &f->nodes[n]), name))
			return n;
	return VF_NONE;
}

static const struct {
	const char *name;
	unsigned gbps_x10;
} speeds[] = {
	[VF_SPEED_UNKNOWN] = { "?", 0 },
	[VF_SPEED_SDR] = { "SDR", 25 },
	[VF_SPEED_DDR] = { "DDR", 50 },
	[VF_SPEED_QDR] = { "QDR", 100 },
	[VF_SPEED_FDR10] = { "FDR10", 103 },
	[VF_SPEED_FDR] = { "FDR", 140 },
	[VF_SPEED_EDR] = { "EDR", 258 },
	[VF_SPEED_HDR] = { "HDR", 531 },
	[VF_SPEED_NDR] = { "NDR", 1062 },
};

unsigned vf_lane_gbps_x10(enum vf_speed speed)
{
	return speed <= VF_SPEED_NDR ? speeds[speed].gbps_x10 : 0;
}

const char *vf_speed_name(enum vf_speed speed)
{
	return speed <= VF_SPEED_NDR ? speeds[speed].name : "?";
}

enum vf_speed vf_speed_parse(const char *s)
{
	for (unsigned i = VF_SPEED_SDR; i <= VF_SPEED_NDR; i++)
		if (!strcasecmp(s, speeds[i].name))
			return i;
	return VF_SPEED_UNKNOWN;
}

unsigned vf_port_rate(const struct vf_port *p)
{
	return p->width * vf_lane_gbps_x10(p->speed);
}

int vf_lfts_init(struct vf_lfts *t, uint32_t num_switches, uint16_t max_lid)
{
	size_t n = (size_t)num_switches * ((size_t)max_lid + 1);

	t->num_switches = num_switches;
	t->max_lid = max_lid;
	t->port = malloc(n ? n : 1);
	if (!t->port)
		return -ENOMEM;
	memset(t->port, VF_NO_PORT, n);
	return 0;
}

void vf_lfts_free(struct vf_lfts *t)
{
	free(t->port);
	t->port = NULL;
	t->num_switches = 0;
}
