// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The vFabric configuration: the opafm.xml front-end on a sample file and
 * on malformed and hostile ones, the cross-object validation, DeviceGroup
 * resolution on a fabric and the routing groups built from it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "partition/dgresolve.h"
#include "partition/load.h"
#include "partition/resolution.h"
#include "partition/routegroups.h"
#include "partition/internal/xmlconf.h"
#include "routing/netfile.h"
#include "fabrics.h"
#include "taptest.h"

/* Some diagnostic contains all of the given substrings. */
static bool said(const struct vf_diag *d, const char *a, const char *b)
{
	for (unsigned i = 0; i < d->n; i++)
		if (strstr(d->v[i].text, a) && (!b || strstr(d->v[i].text, b)))
			return true;
	return false;
}

static void dump(const struct vf_diag *d)
{
	for (unsigned i = 0; i < d->n; i++)
		printf("#   %s\n", d->v[i].text);
}

/* Write text to a fresh temporary file; its path in path. */
static void write_tmp(char *path, size_t size, const char *text)
{
	FILE *f;

	snprintf(path, size, "/tmp/t-vfconfig-XXXXXX");
	close(mkstemp(path));
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

/*
 * Load text as a config file the way the plugin and `vfabric check` do
 * (vf_config_load: parse, validate, the plan-time QoS checks).
 */
static void load_text(const char *text, struct vf_config *c,
		      struct vf_diag *d, char *path, size_t size)
{
	bool vfabric;

	write_tmp(path, size, text);
	*d = (struct vf_diag){ 0 };
	vf_config_load(path, c, d, &vfabric);
}

static const struct vf_app *app(const struct vf_config *c, const char *n)
{
	return vf_config_app(c, n);
}

static void test_sample_apps(const struct vf_config *c)
{
	const struct vf_app *a = app(c, "All"), *l = app(c, "Lustre");
	const struct vf_app *ip = app(c, "IPv4"), *cm = app(c, "IPoIBCM");

	EQ_U(c->num_apps, 8, "8 applications");
	OK(a && a->num_sids == 1 && a->sids[0].kind == VF_MATCH_RANGE &&
	   a->sids[0].a == 0 && a->sids[0].b == UINT64_MAX,
	   "ServiceIDRange 0-0xffffffffffffffff");
	OK(a && a->select == (VF_APP_UNMATCHED_SID | VF_APP_UNMATCHED_MGID),
	   "two Select values accumulate");
	OK(app(c, "PM") && app(c, "PM")->select == VF_APP_PM,
	   "Select is case-insensitive (pm)");
	OK(l && l->num_sids == 1 && l->sids[0].a == 0x10603db,
	   "ServiceID is hex without 0x, as in the FM");
	OK(ip && ip->num_mgids == 1 && ip->mgids[0].kind == VF_MATCH_MASKED &&
	   ip->mgids[0].a.hi == 0xff00401b00000000ull &&
	   ip->mgids[0].b.lo == 0xffffffff00000000ull, "MGIDMasked hi:lo*hi:lo");
	OK(cm && cm->sids[0].kind == VF_MATCH_MASKED &&
	   cm->sids[0].b == 0xffffffffff000000ull, "ServiceIDMasked value*mask");
	OK(app(c, "Networking") && app(c, "Networking")->includes.n == 2,
	   "IncludeApplication listed");
}

static void test_sample_groups(const struct vf_config *c)
{
	const struct vf_cfg_dg *sp = vf_config_dg(c, "Spines");
	const struct vf_cfg_dg *co = vf_config_dg(c, "Compute");
	const struct vf_cfg_dg *sm = vf_config_dg(c, "SMNode");

	EQ_U(vf_config_own_dgs(c), 8, "8 device groups from the file");
	EQ_U(c->num_dgs, 13,
	     "and 5 built-in ones it does not define (AllFIs, AllSWE0s, AllEndNodes, AllRouters, Self)");
	OK(vf_config_dg(c, "AllEndNodes") &&
	   vf_config_dg(c, "AllEndNodes")->builtin &&
	   vf_config_dg(c, "AllEndNodes")->node_types == VF_DG_TYPE_CA &&
	   vf_config_dg(c, "AllEndNodes")->select == VF_DG_SWE0,
	   "built-in AllEndNodes: CAs and switch port 0");
	OK(!vf_config_dg(c, "AllCAs")->builtin,
	   "the file's own AllCAs is kept, not replaced");
	OK(vf_config_dg(c, "All")->select == VF_DG_ALL, "Select All");
	OK(vf_config_dg(c, "AllCAs")->node_types == VF_DG_TYPE_CA,
	   "NodeType FI means CAs");
	OK(sp && sp->node_guids.n == 2 &&
	   sp->node_guids.v[1] == 0x0002c90200000002ull, "NodeGUIDs kept");
	OK(co && co->num_descs == 1 && co->port_guids.n == 1,
	   "NodeDesc pattern and PortGUID in one group");
	OK(sm && sm->select == (VF_DG_SELF | VF_DG_SWE0), "Select Self, SWE0");
	OK(vf_config_dg(c, "ComputeAndStorage")->includes.n == 2,
	   "IncludeGroup listed");
}

static void test_sample_vfs(const struct vf_config *c)
{
	const struct vf_cfg_vf *st = &c->vfs[2], *net = &c->vfs[3];

	EQ_U(c->num_vfs, 4, "4 virtual fabrics");
	OK(c->vfs[0].enable && c->vfs[0].pkey == 1, "Default: PKey 0x0001");
	OK(c->vfs[1].pkey == 0x7fff && c->vfs[1].security &&
	   c->vfs[1].limited.n == 1, "Admin: 0x7fff, secure, limited All");
	EQ_S(st->name, "Storage", "third VF is Storage");
	OK(st->pkey == -1, "Storage: P_Key left automatic");
	OK(st->max_mtu == 4096 && st->max_rate == 16,
	   "MaxMTU 4096, MaxRate 100g (IB rate code 16)");
	OK(st->qos.enable && st->qos.base_sl == 1 && st->qos.bandwidth == 30,
	   "QOS 1, BaseSL 1, Bandwidth 30%");
	/* 4.096 us * 2^11 = 8.4 ms is the first step of at least 8 ms */
	EQ_U(st->qos.hoq_life, 11, "HoqLife 8ms is exponent 11");
	OK(!net->enable, "Enable 0 kept as disabled");
}

static void test_sample(void)
{
	struct vf_config c;
	struct vf_diag d = { 0 };
	const char *path = fixture("vf-sample.xml");

	vf_config_init(&c);
	OK(!vf_xml_load(path, &c, &d), "the sample loads");
	EQ_U(d.errors, 0, "no errors in the sample");
	if (d.errors)
		dump(&d);
	EQ_U(vf_config_validate(&c, &d), 0, "the sample validates");
	OK(said(&d, "vf-sample.xml:121: Sm: element <SubnetPrefix> is not supported", NULL),
	   "unsupported <Sm> element warned by name and line");
	OK(said(&d, "vf-sample.xml:135: Common: element <Pm>", NULL),
	   "unsupported section warned by name and line");
	test_sample_apps(&c);
	test_sample_groups(&c);
	test_sample_vfs(&c);
	OK(c.routing.spine_first == 0 && c.routing.algorithm &&
	   !strcmp(c.routing.algorithm, "fattree"),
	   "SpineFirstRouting 0, RoutingAlgorithm fattree");
	OK(c.routing.core_switches && !strcmp(c.routing.core_switches, "Spines") &&
	   c.routing.route_last && !strcmp(c.routing.route_last, "Storage"),
	   "FatTreeTopology CoreSwitches and RouteLast");
	OK(c.routing.routing_order.n == 2 &&
	   !strcmp(c.routing.routing_order.v[1], "Compute"),
	   "DGShortestPathTopology RoutingOrder");
	vf_diag_free(&d);
	vf_config_free(&c);
}

#define HEAD "<?xml version=\"1.0\"?>\n<Config><Common>\n"
#define TAIL "</Common></Config>\n"
#define DG(n, body) "<DeviceGroup><Name>" n "</Name>" body "</DeviceGroup>\n"
#define APP(n, body) "<Application><Name>" n "</Name>" body "</Application>\n"
#define VF(n, body) "<VirtualFabric><Name>" n "</Name><Enable>1</Enable>" \
	body "</VirtualFabric>\n"

static const struct {
	const char *what, *text, *expect, *expect2;
} bad[] = {
	{ "XML syntax error named with its line",
	  HEAD "<Applications>\n<Application>\n</Applications>\n" TAIL,
	  ":5: XML:", NULL },
	{ "a root other than <Config>", "<Foo/>\n", "root element must be <Config>",
	  NULL },
	{ "a reversed ServiceIDRange",
	  HEAD "<Applications>\n" APP("X", "<ServiceIDRange>5-1</ServiceIDRange>")
	  "</Applications>" TAIL, ":4: Application 'X': <ServiceIDRange> '5-1'", NULL },
	{ "a bad Select value",
	  HEAD "<DeviceGroups>\n" DG("G", "<Select>Everything</Select>")
	  "</DeviceGroups>" TAIL, "DeviceGroup 'G': <Select> 'Everything'", NULL },
	{ "a NodeDesc pattern with a bad character",
	  HEAD "<DeviceGroups>\n" DG("G", "<NodeDesc>cn/1</NodeDesc>")
	  "</DeviceGroups>" TAIL, "DeviceGroup 'G': <NodeDesc> 'cn/1'", "column 3" },
	{ "P_Key 0x8000 (no partition bits)",
	  HEAD "<VirtualFabrics>\n" VF("V", "<PKey>0x8000</PKey>")
	  "</VirtualFabrics>" TAIL, "VirtualFabric 'V': <PKey> '0x8000'", NULL },
	{ "an MTU that is neither IB nor Omni-Path",
	  HEAD "<VirtualFabrics>\n" VF("V", "<MaxMTU>3000</MaxMTU>")
	  "</VirtualFabrics>" TAIL, "<MaxMTU> '3000' is not", "4096" },
	{ "Bandwidth 0%",
	  HEAD "<VirtualFabrics>\n" VF("V", "<Bandwidth>0%</Bandwidth>")
	  "</VirtualFabrics>" TAIL, "<Bandwidth> '0%'", NULL },
	{ "BaseSL 16", HEAD "<VirtualFabrics>\n" VF("V", "<BaseSL>16</BaseSL>")
	  "</VirtualFabrics>" TAIL, "<BaseSL> '16' is not an SL 0-15", NULL },
	{ "an object without a name",
	  HEAD "<DeviceGroups>\n<DeviceGroup><Select>All</Select></DeviceGroup>"
	  "</DeviceGroups>" TAIL, ":4: DeviceGroup without a <Name>", NULL },
	{ "Member naming an unknown group",
	  HEAD "<Applications>" APP("A", "<ServiceID>1</ServiceID>")
	  "</Applications><VirtualFabrics>\n" VF("V", "<Member>Nope</Member>"
	  "<Application>A</Application>") "</VirtualFabrics>" TAIL,
	  "VirtualFabric 'V': Member names unknown DeviceGroup 'Nope'", NULL },
	{ "Application naming an unknown application",
	  HEAD "<DeviceGroups>" DG("G", "<Select>All</Select>")
	  "</DeviceGroups><VirtualFabrics>\n" VF("V", "<Member>G</Member>"
	  "<Application>Ghost</Application>") "</VirtualFabrics>" TAIL,
	  "unknown Application 'Ghost'", NULL },
	{ "a DeviceGroup include cycle",
	  HEAD "<DeviceGroups>\n" DG("A", "<IncludeGroup>B</IncludeGroup>")
	  DG("B", "<IncludeGroup>C</IncludeGroup>")
	  DG("C", "<IncludeGroup>A</IncludeGroup>") "</DeviceGroups>" TAIL,
	  "include cycle A -> B -> C -> A", NULL },
	{ "an Application include cycle",
	  HEAD "<Applications>\n" APP("A", "<IncludeApplication>A</IncludeApplication>")
	  "</Applications>" TAIL, "Application 'A': include cycle A -> A", NULL },
	{ "a duplicate DeviceGroup name",
	  HEAD "<DeviceGroups>\n" DG("G", "<Select>All</Select>")
	  DG("G", "<NodeType>SW</NodeType>") "</DeviceGroups>" TAIL,
	  ":5: DeviceGroup 'G': duplicate name (first defined at", ":4)" },
	{ "a P_Key shared with different Security",
	  HEAD "<Applications>" APP("A", "<ServiceID>1</ServiceID>")
	  "</Applications><DeviceGroups>" DG("G", "<Select>All</Select>")
	  "</DeviceGroups><VirtualFabrics>\n"
	  VF("V1", "<PKey>0x10</PKey><Member>G</Member><Application>A</Application>")
	  VF("V2", "<PKey>0x0010</PKey><Security>1</Security><Member>G</Member>"
	     "<Application>A</Application>") "</VirtualFabrics>" TAIL,
	  "VirtualFabric 'V2': PKey 0x0010 collides with VirtualFabric 'V1'", NULL },
	{ "a P_Key with the membership bit (0x8010), as the FM",
	  HEAD "<VirtualFabrics>\n" VF("V", "<PKey>0x8010</PKey>")
	  "</VirtualFabrics>" TAIL, "VirtualFabric 'V': <PKey> '0x8010'",
	  "0x0001-0x7fff" },
	{ "P_Key 0xffff, as the FM",
	  HEAD "<VirtualFabrics>\n" VF("V", "<PKey>0xffff</PKey>")
	  "</VirtualFabrics>" TAIL, "VirtualFabric 'V': <PKey> '0xffff'",
	  "membership bit 0x8000 is not written" },
	{ "an SL used twice by different QoS settings",
	  HEAD "<Applications>" APP("A", "<ServiceID>1</ServiceID>")
	  "</Applications><DeviceGroups>" DG("G", "<Select>All</Select>")
	  "</DeviceGroups><VirtualFabrics>\n"
	  VF("V1", "<QOS>1</QOS><BaseSL>3</BaseSL><Member>G</Member><Application>A</Application>")
	  VF("V2", "<QOS>1</QOS><BaseSL>3</BaseSL><Bandwidth>10%</Bandwidth><Member>G</Member><Application>A</Application>")
	  "</VirtualFabrics>" TAIL, "VirtualFabric 'V2': SL 3 already in use by VirtualFabric 'V1'",
	  NULL },
	{ "bandwidth over 100%",
	  HEAD "<Applications>" APP("A", "<ServiceID>1</ServiceID>")
	  "</Applications><DeviceGroups>" DG("G", "<Select>All</Select>")
	  "</DeviceGroups><VirtualFabrics>\n"
	  VF("V1", "<QOS>1</QOS><Bandwidth>60%</Bandwidth><Member>G</Member><Application>A</Application>")
	  VF("V2", "<QOS>1</QOS><Bandwidth>50%</Bandwidth><Member>G</Member><Application>A</Application>")
	  "</VirtualFabrics>" TAIL,
	  "QoS: explicit Bandwidth of the active virtual fabrics adds up to 110% ('V1' 60%, 'V2' 50%)",
	  "over 100%" },
	{ "Bandwidth leaving no 5% for the VFs without QoS",
	  HEAD "<Applications>" APP("A", "<ServiceID>1</ServiceID>")
	  "</Applications><DeviceGroups>" DG("G", "<Select>All</Select>")
	  "</DeviceGroups><VirtualFabrics>\n"
	  VF("V1", "<QOS>1</QOS><Bandwidth>96%</Bandwidth><Member>G</Member><Application>A</Application>")
	  VF("V2", "<Member>G</Member><Application>A</Application>")
	  "</VirtualFabrics>" TAIL, ":6: QoS: explicit Bandwidth adds up to 96% ('V1' 96%)",
	  "need 5% available bandwidth" },
	{ "Bandwidth leaving no 1% for a QoS VF without Bandwidth",
	  HEAD "<Applications>" APP("A", "<ServiceID>1</ServiceID>")
	  "</Applications><DeviceGroups>" DG("G", "<Select>All</Select>")
	  "</DeviceGroups><VirtualFabrics>\n"
	  VF("V1", "<QOS>1</QOS><Bandwidth>100%</Bandwidth><Member>G</Member><Application>A</Application>")
	  VF("V2", "<QOS>1</QOS><Member>G</Member><Application>A</Application>")
	  "</VirtualFabrics>" TAIL, "need 1% available bandwidth", NULL },
	{ "a VF naming a disabled QOSGroup",
	  HEAD "<Applications>" APP("A", "<ServiceID>1</ServiceID>")
	  "</Applications><DeviceGroups>" DG("G", "<Select>All</Select>")
	  "</DeviceGroups><QOSGroups><QOSGroup><Name>Q</Name><BaseSL>2</BaseSL>"
	  "</QOSGroup></QOSGroups><VirtualFabrics>\n"
	  VF("V1", "<PKey>0x10</PKey><QOSGroup>Q</QOSGroup><Member>G</Member><Application>A</Application>")
	  "</VirtualFabrics>" TAIL,
	  ":6: VirtualFabric 'V1': QOSGroup 'Q'", ":5) is not enabled" },
	{ "a QOSGroup VF without PKey",
	  HEAD "<Applications>" APP("A", "<ServiceID>1</ServiceID>")
	  "</Applications><DeviceGroups>" DG("G", "<Select>All</Select>")
	  "</DeviceGroups><QOSGroups><QOSGroup><Name>Q</Name><Enable>1</Enable>"
	  "</QOSGroup></QOSGroups><VirtualFabrics>\n"
	  VF("V1", "<QOSGroup>Q</QOSGroup><Member>G</Member><Application>A</Application>")
	  "</VirtualFabrics>" TAIL,
	  ":6: VirtualFabric 'V1': a VirtualFabric with a QOSGroup must give its <PKey>",
	  NULL },
	{ "QOSGroups mixed with per-VF QoS",
	  HEAD "<Applications>" APP("A", "<ServiceID>1</ServiceID>")
	  "</Applications><DeviceGroups>" DG("G", "<Select>All</Select>")
	  "</DeviceGroups><QOSGroups><QOSGroup><Name>Q</Name><Enable>1</Enable>"
	  "</QOSGroup></QOSGroups><VirtualFabrics>\n"
	  VF("V1", "<PKey>0x10</PKey><QOSGroup>Q</QOSGroup><Member>G</Member><Application>A</Application>")
	  VF("V2", "<QOS>1</QOS><Member>G</Member><Application>A</Application>")
	  "</VirtualFabrics>" TAIL,
	  ":7: VirtualFabric 'V2': has no QOSGroup, but the configuration has the enabled QOSGroup 'Q'",
	  NULL },
	{ "CoreSwitches naming an unknown group",
	  HEAD "<Sm><FatTreeTopology><CoreSwitches>Top</CoreSwitches>"
	  "</FatTreeTopology></Sm>" TAIL,
	  "Sm: FatTreeTopology/CoreSwitches names unknown DeviceGroup 'Top'", NULL },
	{ "a DOCTYPE with entities (billion laughs)",
	  "<?xml version=\"1.0\"?>\n<!DOCTYPE Config [\n"
	  "<!ENTITY a \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\">\n"
	  "<!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;\">\n"
	  "<!ENTITY c \"&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;\">\n"
	  "<!ENTITY d \"&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;\">\n"
	  "<!ENTITY e \"&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;&d;\">\n"
	  "<!ENTITY f \"&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;&e;\">\n"
	  "]>\n<Config><Common><DeviceGroups><DeviceGroup><Name>&f;</Name>"
	  "</DeviceGroup></DeviceGroups></Common></Config>\n",
	  "XML: Detected an entity reference loop", NULL },
	{ "any DOCTYPE",
	  "<?xml version=\"1.0\"?>\n<!DOCTYPE Config>\n<Config/>\n",
	  "a DOCTYPE (DTD or entities) is not allowed", NULL },
};

static void test_bad(void)
{
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct vf_config c;
		struct vf_diag d;
		char path[64], what[160];
		bool ok;

		load_text(bad[i].text, &c, &d, path, sizeof(path));
		ok = d.errors && said(&d, path, NULL) &&
		     said(&d, bad[i].expect, bad[i].expect2);
		snprintf(what, sizeof(what), "rejected with file, line, object: %s",
			 bad[i].what);
		if (!OK(ok, what))
			dump(&d);
		unlink(path);
		vf_diag_free(&d);
		vf_config_free(&c);
	}
}

/*
 * A mistyped element is a warning (the plugin keeps going), naming the
 * closest element this reader knows; a name too far from any, or a known
 * one in the wrong place, gets no guess.
 */
static void test_typo_hint(void)
{
	static const char text[] =
		"<Config><Common><DeviceGroups><DeviceGroup>\n"
		"<Name>G</Name>\n<NodeDecs>cn*</NodeDecs>\n"
		"<nodeguid>0x1</nodeguid>\n<Frobnicate/>\n<PKey>1</PKey>\n"
		"</DeviceGroup></DeviceGroups>\n"
		"</Common></Config>\n";
	struct vf_config c;
	struct vf_diag d;
	char path[64];
	bool warned = false, erred = false;

	load_text(text, &c, &d, path, sizeof(path));
	for (unsigned i = 0; i < d.n; i++) {
		if (!strstr(d.v[i].text, "element <"))
			continue;
		warned |= d.v[i].level == VF_DIAG_WARN;
		erred |= d.v[i].level == VF_DIAG_ERROR;
	}
	if (!OK(warned && !erred,
		"a mistyped element is a warning, not an error (the plugin goes on)"))
		dump(&d);
	if (!OK(said(&d, ":3: DeviceGroup 'G': element <NodeDecs>",
		     "ignored (did you mean NodeDesc?)"),
		"<NodeDecs>: warned at its line, \"did you mean NodeDesc?\""))
		dump(&d);
	OK(said(&d, ":4: DeviceGroup 'G': element <nodeguid>",
		"(did you mean NodeGUID?)"), "letter case: NodeGUID");
	OK(said(&d, "element <Frobnicate> is not supported", NULL) &&
	   !said(&d, "<Frobnicate>", "did you mean"),
	   "no guess for <Frobnicate>");
	OK(said(&d, "element <PKey> is not supported", NULL) &&
	   !said(&d, "<PKey>", "did you mean"),
	   "no guess for a known element in the wrong place");
	unlink(path);
	vf_diag_free(&d);
	vf_config_free(&c);
}

/*
 * A value error does not hide the rule errors of other objects: one pass
 * reports all of them.
 */
static void test_all_in_one_pass(void)
{
	struct vf_config c;
	struct vf_diag d;
	char path[64];

	load_text(HEAD "<Applications>" APP("A", "<ServiceID>1</ServiceID>")
		  "</Applications><DeviceGroups>" DG("G", "<Select>All</Select>")
		  "</DeviceGroups><VirtualFabrics>\n"
		  VF("V1", "<BaseSL>16</BaseSL><Member>G</Member><Application>A</Application>")
		  VF("V2", "<Member>Nope</Member><Application>A</Application>")
		  VF("V3", "<QOS>1</QOS><Bandwidth>96%</Bandwidth><Member>G</Member><Application>A</Application>")
		  "</VirtualFabrics>" TAIL, &c, &d, path, sizeof(path));
	OK(said(&d, "VirtualFabric 'V1': <BaseSL> '16'", NULL),
	   "one pass: the value error");
	OK(said(&d, "VirtualFabric 'V2': Member names unknown DeviceGroup 'Nope'",
		NULL), "one pass: and the rule error of another VF");
	OK(said(&d, "need 5% available bandwidth", NULL),
	   "one pass: and the bandwidth a sweep would refuse");
	EQ_U(d.errors, 3, "three errors, each once");
	if (d.errors != 3)
		dump(&d);
	unlink(path);
	vf_diag_free(&d);
	vf_config_free(&c);
}

/*
 * Seeded generator: files of 3-8 VFs, some given one value error (BaseSL
 * 16, MaxMTU 3000, PKey 0x8000, Bandwidth 0%) and others one rule error
 * (an unknown Member group or Application).  One load must report every
 * one of them, each naming its VF and the VF's line, and nothing else.
 * VF_VALIDATION_ROUNDS sets the number of files (default 200).
 */
static void test_one_pass_generated(void)
{
	static const char *const value_err[][2] = {
		{ "<QOS>1</QOS><BaseSL>16</BaseSL>", "<BaseSL> '16'" },
		{ "<MaxMTU>3000</MaxMTU>", "<MaxMTU> '3000'" },
		{ "<PKey>0x8000</PKey>", "<PKey> '0x8000'" },
		{ "<QOS>1</QOS><Bandwidth>0%</Bandwidth>", "<Bandwidth> '0%'" },
	};
	static const char *const rule_err[][2] = {
		{ "<Member>Ghost</Member>", "Member names unknown DeviceGroup 'Ghost'" },
		{ "<Application>Nope</Application>",
		  "Application names unknown Application 'Nope'" },
	};
	const char *env = getenv("VF_VALIDATION_ROUNDS");
	unsigned rounds = env ? (unsigned)atoi(env) : 200, good = 0;
	unsigned seed = 14, injected_total = 0;

	for (unsigned r = 0; r < rounds; r++) {
		char *text = malloc(16384), path[64], want[16][128];
		unsigned vfs, n = 0, len, injected = 0, found = 0;
		struct vf_config c;
		struct vf_diag d;

		seed = seed * 1103515245 + 12345;
		vfs = 3 + (seed >> 16) % 6;
		len = (unsigned)sprintf(text, HEAD "<Applications>"
			APP("A", "<ServiceID>1</ServiceID>") "</Applications>"
			"<DeviceGroups>" DG("G", "<Select>All</Select>")
			"</DeviceGroups><VirtualFabrics>\n");
		for (unsigned v = 0; v < vfs; v++) {
			unsigned pick, line = 6 + v;	/* one VF per line */
			const char *extra = "";

			seed = seed * 1103515245 + 12345;
			pick = (seed >> 16) % 10;
			if (pick < 4) {
				extra = value_err[pick][0];
				snprintf(want[n++], sizeof(want[0]),
					 ":%u: VirtualFabric 'V%u': %s", line, v,
					 value_err[pick][1]);
			} else if (pick < 6) {
				extra = rule_err[pick - 4][0];
				snprintf(want[n++], sizeof(want[0]),
					 ":%u: VirtualFabric 'V%u': %s", line, v,
					 rule_err[pick - 4][1]);
			}
			len += (unsigned)snprintf(text + len, 16384 - len,
				"<VirtualFabric><Name>V%u</Name><Enable>1</Enable>"
				"<Member>G</Member><Application>A</Application>%s"
				"</VirtualFabric>\n", v, extra);
		}
		snprintf(text + len, 16384 - len, "</VirtualFabrics>" TAIL);
		load_text(text, &c, &d, path, sizeof(path));
		injected = n;
		for (unsigned i = 0; i < n; i++)
			found += said(&d, want[i], NULL);
		if (found == injected && d.errors == injected)
			good++;
		else if (r - good < 3) {	/* the first three failures */
			printf("# round %u: %u of %u found, %u errors\n", r,
			       found, injected, d.errors);
			dump(&d);
		}
		injected_total += injected;
		unlink(path);
		vf_diag_free(&d);
		vf_config_free(&c);
		free(text);
	}
	printf("# %u files, %u injected errors\n", rounds, injected_total);
	EQ_U(good, rounds, "generated files: every injected value and rule "
	     "error reported in one pass, each with its VF and line, and no "
	     "other error");
}

/*
 * Omni-Path-only MTUs and rates: the nearest InfiniBand value not above
 * them, with a warning naming it; the file stays usable.
 */
static void test_opa_values(void)
{
	static const struct {
		const char *el, *value;
		unsigned mtu, rate;
		const char *says;
	} cases[] = {
		{ "MaxMTU", "8192", 4096, 0, "4096, is used" },
		{ "MaxMTU", "10240", 4096, 0, "4096, is used" },
		{ "MaxRate", "12.5g", 0, 3, "10g, is used" },
		{ "MaxRate", "37.5g", 0, 4, "30g, is used" },
		{ "MaxRate", "75G", 0, 8, "60g, is used" },
		{ "MaxRate", "75", 0, 8, "60g, is used" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vf_config c;
		struct vf_diag d;
		char path[64], text[1024], what[160];
		bool ok;

		snprintf(text, sizeof(text),
			 HEAD "<Applications>" APP("A", "<ServiceID>1</ServiceID>")
			 "</Applications><DeviceGroups>" DG("G", "<Select>All</Select>")
			 "</DeviceGroups><VirtualFabrics>\n"
			 VF("V", "<%s>%s</%s><Member>G</Member><Application>A</Application>")
			 "</VirtualFabrics>" TAIL, cases[i].el, cases[i].value,
			 cases[i].el);
		load_text(text, &c, &d, path, sizeof(path));
		/* the second warning: no SA/PM/PA VF (fmmgmt.c) */
		ok = !d.errors && d.n == 2 && d.v[0].level == VF_DIAG_WARN &&
		     said(&d, ":6: VirtualFabric 'V': <", cases[i].says) &&
		     c.num_vfs == 1 && c.vfs[0].max_mtu == cases[i].mtu &&
		     c.vfs[0].max_rate == cases[i].rate;
		snprintf(what, sizeof(what),
			 "<%s>%s</%s>: taken as %s with a warning",
			 cases[i].el, cases[i].value, cases[i].el,
			 cases[i].says);
		if (!OK(ok, what))
			dump(&d);
		unlink(path);
		vf_diag_free(&d);
		vf_config_free(&c);
	}
}

/* An XML file with a UTF-8 byte-order mark is still XML. */
static void test_bom(void)
{
	struct vf_config c;
	struct vf_diag d;
	char path[64];

	load_text("\xef\xbb\xbf" HEAD "<Applications>"
		  APP("A", "<ServiceID>1</ServiceID>") "</Applications>"
		  "<DeviceGroups>" DG("G", "<Select>All</Select>")
		  "</DeviceGroups><VirtualFabrics>\n"
		  VF("V", "<Member>G</Member><Application>A</Application>")
		  "</VirtualFabrics>" TAIL, &c, &d, path, sizeof(path));
	OK(!d.errors && c.num_vfs == 1 && !strcmp(c.vfs[0].name, "V"),
	   "an XML file with a byte-order mark is read as XML");
	if (d.errors)
		dump(&d);
	unlink(path);
	vf_diag_free(&d);
	vf_config_free(&c);
}

/* Deep nesting and a huge value end in an error, not a crash or a hang. */
static void test_hostile(void)
{
	size_t depth = 100000, size = depth * 7 + 64;
	char *text = malloc(size), path[64];
	struct vf_config c;
	struct vf_diag d;
	size_t at = 0;
	clock_t t0 = clock();

	at += (size_t)sprintf(text + at, "<Config>");
	for (size_t i = 0; i < depth; i++)
		at += (size_t)sprintf(text + at, "<a>");
	sprintf(text + at, "</Config>");
	load_text(text, &c, &d, path, sizeof(path));
	OK(d.errors > 0, "100,000 nested elements: an error");
	unlink(path);
	vf_diag_free(&d);
	vf_config_free(&c);

	memset(text, 'x', size - 1);
	memcpy(text, HEAD "<DeviceGroups><DeviceGroup><Name>",
	       strlen(HEAD "<DeviceGroups><DeviceGroup><Name>"));
	strcpy(text + size - 64, "</Name></DeviceGroup></DeviceGroups>" TAIL);
	load_text(text, &c, &d, path, sizeof(path));
	OK(d.errors > 0 && vf_config_own_dgs(&c) == 0,
	   "a 700 kB name: an error, no group");
	OK((clock() - t0) / CLOCKS_PER_SEC < 5, "both within seconds");
	unlink(path);
	vf_diag_free(&d);
	vf_config_free(&c);
	free(text);
}

/* The sample's groups on the golden 4x4 tree (cn0001-16, leaf/spine). */
static void test_resolve(void)
{
	struct vf_config c;
	struct vf_diag d = { 0 };
	struct vf_resolution r = { 0 };
	struct vf_route_groups g;
	struct vf_route_opts o;
	struct vf_fabric *f;
	uint32_t cn1 = VF_NONE;

	f = golden_fabric("ft2-4x4.net");
	vf_config_init(&c);
	vf_xml_load(fixture("vf-sample.xml"), &c, &d);
	if (!OK(f && !d.errors, "load the 4x4 tree and the sample"))
		return;
	cn1 = vf_fabric_find_name(f, "cn0001");
	OK(!vf_resolve(&r, &c, f, f->nodes[cn1].first_port + 1),
	   "resolve the groups");
	/* 16 CA ports; 6 switch port 0s; 16 host-facing and 16 inter-switch ports */
	{
		unsigned all = 0, cas = 0, sws = 0, self = 0, compute = 0;

		for (uint32_t p = 0; p < f->num_ports; p++) {
			all += vf_dg_has(&r.dg, 0, p);
			cas += vf_dg_has(&r.dg, 1, p);
			sws += vf_dg_has(&r.dg, 2, p);
			compute += vf_dg_has(&r.dg, 5, p);
			self += vf_dg_has(&r.dg, 7, p);
		}
		EQ_U(all, 16 + 6 + 32, "All: every live port");
		EQ_U(cas, 16, "AllCAs: the 16 CA ports");
		EQ_U(sws, 6 + 32, "AllSWs: switch port 0s and linked ports");
		EQ_U(compute, 16, "Compute (cn*): the 16 hosts");
		EQ_U(self, 1 + 6, "SMNode: the SM's port and every switch port 0");
	}
	OK(!vf_route_groups_build(&c, &r, &g), "build the routing groups");
	EQ_U(g.core.count, 2, "CoreSwitches: spine001 and spine002");
	OK(g.core.count == 2 && g.core.guids[0] == 0x0002c90200000001ull,
	   "CoreSwitches holds the spines' NodeGUIDs");
	EQ_U(g.last.count, 0, "RouteLast: no storage hosts in this fabric");
	OK(g.num_order == 2 && g.order[1].guids.count == 16,
	   "RoutingOrder: Storage (empty), then Compute's 16 ports");
	vf_route_opts_default(&o);
	vf_route_groups_apply(&g, &o);
	OK(!o.spine_first && o.core_switches.count == 2 &&
	   o.num_routing_order == 2, "applied to the engine options");
	vf_route_groups_free(&g);
	vf_resolution_free(&r);
	vf_diag_free(&d);
	vf_config_free(&c);
	vf_fabric_destroy(f);
}

/*
 * A chain of n IncludeGroups (G0 includes G1 ... G(n-1), which selects
 * cn0001), written last to first.  Returns the name lookups (string
 * comparisons) validation and resolution took; *ok when G0 resolved to
 * cn0001's port and nothing else.
 */
static unsigned long include_chain(const struct vf_fabric *f, unsigned n,
				   bool *ok)
{
	struct vf_config c;
	struct vf_diag d = { 0 };
	struct vf_dg_members m = { 0 };
	struct vf_where at = { "chain.xml", 1 };
	unsigned long before;
	char name[32];
	uint32_t cn1 = vf_fabric_find_name(f, "cn0001"), members = 0;
	int g0;

	vf_config_init(&c);
	for (unsigned i = n; i-- > 0;) {
		struct vf_cfg_dg *g;

		snprintf(name, sizeof(name), "G%u", i);
		g = vf_config_new_dg(&c, name, at);
		if (i + 1 < n) {
			snprintf(name, sizeof(name), "G%u", i + 1);
			vf_names_add(&g->includes, name);
		} else {
			vf_guids_add(&g->node_guids, f->nodes[cn1].guid);
		}
	}
	vf_config_add_builtins(&c);
	before = vf_name_index_probes;
	vf_config_validate(&c, &d);
	*ok = !d.errors && !vf_dg_resolve(&c, f, VF_NONE, &m);
	before = vf_name_index_probes - before;
	g0 = vf_config_dg_index(&c, "G0");
	for (uint32_t p = 0; *ok && p < f->num_ports; p++)
		if (vf_dg_has(&m, (unsigned)g0, p)) {
			members++;
			*ok &= f->ports[p].node == cn1;
		}
	*ok &= members == 1;
	vf_dg_members_free(&m);
	vf_diag_free(&d);
	vf_config_free(&c);
	return before;
}

/*
 * IncludeGroup chains cost linear work: each name is looked up in a hash
 * table, not by scanning every group (which was quadratic in the chain's
 * length).  Bounded by work (comparisons), not by time.
 */
static void test_include_chain(void)
{
	struct vf_fabric *f = golden_fabric("ft2-4x4.net");
	unsigned long w1, w4;
	bool ok1, ok4;

	if (!OK(f, "load the 4x4 tree for the include chains"))
		return;
	w1 = include_chain(f, 1000, &ok1);
	w4 = include_chain(f, 4000, &ok4);
	OK(ok1 && ok4, "chains of 1000 and 4000 groups: G0 holds what the last one selects");
	OK(w1 <= 4 * 1000 * 3, "1000 groups: at most 4 comparisons per name and include, in validation and resolution");
	printf("# name comparisons: %lu for 1000 groups, %lu for 4000\n", w1, w4);
	OK(w4 <= 5 * w1, "4 times the chain, at most 5 times the work (linear; quadratic would be 16)");
	vf_fabric_destroy(f);
}

/*
 * The audit of issue 14 (F2, F5, F8): what the FM refuses or warns about
 * and we let through silently.  Each file: the exact number of errors and
 * one message that must be there, at the given level.
 */
#define MGMT_APPS APP("SA", "<Select>SA</Select>") APP("PM", "<Select>PM</Select>") \
	APP("PA", "<ServiceID>0x1100d03c34845555</ServiceID>") \
	APP("A", "<ServiceID>1</ServiceID>")
#define MGMT_DGS DG("G", "<NodeDesc>cn*</NodeDesc>") DG("All", "<Select>All</Select>")
#define ADMIN(extra) VF("Admin", "<PKey>0x7fff</PKey><Security>1</Security>" \
	"<LimitedMember>All</LimitedMember><Application>SA</Application>" \
	"<Application>PM</Application><Application>PA</Application>" extra)
#define FILE_OF(vfs) HEAD "<Applications>" MGMT_APPS "</Applications>" \
	"<DeviceGroups>" MGMT_DGS "</DeviceGroups><VirtualFabrics>\n" vfs \
	"</VirtualFabrics>" TAIL

#define FILE_MC(vf, groups) HEAD "<Applications>" MGMT_APPS \
	APP("MC", "<MGIDRange>0xff15000000000000:0-0xff15ffffffffffff:0xffffffffffffffff</MGIDRange>") \
	"</Applications><DeviceGroups>" MGMT_DGS "</DeviceGroups><VirtualFabrics>\n" \
	ADMIN("") VF("T", "<PKey>0x10</PKey><Member>G</Member><Application>A</Application>" vf) \
	"</VirtualFabrics><Sm><Multicast>\n" groups "</Multicast></Sm>" TAIL
#define MCG(body) "<MulticastGroup><VirtualFabric>T</VirtualFabric>" body \
	"</MulticastGroup>\n"

static const struct {
	const char *what, *text;
	unsigned errors;
	enum vf_diag_level level;
	const char *expect, *expect2;
} audit[] = {
	{ "F6: a group the VF takes: no message",
	  FILE_MC("<Application>MC</Application>",
		  MCG("<MGID>0xff15123400000000:0x1</MGID>")), 0, VF_DIAG_WARN,
	  NULL, NULL },
	{ "F6: an MGID none of the VF's Applications takes",
	  FILE_MC("", MCG("<MGID>0xff15123400000000:0x1</MGID>")), 0,
	  VF_DIAG_WARN, ":14: MulticastGroup of 'T': MGID 0xff15123400000000:0x0000000000000001 is taken by none of its Applications",
	  "the FM disables such a group, and it is not created" },
	{ "F6: MTU above MaxMTU (11a)",
	  FILE_MC("<Application>MC</Application><MaxMTU>2048</MaxMTU>",
		  MCG("<MGID>0xff15123400000000:0x1</MGID><MTU>4096</MTU>")), 0,
	  VF_DIAG_WARN, ":14: MulticastGroup of 'T': its <MTU> 4096 is above the VirtualFabric's MaxMTU 2048",
	  NULL },
	{ "F6: a PKey other than the VF's (11b)",
	  FILE_MC("<Application>MC</Application>",
		  MCG("<PKey>0x20</PKey><MGID>0xff15123400000000:0x1</MGID>")), 0,
	  VF_DIAG_WARN, ":14: MulticastGroup of 'T': its <PKey> 0x0020 is not the VirtualFabric's P_Key 0x0010",
	  NULL },
	{ "F6: an SL on a VF without QoS (11d)",
	  FILE_MC("<Application>MC</Application>",
		  MCG("<SL>5</SL><MGID>0xff15123400000000:0x1</MGID>")), 0,
	  VF_DIAG_WARN, ":14: MulticastGroup of 'T': it gives <SL> 5, but the VirtualFabric has no QoS",
	  NULL },
	{ "F6: the same MGID twice in one VF is an error (11e)",
	  FILE_MC("<Application>MC</Application>",
		  MCG("<MGID>0xff15123400000000:0x1</MGID>")
		  MCG("<MGID>0xff15123400000000:0x1</MGID>")), 1,
	  VF_DIAG_ERROR, ":15: MulticastGroup of 'T': MGID 0xff15123400000000:0x0000000000000001 given twice for the VirtualFabric",
	  ":14)" },
	{ "F2: an FM-valid file (Admin VF with SA, PM, PA): no message",
	  FILE_OF(VF("T", "<PKey>0x10</PKey><Member>G</Member><Application>A</Application>")
		  ADMIN("")), 0, VF_DIAG_WARN, NULL, NULL },
	{ "F2: a Standby Admin VF is named, with what the default partition does",
	  FILE_OF(VF("T", "<PKey>0x10</PKey><Member>G</Member><Application>A</Application>")
		  ADMIN("<Standby>1</Standby>")), 0, VF_DIAG_WARN,
	  ":11: VirtualFabric 'Admin': on P_Key 0x7fff but Standby",
	  "kept limited members of 0x7fff" },
	{ "F2: a disabled Admin VF is named too",
	  FILE_OF(VF("T", "<PKey>0x10</PKey><Member>G</Member><Application>A</Application>")
		  "<VirtualFabric><Name>Admin</Name><Enable>0</Enable><PKey>0x7fff</PKey>"
		  "<LimitedMember>All</LimitedMember><Application>SA</Application>"
		  "</VirtualFabric>\n"), 0, VF_DIAG_WARN,
	  ":11: VirtualFabric 'Admin': on P_Key 0x7fff but disabled", NULL },
	{ "F2: no active SA VF: says the default partition follows stock OpenSM",
	  FILE_OF(VF("T", "<PKey>0x10</PKey><Member>G</Member><Application>A</Application>")),
	  0, VF_DIAG_WARN, "no active VirtualFabric has the SA, PM, PA application",
	  "every end port no active VirtualFabric names is a full member of 0x7fff" },
	{ "F8c: a VF on 0x7fff without SA, PM or PA (4b)",
	  FILE_OF(ADMIN("") VF("M2", "<PKey>0x7fff</PKey><Security>1</Security>"
			       "<Member>G</Member><Application>A</Application>")),
	  0, VF_DIAG_WARN, ":11: VirtualFabric 'M2': on P_Key 0x7fff without the SA, PM or PA",
	  NULL },
	{ "F8c: SA outside 0x7fff (4e)",
	  FILE_OF(ADMIN("") VF("D", "<PKey>0x1</PKey><Member>All</Member>"
			       "<Application>SA</Application>")),
	  0, VF_DIAG_WARN, ":11: VirtualFabric 'D': has the SA application but is not on P_Key 0x7fff",
	  NULL },
	{ "F8c: two active SA VFs",
	  FILE_OF(ADMIN("") VF("D", "<PKey>0x1</PKey><Member>All</Member>"
			       "<Application>SA</Application>")),
	  0, VF_DIAG_WARN, "a second active VirtualFabric with the SA application",
	  NULL },
	{ "F8c: an Admin VF without a Select All group (13c)",
	  FILE_OF(VF("Admin", "<PKey>0x7fff</PKey><Member>G</Member><Application>SA</Application>"
		     "<Application>PM</Application><Application>PA</Application>")),
	  0, VF_DIAG_WARN, ":10: VirtualFabric 'Admin': has the SA application but no Member or LimitedMember group with <Select>All</Select>",
	  NULL },
	{ "F8c: only Standby VFs (e12): refused, as an empty file",
	  FILE_OF(VF("T", "<Standby>1</Standby><Member>G</Member><Application>A</Application>")),
	  1, VF_DIAG_ERROR, "no VirtualFabric is active (all disabled or Standby)",
	  "full member of 0x7fff" },
	{ "F8c: only disabled VFs (e11): refused, as an empty file",
	  FILE_OF("<VirtualFabric><Name>T</Name><Enable>0</Enable><Member>G</Member>"
		  "<Application>A</Application></VirtualFabric>\n"),
	  1, VF_DIAG_ERROR, "no VirtualFabric is active (all disabled or Standby)",
	  "as an empty one" },
	{ "F8b: QOS 0 with Bandwidth and BaseSL (7s)",
	  FILE_OF(ADMIN("") VF("T", "<QOS>0</QOS><BaseSL>3</BaseSL><Bandwidth>50%</Bandwidth>"
			       "<Member>G</Member><Application>A</Application>")),
	  0, VF_DIAG_WARN, ":11: VirtualFabric 'T': <Bandwidth> without <QOS>1</QOS> is ignored",
	  "QOS disabled, ignoring Bandwidth setting" },
	{ "F8b: HighPriority with Bandwidth (7d)",
	  FILE_OF(ADMIN("") VF("T", "<QOS>1</QOS><HighPriority>1</HighPriority><Bandwidth>100%</Bandwidth>"
			       "<Member>G</Member><Application>A</Application>")),
	  0, VF_DIAG_WARN, ":11: VirtualFabric 'T': <Bandwidth> 100% is ignored with <HighPriority>1</HighPriority>",
	  NULL },
	{ "F8d: a Standby VF sharing a P_Key with other Security: a warning (1c)",
	  FILE_OF(ADMIN("") VF("V1", "<PKey>0x10</PKey><Security>1</Security><Member>G</Member><Application>A</Application>")
		  VF("V2", "<PKey>0x10</PKey><Standby>1</Standby><Member>G</Member><Application>A</Application>")),
	  0, VF_DIAG_WARN, ":12: VirtualFabric 'V2': PKey 0x0010 collides with VirtualFabric 'V1'",
	  "one of them is Standby" },
	{ "F8d: two active VFs sharing a P_Key with other Security: an error",
	  FILE_OF(ADMIN("") VF("V1", "<PKey>0x10</PKey><Security>1</Security><Member>G</Member><Application>A</Application>")
		  VF("V2", "<PKey>0x10</PKey><Member>G</Member><Application>A</Application>")),
	  1, VF_DIAG_ERROR, ":12: VirtualFabric 'V2': PKey 0x0010 collides with VirtualFabric 'V1'",
	  NULL },
	{ "F5: a Standby VF's Bandwidth is not counted (7f)",
	  FILE_OF(ADMIN("") VF("V1", "<Standby>1</Standby><QOS>1</QOS><Bandwidth>100%</Bandwidth>"
			       "<Member>G</Member><Application>A</Application>")
		  VF("V2", "<QOS>1</QOS><Bandwidth>50%</Bandwidth><Member>G</Member><Application>A</Application>")),
	  0, VF_DIAG_WARN, NULL, NULL },
	{ "F5: Bandwidth over 100% is one error, saying over 100% (7k)",
	  HEAD "<Applications>" MGMT_APPS "</Applications><DeviceGroups>" MGMT_DGS
	  "</DeviceGroups><QOSGroups><QOSGroup><Name>G1</Name><Enable>1</Enable>"
	  "<Bandwidth>60%</Bandwidth></QOSGroup><QOSGroup><Name>G2</Name><Enable>1</Enable>"
	  "<Bandwidth>60%</Bandwidth></QOSGroup><QOSGroup><Name>GA</Name><Enable>1</Enable>"
	  "</QOSGroup></QOSGroups><VirtualFabrics>\n"
	  VF("V1", "<PKey>0x10</PKey><QOSGroup>G1</QOSGroup><Member>G</Member><Application>A</Application>")
	  VF("V2", "<PKey>0x20</PKey><QOSGroup>G2</QOSGroup><Member>G</Member><Application>A</Application>")
	  ADMIN("<QOSGroup>GA</QOSGroup>") "</VirtualFabrics>" TAIL, 1, VF_DIAG_ERROR,
	  "explicit Bandwidth of the active virtual fabrics adds up to 120% ('G1' 60%, 'G2' 60%), over 100%",
	  NULL },
};

static void test_audit(void)
{
	for (size_t i = 0; i < sizeof(audit) / sizeof(audit[0]); i++) {
		struct vf_config c;
		struct vf_diag d;
		char path[64];
		bool ok, found = !audit[i].expect;

		load_text(audit[i].text, &c, &d, path, sizeof(path));
		for (unsigned k = 0; k < d.n && !found; k++)
			found = d.v[k].level == audit[i].level &&
				strstr(d.v[k].text, path) &&
				strstr(d.v[k].text, audit[i].expect) &&
				(!audit[i].expect2 ||
				 strstr(d.v[k].text, audit[i].expect2));
		ok = found && d.errors == audit[i].errors &&
		     (audit[i].expect || !d.n);
		if (!OK(ok, audit[i].what))
			dump(&d);
		unlink(path);
		vf_diag_free(&d);
		vf_config_free(&c);
	}
}

/*
 * A config is told apart from the next by its generation, not its
 * address: the plugin decides whether a routing was made for the policy
 * in force by it, and a freed config's address is often the next one's.
 */
static void test_generation(void)
{
	struct vf_config *a = malloc(sizeof(*a)), *b;
	uint64_t first;

	vf_config_init(a);
	first = a->generation;
	vf_config_init(a);
	OK(a->generation != first,
	   "a config initialized again is another generation");
	first = a->generation;
	free(a);
	b = malloc(sizeof(*b));
	vf_config_init(b);
	OK(b->generation && b->generation != first,
	   "the next config is another generation, at whatever address");
	free(b);
}

int main(void)
{
	test_generation();
	test_sample();
	test_bad();
	test_typo_hint();
	test_all_in_one_pass();
	test_one_pass_generated();
	test_opa_values();
	test_bom();
	test_hostile();
	test_resolve();
	test_include_chain();
	test_audit();
	return tap_done();
}
