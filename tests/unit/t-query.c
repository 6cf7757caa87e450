// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Which VFs answer a PathRecord query (reference/opa-fm.md 2.1, 8.3), on
 * the golden 4x4 tree: cn0001-cn0008 are tenant A, cn0009-cn0016 B.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "partition/query.h"
#include "partition/internal/xmlconf.h"
#include "fabrics.h"
#include "taptest.h"
#include "planon.h"

static const char config[] =
	"<Config><Common><Applications>"
	"<Application><Name>Lustre</Name><ServiceID>0x10603DB</ServiceID></Application>"
	"<Application><Name>Other</Name><Select>UnmatchedServiceID</Select></Application>"
	"<Application><Name>Storage</Name><IncludeApplication>Lustre</IncludeApplication></Application>"
	"</Applications><DeviceGroups>"
	"<DeviceGroup><Name>A</Name><NodeDesc>cn000[1-8]*</NodeDesc></DeviceGroup>"
	"<DeviceGroup><Name>B</Name><NodeDesc>cn00[09-16]*</NodeDesc></DeviceGroup>"
	"</DeviceGroups><VirtualFabrics>"
	/* 0: everything else, everybody */
	"<VirtualFabric><Name>Default</Name><Enable>1</Enable><PKey>0x0001</PKey>"
	"<Member>A</Member><Member>B</Member><Application>Other</Application></VirtualFabric>"
	/* 1: storage for A, limited B */
	"<VirtualFabric><Name>StorA</Name><Enable>1</Enable><PKey>0x0010</PKey>"
	"<Security>1</Security><Member>A</Member><LimitedMember>B</LimitedMember>"
	"<Application>Storage</Application><MaxMTU>2048</MaxMTU>"
	"<QOS>1</QOS><BaseSL>2</BaseSL><PktLifeTimeMult>4</PktLifeTimeMult></VirtualFabric>"
	/* 2: the same P_Key and QoS (so the same SL: the FM's implicit QoS
	 * group), a lower MTU: folded into StorA */
	"<VirtualFabric><Name>StorA2</Name><Enable>1</Enable><PKey>0x0010</PKey>"
	"<Security>1</Security><Member>A</Member>"
	"<Application>Lustre</Application><MaxMTU>1024</MaxMTU>"
	"<QOS>1</QOS><BaseSL>2</BaseSL><PktLifeTimeMult>4</PktLifeTimeMult></VirtualFabric>"
	"</VirtualFabrics></Common></Config>";

struct world {
	struct vf_config c;
	struct vf_fabric *f;
	struct vf_plan p;
	struct vf_dg_members m;
};

static uint32_t host(const struct vf_fabric *f, unsigned n)
{
	char name[16];

	snprintf(name, sizeof(name), "cn%04u", n);
	return f->nodes[vf_fabric_find_name(f, name)].first_port + 1;
}

static bool load(struct world *w)
{
	char path[] = "/tmp/t-query-XXXXXX";
	struct vf_plan_opts o = { 0 };
	struct vf_assignment a = { 0 };
	struct vf_diag d = { 0 };
	FILE *fp;
	bool ok;

	close(mkstemp(path));
	fp = fopen(path, "w");
	fputs(config, fp);
	fclose(fp);
	vf_config_init(&w->c);
	w->f = golden_fabric("ft2-4x4.net");
	ok = w->f && !vf_xml_load(path, &w->c, &d) && !d.errors &&
	     !vf_config_validate(&w->c, &d) &&
	     !plan_on(&w->c, w->f, VF_NONE, &o, &a, &w->p, &d) &&
	     !vf_dg_resolve(&w->c, w->f, VF_NONE, &w->m);
	for (unsigned i = 0; !ok && i < d.n; i++)
		printf("#   %s\n", d.v[i].text);
	unlink(path);
	vf_assignment_free(&a);
	vf_diag_free(&d);
	return ok;
}

static struct vf_path_answers ask(struct world *w, unsigned src, unsigned dst,
				  int sid, int pkey, int sl)
{
	struct vf_path_query q = { 0, 1, sid >= 0, sid >= 0 ? 0x10603DB : 0,
				   pkey, sl };
	uint32_t slots[2] = { host(w->f, src), host(w->f, dst) };
	struct vf_path_policy p = { &w->c, w->p.vf_pkey, w->p.vf_sl, NULL };
	struct vf_path_answers a;
	uint8_t *rows;

	memset(&a, 0, sizeof(a));
	if (src == dst)		/* a loopback: one port, one row */
		q.dst = 0;
	if (vf_vf_members_build(&w->c, &w->m, slots, 2, &rows))
		return a;
	p.member = rows;
	if (vf_path_vfs(&p, &q, true, &a))
		memset(&a, 0, sizeof(a));
	free(rows);
	return a;
}

int main(void)
{
	struct world w;
	struct vf_path_answers a;

	if (!OK(load(&w), "load the config and the 4x4 tree"))
		return tap_done();
	EQ_U(vf_vf_membership(&w.c, &w.m, 1, host(w.f, 9)), VF_MEMBER_LIMITED,
	     "cn0009 is a limited member of StorA");

	a = ask(&w, 1, 2, 1, -1, -1);
	OK(a.n == 1 && a.v[0].pkey == 0x10 && a.v[0].sl == 2,
	   "Lustre's ServiceID between A hosts: StorA (P_Key 0x0010, SL 2)");
	OK(a.n == 1 && a.v[0].mtu == 1024 && a.v[0].life_exp == 2,
	   "StorA2 folded in: the lower MTU (1024); lifetime x4 -> +2");
	OK(a.trace.n && strstr(a.trace.v[0], "VirtualFabric 'StorA' lists ServiceID"),
	   "explained: the explicit listing sets the unmatched Default aside");
	vf_path_answers_free(&a);

	a = ask(&w, 9, 1, 1, -1, -1);
	OK(a.n == 1 && a.v[0].vf == 1,
	   "from limited B to full A: StorA answers (one side full)");
	vf_path_answers_free(&a);

	a = ask(&w, 9, 10, 1, -1, -1);
	OK(a.n == 0, "between two limited members: no path, and no fallback "
	   "to Default (the ServiceID is listed elsewhere)");
	vf_path_answers_free(&a);

	a = ask(&w, 9, 9, 1, -1, -1);
	OK(a.n == 1 && a.v[0].vf == 1,
	   "loopback of a limited member (cn0009 to itself, Lustre's "
	   "ServiceID): StorA answers, as the FM (2.1 step 5: unless "
	   "src==dst)");
	vf_path_answers_free(&a);

	a = ask(&w, 9, 10, -1, -1, -1);
	OK(a.n == 1 && a.v[0].pkey == 1,
	   "no ServiceID: every VF a candidate; B to B gets Default");
	vf_path_answers_free(&a);

	a = ask(&w, 1, 2, -1, 0x10, -1);
	OK(a.n == 1 && a.v[0].pkey == 0x10, "the query's P_Key narrows to StorA");
	vf_path_answers_free(&a);

	a = ask(&w, 1, 2, -1, -1, 5);
	OK(a.n == 0, "an SL no VF has: no answer");
	vf_path_answers_free(&a);

	vf_dg_members_free(&w.m);
	vf_plan_free(&w.p);
	vf_config_free(&w.c);
	vf_fabric_destroy(w.f);
	return tap_done();
}
