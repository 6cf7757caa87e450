// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The FM's rules for its management VFs (fm_xml.c, the render of the
 * VirtualFabrics; reference/opa-fm.md 1.5 and 1.8), checked on an XML
 * file.  The FM refuses a file that breaks one; InfiniBand users' files
 * written for stock OpenSM lack the FM's SA/PM/PA VFs, so each is a
 * warning here, naming the FM's rule, and `vfabric check --strict`
 * refuses what the FM's config_check -s refuses.  What protects isolation
 * is not left to a warning: a written Admin VF that is not active still
 * keeps unconfigured hosts limited members of 0x7fff (plan.c), and a file
 * with no active VF at all is an error, as an empty one.
 */
#include <stdio.h>
#include <string.h>

#include "partition/internal/fmmgmt.h"
#include "partition/query.h"

#define PKEY_MGMT 0x7fff
#define SID_PA 0x1100d03c34845555ull	/* the FM's PA ServiceID */

/* Does app (or one it includes) have <Select> bit? */
static bool app_selects(const struct vf_config *c, const struct vf_app *a,
			unsigned bit, unsigned depth)
{
	if (!a || depth > c->num_apps)
		return false;
	if (a->select & bit)
		return true;
	for (unsigned i = 0; i < a->includes.n; i++)
		if (app_selects(c, vf_config_app(c, a->includes.v[i]), bit,
				depth + 1))
			return true;
	return false;
}

enum { MG_SA = 1, MG_PM = 2, MG_PA = 4 };

/* Which of SA, PM and PA VF v's applications carry. */
static unsigned mgmt_apps(const struct vf_config *c, const struct vf_cfg_vf *v)
{
	unsigned got = 0;

	for (unsigned i = 0; i < v->apps.n; i++) {
		const struct vf_app *a = vf_config_app(c, v->apps.v[i]);

		got |= app_selects(c, a, VF_APP_SA, 0) ? MG_SA : 0;
		got |= app_selects(c, a, VF_APP_PM, 0) ? MG_PM : 0;
		got |= a && vf_app_sid_match(c, a, SID_PA) == 2 ? MG_PA : 0;
	}
	return got;
}

/* A Member or LimitedMember group with <Select>All</Select>. */
static bool has_all(const struct vf_config *c, const struct vf_cfg_vf *v)
{
	const struct vf_names *l[2] = { &v->members, &v->limited };

	for (unsigned k = 0; k < 2; k++)
		for (unsigned i = 0; i < l[k]->n; i++) {
			const struct vf_cfg_dg *g = vf_config_dg(c, l[k]->v[i]);

			if (g && g->select & VF_DG_ALL)
				return true;
		}
	return false;
}

static bool active(const struct vf_cfg_vf *v)
{
	return v->enable && !v->standby;
}

bool vf_config_declares_admin(const struct vf_config *c,
			      const struct vf_cfg_vf **first)
{
	for (unsigned i = 0; !c->stock_defaults && i < c->num_vfs; i++)
		if (!c->vfs[i].from_partitions_conf &&
		    c->vfs[i].pkey == PKEY_MGMT) {
			if (first)
				*first = &c->vfs[i];
			return true;
		}
	return false;
}

/* Per VF: 0x7fff without SA/PM/PA, SA/PM elsewhere, SA/PM without All. */
static void check_each(const struct vf_config *c, const struct vf_cfg_vf *v,
		       struct vf_diag *d)
{
	unsigned got = mgmt_apps(c, v);

	if (v->pkey == PKEY_MGMT && !got)
		vf_diag_add(d, VF_DIAG_WARN, &v->at,
			    "VirtualFabric '%s': on P_Key 0x7fff without the SA, PM or PA application; the FM refuses this (\"VF using the Mgmt Pkey must have <Select>SA</Select>, <Select>PM</Select>, or PA Service ID configured in an Application\")",
			    v->name);
	if (v->pkey != PKEY_MGMT && got & (MG_SA | MG_PM))
		vf_diag_add(d, VF_DIAG_WARN, &v->at,
			    "VirtualFabric '%s': has the %s application but is not on P_Key 0x7fff; the FM refuses this (\"must use Mgmt Pkey\")",
			    v->name, got & MG_SA ? "SA" : "PM");
	if (got & (MG_SA | MG_PM) && !has_all(c, v))
		vf_diag_add(d, VF_DIAG_WARN, &v->at,
			    "VirtualFabric '%s': has the %s application but no Member or LimitedMember group with <Select>All</Select>; the FM refuses this",
			    v->name, got & MG_SA ? "SA" : "PM");
}

/* What the default partition does for hosts no active VF names. */
static void default_says(const struct vf_config *c, char *buf, size_t size)
{
	const struct vf_cfg_vf *admin = NULL;
	bool own = false;

	for (unsigned i = 0; i < c->num_vfs; i++)
		own |= active(&c->vfs[i]) && c->vfs[i].pkey == PKEY_MGMT;
	if (own)
		snprintf(buf, size,
			 "the active VirtualFabrics on 0x7fff decide the default partition; hosts they do not name are limited members of it");
	else if (vf_config_declares_admin(c, &admin))
		snprintf(buf, size,
			 "VirtualFabric '%s' (%s:%u) on 0x7fff is not active, and hosts no active VirtualFabric names are kept limited members of 0x7fff (not full, as stock OpenSM's default would make them)",
			 admin->name, admin->at.file, admin->at.line);
	else
		snprintf(buf, size,
			 "no VirtualFabric is on 0x7fff, so the default partition follows stock OpenSM: every end port no active VirtualFabric names is a full member of 0x7fff");
}

void vf_config_check_mgmt(const struct vf_config *c, struct vf_diag *d)
{
	unsigned sa = 0, pm = 0, pa = 0, num_active = 0;
	const struct vf_cfg_vf *second_sa = NULL, *second_pm = NULL;
	struct vf_where at = { NULL, 0 };
	const struct vf_cfg_vf *admin = NULL;
	char says[320], missing[32] = "";
	bool own_admin = false;

	if (c->stock_defaults || !c->num_vfs)
		return;
	at = c->vfs[0].at;
	for (unsigned i = 0; i < c->num_vfs; i++) {
		const struct vf_cfg_vf *v = &c->vfs[i];
		unsigned got;

		if (!v->enable || v->from_partitions_conf)
			continue;
		check_each(c, v, d);
		if (!active(v))
			continue;
		num_active++;
		own_admin |= v->pkey == PKEY_MGMT;
		got = mgmt_apps(c, v);
		if (got & MG_SA && sa++ == 1)
			second_sa = v;
		if (got & MG_PM && pm++ == 1)
			second_pm = v;
		pa += !!(got & MG_PA);
	}
	if (second_sa)
		vf_diag_add(d, VF_DIAG_WARN, &second_sa->at,
			    "VirtualFabric '%s': a second active VirtualFabric with the SA application; the FM refuses this (\"Only one Virtual Fabric can have <Select>SA</Select>\")",
			    second_sa->name);
	if (second_pm)
		vf_diag_add(d, VF_DIAG_WARN, &second_pm->at,
			    "VirtualFabric '%s': a second active VirtualFabric with the PM application; the FM refuses this (\"Only one Virtual Fabric can have <Select>PM</Select>\")",
			    second_pm->name);
	default_says(c, says, sizeof(says));
	if (!own_admin && vf_config_declares_admin(c, &admin))
		vf_diag_add(d, VF_DIAG_WARN, &admin->at,
			    "VirtualFabric '%s': on P_Key 0x7fff but %s, and no active VirtualFabric is on 0x7fff: hosts no active VirtualFabric names are kept limited members of 0x7fff (the Admin VF's intent; stock OpenSM's default would make them full)",
			    admin->name, admin->enable ? "Standby" : "disabled");
	/*
	 * No active VF gives the fabric no policy of its own, as an empty
	 * file, which is refused (fail closed: the last good policy stays);
	 * the FM refuses it too (no active SA VF).
	 */
	if (!num_active) {
		vf_diag_add(d, VF_DIAG_ERROR, &at,
			    "no VirtualFabric is active (all disabled or Standby): the file gives the fabric no policy, as an empty one, and the FM refuses it too; refused (otherwise %s)",
			    says);
		return;
	}
	snprintf(missing, sizeof(missing), "%s%s%s%s%s", !sa ? "SA" : "",
		 !sa && (!pm || !pa) ? ", " : "", !pm ? "PM" : "",
		 !pm && !pa ? ", " : "", !pa ? "PA" : "");
	if (!sa || !pm || !pa)
		vf_diag_add(d, VF_DIAG_WARN, &at,
			    "no active VirtualFabric has the %s application; the FM refuses this (it needs an active VirtualFabric with <Select>SA</Select>, one with <Select>PM</Select> and one with the PA ServiceID); %s",
			    missing, says);
}
