// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/* The Ethernet Manager's part of the configuration (emconfig.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "partition/config.h"
#include "partition/emconfig.h"
#include "partition/values.h"

struct vf_cfg_vesw *vf_em_new_vesw(struct vf_em_config *e, const char *name,
				   struct vf_where at)
{
	struct vf_cfg_vesw *grown, *s;

	grown = realloc(e->vesws, (e->num_vesws + 1) * sizeof(*grown));
	if (!grown)
		return NULL;
	e->vesws = grown;
	s = &grown[e->num_vesws];
	memset(s, 0, sizeof(*s));
	s->name = strdup(name);
	if (!s->name)
		return NULL;
	e->num_vesws++;
	s->at = at;
	s->enable = true;
	s->vesw_id = -1;
	s->eth_mtu = VF_EM_DEFAULT_MTU;
	s->mac_scheme = VF_EM_MAC_LOCAL;
	return s;
}

static void strv_free(char **v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void vf_em_config_free(struct vf_em_config *e)
{
	for (unsigned i = 0; i < e->num_vesws; i++) {
		struct vf_cfg_vesw *s = &e->vesws[i];

		free(s->name);
		free(s->vf);
		strv_free(s->members, s->num_members);
		strv_free(s->default_ports, s->num_default_ports);
	}
	free(e->vesws);
	memset(e, 0, sizeof(*e));
}

static int strv_add(char ***v, unsigned *n, const char *s)
{
	char **grown = realloc(*v, (*n + 1) * sizeof(**v));

	if (!grown)
		return -ENOMEM;
	*v = grown;
	grown[*n] = strdup(s);
	if (!grown[*n])
		return -ENOMEM;
	(*n)++;
	return 0;
}

int vf_em_vesw_field(struct vf_cfg_vesw *s, const char *el, const char *v,
		     const char **why)
{
	long l;

	if (!strcmp(el, "Member"))
		return strv_add(&s->members, &s->num_members, v);
	if (!strcmp(el, "DefaultPort"))
		return strv_add(&s->default_ports, &s->num_default_ports, v);
	if (!strcmp(el, "VirtualFabric")) {
		free(s->vf);
		s->vf = strdup(v);
		return s->vf ? 0 : -ENOMEM;
	}
	if (!strcmp(el, "Enable"))
		return vf_parse_bool(v, &s->enable, why) ? 2 : 0;
	if (!strcmp(el, "VeswId")) {
		if (vf_parse_int(v, 1, VF_EM_MAX_VESW_ID, &l, why))
			return *why = "an integer 1-4095", 2;
		s->vesw_id = (int)l;
		return 0;
	}
	if (!strcmp(el, "EthMTU")) {
		if (vf_parse_int(v, VF_EM_MIN_MTU, VF_EM_MAX_MTU, &l, why))
			return *why = "an MTU 68-16333", 2;
		s->eth_mtu = (unsigned)l;
		return 0;
	}
	if (!strcmp(el, "MacScheme")) {
		if (strcasecmp(v, "local"))
			return *why = "'local'", 2;
		s->mac_scheme = VF_EM_MAC_LOCAL;
		return 0;
	}
	if (!strcmp(el, "UnknownMulticastDlid")) {
		/* 0: the endpoint replicates; else an IB multicast LID */
		uint64_t u;

		if (vf_parse_u64(v, 0, &u, why) || (u && u < 0xC000) ||
		    u > 0xFFFE)
			return *why = "0 or a multicast LID 0xC000-0xFFFE", 2;
		s->u_mcast_dlid = (uint32_t)u;
		return 0;
	}
	return 1;
}

int vf_em_fabric_id(struct vf_em_config *e, const char *v, const char **why)
{
	long l;

	if (vf_parse_int(v, 0, VF_EM_MAX_FABRIC_ID, &l, why))
		return *why = "an integer 0-1023", 2;
	e->fabric_id = (unsigned)l;
	return 0;
}

static void check_dgs(const struct vf_config *c, const struct vf_cfg_vesw *s,
		      char *const *names, unsigned n, const char *what,
		      struct vf_diag *d)
{
	for (unsigned i = 0; i < n; i++)
		if (!vf_config_dg(c, names[i]))
			vf_diag_add(d, VF_DIAG_ERROR, &s->at,
				    "VirtualEthernetSwitch '%s': %s DeviceGroup '%s' is not defined",
				    s->name, what, names[i]);
}

static const struct vf_cfg_vf *find_vf(const struct vf_config *c,
				       const char *name)
{
	for (unsigned i = 0; i < c->num_vfs; i++)
		if (!strcmp(c->vfs[i].name, name))
			return &c->vfs[i];
	return NULL;
}

unsigned vf_em_validate(const struct vf_config *c, struct vf_diag *d)
{
	const struct vf_em_config *e = &c->em;
	unsigned before = d->errors;

	for (unsigned i = 0; i < e->num_vesws; i++) {
		const struct vf_cfg_vesw *s = &e->vesws[i];
		const struct vf_cfg_vf *vf;

		for (unsigned j = 0; j < i; j++) {
			if (!strcmp(e->vesws[j].name, s->name))
				vf_diag_add(d, VF_DIAG_ERROR, &s->at,
					    "VirtualEthernetSwitch '%s': defined twice (first at line %u)",
					    s->name, e->vesws[j].at.line);
			else if (s->vesw_id > 0 &&
				 e->vesws[j].vesw_id == s->vesw_id)
				vf_diag_add(d, VF_DIAG_ERROR, &s->at,
					    "VirtualEthernetSwitch '%s': VeswId %d is already used by '%s'",
					    s->name, s->vesw_id,
					    e->vesws[j].name);
		}
		if (s->vesw_id < 0)
			vf_diag_add(d, VF_DIAG_ERROR, &s->at,
				    "VirtualEthernetSwitch '%s': needs a <VeswId> (1-4095)",
				    s->name);
		if (!s->vf) {
			vf_diag_add(d, VF_DIAG_ERROR, &s->at,
				    "VirtualEthernetSwitch '%s': needs a <VirtualFabric>",
				    s->name);
		} else if (!(vf = find_vf(c, s->vf))) {
			vf_diag_add(d, VF_DIAG_ERROR, &s->at,
				    "VirtualEthernetSwitch '%s': VirtualFabric '%s' is not defined",
				    s->name, s->vf);
		} else if (!vf->enable && s->enable) {
			vf_diag_add(d, VF_DIAG_ERROR, &s->at,
				    "VirtualEthernetSwitch '%s': VirtualFabric '%s' is not enabled",
				    s->name, s->vf);
		}
		if (!s->num_members)
			vf_diag_add(d, VF_DIAG_ERROR, &s->at,
				    "VirtualEthernetSwitch '%s': needs at least one <Member> DeviceGroup",
				    s->name);
		check_dgs(c, s, s->members, s->num_members, "Member", d);
		check_dgs(c, s, s->default_ports, s->num_default_ports,
			  "DefaultPort", d);
	}
	return d->errors - before;
}
