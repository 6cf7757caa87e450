// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * Net file parser and writer.  Fixtures in tests/data/ were captured from
 * ibsim 0.10 + OpenSM 3.3.23 + infiniband-diags 44 (see tests/data/README).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "routing/netfile.h"
#include "tests/unit/taptest.h"


static struct vf_fabric *parse(const char *text, unsigned lmc,
			       struct vf_err *err)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	struct vf_fabric *f;

	if (!in)
		return NULL;
	f = vf_netfile_read(in, "inline.net", lmc, err);
	fclose(in);
	return f;
}

static const struct vf_node *node(const struct vf_fabric *f, const char *id)
{
	uint32_t n = vf_fabric_find_name(f, id);

	return n == VF_NONE ? NULL : &f->nodes[n];
}

static const struct vf_port *port(const struct vf_fabric *f, const char *id,
				  unsigned num)
{
	const struct vf_node *n = node(f, id);

	return n && num <= n->num_ports ? vf_node_port(f, n, num) : NULL;
}

/* Name of the node at the other end of id[num], or "" when unlinked. */
static const char *peer(const struct vf_fabric *f, const char *id,
			unsigned num, unsigned *rnum)
{
	const struct vf_port *p = port(f, id, num), *r;

	*rnum = 0;
	if (!p || p->remote == VF_NONE)
		return "";
	r = &f->ports[p->remote];
	*rnum = r->num;
	return vf_node_name(f, &f->nodes[r->node]);
}

/* Parsing must fail and the message must carry every fragment. */
static void expect_err(const char *text, const char *loc, const char *what,
		       const char *label)
{
	struct vf_err err = { "" };
	struct vf_fabric *f = parse(text, 0, &err);

	OK(!f, label);
	if (!OK(strstr(err.msg, loc) && (!what || strstr(err.msg, what)),
		label))
		printf("#   message \"%s\", wanted \"%s\" and \"%s\"\n",
		       err.msg, loc, what ? what : "");
	vf_fabric_destroy(f);
}

static void test_ibsim_example(void)
{
	struct vf_err err = { "" };
	struct vf_fabric *f = vf_netfile_load(fixture("2sw2path4hca.net"), 0,
					      &err);
	unsigned rn;

	if (!OK(f, "ibsim example loads"))
		printf("# %s\n", err.msg);
	if (!f)
		return;
	EQ_U(f->num_nodes, 6, "6 nodes");
	EQ_U(f->num_switches, 2, "2 switches");
	/* ibsim 0.10: switches from 0x200000 by 1, CAs from 0x100000 by 3 */
	EQ_U(node(f, "Switch1")->guid, 0x200000, "Switch1 GUID");
	EQ_U(node(f, "Switch2")->guid, 0x200001, "Switch2 GUID");
	EQ_U(node(f, "Hca1")->guid, 0x100000, "Hca1 GUID");
	EQ_U(node(f, "Hca2")->guid, 0x100003, "Hca2 GUID");
	EQ_U(node(f, "Hca3")->guid, 0x100006, "Hca3 GUID");
	EQ_U(node(f, "Hca4")->guid, 0x100009, "Hca4 GUID");
	EQ_U(port(f, "Hca2", 1)->guid, 0x100004, "Hca2 port 1 GUID");
	EQ_U(port(f, "Hca2", 2)->guid, 0x100005, "Hca2 port 2 GUID");
	EQ_U(port(f, "Switch2", 5)->guid, 0x200001, "switch ports: node GUID");
	EQ_U(node(f, "Hca3")->sysimg_guid, 0x100006, "sysimg = node GUID");
	EQ_S(vf_node_desc(f, node(f, "Hca4")), "Hca4", "desc defaults to id");
	EQ_S(peer(f, "Switch1", 5, &rn), "Switch2", "Switch1[5] -> Switch2");
	EQ_U(rn, 5, "... port 5");
	EQ_S(peer(f, "Hca3", 1, &rn), "Switch1", "Hca3[1] -> Switch1");
	EQ_U(rn, 2, "... port 2");
	EQ_S(peer(f, "Hca3", 2, &rn), "", "Hca3[2] unlinked");
	EQ_S(peer(f, "Switch1", 4, &rn), "", "Switch1[4] unlinked");
	EQ_U(port(f, "Switch1", 3)->width, 4, "default width 4x");
	EQ_U(port(f, "Switch1", 3)->speed, VF_SPEED_SDR, "default speed SDR");
	EQ_U(port(f, "Switch1", 0)->base_lid, 1, "Switch1 got LID 1");
	EQ_U(port(f, "Switch2", 0)->base_lid, 2, "Switch2 got LID 2");
	EQ_U(port(f, "Hca1", 1)->base_lid, 3, "Hca1 got LID 3");
	EQ_U(port(f, "Hca1", 2)->base_lid, 0, "unlinked port: no LID");
	OK(f->finalized, "finalized");
	vf_fabric_destroy(f);
}

/*
 * The model of an ibsim file must be the fabric ibsim built from it, as
 * ibnetdiscover saw it: same GUIDs, port GUIDs, NodeDescs and links.
 */
static void cross_check(const char *net, const char *disc)
{
	struct vf_err err = { "" };
	struct vf_fabric *a = vf_netfile_load(fixture(net), 0, &err);
	struct vf_fabric *b = vf_netfile_load(fixture(disc), 0, &err);
	unsigned bad = 0;

	if (!OK(a && b, "both dialects load"))
		printf("# %s\n", err.msg);
	if (!a || !b)
		goto out;
	EQ_U(a->num_nodes, b->num_nodes, "same node count");
	for (uint32_t n = 0; n < a->num_nodes; n++) {
		const struct vf_node *x = &a->nodes[n], *y;
		uint32_t m = vf_fabric_find_guid(b, x->guid);

		if (m == VF_NONE) {
			printf("# GUID 0x%llx missing\n",
			       (unsigned long long)x->guid);
			bad++;
			continue;
		}
		y = &b->nodes[m];
		bad += x->type != y->type || x->num_ports != y->num_ports ||
		       x->sysimg_guid != y->sysimg_guid ||
		       strcmp(vf_node_desc(a, x), vf_node_desc(b, y));
		for (unsigned i = 1; i <= x->num_ports; i++) {
			const struct vf_port *p = vf_node_port(a, x, i);
			const struct vf_port *q = vf_node_port(b, y, i);
			const struct vf_port *pr, *qr;

			bad += p->guid != q->guid;
			if ((p->remote == VF_NONE) != (q->remote == VF_NONE)) {
				bad++;
				continue;
			}
			if (p->remote == VF_NONE)
				continue;
			pr = &a->ports[p->remote];
			qr = &b->ports[q->remote];
			bad += pr->num != qr->num ||
			       a->nodes[pr->node].guid !=
			       b->nodes[qr->node].guid;
			bad += p->width != q->width;
		}
	}
	EQ_U(bad, 0, "net file and ibnetdiscover agree node by node");
out:
	vf_fabric_destroy(a);
	vf_fabric_destroy(b);
}

static void test_ibnetdiscover(void)
{
	struct vf_err err = { "" };
	struct vf_fabric *f = vf_netfile_load(
		fixture("2sw2path4hca.ibnetdiscover"), 0, &err);
	const char *sw1 = "S-0000000000200000", *h4 = "H-0000000000100009";
	unsigned rn;

	if (!OK(f, "ibnetdiscover output loads"))
		printf("# %s\n", err.msg);
	if (!f)
		return;
	EQ_U(f->num_nodes, 6, "6 nodes");
	EQ_S(vf_node_desc(f, node(f, sw1)), "Switch1", "switch NodeDesc");
	EQ_S(vf_node_desc(f, node(f, h4)), "Hca4", "CA NodeDesc");
	EQ_U(node(f, sw1)->guid, 0x200000, "switchguid=");
	EQ_U(node(f, h4)->guid, 0x100009, "caguid=");
	EQ_U(port(f, h4, 1)->guid, 0x10000a, "CA port GUID from [1](...)");
	EQ_U(node(f, "S-0000000000200001")->sysimg_guid, 0x200001,
	     "sysimgguid=");
	EQ_U(port(f, sw1, 0)->base_lid, 1, "switch LID from header");
	EQ_U(port(f, "S-0000000000200001", 0)->base_lid, 3, "Switch2 LID 3");
	EQ_U(port(f, h4, 1)->base_lid, 6, "CA LID from port comment");
	EQ_U(port(f, "H-0000000000100003", 1)->base_lid, 4, "Hca2 LID 4");
	EQ_U(vf_fabric_lid_node(f, 5), vf_fabric_find_name(f,
			"H-0000000000100006"), "LID 5 is Hca3");
	EQ_U(f->max_lid, 6, "max LID 6");
	EQ_S(peer(f, h4, 1, &rn), "S-0000000000200001", "Hca4 -> Switch2");
	EQ_U(rn, 2, "... port 2");
	EQ_U(port(f, h4, 1)->width, 4, "4x");
	EQ_U(port(f, h4, 1)->speed, VF_SPEED_SDR, "SDR");
	vf_fabric_destroy(f);

	f = vf_netfile_load(fixture("2sw2path4hca-lmc2.ibnetdiscover"), 0,
			    &err);
	if (!OK(f, "LMC 2 ibnetdiscover output loads"))
		printf("# %s\n", err.msg);
	if (!f)
		return;
	EQ_U(port(f, h4, 1)->base_lid, 20, "Hca4 LID 20");
	EQ_U(port(f, h4, 1)->lmc, 2, "Hca4 LMC 2");
	EQ_U(port(f, "S-0000000000200001", 0)->base_lid, 8, "Switch2 LID 8");
	EQ_U(port(f, "S-0000000000200001", 0)->lmc, 0, "switch LMC 0");
	EQ_U(f->max_lid, 23, "max LID 23 (20 + 3)");
	EQ_U(vf_fabric_lid_node(f, 23), vf_fabric_find_name(f, h4),
	     "LID 23 is Hca4");
	EQ_U(vf_fabric_lid_node(f, 2), VF_NONE, "LID 2 unused");
	vf_fabric_destroy(f);
}

static void test_speeds(void)
{
	struct vf_err err = { "" };
	struct vf_fabric *f = vf_netfile_load(fixture("speeds.net"), 0, &err);

	if (!OK(f, "speeds.net loads"))
		printf("# %s\n", err.msg);
	if (!f)
		return;
	EQ_U(node(f, "SwA")->guid, 0x500000, "switchguid= base");
	EQ_U(node(f, "SwB")->guid, 0x500001, "next switch GUID");
	EQ_U(node(f, "SwA")->sysimg_guid, 0xabc000, "sysimgguid= applies");
	EQ_U(node(f, "SwB")->sysimg_guid, 0x500001, "... to one node only");
	EQ_U(node(f, "HcaB")->guid, 0x700003, "caguid= base, +3");
	EQ_U(port(f, "HcaB", 2)->guid, 0x700005, "HcaB port 2 GUID");
	EQ_S(vf_node_desc(f, node(f, "SwA")), "spine A", "# \"desc\"");
	EQ_U(port(f, "SwA", 2)->width, 12, "w=8 & w=9: 12x");
	EQ_U(port(f, "SwB", 2)->width, 12, "both ends");
	EQ_U(port(f, "SwA", 3)->width, 4, "width=3 & width=3: 4x");
	/* ibsim's link_ports; OpenSM's PortInfo Set later makes it QDR */
	EQ_U(port(f, "SwA", 3)->speed, VF_SPEED_DDR, "s=2 & speed=7: DDR");
	EQ_U(port(f, "HcaA", 1)->speed, VF_SPEED_QDR, "s=4: QDR");
	EQ_U(port(f, "HcaB", 2)->speed, VF_SPEED_FDR, "e=1: FDR");
	vf_fabric_destroy(f);

	f = vf_netfile_load(fixture("speeds.ibnetdiscover"), 0, &err);
	if (!OK(f, "speeds.ibnetdiscover loads"))
		printf("# %s\n", err.msg);
	if (!f)
		return;
	EQ_U(port(f, "S-0000000000500000", 2)->width, 12, "12xQDR: width");
	EQ_U(port(f, "S-0000000000500000", 2)->speed, VF_SPEED_QDR,
	     "12xQDR: speed");
	EQ_U(port(f, "H-0000000000700003", 2)->speed, VF_SPEED_FDR, "4xFDR");
	EQ_U(port(f, "H-0000000000700003", 2)->base_lid, 4, "HcaB LID 4");
	EQ_U(node(f, "S-0000000000500000")->sysimg_guid, 0xabc000,
	     "sysimgguid of SwA as ibsim reports it");
	vf_fabric_destroy(f);
	cross_check("speeds.net", "speeds.ibnetdiscover");
}

static void test_inline(void)
{
	static const char text[] =
		"hcaguids=0x1000\n"
		"module=\"m1\"\n"
		"Switch 4 \"sw\" # fat switch base port 0 lid 7 lmc 0\n"
		"[1] \"a\" w=1\n"
		"[2] \"b\"[2] w=16 e=2\n"
		"[3] \"r\"[1] w=4 e=4\n"
		"[4] \"c\"[1] # \"x\" lid 9 4xFDR10\n"
		"\n"
		"hcaguids+0x100\n"
		"Hca 2 \"a\"\n"
		"[1] \"sw\"[1] w=1\n"
		"# comment inside a block\n"
		"\n"
		"vendid=0x2c9\n"
		"devid=0x1003\n"
		"Ca 2 \"b\"\n"
		"[2] \"m1#sw\"[2] w=31 e=7\n"
		"\n"
		"Rt 1 \"r\"\n"
		"[1] \"sw\"[3] w=12 e=4\n"
		"\n"
		"Ca 1 \"c\"\n"
		"[1] \"sw\"[4] # lid 20 lmc 1 \"sw\" lid 7 4xFDR\n\n"
		"some trailing junk between blocks is ignored, as ibsim does\n";
	struct vf_err err = { "" };
	struct vf_fabric *f = parse(text, 0, &err);
	unsigned rn;

	if (!OK(f, "inline file loads"))
		printf("# %s\n", err.msg);
	if (!f)
		return;
	EQ_S(vf_node_desc(f, node(f, "m1#sw")), "fat switch",
	     "unquoted NodeDesc, module prefix on id");
	EQ_U(port(f, "m1#sw", 0)->base_lid, 7, "switch LID from header");
	EQ_U(node(f, "m1#a")->guid, 0x1100, "hcaguids+ is relative to base");
	EQ_U(node(f, "m1#b")->guid, 0x1103, "next CA");
	EQ_U(node(f, "m1#r")->guid, 0, "ibsim routers start at GUID 0");
	EQ_U(node(f, "m1#c")->guid, 0x1106, "CA after a router");
	EQ_S(peer(f, "m1#sw", 1, &rn), "m1#a", "remote port defaults to 1");
	EQ_U(rn, 1, "... is 1");
	EQ_U(port(f, "m1#a", 1)->width, 1, "w=1: 1x");
	EQ_U(port(f, "m1#sw", 2)->width, 2, "w=16 & w=31: 2x");
	EQ_U(port(f, "m1#sw", 2)->speed, VF_SPEED_EDR, "e=2 & e=7: EDR");
	EQ_U(port(f, "m1#sw", 3)->width, 8, "w=4 & w=12: 8x");
	EQ_U(port(f, "m1#sw", 3)->speed, VF_SPEED_HDR, "e=4: HDR");
	EQ_U(port(f, "m1#sw", 4)->speed, VF_SPEED_FDR10, "FDR10 & FDR: FDR10");
	EQ_U(port(f, "m1#c", 1)->base_lid, 20, "CA LID");
	EQ_U(port(f, "m1#c", 1)->lmc, 1, "CA LMC");
	EQ_U(port(f, "m1#a", 1)->base_lid, 22,
	     "assigned LIDs start after the given ones");
	vf_fabric_destroy(f);

	/* a link declared on one side only is still a link */
	f = parse("Switch 2 \"s\"\n[1] \"h\"\n\nHca 1 \"h\"\n", 2, &err);
	if (!OK(f, "one-sided link accepted"))
		printf("# %s\n", err.msg);
	if (f) {
		EQ_S(peer(f, "h", 1, &rn), "s", "h[1] linked back to s");
		EQ_U(port(f, "h", 1)->base_lid, 4, "LMC 2: CA LID aligned to 4");
		EQ_U(port(f, "h", 1)->lmc, 2, "LMC 2 applied");
	}
	vf_fabric_destroy(f);
}

static void test_include(void)
{
	char dir[] = "/tmp/t-netfile-XXXXXX", sub[4200], main_path[4200];
	struct vf_err err = { "" };
	struct vf_fabric *f;
	FILE *out;

	if (!OK(mkdtemp(dir), "temp dir"))
		return;
	snprintf(sub, sizeof(sub), "%s/part.net", dir);
	snprintf(main_path, sizeof(main_path), "%s/main.net", dir);
	out = fopen(sub, "w");
	fputs("Hca 1 \"h\"\n[1] \"s\"[1]\n\nHca 1 \"bad\"\n[1] \"s\"[9]\n",
	      out);
	fclose(out);
	out = fopen(main_path, "w");
	fputs("Switch 2 \"s\"\n[1] \"h\"\n\ninclude \"part.net\"\n", out);
	fclose(out);
	f = vf_netfile_load(main_path, 0, &err);
	OK(!f, "error inside an included file");
	if (!OK(strstr(err.msg, "part.net:5: node \"bad\" port 1") &&
		strstr(err.msg, "has 2 ports"), "names the included file"))
		printf("#   got \"%s\"\n", err.msg);
	vf_fabric_destroy(f);
	out = fopen(sub, "w");
	fputs("Hca 1 \"h\"\n[1] \"s\"[1]\n", out);
	fclose(out);
	f = vf_netfile_load(main_path, 0, &err);
	if (!OK(f, "include relative to the including file"))
		printf("# %s\n", err.msg);
	if (f)
		EQ_U(f->num_nodes, 2, "2 nodes via include");
	vf_fabric_destroy(f);
	unlink(sub);
	unlink(main_path);
	rmdir(dir);
}

static void test_errors(void)
{
	struct vf_err err = { "" };

	expect_err("", "inline.net: no nodes", NULL, "empty file");
	expect_err("# only\n# comments\n", "inline.net: no nodes", NULL,
		   "comments only");
	expect_err("Switch 8 \"s\"\n[1] \"h\"[1]\nbogus line\n",
		   "inline.net:3: node \"s\"", "unknown line in node block",
		   "unknown line in a node block");
	expect_err("Hca 1 \"h\"\n\nHca 2 \"h\"\n", "inline.net:3: node \"h\"",
		   "duplicate node id (first at inline.net:1)", "duplicate id");
	expect_err("Switch 4 \"s\"\n[2] \"nosuch\"[1]\n",
		   "inline.net:2: node \"s\" port 2",
		   "link to undeclared node \"nosuch\"", "undeclared node");
	expect_err("Switch 36 \"Switch1\"\n[40] \"h\"[1]\n",
		   "inline.net:2: node \"Switch1\" port 40",
		   "port number out of range (switch has 36 ports)",
		   "port out of range");
	expect_err("Switch 4 \"s\"\n[1] \"h\"[3]\n\nHca 2 \"h\"\n",
		   "inline.net:2: node \"s\" port 1",
		   "\"h\"[3], but that node has 2 ports",
		   "remote port out of range");
	expect_err("Switch 4 \"s\"\n[0] \"h\"[1]\n",
		   "inline.net:2: node \"s\" port 0", "out of range",
		   "port 0 cannot be linked");
	expect_err("Switch x \"s\"\n", "inline.net:1:", "port count",
		   "bad port count");
	expect_err("\n\nSwitch 300 \"s\"\n", "inline.net:3: node \"s\"",
		   "bad port count 300", "too many ports");
	expect_err("Switch 4 \"s\"\n[1x] \"h\"\n", "inline.net:2: node \"s\"",
		   "bad port number", "bad port number");
	expect_err("Switch 4 \"s\"\n[1] \"h\"[1] w=40\n",
		   "inline.net:2: node \"s\" port 1", "w=40",
		   "bad width code");
	expect_err("Switch 4 \"s\"\n[1] \"h\"[1] s=0x9\n",
		   "inline.net:2: node \"s\" port 1", "s=0x9",
		   "bad speed code");
	expect_err("width=0\nSwitch 4 \"s\"\n", "inline.net:1:",
		   "out of range", "bad width=");
	expect_err("speed=fast\n", "inline.net:1:", "bad number",
		   "bad speed=");
	expect_err("switchguid=0xZZ\n", "inline.net:1:", "bad GUID",
		   "bad switchguid=");
	expect_err("Switch 4 s\n", "inline.net:1:", "double quotes",
		   "header id without quotes");
	expect_err("Switch 4 \"s\n", "inline.net:1:", "double quotes",
		   "header id without closing quote");
	expect_err("Switch 4 \"s\"\n[1] h[1]\n",
		   "inline.net:2: node \"s\" port 1", "double quotes",
		   "remote id without quotes");
	expect_err("Switch 4 \"s\" # \"desc\n", "inline.net:1:",
		   "missing closing quote", "NodeDesc without closing quote");
	expect_err("Switch 4 \"s\"\n[1] \"h\"[1] junk\n",
		   "inline.net:2: node \"s\" port 1", "unexpected text",
		   "junk on a port line");
	expect_err("Switch 4 \"s\"\n[1] \"h\"[2]\n\n"
		   "Hca 2 \"h\"\n[2] \"t\"[1]\n\nSwitch 4 \"t\"\n[1] \"h\"[2]\n",
		   "inline.net:2: node \"s\" port 1",
		   "inline.net:5 links that port to \"t\"[1]",
		   "contradictory link declarations");
	expect_err("Switch 4 \"s\"\n[1] \"h\"[1]\n[1] \"h\"[2]\n",
		   "inline.net:3: node \"s\" port 1",
		   "port declared twice (first at line 2)", "port twice");
	expect_err("[1] \"h\"[1]\n", "inline.net:1:", "outside a node block",
		   "port line outside a block");
	expect_err("switchguid=0x10\nSwitch 2 \"a\"\n\nswitchguid=0x10\n"
		   "Switch 2 \"b\"\n", "inline.net:5: node \"b\"",
		   "GUID 0x0000000000000010 is already used by node \"a\"",
		   "duplicate GUID");
	expect_err("Switch 2 \"s\"\n[1] \"h\"[1] w=1\n\n"
		   "Hca 1 \"h\"\n[1] \"s\"[1] w=2\n",
		   "inline.net:2: node \"s\" port 1",
		   "no common link width with \"h\" port 1", "width mismatch");
	expect_err("Switch 2 \"s\"\n[1] \"h\"[1]\n\n"
		   "Hca 1 \"h\"\n[1] \"s\"[1] # lid 4 lmc 0\n\n"
		   "Hca 1 \"g\"\n[1] \"s\"[2] # lid 4 lmc 0\n\n",
		   "inline.net:8: node \"g\" port 1",
		   "LID 4 is already used by node \"h\" port 1",
		   "LID collision");
	expect_err("Switch 2 \"s\" # \"d\" base port 0 lid 3 lmc 0\n\n"
		   "Hca 1 \"h\"\n[1] \"s\"[1] # lid 2 lmc 2\n",
		   "inline.net:4: node \"h\" port 1",
		   "LID 3 is already used by node \"s\" port 0",
		   "LID collision inside an LMC range");
	expect_err("Switch 2 \"s\" # \"d\" enhanced port 0 lid 50000 lmc 0\n",
		   "inline.net:1: s", "past the unicast range", "LID too big");
	expect_err("Switch 2 \"s\"\n[1] \"s\"[1]\n",
		   "inline.net:2: node \"s\" port 1", "linked to itself",
		   "self link");
	expect_err("Switch 2 \"s\"\n[1] \"h\"[1]\n[2] \"h\"[1]\n\nHca 1 \"h\"\n",
		   "inline.net:3: node \"s\" port 2",
		   "\"h\" port 1 is already linked to \"s\" port 1",
		   "two links to one undeclared port");
	expect_err("include \"/nonexistent/x.net\"\n", "inline.net:1:",
		   "No such file", "missing include");
	expect_err("Switch 2 \"s\"\n[1] \"@x\"\n", "inline.net:2:",
		   "aliases", "ibsim aliases rejected");
	OK(!vf_netfile_load("/nonexistent/net", 0, &err), "missing file");
	OK(strstr(err.msg, "/nonexistent/net: No such file"),
	   "missing file: message");
}

/* Everything the writer promises to keep. */
static unsigned diff_fabrics(const struct vf_fabric *a,
			     const struct vf_fabric *b)
{
	unsigned bad = a->num_nodes != b->num_nodes;

	for (uint32_t n = 0; !bad && n < a->num_nodes; n++) {
		const struct vf_node *x = &a->nodes[n], *y = &b->nodes[n];

		bad += x->guid != y->guid || x->sysimg_guid != y->sysimg_guid ||
		       x->type != y->type || x->num_ports != y->num_ports ||
		       strcmp(vf_node_desc(a, x), vf_node_desc(b, y));
		for (unsigned i = 0; i <= x->num_ports; i++) {
			const struct vf_port *p = vf_node_port(a, x, i);
			const struct vf_port *q = vf_node_port(b, y, i);

			bad += p->guid != q->guid || p->remote != q->remote;
			if (p->remote != VF_NONE)
				bad += p->width != q->width ||
				       p->speed != q->speed;
		}
	}
	return bad;
}

static void round_trip(struct vf_fabric *f, const char *label)
{
	struct vf_err err = { "" };
	struct vf_fabric *g;
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	EQ_U(vf_netfile_write(out, f), 0, label);
	fclose(out);
	g = parse(buf, 0, &err);
	if (!OK(g, label))
		printf("# %s\n%s", err.msg, buf);
	if (g)
		EQ_U(diff_fabrics(f, g), 0, label);
	free(buf);
	vf_fabric_destroy(g);
}

static void test_round_trip(void)
{
	static const char *const files[] = {
		"2sw2path4hca.net", "2sw2path4hca-lmc2.ibnetdiscover",
		"speeds.net", "speeds.ibnetdiscover",
	};
	static const char speeds[] =
		"Switch 8 \"s\" # \"a \\\"quoted\\\" desc\"\n"
		"[1] \"h\"[1] # lid 0 4xFDR10\n[2] \"h\"[2] # lid 0 12xNDR\n"
		"[3] \"g\"[1] w=16 s=2\n[4] \"g\"[2] w=4 s=7 e=2\n"
		"[5] \"g\"[3] w=1 e=4\n\n"
		"sysimgguid=0x77\n"
		"Hca 2 \"h\"\n[1] \"s\"[1] # lid 0 4xFDR10\n"
		"[2] \"s\"[2] # lid 0 12xNDR\n\n"
		"Ca 3 \"g\"\n[1] \"s\"[3] w=16 s=2\n[2] \"s\"[4] w=4 s=7 e=2\n"
		"[3] \"s\"[5] w=1 e=4\n";
	struct vf_err err = { "" };
	struct vf_fabric *f;
	uint32_t s, h;

	for (unsigned i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		f = vf_netfile_load(fixture(files[i]), 0, &err);
		if (!OK(f, files[i]))
			printf("# %s\n", err.msg);
		if (f)
			round_trip(f, files[i]);
		vf_fabric_destroy(f);
	}
	f = parse(speeds, 0, &err);
	if (!OK(f, "all speeds and widths"))
		printf("# %s\n", err.msg);
	if (f) {
		EQ_U(port(f, "h", 2)->speed, VF_SPEED_NDR, "NDR from text");
		EQ_U(port(f, "h", 2)->width, 12, "12x from text");
		EQ_U(node(f, "h")->sysimg_guid, 0x77, "sysimgguid");
		round_trip(f, "all speeds and widths round-trip");
	}
	vf_fabric_destroy(f);

	/* nameless nodes (as a live subnet may give) are written by GUID */
	f = vf_fabric_create();
	s = vf_fabric_add_node(f, VF_NODE_SWITCH, 0xabc, 0, 4, NULL, "sw");
	h = vf_fabric_add_node(f, VF_NODE_CA, 0xdef0, 0x5, 1, NULL, "host");
	vf_fabric_link(f, vf_fabric_port(f, s, 3), vf_fabric_port(f, h, 1));
	f->ports[vf_fabric_port(f, s, 3)].width = 4;
	f->ports[vf_fabric_port(f, h, 1)].width = 4;
	f->ports[vf_fabric_port(f, s, 3)].speed = VF_SPEED_QDR;
	f->ports[vf_fabric_port(f, h, 1)].speed = VF_SPEED_QDR;
	OK(vf_fabric_finalize(f) == 0, "API fabric finalized");
	round_trip(f, "nameless nodes round-trip by GUID");
	vf_fabric_destroy(f);
}

int main(void)
{
	test_ibsim_example();
	cross_check("2sw2path4hca.net", "2sw2path4hca.ibnetdiscover");
	test_ibnetdiscover();
	test_speeds();
	test_inline();
	test_include();
	test_errors();
	test_round_trip();
	return tap_done();
}
