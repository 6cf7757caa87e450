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

#include "partition/emit.h"
#include "partition/load.h"
#include "partition/plan.h"
#include "routing/netfile.h"
#include "fabrics.h"
#include "taptest.h"
#include "planon.h"

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

	OK(!load("stock.conf",
		 "# a stock file\n"
		 "Default=0x7fff, ipoib : ALL=full ;\n"
		 "storage=0x8002, ipoib, mtu=4, rate=7, sl=1, scope=2 :\n"
		 "\t0x0002c90300000011=full, 0x0002c90300000021,\n"
		 "\tmgid=ff12:401b::2, sl=2, Q_Key=0x11\n"
		 "\t0x0002c90300000031=b ;\n"
		 "empty=0x0005 : ; lone : SELF=full\n", &c, &d, &vfabric),
	   "a stock partitions.conf loads");
	OK(!vfabric, "and is recognised as stock (no vFabric statement)");
	OK(c.stock_file, "read with stock OpenSM's meaning (pconfstock.c)");
	EQ_U(c.num_vfs, 4, "four partitions");
	def = vf(&c, "Default");
	st = vf(&c, "storage");
	OK(def && def->pkey == 0x7fff && def->num_pc_entries == 3 &&
	   def->pc_entries[0].select == VF_PC_ALL &&
	   def->pc_entries[0].membership == VF_MEMBER_LIMITED &&
	   def->pc_entries[1].select == VF_PC_SELF &&
	   def->pc_entries[2].membership == VF_MEMBER_FULL,
	   "Default: OpenSM's ALL=limited, SELF=full, then the file's ALL=full");
	OK(st && st->pkey == 2, "storage: P_Key 0x8002 taken as 0x0002");
	OK(st && st->num_pc_entries == 3 &&
	   st->pc_entries[0].guid == 0x0002c90300000011ull &&
	   st->pc_entries[0].membership == VF_MEMBER_FULL &&
	   st->pc_entries[1].membership == VF_MEMBER_LIMITED &&
	   st->pc_entries[2].membership == VF_MEMBER_BOTH,
	   "storage: =full, a bare member limited, =b a prefix of both");
	EQ_U(c.num_pc_groups, 3, "three groups: two broadcast, one mgid=");
	OK(c.num_pc_groups == 3 &&
	   c.pc_groups[1].mgid_hi == 0xff12401b80020000ull &&
	   c.pc_groups[1].rate == 7 && c.pc_groups[1].sl == 0 &&
	   c.pc_groups[1].qkey == 0x0b1b && c.pc_groups[1].scope == 2,
	   "storage's broadcast group: its P_Key, rate 7, SL 0 (no qos)");
	OK(c.num_pc_groups == 3 &&
	   c.pc_groups[2].mgid_hi == 0xff12401b80020000ull &&
	   c.pc_groups[2].mgid_lo == 2 && c.pc_groups[2].sl == 2 &&
	   c.pc_groups[2].qkey == 0x11,
	   "mgid=ff12:401b::2: the P_Key filled in, its own sl and Q_Key");
	OK(vf(&c, "empty") && vf(&c, "empty")->num_pc_entries == 0 &&
	   vf(&c, "lone") && vf(&c, "lone")->pkey == 1,
	   "an empty partition, and one without P_Key (generated: 0x0001) or ';' at the end");
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
	OK(s && s->num_pc_entries == 1 &&
	   s->pc_entries[0].select == VF_PC_GROUP &&
	   !strcmp(s->pc_entries[0].group, "Tenant") &&
	   s->pc_entries[0].membership == VF_MEMBER_FULL,
	   "@Tenant=full: an entry naming the group");
	vf_diag_free(&d);
	vf_config_free(&c);
}

static const struct {
	const char *what, *text, *expect;
} bad[] = {
	{ "a statement without ':'", "Default=0x7fff ALL=full ;\n",
	  "bad.conf:1: no partition definition (no ':')" },
	{ "a bad port GUID", "\np=0x10 : 0xzz=full ;\n",
	  "bad.conf:2: bad PortGUID" },
	{ "a P_Key that is no number", "p=zz : ALL ;\n",
	  "bad.conf:1: bad partition definition" },
	{ "a file without a statement", "# nothing\n\n",
	  "bad.conf: defines no VirtualFabric or partition" },
	{ "a ';' on its own line after a short one",
	  "p=0x10 : ALL ;\n;\n", "bad.conf:2: no partition definition" },
	{ "an mgid= item that makes OpenSM read what no line wrote",
	  "p=0x10 : mgid=ff12::1\n", "bad.conf:1: stock OpenSM would read memory" },
	{ "a bad member in a vFabric file",
	  "DeviceGroup G : type=CA ;\np=0x10 :\n  @G=full, cn01 ;\n",
	  "bad.conf:3: partition 'p': not a port GUID or member keyword 'cn01'" },
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

/* What stock OpenSM only warns about: the same, with a warning. */
static void test_tolerated(void)
{
	struct vf_config c;
	struct vf_diag d;
	bool vfabric;
	const struct vf_cfg_vf *p;

	OK(!load("tol.conf", "p=0x8000, ipob, mtu=x :\n"
		 "  0x0002c90300000011=owner, ,NONE, A=f ;\n", &c, &d, &vfabric),
	   "tolerated by OpenSM: accepted");
	p = vf(&c, "p");
	OK(p && p->pkey == 1, "P_Key 0x8000 has no partition bits: generated, as OpenSM");
	OK(p && p->num_pc_entries == 2 &&
	   p->pc_entries[0].membership == VF_MEMBER_LIMITED &&
	   p->pc_entries[1].select == VF_PC_ALL &&
	   p->pc_entries[1].membership == VF_MEMBER_FULL,
	   "=owner is limited, empty and NONE items nothing, A=f is ALL=full");
	OK(said(&d, "tol.conf:2: unknown membership 'owner'", NULL) &&
	   said(&d, "tol.conf:1: unknown partition flag 'ipob'", NULL),
	   "each tolerated typo warned with file and line");
	vf_diag_free(&d);
	vf_config_free(&c);
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

/*
 * The same policy in both syntaxes gives the same plan (the XML's
 * application All takes the IPoIB MGIDs; a partitions.conf says ipoib).
 */
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
		"T1=0x0010, ipoib, mtu=4 : @A=full, @B ;\n"
		"T2, ipoib : @B=full ;\n";
	struct vf_fabric *f = golden_fabric("ft2-4x4.net");
	struct vf_plan_opts o = { 0 };
	uint32_t sm;
	struct vf_plan px, pc;
	struct vf_config cx, cc;
	struct vf_assignment ax = { 0 }, ac = { 0 };
	struct vf_diag d;
	bool vfabric, same;

	if (!OK(f != NULL, "load the 4x4 tree"))
		return;
	sm = f->nodes[vf_fabric_find_name(f, "cn0016")].first_port + 1;
	OK(!load("eq.xml", xml, &cx, &d, &vfabric) &&
	   !plan_on(&cx, f, sm, &o, &ax, &px, &d), "plan the XML");
	vf_diag_free(&d);
	OK(!load("eq.conf", conf, &cc, &d, &vfabric) &&
	   !plan_on(&cc, f, sm, &o, &ac, &pc, &d), "plan the partitions.conf");
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

/* Port slot port's membership of the partition with pkey in p. */
static uint8_t member(const struct vf_plan *p, uint16_t pkey, uint32_t port)
{
	for (unsigned k = 0; k < p->num_parts; k++)
		for (unsigned i = 0; p->parts[k].pkey == pkey &&
		     i < p->parts[k].num_members; i++)
			if (p->parts[k].members[i].port == port)
				return p->parts[k].members[i].membership;
	return VF_MEMBER_NONE;
}

static uint32_t host_port(const struct vf_fabric *f, const char *name)
{
	return f->nodes[vf_fabric_find_name(f, name)].first_port + 1;
}

/*
 * A vFabric partitions.conf: its partition statements keep stock OpenSM's
 * meaning (issue 14, point 3): split definitions, the last entry for a
 * port wins, prefixes, a repeated name without P_Key, no group without
 * ipoib.
 */
static void test_extended_rules(void)
{
	struct vf_fabric *f = golden_fabric("ft2-4x4.net");
	struct vf_plan_opts o = { 0 };
	struct vf_assignment a = { 0 };
	struct vf_config c;
	struct vf_diag d;
	struct vf_plan p;
	char text[1024], *out = NULL;
	size_t len = 0;
	FILE *mem;
	bool vfabric, ok = true;
	uint16_t t2 = 0;

	if (!OK(f != NULL, "load the 4x4 tree"))
		return;
	snprintf(text, sizeof(text),
		 "DeviceGroup A : desc=cn000[1-4]* ;\n"
		 "DeviceGroup B : desc=cn000[5-8]* ;\n"
		 "T1=0x0010, i : @A=full, @B ;\n"
		 "T1=0x8010 : @B=f, 0x%016llx=l ;\n"
		 "T2, d=full : @A ;\n"
		 "T2 : @A=lim ;\n"
		 "Default=0x7fff : SELF=limited ;\n",
		 (unsigned long long)f->ports[host_port(f, "cn0001")].guid);
	if (!OK(!load("ext.conf", text, &c, &d, &vfabric) && vfabric &&
		!plan_on(&c, f, host_port(f, "cn0016"), &o, &a, &p, &d),
		"plan a vFabric partitions.conf with split statements"))
		goto out;
	EQ_U(p.num_parts, 3, "three partitions: Default, T1 (two statements), T2 (two)");
	OK(member(&p, 0x10, host_port(f, "cn0001")) == VF_MEMBER_LIMITED &&
	   member(&p, 0x10, host_port(f, "cn0002")) == VF_MEMBER_FULL &&
	   member(&p, 0x10, host_port(f, "cn0005")) == VF_MEMBER_FULL,
	   "T1: a later entry for a port overrides an earlier one (cn0001 limited, B full)");
	for (unsigned k = 0; k < p.num_parts; k++)
		if (p.parts[k].pkey != 0x10 && p.parts[k].pkey != 0x7fff)
			t2 = p.parts[k].pkey;
	for (int i = 1; i <= 4; i++) {
		char name[8];

		snprintf(name, sizeof(name), "cn%04d", i);
		ok &= member(&p, t2, host_port(f, name)) == VF_MEMBER_LIMITED;
	}
	OK(t2 && ok, "T2 named twice without P_Key: one partition, A limited (the last entry), not full");
	OK(member(&p, 0x7fff, host_port(f, "cn0016")) == VF_MEMBER_LIMITED &&
	   member(&p, 0x7fff, host_port(f, "cn0003")) == VF_MEMBER_LIMITED,
	   "Default: OpenSM's SELF=full overridden by the file's SELF=limited");
	mem = open_memstream(&out, &len);
	vf_emit_partitions(mem, &p, f, "ext.conf");
	fclose(mem);
	OK(out && !strstr(out, "rate=22") && strstr(out, "ipoib"),
	   "no join-blocking broadcast group for a partition without ipoib");
	free(out);
	ok = true;
	for (unsigned k = 0; k < p.num_parts; k++)
		ok &= p.parts[k].ipoib == (p.parts[k].pkey == 0x10);
	OK(ok, "IPoIB only where a statement says ipoib (T1), not from app='s default of every application (T2, Default)");
	vf_plan_free(&p);
out:
	vf_assignment_free(&a);
	vf_config_free(&c);
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
	test_tolerated();
	test_hostile();
	test_equivalence();
	test_extended_rules();
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		printf("# could not remove %s\n", tmpdir);
	return tap_done();
}
