// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
#include <string.h>

#include "fuzz/fuzz.h"
#include "fuzz/resolve.h"
#include "partition/dgresolve.h"
#include "partition/plan.h"
#include "partition/qos.h"
#include "partition/resolution.h"
#include "partition/sapolicy.h"
#include "vnic/empolicy.h"

void vf_fuzz_check_diag(const struct vf_diag *d, const char *path)
{
	size_t len = strlen(path);
	unsigned errors = 0;

	for (unsigned i = 0; i < d->n; i++) {
		const char *t = d->v[i].text;

		VF_FUZZ_CHECK(t && !strncmp(t, path, len) && t[len] == ':',
			      "diagnostic does not name the file: \"%s\"", t);
		errors += d->v[i].level == VF_DIAG_ERROR;
	}
	/* past VF_DIAG_MAX messages, errors are counted, not kept */
	VF_FUZZ_CHECK(d->oom || (errors <= d->errors &&
				 d->errors - errors <= d->dropped),
		      "%u error messages, %u errors counted, %u dropped",
		      errors, d->errors, d->dropped);
	VF_FUZZ_CHECK(d->n <= VF_DIAG_MAX, "%u messages kept, over %u",
		      d->n, VF_DIAG_MAX);
}

static void check_plan(const struct vf_config *c, const struct vf_fabric *f,
		       const struct vf_plan *p)
{
	VF_FUZZ_CHECK(p->num_parts >= 1 && p->parts[0].pkey == VF_PKEY_DEFAULT,
		      "partition 0 is not the default one");
	VF_FUZZ_CHECK(p->num_vfs == c->num_vfs, "plan has %u VFs, config %u",
		      p->num_vfs, c->num_vfs);
	for (unsigned i = 0; i < p->num_parts; i++) {
		const struct vf_partition *pt = &p->parts[i];

		VF_FUZZ_CHECK(pt->pkey && pt->pkey <= 0x7fff,
			      "partition %u has P_Key 0x%x", i, pt->pkey);
		for (unsigned j = 0; j < pt->num_members; j++)
			VF_FUZZ_CHECK(pt->members[j].port < f->num_ports,
				      "member slot %u out of the fabric",
				      pt->members[j].port);
	}
	for (unsigned i = 0; i < p->num_vfs; i++)
		VF_FUZZ_CHECK(p->vf_pkey[i] <= 0x7fff && p->vf_sl[i] < 16,
			      "VF %u: P_Key 0x%x SL %d", i, p->vf_pkey[i],
			      p->vf_sl[i]);
}

void vf_fuzz_resolve(struct vf_config *c)
{
	const struct vf_fabric *f = vf_fuzz_fabric(1);
	struct vf_plan_opts o = { 0 };
	struct vf_assignment a = { 0 };
	struct vf_resolution r;
	struct vf_em_plan em = { 0 };
	struct vf_diag d = { 0 };
	struct vf_qos_prog q;
	struct vf_plan plan;
	struct vf_sa_policy *pol;

	if (vf_resolve(&r, c, f, VF_NONE))
		goto out;
	if (vf_plan_build(&r, &o, &a, &plan, &d)) {
		vf_resolution_free(&r);
		goto out;
	}
	check_plan(c, f, &plan);
	memset(&q, 0, sizeof(q));
	vf_qos_build(c, &plan, &q, &d);
	pol = vf_sa_policy_build(c, &r, &plan, VF_PATHSEL_MINIMAL);
	VF_FUZZ_CHECK(pol, "no SA policy (out of memory?)");
	vf_sa_policy_release(pol);
	vf_em_plan_build(c, f, &r.dg, plan.vf_pkey, plan.vf_sl, VF_NONE, &em,
			 &d);
	vf_em_plan_free(&em);
	vf_resolution_free(&r);
	vf_plan_free(&plan);
out:
	vf_assignment_free(&a);
	vf_diag_free(&d);
	vf_config_release(c);
}
