// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The partitions.conf front-end: stock OpenSM files keep their meaning
 * (and are recognised as stock), vFabric statements and extensions, bad
 * and hostile input, and the equivalence of an XML configuration and a
 * partitions.conf saying the same: identical plans.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "partition/load.h"
#include "partition/plan.h"
#include "routing/netfile.h"
#include "fabrics.h"
#include "tap.h"

static char tmpdir[] = "/tmp/t-pconf-XXXXXX";

static const char *write_file(const char *name, const char *text)
{
	static char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	return path;
}

/* Load text as name; returns vf_config_load's result. */
static int load(const char *name, const char *text, struct vf_config *c,
		struct vf_diag *d, bool *vfabric)
{
	*d = (struct vf_diag){ 0 };
	return vf_config_load(write_file(name, text), c, d, vfabric);
}

static bool said(const struct vf_diag *d, const char *a, const char *b)
{
	for (unsigned i = 0; i < d->n; i++)
		if (strstr(d->v[i].text, a) && (!b || strstr(d->v[i].text, b)))
			return true;
	return false;
}

static const struct vf_cfg_vf *vf(const struct vf_config *c, const char *n)
{
	for (unsigned i = 0; i < c->num_vfs; i++)
		if (!strcmp(c->vfs[i].name, n))
			return &c->vfs[i];
	return NULL;
}

static void test_stock(void)
{
	struct vf_config c;
	struct vf_diag d;
	bool vfabric = true;
	const struct vf_cfg_vf *st, *def;
	const struct vf_cfg_dg *full;

	OK(!load("stock.conf",
		 "# a stock file\n"
		 "Default=0x7fff, ipoib : ALL=full ;\n"
		 "storage=0x8002, ipoib, mtu=4, rate=7, sl=1, scope=2 :\n"
		 "\t0x0002c90300000011=full, 0x0002c90300000021,\n"
		 "\tmgid=ff12:401b::2, sl=2, Q_Key=0x11\n"
		 "\t0x0002c90300000031=b ;\n"
		 "empty=0x0005 : ; lone : SELF=full\n", &c, &d, &vfabric),
	   "a stock partitions.conf loads");
	OK(!vfabric, "and is recognised as stock (left to OpenSM)");
	EQ_U(c.num_vfs, 4, "four partitions");
	def = vf(&c, "Default");
	st = vf(&c, "storage");
	OK(def && def->pkey == 0x7fff && def->ipoib && def->members.n == 1,
	   "Default=0x7fff, ipoib : ALL=full");
	OK(st && st->pkey == 2, "storage: P_Key 0x8002 taken as 0x0002");
	OK(st && st->max_mtu == 2048 && st->max_rate == 7,
	   "mtu=4 is 2048 bytes, rate=7 kept");
	OK(st && st->raw_flags && !strcmp(st->raw_flags, ", sl=1, scope=2"),
	   "sl and scope passed on as written");
	OK(st && st->mgid_lines.n == 1 &&
	   !strcmp(st->mgid_lines.v[0], "mgid=ff12:401b::2, sl=2, Q_Key=0x11"),
	   "an mgid= definition takes the rest of its line");
	full = vf_config_dg(&c, "storage#full");
	OK(full && full->port_guids.n == 1 &&
	   full->port_guids.v[0] == 0x0002c90300000011ull,
	   "=full member in the partition's full group");
	OK(vf_config_dg(&c, "storage#limited") &&
	   vf_config_dg(&c, "storage#limited")->port_guids.n == 1,
	   "a bare member is limited (OpenSM's default)");
	OK(vf_config_dg(&c, "storage#both") && st->both.n == 1,
	   "=b is a prefix of both, as OpenSM reads it");
	OK(vf(&c, "empty") && vf(&c, "lone") && vf(&c, "lone")->pkey == -1,
	   "an empty partition, and one without P_Key or ';' at the end");
	OK(c.stock_defaults, "OpenSM's own default-partition rules apply");
	vf_diag_free(&d);
	vf_config_free(&c);
}

static void test_extended(void)
{
	struct vf_config c;
	struct vf_diag d;
	bool vfabric = false;
	const struct vf_cfg_vf *s;
	const struct vf_cfg_dg *g;

	OK(!load("vf.conf",
		 "DeviceGroup Tenant : desc=\"cn[0001-0006]*\", 0x0002c9030000fff1, type=CA ;\n"
		 "Application Lustre : sid=0x10603DB, sidrange=0x1060000-0x106ffff ;\n"
		 "storage, app=Lustre, qos=1, basesl=2, bandwidth=20% : @Tenant=full ;\n",
		 &c, &d, &vfabric), "a partitions.conf with vFabric statements loads");
	OK(vfabric, "and is recognised as using them");
	g = vf_config_dg(&c, "Tenant");
	OK(g && g->num_descs == 1 && g->port_guids.n == 1 &&
	   g->node_types == VF_DG_TYPE_CA,
	   "DeviceGroup: a quoted NodeDesc pattern, a GUID, a type");
	OK(vf_config_app(&c, "Lustre") &&
	   vf_config_app(&c, "Lustre")->num_sids == 2, "Application: two rules");
	s = vf(&c, "storage");
	OK(s && s->apps.n == 1 && s->qos.enable && s->qos.base_sl == 2 &&
	   s->qos.bandwidth == 20, "partition with app, qos, basesl, bandwidth");
	OK(vf_config_dg(&c, "storage#full") &&
	   vf_config_dg(&c, "storage#full")->includes.n == 1,
	   "@Tenant=full includes the group");
	vf_diag_free(&d);
	vf_config_free(&c);
}

static const struct {
	const char *what, *text, *expect;
} bad[] = {
	{ "a statement without ':'", "Default=0x7fff ALL=full ;\n",
	  "bad.conf:1: partitions.conf: no ':'" },
	{ "a bad port GUID", "\np=0x10 : 0xzz=full ;\n",
	  "bad.conf:2: partition 'p': not a port GUID or member keyword '0xzz'" },
	{ "a bad membership", "p=0x10 :\n  0x0002c90300000011=owner ;\n",
	  "bad.conf:2: partition 'p': membership is full, limited or both, not 'owner'" },
	{ "a P_Key of 0", "p=0x8000 : ALL ;\n",
	  "bad.conf:1: partition 'p': P_Key must be 0x0001-0xffff, not '0x8000'" },
	{ "an unknown device group", "p=0x10 : @Nobody=full ;\n",
	  "bad.conf:1: partition 'p': full member '@Nobody' names unknown DeviceGroup 'Nobody'" },
	{ "a bad NodeDesc pattern", "DeviceGroup G : desc=cn/1 ;\n",
	  "bad.conf:1: DeviceGroup 'G': column 3" },
	{ "an unknown item", "Application A : port=1 ;\n",
	  "bad.conf:1: Application 'A': unknown item 'port'" },
	{ "a bad select", "DeviceGroup G : select=Everyone ;\n",
	  "DeviceGroup 'G': select is All" },
	{ "an application cycle",
	  "Application A : include=B ;\nApplication B : include=A ;\n",
	  "include cycle" },
	{ "an SL used twice: partitions named as written",
	  "a=0x10, qos=1, basesl=2 : ALL ;\n"
	  "b=0x20, qos=1, basesl=2, bandwidth=10% : ALL ;\n",
	  "bad.conf:2: partition 'b': SL 2 already in use by partition 'a'" },
	{ "Bandwidth a sweep could not give: refused when read",
	  "a=0x10, qos=1, bandwidth=96% : ALL ;\nb=0x20 : ALL ;\n",
	  "bad.conf:1: QoS: explicit Bandwidth adds up to 96% ('a' 96%); need 5% available bandwidth" },
};

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct vf_config c;
		struct vf_diag d;
		bool vfabric;
		char what[160];
		int rc = load("bad.conf", bad[i].text, &c, &d, &vfabric);
		bool ok = rc == 1 && said(&d, bad[i].expect, NULL);

		snprintf(what, sizeof(what), "rejected, naming file, line and object: %s",
			 bad[i].what);
		if (!OK(ok, what))
			for (unsigned j = 0; j < d.n; j++)
				printf("#   %s\n", d.v[j].text);
		vf_diag_free(&d);
		vf_config_free(&c);
	}
}

/* Random bytes, a huge line, an unterminated quote: an answer, no crash. */
static void test_hostile(void)
{
	size_t size = 1 << 20;
	char *text = malloc(size + 1);
	unsigned seed = 7, loaded = 0;
	bool vfabric;

	for (int round = 0; round < 50; round++) {
		struct vf_config c;
		struct vf_diag d;

		for (size_t i = 0; i < 4096; i++) {
			seed = seed * 1103515245 + 12345;
			text[i] = " :;,=@\"#\nab0x1ALLfullDeviceGroup"[seed >> 16 & 31];
		}
		text[4096] = '\0';
		loaded += load("fuzz.conf", text, &c, &d, &vfabric) >= 0;
		vf_diag_free(&d);
		vf_config_free(&c);
	}
	EQ_U(loaded, 50, "50 random files: each read to an answer");
	memset(text, 'x', size);
	memcpy(text, "p=0x10 : \"", 10);
	text[size] = '\0';
	{
		struct vf_config c;
		struct vf_diag d;

		OK(load("huge.conf", text, &c, &d, &vfabric) == 1,
		   "a 1 MiB line with an unterminated quote: an error");
		vf_diag_free(&d);
		vf_config_free(&c);
	}
	free(text);
}

static bool same_partition(const struct vf_partition *a,
			   const struct vf_partition *b)
{
	if (a->pkey != b->pkey || a->ipoib != b->ipoib || a->mtu != b->mtu ||
	    a->rate != b->rate || a->sl != b->sl ||
	    a->num_members != b->num_members || strcmp(a->name, b->name))
		return false;
	for (unsigned i = 0; i < a->num_members; i++)
		if (a->members[i].port != b->members[i].port ||
		    a->members[i].membership != b->members[i].membership)
			return false;
	return true;
}

/* The same policy in both syntaxes gives the same plan. */
static void test_equivalence(void)
{
	static const char xml[] =
		"<Config><Common><DeviceGroups>"
		"<DeviceGroup><Name>A</Name><NodeDesc>cn000[1-4]*</NodeDesc></DeviceGroup>"
		"<DeviceGroup><Name>B</Name><NodeDesc>cn000[5-8]*</NodeDesc></DeviceGroup>"
		"</DeviceGroups><VirtualFabrics>"
		"<VirtualFabric><Name>Default</Name><Enable>1</Enable><PKey>0x7fff</PKey>"
		"<Member>All</Member><Application>All</Application></VirtualFabric>"
		"<VirtualFabric><Name>T1</Name><Enable>1</Enable><PKey>0x0010</PKey>"
		"<Security>1</Security><Member>A</Member><LimitedMember>B</LimitedMember>"
		"<Application>All</Application><MaxMTU>2048</MaxMTU></VirtualFabric>"
		"<VirtualFabric><Name>T2</Name><Enable>1</Enable><Security>1</Security>"
		"<Member>B</Member><Application>All</Application></VirtualFabric>"
		"</VirtualFabrics></Common></Config>\n";
	static const char conf[] =
		"DeviceGroup A : desc=cn000[1-4]* ;\n"
		"DeviceGroup B : desc=cn000[5-8]* ;\n"
		"Default=0x7fff, ipoib : ALL=full ;\n"
		"T1=0x0010, mtu=4 : @A=full, @B ;\n"
		"T2 : @B=full ;\n";
	struct vf_fabric *f = golden_fabric("ft2-4x4.net");
	struct vf_plan_opts o = { .sm_port = VF_NONE };
	struct vf_plan px, pc;
	struct vf_config cx, cc;
	struct vf_assignment ax = { 0 }, ac = { 0 };
	struct vf_diag d;
	bool vfabric, same;

	if (!OK(f != NULL, "load the 4x4 tree"))
		return;
	o.sm_port = f->nodes[vf_fabric_find_name(f, "cn0016")].first_port + 1;
	OK(!load("eq.xml", xml, &cx, &d, &vfabric) &&
	   !vf_plan_build(&cx, f, &o, &ax, &px, &d), "plan the XML");
	vf_diag_free(&d);
	OK(!load("eq.conf", conf, &cc, &d, &vfabric) &&
	   !vf_plan_build(&cc, f, &o, &ac, &pc, &d), "plan the partitions.conf");
	same = px.num_parts == pc.num_parts;
	for (unsigned k = 0; same && k < px.num_parts; k++)
		same = same_partition(&px.parts[k], &pc.parts[k]);
	OK(same, "both syntaxes give the same partitions, P_Keys, members, flags");
	OK(px.num_parts == 3 && px.parts[2].pkey == pc.parts[2].pkey &&
	   px.parts[2].pkey != 0, "including T2's automatic P_Key");
	vf_plan_free(&px);
	vf_plan_free(&pc);
	vf_assignment_free(&ax);
	vf_assignment_free(&ac);
	vf_config_free(&cx);
	vf_config_free(&cc);
	vf_diag_free(&d);
	vf_fabric_destroy(f);
}

int main(void)
{
	char cmd[64];

	if (!mkdtemp(tmpdir))
		return 1;
	test_stock();
	test_extended();
	test_bad();
	test_hostile();
	test_equivalence();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		printf("# could not remove %s\n", tmpdir);
	return tap_done();
}
