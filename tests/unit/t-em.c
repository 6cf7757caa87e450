// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * The Ethernet Manager's configuration and policy: <VirtualEthernetSwitches>
 * parsed and validated (every error with file, line and object), the
 * vESWs resolved on a fat tree into member vports with the VeswPortInfo
 * they must hold, and their MAC tables.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "partition/dgresolve.h"
#include "partition/internal/xmlconf.h"
#include "routing/netfile.h"
#include "vnic/datapath.h"
#include "vnic/ema.h"
#include "vnic/empolicy.h"
#include "fabrics.h"
#include "taptest.h"

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

static void load_text(const char *text, struct vf_config *c,
		      struct vf_diag *d, char *path, size_t size)
{
	FILE *f;

	snprintf(path, size, "/tmp/t-em-XXXXXX");
	close(mkstemp(path));
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	vf_config_init(c);
	*d = (struct vf_diag){ 0 };
	vf_xml_load(path, c, d);
	if (!d->errors)
		vf_config_validate(c, d);
}

/*
 * fat_tree(2, 1, 3): CAs H0_0..H0_2 (NodeGUIDs 0x100000, 04, 08) and
 * H1_0..H1_2 (0x10000c, 10, 14).
 */
static const char good[] =
	"<Config><Common>\n"
	"<DeviceGroups>\n"
	" <DeviceGroup><Name>g1</Name><NodeGUID>0x100000</NodeGUID>\n"
	"  <NodeGUID>0x100004</NodeGUID><NodeGUID>0x100010</NodeGUID></DeviceGroup>\n"
	" <DeviceGroup><Name>g2</Name><NodeGUID>0x100010</NodeGUID>\n"
	"  <NodeGUID>0x100014</NodeGUID></DeviceGroup>\n"
	" <DeviceGroup><Name>gw</Name><NodeGUID>0x100014</NodeGUID></DeviceGroup>\n"
	"</DeviceGroups>\n"
	"<VirtualFabrics>\n"
	" <VirtualFabric><Name>T1</Name><Enable>1</Enable><PKey>0x11</PKey>\n"
	"  <Member>g1</Member><Application>All</Application></VirtualFabric>\n"
	" <VirtualFabric><Name>T2</Name><Enable>1</Enable><PKey>0x12</PKey>\n"
	"  <Member>g2</Member><Application>All</Application></VirtualFabric>\n"
	"</VirtualFabrics>\n"
	"<VirtualEthernetSwitches><FabricId>5</FabricId>\n"
	" <VirtualEthernetSwitch><Name>ve1</Name><VeswId>1</VeswId>\n"
	"  <VirtualFabric>T1</VirtualFabric><Member>g1</Member>\n"
	"  <EthMTU>9000</EthMTU><DefaultPort>gw</DefaultPort></VirtualEthernetSwitch>\n"
	" <VirtualEthernetSwitch><Name>ve2</Name><VeswId>2</VeswId>\n"
	"  <VirtualFabric>T2</VirtualFabric><Member>AllCAs</Member>\n"
	"  <MacScheme>local</MacScheme>\n"
	"  <UnknownMulticastDlid>0xC010</UnknownMulticastDlid></VirtualEthernetSwitch>\n"
	" <VirtualEthernetSwitch><Name>off</Name><VeswId>3</VeswId><Enable>0</Enable>\n"
	"  <VirtualFabric>T1</VirtualFabric><Member>g1</Member></VirtualEthernetSwitch>\n"
	"</VirtualEthernetSwitches>\n"
	"</Common></Config>\n";

static void test_parse(void)
{
	struct vf_config c;
	struct vf_diag d;
	char path[64];
	const struct vf_cfg_vesw *s;

	load_text(good, &c, &d, path, sizeof(path));
	if (!OK(!d.errors, "the good file loads and validates"))
		dump(&d);
	EQ_U(c.em.num_vesws, 3, "three vESWs");
	EQ_U(c.em.fabric_id, 5, "FabricId");
	s = &c.em.vesws[0];
	EQ_S(s->name, "ve1", "name");
	EQ_U(s->vesw_id, 1, "VeswId");
	EQ_S(s->vf, "T1", "VirtualFabric");
	EQ_U(s->eth_mtu, 9000, "EthMTU");
	EQ_U(s->num_default_ports, 1, "DefaultPort");
	EQ_U(s->u_mcast_dlid, 0, "no UnknownMulticastDlid: replicate");
	OK(s->enable, "enabled by default");
	s = &c.em.vesws[1];
	EQ_U(s->eth_mtu, 1500, "EthMTU default 1500");
	EQ_U(s->u_mcast_dlid, 0xC010, "UnknownMulticastDlid");
	EQ_U(s->mac_scheme, VF_EM_MAC_LOCAL, "MacScheme local");
	OK(!c.em.vesws[2].enable, "Enable 0");
	EQ_U(c.em.vesws[2].at.line, 23, "the line of the third vESW");
	unlink(path);
	vf_diag_free(&d);
	vf_config_free(&c);
}

/* A config whose <VirtualEthernetSwitches> is `body`, and what it says. */
static void bad(const char *body, const char *a, const char *b,
		const char *what)
{
	char text[4096], path[64];
	struct vf_config c;
	struct vf_diag d;

	snprintf(text, sizeof(text),
		 "<Config><Common>\n"
		 "<DeviceGroups><DeviceGroup><Name>g</Name><NodeGUID>1</NodeGUID></DeviceGroup></DeviceGroups>\n"
		 "<VirtualFabrics>\n"
		 " <VirtualFabric><Name>on</Name><Enable>1</Enable><Member>g</Member><Application>All</Application></VirtualFabric>\n"
		 " <VirtualFabric><Name>off</Name><Member>g</Member><Application>All</Application></VirtualFabric>\n"
		 "</VirtualFabrics>\n"
		 "<VirtualEthernetSwitches>\n%s</VirtualEthernetSwitches>\n"
		 "</Common></Config>\n", body);
	load_text(text, &c, &d, path, sizeof(path));
	if (!OK(d.errors && said(&d, a, b), what))
		dump(&d);
	/* every message names the file and line */
	if (d.n && !OK(strstr(d.v[0].text, path) != NULL, "  ... with the file"))
		dump(&d);
	unlink(path);
	vf_diag_free(&d);
	vf_config_free(&c);
}

#define VE(name, id, vf, rest)                                            \
	"<VirtualEthernetSwitch><Name>" name "</Name><VeswId>" id           \
	"</VeswId><VirtualFabric>" vf "</VirtualFabric><Member>g</Member>"  \
	rest "</VirtualEthernetSwitch>\n"

static void test_errors(void)
{
	bad(VE("a", "1", "on", "") VE("b", "1", "on", ""),
	    ":9: VirtualEthernetSwitch 'b'", "VeswId 1 is already used by 'a'",
	    "duplicate VeswId, with line and name");
	bad(VE("a", "1", "on", "") VE("a", "2", "on", ""),
	    "VirtualEthernetSwitch 'a'", "defined twice", "duplicate name");
	bad(VE("a", "0", "on", ""), "VirtualEthernetSwitch 'a'", "<VeswId> '0'",
	    "VeswId 0");
	bad(VE("a", "4096", "on", ""), "'4096' is not an integer 1-4095",
	    NULL, "VeswId 4096");
	bad("<VirtualEthernetSwitch><Name>a</Name><VirtualFabric>on</VirtualFabric><Member>g</Member></VirtualEthernetSwitch>\n",
	    "'a'", "needs a <VeswId>", "missing VeswId");
	bad(VE("a", "1", "nope", ""), "'a'", "VirtualFabric 'nope' is not defined",
	    "unknown VF");
	bad(VE("a", "1", "off", ""), "'a'", "VirtualFabric 'off' is not enabled",
	    "disabled VF");
	bad(VE("a", "1", "on", "<Member>nogroup</Member>"), "'a'",
	    "Member DeviceGroup 'nogroup' is not defined", "unknown member group");
	bad(VE("a", "1", "on", "<DefaultPort>gwx</DefaultPort>"), "'a'",
	    "DefaultPort DeviceGroup 'gwx' is not defined", "unknown gateway group");
	bad(VE("a", "1", "on", "<EthMTU>67</EthMTU>"), "<EthMTU> '67'",
	    "68-16333", "MTU too small");
	bad(VE("a", "1", "on", "<EthMTU>16334</EthMTU>"), "<EthMTU> '16334'",
	    NULL, "MTU too large for a 16B packet");
	bad(VE("a", "1", "on", "<UnknownMulticastDlid>0x100</UnknownMulticastDlid>"),
	    "<UnknownMulticastDlid> '0x100'", "multicast LID",
	    "a unicast LID as the multicast DLID");
	bad(VE("a", "1", "on", "<MacScheme>random</MacScheme>"),
	    "<MacScheme> 'random'", NULL, "unknown MacScheme");
	bad("<FabricId>1024</FabricId>", "<FabricId> '1024'", "0-1023",
	    "FabricId over 10 bits");
	bad("<VirtualEthernetSwitch><VeswId>1</VeswId></VirtualEthernetSwitch>\n",
	    "VirtualEthernetSwitch: needs a <Name>", NULL, "no name");
}

static struct vf_fabric *tree(void)
{
	return fat_tree(2, 1, 3, 0);
}

static uint32_t port_of(const struct vf_fabric *f, uint64_t node_guid)
{
	for (uint32_t n = 0; n < f->num_nodes; n++)
		if (f->nodes[n].guid == node_guid)
			return f->nodes[n].first_port + 1;
	return VF_NONE;
}

static void test_policy(void)
{
	static const uint16_t pkeys[] = { 0x11, 0x12 };
	static const int sls[] = { -1, 3 };
	struct vf_fabric *f = tree();
	struct vf_config c;
	struct vf_diag d;
	struct vf_dg_members m = { 0 };
	struct vf_em_plan p;
	char path[64];
	uint32_t h0 = port_of(f, 0x100000), h4 = port_of(f, 0x100010),
		 h5 = port_of(f, 0x100014);
	int i;

	load_text(good, &c, &d, path, sizeof(path));
	unlink(path);
	OK(!vf_dg_resolve(&c, f, VF_NONE, &m), "resolve the groups");
	vf_diag_free(&d);
	d = (struct vf_diag){ 0 };
	OK(!vf_em_plan_build(&c, f, &m, pkeys, sls, VF_NONE, &p, &d),
	   "build the plan");
	EQ_U(p.num_vesws, 2, "the disabled vESW is left out");
	EQ_U(p.vesws[0].count, 3, "ve1: the three ports of g1 (all in T1)");
	/* ve2: Member AllCAs, but only g2 is in T2 */
	EQ_U(p.vesws[1].count, 2, "ve2: AllCAs narrowed to T2's members");
	EQ_U(p.num_members, 5, "five member vports");
	EQ_U(p.vesws[1].pkey, 0x8012, "ve2 P_Key: T2's, full member");
	i = vf_em_find(&p, f->ports[h4].guid, 1);
	OK(i >= 0 && p.members[i].vesw == 1,
	   "a port in two vESWs has vport 1 for the second");
	i = vf_em_find(&p, f->ports[h0].guid, 0);
	if (OK(i >= 0, "H0_0 is a member of ve1")) {
		const struct vf_em_want *w = &p.members[i].want;
		uint8_t mac[6];

		EQ_U(w->vesw.fabric_id, 5, "fabric id");
		EQ_U(w->vesw.vesw_id, 1, "vesw id");
		EQ_U(w->vesw.pkey, 0x8011, "pkey");
		EQ_U(w->vesw.eth_mtu, 9000, "eth_mtu");
		EQ_U(w->vesw.def_port_mask, 1, "one default port");
		EQ_U(w->vesw.u_ucast_dlid[0], f->ports[h5].base_lid,
		     "the gateway's LID");
		EQ_U(w->vesw.u_mcast_dlid, 0, "replication");
		EQ_U(w->encap_slid, f->ports[h0].base_lid, "encap_slid = LID");
		EQ_U(w->port_num, f->ports[h0].base_lid, "port_num = LID");
		EQ_U(w->sc, 0, "T1 has no SL: SC 0");
		vf_dp_lmac(5, 1, f->ports[h0].base_lid, mac);
		OK(!memcmp(mac, w->base_mac, 6), "base MAC: section 8");
		EQ_U(w->base_mac[0], 0x16, "  06|fabric 5<<2 ... byte 0");
	}
	i = vf_em_find(&p, f->ports[h5].guid, 0);
	if (OK(i >= 0, "H1_2 is a member of ve2")) {
		EQ_U(p.members[i].want.sc, 3, "SC from T2's SL");
		EQ_U(p.members[i].want.vesw.u_mcast_dlid, 0xC010,
		     "UnknownMulticastDlid");
		EQ_U(p.members[i].want.vesw.eth_mtu, 1500, "default MTU");
	}
	/* MAC tables */
	{
		struct vf_vport_mac t[16];
		struct vf_em_macs *l = calloc(p.num_members, sizeof(*l));
		uint8_t host[2][6] = { { 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 },
				       { 0x00, 0x11, 0x22, 0x33, 0x44, 0x66 } };
		uint32_t d1, d2, d3;
		unsigned n;
		int me = vf_em_find(&p, f->ports[h0].guid, 0);
		int peer = vf_em_find(&p, f->ports[h4].guid, 0);

		n = vf_em_mac_table(&p, (unsigned)me, NULL, t, 16, &d1);
		EQ_U(n, 2, "an entry per other member (for replication)");
		EQ_U(t[0].dlid_sd >> 8, p.members[p.vesws[0].first +
			(p.members[p.vesws[0].first].guid ==
			 p.members[me].guid)].lid, "entry DLID = peer LID");
		OK(d1 != 0, "digest never 0");
		vf_em_mac_table(&p, (unsigned)me, NULL, t, 16, &d2);
		EQ_U(d1, d2, "same table, same digest");
		l[peer].n = 2;
		l[peer].mac = host;
		n = vf_em_mac_table(&p, (unsigned)me, l, t, 16, &d3);
		EQ_U(n, 4, "a peer's host MACs are added");
		OK(d3 != d1, "and change the digest");
		OK(!memcmp(t[n - 1].mac, host[1], 6) &&
		   t[n - 1].dlid_sd >> 8 == p.members[peer].lid,
		   "host MAC -> that peer's LID");
		n = vf_em_mac_table(&p, (unsigned)peer, l, t, 16, &d3);
		EQ_U(n, 2, "its own host MACs are not in its own table");
		n = vf_em_mac_table(&p, (unsigned)me, l, t, 1, &d3);
		EQ_U(n, 1, "bounded by cap");
		free(l);
	}
	vf_em_plan_free(&p);
	vf_diag_free(&d);
	/* the SM's port is never a member; a VF without a P_Key is reported */
	{
		static const uint16_t nokey[] = { 0x11, 0 };

		d = (struct vf_diag){ 0 };
		vf_em_plan_build(&c, f, &m, nokey, NULL, h0, &p, &d);
		EQ_U(p.num_vesws, 1, "ve2 left out: T2 has no P_Key");
		EQ_U(p.vesws[0].count, 2, "the SM's port is not a member");
		OK(said(&d, "VirtualEthernetSwitch 've2'", "no P_Key"),
		   "  ... and that is reported with the vESW's name");
		vf_em_plan_free(&p);
		vf_diag_free(&d);
	}
	vf_dg_members_free(&m);
	vf_config_free(&c);
	vf_fabric_destroy(f);
}

/*
 * Reading back a table the EM has no record of: from the first slice it
 * does not write, slice by slice while they hold entries.
 */
static void test_scan(void)
{
	struct vf_vport_mac page[VF_EMA_MACS_PER_MAD];
	unsigned end = 0;

	EQ_U(vf_em_scan_start(0), 11, "empty: slice 0 is written anyway");
	EQ_U(vf_em_scan_start(1), 11, "1 entry: from index 11");
	EQ_U(vf_em_scan_start(11), 11, "11 entries: from index 11");
	EQ_U(vf_em_scan_start(12), 22, "12 entries: from index 22");

	memset(page, 0, sizeof(page));
	page[3].mac[5] = 1;
	OK(vf_em_scan_page(11, page, 11, &end),
	   "a slice with an entry: read the next one");
	EQ_U(end, 15, "  ... the table reaches past index 14");
	page[3].mac[5] = 0;
	page[0].mac[0] = 0x02;
	OK(vf_em_scan_page(22, page, 11, &end), "the next one has index 22");
	EQ_U(end, 23, "  ... the end moves to 23");
	memset(page, 0, sizeof(page));
	OK(!vf_em_scan_page(33, page, 11, &end),
	   "an all-empty slice ends the scan");
	EQ_U(end, 23, "  ... and leaves the end");
	page[10].mac[2] = 7;
	OK(!vf_em_scan_page(2046, page, 2, &end),
	   "the table's last slice ends it, used or not");
	page[1].mac[2] = 7;
	OK(!vf_em_scan_page(2046, page, 2, &end) && end == 2048,
	   "  ... its last index counted");
	end = 0;
	OK(!vf_em_scan_page(11, page, 0, &end) && end == 0,
	   "an answer with no entries ends it");
}

int main(void)
{
	test_parse();
	test_errors();
	test_policy();
	test_scan();
	return tap_done();
}
