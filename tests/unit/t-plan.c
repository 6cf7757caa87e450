// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Automatic P_Key/SL assignment (stable across restarts and edits) and the
 * partition plan (default partition rules, memberships, capacity), on the
 * golden 4x4 fat tree: 16 hosts cn0001-cn0016, 4 per leaf.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "partition/emit.h"
#include "partition/plan.h"
#include "partition/internal/xmlconf.h"
#include "routing/netfile.h"
#include "fabrics.h"
#include "taptest.h"
#include "planon.h"

#define HEAD "<Config><Common><Applications>" \
	"<Application><Name>Any</Name><Select>UnmatchedServiceID</Select></Application>" \
	"</Applications><DeviceGroups>" \
	"<DeviceGroup><Name>A</Name><NodeDesc>cn000[1-4]*</NodeDesc></DeviceGroup>" \
	"<DeviceGroup><Name>B</Name><NodeDesc>cn000[5-8]*</NodeDesc></DeviceGroup>" \
	"</DeviceGroups><VirtualFabrics>"
#define TAIL "</VirtualFabrics></Common></Config>"
/* HEAD whose application Any also takes every MGID no other one lists,
 * so that a VF's <MulticastGroup>s are its own (the FM's rule) */
#define HEADM "<Config><Common><Applications>" \
	"<Application><Name>Any</Name><Select>UnmatchedServiceID</Select>" \
	"<Select>UnmatchedMGID</Select></Application>" \
	"</Applications><DeviceGroups>" \
	"<DeviceGroup><Name>A</Name><NodeDesc>cn000[1-4]*</NodeDesc></DeviceGroup>" \
	"<DeviceGroup><Name>B</Name><NodeDesc>cn000[5-8]*</NodeDesc></DeviceGroup>" \
	"</DeviceGroups><VirtualFabrics>"
#define VF(name, body) "<VirtualFabric><Name>" name "</Name><Enable>1</Enable>" \
	"<Application>Any</Application>" body "</VirtualFabric>"

static char tmpdir[] = "/tmp/t-plan-XXXXXX";

/* The documented start of a new P_Key: 1 + FNV-1a(name) mod 0x7ffe. */
static uint16_t hashed(const char *name)
{
	uint32_t h = 2166136261u;

	while (*name)
		h = (h ^ (unsigned char)*name++) * 16777619u;
	return (uint16_t)(1 + h % 0x7ffe);
}

/* Parse and validate text as a config; false (and the messages) on errors. */
static bool load(const char *text, struct vf_config *c)
{
	char path[256];
	struct vf_diag d = { 0 };
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "%s/vf.xml", tmpdir);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	vf_config_init(c);
	vf_xml_load(path, c, &d);
	if (!d.errors)
		vf_config_validate(c, &d);
	ok = !d.errors;
	for (unsigned i = 0; !ok && i < d.n; i++)
		printf("#   %s\n", d.v[i].text);
	vf_diag_free(&d);
	return ok;
}

static int assign_text(const char *text, struct vf_assignment *a,
		       uint16_t *pkeys, int *sls, struct vf_diag *d)
{
	struct vf_config c;
	unsigned errors;

	if (!load(text, &c))
		return -1;
	errors = vf_assign(&c, a, pkeys, sls, d);
	vf_config_free(&c);
	return (int)errors;
}

static void test_assign(void)
{
	struct vf_assignment a = { 0 }, b = { 0 };
	struct vf_diag d = { 0 };
	uint16_t pk[8];
	int sl[8];
	char path[256], text[4096];

	OK(!assign_text(HEAD VF("S1", "<Security>1</Security><Member>A</Member>")
			VF("S2", "<Security>1</Security><Member>B</Member>")
			VF("Open1", "<Member>A</Member>")
			VF("Open2", "<Member>B</Member>")
			VF("Fixed", "<PKey>0x0003</PKey><Member>A</Member>") TAIL,
			&a, pk, sl, &d), "assign five VFs");
	OK(pk[0] == hashed("S1") && pk[1] == hashed("S2"),
	   "secure VFs: one P_Key each, from the hash of their names");
	OK(pk[2] == hashed(VF_ASSIGN_SHARED) && pk[3] == pk[2],
	   "insecure VFs share one P_Key");
	OK(pk[4] == 3, "explicit P_Key kept");
	OK(sl[0] == 0 && sl[4] == 0, "VFs without QoS share one SL");
	OK(a.changed, "the assignment changed (it was empty)");

	snprintf(path, sizeof(path), "%s/assign", tmpdir);
	OK(!vf_assignment_save(&a, path), "save it");
	OK(!vf_assignment_load(&b, path, &d) && b.n == a.n,
	   "load it back: the same entries");
	/* S1's remembered P_Key now explicit for another VF: S1 moves on */
	snprintf(text, sizeof(text), HEAD
		 VF("Mine", "<PKey>0x%04x</PKey><Member>B</Member>")
		 VF("S2", "<Security>1</Security><Member>B</Member>")
		 VF("S1", "<Security>1</Security><Member>A</Member>") TAIL,
		 hashed("S1"));
	OK(!assign_text(text, &b, pk, sl, &d), "assign after an edit");
	OK(pk[0] == hashed("S1") && pk[1] == hashed("S2"),
	   "the explicit P_Key wins; S2 keeps its own");
	EQ_U(pk[2], hashed("S1") + 1,
	     "S1 takes the next free P_Key after its hash");

	/* remembered values win over hashes: S1 keeps what it was given */
	snprintf(text, sizeof(text), HEAD
		 VF("S1", "<Security>1</Security><Member>A</Member>") TAIL);
	OK(!assign_text(text, &b, pk, sl, &d) && pk[0] == hashed("S1") + 1,
	   "S1 keeps its remembered P_Key though its hash is free again");
	vf_assignment_free(&a);
	vf_assignment_free(&b);
	vf_diag_free(&d);
}

static void test_sls(void)
{
	struct vf_assignment a = { 0 };
	struct vf_diag d = { 0 };
	uint16_t pk[20];
	int sl[20];
	char text[8192];
	size_t at = 0;

	OK(!assign_text(HEAD VF("Q1", "<QOS>1</QOS><BaseSL>0</BaseSL><Member>A</Member>")
			VF("Q2", "<QOS>1</QOS><Member>A</Member>")
			VF("Plain", "<Member>B</Member>") TAIL, &a, pk, sl, &d),
	   "assign SLs");
	OK(sl[0] == 0 && sl[1] == 1 && sl[2] == 2,
	   "explicit SL 0 kept; the QoS VF and the non-QoS ones take 1 and 2");
	vf_assignment_free(&a);

	at += (size_t)snprintf(text, sizeof(text), "%s", HEAD);
	for (int i = 0; i < 17; i++)
		at += (size_t)snprintf(text + at, sizeof(text) - at,
				       "<VirtualFabric><Name>Q%d</Name><Enable>1</Enable><Application>Any</Application><QOS>1</QOS><Member>A</Member></VirtualFabric>",
				       i);
	snprintf(text + at, sizeof(text) - at, "%s", TAIL);
	EQ_U(assign_text(text, &a, pk, sl, &d), 1,
	     "17 QoS VFs: one error, SLs exhausted");
	OK(d.n && strstr(d.v[d.n - 1].text, "VirtualFabric 'Q16': no SL left"),
	   "the error names the VF that got none");
	vf_assignment_free(&a);
	vf_diag_free(&d);
}

/* Host cn<n>'s port slot, and its membership in the partition of pkey. */
static uint32_t host(const struct vf_fabric *f, unsigned n)
{
	char name[16];

	snprintf(name, sizeof(name), "cn%04u", n);
	return f->nodes[vf_fabric_find_name(f, name)].first_port + 1;
}

static uint8_t member(const struct vf_plan *p, uint16_t pkey, uint32_t port)
{
	for (unsigned k = 0; k < p->num_parts; k++)
		for (unsigned i = 0; p->parts[k].pkey == pkey &&
		     i < p->parts[k].num_members; i++)
			if (p->parts[k].members[i].port == port)
				return p->parts[k].members[i].membership;
	return VF_MEMBER_NONE;
}

/* How a test plans: OpenSM's options, and where the SM is. */
struct test_opts {
	uint32_t sm_port;
	bool allow_both_pkeys, disconnect_unconfigured;
};

static int plan(const char *text, struct vf_fabric *f,
		const struct test_opts *t, struct vf_plan *p, struct vf_diag *d)
{
	struct vf_plan_opts o = {
		.allow_both_pkeys = t->allow_both_pkeys,
		.disconnect_unconfigured = t->disconnect_unconfigured,
	};
	struct vf_assignment a = { 0 };
	struct vf_config c;
	int rc;

	if (!load(text, &c))
		return -1;
	rc = plan_on(&c, f, t->sm_port, &o, &a, p, d);
	vf_assignment_free(&a);
	vf_config_free(&c);
	return rc;
}

static void test_plan(struct vf_fabric *f)
{
	struct test_opts o = { .sm_port = host(f, 16) };
	struct vf_diag d = { 0 };
	struct vf_plan p;
	const char *text = HEAD
		VF("T1", "<PKey>0x0010</PKey><Security>1</Security><Member>A</Member><LimitedMember>B</LimitedMember>")
		VF("T2", "<PKey>0x0020</PKey><Member>B</Member><LimitedMember>A</LimitedMember>")
		VF("T3", "<PKey>0x0010</PKey><Security>1</Security><Member>B</Member>") TAIL;

	OK(!plan(text, f, &o, &p, &d), "plan three VFs (two share 0x0010)");
	EQ_U(p.num_parts, 3, "default, 0x0010, 0x0020");
	EQ_U(member(&p, 0x7fff, host(f, 16)), VF_MEMBER_FULL,
	     "default: the SM's port full");
	EQ_U(member(&p, 0x7fff, host(f, 1)), VF_MEMBER_LIMITED,
	     "default: a configured host limited");
	EQ_U(member(&p, 0x7fff, host(f, 12)), VF_MEMBER_FULL,
	     "default: an unconfigured host full");
	EQ_U(member(&p, 0x7fff, f->nodes[f->switches[0]].first_port),
	     VF_MEMBER_FULL, "default: switch port 0 full");
	EQ_U(member(&p, 0x10, host(f, 1)), VF_MEMBER_FULL, "T1: A full");
	EQ_U(member(&p, 0x10, host(f, 5)), VF_MEMBER_FULL,
	     "0x0010: B limited in T1 but full in T3: full");
	EQ_U(member(&p, 0x20, host(f, 2)), VF_MEMBER_FULL,
	     "T2 has no Security: its LimitedMembers are full");
	EQ_U(member(&p, 0x10, host(f, 12)), VF_MEMBER_NONE,
	     "a host in no group is in no VF");
	vf_plan_free(&p);

	o.allow_both_pkeys = true;
	o.disconnect_unconfigured = true;
	OK(!plan(HEAD VF("T1", "<PKey>0x0010</PKey><Security>1</Security><Member>A</Member><LimitedMember>B</LimitedMember>")
		 VF("T3", "<PKey>0x0010</PKey><Security>1</Security><LimitedMember>A</LimitedMember>") TAIL,
		 f, &o, &p, &d), "plan with allow_both and disconnect");
	EQ_U(member(&p, 0x10, host(f, 1)), VF_MEMBER_FULL,
	     "full in one VF, limited in another: full (the FM's rule; both only for SR-IOV alias GUIDs)");
	EQ_U(member(&p, 0x10, host(f, 5)), VF_MEMBER_LIMITED,
	     "limited in one VF, not in the other of its P_Key: limited");
	EQ_U(member(&p, 0x7fff, host(f, 12)), VF_MEMBER_LIMITED,
	     "disconnect_unconfigured: an unconfigured host limited");
	vf_plan_free(&p);
	vf_diag_free(&d);
}

static void test_capacity(struct vf_fabric *f)
{
	struct test_opts o = { .sm_port = VF_NONE };
	struct vf_diag d = { 0 };
	struct vf_plan p;

	/* 3 entries: the default and two VFs fit, the third does not */
	for (uint32_t n = 0; n < f->num_nodes; n++)
		f->nodes[n].partition_cap = f->nodes[n].enforce_cap = 3;
	OK(!plan(HEAD VF("V1", "<PKey>0x0011</PKey><Member>A</Member>")
		 VF("V2", "<PKey>0x0012</PKey><Member>A</Member>")
		 VF("V3", "<PKey>0x0013</PKey><Member>A</Member>") TAIL,
		 f, &o, &p, &d), "plan three VFs on 3-entry tables");
	EQ_U(p.dropped, 4, "V3 dropped on A's 4 hosts");
	EQ_U(member(&p, 0x13, host(f, 1)), VF_MEMBER_NONE,
	     "the VF listed last is the one dropped");
	EQ_U(member(&p, 0x12, host(f, 1)), VF_MEMBER_FULL, "V2 kept");
	OK(d.n == 1 && strstr(d.v[0].text, "VirtualFabric 'V3' (P_Key 0x0013) dropped on 4 ports (e.g. 0x0002c90300000011 'cn0001 HCA-1' port 1): their P_Key tables hold 3 entries"),
	   "one line per VF: P_Key, how many ports, one of them, the capacity");
	for (unsigned i = 0; i < d.n; i++)
		printf("#   %s\n", d.v[i].text);
	vf_plan_free(&p);
	vf_diag_free(&d);

	/* cn0001 holds only 2: it loses V2 too; V3's ports differ in size */
	f->nodes[f->ports[host(f, 1)].node].partition_cap = 2;
	OK(!plan(HEAD VF("V1", "<PKey>0x0011</PKey><Member>A</Member>")
		 VF("V2", "<PKey>0x0012</PKey><Member>A</Member>")
		 VF("V3", "<PKey>0x0013</PKey><Member>A</Member>") TAIL,
		 f, &o, &p, &d), "plan again with a 2-entry table on cn0001");
	EQ_U(p.dropped, 5, "V3 on 4 hosts, V2 on one");
	OK(d.n == 2 &&
	   strstr(d.v[0].text, "VirtualFabric 'V2' (P_Key 0x0012) dropped on port 0x0002c90300000011 ('cn0001 HCA-1' port 1): its P_Key table holds 2 entries") &&
	   strstr(d.v[1].text, "VirtualFabric 'V3' (P_Key 0x0013) dropped on 4 ports (e.g. 0x0002c90300000011 'cn0001 HCA-1' port 1): their P_Key tables hold 2 to 3 entries"),
	   "one port: the port; ports of different sizes: the range");
	for (unsigned i = 0; i < d.n; i++)
		printf("#   %s\n", d.v[i].text);
	vf_plan_free(&p);
	vf_diag_free(&d);
	for (uint32_t n = 0; n < f->num_nodes; n++)
		f->nodes[n].partition_cap = f->nodes[n].enforce_cap = 0;
}

/* What a port's table must hold, and the comparison with a read-back one. */
static void test_verify(struct vf_fabric *f)
{
	struct test_opts o = { .sm_port = host(f, 16), .allow_both_pkeys = true };
	struct vf_diag d = { 0 };
	struct vf_plan p;
	uint16_t want[8];
	unsigned n;
	int missing, extra;

	OK(!plan(HEAD VF("T1", "<PKey>0x0010</PKey><Security>1</Security><Member>A</Member><LimitedMember>B</LimitedMember>")
		 VF("T3", "<PKey>0x0010</PKey><Security>1</Security><LimitedMember>A</LimitedMember>") TAIL,
		 f, &o, &p, &d), "plan for the table check");
	n = vf_plan_port_entries(&p, host(f, 1), want, 8);
	OK(n == 2 && want[0] == 0x7fff && want[1] == 0x8010,
	   "cn0001 wants 0x7fff (limited default) and 0x8010 (full in T1)");
	n = vf_plan_port_entries(&p, host(f, 5), want, 8);
	OK(n == 2 && want[0] == 0x7fff && want[1] == 0x0010,
	   "cn0005 wants 0x7fff and 0x0010 (limited in T1, not in T3)");
	{
		const uint16_t same[] = { 0x7fff, 0, 0x0010, 0 };
		const uint16_t lacks[] = { 0x7fff };
		const uint16_t full[] = { 0x7fff, 0x8010 };

		OK(vf_pkeys_match(want, n, same, 4, &missing, &extra),
		   "order and empty slots do not matter");
		OK(!vf_pkeys_match(want, n, lacks, 1, &missing, &extra) &&
		   missing == 0x0010 && extra == -1, "a missing entry is named");
		OK(!vf_pkeys_match(want, n, full, 2, &missing, &extra) &&
		   missing == 0x0010 && extra == 0x8010,
		   "a full entry where limited is planned is named");
	}
	vf_plan_free(&p);
	vf_diag_free(&d);
}

/*
 * SR-IOV (seed 004): two virtual functions of cn0001 by alias GUID, one a
 * full member of a P_Key, the other a limited one: the physical port holds
 * both memberships (allow_both_pkeys), so each VF can map its own.
 */
static void test_aliases(struct vf_fabric *f)
{
	struct test_opts o = { .sm_port = VF_NONE, .allow_both_pkeys = true };
	struct vf_diag d = { 0 };
	struct vf_plan p;
	uint32_t port = host(f, 1);

	OK(!vf_fabric_add_alias(f, port, 0x0002c9fffe000001ull) &&
	   !vf_fabric_add_alias(f, port, 0x0002c9fffe000002ull),
	   "two alias GUIDs on cn0001's port");
	OK(!plan("<Config><Common><Applications><Application><Name>Any</Name>"
		 "<Select>UnmatchedServiceID</Select></Application></Applications>"
		 "<DeviceGroups>"
		 "<DeviceGroup><Name>VF1</Name><PortGUID>0x0002c9fffe000001</PortGUID></DeviceGroup>"
		 "<DeviceGroup><Name>VF2</Name><PortGUID>0x0002c9fffe000002</PortGUID></DeviceGroup>"
		 "</DeviceGroups><VirtualFabrics>"
		 VF("Full", "<PKey>0x0040</PKey><Security>1</Security><Member>VF1</Member>")
		 VF("Lim", "<PKey>0x0040</PKey><Security>1</Security><LimitedMember>VF2</LimitedMember>")
		 TAIL, f, &o, &p, &d), "plan VFs that name alias GUIDs");
	EQ_U(member(&p, 0x40, port), VF_MEMBER_BOTH,
	     "the physical port: full and limited member of 0x0040");
	EQ_U(member(&p, 0x40, host(f, 2)), VF_MEMBER_NONE,
	     "no other port is");
	vf_plan_free(&p);
	vf_diag_free(&d);
}

/* Seed 002: an entry naming no end port is flagged and ignored. */
static void test_non_end_port(struct vf_fabric *f)
{
	struct test_opts o = { .sm_port = VF_NONE };
	struct vf_diag d = { 0 };
	struct vf_plan p;
	bool flagged = false;

	/* 0x...10 is cn0001's NodeGUID (its port is 0x...11); 0x...ff0 is
	 * on no node at all (a host that is down) */
	OK(!plan("<Config><Common><Applications><Application><Name>Any</Name>"
		 "<Select>UnmatchedServiceID</Select></Application></Applications>"
		 "<DeviceGroups><DeviceGroup><Name>G</Name>"
		 "<PortGUID>0x0002c90300000010</PortGUID>"
		 "<PortGUID>0x0002c90300000021</PortGUID>"
		 "<PortGUID>0x0002c90300000ff0</PortGUID></DeviceGroup>"
		 "</DeviceGroups><VirtualFabrics>"
		 VF("V", "<PKey>0x0050</PKey><Member>G</Member>") TAIL,
		 f, &o, &p, &d), "plan a group listing a NodeGUID");
	for (unsigned i = 0; i < d.n; i++)
		flagged |= d.v[i].level == VF_DIAG_WARN &&
			   strstr(d.v[i].text, "DeviceGroup 'G': 0x0002c90300000010 is the NodeGUID of 'cn0001 HCA-1', not an end port's GUID; ignored");
	OK(flagged && d.n == 1, "the NodeGUID entry is flagged, the absent one not");
	EQ_U(member(&p, 0x50, host(f, 1)), VF_MEMBER_NONE,
	     "and ignored: cn0001 is no member");
	EQ_U(member(&p, 0x50, host(f, 2)), VF_MEMBER_FULL,
	     "the good entry (cn0002's port GUID) counts");
	vf_plan_free(&p);
	vf_diag_free(&d);
}

/* A VF's MulticastGroups become mgid= lines of its partition. */
static void test_mcgroups(struct vf_fabric *f)
{
	struct test_opts o = { .sm_port = VF_NONE };
	struct vf_diag d = { 0 };
	struct vf_plan p;
	const struct vf_partition *t = NULL;

	OK(!plan(HEADM VF("T", "<PKey>0x0040</PKey><Member>A</Member>")
		 "</VirtualFabrics><Sm><Multicast><MulticastGroup>"
		 "<VirtualFabric>T</VirtualFabric>"
		 "<MGID>0xff15123400400000:0x1</MGID><MTU>2048</MTU>"
		 "<Rate>10g</Rate><QKey>0x11</QKey></MulticastGroup>"
		 "<MulticastGroup><VirtualFabric>T</VirtualFabric>"
		 "<MGID>0xff12401b00000000:0x16</MGID><MTU>2048</MTU>"
		 "</MulticastGroup></Multicast></Sm></Common></Config>",
		 f, &o, &p, &d), "plan a VF with two MulticastGroups");
	for (unsigned k = 0; k < p.num_parts; k++)
		if (p.parts[k].pkey == 0x40)
			t = &p.parts[k];
	OK(t && t->mgid_lines.n == 2 &&
	   !strcmp(t->mgid_lines.v[0],
		   "mgid=ff15:1234:0040:0000:0000:0000:0000:0001, scope=5, mtu=4, rate=3, Q_Key=0x00000011"),
	   "a plain group keeps its MTU, rate and Q_Key");
	OK(t && t->mgid_lines.n == 2 &&
	   !strcmp(t->mgid_lines.v[1],
		   "mgid=ff12:401b:0000:0000:0000:0000:0000:0016"),
	   "an IPoIB group takes MTU and rate from its partition (OpenSM's rule)");
	vf_plan_free(&p);
	vf_diag_free(&d);
}

/*
 * The audit's F6: a <MulticastGroup> the FM would disable for its VF
 * (checkMC_VFProperties, MatchExplicitMGIDtoVF) is not emitted, and the
 * plan says why when only the assigned P_Key or SL shows it.
 */
static bool has_mgid(const struct vf_plan *p, uint16_t pkey, const char *mgid)
{
	for (unsigned k = 0; k < p->num_parts; k++)
		for (unsigned i = 0; p->parts[k].pkey == pkey &&
		     i < p->parts[k].mgid_lines.n; i++)
			if (strstr(p->parts[k].mgid_lines.v[i], mgid))
				return true;
	return false;
}

static bool diag_says(const struct vf_diag *d, const char *a, const char *b)
{
	for (unsigned i = 0; i < d->n; i++)
		if (strstr(d->v[i].text, a) && (!b || strstr(d->v[i].text, b)))
			return true;
	return false;
}

static void test_mcgroup_fit(struct vf_fabric *f)
{
	static const struct {
		const char *what, *vf, *group;
	} cases[] = {
		{ "MTU above the VF's MaxMTU", "<MaxMTU>2048</MaxMTU>",
		  "<MTU>4096</MTU>" },
		{ "Rate above the VF's MaxRate", "<MaxRate>10g</MaxRate>",
		  "<Rate>25g</Rate>" },
		{ "SL on a VF without QoS", "", "<SL>5</SL>" },
		{ "SL other than the VF's BaseSL",
		  "<QOS>1</QOS><BaseSL>2</BaseSL>", "<SL>5</SL>" },
		{ "PKey other than the VF's", "", "<PKey>0x20</PKey>" },
	};
	struct test_opts o = { .sm_port = VF_NONE };
	struct vf_diag d = { 0 };
	struct vf_plan p;
	char text[4096];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text), HEADM
			 "<VirtualFabric><Name>T</Name><Enable>1</Enable>"
			 "<Application>Any</Application><PKey>0x0040</PKey>"
			 "<Member>A</Member>%s</VirtualFabric>"
			 "</VirtualFabrics><Sm><Multicast><MulticastGroup>"
			 "<VirtualFabric>T</VirtualFabric>"
			 "<MGID>0xff15123400400000:0x1</MGID>%s</MulticastGroup>"
			 "<MulticastGroup><VirtualFabric>T</VirtualFabric>"
			 "<MGID>0xff15123400400000:0x2</MGID></MulticastGroup>"
			 "</Multicast></Sm></Common></Config>",
			 cases[i].vf, cases[i].group);
		OK(!plan(text, f, &o, &p, &d) &&
		   !has_mgid(&p, 0x40, "0000:0000:0000:0001") &&
		   has_mgid(&p, 0x40, "0000:0000:0000:0002"), cases[i].what);
		vf_plan_free(&p);
	}
	/* automatic P_Key: only the plan knows it differs */
	OK(!plan(HEADM VF("T", "<Security>1</Security><Member>A</Member>")
		 "</VirtualFabrics><Sm><Multicast><MulticastGroup>"
		 "<VirtualFabric>T</VirtualFabric><PKey>0x7ffe</PKey>"
		 "<MGID>0xff15123400400000:0x1</MGID></MulticastGroup>"
		 "</Multicast></Sm></Common></Config>", f, &o, &p, &d),
	   "a group whose PKey differs from an automatic P_Key");
	OK(p.num_parts == 2 && !p.parts[1].mgid_lines.n &&
	   diag_says(&d, "MulticastGroup of 'T': its <PKey> 0x7ffe is not the VirtualFabric's P_Key",
		     "not created"),
	   "not emitted, and the plan says why with file and line");
	vf_plan_free(&p);
	vf_diag_free(&d);
}

/*
 * Issue 14, points 1 and 2: VFs sharing a P_Key combine by the FM's rule
 * (sm_compute_portPkeys): full only where full in some VF of the P_Key.
 */
static void test_fm_rules(struct vf_fabric *f)
{
	struct test_opts o = { .sm_port = host(f, 16) };
	struct vf_diag d = { 0 };
	struct vf_plan p;
	const char *head = "<Config><Common><Applications>"
		"<Application><Name>Any</Name><Select>UnmatchedServiceID</Select></Application>"
		"<Application><Name>SA</Name><Select>SA</Select></Application>"
		"</Applications><DeviceGroups>"
		"<DeviceGroup><Name>A</Name><NodeDesc>cn000[1-4]*</NodeDesc></DeviceGroup>"
		"<DeviceGroup><Name>B</Name><NodeDesc>cn000[5-8]*</NodeDesc></DeviceGroup>"
		"<DeviceGroup><Name>S</Name><NodeDesc>cn00[09-10]*</NodeDesc></DeviceGroup>"
		"<DeviceGroup><Name>All</Name><Select>All</Select></DeviceGroup>"
		"<DeviceGroup><Name>Mgmt</Name><Select>AllMgmtAllowed</Select></DeviceGroup>"
		"</DeviceGroups><VirtualFabrics>";
	char text[4096];

	snprintf(text, sizeof(text), "%s%s", head,
		 VF("Store1", "<PKey>0x0030</PKey><Security>1</Security><Member>S</Member><LimitedMember>A</LimitedMember>")
		 VF("Store2", "<PKey>0x0030</PKey><Security>1</Security><Member>S</Member><LimitedMember>B</LimitedMember>")
		 TAIL);
	OK(!plan(text, f, &o, &p, &d), "two storage VFs on one P_Key");
	EQ_U(member(&p, 0x30, host(f, 1)), VF_MEMBER_LIMITED,
	     "tenant A, limited in Store1 only: limited");
	EQ_U(member(&p, 0x30, host(f, 5)), VF_MEMBER_LIMITED,
	     "tenant B, limited in Store2 only: limited");
	EQ_U(member(&p, 0x30, host(f, 9)), VF_MEMBER_FULL,
	     "the storage hosts: full");
	vf_plan_free(&p);

	/* the FM's template Admin VF with a Default VF over some hosts */
	snprintf(text, sizeof(text), "%s%s", head,
		 "<VirtualFabric><Name>Default</Name><Enable>1</Enable><PKey>0x0001</PKey>"
		 "<Application>Any</Application><Member>A</Member></VirtualFabric>"
		 "<VirtualFabric><Name>Admin</Name><Enable>1</Enable><PKey>0x7fff</PKey>"
		 "<Security>1</Security><Application>SA</Application>"
		 "<Member>Mgmt</Member><LimitedMember>All</LimitedMember></VirtualFabric>"
		 TAIL);
	OK(!plan(text, f, &o, &p, &d), "the template Admin VF, Default over A");
	EQ_U(member(&p, 0x7fff, host(f, 12)), VF_MEMBER_LIMITED,
	     "Admin: a host outside Default is limited (FM), not full");
	EQ_U(member(&p, 0x7fff, host(f, 1)), VF_MEMBER_LIMITED,
	     "Admin: a host in Default limited");
	EQ_U(member(&p, 0x7fff, host(f, 16)), VF_MEMBER_FULL,
	     "Admin: the SM's node (AllMgmtAllowed) full");
	EQ_U(member(&p, 0x7fff, f->nodes[f->switches[0]].first_port),
	     VF_MEMBER_FULL, "switch port 0 full");
	OK(!p.parts[0].ipoib, "0x7fff: IPoIB only if the Admin VF takes it");
	vf_plan_free(&p);

	snprintf(text, sizeof(text), "%s%s", head,
		 "<VirtualFabric><Name>Admin</Name><Enable>1</Enable><PKey>0x7fff</PKey>"
		 "<Security>1</Security><Application>SA</Application>"
		 "<Member>Mgmt</Member><LimitedMember>All</LimitedMember></VirtualFabric>"
		 "<VirtualFabric><Name>Admin2</Name><Enable>1</Enable><PKey>0x7fff</PKey>"
		 "<Security>1</Security><Application>Any</Application>"
		 "<Member>B</Member></VirtualFabric>" TAIL);
	OK(!plan(text, f, &o, &p, &d), "a second VF on 0x7fff");
	EQ_U(member(&p, 0x7fff, host(f, 1)), VF_MEMBER_LIMITED,
	     "a host in neither VF's Member list stays limited");
	EQ_U(member(&p, 0x7fff, host(f, 5)), VF_MEMBER_FULL,
	     "Admin2's Members full");
	vf_plan_free(&p);
	for (unsigned i = 0; i < d.n; i++)
		printf("#   %s\n", d.v[i].text);
	vf_diag_free(&d);
}

/*
 * The audit's F2: the FM's template Admin VF written but not active
 * (Standby, Enable 0) must not turn the hosts no VF names into full
 * members of 0x7fff: the file has an Admin VF, its LimitedMember holds.
 * A file with no VF on 0x7fff keeps stock OpenSM's default (full).
 */
static void test_inactive_admin(struct vf_fabric *f)
{
	static const char *const how[] = {
		"<Enable>1</Enable><Standby>1</Standby>", "<Enable>0</Enable>",
	};
	struct test_opts o = { .sm_port = host(f, 16) };
	struct vf_diag d = { 0 };
	struct vf_plan p;
	char text[4096];

	for (unsigned i = 0; i < 2; i++) {
		snprintf(text, sizeof(text), "%s%s%s%s%s", HEAD,
			 VF("T1", "<PKey>0x0010</PKey><Security>1</Security><Member>A</Member>"),
			 "<VirtualFabric><Name>Admin</Name>", how[i],
			 "<PKey>0x7fff</PKey><Security>1</Security>"
			 "<Application>Any</Application><Member>A</Member>"
			 "<LimitedMember>B</LimitedMember></VirtualFabric>" TAIL);
		OK(!plan(text, f, &o, &p, &d), how[i]);
		EQ_U(member(&p, 0x7fff, host(f, 12)), VF_MEMBER_LIMITED,
		     "inactive Admin VF: a host no VF names stays limited in 0x7fff");
		EQ_U(member(&p, 0x7fff, host(f, 1)), VF_MEMBER_LIMITED,
		     "inactive Admin VF: its Members are not full either");
		EQ_U(member(&p, 0x7fff, host(f, 16)), VF_MEMBER_FULL,
		     "the SM's port full");
		EQ_U(member(&p, 0x7fff, f->nodes[f->switches[0]].first_port),
		     VF_MEMBER_FULL, "switch port 0 full");
		vf_plan_free(&p);
	}
	OK(!plan(HEAD VF("T1", "<PKey>0x0010</PKey><Security>1</Security><Member>A</Member>")
		 TAIL, f, &o, &p, &d), "no VF on 0x7fff at all");
	EQ_U(member(&p, 0x7fff, host(f, 12)), VF_MEMBER_FULL,
	     "no Admin VF written: stock OpenSM's default, an unconfigured host full");
	vf_plan_free(&p);
	vf_diag_free(&d);
}

/*
 * Issue 14, point 5: index 0 holds the port's first non-admin VF in config
 * order (the FM's sm_compute_portPkeys), said with OpenSM's indx0 flag.
 */
static void test_index0(struct vf_fabric *f)
{
	struct test_opts o = { .sm_port = host(f, 16) };
	struct vf_diag d = { 0 };
	struct vf_plan p;
	char *text = NULL;
	size_t len = 0;
	FILE *out;

	OK(!plan(HEAD VF("Store", "<PKey>0x0030</PKey><Security>1</Security><Member>B</Member><LimitedMember>A</LimitedMember>")
		 VF("TA", "<PKey>0x0010</PKey><Security>1</Security><Member>A</Member>")
		 VF("Admin", "<PKey>0x7fff</PKey><Security>1</Security><LimitedMember>A</LimitedMember>")
		 VF("TB", "<PKey>0x0020</PKey><Security>1</Security><Member>B</Member>")
		 TAIL, f, &o, &p, &d), "plan VFs for index 0");
	EQ_U(vf_plan_port_index0(&p, host(f, 1)), 0x0030,
	     "cn0001: its first VF (Store, limited) at index 0");
	EQ_U(vf_plan_port_index0(&p, host(f, 5)), 0x8030,
	     "cn0005: Store (full) at index 0, not TB listed later");
	EQ_U(vf_plan_port_index0(&p, host(f, 12)), 0x7fff,
	     "cn0012 in no VF: the default partition (limited: Admin) at 0");
	EQ_U(vf_plan_port_index0(&p, f->nodes[f->switches[0]].first_port),
	     0xffff, "switch port 0: the default partition");
	out = open_memstream(&text, &len);
	vf_emit_partitions(out, &p, f, "test");
	fclose(out);
	OK(text && strstr(text, "Store=0x0030, rate=22, mtu=5, sl=0, indx0 :") &&
	   strstr(text, "TA=0x0010, rate=22, mtu=5, sl=0 :") &&
	   !strstr(text, "TA=0x0010, indx0"),
	   "the emitted file: Store's statement carries indx0, TA's not");
	vf_plan_free(&p);
	free(text);
	text = NULL;

	/* some of a partition's members hold it at index 0: two statements */
	OK(!plan(HEAD VF("TA", "<PKey>0x0010</PKey><Security>1</Security><Member>A</Member>")
		 VF("Store", "<PKey>0x0030</PKey><Security>1</Security><Member>B</Member><LimitedMember>A</LimitedMember>")
		 TAIL, f, &o, &p, &d), "plan TA before Store");
	EQ_U(vf_plan_port_index0(&p, host(f, 1)), 0x8010, "cn0001: TA");
	EQ_U(vf_plan_port_index0(&p, host(f, 5)), 0x8030, "cn0005: Store");
	out = open_memstream(&text, &len);
	vf_emit_partitions(out, &p, f, "test");
	fclose(out);
	OK(text && strstr(text, "Store=0x0030, rate=22, mtu=5, sl=0 :\n\tmgid=ff12:401b::ffff:ffff\n\t0x0002c90300000011=limited,") &&
	   strstr(text, "0x0002c90300000041=limited ;\n\nStore=0x0030, indx0, sl=0 :\n\t0x0002c90300000051=full,"),
	   "Store in two statements: A's hosts without indx0, B's with it");
	if (text && !strstr(text, "Store=0x0030, indx0"))
		printf("# %s\n", text);
	vf_plan_free(&p);
	free(text);

	/* cn0005's first VF (TB) is on a partition the 2-entry table drops:
	 * index 0 goes to the partition it keeps */
	for (uint32_t n = 0; n < f->num_nodes; n++)
		f->nodes[n].partition_cap = f->nodes[n].enforce_cap = 2;
	OK(!plan(HEAD VF("TA", "<PKey>0x0010</PKey><Security>1</Security><Member>A</Member>")
		 VF("TB", "<PKey>0x0020</PKey><Security>1</Security><Member>B</Member>")
		 VF("TA2", "<PKey>0x0010</PKey><Security>1</Security><Member>B</Member>")
		 TAIL, f, &o, &p, &d), "plan on 2-entry tables");
	EQ_U(vf_plan_port_index0(&p, host(f, 5)), 0x8010,
	     "TB dropped on cn0005: index 0 is the kept 0x0010");
	vf_plan_free(&p);
	for (uint32_t n = 0; n < f->num_nodes; n++)
		f->nodes[n].partition_cap = f->nodes[n].enforce_cap = 0;
	vf_diag_free(&d);
}

int main(void)
{
	struct vf_fabric *f;
	char cmd[64];

	if (!mkdtemp(tmpdir))
		return 1;
	test_assign();
	test_sls();
	f = golden_fabric("ft2-4x4.net");
	if (OK(f != NULL, "load the 4x4 tree")) {
		test_plan(f);
		test_capacity(f);
		test_verify(f);
		test_aliases(f);
		test_mcgroups(f);
		test_mcgroup_fit(f);
		test_fm_rules(f);
		test_inactive_admin(f);
		test_index0(f);
		test_non_end_port(f);
		vf_fabric_destroy(f);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	if (system(cmd))
		printf("# could not remove %s\n", tmpdir);
	return tap_done();
}
