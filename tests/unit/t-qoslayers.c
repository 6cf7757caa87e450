// SPDX-License-Identifier: (GPL-2.0 OR Linux-OpenIB)
/*
 * QoS classes over VL layers (partition/qoslayers.h): one case worked out
 * by hand, then seeded programmes (1-10 classes on random SLs, some with
 * a multicast SL, 1-5 layers, 1-15 VLs) against the rules that keep the
 * layers deadlock-free and the classes apart:
 *  - two (class, layer) pairs of different layers never share a VL (a
 *    layer's routes may not wait on another's);
 *  - a class's layers are all on VLs of its own group, and classes of
 *    different groups share no VL;
 *  - every SL the SA may hand out maps to its pair's VL, on VLs < VLs;
 *  - refused (-ERANGE) exactly when the layers exceed the VLs or the SLs
 *    (the classes' own, plus one per group and layer above 0) exceed 16.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "partition/qoslayers.h"
#include "tests/unit/taptest.h"

static void add_class(struct vf_qos_prog *q, const char *name, uint8_t sl,
		      unsigned bw, bool high)
{
	struct vf_qos_class *c = &q->cls[q->n++];

	memset(c, 0, sizeof(*c));
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->sl = sl;
	c->mcast_sl = -1;
	c->bandwidth = high ? 0 : bw;
	c->high_priority = high;
	c->qos = true;
	q->active = true;
}

static void test_by_hand(void)
{
	struct vf_qos_prog q = { 0 };
	struct vf_qos_layering y;
	struct vf_qos_port t;
	char line[256];

	add_class(&q, "(no QoS)", 0, 30, false);
	add_class(&q, "Storage", 3, 30, false);
	add_class(&q, "Compute", 1, 40, false);
	add_class(&q, "Control", 6, 0, true);
	EQ_U(vf_qos_layering(&q, 3, 8, &y), 0, "4 classes, 3 layers, 8 VLs");
	EQ_U(y.groups, 2, "two groups of 3 VLs fit in 8");
	OK(y.sl[0][0] == 0 && y.sl[0][1] == 15 && y.sl[0][2] == 14 &&
	   y.sl[3][1] == 13 && y.sl[3][2] == 12 && y.sl[1][1] == 15 &&
	   y.sl[6][2] == 12,
	   "layer 0 on the class's SL; layers above on SLs 15, 14 (group 0) and 13, 12 (group 1)");
	OK(y.vl_of_sl[0] == 0 && y.vl_of_sl[15] == 1 && y.vl_of_sl[14] == 2 &&
	   y.vl_of_sl[3] == 3 && y.vl_of_sl[13] == 4 && y.vl_of_sl[12] == 5 &&
	   y.vl_of_sl[1] == 0 && y.vl_of_sl[6] == 3,
	   "group g's layer l on VL 3g + l");
	vf_qos_layered_tables(&q, &y, 8, &t);
	OK(t.num_low == 6 && t.low[0].vl == 0 && t.low[0].weight == 168 &&
	   t.low[3].vl == 3 && t.low[3].weight == 72,
	   "VLArb: group 0 (30% + 40%) weight 168 on VLs 0-2, group 1 (30%) 72 on 3-5");
	OK(t.num_high == 3 && t.high[0].vl == 3 && t.high[2].vl == 5,
	   "the high-priority class's group: VLs 3-5 in the high table");
	EQ_S(vf_qos_layering_shared(&q, &y, NULL, NULL, 0, line, sizeof(line)),
	     "'(no QoS)' and 'Compute' share VLs 0-2 (their bandwidth shares add up: 70%)",
	     "the first shared group is named");
	EQ_S(vf_qos_layering_shared(&q, &y, NULL, NULL, 1, line, sizeof(line)),
	     "'Storage' and 'Control' share VLs 3-5 (their bandwidth shares add up: 30%)",
	     "the second too");
	OK(!vf_qos_layering_shared(&q, &y, NULL, NULL, 2, line, sizeof(line)),
	   "and no third");
	OK(vf_qos_layering(&q, 9, 8, &y) == -ERANGE,
	   "more layers than VLs: refused");
}

static unsigned next_rand(unsigned long long *x)
{
	*x = *x * 6364136223846793005ull + 1442695040888963407ull;
	return (unsigned)(*x >> 33);
}

/* The rules of the header, checked on one programme; "" when kept. */
static const char *rules(const struct vf_qos_prog *q, unsigned layers,
			 unsigned vls, int rc, const struct vf_qos_layering *y)
{
	unsigned used = 0, groups = vls / layers < q->n ? vls / layers : q->n;
	int vl_layer[16], vl_group[16];

	for (unsigned k = 0; k < q->n; k++)
		used |= 1u << q->cls[k].sl |
			(q->cls[k].mcast_sl >= 0 ? 1u << q->cls[k].mcast_sl : 0);
	if (layers > vls)
		return rc == -ERANGE ? "" : "more layers than VLs accepted";
	if ((unsigned)__builtin_popcount(used) + groups * (layers - 1) > 16)
		return rc == -ERANGE ? "" : "more SLs than 16 accepted";
	if (rc)
		return "a programme that fits refused";
	memset(vl_layer, -1, sizeof(vl_layer));
	memset(vl_group, -1, sizeof(vl_group));
	for (unsigned k = 0; k < q->n; k++)
		for (unsigned l = 0; l < layers; l++) {
			uint8_t sl = y->sl[q->cls[k].sl][l];
			unsigned vl, g = y->group[k];

			if (sl >= 16)
				return "a class's layer has no SL";
			vl = y->vl_of_sl[sl];
			if (vl >= vls)
				return "a VL beyond the port's";
			if (l && (used & 1u << sl))
				return "a layer above 0 on a class's own SL";
			if (vl_layer[vl] >= 0 && vl_layer[vl] != (int)l)
				return "two layers share a VL";
			if (vl_group[vl] >= 0 && vl_group[vl] != (int)g)
				return "two groups share a VL";
			vl_layer[vl] = (int)l;
			vl_group[vl] = (int)g;
			if (q->cls[k].mcast_sl >= 0 &&
			    y->vl_of_sl[q->cls[k].mcast_sl] !=
			    y->vl_of_sl[y->sl[q->cls[k].sl][0]])
				return "multicast off its class's layer-0 VL";
		}
	return "";
}

static void test_generated(void)
{
	unsigned long long x = 7;
	unsigned runs = 3000, kept = 0, refused = 0;
	const char *why = "";

	for (unsigned run = 0; run < runs && !*why; run++) {
		struct vf_qos_prog q = { 0 };
		struct vf_qos_layering y;
		unsigned n = 1 + next_rand(&x) % 10, free_sls = 0xffff;
		unsigned layers = 1 + next_rand(&x) % 5;
		unsigned vls = 1 + next_rand(&x) % 15;
		int rc;

		for (unsigned k = 0; k < n; k++) {
			unsigned sl;
			char name[8];

			do
				sl = next_rand(&x) % 16;
			while (!(free_sls & 1u << sl));
			free_sls &= ~(1u << sl);
			snprintf(name, sizeof(name), "c%u", k);
			add_class(&q, name, (uint8_t)sl, 10, next_rand(&x) % 5 == 0);
			if (free_sls && next_rand(&x) % 4 == 0) {
				do
					sl = next_rand(&x) % 16;
				while (!(free_sls & 1u << sl));
				free_sls &= ~(1u << sl);
				q.cls[k].mcast_sl = (int)sl;
			}
		}
		rc = vf_qos_layering(&q, layers, vls, &y);
		why = rules(&q, layers, vls, rc, &y);
		if (*why)
			printf("# run %u: %u classes, %u layers, %u VLs: %s\n",
			       run, n, layers, vls, why);
		kept += !rc;
		refused += rc != 0;
	}
	OK(!*why, "3,000 seeded programmes keep the rules");
	OK(kept > 500 && refused > 500, "both laid out and refused ones among them");
}

int main(void)
{
	test_by_hand();
	test_generated();
	return tap_done();
}
