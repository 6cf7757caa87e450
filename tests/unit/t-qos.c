// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * vFabric QoS: classes, bandwidth shares in 5% units, SL2VL and VLArb
 * tables per VL count, HoqLife; the worked example of reference/opa-fm.md
 * section 11 (40/40/20) and the edges (no QoS, high priority, more classes
 * than VLs, rounding, a bandwidth budget that cannot be met).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "partition/assign.h"
#include "partition/qos.h"
#include "partition/internal/xmlconf.h"
#include "taptest.h"

#define HEAD "<Config><Common><Applications>" \
	"<Application><Name>Any</Name><Select>UnmatchedServiceID</Select></Application>" \
	"</Applications><DeviceGroups>" \
	"<DeviceGroup><Name>A</Name><NodeDesc>cn*</NodeDesc></DeviceGroup>" \
	"</DeviceGroups><VirtualFabrics>"
#define TAIL "</VirtualFabrics></Common></Config>"
#define VF(name, body) "<VirtualFabric><Name>" name "</Name><Enable>1</Enable>" \
	"<Member>A</Member><Application>Any</Application>" body \
	"</VirtualFabric>"
#define QOS(body) "<QOS>1</QOS>" body

static char tmpdir[] = "/tmp/t-qos-XXXXXX";

/*
 * Load text (or the file path when text is NULL), validate, assign SLs as
 * the plan would, and build the QoS programme.  Returns vf_qos_build's
 * result, or -100 when the config itself is rejected; d keeps messages.
 */
/*
 * These QoS fixtures have no SA/PM/PA VirtualFabric: the FM's management
 * rules (partition/fmmgmt.c, tested in t-vfconfig) warn about every one.
 * Left out here, so that the counts below are of the QoS messages.
 */
static void drop_mgmt_warnings(struct vf_diag *d)
{
	unsigned n = 0;

	for (unsigned i = 0; i < d->n; i++) {
		if (d->v[i].level == VF_DIAG_WARN &&
		    strstr(d->v[i].text, "the FM refuses this")) {
			free(d->v[i].text);
			continue;
		}
		d->v[n++] = d->v[i];
	}
	d->n = n;
}

static int build_from(const char *text, const char *path,
		      struct vf_qos_prog *q, struct vf_diag *d)
{
	struct vf_assignment a = { 0 };
	struct vf_config c;
	struct vf_plan p = { 0 };
	char file[256];
	uint16_t *pk;
	int rc = -100;

	if (text) {
		FILE *f;

		snprintf(file, sizeof(file), "%s/vf.xml", tmpdir);
		f = fopen(file, "w");
		fputs(text, f);
		fclose(f);
		path = file;
	}
	vf_config_init(&c);
	vf_xml_load(path, &c, d);
	if (!d->errors) {
		vf_config_validate(&c, d);
		drop_mgmt_warnings(d);
	}
	pk = calloc(c.num_vfs + 1, sizeof(*pk));
	p.vf_sl = calloc(c.num_vfs + 1, sizeof(*p.vf_sl));
	p.num_vfs = c.num_vfs;
	if (!d->errors && !vf_assign(&c, &a, pk, p.vf_sl, d))
		rc = vf_qos_build(&c, &p, q, d);
	for (unsigned i = 0; rc == -100 && i < d->n; i++)
		printf("#   %s\n", d->v[i].text);
	free(pk);
	free(p.vf_sl);
	vf_assignment_free(&a);
	vf_config_free(&c);
	return rc;
}

static int build(const char *text, struct vf_qos_prog *q, struct vf_diag *d)
{
	return build_from(text, NULL, q, d);
}

/* "SL:VL ..." of the SLs that do not map to VL0, for short checks. */
static const char *sl2vl_str(const struct vf_qos_port *t)
{
	static char buf[256];
	size_t n = 0;

	buf[0] = 0;
	for (unsigned sl = 0; sl < VF_QOS_NUM_SLS; sl++)
		if (t->sl2vl[sl])
			n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%u:%u",
					      n ? " " : "", sl, t->sl2vl[sl]);
	return buf;
}

/* "VL:weight ..." of a VLArb table. */
static const char *arb_str(const struct vf_vlarb_entry *e, unsigned num)
{
	static char buf[2][256];
	static int which;
	char *b = buf[which ^= 1];
	size_t n = 0;

	b[0] = 0;
	for (unsigned i = 0; i < num; i++)
		n += (size_t)snprintf(b + n, sizeof(buf[0]) - n, "%s%u:%u",
				      i ? " " : "", e[i].vl, e[i].weight);
	return b;
}

static unsigned sum_bw(const struct vf_qos_prog *q)
{
	unsigned s = 0;

	for (unsigned k = 0; k < q->n; k++)
		s += q->cls[k].bandwidth;
	return s;
}

static bool all_units(const struct vf_qos_prog *q)
{
	for (unsigned k = 0; k < q->n; k++)
		if (q->cls[k].bandwidth % VF_QOS_UNIT ||
		    (!q->cls[k].high_priority && !q->cls[k].bandwidth))
			return false;
	return true;
}

/* reference/opa-fm.md section 11: Default + Admin without QoS, Compute
 * (QoS, no BaseSL, no Bandwidth), Lustre (BaseSL 5, 20%). */
static void test_worked_example(void)
{
	struct vf_diag d = { 0 };
	struct vf_qos_prog q;
	struct vf_qos_port t;

	OK(!build(HEAD VF("Default", "<PKey>0x0001</PKey>")
		  VF("Admin", "<PKey>0x7fff</PKey><Security>1</Security>")
		  VF("Compute", "<Security>1</Security>" QOS(""))
		  VF("Lustre", "<Security>1</Security>"
		     QOS("<BaseSL>5</BaseSL><Bandwidth>20%</Bandwidth>")) TAIL,
		  &q, &d), "section 11 example builds");
	OK(q.active, "it has QoS");
	EQ_U(q.n, 3, "three classes: non-QoS, Compute, Lustre");
	OK(!q.cls[0].qos && q.cls[0].num_vfs == 2 && q.cls[0].sl == 0,
	   "Default and Admin share the non-QoS class on SL0");
	OK(q.cls[1].qos && !strcmp(q.cls[1].name, "Compute") &&
	   q.cls[1].sl == 1, "Compute gets the next free SL, 1");
	OK(!strcmp(q.cls[2].name, "Lustre") && q.cls[2].sl == 5,
	   "Lustre keeps BaseSL 5");
	EQ_U(q.cls[0].bandwidth, 40, "non-QoS gets 40%");
	EQ_U(q.cls[1].bandwidth, 40, "Compute gets 40%");
	EQ_U(q.cls[2].bandwidth, 20, "Lustre gets its 20%");
	EQ_U(q.hoq_life, (uint64_t)-1, "no HoqLife asked: OpenSM's stays");
	OK(!d.n, "no warnings");

	vf_qos_port_tables(&q, 8, 8, 8, &t);
	EQ_S(sl2vl_str(&t), "1:1 5:2", "8 VLs: SL1 on VL1, SL5 on VL2, "
	     "the rest on VL0");
	EQ_S(arb_str(t.low, t.num_low), "0:96 1:96 2:48",
	     "low table: weights 96/96/48 (40/40/20 at 12 per 5%)");
	EQ_U(t.num_high, 0, "no high-priority entries");
	EQ_U(t.high_limit, 0, "VLHighLimit 0");
	EQ_U(t.folded, 0, "nothing folded");

	vf_qos_port_tables(&q, 2, 8, 8, &t);
	EQ_S(sl2vl_str(&t), "1:1", "2 VLs: Lustre folds onto VL0");
	EQ_S(arb_str(t.low, t.num_low), "0:144 1:96",
	     "2 VLs: VL0 carries 60%, VL1 40%");
	EQ_U(t.folded, 1, "one class folded");

	vf_qos_port_tables(&q, 1, 0, 0, &t);
	EQ_S(sl2vl_str(&t), "", "1 VL: every SL on VL0");
	EQ_S(arb_str(t.low, t.num_low), "0:240", "1 VL: VL0 has it all");
	vf_diag_free(&d);
}

static void test_no_qos(void)
{
	struct vf_diag d = { 0 };
	struct vf_qos_prog q;

	OK(!build(HEAD VF("Default", "<PKey>0x0001</PKey>")
		  VF("Other", "<QOS>0</QOS><Bandwidth>50%</Bandwidth>") TAIL,
		  &q, &d), "config without QoS builds");
	OK(!q.active, "no QoS VF: the programme is not active");
	OK(!d.errors, "no errors");
	vf_diag_free(&d);

	OK(!build(HEAD VF("Default", "") VF("Later", "<Standby>1</Standby>"
		  QOS("<Bandwidth>50%</Bandwidth>")) TAIL, &q, &d),
	   "a standby QoS VF builds");
	OK(!q.active, "a QoS VF in standby does not activate QoS");
	vf_diag_free(&d);
}

static void test_high_priority(void)
{
	struct vf_diag d = { 0 };
	struct vf_qos_prog q;
	struct vf_qos_port t;

	OK(!build(HEAD VF("Default", "")
		  VF("Control", QOS("<BaseSL>2</BaseSL><HighPriority>1</HighPriority>"
				    "<Bandwidth>30%</Bandwidth>"))
		  VF("Data", QOS("<Bandwidth>60%</Bandwidth>")) TAIL, &q, &d),
	   "high-priority config builds");
	EQ_U(q.n, 3, "three classes");
	EQ_U(q.num_high, 1, "one high-priority class");
	OK(q.cls[1].high_priority && q.cls[1].bandwidth == 0,
	   "Control has no bandwidth share (its 30% is ignored)");
	EQ_U(q.cls[2].bandwidth, 60, "Data gets its 60%");
	EQ_U(q.cls[0].bandwidth, 40, "non-QoS the remaining 40%");
	vf_qos_port_tables(&q, 8, 8, 8, &t);
	EQ_S(sl2vl_str(&t), "1:2 2:1", "Control's SL2 on VL1, Data's SL1 "
	     "on VL2");
	EQ_S(arb_str(t.low, t.num_low), "0:96 2:144",
	     "low table: VL0 40%, VL2 60%; VL1 not in it");
	EQ_S(arb_str(t.high, t.num_high), "1:64",
	     "high table: VL1 only");
	EQ_U(t.high_limit, 1, "VLHighLimit: one high-priority VL");
	vf_qos_port_tables(&q, 8, 8, 0, &t);
	OK(t.num_high == 0 && t.high_dropped == 1 && t.high_limit == 0,
	   "a port without a high table: the high VL is dropped, and said");
	vf_diag_free(&d);
}

static void test_fold(void)
{
	struct vf_diag d = { 0 };
	struct vf_qos_prog q;
	struct vf_qos_port t;
	unsigned w = 0;

	OK(!build(HEAD VF("Default", "")
		  VF("Q1", QOS("<Bandwidth>10%</Bandwidth>"))
		  VF("Q2", QOS("<Bandwidth>10%</Bandwidth>"))
		  VF("Q3", QOS("<Bandwidth>20%</Bandwidth>"))
		  VF("Q4", QOS("<Bandwidth>20%</Bandwidth>"))
		  VF("Q5", QOS("<Bandwidth>20%</Bandwidth>")) TAIL, &q, &d),
	   "six classes build");
	EQ_U(q.n, 6, "six classes");
	EQ_U(q.cls[0].bandwidth, 20, "non-QoS gets the remaining 20%");
	vf_qos_port_tables(&q, 4, 8, 8, &t);
	EQ_U(t.folded, 2, "4 VLs: two classes folded");
	EQ_S(sl2vl_str(&t), "1:1 2:2 3:3 5:1",
	     "class k on VL k mod 4 (Q4 on VL0, Q5 on VL1)");
	EQ_S(arb_str(t.low, t.num_low), "0:96 1:72 2:24 3:48",
	     "the folded VLs carry the sum of their classes' shares");
	for (unsigned i = 0; i < t.num_low; i++)
		w += t.low[i].weight;
	EQ_U(w, 240, "weights add up to 100%");
	vf_qos_port_tables(&q, 8, 2, 8, &t);
	EQ_U(t.vls, 2, "a low table of 2 entries makes 2 VLs usable");
	vf_diag_free(&d);
}

static void test_rounding(void)
{
	struct vf_diag d = { 0 };
	struct vf_qos_prog q;

	OK(!build(HEAD VF("Default", "")
		  VF("A", QOS("<Bandwidth>33%</Bandwidth>"))
		  VF("B", QOS("")) VF("C", QOS("")) TAIL, &q, &d),
	   "33% plus two without a share builds");
	/* 67% left over 3: 22, 22 and the remainder 23 for non-QoS */
	EQ_U(q.cls[0].bandwidth, 25, "non-QoS 23% rounds to 25%");
	EQ_U(q.cls[1].bandwidth, 35, "A 33% rounds to 35%");
	EQ_U(q.cls[2].bandwidth, 20, "B 22% rounds to 20%");
	EQ_U(q.cls[3].bandwidth, 20, "C 22% rounds to 20%");
	EQ_U(sum_bw(&q), 100, "shares sum to 100%");

	OK(!build(HEAD VF("Default", "")
		  VF("X", QOS("<Bandwidth>90%</Bandwidth>"))
		  VF("A", QOS("")) VF("B", QOS("")) VF("C", QOS(""))
		  VF("D", QOS("")) TAIL, &q, &d),
	   "90% plus four without a share builds (FM: needs 5% + 4 x 1%)");
	OK(q.cls[0].bandwidth >= 5, "non-QoS keeps at least 5%");
	OK(all_units(&q), "every share a non-zero multiple of 5%");
	EQ_U(sum_bw(&q), 100, "shares sum to 100%");

	OK(!build(HEAD VF("A", QOS("<Bandwidth>33%</Bandwidth>"))
		  VF("B", QOS("<Bandwidth>33%</Bandwidth>"))
		  VF("C", QOS("<Bandwidth>34%</Bandwidth>")) TAIL, &q, &d),
	   "33/33/34 without non-QoS builds");
	OK(q.cls[0].bandwidth + q.cls[1].bandwidth + q.cls[2].bandwidth ==
	   100 && all_units(&q), "33/33/34 apportioned to 5% units, sum 100");

	OK(!build(HEAD VF("A", QOS("<Bandwidth>10%</Bandwidth>"))
		  VF("B", QOS("<Bandwidth>30%</Bandwidth>")) TAIL, &q, &d),
	   "10/30 (under 100%, nothing else) builds");
	OK(q.cls[0].bandwidth == 25 && q.cls[1].bandwidth == 75,
	   "shares under 100% scale up in proportion");
	vf_diag_free(&d);

	OK(build(HEAD VF("Default", "")
		 VF("A", QOS("<Bandwidth>96%</Bandwidth>")) TAIL, &q, &d) ==
	   -EINVAL, "96% with a non-QoS VF: not realisable");
	OK(d.errors == 1 && strstr(d.v[0].text, "need 5% available"),
	   "the error says what is needed");
	OK(!q.active, "and the programme is not active");
	vf_diag_free(&d);
}

static void test_shared_and_mcast(void)
{
	struct vf_diag d = { 0 };
	struct vf_qos_prog q;
	struct vf_qos_port t;

	OK(!build(HEAD "</VirtualFabrics><QOSGroups><QOSGroup><Name>Fast</Name>"
		  "<Enable>1</Enable><BaseSL>3</BaseSL><MulticastSL>4</MulticastSL>"
		  "<Bandwidth>50%</Bandwidth></QOSGroup>"
		  "<QOSGroup><Name>Rest</Name><Enable>1</Enable></QOSGroup>"
		  "</QOSGroups><VirtualFabrics>"
		  VF("T1", "<PKey>0x10</PKey><QOSGroup>Fast</QOSGroup>")
		  VF("T2", "<PKey>0x20</PKey><QOSGroup>Fast</QOSGroup>")
		  VF("Default", "<PKey>0x30</PKey><QOSGroup>Rest</QOSGroup>")
		  TAIL, &q, &d), "QOSGroup config builds");
	EQ_U(q.n, 2, "two VFs of one QOSGroup are one class");
	OK(!strcmp(q.cls[0].name, "Fast") && q.cls[0].num_vfs == 2,
	   "the class is named after its QOSGroup");
	EQ_U(q.cls[0].bandwidth + q.cls[1].bandwidth, 100,
	     "Fast 50% and Rest the remaining 50%");
	vf_qos_port_tables(&q, 8, 8, 8, &t);
	EQ_S(sl2vl_str(&t), "0:1", "Rest's SL0 on VL1, Fast's SL3 and 4 on VL0");
	vf_diag_free(&d);
}

static void test_hoq_life(void)
{
	struct vf_diag d = { 0 };
	struct vf_qos_prog q;

	OK(!build(HEAD VF("A", QOS("<HoqLife>8ms</HoqLife>"))
		  VF("B", QOS("<HoqLife>8ms</HoqLife>")) TAIL, &q, &d),
	   "equal HoqLife builds");
	EQ_U(q.hoq_life, 11, "8 ms is 4.096 us * 2^11");
	OK(!d.n, "no warning when the classes agree");
	OK(!build(HEAD VF("A", QOS("<HoqLife>8ms</HoqLife>"))
		  VF("B", QOS("<HoqLife_Int>14</HoqLife_Int>"))
		  VF("C", QOS("")) TAIL, &q, &d), "differing HoqLife builds");
	EQ_U(q.hoq_life, 14, "the largest wins");
	OK(d.n == 1 && d.v[0].level == VF_DIAG_WARN &&
	   strstr(d.v[0].text, "one HOQLife per port"),
	   "a warning says IB has one HOQLife per port");
	vf_diag_free(&d);
}

static void test_qos8_example(void)
{
	struct vf_diag d = { 0 };
	struct vf_qos_prog q;
	struct vf_qos_port t;
	char path[4096];
	const char *top = getenv("top_srcdir");

	snprintf(path, sizeof(path), "%s/conf/vfabric-qos8.xml",
		 top ? top : ".");
	OK(!build_from(NULL, path, &q, &d), "conf/vfabric-qos8.xml builds");
	EQ_U(q.n, 8, "eight classes, none without QoS");
	vf_qos_port_tables(&q, 8, 8, 8, &t);
	EQ_S(sl2vl_str(&t), "1:1 2:2 3:3 4:4 5:5 6:6 7:7",
	     "8 VLs: SL k on VL k");
	EQ_S(arb_str(t.low, t.num_low),
	     "0:12 1:12 2:24 3:36 4:60 5:72 6:12 7:12",
	     "weights follow 5/5/10/15/25/30/5/5");
	vf_diag_free(&d);
}

static void test_vls_code(void)
{
	OK(vf_qos_vls_of_code(1) == 1 && vf_qos_vls_of_code(2) == 2 &&
	   vf_qos_vls_of_code(3) == 4 && vf_qos_vls_of_code(4) == 8 &&
	   vf_qos_vls_of_code(5) == 15 && vf_qos_vls_of_code(0) == 0 &&
	   vf_qos_vls_of_code(6) == 0, "VLCap codes 1-5 are 1/2/4/8/15 VLs");
}

int main(void)
{
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_worked_example();
	test_no_qos();
	test_high_priority();
	test_fold();
	test_rounding();
	test_shared_and_mcast();
	test_hoq_life();
	test_qos8_example();
	test_vls_code();
	{
		char path[300];

		snprintf(path, sizeof(path), "%s/vf.xml", tmpdir);
		unlink(path);
		rmdir(tmpdir);
	}
	return tap_done();
}
